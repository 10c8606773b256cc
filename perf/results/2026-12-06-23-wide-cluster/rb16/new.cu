// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb16's new side: the working tree.


#include <tilekit/device/reduce.cuh>
cudaError_t new_lsum(void* t, size_t& b, const long long* in, long long n, long long* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0ll); }
cudaError_t new_argmin(void* t, size_t& b, const int* in, long long n, int* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); }
cudaError_t new_fargmin(void* t, size_t& b, const float* in, long long n, float* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); }
