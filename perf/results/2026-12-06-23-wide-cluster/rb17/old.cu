// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb17's old side: the library at 6ef67a8 (the non-portable cluster size set on every launch) under another namespace name.
#define tilekit tilekit_old
#include <tilekit/device/reduce.cuh>
cudaError_t old_sum(void* t, size_t& b, const int* in, long long n, int* out, cudaStream_t s) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0, s); }
