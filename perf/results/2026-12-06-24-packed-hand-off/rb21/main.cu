// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb21: old (224a876) and new (working tree: packed and counted hand-offs) device reduce in one process,
// interleaved, with CUB (the toolkit's): for each size and kind, 5 rounds of (old, new, cub), each a median of 41
// calls with the L2 flushed before each (common.cuh); prints the min and median round. int32 / float / double /
// int64 sums, ArgMin of int32 and float; old and new each on their own temporary storage, reused call after call.
// Results: sums against host sums (exact data), ArgMin against CUB's (seed 11).
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#define DECL(P) \
  cudaError_t P##_sum(void*, size_t&, const int*, long long, int*); cudaError_t P##_fsum(void*, size_t&, const float*, long long, float*); \
  cudaError_t P##_dsum(void*, size_t&, const double*, long long, double*); cudaError_t P##_lsum(void*, size_t&, const long long*, long long, long long*); \
  cudaError_t P##_argmin(void*, size_t&, const int*, long long, int*, long long*); cudaError_t P##_fargmin(void*, size_t&, const float*, long long, float*, long long*);
DECL(old)
DECL(new)
#include "../../2026-12-06-22-reduce-cluster/common.cuh"
int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs; seed 11; us: min and median of 5 rounds (each a median of 41)\n", p.name, p.multiProcessorCount);
  const long long maxn = 1ll << 24;
  std::vector<int> h(maxn); std::vector<float> hf(maxn); std::vector<double> hd(maxn); std::vector<long long> hl(maxn); unsigned st = 11;
  for (long long i = 0; i < maxn; ++i) { st = st * 1664525u + 1013904223u; h[i] = int(st >> 8) % 100000; hf[i] = float(int(st >> 20) % 3 - 1) * 0.5f;
    hd[i] = double(int(st >> 12) % 2001 - 1000) * 0.25; hl[i] = (long long)(st >> 4) << 12; }
  int *in, *out; float *fin, *fout; double *din, *dout; long long *lin, *lout, *iout; void *temp_old, *temp_new, *temp_cub; size_t tb = 16 << 20;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&din, maxn * 8)); CK(cudaMalloc(&lin, maxn * 8));
  CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64)); CK(cudaMalloc(&dout, 64)); CK(cudaMalloc(&lout, 64)); CK(cudaMalloc(&iout, 64));
  CK(cudaMalloc(&temp_old, tb)); CK(cudaMalloc(&temp_new, tb)); CK(cudaMalloc(&temp_cub, tb));
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(fin, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(din, hd.data(), maxn * 8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(lin, hl.data(), maxn * 8, cudaMemcpyHostToDevice));
  cub::KeyValuePair<int, int>* kv; CK(cudaMalloc(&kv, 64)); cub::KeyValuePair<int, float>* fkv; CK(cudaMalloc(&fkv, 64));
  const char* kinds[] = {"int32 sum", "float sum", "double sum", "int64 sum", "ArgMin i32", "ArgMin f32"};
  for (long long n : {1ll << 16, 1ll << 17, (1ll << 18) + 4096, 1ll << 19, 1ll << 20, 1ll << 21, 1ll << 22, 1ll << 24}) {
    long long want = 0, lwant = 0; double fwant = 0, dwant = 0;
    for (long long i = 0; i < n; ++i) want += h[i], fwant += hf[i], dwant += hd[i], lwant += hl[i];
    for (int kind = 0; kind < 6; ++kind) {
      std::vector<double> t[3];
      bool ok = true;
      for (int round = 0; round < 5; ++round) {
        int cub_v = 0, cub_i = 0; float cub_fv = 0;
        for (int side = 2; side >= 0; --side) {
          auto call = [&] {
            if (side == 2) { size_t b = tb;
              if (kind == 0) return cub::DeviceReduce::Sum(temp_cub, b, in, out, n);
              if (kind == 1) return cub::DeviceReduce::Sum(temp_cub, b, fin, fout, n);
              if (kind == 2) return cub::DeviceReduce::Sum(temp_cub, b, din, dout, n);
              if (kind == 3) return cub::DeviceReduce::Sum(temp_cub, b, lin, lout, n);
              if (kind == 4) return cub::DeviceReduce::ArgMin(temp_cub, b, in, kv, int(n));
              return cub::DeviceReduce::ArgMin(temp_cub, b, fin, fkv, int(n));
            }
            void* t = side ? temp_new : temp_old; size_t b = tb;
            if (kind == 0) return side ? new_sum(t, b, in, n, out) : old_sum(t, b, in, n, out);
            if (kind == 1) return side ? new_fsum(t, b, fin, n, fout) : old_fsum(t, b, fin, n, fout);
            if (kind == 2) return side ? new_dsum(t, b, din, n, dout) : old_dsum(t, b, din, n, dout);
            if (kind == 3) return side ? new_lsum(t, b, lin, n, lout) : old_lsum(t, b, lin, n, lout);
            if (kind == 4) return side ? new_argmin(t, b, in, n, out, iout) : old_argmin(t, b, in, n, out, iout);
            return side ? new_fargmin(t, b, fin, n, fout, iout) : old_fargmin(t, b, fin, n, fout, iout); };
          CK(cudaMemset(out, 0xff, 64)); CK(cudaMemset(fout, 0xff, 64)); CK(cudaMemset(dout, 0xff, 64)); CK(cudaMemset(lout, 0xff, 64)); CK(cudaMemset(iout, 0xff, 64));
          CK(call()); CK(cudaDeviceSynchronize());
          t[side].push_back(med([&] { call(); }));
          int got = 0; float fgot = 0; double dgot = 0; long long lgot = 0, igot = 0;
          CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&fgot, fout, 4, cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(&dgot, dout, 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&lgot, lout, 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&igot, iout, 8, cudaMemcpyDeviceToHost));
          if (side == 2 && kind >= 4) {
            if (kind == 4) { cub::KeyValuePair<int, int> r; CK(cudaMemcpy(&r, kv, sizeof r, cudaMemcpyDeviceToHost)); cub_v = r.value; cub_i = r.key; }
            else { cub::KeyValuePair<int, float> r; CK(cudaMemcpy(&r, fkv, sizeof r, cudaMemcpyDeviceToHost)); cub_fv = r.value; cub_i = r.key; }
            continue;
          }
          if ((kind == 0 && got != int(want)) || (kind == 1 && double(fgot) != fwant) || (kind == 2 && dgot != dwant) || (kind == 3 && lgot != lwant)
              || (kind == 4 && (got != cub_v || igot != cub_i)) || (kind == 5 && (fgot != cub_fv || igot != cub_i))) ok = false;
        }
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
