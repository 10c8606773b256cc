// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb16: ArgMin (int32, float) and int64 sums through the working tree (clusters for 8-byte accumulators) and with
// them kept off the clusters (the grid), in one process, interleaved: 5 rounds of (new, nc), each a median of 41
// calls with the L2 flushed before each (common.cuh); min and median round. Checked against host answers (seed 5).
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
cudaError_t new_lsum(void*, size_t&, const long long*, long long, long long*);
cudaError_t nc_lsum(void*, size_t&, const long long*, long long, long long*);
cudaError_t new_argmin(void*, size_t&, const int*, long long, int*, long long*);
cudaError_t nc_argmin(void*, size_t&, const int*, long long, int*, long long*);
cudaError_t new_fargmin(void*, size_t&, const float*, long long, float*, long long*);
cudaError_t nc_fargmin(void*, size_t&, const float*, long long, float*, long long*);
#include "../../2026-12-06-22-reduce-cluster/common.cuh"
int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs; seed 5; us: min and median of 5 rounds (each a median of 41)\n", p.name, p.multiProcessorCount);
  const long long maxn = 1 << 19;
  std::vector<int> h(maxn); std::vector<float> hf(maxn); std::vector<long long> hl(maxn); unsigned st = 5;
  for (long long i = 0; i < maxn; ++i) { st = st * 1664525u + 1013904223u; h[i] = int(st >> 12) % 100000; hf[i] = float(int(st >> 9) % 100000) * 0.5f; hl[i] = (long long)(st >> 4) << 12; }
  int *in, *out; float *fin, *fout; long long *lin, *lout, *iout; void* temp; size_t tb = 16 << 20;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&lin, maxn * 8)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64));
  CK(cudaMalloc(&lout, 64)); CK(cudaMalloc(&iout, 64)); CK(cudaMalloc(&temp, tb));
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(fin, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(lin, hl.data(), maxn * 8, cudaMemcpyHostToDevice));
  for (long long n : {(1ll << 14) + 4, 1ll << 15, 3ll << 14, 1ll << 16, 3ll << 15, 1ll << 17}) {
    long long lwant = 0, at = 0, fat = 0;
    for (long long i = 0; i < n; ++i) { lwant += hl[i]; if (h[i] < h[at]) at = i; if (hf[i] < hf[fat]) fat = i; }
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<double> t[2];
      for (int round = 0; round < 5; ++round)
        for (int side = 0; side < 2; ++side) {
          auto call = [&] { size_t b = tb;
            if (kind == 0) return side ? nc_lsum(temp, b, lin, n, lout) : new_lsum(temp, b, lin, n, lout);
            if (kind == 1) return side ? nc_argmin(temp, b, in, n, out, iout) : new_argmin(temp, b, in, n, out, iout);
            return side ? nc_fargmin(temp, b, fin, n, fout, iout) : new_fargmin(temp, b, fin, n, fout, iout); };
          CK(cudaMemset(out, 0xff, 64)); CK(cudaMemset(fout, 0xff, 64)); CK(cudaMemset(lout, 0xff, 64)); CK(cudaMemset(iout, 0xff, 64));
          CK(call()); CK(cudaDeviceSynchronize());
          bool ok;
          long long ix; CK(cudaMemcpy(&ix, iout, 8, cudaMemcpyDeviceToHost));
          if (kind == 0) { long long g; CK(cudaMemcpy(&g, lout, 8, cudaMemcpyDeviceToHost)); ok = g == lwant; }
          else if (kind == 1) { int v; CK(cudaMemcpy(&v, out, 4, cudaMemcpyDeviceToHost)); ok = v == h[at] && ix == at; }
          else { float v; CK(cudaMemcpy(&v, fout, 4, cudaMemcpyDeviceToHost)); ok = v == hf[fat] && ix == fat; }
          if (!ok) { std::printf("MISMATCH kind %d n %lld side %d\n", kind, n, side); return 1; }
          t[side].push_back(med([&] { call(); }));
        }
      for (auto& v : t) std::sort(v.begin(), v.end());
      std::printf("%-7s n %7lld new %5.2f %5.2f  grid %5.2f %5.2f  new/grid %6.3f\n", kind == 0 ? "lsum" : kind == 1 ? "argmin" : "fargmin", n,
                  t[0][0], t[0][2], t[1][0], t[1][2], t[0][2] / t[1][2]);
      std::fflush(stdout);
    }
  }
  return 0;
}
