// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// focused small-size bench of the launches after zero(): scan int32/int64, select_if, histogram 1024 bins, u8 256 bins
// tilekit (variant by macros) vs CUB 3.0.1; L2 flushed, events, median of 31
#include <tilekit/device/scan.cuh>
#include <tilekit/device/select.cuh>
#include <tilekit/device/histogram.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_histogram.cuh>
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
struct odd { __host__ __device__ bool operator()(int x) const { return x & 1; } };
int main() {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 1ll << 24;
  int *in, *out; long long *in64, *out64; unsigned char* u8; int* counters; long long* nout;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, maxn * 4)); CK(cudaMalloc(&in64, maxn * 8)); CK(cudaMalloc(&out64, maxn * 8));
  CK(cudaMalloc(&u8, maxn)); CK(cudaMalloc(&counters, 4096 * 4)); CK(cudaMalloc(&nout, 8));
  { std::vector<int> h(maxn); std::mt19937 g(7); for (auto& x : h) x = int(g() % 1024); CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
    std::vector<long long> h64(h.begin(), h.end()); CK(cudaMemcpy(in64, h64.data(), maxn * 8, cudaMemcpyHostToDevice));
    std::vector<unsigned char> b(maxn); for (auto& x : b) x = (unsigned char)g(); CK(cudaMemcpy(u8, b.data(), maxn, cudaMemcpyHostToDevice)); }
  void* temp; size_t tb = 256u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("%-10s %4s | %8s %8s | %8s %8s | %8s %8s | %8s %8s | %8s %8s\n", "variant", "log", "scan32", "cub", "scan64", "cub", "select", "cub", "hist1024", "cub", "hist_u8", "cub");
  for (int lg : {10, 12, 14, 16, 18, 20, 22, 24}) {
    const long long n = 1ll << lg;
    size_t b;
    double s32 = med([&] { b = tb; tilekit::device::inclusive_sum(temp, b, in, n, out); });
    double c32 = med([&] { b = tb; cub::DeviceScan::InclusiveSum(temp, b, in, out, n); });
    double s64 = med([&] { b = tb; tilekit::device::inclusive_sum(temp, b, in64, n, out64); });
    double c64 = med([&] { b = tb; cub::DeviceScan::InclusiveSum(temp, b, in64, out64, n); });
    double se = med([&] { b = tb; tilekit::device::select_if(temp, b, in, n, out, nout, odd{}); });
    double ce = med([&] { b = tb; cub::DeviceSelect::If(temp, b, in, out, nout, n, odd{}); });
    double h1 = med([&] { b = tb; tilekit::device::histogram_even(temp, b, in, n, counters, 1025, 0, 1024); });
    double ch1 = med([&] { b = tb; cub::DeviceHistogram::HistogramEven(temp, b, in, counters, 1025, 0, 1024, n); });
    double h8 = med([&] { b = tb; tilekit::device::histogram_even(temp, b, u8, n, counters, 257, 0, 256); });
    double ch8 = med([&] { b = tb; cub::DeviceHistogram::HistogramEven(temp, b, u8, counters, 257, 0, 256, n); });
    std::printf("%-10s %4d | %8.2f %8.2f | %8.2f %8.2f | %8.2f %8.2f | %8.2f %8.2f | %8.2f %8.2f\n", VARIANT, lg, s32, c32, s64, c64, se, ce, h1, ch1, h8, ch8);
  }
  CK(cudaGetLastError());
  return 0;
}
