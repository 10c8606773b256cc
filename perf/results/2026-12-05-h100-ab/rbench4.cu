// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// focused partition / distinct bench: tilekit vs CUB, L2 flushed, events, median of 31.
//   rbench4                 partition (about half kept) at 2^20, 2^24, 2^28, checked against CUB first
//   rbench4 ncu LOG         one checked partition call each (for Nsight Compute)
//   rbench4 distinct LOG P [once]  distinct over keys with about P% distinct: its time (once: one call, for Nsight Compute)
#include <tilekit/device/select.cuh>
#include <tilekit/device/distinct.cuh>
#include <cub/device/device_partition.cuh>
#include <cstring>
#include <string>
#ifndef VARIANT
#define VARIANT "base"
#endif
#include "../2026-12-04-h200-argmin-keys/timing.cuh"  // (built with .devscripts/src/timing.cuh, the same file)
struct below_zero { __host__ __device__ bool operator()(int x) const { return x < 0; } };
struct below_m { __host__ __device__ bool operator()(int x) const { return x < -500000; } };
struct above_m { __host__ __device__ bool operator()(int x) const { return x > 500000; } };
struct any_item { __host__ __device__ bool operator()(int) const { return true; } };
int main(int argc, char** argv) {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 1ll << 28;
  int *in, *out, *num;
  CK(cudaMalloc(&in, 2 * maxn * 4)); CK(cudaMalloc(&out, 3 * maxn * 4 + 64)); CK(cudaMalloc(&num, 64));
  unsigned long long st = 7; auto g = [&st] { st = st * 6364136223846793005ull + 1442695040888963407ull; return unsigned(st >> 33); };
  const std::string mode = argc > 1 ? argv[1] : "time";
  if (mode == "distinct") {
    const long long n = 1ll << std::atoi(argv[2]); const long long pct = std::atoll(argv[3]);
    const unsigned long long d = std::max(1ll, n * pct / 100);
    std::vector<int> h(n); for (auto& x : h) { unsigned k = unsigned(((unsigned long long)g() << 16 ^ g()) % d); k ^= k >> 16; k *= 0x7feb352d; k ^= k >> 15; k *= 0x846ca68b; k ^= k >> 16; x = int(k); }
    CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
    long long* cnt; CK(cudaMalloc(&cnt, 8));
    size_t tb = 0; CK(tilekit::device::distinct(nullptr, tb, in, n, out, cnt)); void* temp; CK(cudaMalloc(&temp, tb));
    CK(tilekit::device::distinct(temp, tb, in, n, out, cnt)); CK(cudaDeviceSynchronize());
    long long c = 0; CK(cudaMemcpy(&c, cnt, 8, cudaMemcpyDeviceToHost));
    if (argc > 4) { std::printf("distinct 2^%s %lld%%: %lld keys\n", argv[2], pct, c); return 0; }  // once (a profiler)
    const double t = med([&](int) { size_t b = tb; tilekit::device::distinct(temp, b, in, n, out, cnt); }, false);
    std::printf("distinct 2^%s %lld%%: %lld keys, %.1f us, temp %zu MB\n", argv[2], pct, c, t, tb >> 20);
    return 0;
  }
  { std::vector<int> h(2 * maxn); for (auto& x : h) x = int(g() % 2000001) - 1000000; CK(cudaMemcpy(in, h.data(), 2 * maxn * 4, cudaMemcpyHostToDevice)); }
  void* temp; size_t tb = 64u << 20; CK(cudaMalloc(&temp, tb));
  std::vector<int> logs = {20, 24, 28};
  if (mode == "ncu") logs = {std::atoi(argv[2])};
  std::printf("%-8s %4s | %8s %8s %6s | %8s %8s | %8s %8s %6s\n", "var", "log", "tk_part", "cub_part", "ratio", "tk_selh", "tk_sela", "tk_p3", "cub_p3", "ratio");
  for (int lg : logs) {
    const long long n = 1ll << lg;
    std::vector<int> a(n), b(n); int ca = -1, cb = -2;
    size_t bb = tb; CK(cub::DevicePartition::If(temp, bb, in, out, num, int(n), below_zero{})); CK(cudaMemcpy(a.data(), out, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&ca, num, 4, cudaMemcpyDeviceToHost));
    CK(cudaMemset(out, 0xff, n * 4));
    bb = tb; CK(tilekit::device::partition(temp, bb, in, n, out, num, below_zero{})); CK(cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&cb, num, 4, cudaMemcpyDeviceToHost));
#if !defined(HACK_FWDWARP) && !defined(HACK_FWDALL)
    if (a != b || ca != cb) { std::printf("MISMATCH partition 2^%d\n", lg); return 1; }
#endif
    {  // three-way: first / second / rest in out, out + n, out + 2n (and the counts in num)
      std::vector<int> c3(3 * n), d3(3 * n); int cn[2], dn[2];
      size_t x = tb; CK(cub::DevicePartition::If(temp, x, in, out, out + n, out + 2 * n, num, int(n), below_m{}, above_m{}));
      CK(cudaMemcpy(c3.data(), out, 3 * n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(cn, num, 8, cudaMemcpyDeviceToHost));
      CK(cudaMemset(out, 0xff, 3 * n * 4)); x = tb;
      CK(tilekit::device::partition_three_way(temp, x, in, n, out, out + n, out + 2 * n, num, below_m{}, above_m{}));
      CK(cudaMemcpy(d3.data(), out, 3 * n * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(dn, num, 8, cudaMemcpyDeviceToHost));
      const long long rest = n - cn[0] - cn[1];
      if (cn[0] != dn[0] || cn[1] != dn[1] || !std::equal(c3.begin(), c3.begin() + cn[0], d3.begin()) ||
          !std::equal(c3.begin() + n, c3.begin() + n + cn[1], d3.begin() + n) || !std::equal(c3.begin() + 2 * n, c3.begin() + 2 * n + rest, d3.begin() + 2 * n)) {
        std::printf("MISMATCH partition3 2^%d\n", lg); return 1; }
    }
    if (mode == "ncu") continue;
    const double t = med([&](int o) { size_t x = tb; tilekit::device::partition(temp, x, in + o * maxn, n, out, num, below_zero{}); }, false);
    const double c = med([&](int o) { size_t x = tb; cub::DevicePartition::If(temp, x, in + o * maxn, out, num, int(n), below_zero{}); }, false);
    const double h = med([&](int o) { size_t x = tb; tilekit::device::select_if(temp, x, in + o * maxn, n, out, num, below_zero{}); }, false);
    const double a2 = med([&](int o) { size_t x = tb; tilekit::device::select_if(temp, x, in + o * maxn, n, out, num, any_item{}); }, false);
    const double t3 = med([&](int o) { size_t x = tb; tilekit::device::partition_three_way(temp, x, in + o * maxn, n, out, out + n, out + 2 * n, num, below_m{}, above_m{}); }, false);
    const double c3 = med([&](int o) { size_t x = tb; cub::DevicePartition::If(temp, x, in + o * maxn, out, out + n, out + 2 * n, num, int(n), below_m{}, above_m{}); }, false);
    std::printf("%-8s %4d | %8.2f %8.2f %6.3f | %8.2f %8.2f | %8.2f %8.2f %6.3f\n", VARIANT, lg, t, c, c / t, h, a2, t3, c3, c3 / t3);
  }
  return 0;
}
