// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Focused bench of the 256-bin histogram of uint8 samples (issue 18): tilekit's byte_histogram_kernel counting
// with shared atomics (byte_counters) and with the tensor cores (byte_tensor_counters), against CUB's
// HistogramEven, in one process on the same data: uniform, skewed (75% one value), all equal. L2 flushed
// before each call (timing.cuh: CUDA events, median of 31). Every size is checked first: the three histograms
// equal, bin for bin.
//   hbench hist [log ...]   the A/B (default logs 16 20 22 24 26 28 30)
//   hbench bmma             tensor-core throughput: BMMA.168256 (1-bit), IMMA.16832 (int8) and HMMA.16816
//                           (f16) with 1, 2 and 4 independent accumulators a warp, 32 warps a multiprocessor
//   hbench ncu LOG          the checked calls only, uniform data (under a profiler)
#include <tilekit/device/histogram.cuh>
#include <cub/device/device_histogram.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#ifndef VARIANT
#define VARIANT "base"
#endif
#include "../2026-12-04-h200-argmin-keys/timing.cuh"

template <bool Tensor>
cudaError_t tk_histogram(const unsigned char* in, long long n, int* hist) {
  tilekit::gpu_launcher l{};
  int* const counters[1] = {hist};
  const int bins[1] = {256};
  const tilekit::even_bins<unsigned char, int> binners[1] = {tilekit::even_bins<unsigned char, int>(257, 0, 256)};
  return tilekit::detail::run_byte_histogram<1, 1, false, Tensor>(l, in, n, 1, n, counters, bins, binners,
                                                                  tilekit::detail::stdx::make_index_sequence<1>{});
}

// K independent accumulators a warp, iters rounds: kind 0 BMMA m16n8k256 .b1, 1 IMMA m16n8k32 u8, 2 HMMA m16n8k16 f16.
template <int Kind, int K>
__global__ void mma_loop(int iters, int* sink) {
  unsigned a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = threadIdx.x * 2654435761u + i;
  for (int i = 0; i < 2; ++i) b[i] = threadIdx.x * 40503u + 7 * i;
  int d[K][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if constexpr (Kind == 0)
        asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};"
                     : "+r"(d[k][0]), "+r"(d[k][1]), "+r"(d[k][2]), "+r"(d[k][3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      else if constexpr (Kind == 1)
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};"
                     : "+r"(d[k][0]), "+r"(d[k][1]), "+r"(d[k][2]), "+r"(d[k][3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3},{%4,%5,%6,%7},{%8,%9},{%0,%1,%2,%3};"
                     : "+r"(d[k][0]), "+r"(d[k][1]), "+r"(d[k][2]), "+r"(d[k][3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    a[0] ^= unsigned(it);
  }
  int s = 0;
  for (int k = 0; k < K; ++k) s += d[k][0] + d[k][1] + d[k][2] + d[k][3];
  if (s == 0x12345678) *sink = s;
}

template <int Kind, int K>
void time_mma(const char* name, int sms, int* sink) {
  const int iters = 4096, blocks = sms * 8, threads = 128;  // 32 warps a multiprocessor
  mma_loop<Kind, K><<<blocks, threads>>>(16, sink);
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < 7; ++r) {
    CK(cudaEventRecord(a));
    mma_loop<Kind, K><<<blocks, threads>>>(iters, sink);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1e6);
  }
  std::sort(t.begin(), t.end());
  const double per_sm = double(blocks) * (threads / 32) * iters * K / sms;  // instructions a multiprocessor
  std::printf("mma %-6s chains %d: %9.0f ns, %.4f instr/ns/SM (x 4 subcores: cycles/instr = 4 x GHz / this)\n", name, K, t[3],
              per_sm / t[3]);
  std::fflush(stdout);
}

// Sample i: a hash of i (uniform), 200 for three in four and the hash's byte otherwise (skewed), or 77 (equal).
__global__ void fill(unsigned char* out, long long n, int spread) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long h = (unsigned long long)i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull * (spread + 1);
    h ^= h >> 29, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 32;
    out[i] = spread == 2 ? 77 : spread == 1 && h % 4 != 0 ? 200 : (unsigned char)(h >> 40);
  }
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "hist";
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (mode == "bmma") {
    int* sink;
    CK(cudaMalloc(&sink, 4));
    time_mma<0, 1>("bmma", sms, sink);
    time_mma<0, 2>("bmma", sms, sink);
    time_mma<0, 4>("bmma", sms, sink);
    time_mma<1, 1>("imma8", sms, sink);
    time_mma<1, 4>("imma8", sms, sink);
    time_mma<2, 1>("hmma16", sms, sink);
    time_mma<2, 4>("hmma16", sms, sink);
    return 0;
  }
  CK(cudaMalloc(&flushbuf, flushbytes));
  std::vector<int> logs = {16, 20, 22, 24, 26, 28, 30};
  if (mode == "ncu") logs = {argc > 2 ? std::atoi(argv[2]) : 28};
  else if (argc > 2) {
    logs.clear();
    for (int i = 2; i < argc; ++i) logs.push_back(std::atoi(argv[i]));
  }
  const long long maxn = 1ll << *std::max_element(logs.begin(), logs.end());
  unsigned char* u8;
  int* hist;
  CK(cudaMalloc(&u8, 2 * maxn));
  CK(cudaMalloc(&hist, 3 * 256 * 4));
  void* temp;
  size_t tb = 1 << 20;
  CK(cudaMalloc(&temp, tb));
  std::printf("%-8s %-8s %4s | %9s %9s %9s | %7s %7s | %6s %6s\n", "var", "data", "log", "cub_us", "tk_atom", "tk_tensor", "r_atom", "r_tens",
              "GB/s_t", "GB/s_a");
  for (int spread = 0; spread < 3; ++spread) {
    if (mode == "ncu" && spread > 0) break;
    fill<<<4 * sms, 256>>>(u8, 2 * maxn, spread);
    CK(cudaDeviceSynchronize());
    const char* data = spread == 0 ? "uniform" : spread == 1 ? "skewed" : "equal";
    for (int lg : logs) {
      const long long n = 1ll << lg;
      for (long long off : {0ll, 5ll}) {  // 16-byte aligned, and not (the item-by-item ends)
        std::vector<int> ha(256), hb(256), hc(256);
        size_t b = tb;
        CK(cub::DeviceHistogram::HistogramEven(temp, b, u8 + off, hist, 257, 0, 256, n - off));
        CK(tk_histogram<false>(u8 + off, n - off, hist + 256));
        CK(tk_histogram<true>(u8 + off, n - off, hist + 512));
        CK(cudaMemcpy(ha.data(), hist, 1024, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hb.data(), hist + 256, 1024, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hc.data(), hist + 512, 1024, cudaMemcpyDeviceToHost));
        if (ha != hb || ha != hc) {
          int bad_b = 0, bad_c = 0;
          for (int i = 0; i < 256; ++i) bad_b += ha[i] != hb[i], bad_c += ha[i] != hc[i];
          std::printf("MISMATCH %s n=2^%d off=%lld: atomics %d bins, tensor %d bins (bin 0: cub %d atom %d tensor %d)\n", data, lg, off, bad_b,
                      bad_c, ha[0], hb[0], hc[0]);
          return 1;
        }
      }
      if (mode == "ncu") continue;
      const double cub_us = med([&](int o) { size_t bb = tb; cub::DeviceHistogram::HistogramEven(temp, bb, u8 + o * maxn, hist, 257, 0, 256, n); }, false);
      const double atom_us = med([&](int o) { tk_histogram<false>(u8 + o * maxn, n, hist); }, false);
      const double tens_us = med([&](int o) { tk_histogram<true>(u8 + o * maxn, n, hist); }, false);
      std::printf("%-8s %-8s %4d | %9.2f %9.2f %9.2f | %7.3f %7.3f | %6.0f %6.0f\n", VARIANT, data, lg, cub_us, atom_us, tens_us, cub_us / atom_us,
                  cub_us / tens_us, n / tens_us / 1e3, n / atom_us / 1e3);
      std::fflush(stdout);
    }
  }
  CK(cudaGetLastError());
  return 0;
}
