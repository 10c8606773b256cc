// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// experiment: 65536-bin int32 histogram with counters in shared memory: spread over a
// cluster (32-bit counters, DSMEM atomics) or 16-bit packed counters in one block.
#include <tilekit/tilekit.cuh>
#include <tilekit/device/histogram.cuh>
#include <cub/device/device_histogram.cuh>
#include <cooperative_groups.h>
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>
namespace cg = cooperative_groups;

constexpr int BINS = 65536;
constexpr int LOWER = -32768;

__device__ __forceinline__ void add_cluster(cg::cluster_group& cl, unsigned* local, int per, int x) {
  const unsigned b = unsigned(x - LOWER);
  if (b < unsigned(BINS)) atomicAdd(cl.map_shared_rank(local + b % unsigned(per), int(b / unsigned(per))), 1u);
}

template <int C, int THREADS>
__global__ void __launch_bounds__(THREADS) hist_cluster(const int* in, long n, unsigned* global) {
  extern __shared__ unsigned local[];
  constexpr int per = BINS / C;
  auto cl = cg::this_cluster();
  for (int i = threadIdx.x; i < per; i += THREADS) local[i] = 0;
  cl.sync();
  const long n4 = n / 4;
  const int4* in4 = reinterpret_cast<const int4*>(in);
  const long stride = long(gridDim.x) * THREADS;
  long i = long(blockIdx.x) * THREADS + threadIdx.x;
  for (; i + stride < n4; i += 2 * stride) {
    const int4 a = __ldg(in4 + i), b = __ldg(in4 + i + stride);
    add_cluster(cl, local, per, a.x); add_cluster(cl, local, per, a.y); add_cluster(cl, local, per, a.z); add_cluster(cl, local, per, a.w);
    add_cluster(cl, local, per, b.x); add_cluster(cl, local, per, b.y); add_cluster(cl, local, per, b.z); add_cluster(cl, local, per, b.w);
  }
  for (; i < n4; i += stride) {
    const int4 a = __ldg(in4 + i);
    add_cluster(cl, local, per, a.x); add_cluster(cl, local, per, a.y); add_cluster(cl, local, per, a.z); add_cluster(cl, local, per, a.w);
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4) add_cluster(cl, local, per, in[n4 * 4 + threadIdx.x]);
  cl.sync();
  const unsigned rank = cl.block_rank();
  for (int j = threadIdx.x; j < per; j += THREADS)
    if (local[j]) atomicAdd(global + rank * per + j, local[j]);
}

// 16-bit counters, two to a word; a counter reaching 0x8000 moves 0x8000 to the global one.
__device__ __forceinline__ void add16(unsigned* words, unsigned* global, int x) {
  const unsigned b = unsigned(x - LOWER);
  if (b >= unsigned(BINS)) return;
  const unsigned sh = (b & 1u) * 16u;
  const unsigned old = atomicAdd(words + (b >> 1), 1u << sh);
  if (((old >> sh) & 0xFFFFu) == 0x7FFFu) {
    atomicSub(words + (b >> 1), 0x8000u << sh);
    atomicAdd(global + b, 0x8000u);
  }
}

template <int THREADS>
__global__ void __launch_bounds__(THREADS) hist16(const int* in, long n, unsigned* global) {
  extern __shared__ unsigned words[];
  for (int i = threadIdx.x; i < BINS / 2; i += THREADS) words[i] = 0;
  __syncthreads();
  const long n4 = n / 4;
  const int4* in4 = reinterpret_cast<const int4*>(in);
  const long stride = long(gridDim.x) * THREADS;
  long i = long(blockIdx.x) * THREADS + threadIdx.x;
  for (; i + stride < n4; i += 2 * stride) {
    const int4 a = __ldg(in4 + i), b = __ldg(in4 + i + stride);
    add16(words, global, a.x); add16(words, global, a.y); add16(words, global, a.z); add16(words, global, a.w);
    add16(words, global, b.x); add16(words, global, b.y); add16(words, global, b.z); add16(words, global, b.w);
  }
  for (; i < n4; i += stride) {
    const int4 a = __ldg(in4 + i);
    add16(words, global, a.x); add16(words, global, a.y); add16(words, global, a.z); add16(words, global, a.w);
  }
  if (blockIdx.x == 0 && threadIdx.x < n % 4) add16(words, global, in[n4 * 4 + threadIdx.x]);
  __syncthreads();
  for (int j = threadIdx.x; j < BINS / 2; j += THREADS) {
    const unsigned w = words[j];
    if (w & 0xFFFFu) atomicAdd(global + 2 * j, w & 0xFFFFu);
    if (w >> 16) atomicAdd(global + 2 * j + 1, w >> 16);
  }
}

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s line %d\n", #x, cudaGetErrorString(e_), __LINE__); exit(1); } } while (0)

static int sms;
static unsigned char* flush_buf;
static void flush_l2() { CHECK(cudaMemsetAsync(flush_buf, 1, 256 << 20)); }

template <class F>
float time_median(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 11; ++r) {
    flush_l2();
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b);
    if (r > 0) t.push_back(ms * 1000);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <int C, int THREADS>
int cluster_grid() {
  const size_t shared = size_t(BINS / C) * 4;
  CHECK(cudaFuncSetAttribute(hist_cluster<C, THREADS>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  if (C > 8) CHECK(cudaFuncSetAttribute(hist_cluster<C, THREADS>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg{};
  cfg.blockDim = dim3(THREADS); cfg.dynamicSmemBytes = shared;
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension; at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1; cfg.gridDim = dim3(C * 1000);
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, hist_cluster<C, THREADS>, &cfg));
  return clusters * C;
}

template <int C, int THREADS>
void run_cluster(const int* in, long n, unsigned* out, int grid) {
  const size_t shared = size_t(BINS / C) * 4;
  cudaLaunchConfig_t cfg{};
  cfg.blockDim = dim3(THREADS); cfg.dynamicSmemBytes = shared; cfg.gridDim = dim3(grid);
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension; at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  cudaMemsetAsync(out, 0, BINS * 4);
  CHECK(cudaLaunchKernelEx(&cfg, hist_cluster<C, THREADS>, in, n, out));
}

int main() {
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  CHECK(cudaMalloc(&flush_buf, 256 << 20));
  const long max_n = 1l << 28;
  int* d_in; unsigned *d_ref, *d_out;
  CHECK(cudaMalloc(&d_in, max_n * 4)); CHECK(cudaMalloc(&d_ref, BINS * 4)); CHECK(cudaMalloc(&d_out, BINS * 4));
  void* temp = nullptr; size_t cub_bytes = 0, tk_bytes = 0;
  cub::DeviceHistogram::HistogramEven(nullptr, cub_bytes, d_in, d_ref, BINS + 1, LOWER, LOWER + BINS, max_n);
  tilekit::device::histogram_even(nullptr, tk_bytes, d_in, std::int64_t(max_n), d_out, BINS + 1, LOWER, LOWER + BINS);
  CHECK(cudaMalloc(&temp, std::max(cub_bytes, tk_bytes) + 1024));
  const int g2 = cluster_grid<2, 1024>(), g4 = cluster_grid<4, 512>(), g8 = cluster_grid<8, 512>(), g16 = cluster_grid<16, 256>();
  CHECK(cudaFuncSetAttribute(hist16<1024>, cudaFuncAttributeMaxDynamicSharedMemorySize, BINS * 2));
  printf("grids: C2x1024 %d, C4x512 %d, C8x512 %d, C16x256 %d, 16-bit: %d blocks\n", g2, g4, g8, g16, sms);
  std::mt19937_64 rng(7);
  for (int dist = 0; dist < 2; ++dist) {
    std::vector<int> h(max_n);
    for (long i = 0; i < max_n; ++i) {
      const unsigned long long r = rng();
      h[i] = dist == 0 ? int(r % 65536) - 32768 : (r % 10 < 9 ? int((r >> 8) % 64) * 97 - 3000 : int((r >> 8) % 65536) - 32768);
    }
    CHECK(cudaMemcpy(d_in, h.data(), max_n * 4, cudaMemcpyHostToDevice));
    for (int lg : {20, 24, 26, 28}) {
      const long n = 1l << lg;
      auto cub_run = [&] { size_t b = cub_bytes; cub::DeviceHistogram::HistogramEven(temp, b, d_in, d_ref, BINS + 1, LOWER, LOWER + BINS, n); };
      auto tk_run = [&] { size_t b = tk_bytes; tilekit::device::histogram_even(temp, b, d_in, std::int64_t(n), d_out, BINS + 1, LOWER, LOWER + BINS); };
      auto h16 = [&] { cudaMemsetAsync(d_out, 0, BINS * 4); hist16<1024><<<sms, 1024, BINS * 2>>>(d_in, n, d_out); };
      std::vector<unsigned> ref(BINS), got(BINS);
      cub_run(); CHECK(cudaDeviceSynchronize()); CHECK(cudaMemcpy(ref.data(), d_ref, BINS * 4, cudaMemcpyDeviceToHost));
      auto check = [&](const char* what, auto f) {
        cudaMemset(d_out, 0xCD, BINS * 4);
        f(); CHECK(cudaDeviceSynchronize()); CHECK(cudaMemcpy(got.data(), d_out, BINS * 4, cudaMemcpyDeviceToHost));
        const bool ok = got == ref;
        const float t = time_median(f);
        printf("%s %s 2^%d: %.1f us  %s  %.0f GB/s\n", dist ? "skewed" : "uniform", what, lg, t, ok ? "ok" : "MISMATCH", n * 4 / t / 1e3);
        return t;
      };
      const float tc = time_median(cub_run);
      printf("%s cub 2^%d: %.1f us  %.0f GB/s\n", dist ? "skewed" : "uniform", lg, tc, n * 4 / tc / 1e3);
      check("tilekit-now", tk_run);
      check("16bit-1block", h16);
      check("cluster2x1024", [&] { run_cluster<2, 1024>(d_in, n, d_out, g2); });
      check("cluster4x512", [&] { run_cluster<4, 512>(d_in, n, d_out, g4); });
      check("cluster8x512", [&] { run_cluster<8, 512>(d_in, n, d_out, g8); });
      check("cluster16x256", [&] { run_cluster<16, 256>(d_in, n, d_out, g16); });
    }
  }
}
