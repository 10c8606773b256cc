// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb13: old (236ad23) and new (working tree) device reduce in one process, interleaved: for each size, 6 rounds
// of (old, new), each a median of 41 calls with the L2 flushed before each; prints the smallest and the
// median round of each. int32 / float sums, ArgMin int32. Results checked against a host sum.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
cudaError_t old_sum(void*, size_t&, const int*, long long, int*);
cudaError_t new_sum(void*, size_t&, const int*, long long, int*);
cudaError_t old_fsum(void*, size_t&, const float*, long long, float*);
cudaError_t new_fsum(void*, size_t&, const float*, long long, float*);
cudaError_t old_argmin(void*, size_t&, const int*, long long, int*, long long*);
cudaError_t new_argmin(void*, size_t&, const int*, long long, int*, long long*);
#include "../common.cuh"
int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  const long long maxn = 1 << 20;
  std::vector<int> h(maxn); std::vector<float> hf(maxn); unsigned st = 5;
  for (long long i = 0; i < maxn; ++i) { st = st * 1664525u + 1013904223u; h[i] = int(st >> 12) % 1000; hf[i] = float(int(st >> 20) % 3 - 1) * 0.5f; }
  int *in, *out; float *fin, *fout; long long* iout; void* temp; size_t tb = 16 << 20;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64)); CK(cudaMalloc(&iout, 64)); CK(cudaMalloc(&temp, tb));
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(fin, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
  std::printf("# seed 5; us: min and median of 6 rounds (each a median of 41)\n");
  for (int lg : {10, 12, 13, 14, 15, 16, 17, 18, 20}) {
    const long long n = 1ll << lg;
    long long want = 0; double fwant = 0; for (long long i = 0; i < n; ++i) want += h[i], fwant += hf[i];
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<double> o, nw;
      for (int round = 0; round < 6; ++round)
        for (int side = 0; side < 2; ++side) {
          auto call = [&] { size_t b = tb;
            if (kind == 0) return side ? new_sum(temp, b, in, n, out) : old_sum(temp, b, in, n, out);
            if (kind == 1) return side ? new_fsum(temp, b, fin, n, fout) : old_fsum(temp, b, fin, n, fout);
            return side ? new_argmin(temp, b, in, n, out, iout) : old_argmin(temp, b, in, n, out, iout); };
          CK(call()); CK(cudaDeviceSynchronize());
          bool ok = true;
          if (kind == 0) { int g; CK(cudaMemcpy(&g, out, 4, cudaMemcpyDeviceToHost)); ok = g == int(want); }
          if (kind == 1) { float g; CK(cudaMemcpy(&g, fout, 4, cudaMemcpyDeviceToHost)); ok = g == float(fwant); }
          if (!ok) { std::printf("MISMATCH kind %d n 2^%d side %d\n", kind, lg, side); return 1; }
          (side ? nw : o).push_back(med([&] { call(); }));
        }
      std::sort(o.begin(), o.end()); std::sort(nw.begin(), nw.end());
      std::printf("%-7s 2^%-2d old %5.2f %5.2f  new %5.2f %5.2f  new/old %6.3f\n", kind == 0 ? "sum" : kind == 1 ? "fsum" : "argmin", lg,
                  o[0], o[3], nw[0], nw[3], nw[3] / o[3]);
      std::fflush(stdout);
    }
  }
  return 0;
}
