// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb29 (prepared in the 28th session, not yet run): where the library's float sums lose 0.6-1.3 us to a raw tagged
// grid of int32 sums (rb28). Raw grids shaped as rb28's (256-thread blocks x 4 16-byte vectors a block), for int32
// and float items: totals only (the floor) and the grid's last block polling every tagged slot (main's hand-off for
// sums that do not pack). Block sums by shuffles for both types (and by redux for int32 as rb28 did), so that the
// type's cost and the reduction's are told apart. Against tilekit::device::reduce and cub::DeviceReduce::Sum of the
// same items in the same process: L2 flushed (256 MB memset) before each timed call, CUDA events, medians of 41,
// two rounds; every result checked (float data: multiples of 1/8 below 1, so that every sum up to 2^21 items is exact).
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <vector>
#include "../../perf/results/2026-12-06-22-reduce-cluster/common.cuh"

template <class T, bool Redux>
__device__ T block_total(T v, T* w) {
  if constexpr (Redux) {
    v = T(__reduce_add_sync(~0u, int(v)));
  } else {
#pragma unroll
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(~0u, v, d);
  }
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  if (lane == 0) w[wid] = v;
  __syncthreads();
  v = lane < 8 ? w[lane] : T(0);
#pragma unroll
  for (int d = 4; d > 0; d /= 2) v += __shfl_xor_sync(~0u, v, d);
  return v;  // thread 0 (every lane of warp 0) has the block's total
}
template <class T>
__device__ T fold(const T* in) {
  using V = typename std::conditional<std::is_same<T, float>::value, float4, int4>::type;
  const V* p = reinterpret_cast<const V*>(in) + size_t(blockIdx.x) * 1024;
  V x[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) x[j] = p[threadIdx.x + j * 256];
  T s = T(0);
#pragma unroll
  for (int j = 0; j < 4; ++j) s += (x[j].x + x[j].y) + (x[j].z + x[j].w);
  return s;
}
// Mode 0: totals only. 5: tagged slots, block gridDim - 1 polls every other block's.
template <class T, bool Redux, int Mode>
__global__ void __launch_bounds__(256) k_grid(const T* in, T* out, T* partial, unsigned long long* slots, unsigned long long tag) {
  __shared__ T w[8];
  const T s = block_total<T, Redux>(fold(in), w);
  const unsigned taker = gridDim.x - 1;
  if (Mode == 0 || blockIdx.x != taker) {
    if (threadIdx.x == 0) {
      if (Mode == 0) partial[blockIdx.x] = s;
      else {
        unsigned long long bits = 0;
        memcpy(&bits, &s, sizeof(T));
        asm volatile("st.relaxed.gpu.global.v2.b64 [%0], {%1, %2};" ::"l"(slots + 2 * blockIdx.x), "l"(tag), "l"(bits) : "memory");
      }
    }
    return;
  }
  __syncthreads();
  T a = T(0);
  for (unsigned i = threadIdx.x; i < taker; i += 256) {
    unsigned long long seen, bits;
    do asm volatile("ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];" : "=l"(seen), "=l"(bits) : "l"(slots + 2 * i) : "memory");
    while (seen != tag);
    asm volatile("st.relaxed.gpu.global.v2.b64 [%0], {%1, %2};" ::"l"(slots + 2 * i), "l"(0ull), "l"(0ull) : "memory");
    T x;
    memcpy(&x, &bits, sizeof(T));
    a += x;
  }
  __syncthreads();
  a = block_total<T, Redux>(a, w);
  if (threadIdx.x == 0) *out = a + s;
}

static char* d_in; static char* d_out; static char* d_part; static unsigned long long* d_slots;
static unsigned long long next_tag = 1;
template <class T>
static bool matches(double want) {
  T got;
  CK(cudaMemcpy(&got, d_out, sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemset(d_out, 0xab, 16));
  return double(got) == want;
}
static void line(const char* type, const char* name, int lg, double us, double cub_us, bool ok) {
  std::printf("%-6s %-26s n=2^%-2d %7.2f us  cub/this %5.3f %s\n", type, name, lg, us, cub_us / us, ok ? "" : "MISMATCH");
  std::fflush(stdout);
}
template <class T, bool Redux, int Mode>
static void try_grid(const char* type, const char* name, int lg, double cub_us, double want) {
  const int blocks = (1 << lg) / 4096;
  auto launch = [&] { k_grid<T, Redux, Mode><<<blocks, 256>>>((const T*)d_in, (T*)d_out, (T*)d_part, d_slots, next_tag++); };
  launch();
  CK(cudaDeviceSynchronize());
  const bool ok = Mode == 0 || matches<T>(want);
  line(type, name, lg, med(launch), cub_us, ok);
}
template <class T>
static void sizes(const char* type, const std::vector<T>& h, void* temp, size_t tb) {
  for (int lg : {15, 16, 18, 19, 20, 21}) {
    const int n = 1 << lg;
    double want = 0;
    for (int i = 0; i < n; ++i) want += double(h[i]);
    size_t b = tb;
    CK(cub::DeviceReduce::Sum(temp, b, (const T*)d_in, (T*)d_out, n));
    CK(cudaDeviceSynchronize());
    bool ok = matches<T>(want);
    const double cub_us = med([&] { size_t bb = tb; cub::DeviceReduce::Sum(temp, bb, (const T*)d_in, (T*)d_out, n); });
    line(type, "cub", lg, cub_us, cub_us, ok);
    b = tb;
    CK(tilekit::device::reduce(temp, b, (const T*)d_in, (long long)n, (T*)d_out, tilekit::plus{}, T(0)));
    CK(cudaDeviceSynchronize());
    ok = matches<T>(want);
    line(type, "tilekit", lg, med([&] { size_t bb = tb; tilekit::device::reduce(temp, bb, (const T*)d_in, (long long)n, (T*)d_out, tilekit::plus{}, T(0)); }), cub_us, ok);
    try_grid<T, false, 0>(type, "floor, shuffles", lg, cub_us, want);
    try_grid<T, false, 5>(type, "tagged B-1, shuffles", lg, cub_us, want);
    if constexpr (std::is_same<T, int>::value) {
      try_grid<T, true, 0>(type, "floor, redux", lg, cub_us, want);
      try_grid<T, true, 5>(type, "tagged B-1, redux", lg, cub_us, want);
    }
  }
}

int main() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device %s, %d SMs\nseed 12345\n", p.name, p.multiProcessorCount);
  CK(cudaMalloc(&flushbuf, 256u << 20));
  const int maxn = 1 << 21;
  CK(cudaMalloc(&d_in, maxn * 4)); CK(cudaMalloc(&d_out, 64)); CK(cudaMalloc(&d_part, 1 << 20));
  CK(cudaMalloc(&d_slots, 1 << 20)); CK(cudaMemset(d_slots, 0, 1 << 20));
  std::vector<int> hi(maxn);
  std::vector<float> hf(maxn);
  unsigned long long st = 12345;
  for (int i = 0; i < maxn; ++i) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    hi[i] = int((st >> 33) % 2001) - 1000;
    hf[i] = float((st >> 40) % 8) / 8.0f;
  }
  void* temp; size_t tb = 16u << 20; CK(cudaMalloc(&temp, tb));
  for (int round = 0; round < 2; ++round) {
    std::printf("round %d\n", round);
    CK(cudaMemcpy(d_in, hi.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
    sizes<int>("int32", hi, temp, tb);
    CK(cudaMemcpy(d_in, hf.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
    sizes<float>("float", hf, temp, tb);
  }
  CK(cudaGetLastError());
  std::printf("done\n");
  return 0;
}
