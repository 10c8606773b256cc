// Device-wide benchmarks: tilekit (through its CUB facade, the same code as
// tilekit::device), CUB and Thrust on the same random int32 data in one
// process, 2^10 to 2^28 items, with the measured limits of the same run:
//   limit/copy   cudaMemcpyAsync device to device, bytes read + written
//   limit/read   a streaming kernel reading 16-byte vectors, bytes read
// Each timed launch follows an L2 flush (a 256 MiB memset outside the timing),
// so inputs that fit in the 60 MB L2 are read from memory. CUDA-event timing,
// medians of repetitions; the counter "GBps" is the bytes the algorithm must
// move (reduce: n*4 read; scan: n*4 read + n*4 written) per second. Every
// implementation's result is checked against CUB's once before timing.
#include "bench_common.cuh"

#include <tilekit/cub.cuh>

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int min_log = 10, max_log = 28;

struct workspace {
  int* in = nullptr;
  int* out = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  unsigned char* flush = nullptr;
  static constexpr std::size_t flush_bytes = std::size_t(256) << 20;

  workspace() {
    const std::size_t n = std::size_t(1) << max_log;
    std::vector<int> h(n);
    std::mt19937 g(20261129);
    for (auto& x : h) x = int(g() % 2001) - 1000;  // random, never all zeros; sums stay in range
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&flush, flush_bytes));
    std::size_t a = 0, b = 0, c = 0, d = 0;
    CHECK(tilekit::cub::DeviceReduce::Sum(nullptr, a, in, out, int(n)));
    CHECK(cub::DeviceReduce::Sum(nullptr, b, in, out, int(n)));
    CHECK(tilekit::cub::DeviceScan::InclusiveSum(nullptr, c, in, out, int(n)));
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, d, in, out, int(n)));
    temp_bytes = std::max(std::max(a, b), std::max(c, d));
    CHECK(cudaMalloc(&temp, temp_bytes));
  }
  void flush_l2() const { CHECK(cudaMemsetAsync(flush, 0, flush_bytes)); }
};

workspace& ws() {
  static workspace w;
  return w;
}

__global__ void read_kernel(const int4* in, std::size_t n4, int* sink) {
  int acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n4; i += std::size_t(gridDim.x) * blockDim.x) {
    const int4 v = in[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff) *sink = acc;  // keeps the loads
}

enum class impl { tilekit, cub, thrust };
const char* name(impl i) { return i == impl::tilekit ? "tilekit" : i == impl::cub ? "cub" : "thrust"; }

void reduce(impl i, int n) {
  auto& w = ws();
  std::size_t bytes = w.temp_bytes;
  if (i == impl::tilekit) CHECK(tilekit::cub::DeviceReduce::Sum(w.temp, bytes, w.in, w.out, n));
  else if (i == impl::cub) CHECK(cub::DeviceReduce::Sum(w.temp, bytes, w.in, w.out, n));
  else w.out[0] = 0, (void)0;  // replaced below (thrust returns to the host)
}

void scan(impl i, int n) {
  auto& w = ws();
  std::size_t bytes = w.temp_bytes;
  if (i == impl::tilekit) CHECK(tilekit::cub::DeviceScan::InclusiveSum(w.temp, bytes, w.in, w.out, n));
  else if (i == impl::cub) CHECK(cub::DeviceScan::InclusiveSum(w.temp, bytes, w.in, w.out, n));
  else thrust::inclusive_scan(thrust::device, w.in, w.in + n, w.out);
}

int thrust_sum = 0;
void run_reduce(impl i, int n) {
  if (i == impl::thrust) thrust_sum = thrust::reduce(thrust::device, ws().in, ws().in + n);
  else reduce(i, n);
}

std::vector<int> fetch(int n) {
  std::vector<int> h(n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h.data(), ws().out, n * sizeof(int), cudaMemcpyDeviceToHost));
  return h;
}

// Results against CUB's, once, before timing.
bool agrees(int n) {
  run_reduce(impl::cub, n);
  const int want = fetch(1)[0];
  run_reduce(impl::tilekit, n);
  const int got = fetch(1)[0];
  run_reduce(impl::thrust, n);
  if (got != want || thrust_sum != want) {
    std::fprintf(stderr, "reduce n=%d: tilekit %d, thrust %d, cub %d\n", n, got, thrust_sum, want);
    return false;
  }
  scan(impl::cub, n);
  const auto s_want = fetch(n);
  for (impl i : {impl::tilekit, impl::thrust}) {
    CHECK(cudaMemset(ws().out, 0xCD, std::size_t(n) * sizeof(int)));
    scan(i, n);
    if (fetch(n) != s_want) {
      std::fprintf(stderr, "scan n=%d: %s differs from cub\n", n, name(i));
      return false;
    }
  }
  return true;
}

void add(const std::string& algo, impl i, int log_n) {
  const int n = 1 << log_n;
  const double bytes = algo == "reduce" ? 4.0 * n : 8.0 * n;
  const std::string label = "device_" + algo + "/int32/" + std::to_string(log_n) + "/" + name(i);
  benchmark::RegisterBenchmark(label.c_str(), [=](benchmark::State& s) {
    bench::time_kernel(
        s, [&] { algo == "reduce" ? run_reduce(i, n) : scan(i, n); }, double(n), [] { ws().flush_l2(); });
    s.counters["GBps"] = benchmark::Counter(bytes * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
}

void add_limits(int log_n) {
  const std::size_t n = std::size_t(1) << log_n;
  benchmark::RegisterBenchmark(("limit/copy/" + std::to_string(log_n)).c_str(), [=](benchmark::State& s) {
    bench::time_kernel(
        s, [&] { CHECK(cudaMemcpyAsync(ws().out, ws().in, n * sizeof(int), cudaMemcpyDeviceToDevice)); }, double(n),
        [] { ws().flush_l2(); });
    s.counters["GBps"] = benchmark::Counter(8.0 * n * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
  benchmark::RegisterBenchmark(("limit/read/" + std::to_string(log_n)).c_str(), [=](benchmark::State& s) {
    const unsigned grid = unsigned(std::min<std::size_t>(n / 4 / 256 + 1, std::size_t(bench::sm_count()) * 8));
    bench::time_kernel(
        s, [&] { read_kernel<<<grid, 256>>>(reinterpret_cast<const int4*>(ws().in), n / 4, ws().out); }, double(n),
        [] { ws().flush_l2(); });
    s.counters["GBps"] = benchmark::Counter(4.0 * n * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run(argc, argv, [] {
    for (int log_n = min_log; log_n <= max_log; log_n += 2) {
      if (!agrees(1 << log_n) || !agrees((1 << log_n) - 3)) std::exit(1);
      add_limits(log_n);
      for (impl i : {impl::tilekit, impl::cub, impl::thrust}) add("reduce", i, log_n);
      for (impl i : {impl::tilekit, impl::cub, impl::thrust}) add("scan", i, log_n);
    }
  });
}
