// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The focused benches' timing (rbench2.cu, rbench3.cu): CK stops on a CUDA error; med(f, warm) is the median of
// 31 CUDA-event times of f(0), each after a 256 MB memset that flushes L2 (warm: and after f(1), the same call on
// another buffer). main() allocates flushbuf first.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1);} } while (0)
static char* flushbuf; static size_t flushbytes = 256u << 20;
template <class F> double med(F f, bool warm) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 31; ++r) {
    CK(cudaMemsetAsync(flushbuf, r, flushbytes));
    if (warm) f(1);
    CK(cudaEventRecord(a)); f(0); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1e3);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
