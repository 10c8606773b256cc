// The device scan's two kernels against each other and CUB, same process, same data:
// one block per chunk, and the persistent kernel (tilekit::scan_path). What sets
// scan_tuning::persistent_min_chunks (device/detail/tuning.cuh). Inclusive sums of
// random int32, int64 and double, L2 flushed before each launch; each kernel's output
// is checked against CUB's once per size before timing.
//   scan_paths_bench [Google Benchmark flags]   (TILEKIT_BENCH_LOGS="20 24": only those sizes)
#include "bench_common.cuh"

#include <tilekit/device/scan.cuh>

#include <cub/device/device_scan.cuh>

#include <cstdint>
#include <random>

namespace {

constexpr int min_log = 16, max_log = 28;

template <class T>
struct data {
  T* in = nullptr;
  T* out = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  data() {
    const std::size_t n = std::size_t(1) << max_log;
    std::vector<T> h(n);
    std::mt19937_64 g(20261201);  // fixed seed: the same data every run
    for (auto& x : h) x = static_cast<T>(std::int64_t(g() % 2001) - 1000);
    CHECK(cudaMalloc(&in, n * sizeof(T)));
    CHECK(cudaMalloc(&out, n * sizeof(T)));
    CHECK(cudaMemcpy(in, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    std::size_t a = 0, b = 0;
    CHECK(tilekit::device_scan<true>(tilekit::gpu_launcher{}, nullptr, a, in, std::int64_t(n), out, tilekit::plus{}, T{}, false));
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, b, in, out, int(n)));
    temp_bytes = std::max(a, b);
    CHECK(cudaMalloc(&temp, temp_bytes));
  }
};

template <class T>
data<T>& ws() {
  static data<T> d;
  return d;
}

enum class impl { per_chunk, persistent, cub };
const char* name(impl i) { return i == impl::per_chunk ? "per_chunk" : i == impl::persistent ? "persistent" : "cub"; }

template <class T>
void run(impl i, int n) {
  auto& d = ws<T>();
  std::size_t bytes = d.temp_bytes;
  if (i == impl::cub) CHECK(cub::DeviceScan::InclusiveSum(d.temp, bytes, d.in, d.out, n));
  else
    CHECK(tilekit::device_scan<true>(tilekit::gpu_launcher{}, d.temp, bytes, d.in, std::int64_t(n), d.out, tilekit::plus{}, T{},
                                     false, i == impl::persistent ? tilekit::scan_path::persistent : tilekit::scan_path::per_chunk));
}

template <class T>
bool agrees(int n) {
  auto fetch = [&] {
    std::vector<T> h(std::size_t(n) + 0);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h.data(), ws<T>().out, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  };
  run<T>(impl::cub, n);
  const auto want = fetch();
  for (impl i : {impl::per_chunk, impl::persistent}) {
    CHECK(cudaMemset(ws<T>().out, 0xff, std::size_t(n) * sizeof(T)));
    run<T>(i, n);
    if (fetch() != want) {
      std::fprintf(stderr, "scan %s n=%d: differs from cub\n", name(i), n);
      return false;
    }
  }
  return true;
}

template <class T>
void add(const char* type, impl i, int log_n) {
  const int n = 1 << log_n;
  const std::string label = std::string("scan_path/") + type + "/" + std::to_string(log_n) + "/" + name(i);
  benchmark::RegisterBenchmark(label.c_str(), [=](benchmark::State& s) {
    bench::time_kernel(s, [&] { run<T>(i, n); }, double(n), bench::flush_l2);
    s.counters["GBps"] = benchmark::Counter(2.0 * sizeof(T) * n * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
}

template <class T>
void add_all(const char* type, int log_n) {
  if (!agrees<T>(1 << log_n) || !agrees<T>((1 << log_n) - 3)) std::exit(1);
  for (impl i : {impl::per_chunk, impl::persistent, impl::cub}) add<T>(type, i, log_n);
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run(argc, argv, [] {
    std::vector<int> logs;
    for (int l = min_log; l <= max_log; l += 2) logs.push_back(l);
    for (int log_n : bench::size_logs(logs, min_log, max_log)) {
      bench::add_limits(log_n, ws<int>().in, ws<int>().out, std::size_t(4) << max_log);
      add_all<std::int32_t>("int32", log_n);
      if (log_n <= 27) add_all<std::int64_t>("int64", log_n);
      if (log_n <= 27) add_all<double>("double", log_n);
    }
  });
}
