// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit's own device-wide API (not the cub facade), one source for both builds:
// each algorithm's dispatch takes a launcher, tilekit::gpu_launcher on the GPU and
// tilekit::sim::launcher in the simulator, and follows CUB's two-phase protocol
// (ask for the temporary storage with temp == nullptr, then run). On the GPU the
// same calls exist as tilekit::device::select_if, reduce, ... returning cudaError_t,
// with or without caller-provided temporary storage (device_tour_gpu makes one at the end).
//
// A day of sensor readings (0..999, -1 where the sensor was silent):
//   device_select     keeps the readings that were taken (keep_if)
//   device_reduce     their sum (64-bit, from 32-bit readings)
//   device_scan       the peak so far at every reading (maximum, inclusive)
//   device_histogram  the readings in 10 bins of 100 (even_bins, as CUB's HistogramEven)
//   device_run_length_encode  the runs of readings in the same band of 100 (reading / 100)
// and a size query with a negative count, which answers invalid_value as the call would.
// Every result is checked against the CPU; the program exits with 1 on a mismatch.
// Simulator build: 20000 readings. GPU build (device_tour.cu): 2^24 readings in
// managed memory, so both builds share the host-side code.
#if defined(__CUDACC__)
#  include <tilekit/device/histogram.cuh>
#  include <tilekit/device/reduce.cuh>
#  include <tilekit/device/run_length_encode.cuh>
#  include <tilekit/device/scan.cuh>
#  include <tilekit/device/select.cuh>
#  include "gpu_helpers.cuh"  // CHECK, small_inputs
#else
#  include <tilekit/sim.cuh>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#if defined(__CUDACC__)
using launcher_t = tilekit::gpu_launcher;
// Managed memory: the host fills and checks it, the kernels read and write it.
template <class T>
T* allocate(std::size_t n) {
  T* p = nullptr;
  CHECK(cudaMallocManaged(&p, n * sizeof(T) + 1));
  return p;
}
template <class T>
void release(T* p) { CHECK(cudaFree(p)); }
inline void wait() { CHECK(cudaDeviceSynchronize()); }
inline std::size_t readings_count() { return small_inputs() ? std::size_t(1) << 16 : std::size_t(1) << 24; }
#else
using launcher_t = tilekit::sim::launcher;
template <class T>
T* allocate(std::size_t n) { return new T[n + 1]; }
template <class T>
void release(T* p) { delete[] p; }
inline void wait() {}
inline std::size_t readings_count() { return 20000; }
#endif

struct taken {  // a reading, not a silence
  TILEKIT_HD bool operator()(int r) const { return r >= 0; }
};

// Readings that drift: each is the last one plus a small step, and 1 in 8 is silent.
std::vector<int> make_readings(std::size_t n) {
  std::vector<int> r(n);
  std::uint32_t x = 12345u, level = 500;
  for (auto& v : r) {
    x = x * 1664525u + 1013904223u;
    level = (level + 1000 + (x >> 16) % 41 - 20) % 1000;
    v = (x >> 8) % 8 == 0 ? -1 : int(level);
  }
  return r;
}

int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) ++failures;
  std::printf("  %-58s %s\n", what, ok ? "ok" : "MISMATCH");
}

// Two phases: the size of the temporary storage, then the run.
template <class Call>
bool two_phases(const launcher_t& launcher, Call call) {
  std::size_t bytes = 0;
  if (call(nullptr, bytes) != launcher.success) return false;
  unsigned char* temp = allocate<unsigned char>(bytes);
  const bool ok = call(temp, bytes) == launcher.success;
  wait();
  release(temp);
  return ok;
}

int main() {
#if defined(__CUDACC__)
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("device_tour: no CUDA device (run device_tour_sim instead)\n");
    return 77;
  }
#endif
  const launcher_t launcher{};
  const std::size_t n = readings_count();
  const std::vector<int> host = make_readings(n);
  std::printf("device_tour: %zu readings, %s\n", n,
#if defined(__CUDACC__)
              "on the GPU"
#else
              "in the simulator"
#endif
  );
  int* readings = allocate<int>(n);
  std::copy(host.begin(), host.end(), readings);

  // The CPU's answers.
  std::vector<int> want_valid;
  for (int r : host)
    if (taken{}(r)) want_valid.push_back(r);
  const std::int64_t m = std::int64_t(want_valid.size());
  long long want_sum = 0;
  for (int r : want_valid) want_sum += r;

  // 1. Keep the readings that were taken.
  int* valid = allocate<int>(n);
  std::int64_t* num_valid = allocate<std::int64_t>(1);
  bool ok = two_phases(launcher, [&](void* temp, std::size_t& bytes) {
    return tilekit::device_select(launcher, temp, bytes, readings, std::int64_t(n), valid, num_valid, tilekit::keep_if<taken>{});
  });
  expect(ok && *num_valid == m && std::equal(want_valid.begin(), want_valid.end(), valid), "select: the readings taken, in order");

  // 2. Their sum, 64-bit.
  long long* sum = allocate<long long>(1);
  ok = two_phases(launcher, [&](void* temp, std::size_t& bytes) {
    return tilekit::device_reduce(launcher, temp, bytes, valid, m, sum, tilekit::plus{}, 0LL);
  });
  expect(ok && *sum == want_sum, "reduce: their sum");

  // 3. The peak so far at every reading.
  int* peak = allocate<int>(n);
  ok = two_phases(launcher, [&](void* temp, std::size_t& bytes) {
    return tilekit::device_scan<true>(launcher, temp, bytes, valid, m, peak, tilekit::maximum{}, 0, false);
  });
  bool peaks_ok = ok;
  for (std::int64_t i = 0, best = -1; i < m && peaks_ok; ++i) {
    best = std::max<std::int64_t>(best, want_valid[std::size_t(i)]);
    peaks_ok = peak[i] == best;
  }
  expect(peaks_ok, "scan: the peak so far (maximum, inclusive)");

  // 4. Ten bins of 100 over [0, 1000), as CUB's HistogramEven.
  unsigned* bins = allocate<unsigned>(10);
  ok = two_phases(launcher, [&](void* temp, std::size_t& bytes) {
    return tilekit::device_histogram(launcher, temp, bytes, valid, m, bins, 10, tilekit::even_bins<int, int>(11, 0, 1000));
  });
  std::vector<unsigned> want_bins(10, 0);
  for (int r : want_valid) ++want_bins[std::size_t(r / 100)];
  expect(ok && std::equal(want_bins.begin(), want_bins.end(), bins), "histogram: 10 bins of 100");

  // 5. Runs of readings in the same band of 100: each run's band and length.
  int* bands = allocate<int>(n);
  for (std::int64_t i = 0; i < m; ++i) bands[i] = want_valid[std::size_t(i)] / 100;
  int* run_band = allocate<int>(n);
  std::int64_t* run_length = allocate<std::int64_t>(n);
  std::int64_t* num_runs = allocate<std::int64_t>(1);
  ok = two_phases(launcher, [&](void* temp, std::size_t& bytes) {
    return tilekit::device_run_length_encode<false>(launcher, temp, bytes, bands, m, run_band, run_length, num_runs);
  });
  std::int64_t want_runs = 0, longest = 0;
  for (std::int64_t i = 0, start = 0; i < m; ++i)
    if (i + 1 == m || want_valid[std::size_t(i + 1)] / 100 != want_valid[std::size_t(i)] / 100) {
      const bool same = ok && want_runs < *num_runs && run_band[want_runs] == want_valid[std::size_t(start)] / 100 &&
                        run_length[want_runs] == i + 1 - start;
      if (!same) ok = false;
      longest = std::max(longest, i + 1 - start);
      ++want_runs, start = i + 1;
    }
  expect(ok && *num_runs == want_runs, "run-length encode: runs within one band of 100");

  // 6. A negative count is an error at the size query too, and nothing is set.
  std::size_t bytes = 12345;
  const bool rejected = tilekit::device_reduce(launcher, nullptr, bytes, valid, -1, sum, tilekit::plus{}, 0LL) ==
                        launcher.invalid_value;
  expect(rejected && bytes == 12345, "a size query with n = -1: invalid_value");

#if defined(__CUDACC__)
  // The same sum through the GPU entry point, without temporary storage of the caller's
  // (it allocates its own on the stream); it returns a cudaError_t.
  long long* again = allocate<long long>(1);
  CHECK(tilekit::device::reduce(valid, m, again, tilekit::plus{}, 0LL));
  wait();
  expect(*again == want_sum, "tilekit::device::reduce without temporary storage: the same sum");
  release(again);
#endif

  std::printf("%lld of %zu readings taken, mean %.1f; %lld runs within a band (longest %lld); bins:",
              static_cast<long long>(m), n, m > 0 ? double(want_sum) / double(m) : 0.0, static_cast<long long>(want_runs),
              static_cast<long long>(longest));
  for (unsigned b : want_bins) std::printf(" %u", b);
  std::printf("\n%s\n", failures == 0 ? "device_tour: every result matches the CPU" : "device_tour: MISMATCHES");

  release(readings), release(valid), release(num_valid), release(sum), release(peak), release(bins);
  release(bands), release(run_band), release(run_length), release(num_runs);
  return failures == 0 ? 0 : 1;
}
