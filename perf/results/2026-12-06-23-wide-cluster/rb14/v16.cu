// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb14: 16 vectors a thread (-DTILEKIT_REDUCE_CLUSTER_VECTORS=16), the library under another namespace name.
#define TILEKIT_REDUCE_CLUSTER_VECTORS 16
#define tilekit tilekit_v16
#include "kernels.cuh"
cudaError_t c16x512v16(const int* in, long long n, int* out) { return cluster_sum<16, 512>(in, n, out); }
cudaError_t c8x512v16(const int* in, long long n, int* out) { return cluster_sum<8, 512>(in, n, out); }
long long max_c16x512v16() { return cluster_max<16, 512, int>(); }
long long max_c8x512v16() { return cluster_max<8, 512, int>(); }
