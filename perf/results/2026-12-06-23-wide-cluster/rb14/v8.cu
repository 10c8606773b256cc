// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb14: the working tree (8 vectors a thread).
#include "kernels.cuh"
cudaError_t lib_sum(void* t, size_t& b, const int* in, long long n, int* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0); }
cudaError_t lib_sum64(void* t, size_t& b, const long long* in, long long n, long long* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0ll); }
cudaError_t c8x512(const int* in, long long n, int* out) { return cluster_sum<8, 512>(in, n, out); }
cudaError_t c16x512(const int* in, long long n, int* out) { return cluster_sum<16, 512>(in, n, out); }
cudaError_t c16x1024(const int* in, long long n, int* out) { return cluster_sum<16, 1024>(in, n, out); }
cudaError_t c16x512_64(const long long* in, long long n, long long* out) { return cluster_sum<16, 512>(in, n, out); }
long long max_c8x512() { return cluster_max<8, 512, int>(); }
long long max_c16x512() { return cluster_max<16, 512, int>(); }
long long max_c16x1024() { return cluster_max<16, 1024, int>(); }
long long max_c16x512_64() { return cluster_max<16, 512, long long>(); }
unsigned fit_c16x512() { return cluster_fit<16, 512, int>(); }
unsigned fit_c16x1024() { return cluster_fit<16, 1024, int>(); }
