// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb15: old (16dc052) and new (working tree: 16-block clusters) device reduce in one process, interleaved, and
// CUB (the toolkit's) beside them: for each size, 5 rounds of (old, new, cub), each a median of 41 calls with the
// L2 flushed before each (common.cuh); prints min and median round of each. int32 / float / int64 sums, ArgMin int32.
// Results checked against a host sum / CUB (seed 5).
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
cudaError_t old_sum(void*, size_t&, const int*, long long, int*);
cudaError_t new_sum(void*, size_t&, const int*, long long, int*);
cudaError_t old_fsum(void*, size_t&, const float*, long long, float*);
cudaError_t new_fsum(void*, size_t&, const float*, long long, float*);
cudaError_t old_lsum(void*, size_t&, const long long*, long long, long long*);
cudaError_t new_lsum(void*, size_t&, const long long*, long long, long long*);
cudaError_t old_argmin(void*, size_t&, const int*, long long, int*, long long*);
cudaError_t new_argmin(void*, size_t&, const int*, long long, int*, long long*);
#include "../../2026-12-06-22-reduce-cluster/common.cuh"
int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs; seed 5; us: min and median of 5 rounds (each a median of 41)\n", p.name, p.multiProcessorCount);
  const long long maxn = 1 << 20;
  std::vector<int> h(maxn); std::vector<float> hf(maxn); std::vector<long long> hl(maxn); unsigned st = 5;
  for (long long i = 0; i < maxn; ++i) { st = st * 1664525u + 1013904223u; h[i] = int(st >> 12) % 1000; hf[i] = float(int(st >> 20) % 3 - 1) * 0.5f; hl[i] = (long long)(st >> 4) << 12; }
  int *in, *out; float *fin, *fout; long long *lin, *lout, *iout; void* temp; size_t tb = 16 << 20;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&lin, maxn * 8)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64));
  CK(cudaMalloc(&lout, 64)); CK(cudaMalloc(&iout, 64)); CK(cudaMalloc(&temp, tb));
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(fin, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(lin, hl.data(), maxn * 8, cudaMemcpyHostToDevice));
  cub::KeyValuePair<int, int>* kv; CK(cudaMalloc(&kv, 64));
  for (long long n : {1ll << 16, 1ll << 17, (1ll << 17) + 4096, 3ll << 16, 1ll << 18, (1ll << 18) + 64, 1ll << 19}) {
    long long want = 0, lwant = 0; double fwant = 0; for (long long i = 0; i < n; ++i) want += h[i], fwant += hf[i], lwant += hl[i];
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<double> t[3];
      for (int round = 0; round < 5; ++round)
        for (int side = 0; side < 3; ++side) {
          auto call = [&] { size_t b = tb;
            if (side == 2) {
              if (kind == 0) return cub::DeviceReduce::Sum(temp, b, in, out, n);
              if (kind == 1) return cub::DeviceReduce::Sum(temp, b, fin, fout, n);
              if (kind == 2) return cub::DeviceReduce::Sum(temp, b, lin, lout, n);
              return cub::DeviceReduce::ArgMin(temp, b, in, kv, int(n));
            }
            if (kind == 0) return side ? new_sum(temp, b, in, n, out) : old_sum(temp, b, in, n, out);
            if (kind == 1) return side ? new_fsum(temp, b, fin, n, fout) : old_fsum(temp, b, fin, n, fout);
            if (kind == 2) return side ? new_lsum(temp, b, lin, n, lout) : old_lsum(temp, b, lin, n, lout);
            return side ? new_argmin(temp, b, in, n, out, iout) : old_argmin(temp, b, in, n, out, iout); };
          CK(cudaMemset(out, 0xff, 64)); CK(cudaMemset(fout, 0xff, 64)); CK(cudaMemset(lout, 0xff, 64)); CK(cudaMemset(iout, 0xff, 64));
          CK(call()); CK(cudaDeviceSynchronize());
          bool ok = true;
          if (kind == 0) { int g; CK(cudaMemcpy(&g, out, 4, cudaMemcpyDeviceToHost)); ok = g == int(want); }
          if (kind == 1) { float g; CK(cudaMemcpy(&g, fout, 4, cudaMemcpyDeviceToHost)); ok = g == float(fwant); }
          if (kind == 2) { long long g; CK(cudaMemcpy(&g, lout, 8, cudaMemcpyDeviceToHost)); ok = g == lwant; }
          if (kind == 3 && side < 2) {  // against a host ArgMin: the first minimum
            int v; long long ix; CK(cudaMemcpy(&v, out, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ix, iout, 8, cudaMemcpyDeviceToHost));
            long long at = 0; for (long long i = 1; i < n; ++i) if (h[i] < h[at]) at = i;
            ok = v == h[at] && ix == at;
          }
          if (!ok) { std::printf("MISMATCH kind %d n %lld side %d\n", kind, n, side); return 1; }
          t[side].push_back(med([&] { call(); }));
        }
      for (auto& v : t) std::sort(v.begin(), v.end());
      std::printf("%-7s n %7lld old %5.2f %5.2f  new %5.2f %5.2f  cub %5.2f %5.2f  new/old %6.3f  cub/old %5.3f  cub/new %5.3f\n",
                  kind == 0 ? "sum" : kind == 1 ? "fsum" : kind == 2 ? "lsum" : "argmin", n, t[0][0], t[0][2], t[1][0], t[1][2],
                  t[2][0], t[2][2], t[1][2] / t[0][2], t[2][2] / t[0][2], t[2][2] / t[1][2]);
      std::fflush(stdout);
    }
  }
  return 0;
}
