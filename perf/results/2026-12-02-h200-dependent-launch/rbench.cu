// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// focused reduce / argmin bench: tilekit vs CUB, L2 flushed, events, median of 31
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <vector>
#include <random>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1);} } while (0)
static char* flushbuf; static size_t flushbytes = 256u << 20;
template <class F> double med(F f) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 31; ++r) {
    CK(cudaMemsetAsync(flushbuf, r, flushbytes));
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1e3);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main() {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 1ll << 28;
  int* in; float* fin; long long* idx; int* out; float* fout;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&idx, 8)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64));
  { std::vector<int> h(maxn); std::mt19937 g(7); for (auto& x : h) x = int(g() % 1000); CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
    std::vector<float> f(maxn); for (auto& x : f) x = float(g() % 100000) / 7.f; CK(cudaMemcpy(fin, f.data(), maxn * 4, cudaMemcpyHostToDevice)); }
  void* temp; size_t tb = 64u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("%-8s %6s %10s %10s %6s | %10s %10s %6s | %10s %6s\n", "variant", "log", "tk_sum", "cub_sum", "ratio", "tk_argmin", "cub_argmin", "ratio", "tk_alloc", "ratio");
  for (int lg : {10, 12, 14, 16, 18, 20, 22, 24, 26, 28}) {
    const long long n = 1ll << lg;
    int want = -1, got = -2;
    size_t b = tb; CK(cub::DeviceReduce::Sum(temp, b, in, out, n)); CK(cudaMemcpy(&want, out, 4, cudaMemcpyDeviceToHost));
    b = tb; CK(tilekit::device::reduce(temp, b, in, n, out + 1, tilekit::plus{}, 0)); CK(cudaMemcpy(&got, out + 1, 4, cudaMemcpyDeviceToHost));
    if (want != got) { std::printf("MISMATCH sum n=2^%d %d %d\n", lg, got, want); return 1; }
    float va, vb; long long ia, ib;
    b = tb; CK(cub::DeviceReduce::ArgMin(temp, b, fin, fout, idx, n)); CK(cudaMemcpy(&vb, fout, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ib, idx, 8, cudaMemcpyDeviceToHost));
    b = tb; CK(tilekit::device::arg_min(temp, b, fin, n, fout, idx)); CK(cudaMemcpy(&va, fout, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ia, idx, 8, cudaMemcpyDeviceToHost));
    if (va != vb || ia != ib) { std::printf("MISMATCH argmin n=2^%d\n", lg); return 1; }
    double t_tk = med([&] { size_t bb = tb; tilekit::device::reduce(temp, bb, in, n, out, tilekit::plus{}, 0); });
    double t_cub = med([&] { size_t bb = tb; cub::DeviceReduce::Sum(temp, bb, in, out, n); });
    double a_tk = med([&] { size_t bb = tb; tilekit::device::arg_min(temp, bb, fin, n, fout, idx); });
    double a_cub = med([&] { size_t bb = tb; cub::DeviceReduce::ArgMin(temp, bb, fin, fout, idx, n); });
    double t_al = med([&] { tilekit::device::sum(in, n, out); });
    std::printf("%-8s %6d %10.2f %10.2f %6.3f | %10.2f %10.2f %6.3f | %10.2f %6.3f\n", VARIANT, lg, t_tk, t_cub, t_cub / t_tk, a_tk, a_cub, a_cub / a_tk, t_al, t_cub / t_al);
  }
  CK(cudaGetLastError());
  return 0;
}
