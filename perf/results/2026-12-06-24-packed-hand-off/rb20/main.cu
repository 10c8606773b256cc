// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb20: old (224a876) and new (working tree: the packed hand-off) device reduce in one process, interleaved, and
// CUB (the toolkit's) beside them: for each size and kind, 5 rounds of (old, new, cub), each a median of 41 calls
// with the L2 flushed before each (common.cuh); prints the min and median round. int32 / uint32 / float sums and
// count_if (odd items); old and new each on their own temporary storage, reused call after call. Results checked
// against host sums (seed 7).
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
cudaError_t old_sum(void*, size_t&, const int*, long long, int*);
cudaError_t new_sum(void*, size_t&, const int*, long long, int*);
cudaError_t old_usum(void*, size_t&, const unsigned*, long long, unsigned*);
cudaError_t new_usum(void*, size_t&, const unsigned*, long long, unsigned*);
cudaError_t old_fsum(void*, size_t&, const float*, long long, float*);
cudaError_t new_fsum(void*, size_t&, const float*, long long, float*);
cudaError_t old_count(void*, size_t&, const int*, long long, long long*);
cudaError_t new_count(void*, size_t&, const int*, long long, long long*);
#include "../../2026-12-06-22-reduce-cluster/common.cuh"
struct odd_op {
  __host__ __device__ long long operator()(int x) const { return x & 1; }
};
int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs; seed 7; us: min and median of 5 rounds (each a median of 41)\n", p.name, p.multiProcessorCount);
  const long long maxn = 1ll << 26;
  std::vector<int> h(maxn); std::vector<float> hf(maxn); unsigned st = 7;
  for (long long i = 0; i < maxn; ++i) { st = st * 1664525u + 1013904223u; h[i] = int(st); hf[i] = float(int(st >> 20) % 3 - 1) * 0.5f; }
  int *in, *out; float *fin, *fout; long long* cout_; void *temp_old, *temp_new, *temp_cub; size_t tb = 16 << 20;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64)); CK(cudaMalloc(&cout_, 64));
  CK(cudaMalloc(&temp_old, tb)); CK(cudaMalloc(&temp_new, tb)); CK(cudaMalloc(&temp_cub, tb));
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(fin, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
  const char* kinds[] = {"int32 sum", "uint32 sum", "float sum", "count_if"};
  for (long long n : {(1ll << 14) + 4, 1ll << 15, 1ll << 16, 1ll << 17, 1ll << 18, 1ll << 19, 1ll << 20, 1ll << 21, 1ll << 22, 1ll << 24, 1ll << 26}) {
    unsigned want = 0; double fwant = 0; long long cwant = 0;
    for (long long i = 0; i < n; ++i) want += unsigned(h[i]), fwant += hf[i], cwant += h[i] & 1;
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<double> t[3];
      bool ok = true;
      for (int round = 0; round < 5; ++round)
        for (int side = 0; side < 3; ++side) {
          auto call = [&] {
            if (side == 2) { size_t b = tb;
              if (kind == 0) return cub::DeviceReduce::Sum(temp_cub, b, in, out, n);
              if (kind == 1) return cub::DeviceReduce::Sum(temp_cub, b, (const unsigned*)in, (unsigned*)out, n);
              if (kind == 2) return cub::DeviceReduce::Sum(temp_cub, b, fin, fout, n);
              return cub::DeviceReduce::TransformReduce(temp_cub, b, in, cout_, n, cuda::std::plus<>{}, odd_op{}, 0ll);
            }
            void* t = side ? temp_new : temp_old; size_t b = tb;
            if (kind == 0) return side ? new_sum(t, b, in, n, out) : old_sum(t, b, in, n, out);
            if (kind == 1) return side ? new_usum(t, b, (const unsigned*)in, n, (unsigned*)out) : old_usum(t, b, (const unsigned*)in, n, (unsigned*)out);
            if (kind == 2) return side ? new_fsum(t, b, fin, n, fout) : old_fsum(t, b, fin, n, fout);
            return side ? new_count(t, b, in, n, cout_) : old_count(t, b, in, n, cout_); };
          CK(cudaMemset(out, 0xff, 64)); CK(cudaMemset(fout, 0xff, 64)); CK(cudaMemset(cout_, 0xff, 64));
          CK(call()); CK(cudaDeviceSynchronize());
          t[side].push_back(med([&] { call(); }));
          unsigned got = 0; float fgot = 0; long long cgot = 0;
          CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&fgot, fout, 4, cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(&cgot, cout_, 8, cudaMemcpyDeviceToHost));
          if ((kind < 2 && got != want) || (kind == 2 && double(fgot) != fwant) || (kind == 3 && cgot != cwant)) ok = false;
        }
      std::printf("n=%-9lld %-10s", n, kinds[kind]);
      const char* names[] = {"old", "new", "cub"};
      for (int side = 0; side < 3; ++side) {
        std::sort(t[side].begin(), t[side].end());
        std::printf("  %s %7.2f/%7.2f", names[side], t[side][0], t[side][2]);
      }
      std::printf("  new/old %.3f  cub/new %.3f%s\n", t[1][2] / t[0][2], t[2][2] / t[1][2], ok ? "" : "  MISMATCH");
      std::fflush(stdout);
    }
  }
  return 0;
}
