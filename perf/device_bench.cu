// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide benchmarks: tilekit (through its CUB facade, the same code as
// tilekit::device), CUB and Thrust on the same random int32 data in one
// process, 2^10 to 2^28 items, with the measured limits of the same run:
//   limit/copy   cudaMemcpyAsync device to device, bytes read + written
//   limit/read   a streaming kernel reading 16-byte vectors, bytes read
// Algorithms: reduce (sum), inclusive scan, select_if (about half kept), unique,
// partition (two-way, about half kept; no Thrust counterpart with CUB's layout),
// run-length encode (Encode; runs of about 1.3 items; no Thrust counterpart),
// histograms (256 even bins of uint8 samples: the input's bytes; 1024 even bins of
// the int32 samples; no Thrust counterpart).
// Each timed launch follows an L2 flush (a 256 MiB memset outside the timing),
// so inputs that fit in the 60 MB L2 are read from memory. CUDA-event timing,
// medians of repetitions; the counter "GBps" is the bytes the algorithm must
// move (reduce: n*4 read; scan: n*4 read + n*4 written; select and unique:
// n*4 read + the kept items written) per second. Every
// implementation's result is checked against CUB's once before timing.
#include "bench_common.cuh"

#include <tilekit/cub.cuh>
#include <tilekit/device/reduce.cuh>

#include <benchmark/benchmark.h>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/copy.h>
#include <thrust/scan.h>
#include <thrust/unique.h>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_select.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/version.cuh>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int min_log = 10, max_log = 28;

struct below_zero {  // about half of the data
  __host__ __device__ bool operator()(int x) const { return x < 0; }
};

struct workspace {
  std::vector<int> h;  // the input, also on the host
  int* in = nullptr;
  int* out = nullptr;
  int* lengths = nullptr;  // run-length encode's second output
  void* temp = nullptr;
  std::size_t temp_bytes = 0;

  workspace() {
    const std::size_t n = std::size_t(1) << max_log;
    h.resize(n);
    std::mt19937 g(20261129);
    for (auto& x : h) x = int(g() % 2001) - 1000;  // random, never all zeros; sums stay in range
    for (std::size_t i = 1; i < n; ++i)  // a quarter repeat their predecessor: runs for unique and run-length encode
      if (g() % 4 == 0) h[i] = h[i - 1];
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&out, (n + 1) * sizeof(int)));
    CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    std::size_t a = 0, b = 0, c = 0, d = 0, e = 0, f = 0;
    CHECK(tilekit::cub::DeviceReduce::Sum(nullptr, a, in, out, int(n)));
    CHECK(cub::DeviceReduce::Sum(nullptr, b, in, out, int(n)));
    CHECK(tilekit::cub::DeviceScan::InclusiveSum(nullptr, c, in, out, int(n)));
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, d, in, out, int(n)));
    CHECK(tilekit::cub::DeviceSelect::If(nullptr, e, in, out, out + n, int(n), below_zero{}));
    CHECK(cub::DeviceSelect::If(nullptr, f, in, out, out + n, int(n), below_zero{}));
    std::size_t u = 0, v = 0;
    CHECK(tilekit::cub::DeviceSelect::Unique(nullptr, u, in, out, out + n, int(n)));
    CHECK(cub::DeviceSelect::Unique(nullptr, v, in, out, out + n, int(n)));
    std::size_t x = 0, y = 0;
    CHECK(cub::DeviceHistogram::HistogramEven(nullptr, x, in, out, 1025, -1000, 1001, int(n)));
    CHECK(cub::DeviceHistogram::HistogramEven(nullptr, y, reinterpret_cast<const unsigned char*>(in), out, 257, 0, 256, int(n)));
    std::size_t p = 0, q = 0, r = 0, t = 0;
    CHECK(tilekit::cub::DevicePartition::If(nullptr, p, in, out, out + n, int(n), below_zero{}));
    CHECK(cub::DevicePartition::If(nullptr, q, in, out, out + n, int(n), below_zero{}));
    CHECK(tilekit::cub::DeviceRunLengthEncode::Encode(nullptr, r, in, out, out, out + n, int(n)));
    CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, t, in, out, out, out + n, int(n)));
    temp_bytes = std::max({a, b, c, d, e, f, u, v, x, y, p, q, r, t});
    CHECK(cudaMalloc(&lengths, (n + 1) * sizeof(int)));
    CHECK(cudaMalloc(&temp, temp_bytes));
  }
};

workspace& ws() {
  static workspace w;
  return w;
}

enum class impl { tilekit, cub, thrust };
// The CUB rows' name: "cub_latest" in the builds against a second CCCL (perf/CMakeLists.txt),
// so that their JSON merges with this build's in one report.
#ifndef TILEKIT_BENCH_CUB_NAME
#define TILEKIT_BENCH_CUB_NAME "cub"
#endif
const char* name(impl i) { return i == impl::tilekit ? "tilekit" : i == impl::cub ? TILEKIT_BENCH_CUB_NAME : "thrust"; }

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

// select_if (which = 0) or unique (which = 1); the count goes to out[n] (device).
void run_select(impl i, int n, int which) {
  auto& w = ws();
  std::size_t bytes = w.temp_bytes;
  int* num = w.out + n;
  if (i == impl::tilekit) {
    if (which == 0) CHECK(tilekit::cub::DeviceSelect::If(w.temp, bytes, w.in, w.out, num, n, below_zero{}));
    else CHECK(tilekit::cub::DeviceSelect::Unique(w.temp, bytes, w.in, w.out, num, n));
  } else if (i == impl::cub) {
    if (which == 0) CHECK(cub::DeviceSelect::If(w.temp, bytes, w.in, w.out, num, n, below_zero{}));
    else CHECK(cub::DeviceSelect::Unique(w.temp, bytes, w.in, w.out, num, n));
  } else {
    const int count = which == 0 ? int(thrust::copy_if(thrust::device, w.in, w.in + n, w.out, below_zero{}) - w.out)
                                 : int(thrust::unique_copy(thrust::device, w.in, w.in + n, w.out) - w.out);
    CHECK(cudaMemcpy(num, &count, sizeof(int), cudaMemcpyHostToDevice));
  }
}

// Two-way partition (which = 0; the kept count in out[n]) or run-length encode (which = 1;
// runs: keys in out, lengths in lengths, their count in lengths[n]).
void run_partition_rle(impl i, int n, int which) {
  auto& w = ws();
  std::size_t bytes = w.temp_bytes;
  if (i == impl::tilekit) {
    if (which == 0) CHECK(tilekit::cub::DevicePartition::If(w.temp, bytes, w.in, w.out, w.out + n, n, below_zero{}));
    else CHECK(tilekit::cub::DeviceRunLengthEncode::Encode(w.temp, bytes, w.in, w.out, w.lengths, w.lengths + n, n));
  } else {
    if (which == 0) CHECK(cub::DevicePartition::If(w.temp, bytes, w.in, w.out, w.out + n, n, below_zero{}));
    else CHECK(cub::DeviceRunLengthEncode::Encode(w.temp, bytes, w.in, w.out, w.lengths, w.lengths + n, n));
  }
}

// 256 bins over the input's first n bytes (which = 0) or 1024 bins over n int32 samples (which = 1); counters in out.
void run_histogram(impl i, int n, int which) {
  auto& w = ws();
  std::size_t bytes = w.temp_bytes;
  const auto* u8 = reinterpret_cast<const unsigned char*>(w.in);
  if (i == impl::tilekit) {
    if (which == 0) CHECK(tilekit::cub::DeviceHistogram::HistogramEven(w.temp, bytes, u8, w.out, 257, 0, 256, n));
    else CHECK(tilekit::cub::DeviceHistogram::HistogramEven(w.temp, bytes, w.in, w.out, 1025, -1000, 1001, n));
  } else {
    if (which == 0) CHECK(cub::DeviceHistogram::HistogramEven(w.temp, bytes, u8, w.out, 257, 0, 256, n));
    else CHECK(cub::DeviceHistogram::HistogramEven(w.temp, bytes, w.in, w.out, 1025, -1000, 1001, n));
  }
}

int thrust_sum = 0;
void run_reduce(impl i, int n) {
  if (i == impl::thrust) thrust_sum = thrust::reduce(thrust::device, ws().in, ws().in + n);
  else reduce(i, n);
}

// tilekit's allocating form (its temporary storage from its pool, in the stream), next
// to CUB's two-phase call with storage allocated beforehand.
void run_reduce_alloc(impl i, int n) {
  if (i == impl::tilekit) CHECK(tilekit::device::sum(ws().in, std::int64_t(n), ws().out));
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
  CHECK(cudaMemset(ws().out, 0xCD, sizeof(int)));
  run_reduce_alloc(impl::tilekit, n);
  const int got_alloc = fetch(1)[0];
  run_reduce(impl::thrust, n);
  if (got != want || got_alloc != want || thrust_sum != want) {
    std::fprintf(stderr, "reduce n=%d: tilekit %d (allocating form %d), thrust %d, cub %d\n", n, got, got_alloc, thrust_sum, want);
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
  for (int which : {0, 1}) {
    run_select(impl::cub, n, which);
    const auto want_all = fetch(n + 1);
    const int count = want_all[n];
    for (impl i : {impl::tilekit, impl::thrust}) {
      CHECK(cudaMemset(ws().out, 0xCD, std::size_t(n + 1) * sizeof(int)));
      run_select(i, n, which);
      const auto got = fetch(n + 1);
      if (got[n] != count || !std::equal(got.begin(), got.begin() + count, want_all.begin())) {
        std::fprintf(stderr, "%s n=%d: %s differs from cub\n", which ? "unique" : "select_if", n, name(i));
        return false;
      }
    }
  }
  for (int which : {0, 1}) {
    std::vector<int> want_out, want_lengths;
    for (impl i : {impl::cub, impl::tilekit}) {
      CHECK(cudaMemset(ws().out, 0xCD, std::size_t(n + 1) * sizeof(int)));
      CHECK(cudaMemset(ws().lengths, 0xCD, std::size_t(n + 1) * sizeof(int)));
      run_partition_rle(i, n, which);
      auto got = fetch(n + 1);
      std::vector<int> got_lengths(n + 1);
      CHECK(cudaMemcpy(got_lengths.data(), ws().lengths, (n + 1) * sizeof(int), cudaMemcpyDeviceToHost));
      if (which == 1) {  // only the runs are defined
        got.resize(std::size_t(got_lengths[n]));
        got_lengths.resize(std::size_t(got_lengths[n]) + 1);
        got_lengths.back() = int(got.size());
      }
      if (i == impl::cub) {
        want_out = got, want_lengths = got_lengths;
      } else if (got != want_out || (which == 1 && got_lengths != want_lengths)) {
        std::fprintf(stderr, "%s n=%d: tilekit differs from cub\n", which ? "run-length encode" : "partition", n);
        return false;
      }
    }
  }
  for (int which : {0, 1}) {
    const int bins = which == 0 ? 256 : 1024;
    run_histogram(impl::cub, n, which);
    const auto want = fetch(bins);
    run_histogram(impl::tilekit, n, which);
    if (fetch(bins) != want) {
      std::fprintf(stderr, "histogram %d bins n=%d: tilekit differs from cub\n", bins, n);
      return false;
    }
  }
  return true;
}

// Items select_if (which = 0) or unique (which = 1) keeps among the first n: the bytes they write.
std::size_t kept(int n, int which) {
  const auto& h = ws().h;
  std::size_t k = 0;
  for (int i = 0; i < n; ++i) k += which == 0 ? h[i] < 0 : (i == 0 || h[i] != h[i - 1]);
  return k;
}

void add(const std::string& algo, impl i, int log_n) {
  const int n = 1 << log_n;
  const double bytes = algo == "reduce" || algo == "reduce_alloc" || algo == "histogram1024" ? 4.0 * n
                       : algo == "histogram256_u8"                   ? 1.0 * n
                       : algo == "scan"                              ? 8.0 * n
                       : algo == "select"                            ? 4.0 * (double(n) + double(kept(n, 0)))
                       : algo == "partition"                         ? 8.0 * n
                       : algo == "rle"                               ? 4.0 * (double(n) + 2.0 * double(kept(n, 1)))
                                                                     : 4.0 * (double(n) + double(kept(n, 1)));
  const std::string label = "device_" + algo + "/int32/" + std::to_string(log_n) + "/" + name(i);
  benchmark::RegisterBenchmark(label.c_str(), [=](benchmark::State& s) {
    bench::time_kernel(
        s,
        [&] {
          if (algo == "reduce") run_reduce(i, n);
          else if (algo == "reduce_alloc") run_reduce_alloc(i, n);
          else if (algo == "scan") scan(i, n);
          else if (algo == "select" || algo == "unique") run_select(i, n, algo == "select" ? 0 : 1);
          else if (algo == "partition" || algo == "rle") run_partition_rle(i, n, algo == "partition" ? 0 : 1);
          else run_histogram(i, n, algo == "histogram256_u8" ? 0 : 1);
        },
        double(n), bench::flush_l2);
    s.counters["GBps"] = benchmark::Counter(bytes * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
}

}  // namespace

int main(int argc, char** argv) {
  // Which CUB the cub rows ran: the JSON's context says, and the report names it.
  benchmark::AddCustomContext("cub_version", std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) +
                                                 "." + std::to_string(CUB_SUBMINOR_VERSION));
  return bench::run(argc, argv, [] {
    std::vector<int> every_other;
    for (int l = min_log; l <= max_log; l += 2) every_other.push_back(l);
    for (int log_n : bench::size_logs(every_other, min_log, max_log)) {  // TILEKIT_BENCH_LOGS: a quick run
      if (!agrees(1 << log_n) || !agrees((1 << log_n) - 3)) std::exit(1);
      bench::add_limits(log_n, ws().in, ws().out, std::size_t(4) << max_log);
      for (impl i : {impl::tilekit, impl::cub, impl::thrust}) add("reduce", i, log_n);
      for (impl i : {impl::tilekit, impl::cub}) add("reduce_alloc", i, log_n);
      for (impl i : {impl::tilekit, impl::cub, impl::thrust}) add("scan", i, log_n);
      for (impl i : {impl::tilekit, impl::cub, impl::thrust}) add("select", i, log_n);
      for (impl i : {impl::tilekit, impl::cub, impl::thrust}) add("unique", i, log_n);
      for (impl i : {impl::tilekit, impl::cub}) add("partition", i, log_n);
      for (impl i : {impl::tilekit, impl::cub}) add("rle", i, log_n);
      for (impl i : {impl::tilekit, impl::cub}) add("histogram256_u8", i, log_n);
      for (impl i : {impl::tilekit, impl::cub}) add("histogram1024", i, log_n);
    }
  });
}
