// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb18's old side: the library at a72c1a8 (the attribute set once a device, no retry) under another namespace name.
#define tilekit tilekit_old
#include <tilekit/device/reduce.cuh>
cudaError_t old_sum(void* t, size_t& b, const int* in, long long n, int* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0); }
