// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb20's two sides (old.cu: the library at 224a876 under another namespace name; new.cu: the working tree).
#include <tilekit/device/reduce.cuh>
struct rb20_odd {
  __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};
#define RB20_SIDE(P)                                                                                                                 \
  cudaError_t P##_sum(void* t, size_t& b, const int* in, long long n, int* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0); } \
  cudaError_t P##_usum(void* t, size_t& b, const unsigned* in, long long n, unsigned* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0u); } \
  cudaError_t P##_fsum(void* t, size_t& b, const float* in, long long n, float* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0.f); } \
  cudaError_t P##_count(void* t, size_t& b, const int* in, long long n, long long* out) { return tilekit::device::count_if(t, b, in, n, out, rb20_odd{}); }
