// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// distinct timing with the fused kernel's phase stamps: dphase LOG2N PERCENT REPS
#include <tilekit/device/distinct.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)
__host__ __device__ unsigned mix32h(unsigned x) { x ^= x >> 16; x *= 0x85EBCA6Bu; x ^= x >> 13; x *= 0xC2B2AE35u; return x ^ (x >> 16); }
__host__ __device__ unsigned long long permute(unsigned long long i, unsigned long long n) {
  const unsigned long long mask = n - 1; int bits = 0; while ((1ull << bits) < n) ++bits;
  const int shift = bits / 2 > 0 ? bits / 2 : 1;
  unsigned long long x = (i * 0x9E3779B97F4A7C15ull) & mask; x ^= x >> shift;
  x = (x * 0xBF58476D1CE4E5B9ull) & mask; return x ^ (x >> shift);
}
__global__ void fill(int* in, unsigned long long n, unsigned long long distinct) {
  for (unsigned long long i = blockIdx.x * 256ull + threadIdx.x; i < n; i += gridDim.x * 256ull) in[i] = int(mix32h(unsigned(permute(i, n) % distinct)));
}
__global__ void checksum(const int* out, long long n, unsigned long long* sum) {
  unsigned long long s = 0;
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += gridDim.x * 256ll) s += (unsigned long long)(unsigned)out[i] * (unsigned long long)(i + 1);
  atomicAdd(sum, s);
}
int main(int argc, char** argv) {
  const int lg = std::atoi(argv[1]), pct = std::atoi(argv[2]), reps = std::atoi(argv[3]);
  const unsigned long long n = 1ull << lg, distinct = std::max(1ull, n * pct / 100);
  int *in, *out; long long* num; unsigned long long* sum; char* flush;
  CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&num, 8)); CK(cudaMalloc(&sum, 8));
  const size_t flush_bytes = 256 << 20; CK(cudaMalloc(&flush, flush_bytes));
  fill<<<1024, 256>>>(in, n, distinct); CK(cudaGetLastError());
  size_t tb = 0; CK(tilekit::device::distinct(nullptr, tb, in, (long long)n, out, num)); void* temp; CK(cudaMalloc(&temp, tb));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> ms;
  std::vector<double> ph[6];
  for (int r = 0; r < reps + 1; ++r) {
    unsigned long long init[8] = {~0ull, 0, 0, 0, 0, 0, 0, 0};
    CK(cudaMemcpyToSymbol(tilekit::detail::tilekit_phase_stamps, init, sizeof init));
    CK(cudaMemsetAsync(out, 0xA5, n * 4)); CK(cudaMemsetAsync(flush, r, flush_bytes));
    CK(cudaEventRecord(a)); CK(tilekit::device::distinct(temp, tb, in, (long long)n, out, num)); CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b)); float t; CK(cudaEventElapsedTime(&t, a, b));
    unsigned long long s[8]; CK(cudaMemcpyFromSymbol(s, tilekit::detail::tilekit_phase_stamps, sizeof s));
    if (r > 0) {
      ms.push_back(t);
      for (int k = 1; k <= 5; ++k) ph[k - 1].push_back((s[k] - s[k - 1]) / 1000.0);
      ph[5].push_back((s[5] - s[0]) / 1000.0);
    }
  }
  long long got = 0; CK(cudaMemcpy(&got, num, 8, cudaMemcpyDeviceToHost));
  CK(cudaMemset(sum, 0, 8)); checksum<<<1024, 256>>>(out, got, sum); unsigned long long cs = 0; CK(cudaMemcpy(&cs, sum, 8, cudaMemcpyDeviceToHost));
  std::sort(ms.begin(), ms.end());
  for (auto& v : ph) std::sort(v.begin(), v.end());
  auto med = [](const std::vector<double>& v) { return v.empty() ? 0.0 : v[v.size() / 2]; };
  std::printf("%s 2^%d %d%%: count %lld (want %llu) %s checksum %016llx median %.1f us | zero %.2f insert %.2f mark %.2f count %.2f gather %.2f kernel %.2f\n",
              argv[0], lg, pct, got, distinct, (unsigned long long)got == distinct ? "OK" : "WRONG", cs, ms.empty() ? 0.0 : 1000 * ms[ms.size() / 2],
              med(ph[0]), med(ph[1]), med(ph[2]), med(ph[3]), med(ph[4]), med(ph[5]));
  return (unsigned long long)got == distinct ? 0 : 1;
}
