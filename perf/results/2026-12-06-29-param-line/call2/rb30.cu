// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb30 (29th session): is the library's float grid slower than a raw tagged grid (rb29: 0.9-1.3 us at 2^19-2^21)
// because its code is fetched cold after the L2 flush? Each call timed twice: after the flush alone ("cold"), and
// after the flush and the same call on another buffer of the same size ("code warm": the kernel's instructions in
// L2 and the SMs' caches, its items not). Library, raw tagged grid and CUB, float and int32 sums.
// Below: rb29's kernels, as they ran.
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
#include <cstring>
#include <string>

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


static char* d_in; static char* d_in2; static char* d_out; static char* d_part; static unsigned long long* d_slots;
static unsigned long long next_tag = 1;
template <class T>
static bool matches(double want) {
  T got;
  CK(cudaMemcpy(&got, d_out, sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemset(d_out, 0xab, 16));
  return double(got) == want;
}
static void* temp; static void* temp2; static size_t tb = 16u << 20;
// f(buffer, temp): one call. Cold: the flush, then f(d_in). Code warm: the flush, f(d_in2) untimed, then f(d_in).
template <class F>
static void both(const char* type, const char* name, int lg, F f) {
  static F* g; g = &f;
  warm_up = nullptr;
  const double cold = med([&] { f(d_in, temp); });
  warm_up = [] { (*g)(d_in2, temp2); };
  const double warm = med([&] { f(d_in, temp); });
  warm_up = nullptr;
  std::printf("%-6s %-22s n=2^%-2d cold %6.2f us  code warm %6.2f us  cold - warm %5.2f\n", type, name, lg, cold, warm, cold - warm);
  std::fflush(stdout);
}
template <class T>
static void sizes(const char* type, const std::vector<T>& h) {
  for (int lg : {16, 18, 19, 20, 21}) {
    const int n = 1 << lg, blocks = n / 4096;
    double want = 0;
    for (int i = 0; i < n; ++i) want += double(h[i]);
    // correctness once each (cold path)
    size_t b = tb;
    CK(tilekit::device::reduce(temp, b, (const T*)d_in, (long long)n, (T*)d_out, tilekit::plus{}, T(0)));
    CK(cudaDeviceSynchronize());
    if (!matches<T>(want)) std::printf("MISMATCH tilekit %s 2^%d\n", type, lg);
    k_grid<T, false, 5><<<blocks, 256>>>((const T*)d_in, (T*)d_out, (T*)d_part, d_slots, next_tag++);
    CK(cudaDeviceSynchronize());
    if (!matches<T>(want)) std::printf("MISMATCH raw %s 2^%d\n", type, lg);
    both(type, "cub", lg, [n](char* in, void* t) { size_t bb = tb; cub::DeviceReduce::Sum(t, bb, (const T*)in, (T*)d_out, n); });
    both(type, "tilekit", lg, [n](char* in, void* t) { size_t bb = tb; tilekit::device::reduce(t, bb, (const T*)in, (long long)n, (T*)d_out, tilekit::plus{}, T(0)); });
    both(type, "raw tagged, shuffles", lg, [blocks](char* in, void* t) {
      k_grid<T, false, 5><<<blocks, 256>>>((const T*)in, (T*)d_out, (T*)d_part, t == temp ? d_slots : d_slots + (1 << 16), next_tag++); });
    both(type, "raw floor, shuffles", lg, [blocks](char* in, void*) {
      k_grid<T, false, 0><<<blocks, 256>>>((const T*)in, (T*)d_out, (T*)d_part, d_slots, 0); });
  }
}

int main(int argc, char** argv) {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device %s, %d SMs\nseed 12345\n", p.name, p.multiProcessorCount);
  CK(cudaMalloc(&flushbuf, 256u << 20));
  const int maxn = 1 << 21;
  CK(cudaMalloc(&d_in, maxn * 4)); CK(cudaMalloc(&d_in2, maxn * 4)); CK(cudaMalloc(&d_out, 64)); CK(cudaMalloc(&d_part, 1 << 20));
  CK(cudaMalloc(&d_slots, 4 << 20)); CK(cudaMemset(d_slots, 0, 4 << 20));
  CK(cudaMalloc(&temp, tb)); CK(cudaMalloc(&temp2, tb));
  std::vector<int> hi(maxn);
  std::vector<float> hf(maxn);
  unsigned long long st = 12345;
  for (int i = 0; i < maxn; ++i) {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    hi[i] = int((st >> 33) % 2001) - 1000;
    hf[i] = float((st >> 40) % 8) / 8.0f;
  }
  // "one-lib" / "one-raw": after a flush, one float 2^20 call of the library / the raw tagged grid (for ncu).
  if (argc > 1) {
    CK(cudaMemcpy(d_in, hf.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
    const int n = 1 << 20;
    for (int r = 0; r < 3; ++r) {
      CK(cudaMemset(flushbuf, r, 256u << 20));
      if (std::string(argv[1]) == "one-lib") { size_t bb = tb; CK(tilekit::device::reduce(temp, bb, (const float*)d_in, (long long)n, (float*)d_out, tilekit::plus{}, 0.0f)); }
      else k_grid<float, false, 5><<<n / 4096, 256>>>((const float*)d_in, (float*)d_out, (float*)d_part, d_slots, next_tag++);
      CK(cudaDeviceSynchronize());
    }
    std::printf("done\n");
    return 0;
  }
  for (int round = 0; round < 2; ++round) {
    std::printf("round %d\n", round);
    CK(cudaMemcpy(d_in, hf.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_in2, hf.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
    sizes<float>("float", hf);
    CK(cudaMemcpy(d_in, hi.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_in2, hi.data(), size_t(maxn) * 4, cudaMemcpyHostToDevice));
    sizes<int>("int32", hi);
  }
  CK(cudaGetLastError());
  std::printf("done\n");
  return 0;
}
