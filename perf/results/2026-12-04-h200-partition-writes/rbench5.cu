// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// focused scan bench: tilekit vs CUB inclusive sums of int32 and int64, L2 flushed, events, median of 31.
#include <tilekit/device/scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cstring>
#ifndef VARIANT
#define VARIANT "base"
#endif
#include "../2026-12-04-h200-argmin-keys/timing.cuh"
int main() {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 1ll << 28;
  long long *in, *out;
  CK(cudaMalloc(&in, 2 * maxn * 8)); CK(cudaMalloc(&out, maxn * 8 + 64));
  unsigned long long st = 7; auto g = [&st] { st = st * 6364136223846793005ull + 1442695040888963407ull; return unsigned(st >> 33); };
  { std::vector<long long> h(2 * maxn); for (auto& x : h) x = (long long)(g() % 2001) - 1000; CK(cudaMemcpy(in, h.data(), 2 * maxn * 8, cudaMemcpyHostToDevice)); }
  int* in32 = reinterpret_cast<int*>(in); int* out32 = reinterpret_cast<int*>(out);
  void* temp; size_t tb = 64u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("%-8s %4s | %8s %8s %6s | %8s %8s %6s\n", "var", "log", "tk_i32", "cub_i32", "ratio", "tk_i64", "cub_i64", "ratio");
  for (int lg : {20, 22, 24, 26, 28}) {
    const long long n = 1ll << lg;
    for (int w = 0; w < 2; ++w) {  // check: int32, int64
      std::vector<char> a(n * 8), b(n * 8); size_t bytes = (w ? 8 : 4) * n;
      size_t x = tb;
      if (w == 0) CK(cub::DeviceScan::InclusiveSum(temp, x, in32, out32, int(n))); else CK(cub::DeviceScan::InclusiveSum(temp, x, in, out, int(n)));
      CK(cudaMemcpy(a.data(), out, bytes, cudaMemcpyDeviceToHost)); CK(cudaMemset(out, 0xff, bytes)); x = tb;
      if (w == 0) CK(tilekit::device::inclusive_scan(temp, x, in32, n, out32, tilekit::plus{})); else CK(tilekit::device::inclusive_scan(temp, x, in, n, out, tilekit::plus{}));
      CK(cudaMemcpy(b.data(), out, bytes, cudaMemcpyDeviceToHost));
      if (std::memcmp(a.data(), b.data(), bytes) != 0) { std::printf("MISMATCH scan w=%d 2^%d\n", w, lg); return 1; }
    }
    const double t32 = med([&](int o) { size_t x = tb; tilekit::device::inclusive_scan(temp, x, in32 + o * 2 * maxn, n, out32, tilekit::plus{}); }, false);
    const double c32 = med([&](int o) { size_t x = tb; cub::DeviceScan::InclusiveSum(temp, x, in32 + o * 2 * maxn, out32, int(n)); }, false);
    const double t64 = med([&](int o) { size_t x = tb; tilekit::device::inclusive_scan(temp, x, in + o * maxn, n, out, tilekit::plus{}); }, false);
    const double c64 = med([&](int o) { size_t x = tb; cub::DeviceScan::InclusiveSum(temp, x, in + o * maxn, out, int(n)); }, false);
    std::printf("%-8s %4d | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f\n", VARIANT, lg, t32, c32, c32 / t32, t64, c64, c64 / t64);
  }
  return 0;
}
