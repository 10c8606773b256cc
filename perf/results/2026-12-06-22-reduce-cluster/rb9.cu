// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb9: tilekit::device reduce family against cub::DeviceReduce (the toolkit's) in one process, as built
// (VARIANT names the build: the library's tree and -D knobs). int32 / float / int64 / double sums,
// the allocating int32 sum, ArgMin int32 / float. L2 flushed (256 MB memset) before each timed call,
// CUDA events, median of 41; each result compared with CUB's first.
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#ifndef VARIANT
#define VARIANT "?"
#endif
#include "common.cuh"
static void* temp; static size_t tb = 64u << 20;
static void row(const char* what, long long n, double tk, double cub, bool ok) {
  int lg = 0; while ((1ll << (lg + 1)) <= n) ++lg;
  std::printf("%-8s %-10s 2^%-2d %9lld %8.2f %8.2f %6.3f %s\n", VARIANT, what, lg, n, tk, cub, cub / tk, ok ? "" : "MISMATCH");
  std::fflush(stdout);
}
template <class T>
static void sum_rows(const char* what, const T* in, long long n, T* out) {
  T want, got;
  size_t b = tb;
  CK(cub::DeviceReduce::Sum(temp, b, in, out, n)); CK(cudaMemcpy(&want, out, sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemset(out, 0xab, 16));
  b = tb; CK(tilekit::device::reduce(temp, b, in, n, out, tilekit::plus{}, T(0))); CK(cudaMemcpy(&got, out, sizeof(T), cudaMemcpyDeviceToHost));
  const double tk = med([&] { size_t bb = tb; tilekit::device::reduce(temp, bb, in, n, out, tilekit::plus{}, T(0)); });
  const double cu = med([&] { size_t bb = tb; cub::DeviceReduce::Sum(temp, bb, in, out, n); });
  row(what, n, tk, cu, want == got);
}
template <class T>
static void argmin_rows(const char* what, const T* in, long long n, T* vout, long long* iout) {
  T wv, gv; long long wi, gi;
  size_t b = tb;
  CK(cub::DeviceReduce::ArgMin(temp, b, in, vout, iout, (std::int64_t)n));
  CK(cudaMemcpy(&wv, vout, sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&wi, iout, 8, cudaMemcpyDeviceToHost));
  CK(cudaMemset(vout, 0xab, 16)); CK(cudaMemset(iout, 0xab, 8));
  b = tb; CK(tilekit::device::arg_min(temp, b, in, n, vout, iout));
  CK(cudaMemcpy(&gv, vout, sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&gi, iout, 8, cudaMemcpyDeviceToHost));
  const double tk = med([&] { size_t bb = tb; tilekit::device::arg_min(temp, bb, in, n, vout, iout); });
  const double cu = med([&] { size_t bb = tb; cub::DeviceReduce::ArgMin(temp, bb, in, vout, iout, (std::int64_t)n); });
  row(what, n, tk, cu, wv == gv && wi == gi);
}
int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, variant %s, seed 99\n", p.name, VARIANT);
  CK(cudaMalloc(&flushbuf, 256u << 20)); CK(cudaMalloc(&temp, tb));
  const long long maxn = 1ll << 24;
  std::vector<int> hi(maxn); std::vector<float> hf(maxn); std::vector<long long> hl(maxn); std::vector<double> hd(maxn);
  unsigned long long st = 99;
  auto g = [&st] { st = st * 6364136223846793005ull + 1442695040888963407ull; return unsigned(st >> 32); };
  for (long long i = 0; i < maxn; ++i) {
    hi[i] = int(g()); hf[i] = float(int(g() % 3) - 1) * 0.5f; hl[i] = (long long)g() << 20; hd[i] = double(int(g() % 2001) - 1000) * 0.5;
  }
  int* di; float* df; long long* dl; double* dd; void* out; long long* iout;
  CK(cudaMalloc(&di, maxn * 4)); CK(cudaMalloc(&df, maxn * 4)); CK(cudaMalloc(&dl, maxn * 8)); CK(cudaMalloc(&dd, maxn * 8));
  CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&iout, 64));
  CK(cudaMemcpy(di, hi.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(df, hf.data(), maxn * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dl, hl.data(), maxn * 8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dd, hd.data(), maxn * 8, cudaMemcpyHostToDevice));
  // ArgMin floats: the full-range values (no ties to speak of) as floats
  std::vector<float> ha(maxn); for (long long i = 0; i < maxn; ++i) ha[i] = float(int(g() % 2000001) - 1000000) * 1e-3f;
  float* da; CK(cudaMalloc(&da, maxn * 4)); CK(cudaMemcpy(da, ha.data(), maxn * 4, cudaMemcpyHostToDevice));
  for (int lg : {10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 24}) {
    const long long n = 1ll << lg;
    sum_rows<int>("sum_i32", di, n, (int*)out);
    {  // the allocating form
      int want, got; size_t b = tb;
      CK(cub::DeviceReduce::Sum(temp, b, di, (int*)out, n)); CK(cudaMemcpy(&want, out, 4, cudaMemcpyDeviceToHost));
      CK(cudaMemset(out, 0xab, 16));
      CK(tilekit::device::sum(di, n, (int*)out)); CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
      const double tk = med([&] { tilekit::device::sum(di, n, (int*)out); });
      const double cu = med([&] { size_t bb = tb; cub::DeviceReduce::Sum(temp, bb, di, (int*)out, n); });
      row("sumalloc", n, tk, cu, want == got);
    }
    sum_rows<float>("sum_f32", df, n, (float*)out);
    sum_rows<long long>("sum_i64", dl, n, (long long*)out);
    sum_rows<double>("sum_f64", dd, n, (double*)out);
    argmin_rows<int>("argmin_i32", di, n, (int*)out, iout);
    argmin_rows<float>("argmin_f32", da, n, (float*)out, iout);
  }
  std::printf("# done\n");
  return 0;
}
