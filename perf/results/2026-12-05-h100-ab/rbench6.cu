// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// focused device sum: tilekit vs CUB (toolkit), int32 and float, L2 flushed before each timed call, events, median of 41.
// Variants of the one-block / cluster path are builds of this file with -DTILEKIT_REDUCE_CLUSTER_BLOCKS=..
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#ifndef VARIANT
#define VARIANT "base"
#endif
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1);} } while (0)
static char* flushbuf; static size_t flushbytes = 256u << 20;
template <class F> double med(F f) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 41; ++r) {
    CK(cudaMemsetAsync(flushbuf, r, flushbytes));
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1e3);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main() {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 1ll << 20;
  int* in; float* fin; int* out; float* fout;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64));
  { std::vector<int> h(maxn); unsigned long long st = 11; auto g = [&st] { st = st * 6364136223846793005ull + 1442695040888963407ull; return unsigned(st >> 33); };
    for (auto& x : h) x = int(g() % 2000001) - 1000000; CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
    std::vector<float> f(maxn); for (auto& x : f) x = float(int(g() % 2001) - 1000) / 8.f; CK(cudaMemcpy(fin, f.data(), maxn * 4, cudaMemcpyHostToDevice)); }
  void* temp; size_t tb = 16u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("%-8s %8s | %8s %8s %6s | %8s %8s %6s\n", "var", "log", "tk_sum", "cub_sum", "ratio", "tk_fsum", "cub_f", "ratio");
  for (long long n : {1ll << 12, 1ll << 13, 12000ll, 1ll << 14, 1ll << 16, 1ll << 18, (1ll << 18) + 4000, 1000000ll, 1ll << 20, (1ll << 20) - 96}) {
    int lg = 0; while ((1ll << (lg + 1)) <= n) ++lg;
    int want = -1, got = -2; float fw = -1, fg = -2;
    size_t b = tb; CK(cub::DeviceReduce::Sum(temp, b, in, out, n)); CK(cudaMemcpy(&want, out, 4, cudaMemcpyDeviceToHost));
    CK(cudaMemset(out, 0xab, 64));
    b = tb; CK(tilekit::device::reduce(temp, b, in, n, out, tilekit::plus{}, 0)); CK(cudaMemcpy(&got, out, 4, cudaMemcpyDeviceToHost));
    b = tb; CK(cub::DeviceReduce::Sum(temp, b, fin, fout, n)); CK(cudaMemcpy(&fw, fout, 4, cudaMemcpyDeviceToHost));
    CK(cudaMemset(fout, 0xab, 64));
    b = tb; CK(tilekit::device::reduce(temp, b, fin, n, fout, tilekit::plus{}, 0.f)); CK(cudaMemcpy(&fg, fout, 4, cudaMemcpyDeviceToHost));
    if (want != got || std::fabs(fw - fg) > 1e-4f * (1.f + std::fabs(fw)) * 64) { std::printf("MISMATCH n=%lld (2^%d) %d %d %g %g\n", n, lg, got, want, fg, fw); return 1; }  // (float: rounding differs with the order)
    const double s_tk = med([&] { size_t bb = tb; tilekit::device::reduce(temp, bb, in, n, out, tilekit::plus{}, 0); });
    const double s_cub = med([&] { size_t bb = tb; cub::DeviceReduce::Sum(temp, bb, in, out, n); });
    const double f_tk = med([&] { size_t bb = tb; tilekit::device::reduce(temp, bb, fin, n, fout, tilekit::plus{}, 0.f); });
    const double f_cub = med([&] { size_t bb = tb; cub::DeviceReduce::Sum(temp, bb, fin, fout, n); });
    std::printf("%-8s %8lld | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f\n", VARIANT, n, s_tk, s_cub, s_cub / s_tk, f_tk, f_cub, f_cub / f_tk);
    std::fflush(stdout);
  }
  CK(cudaGetLastError());
  return 0;
}
