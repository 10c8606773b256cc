// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb15's old side: the library at 16dc052 under another namespace name.
#define tilekit tilekit_old
#include <tilekit/device/reduce.cuh>
cudaError_t old_sum(void* t, size_t& b, const int* in, long long n, int* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0); }
cudaError_t old_fsum(void* t, size_t& b, const float* in, long long n, float* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0.f); }
cudaError_t old_lsum(void* t, size_t& b, const long long* in, long long n, long long* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0ll); }
cudaError_t old_argmin(void* t, size_t& b, const int* in, long long n, int* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); }
