// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// distinct timing / profiling driver: dprof LOG2N PERCENT REPS [prof]
#include <tilekit/device/distinct.cuh>
#include <cuda_profiler_api.h>
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
  const bool prof = argc > 4;
  const unsigned long long n = 1ull << lg, distinct = std::max(1ull, n * pct / 100);
  int *in, *out; long long* num; unsigned long long* sum; char* flush;
  CK(cudaMalloc(&in, n * 4)); CK(cudaMalloc(&out, n * 4)); CK(cudaMalloc(&num, 8)); CK(cudaMalloc(&sum, 8));
  const size_t flush_bytes = 256 << 20; CK(cudaMalloc(&flush, flush_bytes));
  fill<<<1024, 256>>>(in, n, distinct); CK(cudaGetLastError());
  size_t tb = 0; CK(tilekit::device::distinct(nullptr, tb, in, (long long)n, out, num)); void* temp; CK(cudaMalloc(&temp, tb));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int r = 0; r < (prof ? 1 : reps + 1); ++r) {
    CK(cudaMemsetAsync(out, 0xA5, n * 4)); CK(cudaMemsetAsync(flush, r, flush_bytes));
    CK(cudaEventRecord(a)); CK(tilekit::device::distinct(temp, tb, in, (long long)n, out, num)); CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b)); float t; CK(cudaEventElapsedTime(&t, a, b)); if (r > 0) ms.push_back(t);
  }
  if (prof) { CK(cudaMemsetAsync(flush, 1, flush_bytes)); CK(cudaDeviceSynchronize()); cudaProfilerStart(); CK(tilekit::device::distinct(temp, tb, in, (long long)n, out, num)); CK(cudaDeviceSynchronize()); cudaProfilerStop(); }
  long long got = 0; CK(cudaMemcpy(&got, num, 8, cudaMemcpyDeviceToHost));
  CK(cudaMemset(sum, 0, 8)); checksum<<<1024, 256>>>(out, got, sum); unsigned long long cs = 0; CK(cudaMemcpy(&cs, sum, 8, cudaMemcpyDeviceToHost));
  std::sort(ms.begin(), ms.end());
  std::printf("%s 2^%d %d%%: count %lld (want %llu) %s checksum %016llx median %.1f us min %.1f\n", argv[0], lg, pct, got, distinct,
              (unsigned long long)got == distinct ? "OK" : "WRONG", cs, ms.empty() ? 0.0 : 1000 * ms[ms.size() / 2], ms.empty() ? 0.0 : 1000 * ms[0]);
  return (unsigned long long)got == distinct ? 0 : 1;
}
