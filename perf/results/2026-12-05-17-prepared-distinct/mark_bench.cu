// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How fast can first occurrences be marked at random positions? markbench LOG2N [REPS]
// Each kernel marks every index of a random permutation of [0, n) once (as distinct's mark
// pass and piece_dedup do at 100% distinct keys): RED.OR / RED.ADD of a bit in an n-bit map
// (plain, and with the evict_last L2 policy piece_dedup uses), a byte store in an n-byte map,
// and, for scale, a sequential write of the bitmap. L2 flushed before each run; median.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)
__device__ __forceinline__ unsigned long long permute(unsigned long long i, unsigned long long n, int bits) {
  const unsigned long long mask = n - 1;
  const int shift = bits / 2 > 0 ? bits / 2 : 1;
  unsigned long long x = (i * 0x9E3779B97F4A7C15ull) & mask;
  x ^= x >> shift;
  x = (x * 0xBF58476D1CE4E5B9ull) & mask;
  return x ^ (x >> shift);
}
template <int Kind>
__global__ void mark(unsigned* bits, unsigned char* bytes, unsigned long long n, int lg) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned long long p = permute(i, n, lg);
    if (Kind == 0) atomicOr(bits + (p >> 5), 1u << (p & 31));
    if (Kind == 1) atomicAdd(bits + (p >> 5), 1u << (p & 31));
    if (Kind == 2) {
      unsigned long long policy;
      asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
      asm volatile("red.global.or.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(bits + (p >> 5)), "r"(1u << (p & 31)), "l"(policy) : "memory");
    }
    if (Kind == 3) bytes[p] = 1;
    if (Kind == 4 && (i & 31) == 0) bits[i >> 5] = ~0u;  // sequential: the bitmap's bytes written once
  }
}
int main(int argc, char** argv) {
  const int lg = std::atoi(argv[1]), reps = argc > 2 ? std::atoi(argv[2]) : 7;
  const unsigned long long n = 1ull << lg;
  unsigned* bits; unsigned char* bytes; char* flush;
  CK(cudaMalloc(&bits, n / 8 + 4)); CK(cudaMalloc(&bytes, n)); CK(cudaMalloc(&flush, 256 << 20));
  int sms = 0; CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  const char* names[] = {"red.or bit", "red.add bit", "red.or bit evict_last", "st.u8 byte", "sequential bitmap"};
  for (int kind = 0; kind < 5; ++kind) {
    std::vector<float> ms;
    for (int r = 0; r <= reps; ++r) {
      CK(cudaMemset(bits, 0, n / 8 + 4)); CK(cudaMemset(bytes, 0, n)); CK(cudaMemset(flush, r, 256 << 20));
      const unsigned grid = unsigned(std::min<unsigned long long>((n + 255) / 256, (unsigned long long)sms * 8));
      CK(cudaEventRecord(a));
      switch (kind) {
        case 0: mark<0><<<grid, 256>>>(bits, bytes, n, lg); break;
        case 1: mark<1><<<grid, 256>>>(bits, bytes, n, lg); break;
        case 2: mark<2><<<grid, 256>>>(bits, bytes, n, lg); break;
        case 3: mark<3><<<grid, 256>>>(bits, bytes, n, lg); break;
        default: mark<4><<<grid, 256>>>(bits, bytes, n, lg); break;
      }
      CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
      float t; CK(cudaEventElapsedTime(&t, a, b)); if (r > 0) ms.push_back(t);
    }
    // check: every bit (byte) set exactly once
    std::vector<unsigned> hb(n / 32); std::vector<unsigned char> hc(kind == 3 ? n : 0);
    bool ok = true;
    if (kind == 3) { CK(cudaMemcpy(hc.data(), bytes, n, cudaMemcpyDeviceToHost)); for (auto c : hc) ok = ok && c == 1; }
    else { CK(cudaMemcpy(hb.data(), bits, n / 8, cudaMemcpyDeviceToHost)); for (auto w : hb) ok = ok && w == ~0u; }
    std::sort(ms.begin(), ms.end());
    const double us = 1000.0 * ms[ms.size() / 2];
    std::printf("2^%d %-24s %10.1f us %8.1f G marks/s %s\n", lg, names[kind], us, n / us / 1000.0, ok ? "OK" : "WRONG");
  }
  return 0;
}
