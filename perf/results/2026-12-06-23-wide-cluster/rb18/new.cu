// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb18's new side: the working tree (set again after a failed launch).

#include <tilekit/device/reduce.cuh>
cudaError_t new_sum(void* t, size_t& b, const int* in, long long n, int* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0); }
