// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb15's new side: the working tree (16-block clusters).

#include <tilekit/device/reduce.cuh>
cudaError_t new_sum(void* t, size_t& b, const int* in, long long n, int* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0); }
cudaError_t new_fsum(void* t, size_t& b, const float* in, long long n, float* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0.f); }
cudaError_t new_lsum(void* t, size_t& b, const long long* in, long long n, long long* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0ll); }
cudaError_t new_argmin(void* t, size_t& b, const int* in, long long n, int* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); }
