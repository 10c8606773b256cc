// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb13's old side: the working tree.
#include <tilekit/device/reduce.cuh>
cudaError_t new_sum(void* t, size_t& b, const int* in, long long n, int* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0); }
cudaError_t new_fsum(void* t, size_t& b, const float* in, long long n, float* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0.f); }
cudaError_t new_argmin(void* t, size_t& b, const int* in, long long n, int* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); }
