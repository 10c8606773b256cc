// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb14: one-cluster reduce shapes against the library's dispatch and CUB (the toolkit's) in one process,
// interleaved: for each size, 5 rounds of every variant that covers it, each a median of 41 calls with the
// L2 flushed before each (common.cuh); prints min and median round. int32 sums (values 0..999, seed 5),
// int64 sums. Every result checked against a host sum.
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>
cudaError_t lib_sum(void*, size_t&, const int*, long long, int*);
cudaError_t lib_sum64(void*, size_t&, const long long*, long long, long long*);
cudaError_t c8x512(const int*, long long, int*);
cudaError_t c16x512(const int*, long long, int*);
cudaError_t c16x1024(const int*, long long, int*);
cudaError_t c16x512_64(const long long*, long long, long long*);
cudaError_t c16x512v16(const int*, long long, int*);
cudaError_t c8x512v16(const int*, long long, int*);
long long max_c8x512(); long long max_c16x512(); long long max_c16x1024(); long long max_c16x512_64();
long long max_c16x512v16(); long long max_c8x512v16();
unsigned fit_c16x512(); unsigned fit_c16x1024();
#include "../../2026-12-06-22-reduce-cluster/common.cuh"
int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs; clusters of 16 x 512 at once: %u, of 16 x 1024: %u\n", p.name, p.multiProcessorCount, fit_c16x512(), fit_c16x1024());
  const long long maxn = 1 << 20;
  std::vector<int> h(maxn); std::vector<long long> h64(maxn); unsigned st = 5;
  for (long long i = 0; i < maxn; ++i) { st = st * 1664525u + 1013904223u; h[i] = int(st >> 12) % 1000; h64[i] = (long long)(st >> 4) << 12; }
  int *in, *out; long long *in64, *out64; void* temp; size_t tb = 16 << 20;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&in64, maxn * 8)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&out64, 64)); CK(cudaMalloc(&temp, tb));
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(in64, h64.data(), maxn * 8, cudaMemcpyHostToDevice));
  std::printf("# seed 5; us: min and median of 5 rounds (each a median of 41); ratio = cub median / variant median\n");
  struct V { std::string name; long long max; std::function<cudaError_t(long long)> f; bool wide; };
  std::vector<V> vs = {
    {"cub", 1ll << 40, [&](long long n) { size_t b = tb; return cub::DeviceReduce::Sum(temp, b, in, out, n); }, false},
    {"lib", 1ll << 40, [&](long long n) { size_t b = tb; return lib_sum(temp, b, in, n, out); }, false},
    {"c8x512", max_c8x512(), [&](long long n) { return c8x512(in, n, out); }, false},
    {"c16x512", max_c16x512(), [&](long long n) { return c16x512(in, n, out); }, false},
    {"c16x1024", max_c16x1024(), [&](long long n) { return c16x1024(in, n, out); }, false},
    {"c8x512v16", max_c8x512v16(), [&](long long n) { return c8x512v16(in, n, out); }, false},
    {"c16x512v16", max_c16x512v16(), [&](long long n) { return c16x512v16(in, n, out); }, false},
    {"cub64", 1ll << 40, [&](long long n) { size_t b = tb; return cub::DeviceReduce::Sum(temp, b, in64, out64, n); }, true},
    {"lib64", 1ll << 40, [&](long long n) { size_t b = tb; return lib_sum64(temp, b, in64, n, out64); }, true},
    {"c16x512_64", max_c16x512_64(), [&](long long n) { return c16x512_64(in64, n, out64); }, true},
  };
  for (long long n : {1ll << 15, 1ll << 16, 1ll << 17, 3ll << 16, 1ll << 18, 3ll << 17, 1ll << 19, 1ll << 20}) {
    long long want = 0, want64 = 0; for (long long i = 0; i < n; ++i) want += h[i], want64 += h64[i];
    std::vector<std::vector<double>> t(vs.size());
    for (int round = 0; round < 5; ++round)
      for (size_t k = 0; k < vs.size(); ++k) {
        if (n > vs[k].max) continue;
        CK(cudaMemset(out, 0xff, 64)); CK(cudaMemset(out64, 0xff, 64));
        CK(vs[k].f(n)); CK(cudaDeviceSynchronize());
        bool ok;
        if (vs[k].wide) { long long g; CK(cudaMemcpy(&g, out64, 8, cudaMemcpyDeviceToHost)); ok = g == want64; }
        else { int g; CK(cudaMemcpy(&g, out, 4, cudaMemcpyDeviceToHost)); ok = g == int(want); }
        if (!ok) { std::printf("MISMATCH %s n %lld\n", vs[k].name.c_str(), n); return 1; }
        t[k].push_back(med([&] { vs[k].f(n); }));
      }
    double cubm = 0, cub64m = 0;
    for (size_t k = 0; k < vs.size(); ++k) {
      if (t[k].empty()) continue;
      std::sort(t[k].begin(), t[k].end());
      const double m = t[k][2];
      if (vs[k].name == "cub") cubm = m;
      if (vs[k].name == "cub64") cub64m = m;
      std::printf("n %7lld %-11s %6.2f %6.2f  cub/this %5.3f\n", n, vs[k].name.c_str(), t[k][0], m, (vs[k].wide ? cub64m : cubm) / m);
    }
    std::fflush(stdout);
  }
  return 0;
}
