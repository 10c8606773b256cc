// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// sizes that are not powers of two: the cub facade (tilekit) against CUB (toolkit) on the same data,
// L2 flushed before each timed call, events, median of 21; every output checked against CUB's first.
#include <tilekit/cub/device_reduce.cuh>
#include <tilekit/cub/device_scan.cuh>
#include <tilekit/cub/device_select.cuh>
#include <tilekit/cub/device_histogram.cuh>
#include <tilekit/cub/device_run_length_encode.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
namespace tkc = tilekit::cub;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1);} } while (0)
static char* flushbuf; static size_t flushbytes = 256u << 20;
template <class F> double med(F f) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 21; ++r) {
    CK(cudaMemsetAsync(flushbuf, r, flushbytes));
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1e3);
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
struct odd { __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; } };
template <class T> bool same(const T* a, const T* b, long long n) {
  std::vector<T> x(n), y(n); if (n == 0) return true;
  CK(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  return std::memcmp(x.data(), y.data(), n * sizeof(T)) == 0;
}
int main() {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 100000007ll;
  int *in, *runs, *o1, *o2; unsigned char* u8; int *h1, *h2; long long *c1, *c2;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&runs, maxn * 4)); CK(cudaMalloc(&o1, maxn * 4)); CK(cudaMalloc(&o2, maxn * 4));
  CK(cudaMalloc(&u8, maxn)); CK(cudaMalloc(&h1, 1024 * 4)); CK(cudaMalloc(&h2, 1024 * 4)); CK(cudaMalloc(&c1, 64)); CK(cudaMalloc(&c2, 64));
  int *l1, *l2; CK(cudaMalloc(&l1, maxn * 4)); CK(cudaMalloc(&l2, maxn * 4));
  { std::vector<int> h(maxn), r(maxn); std::vector<unsigned char> c(maxn); unsigned long long st = 5;
    auto g = [&st] { st = st * 6364136223846793005ull + 1442695040888963407ull; return unsigned(st >> 33); };
    int cur = 0; for (long long i = 0; i < maxn; ++i) { h[i] = int(g() % 2001) - 1000; if (g() % 4 == 0) cur = int(g()); r[i] = cur; c[i] = (unsigned char)g(); }
    CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(runs, r.data(), maxn * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(u8, c.data(), maxn, cudaMemcpyHostToDevice)); }
  void* temp; size_t tb = 512u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("%10s | %7s %7s %7s %7s %7s %7s %7s\n", "n", "sum", "scan", "select", "unique", "rle", "hist8", "part");
  for (long long n : {1000ll, 5000ll, 12345ll, 100000ll, 1000003ll, 3000017ll, 10000019ll, 50000017ll, 100000007ll}) {
    double r[7]; size_t b;
#define PAIR(idx, CALL_CUB, CALL_TK, CHECK) { \
      b = tb; CK(cub::CALL_CUB); b = tb; CK(tkc::CALL_TK); CK(cudaDeviceSynchronize()); \
      if (!(CHECK)) { std::printf("MISMATCH %d n=%lld\n", idx, n); return 1; } \
      const double tc = med([&] { b = tb; (void)cub::CALL_CUB; }); \
      const double tt = med([&] { b = tb; (void)tkc::CALL_TK; }); r[idx] = tc / tt; }
    PAIR(0, DeviceReduce::Sum(temp, b, in, o1, n), DeviceReduce::Sum(temp, b, in, o2, n), same(o1, o2, 1))
    PAIR(1, DeviceScan::InclusiveSum(temp, b, in, o1, n), DeviceScan::InclusiveSum(temp, b, in, o2, n), same(o1, o2, n))
    PAIR(2, DeviceSelect::If(temp, b, in, o1, c1, n, odd{}), DeviceSelect::If(temp, b, in, o2, c2, n, odd{}), same(c1, c2, 1) && same(o1, o2, n / 3))
    PAIR(3, DeviceSelect::Unique(temp, b, runs, o1, c1, n), DeviceSelect::Unique(temp, b, runs, o2, c2, n), same(c1, c2, 1) && same(o1, o2, n / 5))
    PAIR(4, DeviceRunLengthEncode::Encode(temp, b, runs, o1, l1, c1, n), DeviceRunLengthEncode::Encode(temp, b, runs, o2, l2, c2, n), same(c1, c2, 1) && same(o1, o2, n / 5) && same(l1, l2, n / 5))
    PAIR(5, DeviceHistogram::HistogramEven(temp, b, u8, h1, 257, 0, 256, n), DeviceHistogram::HistogramEven(temp, b, u8, h2, 257, 0, 256, n), same(h1, h2, 256))
    PAIR(6, DevicePartition::If(temp, b, in, o1, c1, n, odd{}), DevicePartition::If(temp, b, in, o2, c2, n, odd{}), same(c1, c2, 1) && same(o1, o2, n))
    std::printf("%10lld | %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7.3f\n", n, r[0], r[1], r[2], r[3], r[4], r[5], r[6]);
    std::fflush(stdout);
  }
  CK(cudaGetLastError());
  std::printf("ratios: CUB 3.0.1 time / tilekit (cub facade) time; above 1 tilekit is faster\n");
  return 0;
}
