// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb8: where a one-launch int32 sum's time goes at 2^12-2^20 (issue 17). Raw kernels (not the library):
// one block of T threads x V 16-byte vectors; one cluster of C such blocks, whose totals meet in block 0's
// shared memory, with the start barrier whole (mode 0, what the library does), split around the loads
// (arrive before, wait before the remote write: mode 1), and split with the other blocks leaving after their
// arrive on the last barrier (mode 2); a grid of 256-thread blocks that only writes its totals (the floor of a
// grid hand-off), and the same with a self-resetting ticket (atomicInc wrap) so the last block to finish
// combines. Against tilekit::device::reduce and cub::DeviceReduce::Sum in the same process, L2 flushed
// (256 MB memset) before every timed call, CUDA events, median of 41; every result checked.
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cooperative_groups.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
namespace cg = cooperative_groups;
#include "common.cuh"

template <int T>
__device__ int block_sum(int v) {
  __shared__ int w[32];
  v = __reduce_add_sync(~0u, v);
  if constexpr (T == 32) return v;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  if (lane == 0) w[wid] = v;
  __syncthreads();
  if (wid == 0) {
    v = lane < T / 32 ? w[lane] : 0;
    v = __reduce_add_sync(~0u, v);
  }
  return v;  // (thread 0)
}
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
__global__ void k_empty(int*) {}
template <int T, int V>
__global__ void __launch_bounds__(T) k_one(const int4* in, int* out) {
  const int s = block_sum<T>(load_sum<T, V>(in));
  if (threadIdx.x == 0) *out = s;
}
template <int T, int V, int C, int Mode>
__global__ void __launch_bounds__(T) k_cluster(const int4* in, int* out) {
  __shared__ int tot[16];
  cg::cluster_group cl = cg::this_cluster();
  const unsigned r = cl.block_rank();
  if constexpr (Mode == 0) cl.sync();
  else asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  const int s = block_sum<T>(load_sum<T, V>(in + size_t(r) * T * V));
  if constexpr (Mode != 0) asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) *cl.map_shared_rank(&tot[r], 0) = s;
  if constexpr (Mode == 2) {
    if (r != 0) {
      asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
      return;
    }
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  } else {
    cl.sync();
  }
  if (r == 0 && threadIdx.x == 0) {
    int a = 0;
#pragma unroll
    for (int i = 0; i < C; ++i) a += tot[i];
    *out = a;
  }
}
template <int T, int C>
__global__ void __launch_bounds__(T) k_empty_cluster(int* out) {
  cg::this_cluster().sync();
}
// Grid of 256-thread blocks, V vectors each: totals only (mode 0), or a wrapping ticket's last block combines (mode 1).
template <int V, int Mode>
__global__ void __launch_bounds__(256) k_grid(const int4* in, int* out, int* partial, unsigned* ticket) {
  constexpr int T = 256;
  const int s = block_sum<T>(load_sum<T, V>(in + size_t(blockIdx.x) * T * V));
  if constexpr (Mode == 0) {
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
  } else {
    __shared__ bool last;
    if (threadIdx.x == 0) {
      partial[blockIdx.x] = s;
      __threadfence();
      last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    int a = 0;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += T) a += *(volatile int*)&partial[i];
    a = block_sum<T>(a);
    if (threadIdx.x == 0) *out = a;
  }
}


static int* d_in; static int* d_out; static int* d_part; static unsigned* d_ticket;
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
template <class K>
static cudaError_t launch_cluster(K k, int C, int T) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(C);
  cfg.blockDim = dim3(T);
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, k, (const int4*)d_in, d_out);
}
template <int T, int V, int C, int Mode>
static void try_cluster(int n, double cub_us) {
  if (n != C * T * V * 4) return;
  auto k = k_cluster<T, V, C, Mode>;
  if (C > 8) CK(cudaFuncSetAttribute(k, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(C); cfg.blockDim = dim3(T);
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cfg.attrs = at; cfg.numAttrs = 1;
  int clusters = 0;
  if (cudaOccupancyMaxActiveClusters(&clusters, k, &cfg) != cudaSuccess || clusters == 0) {
    cudaGetLastError();
    std::printf("cluster C%d T%d: cannot be placed\n", C, T);
    return;
  }
  CK(launch_cluster(k, C, T));
  CK(cudaDeviceSynchronize());
  char name[64];
  std::snprintf(name, sizeof name, "cl C%d T%d V%d m%d", C, T, V, Mode);
  const double us = med([&] { launch_cluster(k, C, T); });
  report(name, us, cub_us);
}
template <int T, int V>
static void try_one(int n, double cub_us) {
  if (n != T * V * 4) return;
  k_one<T, V><<<1, T>>>((const int4*)d_in, d_out);
  CK(cudaDeviceSynchronize());
  char name[64];
  std::snprintf(name, sizeof name, "one T%d V%d", T, V);
  report(name, med([&] { k_one<T, V><<<1, T>>>((const int4*)d_in, d_out); }), cub_us);
}
template <int V>
static void try_grid(int n, double cub_us) {
  const int B = n / (256 * V * 4);
  if (B < 2 || B * 256 * V * 4 != n || B > 4096) return;
  char name[64];
  k_grid<V, 0><<<B, 256>>>((const int4*)d_in, d_out, d_part, d_ticket);
  CK(cudaDeviceSynchronize());
  std::snprintf(name, sizeof name, "gridfloor V%d B%d", V, B);
  const double f = med([&] { k_grid<V, 0><<<B, 256>>>((const int4*)d_in, d_out, d_part, d_ticket); });
  std::printf("%-22s n=2^%-2d %7.2f us  cub/this %5.3f (totals only)\n", name, 31 - __builtin_clz(n), f, cub_us / f);
  k_grid<V, 1><<<B, 256>>>((const int4*)d_in, d_out, d_part, d_ticket);
  CK(cudaDeviceSynchronize());
  std::snprintf(name, sizeof name, "gridticket V%d B%d", V, B);
  report(name, med([&] { k_grid<V, 1><<<B, 256>>>((const int4*)d_in, d_out, d_part, d_ticket); }), cub_us);
}
template <int T, int C, int Mode>
static void clusters_all(int n, double cub_us) {
  try_cluster<T, 1, C, Mode>(n, cub_us);
  try_cluster<T, 2, C, Mode>(n, cub_us);
  try_cluster<T, 4, C, Mode>(n, cub_us);
  try_cluster<T, 8, C, Mode>(n, cub_us);
}

int main(int argc, char** argv) {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device %s, %d SMs\n", p.name, p.multiProcessorCount);
  CK(cudaMalloc(&flushbuf, 256u << 20));
  const int maxn = 1 << 20;
  CK(cudaMalloc(&d_in, maxn * 4)); CK(cudaMalloc(&d_out, 64)); CK(cudaMalloc(&d_part, 1 << 20));
  CK(cudaMalloc(&d_ticket, 4)); CK(cudaMemset(d_ticket, 0, 4));
  std::vector<int> h(maxn);
  unsigned long long st = 12345;
  std::printf("seed 12345\n");
  for (auto& x : h) { st = st * 6364136223846793005ull + 1442695040888963407ull; x = int((st >> 33) % 2000001) - 1000000; }
  CK(cudaMemcpy(d_in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
  void* temp; size_t tb = 16u << 20; CK(cudaMalloc(&temp, tb));
  {
    const double e = med([&] { k_empty<<<1, 256>>>(d_out); });
    std::printf("empty kernel 1x256: %.2f us\n", e);
    for (int rep = 0; rep < 1; ++rep) {
      auto k8 = k_empty_cluster<1024, 8>;
      const double c8 = med([&] {
        cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(8); cfg.blockDim = dim3(1024);
        cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = 8; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1; cfg.attrs = at; cfg.numAttrs = 1;
        cudaLaunchKernelEx(&cfg, k8, d_out); });
      std::printf("empty cluster 8x1024 (one sync): %.2f us\n", c8);
      auto k16 = k_empty_cluster<1024, 16>;
      CK(cudaFuncSetAttribute(k16, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      const double c16 = med([&] {
        cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(16); cfg.blockDim = dim3(1024);
        cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = 16; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1; cfg.attrs = at; cfg.numAttrs = 1;
        cudaLaunchKernelEx(&cfg, k16, d_out); });
      std::printf("empty cluster 16x1024 (one sync): %.2f us (%s)\n", c16, cudaGetErrorString(cudaGetLastError()));
    }
  }
  for (int lg = 12; lg <= 20; ++lg) {
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
    try_one<256, 1>(n, cub_us); try_one<256, 2>(n, cub_us); try_one<256, 4>(n, cub_us); try_one<256, 8>(n, cub_us);
    try_one<512, 1>(n, cub_us); try_one<512, 2>(n, cub_us); try_one<512, 4>(n, cub_us); try_one<512, 8>(n, cub_us);
    try_one<1024, 1>(n, cub_us); try_one<1024, 2>(n, cub_us); try_one<1024, 4>(n, cub_us); try_one<1024, 8>(n, cub_us);
    try_one<1024, 16>(n, cub_us);
    clusters_all<512, 8, 0>(n, cub_us); clusters_all<512, 8, 1>(n, cub_us); clusters_all<512, 8, 2>(n, cub_us);
    clusters_all<1024, 8, 0>(n, cub_us); clusters_all<1024, 8, 1>(n, cub_us); clusters_all<1024, 8, 2>(n, cub_us);
    clusters_all<512, 16, 0>(n, cub_us); clusters_all<512, 16, 1>(n, cub_us); clusters_all<512, 16, 2>(n, cub_us);
    clusters_all<1024, 16, 0>(n, cub_us); clusters_all<1024, 16, 1>(n, cub_us); clusters_all<1024, 16, 2>(n, cub_us);
    clusters_all<1024, 4, 1>(n, cub_us); clusters_all<1024, 4, 2>(n, cub_us);
    try_grid<1>(n, cub_us); try_grid<2>(n, cub_us); try_grid<4>(n, cub_us); try_grid<8>(n, cub_us);
  }
  CK(cudaGetLastError());
  std::printf("done\n");
  return 0;
}
