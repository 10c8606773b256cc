// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// uint8 256-bin histogram (HistogramEven, levels 0..256): tilekit (cub facade) against CUB (the headers it is
// built with) on uniform, skewed (75% in one bin) and all-equal bytes, and the bytes of int32 values in
// [-1000, 1000] (device_bench's histogram256_u8 data) at 2^16-2^30, in microseconds, for an A/B of
// build-time knobs across binaries (-DTILEKIT_BYTE_HISTOGRAM_TENSOR / _HYBRID / _HYBRID_DISTINCT). Bytes from a
// hash of the index (seed below); L2 flushed before every timed call; CUDA events; medians of 21; every
// histogram compared with CUB's first.
#include <tilekit/cub/device_histogram.cuh>
#include <cub/device/device_histogram.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1);} } while (0)
#ifndef VARIANT
#define VARIANT "base"
#endif
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
constexpr unsigned long long seed = 20261205;
__host__ __device__ unsigned long long mixh(unsigned long long x) {
  x = (x ^ seed) * 0x9E3779B97F4A7C15ull; x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ull; return x ^ (x >> 32);
}
__global__ void fill(unsigned char* u, unsigned char* s, unsigned char* e, unsigned char* w, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned long long h = mixh(i);
    u[i] = (unsigned char)h; s[i] = (h >> 8) % 4 != 0 ? 85 : (unsigned char)(h >> 16); e[i] = 85;
    const int x = int(mixh(i / 4) % 2001) - 1000;
    w[i] = (unsigned char)(unsigned(x) >> (8 * (i % 4)));
  }
}
int main(int argc, char** argv) {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 1ll << 30;
  unsigned char *u, *s, *e, *w; int *h1, *h2;
  CK(cudaMalloc(&u, maxn)); CK(cudaMalloc(&s, maxn)); CK(cudaMalloc(&e, maxn)); CK(cudaMalloc(&w, maxn)); CK(cudaMalloc(&h1, 1024)); CK(cudaMalloc(&h2, 1024));
  fill<<<4096, 256>>>(u, s, e, w, maxn); CK(cudaDeviceSynchronize());
  void* temp; size_t tb = 1u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("%s, seed %llu; microseconds, tilekit / CUB (%d.%d.%d); speedup = CUB / tilekit\n", VARIANT, seed, CCCL_MAJOR_VERSION,
              CCCL_MINOR_VERSION, CCCL_PATCH_VERSION);
  std::vector<int> logs;
  for (int a = 1; a < argc; ++a) logs.push_back(std::atoi(argv[a]));
  if (logs.empty()) logs = {16, 20, 22, 24, 28, 30};
  for (int lg : logs) {
    const long long n = 1ll << lg;
    const unsigned char* data[4] = {u, s, e, w};
    const char* names[4] = {"uniform", "skewed", "equal", "i32bytes"};
    for (int d = 0; d < 4; ++d) {
      size_t b = tb;
      CK(cub::DeviceHistogram::HistogramEven(temp, b, data[d], h1, 257, 0, 256, n)); b = tb;
      CK(tilekit::cub::DeviceHistogram::HistogramEven(temp, b, data[d], h2, 257, 0, 256, n));
      std::vector<int> a(256), c(256);
      CK(cudaMemcpy(a.data(), h1, 1024, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(c.data(), h2, 1024, cudaMemcpyDeviceToHost));
      if (a != c) { std::printf("MISMATCH %s 2^%d\n", names[d], lg); return 1; }
      const double tc = med([&] { size_t bb = tb; (void)cub::DeviceHistogram::HistogramEven(temp, bb, data[d], h1, 257, 0, 256, n); });
      const double tt = med([&] { size_t bb = tb; (void)tilekit::cub::DeviceHistogram::HistogramEven(temp, bb, data[d], h2, 257, 0, 256, n); });
      std::printf("%-8s 2^%d %-8s tk %9.2f cub %9.2f speedup %.3f\n", VARIANT, lg, names[d], tt, tc, tc / tt); std::fflush(stdout);
    }
  }
  CK(cudaGetLastError());
  return 0;
}
