// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb17: back-to-back device reduces (no L2 flush between them), where the host's cost a call shows: 2000 calls
// issued on one stream, timed by CUDA events around them and by the host clock around the issuing; old (6ef67a8)
// and new (the non-portable cluster size set once a device) interleaved with CUB 3.0.1 (the toolkit's), 5 rounds,
// medians; us a call. int32 sums, checked against a host sum (seed 5).
#include <cuda_runtime.h>
#include <cub/device/device_reduce.cuh>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); std::exit(1);} } while (0)
cudaError_t old_sum(void*, size_t&, const int*, long long, int*, cudaStream_t);
cudaError_t new_sum(void*, size_t&, const int*, long long, int*, cudaStream_t);
int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs; seed 5; us a call: gpu (events around 2000 calls) and host (issuing them); medians of 5 rounds\n", p.name, p.multiProcessorCount);
  const long long maxn = 1 << 19;
  std::vector<int> h(maxn); unsigned st = 5;
  for (long long i = 0; i < maxn; ++i) { st = st * 1664525u + 1013904223u; h[i] = int(st >> 12) % 1000; }
  int *in, *out; void* temp; size_t tb = 16 << 20;
  CK(cudaMalloc(&in, maxn * 4)); CK(cudaMalloc(&out, 64)); CK(cudaMalloc(&temp, tb));
  CK(cudaMemcpy(in, h.data(), maxn * 4, cudaMemcpyHostToDevice));
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  const int calls = 2000;
  for (long long n : {1ll << 16, 1ll << 17, (1ll << 17) + 4096, 3ll << 16, 1ll << 18, (1ll << 18) + 64}) {
    long long want = 0; for (long long i = 0; i < n; ++i) want += h[i];
    std::vector<double> gpu[3], host[3];
    for (int round = 0; round < 5; ++round)
      for (int side = 0; side < 3; ++side) {
        auto call = [&] { size_t bb = tb;
          if (side == 2) return cub::DeviceReduce::Sum(temp, bb, in, out, n, s);
          return side ? new_sum(temp, bb, in, n, out, s) : old_sum(temp, bb, in, n, out, s); };
        CK(cudaMemsetAsync(out, 0xff, 64, s)); CK(call()); CK(cudaStreamSynchronize(s));
        int g; CK(cudaMemcpy(&g, out, 4, cudaMemcpyDeviceToHost));
        if (g != int(want)) { std::printf("MISMATCH n %lld side %d\n", n, side); return 1; }
        for (int w = 0; w < 50; ++w) CK(call());
        CK(cudaEventRecord(a, s));
        const auto t0 = std::chrono::steady_clock::now();
        for (int c = 0; c < calls; ++c) CK(call());
        const auto t1 = std::chrono::steady_clock::now();
        CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
        float ms; CK(cudaEventElapsedTime(&ms, a, b));
        gpu[side].push_back(ms * 1e3 / calls);
        host[side].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
      }
    for (int k = 0; k < 3; ++k) { std::sort(gpu[k].begin(), gpu[k].end()); std::sort(host[k].begin(), host[k].end()); }
    std::printf("n %7lld  old gpu %5.2f host %5.2f  new gpu %5.2f host %5.2f  cub gpu %5.2f host %5.2f  new/old gpu %5.3f host %5.3f\n", n,
                gpu[0][2], host[0][2], gpu[1][2], host[1][2], gpu[2][2], host[2][2], gpu[1][2] / gpu[0][2], host[1][2] / host[0][2]);
    std::fflush(stdout);
  }
  return 0;
}
