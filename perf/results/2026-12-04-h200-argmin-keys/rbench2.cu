// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// focused reduce / argmin / u8-histogram bench: tilekit vs CUB, L2 flushed, events, median of 31.
// mode cold: flush, then the timed call. mode warm: flush, the same call on another buffer
// (its code in L2 / instruction caches, the timed call's data not), then the timed call.
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_histogram.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <random>
#ifndef VARIANT
#define VARIANT "base"
#endif
#include "timing.cuh"
int main(int argc, char** argv) {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 1ll << 28;
  int* in; float* fin; unsigned char* u8; long long* idx; int* out; float* fout; int* hist;
  CK(cudaMalloc(&in, 2 * maxn * 4)); CK(cudaMalloc(&fin, 2 * maxn * 4)); CK(cudaMalloc(&u8, 2 * maxn)); CK(cudaMalloc(&idx, 64)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&fout, 64));
  CK(cudaMalloc(&hist, 2 * 256 * 4));
  { std::vector<int> h(2 * maxn); unsigned long long st = 7; auto g = [&st] { st = st * 6364136223846793005ull + 1442695040888963407ull; return unsigned(st >> 33); }; for (auto& x : h) x = int(g() % 2000001) - 1000000; CK(cudaMemcpy(in, h.data(), 2 * maxn * 4, cudaMemcpyHostToDevice));
    std::vector<float> f(2 * maxn); for (auto& x : f) x = float(int(g() % 200001) - 100000) / 7.f; CK(cudaMemcpy(fin, f.data(), 2 * maxn * 4, cudaMemcpyHostToDevice));
    std::vector<unsigned char> c(2 * maxn); for (auto& x : c) x = (unsigned char)(g()); CK(cudaMemcpy(u8, c.data(), 2 * maxn, cudaMemcpyHostToDevice)); }
  void* temp; size_t tb = 64u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("%-6s %-5s %4s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s | %8s %6s\n", "var", "mode", "log", "tk_sum", "cub_sum", "ratio",
              "tk_amin", "cub_amin", "ratio", "tk_aminf", "cub_af", "ratio", "tk_h8", "cub_h8", "ratio", "tk_alloc", "ratio");
  std::vector<int> logs = {10, 11, 12, 13, 14, 16, 18, 20, 22, 24, 26, 28};
  if (argc > 1) logs = {std::atoi(argv[1])};
  const bool only_check = argc > 2;  // under a profiler: the checked calls only
  for (int lg : logs) {
    const long long n = 1ll << lg;
    // correctness first
    int want = -1, got = -2;
    size_t b = tb; CK(cub::DeviceReduce::Sum(temp, b, in, out, n)); CK(cudaMemcpy(&want, out, 4, cudaMemcpyDeviceToHost));
    b = tb; CK(tilekit::device::reduce(temp, b, in, n, out + 1, tilekit::plus{}, 0)); CK(cudaMemcpy(&got, out + 1, 4, cudaMemcpyDeviceToHost));
    if (want != got) { std::printf("MISMATCH sum n=2^%d %d %d\n", lg, got, want); return 1; }
    for (int k = 0; k < 4; ++k) {  // argmin / argmax of int and float
      long long ia = -5, ib = -6; int va = 1, vb = 2; float fa = 1, fb = 2;
      b = tb;
      if (k == 0) { CK(cub::DeviceReduce::ArgMin(temp, b, in, out, idx, n)); b = tb; CK(tilekit::device::arg_min(temp, b, in, n, out + 1, idx + 1)); }
      if (k == 1) { CK(cub::DeviceReduce::ArgMax(temp, b, in, out, idx, n)); b = tb; CK(tilekit::device::arg_max(temp, b, in, n, out + 1, idx + 1)); }
      if (k == 2) { CK(cub::DeviceReduce::ArgMin(temp, b, fin, fout, idx, n)); b = tb; CK(tilekit::device::arg_min(temp, b, fin, n, fout + 1, idx + 1)); }
      if (k == 3) { CK(cub::DeviceReduce::ArgMax(temp, b, fin, fout, idx, n)); b = tb; CK(tilekit::device::arg_max(temp, b, fin, n, fout + 1, idx + 1)); }
      CK(cudaMemcpy(&ib, idx, 8, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ia, idx + 1, 8, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(&vb, out, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&va, out + 1, 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(&fb, fout, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&fa, fout + 1, 4, cudaMemcpyDeviceToHost));
      if (ia != ib || (k < 2 && va != vb) || (k >= 2 && std::memcmp(&fa, &fb, 4) != 0)) { std::printf("MISMATCH arg k=%d n=2^%d %lld %lld\n", k, lg, ia, ib); return 1; }
    }
    { std::vector<int> ha(256), hb(256);
      b = tb; CK(cub::DeviceHistogram::HistogramEven(temp, b, u8, hist, 257, 0, 256, n));
      b = tb; CK(tilekit::device::histogram_even(temp, b, u8, n, hist + 256, 257, 0, 256));
      CK(cudaMemcpy(ha.data(), hist, 1024, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(hb.data(), hist + 256, 1024, cudaMemcpyDeviceToHost));
      if (ha != hb) { std::printf("MISMATCH hist n=2^%d\n", lg); return 1; } }
    if (only_check) continue;
    for (int warm = 0; warm < 2; ++warm) {
      double s_tk = med([&](int o) { size_t bb = tb; tilekit::device::reduce(temp, bb, in + o * maxn, n, out, tilekit::plus{}, 0); }, warm);
      double s_cub = med([&](int o) { size_t bb = tb; cub::DeviceReduce::Sum(temp, bb, in + o * maxn, out, n); }, warm);
      double a_tk = med([&](int o) { size_t bb = tb; tilekit::device::arg_min(temp, bb, in + o * maxn, n, out, idx); }, warm);
      double a_cub = med([&](int o) { size_t bb = tb; cub::DeviceReduce::ArgMin(temp, bb, in + o * maxn, out, idx, n); }, warm);
      double f_tk = med([&](int o) { size_t bb = tb; tilekit::device::arg_min(temp, bb, fin + o * maxn, n, fout, idx); }, warm);
      double f_cub = med([&](int o) { size_t bb = tb; cub::DeviceReduce::ArgMin(temp, bb, fin + o * maxn, fout, idx, n); }, warm);
      double h_tk = med([&](int o) { size_t bb = tb; tilekit::device::histogram_even(temp, bb, u8 + o * maxn, n, hist, 257, 0, 256); }, warm);
      double h_cub = med([&](int o) { size_t bb = tb; cub::DeviceHistogram::HistogramEven(temp, bb, u8 + o * maxn, hist, 257, 0, 256, n); }, warm);
      double al_tk = med([&](int o) { tilekit::device::sum(in + o * maxn, n, out); }, warm);
      std::printf("%-6s %-5s %4d | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f | %8.2f %6.3f\n", VARIANT, warm ? "warm" : "cold", lg,
                  s_tk, s_cub, s_cub / s_tk, a_tk, a_cub, a_cub / a_tk, f_tk, f_cub, f_cub / f_tk, h_tk, h_cub, h_cub / h_tk, al_tk, s_cub / al_tk);
      std::fflush(stdout);
    }
  }
  CK(cudaGetLastError());
  return 0;
}
