// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb11 (rb10 plus): each case also timed with its code warm: the same launch on another input of the same size
// right after the L2 flush, outside the timing, so only the data is cold.
// rb10: bisects the 0.6 us between rb8's raw split-barrier cluster sum (8 x 1024 threads) and the library's
// reduce_cluster_kernel: A raw kernel, static shared memory; B raw kernel, dynamic shared memory; C the raw
// code as a tilekit body through tilekit::launch_cluster; D the library's cluster kernel launched directly;
// E tilekit::device::reduce. int32 sums at 2^15-2^17, L2 flushed, events, median of 41, results checked.
#include <tilekit/device/reduce.cuh>
#include <cooperative_groups.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
namespace cg = cooperative_groups;
#include "common.cuh"

template <int T>
__device__ void raw_body(const int4* in, int* out, int V, int* w, int* tot) {
  cg::cluster_group cl = cg::this_cluster();
  const unsigned r = cl.block_rank();
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  int4 x[8];
  const int4* p = in + size_t(r) * T * V;
#pragma unroll
  for (int j = 0; j < 8; ++j) if (j < V) x[j] = p[threadIdx.x + j * T];
  int s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) if (j < V) s += (x[j].x + x[j].y) + (x[j].z + x[j].w);
  s = block_sum_to<T>(s, w);
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) *cl.map_shared_rank(&tot[r], 0) = s;
  cl.sync();
  if (r == 0 && threadIdx.x == 0) {
    int a = 0;
    for (int i = 0; i < 8; ++i) a += tot[i];
    *out = a;
  }
}
__global__ void __launch_bounds__(1024) k_static(const int4* in, int* out, int V) {
  __shared__ int w[32], tot[8];
  raw_body<1024>(in, out, V, w, tot);
}
__global__ void __launch_bounds__(1024) k_dynamic(const int4* in, int* out, int V) {
  extern __shared__ __align__(16) int dyn[];
  raw_body<1024>(in, out, V, dyn, dyn + 32);
}
struct raw_as_body {
  const int4* in; int* out; int V;
  template <class Ctx>
  __device__ void operator()(Ctx& ctx) const {
    int* dyn = ctx.template shared_array<int>(40);
    raw_body<1024>(in, out, V, dyn, dyn + 32);
  }
};

static int* g_in2; static int* g_out2;
int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  const int maxn = 1 << 18;
  int *in, *out; CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, 64));
  CK(cudaMalloc(&g_in2, maxn * 4)); CK(cudaMalloc(&g_out2, 64)); CK(cudaMemset(g_in2, 1, maxn * 4));
  std::vector<int> h(maxn); unsigned st = 7; for (auto& x : h) { st = st * 1664525u + 1013904223u; x = int(st >> 8) % 1000; }
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
  void* temp; size_t tb = 1 << 20; CK(cudaMalloc(&temp, tb));
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = 8; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  for (int lg = 15; lg <= 17; ++lg) {
    const int n = 1 << lg, V = n / (8 * 1024 * 4);
    long long want = 0; for (int i = 0; i < n; ++i) want += h[i];
    auto check = [&](const char* name, double us) {
      int got; CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost)); CK(cudaMemset(out, 0xab, 4));
      std::printf("2^%d %-34s %6.2f us %s\n", lg, name, us, got == int(want) ? "" : "MISMATCH");
    };
    auto launch_raw = [&](auto k, size_t dyn) {
      cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(8); cfg.blockDim = dim3(1024); cfg.dynamicSmemBytes = dyn;
      cfg.attrs = at; cfg.numAttrs = 1;
      return cudaLaunchKernelEx(&cfg, k, (const int4*)in, out, V);
    };
    for (int round = 0; round < 2; ++round) {
      static int* s_in; static int* s_out; static int s_V, s_n; static cudaLaunchAttribute* s_at;
      s_in = g_in2; s_out = g_out2; s_V = V; s_n = n; s_at = at;
      static void* temp2; if (!temp2) CK(cudaMalloc(&temp2, 1 << 20));
      const bool warm = round == 1;
      std::printf("-- %s code\n", warm ? "warm" : "cold");
      CK(launch_raw(k_static, 0)); CK(cudaDeviceSynchronize());
      warm_up = warm ? +[] { cudaLaunchConfig_t c = {}; c.gridDim = dim3(8); c.blockDim = dim3(1024); c.attrs = s_at; c.numAttrs = 1;
                             cudaLaunchKernelEx(&c, k_static, (const int4*)s_in, s_out, s_V); } : nullptr;
      check("A raw, static shared", med([&] { launch_raw(k_static, 0); }));
      CK(launch_raw(k_dynamic, 160)); CK(cudaDeviceSynchronize());
      warm_up = nullptr;
      if (!warm) check("B raw, dynamic shared", med([&] { launch_raw(k_dynamic, 160); }));
      const raw_as_body body{(const int4*)in, out, V};
      CK(tilekit::launch_cluster(dim3(8), dim3(1024), dim3(8), 0, body, 160)); CK(cudaDeviceSynchronize());
      if (!warm) check("C raw as a body, launch_cluster", med([&] { tilekit::launch_cluster(dim3(8), dim3(1024), dim3(8), 0, body, 160); }));
      using K = tilekit::detail::reduce_cluster_kernel<8, 1024, const int*, int*, int, tilekit::plus>;
      const K k{{in, unsigned(n), 0u, tilekit::plus{}}, unsigned(V * 1024), out, 0};
      const tilekit::gpu_launcher l{0};
      CK(l.run_cluster(8, 8, 1024, k, sizeof(typename K::shared_t))); CK(cudaDeviceSynchronize());
      warm_up = warm ? +[] { using K = tilekit::detail::reduce_cluster_kernel<8, 1024, const int*, int*, int, tilekit::plus>;
                             const K k2{{s_in, unsigned(s_n), 0u, tilekit::plus{}}, unsigned(s_V * 1024), s_out, 0};
                             tilekit::gpu_launcher{0}.run_cluster(8, 8, 1024, k2, sizeof(typename K::shared_t)); } : nullptr;
      check("D library kernel, run_cluster", med([&] { l.run_cluster(8, 8, 1024, k, sizeof(typename K::shared_t)); }));
      warm_up = nullptr;
      size_t b = tb; CK(tilekit::device::reduce(temp, b, (const int*)in, (long long)n, out, tilekit::plus{}, 0)); CK(cudaDeviceSynchronize());
      if (!warm) check("E tilekit::device::reduce", med([&] { size_t bb = tb; tilekit::device::reduce(temp, bb, (const int*)in, (long long)n, out, tilekit::plus{}, 0); }));
    }
  }
  return 0;
}
