// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb19: the grid hand-off's cost (issue 17). Raw grids of 256-thread blocks x 4 16-byte vectors (the library's
// grid shape), int32 sums: totals only (the floor), a fenced ticket, and one relaxed 64-bit atomic a block that
// carries the block count (bits 48..63) and the sum of the blocks' totals as uint32 (bits 0..47: no carry into
// the count below 2^16 blocks), the last block (count == blocks - 1 before its add) writing the low 32 bits and
// zeroing the word. Against tilekit::device::reduce and cub::DeviceReduce::Sum in the same process, L2 flushed
// (256 MB memset) before each timed call, CUDA events, medians of 41, rounds R; every result checked.
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "../../2026-12-06-22-reduce-cluster/common.cuh"

template <int T, int V>
__device__ int load_sum(const int4* p) {
  int4 x[V];
#pragma unroll
  for (int j = 0; j < V; ++j) x[j] = p[threadIdx.x + j * T];
  int s = 0;
#pragma unroll
  for (int j = 0; j < V; ++j) s += (x[j].x + x[j].y) + (x[j].z + x[j].w);
  return s;
}
// Mode 0: totals only. 1: fenced ticket, last block reads the totals. 2: packed atomic (relaxed).
// 3: packed atomic, acq_rel (what a release of other data would cost). 4: each block stores its total (relaxed),
// then a 32-bit acq_rel atomic counter; the last block reads the totals (block order) and zeroes the counter.
template <int Mode>
__global__ void __launch_bounds__(256) k_grid(const int4* in, int* out, int* partial, unsigned long long* word) {
  constexpr int T = 256, V = 4;
  __shared__ int w[32];
  const int s = block_sum_to<T>(load_sum<T, V>(in + size_t(blockIdx.x) * T * V), w);
  if constexpr (Mode == 0) {
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
  } else if constexpr (Mode == 1) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
      partial[blockIdx.x] = s;
      __threadfence();
      last = atomicInc(reinterpret_cast<unsigned*>(word), gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    int a = 0;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += T) a += *(volatile int*)&partial[i];
    __syncthreads();
    a = block_sum_to<T>(a, w);
    if (threadIdx.x == 0) *out = a;
  } else if constexpr (Mode == 4) {
    __shared__ bool last;
    if (threadIdx.x == 0) {
      asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" :: "l"(partial + blockIdx.x), "r"(s) : "memory");
      unsigned old;
      asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(word) : "memory");
      last = old == gridDim.x - 1;
      if (last) *reinterpret_cast<unsigned*>(word) = 0;
    }
    __syncthreads();
    if (!last) return;
    int a = 0;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += T) {
      int x;
      asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(x) : "l"(partial + i) : "memory");
      a += x;
    }
    __syncthreads();
    a = block_sum_to<T>(a, w);
    if (threadIdx.x == 0) *out = a;
  } else {
    if (threadIdx.x == 0) {
      const unsigned long long add = (1ull << 48) | unsigned(s);
      unsigned long long old;
      if constexpr (Mode == 2)
        asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(word), "l"(add) : "memory");
      else
        asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(word), "l"(add) : "memory");
      if ((old >> 48) == gridDim.x - 1) {
        *out = int(unsigned(old + add));
        *word = 0;
      }
    }
  }
}

static int* d_in; static int* d_out; static int* d_part; static unsigned long long* d_word;
static long long want;
static int cur_n;
static void report(const char* name, double us, double cub_us) {
  int got = 0;
  CK(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
  std::printf("%-22s n=2^%-2d %7.2f us  cub/this %5.3f %s\n", name, 31 - __builtin_clz(cur_n), us, cub_us / us,
              got == int(want) ? "" : "MISMATCH");
  std::fflush(stdout);
  CK(cudaMemset(d_out, 0xab, 4));
}
template <int Mode>
static void try_grid(int n, double cub_us, const char* name) {
  const int B = n / (256 * 4 * 4);
  k_grid<Mode><<<B, 256>>>((const int4*)d_in, d_out, d_part, d_word);
  CK(cudaDeviceSynchronize());
  const double us = med([&] { k_grid<Mode><<<B, 256>>>((const int4*)d_in, d_out, d_part, d_word); });
  if (Mode == 0) {
    std::printf("%-22s n=2^%-2d %7.2f us  cub/this %5.3f (totals only)\n", name, 31 - __builtin_clz(n), us, cub_us / us);
    CK(cudaMemset(d_out, 0xab, 4));
  } else {
    report(name, us, cub_us);
  }
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  CK(cudaMalloc(&flushbuf, 256u << 20));
  const int maxn = 1 << 21;
  CK(cudaMalloc(&d_in, maxn * 4)); CK(cudaMalloc(&d_out, 64)); CK(cudaMalloc(&d_part, 1 << 20));
  CK(cudaMalloc(&d_word, 8)); CK(cudaMemset(d_word, 0, 8));
  std::vector<int> h(maxn);
  unsigned long long st = 12345;
  std::printf("seed 12345\n");
  for (auto& x : h) { st = st * 6364136223846793005ull + 1442695040888963407ull; x = int((st >> 33) % 2000001) - 1000000; }
  CK(cudaMemcpy(d_in, h.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
  void* temp; size_t tb = 16u << 20; CK(cudaMalloc(&temp, tb));
  for (int round = 0; round < 2; ++round) {
    std::printf("round %d\n", round);
    for (int lg : {14, 15, 16, 18, 19, 20, 21}) {
      const int n = 1 << lg;
      cur_n = n;
      want = 0;
      for (int i = 0; i < n; ++i) want += h[i];
      size_t b = tb;
      CK(cub::DeviceReduce::Sum(temp, b, d_in, d_out, n));
      CK(cudaDeviceSynchronize());
      const double cub_us = med([&] { size_t bb = tb; cub::DeviceReduce::Sum(temp, bb, d_in, d_out, n); });
      report("cub", cub_us, cub_us);
      b = tb;
      CK(tilekit::device::reduce(temp, b, d_in, (long long)n, d_out, tilekit::plus{}, 0));
      CK(cudaDeviceSynchronize());
      report("tilekit", med([&] { size_t bb = tb; tilekit::device::reduce(temp, bb, d_in, (long long)n, d_out, tilekit::plus{}, 0); }), cub_us);
      try_grid<0>(n, cub_us, "floor");
      try_grid<1>(n, cub_us, "fenced ticket");
      try_grid<2>(n, cub_us, "packed relaxed");
      try_grid<3>(n, cub_us, "packed acq_rel");
      try_grid<4>(n, cub_us, "acq_rel count+slots");
    }
  }
  CK(cudaGetLastError());
  std::printf("done\n");
  return 0;
}
