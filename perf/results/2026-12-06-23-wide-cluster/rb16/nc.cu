// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb16's nc side: the working tree with 8-byte accumulators kept off the clusters (-DTILEKIT_REDUCE_CLUSTER_ITEM_BYTES=4),
// under another namespace name: ArgMin's keys and int64 sums take the grid past one block.
#define TILEKIT_REDUCE_CLUSTER_ITEM_BYTES 4
#define tilekit tilekit_nc
#include <tilekit/device/reduce.cuh>
cudaError_t nc_lsum(void* t, size_t& b, const long long* in, long long n, long long* out) { return tilekit::device::reduce(t, b, in, n, out, tilekit::plus{}, 0ll); }
cudaError_t nc_argmin(void* t, size_t& b, const int* in, long long n, int* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); }
cudaError_t nc_fargmin(void* t, size_t& b, const float* in, long long n, float* v, long long* i) { return tilekit::device::arg_min(t, b, in, n, v, i); }
