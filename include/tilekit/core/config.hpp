// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/core/config.hpp - compiler and target switches shared by every header.
//
// The algorithm headers are plain C++17 so that the CPU simulator (tilekit::sim)
// can compile them with g++ alone; under nvcc the same functions become
// __host__ __device__ templates.
#pragma once
#include <tilekit/core/version.hpp>

#if defined(__CUDACC__)
#  define TILEKIT_HD __host__ __device__ __forceinline__
#  define TILEKIT_DEVICE __device__ __forceinline__
// Algorithms are __host__ __device__ templates; the group they are instantiated
// with decides where they can run (GPU groups: device only, sim groups: host only).
// The pragma also silences nvcc where GPU code calls a host-only function (warning
// #20013 for a constexpr one) outside a constant expression: nvcc compiles that call to
// nothing (it once emptied a whole test kernel). To look for such calls, build a GPU
// translation unit with -DTILEKIT_EXEC_CHECK_DISABLE= (empty): each #20011 / #20013 names one.
#  ifndef TILEKIT_EXEC_CHECK_DISABLE
#    define TILEKIT_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
#  endif
#  if defined(__CUDA_ARCH__)
#    define TILEKIT_UNROLL _Pragma("unroll")
#  else
#    define TILEKIT_UNROLL  // nvcc's host pass: the host compiler knows no `unroll` pragma (-Wunknown-pragmas)
#  endif
#else
#  define TILEKIT_HD inline
#  define TILEKIT_DEVICE inline
#  define TILEKIT_EXEC_CHECK_DISABLE
#  define TILEKIT_UNROLL
#endif

// True while compiling code that will run on a GPU.
#if defined(__CUDA_ARCH__)
#  define TILEKIT_DEVICE_PASS 1
#else
#  define TILEKIT_DEVICE_PASS 0
#endif

// redux.sync (__reduce_*_sync) exists from sm_80 on.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#  define TILEKIT_HAS_REDUX 1
#else
#  define TILEKIT_HAS_REDUX 0
#endif

// The 1-bit tensor-core product (mma .b1 m16n8k256 .and.popc) exists from sm_80 on.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#  define TILEKIT_HAS_BIT_MMA 1
#else
#  define TILEKIT_HAS_BIT_MMA 0
#endif

// Thread-block clusters (cooperative_groups' cluster_group, distributed shared memory)
// exist from sm_90 on; cooperative_groups defines _CG_HAS_CLUSTER_GROUP only then.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#  define TILEKIT_HAS_CLUSTER 1
#else
#  define TILEKIT_HAS_CLUSTER 0
#endif

#define TILEKIT_VERSION_MAJOR 0
#define TILEKIT_VERSION_MINOR 1
#define TILEKIT_VERSION_PATCH 0
