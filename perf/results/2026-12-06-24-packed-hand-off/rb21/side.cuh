// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb21's two sides (old.cu: the library at 224a876 under another namespace name; new.cu: the working tree).
#include <tilekit/device/reduce.cuh>
#define RB21_SIDE(P)                                                                                                                 \
  cudaError_t P##_sum(void* t, size_t& b, const int* in, long long n, int* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0); } \
  cudaError_t P##_fsum(void* t, size_t& b, const float* in, long long n, float* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0.f); } \
  cudaError_t P##_dsum(void* t, size_t& b, const double* in, long long n, double* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0.0); } \
  cudaError_t P##_lsum(void* t, size_t& b, const long long* in, long long n, long long* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0ll); } \
  cudaError_t P##_argmin(void* t, size_t& b, const int* in, long long n, int* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); } \
  cudaError_t P##_fargmin(void* t, size_t& b, const float* in, long long n, float* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); }
