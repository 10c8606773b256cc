// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the benchmark programs share: error checks, the SM count, timing one launch
// with CUDA events for Google Benchmark's manual time, the L2 flush and the limits.
#pragma once
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(call)                                                                                       \
  do {                                                                                                    \
    cudaError_t e_ = (call);                                                                              \
    if (e_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));         \
      std::exit(1);                                                                                       \
    }                                                                                                     \
  } while (0)

namespace bench {

inline int sm_count() {
  static const int sms = [] {
    int dev = 0, n = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  return sms;
}

/// Times launch() with CUDA events once per benchmark iteration (after one
/// warm-up launch) and reports ops_per_launch as the rate counter "Gops";
/// prepare() runs before each timed launch, outside the timing (e.g. an L2 flush).
template <class Launch, class Prepare = void (*)()>
void time_kernel(benchmark::State& state, Launch launch, double ops_per_launch, Prepare prepare = [] {}) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  launch();  // warm-up: module load
  CHECK(cudaDeviceSynchronize());
  for (auto _ : state) {
    prepare();
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms / 1000.0);
  }
  CHECK(cudaGetLastError());
  state.counters["Gops"] = benchmark::Counter(ops_per_launch * 1e-9 * double(state.iterations()), benchmark::Counter::kIsRate);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
}

/// Evicts the 60 MB L2 (a 256 MiB memset, outside any timing): the prepare step of
/// benchmarks whose inputs would otherwise be served from the cache.
inline void flush_l2() {
  static unsigned char* buffer = [] {
    unsigned char* p = nullptr;
    CHECK(cudaMalloc(&p, std::size_t(256) << 20));
    return p;
  }();
  CHECK(cudaMemsetAsync(buffer, 0, std::size_t(256) << 20));
}

__global__ void read_kernel(const int4* in, std::size_t n4, int* sink) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
    const int4 v = in[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff) *sink = acc;  // keeps the loads
}

/// The measured limits at 2^log_n 4-byte items (at most max_bytes), L2 flushed:
///   limit/copy/<log_n>  cudaMemcpyAsync device to device, GBps = bytes read + written
///   limit/read/<log_n>  a kernel streaming 16-byte vectors, GBps = bytes read
inline void add_limits(int log_n, const void* in, void* out, std::size_t max_bytes) {
  const std::size_t bytes = std::min(std::size_t(4) << log_n, max_bytes);
  benchmark::RegisterBenchmark(("limit/copy/" + std::to_string(log_n)).c_str(), [=](benchmark::State& s) {
    time_kernel(s, [&] { CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); }, double(bytes / 4), flush_l2);
    s.counters["GBps"] = benchmark::Counter(2.0 * double(bytes) * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
  benchmark::RegisterBenchmark(("limit/read/" + std::to_string(log_n)).c_str(), [=](benchmark::State& s) {
    const std::size_t n4 = bytes / 16;
    const unsigned grid = unsigned(std::min<std::size_t>(n4 / 256 + 1, std::size_t(sm_count()) * 8));
    time_kernel(s, [&] { read_kernel<<<grid, 256>>>(static_cast<const int4*>(in), n4, static_cast<int*>(out)); },
                double(bytes / 4), flush_l2);
    s.counters["GBps"] = benchmark::Counter(double(bytes) * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
}

/// The size exponents to run: TILEKIT_BENCH_LOGS="16 24" (those in [lo, hi]) when set,
/// the defaults otherwise.
inline std::vector<int> size_logs(std::vector<int> defaults, int lo, int hi) {
  const char* only = std::getenv("TILEKIT_BENCH_LOGS");
  if (only == nullptr) return defaults;
  std::vector<int> logs;
  for (std::istringstream in(only); in;)
    if (int l = 0; in >> l && l >= lo && l <= hi) logs.push_back(l);
  return logs;
}

/// main() of a benchmark program: without a CUDA device it says so and returns
/// 77 (skipped); otherwise it registers the benchmarks and runs them.
template <class Register>
int run(int argc, char** argv, Register register_benchmarks) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: nothing to benchmark\n");
    return 77;
  }
  register_benchmarks();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace bench
