// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// focused segmented bench: tilekit's facade vs CUB, DeviceSegmentedReduce Max / ArgMin / ArgMax over segments of
// L int32 (and ArgMin of float), L2 flushed, events, median of 31; results checked against CUB first.
#include <tilekit/cub.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#ifndef VARIANT
#define VARIANT "base"
#endif
#include "timing.cuh"
int main() {
  CK(cudaMalloc(&flushbuf, flushbytes));
  const long long maxn = 1ll << 24;
  int* in; float* fin; long long* offsets; unsigned char *o1, *o2;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&fin, maxn * 4)); CK(cudaMalloc(&offsets, (maxn + 1) * 8));
  CK(cudaMalloc(&o1, maxn * 8)); CK(cudaMalloc(&o2, maxn * 8));
  { std::vector<int> h(maxn); std::vector<float> f(maxn); unsigned long long st = 9;
    for (long long i = 0; i < maxn; ++i) { st = st * 6364136223846793005ull + 1442695040888963407ull; h[i] = int((st >> 33) % 2001) - 1000; f[i] = float(h[i]) / 3.f; }
    CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(fin, f.data(), maxn * 4, cudaMemcpyHostToDevice)); }
  void* temp; size_t tb = 64u << 20; CK(cudaMalloc(&temp, tb));
  std::printf("%-6s %5s %4s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s | %8s %8s %6s\n", "var", "len", "log", "tk_max", "cub", "ratio",
              "tk_amin", "cub", "ratio", "tk_amax", "cub", "ratio", "tk_aminf", "cub", "ratio");
  for (int len : {1024, 64}) for (int lg : {16, 20, 24}) {
    const long long n = 1ll << lg, segs = n / len;
    { std::vector<long long> h(segs + 1); for (long long s = 0; s <= segs; ++s) h[s] = s * len; CK(cudaMemcpy(offsets, h.data(), (segs + 1) * 8, cudaMemcpyHostToDevice)); }
    double t[8];
    for (int k = 0; k < 4; ++k) {
      auto call = [&](int impl, unsigned char* out) {
        size_t b = tb;
        using tkp = tilekit::cub::KeyValuePair<int, int>; using cp = cub::KeyValuePair<int, int>;
        using tkf = tilekit::cub::KeyValuePair<int, float>; using cf = cub::KeyValuePair<int, float>;
        if (impl == 0) {
          if (k == 0) CK(tilekit::cub::DeviceSegmentedReduce::Max(temp, b, in, (int*)out, segs, offsets, offsets + 1));
          if (k == 1) CK(tilekit::cub::DeviceSegmentedReduce::ArgMin(temp, b, in, (tkp*)out, segs, offsets, offsets + 1));
          if (k == 2) CK(tilekit::cub::DeviceSegmentedReduce::ArgMax(temp, b, in, (tkp*)out, segs, offsets, offsets + 1));
          if (k == 3) CK(tilekit::cub::DeviceSegmentedReduce::ArgMin(temp, b, fin, (tkf*)out, segs, offsets, offsets + 1));
        } else {
          if (k == 0) CK(cub::DeviceSegmentedReduce::Max(temp, b, in, (int*)out, segs, offsets, offsets + 1));
          if (k == 1) CK(cub::DeviceSegmentedReduce::ArgMin(temp, b, in, (cp*)out, segs, offsets, offsets + 1));
          if (k == 2) CK(cub::DeviceSegmentedReduce::ArgMax(temp, b, in, (cp*)out, segs, offsets, offsets + 1));
          if (k == 3) CK(cub::DeviceSegmentedReduce::ArgMin(temp, b, fin, (cf*)out, segs, offsets, offsets + 1));
        }
      };
      const size_t bytes = segs * (k == 0 ? 4 : 8);
      CK(cudaMemset(o1, 0xAB, bytes)); CK(cudaMemset(o2, 0xCD, bytes));
      call(0, o1); call(1, o2); CK(cudaDeviceSynchronize());
      std::vector<unsigned char> h1(bytes), h2(bytes);
      CK(cudaMemcpy(h1.data(), o1, bytes, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(h2.data(), o2, bytes, cudaMemcpyDeviceToHost));
      if (h1 != h2) { std::printf("MISMATCH k=%d len=%d n=2^%d\n", k, len, lg); return 1; }
      t[2 * k] = med([&](int) { call(0, o1); }, false);
      t[2 * k + 1] = med([&](int) { call(1, o1); }, false);
    }
    std::printf("%-6s %5d %4d | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f | %8.2f %8.2f %6.3f\n", VARIANT, len, lg,
                t[0], t[1], t[1] / t[0], t[2], t[3], t[3] / t[2], t[4], t[5], t[5] / t[4], t[6], t[7], t[7] / t[6]);
    std::fflush(stdout);
  }
  CK(cudaGetLastError());
  return 0;
}
