// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A CUB program switched to tilekit by one line.
//
// drop_in_cub_program.cuh is a small program written for CUB: DeviceReduce::Sum,
// DeviceScan::ExclusiveSum, DeviceSelect::If, DeviceHistogram::HistogramEven and
// DeviceRunLengthEncode::Encode with the two-phase temporary-storage protocol, and
// a kernel with cub::BlockReduce and cub::BlockScan. It is written once, against
// `cub::`. The GPU build (drop_in_cub_gpu, this file through drop_in_cub.cu)
// compiles it twice, once with `namespace cub = ::cub;` and once with
// `namespace cub = ::tilekit::cub;`, runs both on the same 1000003 items, and
// compares every output byte for byte (and with the CPU).
//
// CUB does not run in the simulator. The simulator build (drop_in_cub_sim) says so,
// then runs the same algorithms through tilekit's own dispatch code, which the
// facade calls on the GPU (tilekit::device_reduce, device_scan, device_select,
// device_histogram, device_run_length_encode with a tilekit::sim::launcher, and
// the block reduce and scan in a kernel body) on 30000 items, checked against the CPU.
#if defined(__CUDACC__)
#  include <tilekit/cub.cuh>
#  include <cub/block/block_reduce.cuh>
#  include <cub/block/block_scan.cuh>
#  include <cub/device/device_histogram.cuh>
#  include <cub/device/device_reduce.cuh>
#  include <cub/device/device_run_length_encode.cuh>
#  include <cub/device/device_scan.cuh>
#  include <cub/device/device_select.cuh>
#  include "gpu_helpers.cuh"  // CHECK, median_ms, small_inputs
#else
#  include <tilekit/sim.cuh>
#endif

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

constexpr int bins = 64, block_threads = 256;

// Everything the program computes, on the host.
struct program_output {
  long long sum = 0;
  int num_evens = 0, num_runs = 0;
  std::vector<int> offsets, evens, histogram, run_keys, run_lengths, block_total, block_prefix;
};

// Values in [0, 1000) in runs of about 5.
inline std::vector<int> make_input(int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) {
    std::uint64_t h = std::uint64_t(i / 5 + 1) * 0x9E3779B97F4A7C15ull;
    v[i] = int((h ^ (h >> 29)) % 1000);
  }
  return v;
}

inline program_output cpu_reference(const std::vector<int>& in) {
  const int n = int(in.size());
  program_output r;
  r.histogram.assign(bins, 0);
  r.block_total.assign((n + block_threads - 1) / block_threads, 0);
  int run = 0;
  for (int i = 0; i < n; ++i) {
    r.offsets.push_back(int(r.sum));
    r.sum += in[i];
    if (in[i] % 2 == 0) r.evens.push_back(in[i]);
    ++r.histogram[in[i] * bins / 1000];
    if (i > 0 && in[i] != in[i - 1]) r.run_keys.push_back(in[i - 1]), r.run_lengths.push_back(run), run = 0;
    ++run;
    r.block_prefix.push_back(r.block_total[i / block_threads]);
    r.block_total[i / block_threads] += in[i];
  }
  if (n > 0) r.run_keys.push_back(in[n - 1]), r.run_lengths.push_back(run);
  r.num_evens = int(r.evens.size()), r.num_runs = int(r.run_keys.size());
  return r;
}

// Byte-for-byte comparison; names what differs. bytes: how many were compared.
inline unsigned compare(const program_output& a, const program_output& b, std::size_t& bytes, const char* what) {
  unsigned diffs = 0;
  auto cmp = [&](const char* name, const void* x, std::size_t x_size, const void* y, std::size_t y_size) {
    const bool same = x_size == y_size && std::memcmp(x, y, x_size) == 0;
    bytes += x_size;
    if (!same) std::printf("  %s: %s differ\n", what, name), ++diffs;
  };
  auto cmpv = [&](const char* name, const std::vector<int>& x, const std::vector<int>& y) {
    cmp(name, x.data(), x.size() * sizeof(int), y.data(), y.size() * sizeof(int));
  };
  cmp("Sum", &a.sum, sizeof a.sum, &b.sum, sizeof b.sum);
  cmp("If's count", &a.num_evens, sizeof(int), &b.num_evens, sizeof(int));
  cmp("Encode's count", &a.num_runs, sizeof(int), &b.num_runs, sizeof(int));
  cmpv("ExclusiveSum", a.offsets, b.offsets);
  cmpv("If", a.evens, b.evens);
  cmpv("HistogramEven", a.histogram, b.histogram);
  cmpv("Encode's keys", a.run_keys, b.run_keys);
  cmpv("Encode's lengths", a.run_lengths, b.run_lengths);
  cmpv("BlockReduce", a.block_total, b.block_total);
  cmpv("BlockScan", a.block_prefix, b.block_prefix);
  return diffs;
}

#if defined(__CUDACC__)

// Where the program's results go on the device.
struct device_outputs {
  long long* sum;
  int *offsets, *evens, *num_evens, *histogram, *run_keys, *run_lengths, *num_runs, *block_total, *block_prefix;
};
#  define TRY(call) do { if (const cudaError_t e_ = (call); e_ != cudaSuccess) return e_; } while (0)

// [drop-in]
namespace with_cub {
namespace cub = ::cub;
#include "drop_in_cub_program.cuh"
}  // namespace with_cub

namespace with_tilekit {
namespace cub = ::tilekit::cub;  // the one line
#include "drop_in_cub_program.cuh"
}  // namespace with_tilekit
// [drop-in]

struct allocation {
  void* p;
  std::size_t bytes;
};

// Runs one build of the program and copies its results to the host.
template <class Program>
program_output run(Program program, const int* in, int n, const device_outputs& d, const std::vector<allocation>& outputs) {
  for (const allocation& a : outputs) CHECK(cudaMemset(a.p, 0xFF, a.bytes));  // the same garbage for both builds
  CHECK(program(in, n, d));
  program_output r;
  CHECK(cudaMemcpy(&r.sum, d.sum, sizeof(r.sum), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&r.num_evens, d.num_evens, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&r.num_runs, d.num_runs, sizeof(int), cudaMemcpyDeviceToHost));
  if (r.num_evens < 0 || r.num_evens > n || r.num_runs < 0 || r.num_runs > n) return r;  // counts off: vectors empty
  auto copy = [](std::vector<int>& v, const int* p, int count) {
    v.resize(count);
    CHECK(cudaMemcpy(v.data(), p, count * sizeof(int), cudaMemcpyDeviceToHost));
  };
  copy(r.offsets, d.offsets, n);
  copy(r.evens, d.evens, r.num_evens);
  copy(r.histogram, d.histogram, bins);
  copy(r.run_keys, d.run_keys, r.num_runs);
  copy(r.run_lengths, d.run_lengths, r.num_runs);
  copy(r.block_total, d.block_total, (n + block_threads - 1) / block_threads);
  copy(r.block_prefix, d.block_prefix, n);
  return r;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("drop_in_cub: no CUDA device (run drop_in_cub_sim instead)\n");
    return 77;
  }
  // TILEKIT_TEST_SMALL=1 (.ci/gpu-check sets it under compute-sanitizer): a small input.
  const int n = small_inputs() ? 20011 : 1000003, blocks = (n + block_threads - 1) / block_threads;
  const std::vector<int> in = make_input(n);
  int* d_in;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<allocation> outputs;
  auto alloc = [&](auto*& p, std::size_t count) {
    CHECK(cudaMalloc(&p, count * sizeof(*p)));
    outputs.push_back({p, count * sizeof(*p)});
  };
  device_outputs d;
  alloc(d.sum, 1), alloc(d.offsets, n), alloc(d.evens, n), alloc(d.num_evens, 1), alloc(d.histogram, bins);
  alloc(d.run_keys, n), alloc(d.run_lengths, n), alloc(d.num_runs, 1), alloc(d.block_total, blocks), alloc(d.block_prefix, n);
  const program_output with_cub = run(with_cub::run_program, d_in, n, d, outputs);
  const program_output with_tilekit = run(with_tilekit::run_program, d_in, n, d, outputs);
  CHECK(cudaFree(d_in));
  for (const allocation& a : outputs) CHECK(cudaFree(a.p));

  std::size_t bytes = 0, ignored = 0;
  const unsigned diffs = compare(with_cub, with_tilekit, bytes, "CUB and tilekit::cub");
  const unsigned wrong = compare(with_cub, cpu_reference(in), ignored, "CUB and the CPU");
  std::printf("drop_in_cub (GPU): one program written against cub::, built with CUB and with tilekit::cub, %d items\n", n);
  std::printf("  sum %lld, %d even items, %d runs, histogram bin 0: %d, block 0's sum %d\n", with_tilekit.sum,
              with_tilekit.num_evens, with_tilekit.num_runs, with_tilekit.histogram.empty() ? -1 : with_tilekit.histogram[0],
              with_tilekit.block_total.empty() ? -1 : with_tilekit.block_total[0]);
  std::printf("  %zu bytes of output compared: %s; CUB's %s the CPU's\n", bytes, diffs == 0 ? "identical" : "DIFFERENT",
              wrong == 0 ? "match" : "DO NOT MATCH");
  return diffs == 0 && wrong == 0 ? 0 : 1;
}

#else  // the simulator: tilekit's own dispatch, no CUB

struct even {
  bool operator()(int x) const { return x % 2 == 0; }
};

// block_sums of drop_in_cub_program.cuh, in tilekit's own terms: every thread gets the total.
struct block_sums {
  const int* in;
  int n;
  int *block_total, *block_prefix;
  struct shared_t {
    tilekit::reduce_storage<int, block_threads> reduce;
    tilekit::scan_storage<int, block_threads> scan;
  };
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto block = ctx.template block<block_threads>();
    shared_t& s = ctx.template shared<shared_t>();
    const int i = int(block.group_index().x * block_threads + block.thread_rank());
    const int x = i < n ? in[i] : 0;
    const int total = tilekit::reduce(block, x, tilekit::plus{}, s.reduce);
    const int prefix = tilekit::exclusive_scan(block, x, tilekit::plus{}, 0, s.scan);
    if (block.thread_rank() == 0) block_total[block.group_index().x] = total;
    if (i < n) block_prefix[i] = prefix;
  }
};

int main() {
  const int n = 30000, blocks = (n + block_threads - 1) / block_threads;
  const std::vector<int> in = make_input(n);
  program_output r;
  r.offsets.resize(n), r.evens.resize(n), r.histogram.resize(bins), r.run_keys.resize(n), r.run_lengths.resize(n);
  r.block_total.resize(blocks), r.block_prefix.resize(n);
  const tilekit::sim::launcher launcher;
  bool ok = true;
  auto two_phases = [&](auto call) {  // CUB's protocol: ask for the size, then run
    std::size_t bytes = 0;
    ok = ok && call(nullptr, bytes) == launcher.success;
    std::vector<unsigned char> temp(bytes);
    ok = ok && call(temp.data(), bytes) == launcher.success;
  };
  two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_reduce(launcher, t, b, in.data(), n, &r.sum, tilekit::plus{}, 0ll);
  });
  two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_scan<false>(launcher, t, b, in.data(), n, r.offsets.data(), tilekit::plus{}, 0, true);
  });
  two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_select(launcher, t, b, in.data(), n, r.evens.data(), &r.num_evens, tilekit::keep_if<even>{even{}});
  });
  two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_histogram(launcher, t, b, in.data(), n, r.histogram.data(), bins,
                                     tilekit::even_bins<int, int>(bins + 1, 0, 1000));
  });
  two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_run_length_encode<false>(launcher, t, b, in.data(), n, r.run_keys.data(), r.run_lengths.data(),
                                                    &r.num_runs);
  });
  tilekit::sim::launch(blocks, block_threads, block_sums{in.data(), n, r.block_total.data(), r.block_prefix.data()},
                       sizeof(block_sums::shared_t));
  r.evens.resize(r.num_evens >= 0 && r.num_evens <= n ? r.num_evens : 0);
  r.run_keys.resize(r.num_runs >= 0 && r.num_runs <= n ? r.num_runs : 0);
  r.run_lengths.resize(r.run_keys.size());

  std::printf("drop_in_cub (simulator): CUB does not run in the simulator, so the program written against cub::\n"
              "  and its byte-for-byte comparison need a GPU (drop_in_cub_gpu). Here: the same algorithms through\n"
              "  tilekit's dispatch (what tilekit::cub calls), with a tilekit::sim::launcher, on %d items\n", n);
  std::size_t bytes = 0;
  const unsigned diffs = compare(r, cpu_reference(in), bytes, "tilekit and the CPU");
  std::printf("  sum %lld, %d even items, %d runs, histogram bin 0: %d, block 0's sum %d\n", r.sum, r.num_evens, r.num_runs,
              r.histogram[0], r.block_total[0]);
  std::printf("  %zu bytes of output compared with the CPU: %s\n", bytes, ok && diffs == 0 ? "identical" : "DIFFERENT");
  return ok && diffs == 0 ? 0 : 1;
}

#endif
