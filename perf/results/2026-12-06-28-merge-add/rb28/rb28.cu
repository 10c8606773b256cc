// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb28: the grid hand-off of sums that do not pack (floats, 8-byte totals, ArgMin; issue 17). Raw grids shaped as
// rb19's (256-thread blocks x 4 16-byte vectors, int32 sums so that every result is exact): totals only (the
// floor), the packed relaxed atomic (int32's path), the library's tagged slots with a designated last block
// (block gridDim - 1 polls every slot), and tagged slots with a relaxed ticket (each block stores {tag, total} in
// one 16-byte store, then adds 1 to a 32-bit counter, relaxed; the block whose add completes the count polls the
// slots in block order: the tag shows a slot's store even where the relaxed add overtook it; it zeroes the
// counter). Against tilekit::device::reduce and cub::DeviceReduce::Sum (int32 and float) in the same process, L2
// flushed (256 MB memset) before each timed call, CUDA events, medians of 41, two rounds; every result checked.
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cmath>
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
__device__ void store_pair(unsigned long long* a, unsigned long long x, unsigned long long y) {
  asm volatile("st.relaxed.gpu.global.v2.b64 [%0], {%1, %2};" ::"l"(a), "l"(x), "l"(y) : "memory");
}
__device__ void load_pair(const unsigned long long* a, unsigned long long& x, unsigned long long& y) {
  asm volatile("ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];" : "=l"(x), "=l"(y) : "l"(a) : "memory");
}
// Slot i's total, polled until it holds the tag; the slot is cleared after.
__device__ int take(unsigned long long* slots, unsigned i, unsigned long long tag) {
  unsigned long long seen, w;
  do load_pair(slots + 2 * i, seen, w); while (seen != tag);
  store_pair(slots + 2 * i, 0, 0);
  return int(w);
}
// Mode 0: totals only. 2: packed relaxed atomic. 5: tagged slots, block gridDim - 1 takes them.
// 6: tagged slots and a relaxed ticket, the block that completes the count takes them.
template <int Mode>
__global__ void __launch_bounds__(256) k_grid(const int4* in, int* out, int* partial, unsigned long long* word,
                                              unsigned long long* slots, unsigned long long tag) {
  constexpr int T = 256, V = 4;
  __shared__ int w[32];
  const int s = block_sum_to<T>(load_sum<T, V>(in + size_t(blockIdx.x) * T * V), w);
  if constexpr (Mode == 0) {
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
  } else if constexpr (Mode == 2) {
    if (threadIdx.x == 0) {
      const unsigned long long add = (1ull << 48) | unsigned(s);
      unsigned long long old;
      asm volatile("atom.relaxed.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(word), "l"(add) : "memory");
      if ((old >> 48) == gridDim.x - 1) {
        *out = int(unsigned(old + add));
        *word = 0;
      }
    }
  } else {
    __shared__ bool last;
    const unsigned taker = gridDim.x - 1;
    if (threadIdx.x == 0) {
      if constexpr (Mode == 5) {
        last = blockIdx.x == taker;
        if (!last) store_pair(slots + 2 * blockIdx.x, tag, unsigned(s));
      } else {
        store_pair(slots + 2 * blockIdx.x, tag, unsigned(s));
        unsigned old;
        asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(word) : "memory");
        last = old == gridDim.x - 1;
        if (last) asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(word) : "memory");
      }
    }
    __syncthreads();
    if (!last) return;
    int a = 0;
    const unsigned polled = Mode == 5 ? taker : gridDim.x;  // mode 5: every block's but its own (added below)
    for (unsigned i = threadIdx.x; i < polled; i += T) a += take(slots, i, tag);
    __syncthreads();
    a = block_sum_to<T>(a, w);
    if (threadIdx.x == 0) *out = Mode == 5 ? a + s : a;
  }
}

static int* d_in; static float* d_inf; static int* d_out; static int* d_part; static unsigned long long* d_word;
static unsigned long long* d_slots; static unsigned long long next_tag = 1;
static long long want;
static double wantf;
static int cur_n;
static void report(const char* name, double us, double cub_us) {
  int got = 0;
  CK(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
  std::printf("%-22s n=2^%-2d %7.2f us  cub/this %5.3f %s\n", name, 31 - __builtin_clz(cur_n), us, cub_us / us,
              got == int(want) ? "" : "MISMATCH");
  std::fflush(stdout);
  CK(cudaMemset(d_out, 0xab, 4));
}
static void reportf(const char* name, double us, double cub_us) {
  float got = 0;
  CK(cudaMemcpy(&got, d_out, 4, cudaMemcpyDeviceToHost));
  const bool ok = std::fabs(got - wantf) <= 1e-3 * std::fabs(wantf) + 1e-2;
  std::printf("%-22s n=2^%-2d %7.2f us  cub/this %5.3f %s\n", name, 31 - __builtin_clz(cur_n), us, cub_us / us,
              ok ? "" : "MISMATCH");
  std::fflush(stdout);
  CK(cudaMemset(d_out, 0xab, 4));
}
template <int Mode>
static void try_grid(int n, double cub_us, const char* name) {
  const int B = n / (256 * 4 * 4);
  auto launch = [&] { k_grid<Mode><<<B, 256>>>((const int4*)d_in, d_out, d_part, d_word, d_slots, next_tag++); };
  launch();
  CK(cudaDeviceSynchronize());
  const double us = med(launch);
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
  CK(cudaMalloc(&d_in, maxn * 4)); CK(cudaMalloc(&d_inf, maxn * 4)); CK(cudaMalloc(&d_out, 64));
  CK(cudaMalloc(&d_part, 1 << 20)); CK(cudaMalloc(&d_slots, 1 << 20)); CK(cudaMemset(d_slots, 0, 1 << 20));
  CK(cudaMalloc(&d_word, 8)); CK(cudaMemset(d_word, 0, 8));
  std::vector<int> h(maxn);
  std::vector<float> hf(maxn);
  unsigned long long st = 12345;
  std::printf("seed 12345\n");
  for (int i = 0; i < maxn; ++i) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    h[i] = int((st >> 33) % 2000001) - 1000000;
    hf[i] = float(h[i] % 1000) / 1000.0f;
  }
  CK(cudaMemcpy(d_in, h.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_inf, hf.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
  void* temp; size_t tb = 16u << 20; CK(cudaMalloc(&temp, tb));
  void* tempf; CK(cudaMalloc(&tempf, tb));
  for (int round = 0; round < 2; ++round) {
    std::printf("round %d\n", round);
    for (int lg : {14, 15, 16, 18, 19, 20, 21}) {
      const int n = 1 << lg;
      cur_n = n;
      want = 0;
      wantf = 0;
      for (int i = 0; i < n; ++i) want += h[i], wantf += hf[i];
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
      try_grid<2>(n, cub_us, "packed relaxed");
      try_grid<5>(n, cub_us, "tagged, block B-1");
      try_grid<6>(n, cub_us, "tagged, relaxed ticket");
      float* outf = reinterpret_cast<float*>(d_out);
      b = tb;
      CK(cub::DeviceReduce::Sum(tempf, b, d_inf, outf, n));
      CK(cudaDeviceSynchronize());
      const double cubf_us = med([&] { size_t bb = tb; cub::DeviceReduce::Sum(tempf, bb, d_inf, outf, n); });
      reportf("cub float", cubf_us, cubf_us);
      b = tb;
      CK(tilekit::device::reduce(tempf, b, d_inf, (long long)n, outf, tilekit::plus{}, 0.0f));
      CK(cudaDeviceSynchronize());
      reportf("tilekit float", med([&] { size_t bb = tb; tilekit::device::reduce(tempf, bb, d_inf, (long long)n, outf, tilekit::plus{}, 0.0f); }), cubf_us);
    }
  }
  CK(cudaGetLastError());
  std::printf("done\n");
  return 0;
}
