// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/gpu/launch.cuh - run one kernel body on the GPU in the same shape the
// simulator runs it (tilekit::sim::launch):
//
//   struct body {
//     template <class Ctx> TILEKIT_HD void operator()(Ctx& ctx) const {
//       auto warp = tilekit::tiled_partition<32>(ctx.block());
//       ...
//     }
//   };
//   tilekit::launch(grid, block, stream, body{...}, shared_bytes);   // GPU
//   tilekit::sim::launch(grid, block, body{...}, shared_bytes);      // CPU
//
// The body is called once per thread with a context: ctx.block() is the block
// group, ctx.shared<T>() the block's dynamic shared memory viewed as a T,
// ctx.shared_array<T>(count) as an array of count T.
#pragma once
#include <tilekit/gpu/groups.cuh>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExtMemCudaRt.h>

#include <cstddef>

namespace tilekit {

/// What a kernel body sees of its launch on the GPU: Launch is how it was launched
/// (launch: ordinary, launch_cooperative: cooperative), which grid() reports.
template <grid_launch Launch>
class gpu_context {
 public:
  /// The calling thread's block, its size known at run time only.
  __device__ block<> block() const { return tilekit::block<>(); }
  /// The calling thread's block, its size fixed at compile time.
  /// @pre the launch's blocks have Threads threads.
  template <unsigned Threads>
  __device__ tilekit::block<Threads> block() const { return tilekit::block<Threads>(); }
  /// The whole grid, as launched: under launch_cooperative every grid algorithm and
  /// sync(); under launch the chained ones only (the others do not compile).
  __device__ basic_grid<gpu_backend, Launch> grid() const { return basic_grid<gpu_backend, Launch>(); }

  /// The dynamic shared memory of this block as a T (16-byte aligned).
  /// @pre the launch asked for at least sizeof(T) bytes of shared memory.
  template <class T>
  __device__ T& shared() const {
    return *shared_array<T>(1);
  }
  /// The dynamic shared memory of this block as an array of count T (16-byte aligned).
  /// @pre the launch asked for at least count * sizeof(T) bytes of shared memory.
  template <class T>
  __device__ T* shared_array(std::size_t /*count*/) const {
    extern __shared__ __align__(16) unsigned char tilekit_dynamic_shared[];
    return reinterpret_cast<T*>(tilekit_dynamic_shared);
  }
};

namespace detail {
// A body may declare `static constexpr unsigned Threads, MinBlocksPerSM`: its kernel is
// then compiled for exactly that block size, with registers for that many blocks per
// SM (more than the 64 a 1024-thread bound leaves). Other bodies launch with any size.
template <class Body, class = void>
struct launch_bounds_of {
  static constexpr unsigned threads = 1024, min_blocks = 1;
};
template <class Body>
struct launch_bounds_of<Body, decltype(void(Body::MinBlocksPerSM))> {
  static constexpr unsigned threads = Body::Threads, min_blocks = Body::MinBlocksPerSM;
};

template <class Body, grid_launch Launch>
__global__ void __launch_bounds__(launch_bounds_of<Body>::threads, launch_bounds_of<Body>::min_blocks)
    body_kernel(Body body) {
  gpu_context<Launch> ctx;
  body(ctx);
}

// Above 48 KiB a kernel must opt in to its dynamic shared memory.
template <class Body, grid_launch Launch>
cudaError_t allow_shared_bytes(std::size_t shared_bytes) {
  if (shared_bytes <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(body_kernel<Body, Launch>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(shared_bytes));
}
}  // namespace detail

/// The `__global__` function that launch (Launch = ordinary) or launch_cooperative
/// (cooperative) runs body on, for the CUDA runtime's queries
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor, cudaFuncGetAttributes, ...).
template <class Body, grid_launch Launch = grid_launch::ordinary>
auto kernel_of() -> void (*)(Body) {
  return &detail::body_kernel<Body, Launch>;
}

/// Launches body on grid x block threads in stream with shared_bytes of dynamic
/// shared memory; returns the launch's error (cudaSuccess if it was queued).
template <class Body>
cudaError_t launch(dim3 grid, dim3 block, cudaStream_t stream, const Body& body, std::size_t shared_bytes = 0) {
  if (cudaError_t e = detail::allow_shared_bytes<Body, grid_launch::ordinary>(shared_bytes); e != cudaSuccess)
    return e;
  // cudaLaunchKernel returns this launch's own error; cudaGetLastError after <<<>>>
  // would also return an earlier, unrelated failure of the calling thread.
  void* args[] = {const_cast<Body*>(&body)};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&detail::body_kernel<Body, grid_launch::ordinary>), grid, block, args, shared_bytes,
                          stream);
}

/// As launch, as a cooperative launch: every block resident at once, so the body's
/// ctx.grid() has sync() and every grid algorithm. Fails (cudaErrorCooperativeLaunchTooLarge)
/// when the grid does not fit on the device at once.
template <class Body>
cudaError_t launch_cooperative(dim3 grid, dim3 block, cudaStream_t stream, const Body& body,
                               std::size_t shared_bytes = 0) {
  if (cudaError_t e = detail::allow_shared_bytes<Body, grid_launch::cooperative>(shared_bytes); e != cudaSuccess)
    return e;
  void* args[] = {const_cast<Body*>(&body)};
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&detail::body_kernel<Body, grid_launch::cooperative>), grid, block, args,
                                     shared_bytes, stream);
}

/// Where the device-wide algorithms run their kernels on the GPU: a stream of the
/// current device. The simulator has the same shape (tilekit::sim::launcher), so the
/// dispatch code of a device-wide algorithm is written once.
struct gpu_launcher {
  /// The error type of run, zero and the device-wide dispatches run through this launcher.
  using error_type = cudaError_t;
  /// What run and zero return when they succeed.
  static constexpr cudaError_t success = cudaSuccess;
  /// What a device-wide dispatch returns, writing nothing, for arguments it rejects.
  static constexpr cudaError_t invalid_value = cudaErrorInvalidValue;
  /// Where every kernel and memset is queued (0: the default stream).
  cudaStream_t stream = 0;

  /// Streaming multiprocessors of the current device (0 if it cannot be queried).
  unsigned sm_count() const {
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 0;
    return static_cast<unsigned>(sms);
  }
  /// The most dynamic shared memory one block may opt in to (0 if it cannot be queried).
  std::size_t max_shared_bytes() const {
    int device = 0, bytes = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return 0;
    if (cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess) return 0;
    return static_cast<std::size_t>(bytes);
  }
  /// Launches body on grid x block threads in stream with shared_bytes of dynamic shared
  /// memory (tilekit::launch); returns the launch's error.
  template <class Body>
  cudaError_t run(unsigned grid, unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    return launch(dim3(grid), dim3(block), stream, body, shared_bytes);
  }
  /// Zeroes bytes bytes at p in stream (`cudaMemsetAsync`); returns its error.
  cudaError_t zero(void* p, std::size_t bytes) const { return cudaMemsetAsync(p, 0, bytes, stream); }
  /// Declares bytes bytes at p initialised in stream for compute-sanitizer's initcheck
  /// (NVTX's nvtxMemCudaMarkInitialized; run initcheck with --nvtx yes): storage a kernel
  /// reads before writing where any content is valid. A no-op without a tool attached.
  void assume_initialized(void* p, std::size_t bytes) const {
    static const nvtxDomainHandle_t domain = nvtxDomainCreateA("tilekit");
    nvtxMemVirtualRangeDesc_t range{};
    range.size = bytes;
    range.ptr = p;
    nvtxMemMarkInitializedBatch_t desc{};
    desc.extCompatID = NVTX_EXT_COMPATID_MEM;
    desc.structSize = sizeof(desc);
    desc.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    desc.regionDescCount = 1;
    desc.regionDescElementSize = sizeof(range);
    desc.regionDescElements = &range;
    nvtxMemCudaMarkInitialized(domain, stream, 0, &desc);
  }
};

}  // namespace tilekit
