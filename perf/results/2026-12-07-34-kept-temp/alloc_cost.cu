// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the allocating forms' storage costs around one launch (L2 not involved): the host time of
// each CUDA call (medians of 2000, chrono), and the event-timed GPU view of a small kernel alone,
// after cudaMallocFromPoolAsync (freed after it), after an event query, and after the pool lookup.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void touch(unsigned long long* p, int n) {
  if (threadIdx.x < n && p) p[threadIdx.x] += 1;
}

template <class F>
double host_us(F f, int reps = 2000) {
  std::vector<double> t(reps);
  for (int i = 0; i < reps; ++i) {
    auto a = std::chrono::steady_clock::now();
    f();
    auto b = std::chrono::steady_clock::now();
    t[i] = std::chrono::duration<double, std::micro>(b - a).count();
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  return t[reps / 2];
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaMemPool_t pool;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  CHECK(cudaMemPoolCreate(&pool, &props));
  unsigned long long keep = 64ull << 20;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  unsigned long long* fixed;
  CHECK(cudaMalloc(&fixed, 1 << 20));
  cudaEvent_t done, e0, e1;
  CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventRecord(done, s));
  const std::size_t bytes = 17000;
  // Host costs, each call alone (the stream idle between reps).
  int dev;
  std::printf("host us: cudaGetDevice %.3f\n", host_us([&] { cudaGetDevice(&dev); }));
  cudaStreamCaptureStatus cs;
  std::printf("host us: cudaStreamIsCapturing %.3f\n", host_us([&] { cudaStreamIsCapturing(s, &cs); }));
  std::printf("host us: cudaEventQuery (complete) %.3f\n", host_us([&] { cudaEventQuery(done); }));
  std::printf("host us: cudaEventRecord %.3f\n", host_us([&] { cudaEventRecord(done, s); }));
  CHECK(cudaStreamSynchronize(s));
  std::printf("host us: launch %.3f\n", host_us([&] { touch<<<1, 32, 0, s>>>(fixed, 1); }));
  CHECK(cudaStreamSynchronize(s));
  std::printf("host us: MallocFromPoolAsync+FreeAsync %.3f\n", host_us([&] {
    void* p; cudaMallocFromPoolAsync(&p, bytes, pool, s); cudaFreeAsync(p, s); }));
  CHECK(cudaStreamSynchronize(s));
  {
    void* p;
    std::printf("host us: MallocFromPoolAsync alone %.3f\n", host_us([&] { cudaMallocFromPoolAsync(&p, bytes, pool, s); }, 200));
    CHECK(cudaStreamSynchronize(s));
  }
  std::printf("host us: MallocAsync(default pool)+FreeAsync %.3f\n", host_us([&] {
    void* p; cudaMallocAsync(&p, bytes, s); cudaFreeAsync(p, s); }));
  CHECK(cudaStreamSynchronize(s));
  // GPU view: events around each form, the stream idle before (synchronised), medians of 500.
  auto gpu_us = [&](auto body) {
    std::vector<float> t(500);
    for (auto& x : t) {
      cudaStreamSynchronize(s);
      cudaEventRecord(e0, s);
      body();
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&x, e0, e1);
    }
    std::nth_element(t.begin(), t.begin() + 250, t.end());
    return 1000.0 * t[250];
  };
  std::printf("gpu us: kernel alone %.3f\n", gpu_us([&] { touch<<<1, 32, 0, s>>>(fixed, 1); }));
  std::printf("gpu us: pool malloc, kernel, free %.3f\n", gpu_us([&] {
    void* p; cudaMallocFromPoolAsync(&p, bytes, pool, s); touch<<<1, 32, 0, s>>>(static_cast<unsigned long long*>(p), 0); cudaFreeAsync(p, s); }));
  std::printf("gpu us: event query, kernel, event record %.3f\n", gpu_us([&] {
    cudaEventQuery(done); touch<<<1, 32, 0, s>>>(fixed, 1); cudaEventRecord(done, s); }));
  std::printf("gpu us: getdevice+capturing, kernel %.3f\n", gpu_us([&] {
    cudaGetDevice(&dev); cudaStreamIsCapturing(s, &cs); touch<<<1, 32, 0, s>>>(fixed, 1); }));
  CHECK(cudaGetLastError());
  return 0;
}
