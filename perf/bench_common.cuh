// What the benchmark programs share: error checks, the SM count, and timing one
// launch with CUDA events for Google Benchmark's manual time.
#pragma once
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

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
