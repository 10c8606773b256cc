// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb12: one launch each of rb10's raw split-barrier cluster sum (A) and the library's reduce_cluster_kernel (D)
// at 2^16 int32, for Nsight Compute (which flushes the caches before each kernel).
#include <tilekit/device/reduce.cuh>
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
namespace cg = cooperative_groups;
#include "common.cuh"
__global__ void __launch_bounds__(1024) k_raw(const int4* in, int* out, int V) {
  __shared__ int w[32], tot[8];
  cg::cluster_group cl = cg::this_cluster();
  const unsigned r = cl.block_rank();
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
  int4 x[8];
  const int4* p = in + size_t(r) * 1024 * V;
#pragma unroll
  for (int j = 0; j < 8; ++j) if (j < V) x[j] = p[threadIdx.x + j * 1024];
  int s = 0;
#pragma unroll
  for (int j = 0; j < 8; ++j) if (j < V) s += (x[j].x + x[j].y) + (x[j].z + x[j].w);
  s = block_sum_to<1024>(s, w);
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x == 0) *cl.map_shared_rank(&tot[r], 0) = s;
  cl.sync();
  if (r == 0 && threadIdx.x == 0) { int a = 0; for (int i = 0; i < 8; ++i) a += tot[i]; *out = a; }
}
int main() {
  const int n = 1 << 16, V = n / (8 * 1024 * 4);
  int *in, *out; CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, 64));
  std::vector<int> h(n, 1); CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = 8; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(8); cfg.blockDim = dim3(1024); cfg.attrs = at; cfg.numAttrs = 1;
  using K = tilekit::detail::reduce_cluster_kernel<8, 1024, const int*, int*, int, tilekit::plus>;
  const K k{{in, unsigned(n), 0u, tilekit::plus{}}, unsigned(V * 1024), out, 0};
  for (int i = 0; i < 3; ++i) {
    CK(cudaLaunchKernelEx(&cfg, k_raw, (const int4*)in, out, V));
    CK(tilekit::gpu_launcher{0}.run_cluster(8, 8, 1024, k, sizeof(typename K::shared_t)));
  }
  CK(cudaDeviceSynchronize());
  int got; CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
  std::printf("sum %d (want %d)\n", got, n);
  return 0;
}
