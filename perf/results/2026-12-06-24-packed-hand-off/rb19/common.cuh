// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The helpers this directory's programs share (moved here from each after they ran; the programs are
// otherwise as run): CK (stop on a CUDA error), the L2 flush buffer, med(f) (the median of 41 calls of f,
// each timed with CUDA events after a 256 MB memset and, where warm_up is set, its launch outside the
// timing), and block_sum_to<Threads>(v, w) (a block's int sum, in thread 0; w: 32 ints of shared memory).
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); std::exit(1);} } while (0)
static char* flushbuf;  // 256 MB, allocated by main
static void (*warm_up)() = nullptr;
template <class F>
double med(F f) {
  static cudaEvent_t a, b;
  static bool made = false;
  if (!made) { CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b)); made = true; }
  std::vector<double> t;
  for (int r = 0; r < 41; ++r) {
    CK(cudaMemsetAsync(flushbuf, r, 256u << 20));
    if (warm_up) warm_up();
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e3);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
template <int T>
__device__ int block_sum_to(int v, int* w) {
  v = __reduce_add_sync(~0u, v);
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  if (lane == 0) w[wid] = v;
  __syncthreads();
  if (wid == 0) v = __reduce_add_sync(~0u, lane < T / 32 ? w[lane] : 0);
  return v;
}
