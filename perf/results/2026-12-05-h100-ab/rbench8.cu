// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The single-pass family at 2^20-2^28: tilekit (cub facade) against CUB (the headers it is built with) on the
// same data, in microseconds, for an A/B of build-time knobs across binaries (-DTILEKIT_PREFETCH_AHEAD_PERCENT=..):
// the CUB columns repeat in every binary and show the run-to-run spread. Inputs from a hash of the index (seed
// below); L2 flushed (256 MB memset) before every timed call; CUDA events; medians of 21. Every output is
// compared with CUB's on the device first (a difference stops the program).
#include <tilekit/cub/device_scan.cuh>
#include <tilekit/cub/device_select.cuh>
#include <tilekit/cub/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>
namespace tkc = tilekit::cub;
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); std::exit(1);} } while (0)
#ifndef TILEKIT_PREFETCH_AHEAD_PERCENT
#define TILEKIT_PREFETCH_AHEAD_PERCENT 0
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
__global__ void fill(int* in, int* runs, long long* in64, double* dbl, unsigned char* flags, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    const unsigned long long h = mixh(i);
    in[i] = int(unsigned(h)); runs[i] = int(mixh(i >> 2) % 3); in64[i] = (long long)(h >> 8);
    dbl[i] = double(int(h % 3) - 1) * 0.5; flags[i] = (unsigned char)((h >> 40) & 1);
  }
}
template <class T> __global__ void differ(const T* a, const T* b, long long n, unsigned long long* d) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x)
    if (a[i] != b[i]) atomicAdd(d, 1ull);
}
static unsigned long long* dcount;
template <class T> bool same(const T* a, const T* b, long long n) {
  if (n <= 0) return true;
  CK(cudaMemset(dcount, 0, 8)); differ<<<1024, 256>>>(a, b, n, dcount); unsigned long long h; CK(cudaMemcpy(&h, dcount, 8, cudaMemcpyDeviceToHost));
  return h == 0;
}
long long host_count(const long long* c) { long long h; CK(cudaMemcpy(&h, c, 8, cudaMemcpyDeviceToHost)); return h; }
struct below { int t; __host__ __device__ bool operator()(int x) const { return x < t; } };
int main(int argc, char** argv) {
  CK(cudaMalloc(&flushbuf, flushbytes)); CK(cudaMalloc(&dcount, 8));
  const long long maxn = 1ll << 28;
  int *in, *runs, *o1, *o2, *l1, *l2; long long *in64, *p1, *p2, *c1, *c2; double* dbl; unsigned char* flags;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&runs, maxn * 4)); CK(cudaMalloc(&in64, maxn * 8)); CK(cudaMalloc(&dbl, maxn * 8));
  CK(cudaMalloc(&flags, maxn)); CK(cudaMalloc(&o1, maxn * 4)); CK(cudaMalloc(&o2, maxn * 4)); CK(cudaMalloc(&l1, maxn * 4)); CK(cudaMalloc(&l2, maxn * 4));
  CK(cudaMalloc(&p1, maxn * 8)); CK(cudaMalloc(&p2, maxn * 8)); CK(cudaMalloc(&c1, 64)); CK(cudaMalloc(&c2, 64));
  fill<<<4096, 256>>>(in, runs, in64, dbl, flags, maxn); CK(cudaDeviceSynchronize());
  void* temp; size_t tb = 512u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("prefetch ahead %d%%, seed %llu; microseconds, tilekit / CUB (%d.%d.%d); speedup = CUB / tilekit\n", TILEKIT_PREFETCH_AHEAD_PERCENT, seed,
              CCCL_MAJOR_VERSION, CCCL_MINOR_VERSION, CCCL_PATCH_VERSION);
  std::vector<int> logs;
  for (int a = 1; a < argc; ++a) logs.push_back(std::atoi(argv[a]));
  if (logs.empty()) logs = {20, 22, 24, 26, 28};
  for (int lg : logs) {
    const long long n = 1ll << lg; size_t b;
    auto row = [&](const char* name, auto cub_call, auto tk_call, auto check) {
      b = tb; CK(cub_call()); b = tb; CK(tk_call()); CK(cudaDeviceSynchronize());
      if (!check()) { std::printf("MISMATCH %s 2^%d\n", name, lg); std::exit(1); }
      const double tc = med([&] { b = tb; (void)cub_call(); }), tt = med([&] { b = tb; (void)tk_call(); });
      std::printf("2^%d %-16s tk %9.2f cub %9.2f speedup %.3f\n", lg, name, tt, tc, tc / tt); std::fflush(stdout);
    };
    auto sel = [&](const char* name, int t) {
      row(name, [&] { return cub::DeviceSelect::If(temp, b, in, o1, c1, n, below{t}); },
          [&] { return tkc::DeviceSelect::If(temp, b, in, o2, c2, n, below{t}); },
          [&] { return same(c1, c2, 1) && same(o1, o2, host_count(c1)); });
    };
    row("scan_int32", [&] { return cub::DeviceScan::InclusiveSum(temp, b, in, o1, n); },
        [&] { return tkc::DeviceScan::InclusiveSum(temp, b, in, o2, n); }, [&] { return same(o1, o2, n); });
    row("scan_int64", [&] { return cub::DeviceScan::InclusiveSum(temp, b, in64, p1, n); },
        [&] { return tkc::DeviceScan::InclusiveSum(temp, b, in64, p2, n); }, [&] { return same(p1, p2, n); });
    row("scan_double", [&] { return cub::DeviceScan::InclusiveSum(temp, b, dbl, (double*)p1, n); },
        [&] { return tkc::DeviceScan::InclusiveSum(temp, b, dbl, (double*)p2, n); }, [&] { return same((double*)p1, (double*)p2, n); });
    sel("select_half", 0);
    sel("select_none", INT_MIN);
    sel("select_all", INT_MAX);
    row("select_flagged", [&] { return cub::DeviceSelect::Flagged(temp, b, in, flags, o1, c1, n); },
        [&] { return tkc::DeviceSelect::Flagged(temp, b, in, flags, o2, c2, n); },
        [&] { return same(c1, c2, 1) && same(o1, o2, host_count(c1)); });
    row("unique", [&] { return cub::DeviceSelect::Unique(temp, b, runs, o1, c1, n); },
        [&] { return tkc::DeviceSelect::Unique(temp, b, runs, o2, c2, n); }, [&] { return same(c1, c2, 1) && same(o1, o2, host_count(c1)); });
    row("partition", [&] { return cub::DevicePartition::If(temp, b, in, o1, c1, n, below{0}); },
        [&] { return tkc::DevicePartition::If(temp, b, in, o2, c2, n, below{0}); }, [&] { return same(c1, c2, 1) && same(o1, o2, n); });
    row("rle", [&] { return cub::DeviceRunLengthEncode::Encode(temp, b, runs, o1, l1, c1, n); },
        [&] { return tkc::DeviceRunLengthEncode::Encode(temp, b, runs, o2, l2, c2, n); },
        [&] { return same(c1, c2, 1) && same(o1, o2, host_count(c1)) && same(l1, l2, host_count(c1)); });
  }
  CK(cudaGetLastError());
  return 0;
}
