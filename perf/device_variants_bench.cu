// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide variants beyond device_bench's int32 set: tilekit (through its CUB
// facade, or tilekit::device where CUB has no counterpart), CUB and Thrust on the
// same data in one process, with the measured limits of the same run:
//   reduce (sum) and inclusive scan of int64, float and double; exclusive scan of int32;
//   ArgMin of int32 and float; select_if keeping 0% and 100% of int32, select_flagged
//   (about half); histograms of 65536 and 200000 even bins of int32 (past shared memory) and of
//   256 bins of uint8 on skewed (75% in one bin) and all-equal samples, uint8 up to
//   2^30 samples; distinct of int32 keys (1%, 50% and 100% of them distinct) against
//   CUB's sort pipeline (SortPairs of (key, index), UniqueByKey, SortPairs back by index);
//   ReduceByKey, UniqueByKey and InclusiveSumByKey of int32 keys in runs of 8,
//   DeviceSegmentedReduce::Sum over segments of 1024 and of 64 int32 and ArgMin over segments of
//   1024, MultiHistogramEven of RGBA uint8 (3 channels; one row, and rows with padding),
//   DevicePartition::Flagged, and the three-way DevicePartition::If (about a quarter, a quarter
//   and half of the items); the in-place InclusiveSum and If (on a copy of the input made
//   outside the timing), FlaggedIf, ExclusiveSumByKey, InclusiveScanByKey with maximum,
//   DeviceSegmentedReduce::Max and ArgMax over segments of 1024, MultiHistogramRange of RGBA.
// Inputs are generated on the device from a hash of the index (floats and doubles:
// multiples of 0.5 in [-0.5, 0.5], so every sum is exact and the implementations'
// results compare bitwise). Before timing, each case runs every implementation once
// and compares its output with CUB's on the device; a difference stops the program. Each timed launch follows an L2 flush;
// CUDA-event timing, medians of repetitions; "GBps" is the bytes the algorithm must
// move per second. TILEKIT_BENCH_LOGS="16 24" picks sizes (default 16 20 24 28; 30 for uint8).
#include "bench_common.cuh"

#include <tilekit/cub.cuh>
#include <tilekit/device/distinct.cuh>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cub/version.cuh>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr std::size_t in_bytes = std::size_t(1) << 31;  // 2^28 doubles, 2^30 uint8

struct workspace {
  unsigned char* in = nullptr;
  unsigned char* out = nullptr;   // outputs of the implementation under test
  unsigned char* want = nullptr;  // CUB's outputs, for the comparison
  unsigned char* flags = nullptr;
  unsigned long long* differ = nullptr;
  void* temp = nullptr;
  std::size_t temp_bytes = std::size_t(8) << 30;  // distinct of 2^28 keys needs about 6 GB
  workspace() {
    CHECK(cudaMalloc(&in, in_bytes));
    CHECK(cudaMalloc(&out, in_bytes + 64));
    CHECK(cudaMalloc(&want, in_bytes + 64));
    CHECK(cudaMalloc(&flags, std::size_t(1) << 28));
    CHECK(cudaMalloc(&differ, sizeof(unsigned long long)));
    CHECK(cudaMalloc(&temp, temp_bytes));
  }
};
workspace& ws() {
  static workspace w;
  return w;
}

__host__ __device__ unsigned hash(std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  return unsigned(x >> 32);
}

enum class data { small_ints, halves, bytes, skewed_bytes, equal_bytes, keys, wide_ints, skewed_wide_ints, huge_ints, skewed_huge_ints, runs_of_8 };

// A bijection of 32-bit words (murmur3's finaliser).
__host__ __device__ unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  return x ^ (x >> 16);
}

// A permutation of [0, n) for n a power of two (odd multiplies and xor-shifts within log2 n bits).
__host__ __device__ std::uint64_t permute(std::uint64_t i, std::uint64_t n) {
  const std::uint64_t mask = n - 1;
  int bits = 0;
  while ((std::uint64_t(1) << bits) < n) ++bits;
  const int shift = bits / 2 > 0 ? bits / 2 : 1;
  std::uint64_t x = (i * 0x9E3779B97F4A7C15ull) & mask;
  x ^= x >> shift;
  x = (x * 0xBF58476D1CE4E5B9ull) & mask;
  return x ^ (x >> shift);
}

// in[i] for each kind of data; flags[i] = about half set. keys: exactly `distinct`
// different keys (over the whole int range), each n / distinct times at random places.
template <class T>
__global__ void fill(T* in, unsigned char* flags, std::size_t n, data kind, std::size_t distinct) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const unsigned h = hash(i);
    switch (kind) {
      case data::small_ints: in[i] = T(int(h % 2001) - 1000); break;
      case data::halves: in[i] = T(0.5 * (int(h % 3) - 1)); break;
      case data::bytes: in[i] = T(h & 255); break;
      case data::skewed_bytes: in[i] = T(h % 4 ? 7 : h >> 24); break;
      case data::equal_bytes: in[i] = T(42); break;
      case data::keys: in[i] = T(mix32(unsigned(permute(i, n) % distinct))); break;
      case data::wide_ints: in[i] = T(int(h % 65536) - 32768); break;
      case data::skewed_wide_ints: in[i] = T(h % 10 < 9 ? int((h >> 8) % 64) * 97 - 3000 : int((h >> 8) % 65536) - 32768); break;  // 90% in 64 values
      case data::huge_ints: in[i] = T(int(h % 200000) - 100000); break;
      case data::skewed_huge_ints: in[i] = T(h % 10 < 9 ? int((h >> 8) % 64) * 3037 - 97000 : int((h >> 8) % 200000) - 100000); break;  // 90% in 64 values
      case data::runs_of_8: in[i] = T(int(hash(i / 8) % 1000)); break;
    }
    if (flags) flags[i] = (h >> 7) & 1;
  }
}

// Counts the items of a and b (bytes) that differ.
__global__ void compare(const unsigned char* a, const unsigned char* b, std::size_t bytes, unsigned long long* differ) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < bytes; i += std::size_t(gridDim.x) * blockDim.x)
    if (a[i] != b[i]) atomicAdd(differ, 1ull);
}

unsigned long long differing_bytes(const void* a, const void* b, std::size_t bytes) {
  CHECK(cudaMemset(ws().differ, 0, sizeof(unsigned long long)));
  compare<<<unsigned(bench::sm_count()) * 8, 256>>>(static_cast<const unsigned char*>(a), static_cast<const unsigned char*>(b),
                                                    bytes, ws().differ);
  unsigned long long d = 0;
  CHECK(cudaMemcpy(&d, ws().differ, sizeof(d), cudaMemcpyDeviceToHost));
  return d;
}

enum class impl { tilekit, cub, thrust };
// The CUB rows' name: "cub_latest" in the builds against a second CCCL (perf/CMakeLists.txt),
// so that their JSON merges with this build's in one report.
#ifndef TILEKIT_BENCH_CUB_NAME
#define TILEKIT_BENCH_CUB_NAME "cub"
#endif
const char* name(impl i) { return i == impl::tilekit ? "tilekit" : i == impl::cub ? TILEKIT_BENCH_CUB_NAME : "thrust"; }

// One benchmark case: its label parts, the data it reads, the bytes it must move,
// how each implementation runs (writing to `out`), and the output bytes to compare.
struct variant {
  std::string algo, type;
  data kind;
  std::size_t item_bytes;
  std::function<double(std::size_t n)> moved;
  std::function<void(impl, std::size_t n, unsigned char* out)> run;
  std::function<std::size_t(std::size_t n)> out_bytes;
  std::vector<impl> impls;
  std::size_t distinct_percent = 1;  // data::keys: this % of the items are distinct
  // In-place forms: sets out up before every run, outside the timing (copies the input there).
  std::function<void(std::size_t n, unsigned char* out)> prepare = nullptr;
};

void fill_input(const variant& v, std::size_t n) {
  const unsigned grid = unsigned(bench::sm_count()) * 8;
  const std::size_t distinct = std::max<std::size_t>(1, n * v.distinct_percent / 100);
  switch (v.item_bytes) {
    case 1: fill<<<grid, 256>>>(reinterpret_cast<std::uint8_t*>(ws().in), ws().flags, n, v.kind, distinct); break;
    case 4:
      if (v.type == "float") fill<<<grid, 256>>>(reinterpret_cast<float*>(ws().in), ws().flags, n, v.kind, distinct);
      else fill<<<grid, 256>>>(reinterpret_cast<int*>(ws().in), ws().flags, n, v.kind, distinct);
      break;
    default:
      if (v.type == "double") fill<<<grid, 256>>>(reinterpret_cast<double*>(ws().in), ws().flags, n, v.kind, distinct);
      else fill<<<grid, 256>>>(reinterpret_cast<long long*>(ws().in), ws().flags, n, v.kind, distinct);
  }
  CHECK(cudaGetLastError());
}

void add(const variant& v, int log_n) {
  const std::size_t n = std::size_t(1) << log_n;
  for (impl i : v.impls) {
    const std::string label = "device_" + v.algo + "/" + v.type + "/" + std::to_string(log_n) + "/" + name(i);
    benchmark::RegisterBenchmark(label.c_str(), [v, n, i](benchmark::State& s) {
      fill_input(v, n);
      // So that bytes no implementation writes compare equal: all that is compared, at least n items.
      const std::size_t clear = std::max(n * v.item_bytes + 64, v.out_bytes(n));
      CHECK(cudaMemset(ws().out, 0, clear));
      CHECK(cudaMemset(ws().want, 0, clear));
      const impl reference = v.impls.size() > 1 ? impl::cub : impl::tilekit;
      if (v.prepare) v.prepare(n, ws().want);
      v.run(reference, n, ws().want);
      if (v.prepare) v.prepare(n, ws().out);
      v.run(i, n, ws().out);
      CHECK(cudaDeviceSynchronize());
      if (i != reference) {
        if (const auto d = differing_bytes(ws().out, ws().want, v.out_bytes(n)); d != 0) {
          std::fprintf(stderr, "%s n=%zu: %s differs from cub in %llu bytes\n", v.algo.c_str(), n, name(i), d);
          std::exit(1);
        }
      }
      bench::time_kernel(s, [&] { v.run(i, n, ws().out); }, double(n), [&] {
        if (v.prepare) v.prepare(n, ws().out);
        bench::flush_l2();
      });
      s.counters["GBps"] = benchmark::Counter(v.moved(n) * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
    })->UseManualTime()->Iterations(25);
  }
}

template <class T>
T* as(unsigned char* p) {
  return reinterpret_cast<T*>(p);
}
template <class T>
const T* in_as() {
  return reinterpret_cast<const T*>(ws().in);
}

template <class T>
variant reduce_variant(const char* type) {
  return {"reduce", type, std::is_floating_point_v<T> ? data::halves : data::small_ints, sizeof(T),
          [](std::size_t n) { return double(n * sizeof(T)); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            if (i == impl::tilekit) CHECK(tilekit::cub::DeviceReduce::Sum(ws().temp, b, in_as<T>(), as<T>(out), n));
            else if (i == impl::cub) CHECK(cub::DeviceReduce::Sum(ws().temp, b, in_as<T>(), as<T>(out), n));
            else {
              const T sum = thrust::reduce(thrust::device, in_as<T>(), in_as<T>() + n, T(0));
              CHECK(cudaMemcpy(out, &sum, sizeof(T), cudaMemcpyHostToDevice));
            }
          },
          [](std::size_t) { return sizeof(T); }, {impl::tilekit, impl::cub, impl::thrust}};
}

template <class T, bool Exclusive>
variant scan_variant(const char* type) {
  return {Exclusive ? "exclusive_scan" : "scan", type, std::is_floating_point_v<T> ? data::halves : data::small_ints, sizeof(T),
          [](std::size_t n) { return 2.0 * double(n * sizeof(T)); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            if constexpr (Exclusive) {
              if (i == impl::tilekit) CHECK(tilekit::cub::DeviceScan::ExclusiveSum(ws().temp, b, in_as<T>(), as<T>(out), n));
              else if (i == impl::cub) CHECK(cub::DeviceScan::ExclusiveSum(ws().temp, b, in_as<T>(), as<T>(out), n));
              else thrust::exclusive_scan(thrust::device, in_as<T>(), in_as<T>() + n, as<T>(out));
            } else {
              if (i == impl::tilekit) CHECK(tilekit::cub::DeviceScan::InclusiveSum(ws().temp, b, in_as<T>(), as<T>(out), n));
              else if (i == impl::cub) CHECK(cub::DeviceScan::InclusiveSum(ws().temp, b, in_as<T>(), as<T>(out), n));
              else thrust::inclusive_scan(thrust::device, in_as<T>(), in_as<T>() + n, as<T>(out));
            }
          },
          [](std::size_t n) { return n * sizeof(T); }, {impl::tilekit, impl::cub, impl::thrust}};
}

template <class T>
variant argmin_variant(const char* type) {
  return {"argmin", type, std::is_floating_point_v<T> ? data::halves : data::small_ints, sizeof(T),
          [](std::size_t n) { return double(n * sizeof(T)); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            auto* value = as<T>(out);
            auto* index = as<std::int64_t>(out + 8);
            if (i == impl::tilekit) CHECK(tilekit::cub::DeviceReduce::ArgMin(ws().temp, b, in_as<T>(), value, index, std::int64_t(n)));
            else if (i == impl::cub) CHECK(cub::DeviceReduce::ArgMin(ws().temp, b, in_as<T>(), value, index, std::int64_t(n)));
            else {
              const std::int64_t at = thrust::min_element(thrust::device, in_as<T>(), in_as<T>() + n) - in_as<T>();
              CHECK(cudaMemcpy(value, in_as<T>() + at, sizeof(T), cudaMemcpyDeviceToDevice));
              CHECK(cudaMemcpy(index, &at, sizeof(at), cudaMemcpyHostToDevice));
            }
          },
          [](std::size_t) { return std::size_t(16); }, {impl::tilekit, impl::cub, impl::thrust}};
}

template <int Threshold>
struct below {
  __host__ __device__ bool operator()(int x) const { return x < Threshold; }
};

template <int Threshold>  // -2000: none kept; 2000: all kept
variant select_variant(const char* algo) {
  return {algo, "int32", data::small_ints, 4,
          [](std::size_t n) { return 4.0 * double(n) * (Threshold > 0 ? 2.0 : 1.0); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            int* num = as<int>(out + 4 * n);
            if (i == impl::tilekit) CHECK(tilekit::cub::DeviceSelect::If(ws().temp, b, in_as<int>(), as<int>(out), num, n, below<Threshold>{}));
            else if (i == impl::cub) CHECK(cub::DeviceSelect::If(ws().temp, b, in_as<int>(), as<int>(out), num, n, below<Threshold>{}));
            else {
              const int k = int(thrust::copy_if(thrust::device, in_as<int>(), in_as<int>() + n, as<int>(out), below<Threshold>{}) - as<int>(out));
              CHECK(cudaMemcpy(num, &k, sizeof(k), cudaMemcpyHostToDevice));
            }
          },
          [](std::size_t n) { return 4 * n + 4; }, {impl::tilekit, impl::cub, impl::thrust}};
}

struct is_set {
  __host__ __device__ bool operator()(unsigned char f) const { return f != 0; }
};

variant flagged_variant() {
  return {"select_flagged", "int32", data::small_ints, 4,
          [](std::size_t n) { return 5.0 * double(n) + 2.0 * double(n); },  // items and flags read, about half written
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            int* num = as<int>(out + 4 * n);
            if (i == impl::tilekit) CHECK(tilekit::cub::DeviceSelect::Flagged(ws().temp, b, in_as<int>(), ws().flags, as<int>(out), num, n));
            else if (i == impl::cub) CHECK(cub::DeviceSelect::Flagged(ws().temp, b, in_as<int>(), ws().flags, as<int>(out), num, n));
            else {
              const int k = int(thrust::copy_if(thrust::device, in_as<int>(), in_as<int>() + n, ws().flags, as<int>(out), is_set{}) - as<int>(out));
              CHECK(cudaMemcpy(num, &k, sizeof(k), cudaMemcpyHostToDevice));
            }
          },
          [](std::size_t n) { return 4 * n + 4; }, {impl::tilekit, impl::cub, impl::thrust}};
}

template <class T>
variant histogram_variant(const char* algo, const char* type, data kind, int bins, int lower, int upper) {
  return {algo, type, kind, sizeof(T), [](std::size_t n) { return double(n * sizeof(T)); },
          [=](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            if (i == impl::tilekit)
              CHECK(tilekit::cub::DeviceHistogram::HistogramEven(ws().temp, b, in_as<T>(), as<int>(out), bins + 1, lower, upper, std::int64_t(n)));
            else CHECK(cub::DeviceHistogram::HistogramEven(ws().temp, b, in_as<T>(), as<int>(out), bins + 1, lower, upper, std::int64_t(n)));
          },
          [=](std::size_t) { return std::size_t(bins) * 4; }, {impl::tilekit, impl::cub}};
}

// By-key algorithms over int32 keys in runs of 8 (the values: the keys themselves).
variant reduce_by_key_variant() {
  return {"reduce_by_key", "int32", data::runs_of_8, 4, [](std::size_t n) { return 8.0 * double(n) + 1.0 * double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            int *keys = as<int>(out), *sums = as<int>(out + 4 * n), *num = as<int>(out + 8 * n);
            if (i == impl::tilekit)
              CHECK(tilekit::cub::DeviceReduce::ReduceByKey(ws().temp, b, in_as<int>(), keys, in_as<int>(), sums, num,
                                                            cuda::std::plus<>{}, std::int64_t(n)));
            else
              CHECK(cub::DeviceReduce::ReduceByKey(ws().temp, b, in_as<int>(), keys, in_as<int>(), sums, num, cuda::std::plus<>{},
                                                   std::int64_t(n)));
          },
          [](std::size_t n) { return 8 * n + 4; }, {impl::tilekit, impl::cub}};
}

variant unique_by_key_variant() {
  return {"unique_by_key", "int32", data::runs_of_8, 4, [](std::size_t n) { return 8.0 * double(n) + 1.0 * double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            int *keys = as<int>(out), *values = as<int>(out + 4 * n), *num = as<int>(out + 8 * n);
            if (i == impl::tilekit)
              CHECK(tilekit::cub::DeviceSelect::UniqueByKey(ws().temp, b, in_as<int>(), in_as<int>(), keys, values, num,
                                                            std::int64_t(n)));
            else CHECK(cub::DeviceSelect::UniqueByKey(ws().temp, b, in_as<int>(), in_as<int>(), keys, values, num, std::int64_t(n)));
          },
          [](std::size_t n) { return 8 * n + 4; }, {impl::tilekit, impl::cub}};
}

variant scan_by_key_variant() {
  return {"scan_by_key", "int32", data::runs_of_8, 4, [](std::size_t n) { return 12.0 * double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            if (i == impl::tilekit)
              CHECK(tilekit::cub::DeviceScan::InclusiveSumByKey(ws().temp, b, in_as<int>(), in_as<int>(), as<int>(out), std::int64_t(n)));
            else CHECK(cub::DeviceScan::InclusiveSumByKey(ws().temp, b, in_as<int>(), in_as<int>(), as<int>(out), std::int64_t(n)));
          },
          [](std::size_t n) { return 4 * n; }, {impl::tilekit, impl::cub}};
}

// The offsets of `segments` segments of Length items, in a device buffer of their own
// (written again only when the count changes).
template <int Length>
const long long* segment_offsets(std::int64_t segments) {
  static long long* offsets = [] {
    long long* p = nullptr;
    CHECK(cudaMalloc(&p, (in_bytes / 4 / Length + 2) * sizeof(long long)));
    return p;
  }();
  static std::int64_t filled = -1;
  if (filled != segments) {
    std::vector<long long> h(std::size_t(segments) + 1);
    for (std::int64_t s = 0; s <= segments; ++s) h[std::size_t(s)] = s * Length;
    CHECK(cudaMemcpy(offsets, h.data(), h.size() * sizeof(long long), cudaMemcpyHostToDevice));
    filled = segments;
  }
  return offsets;
}

// Three of four interleaved uint8 channels (RGBA pixels, alpha not counted), 256 bins each:
// one row of pixels (pitch 0), or rows of row_pixels pixels `pitch` bytes apart
// (MultiHistogramEven's row-stride form).
variant multi_histogram_variant(const char* algo, std::int64_t row_pixels = 0, std::int64_t pitch = 0) {
  return {algo, "uint8", data::bytes, 1, [](std::size_t n) { return double(n); },
          [=](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            int* h = as<int>(out);
            const ::cuda::std::array<int*, 3> histograms{h, h + 256, h + 512};
            const ::cuda::std::array<int, 3> levels{257, 257, 257}, lower{0, 0, 0}, upper{256, 256, 256};
            const auto* pixels = in_as<unsigned char>();
            const std::int64_t rows = pitch == 0 ? 0 : std::int64_t(n) / pitch;  // as many whole rows as fit
            auto run = [&](auto histogram) {  // (tilekit's facade or CUB: the same call)
              if (pitch == 0)
                return histogram.template MultiHistogramEven<4, 3>(ws().temp, b, pixels, histograms, levels, lower, upper,
                                                                   std::int64_t(n / 4));
              return histogram.template MultiHistogramEven<4, 3>(ws().temp, b, pixels, histograms, levels, lower, upper, row_pixels,
                                                                 rows, std::size_t(pitch));
            };
            if (i == impl::tilekit) CHECK(run(tilekit::cub::DeviceHistogram{}));
            else CHECK(run(cub::DeviceHistogram{}));
          },
          [](std::size_t) { return std::size_t(3 * 256 * 4); }, {impl::tilekit, impl::cub}};
}

// DevicePartition::Flagged: the flagged items in order, then the rest in reverse order.
variant partition_flagged_variant() {
  return {"partition_flagged", "int32", data::small_ints, 4, [](std::size_t n) { return 5.0 * double(n) + 4.0 * double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            int* num = as<int>(out + 4 * n);
            if (i == impl::tilekit)
              CHECK(tilekit::cub::DevicePartition::Flagged(ws().temp, b, in_as<int>(), ws().flags, as<int>(out), num, std::int64_t(n)));
            else CHECK(cub::DevicePartition::Flagged(ws().temp, b, in_as<int>(), ws().flags, as<int>(out), num, std::int64_t(n)));
          },
          [](std::size_t n) { return 4 * n + 4; }, {impl::tilekit, impl::cub}};
}

template <int Threshold>
struct above {
  __host__ __device__ bool operator()(int x) const { return x > Threshold; }
};

variant partition3_variant() {
  return {"partition3", "int32", data::small_ints, 4, [](std::size_t n) { return 8.0 * double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            // The three parts share out: first from the front, second from the middle, the rest after them.
            int *first = as<int>(out), *second = as<int>(out) + n / 2, *rest = as<int>(out) + n, *num = as<int>(out) + 2 * n;
            if (i == impl::tilekit)
              CHECK(tilekit::cub::DevicePartition::If(ws().temp, b, in_as<int>(), first, second, rest, num, std::int64_t(n),
                                                      below<-500>{}, above<500>{}));
            else
              CHECK(cub::DevicePartition::If(ws().temp, b, in_as<int>(), first, second, rest, num, std::int64_t(n), below<-500>{},
                                             above<500>{}));
          },
          [](std::size_t n) { return 4 * (2 * n + 2); }, {impl::tilekit, impl::cub}};
}

// The in-place forms on int32: DeviceScan::InclusiveSum (Select = false) and DeviceSelect::If
// keeping the negative items, about half (Select = true). Each run works on a copy of the input
// in out, made before it outside the timing.
template <bool Select>
variant in_place_variant(const char* algo) {
  variant v{algo, "int32", data::small_ints, 4, [](std::size_t n) { return Select ? 6.0 * double(n) : 8.0 * double(n); },
            [](impl i, std::size_t n, unsigned char* out) {
              std::size_t b = ws().temp_bytes;
              int* data = as<int>(out);
              if constexpr (Select) {
                int* num = as<int>(out + 4 * n);
                if (i == impl::tilekit) CHECK(tilekit::cub::DeviceSelect::If(ws().temp, b, data, num, std::int64_t(n), below<0>{}));
                else CHECK(cub::DeviceSelect::If(ws().temp, b, data, num, std::int64_t(n), below<0>{}));
              } else {
                if (i == impl::tilekit) CHECK(tilekit::cub::DeviceScan::InclusiveSum(ws().temp, b, data, std::int64_t(n)));
                else CHECK(cub::DeviceScan::InclusiveSum(ws().temp, b, data, std::int64_t(n)));
              }
            },
            [](std::size_t n) { return 4 * n + (Select ? 4 : 0); }, {impl::tilekit, impl::cub}};
  v.prepare = [](std::size_t n, unsigned char* out) { CHECK(cudaMemcpyAsync(out, ws().in, 4 * n, cudaMemcpyDeviceToDevice)); };
  return v;
}

// DeviceSelect::FlaggedIf: the items whose flag (about half set) passes the predicate (flag != 0).
variant flagged_if_variant() {
  return {"select_flagged_if", "int32", data::small_ints, 4, [](std::size_t n) { return 5.0 * double(n) + 2.0 * double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            int* num = as<int>(out + 4 * n);
            if (i == impl::tilekit)
              CHECK(tilekit::cub::DeviceSelect::FlaggedIf(ws().temp, b, in_as<int>(), ws().flags, as<int>(out), num, std::int64_t(n), is_set{}));
            else CHECK(cub::DeviceSelect::FlaggedIf(ws().temp, b, in_as<int>(), ws().flags, as<int>(out), num, std::int64_t(n), is_set{}));
          },
          [](std::size_t n) { return 4 * n + 4; }, {impl::tilekit, impl::cub}};
}

// ExclusiveSumByKey and InclusiveScanByKey (maximum) of int32 keys in runs of 8 (the values: the keys).
template <bool Exclusive>
variant scan_by_key_form_variant(const char* algo) {
  return {algo, "int32", data::runs_of_8, 4, [](std::size_t n) { return 12.0 * double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            std::size_t b = ws().temp_bytes;
            if constexpr (Exclusive) {
              if (i == impl::tilekit)
                CHECK(tilekit::cub::DeviceScan::ExclusiveSumByKey(ws().temp, b, in_as<int>(), in_as<int>(), as<int>(out), std::int64_t(n)));
              else CHECK(cub::DeviceScan::ExclusiveSumByKey(ws().temp, b, in_as<int>(), in_as<int>(), as<int>(out), std::int64_t(n)));
            } else {
              if (i == impl::tilekit)
                CHECK(tilekit::cub::DeviceScan::InclusiveScanByKey(ws().temp, b, in_as<int>(), in_as<int>(), as<int>(out),
                                                                   ::cuda::maximum<>{}, std::int64_t(n)));
              else
                CHECK(cub::DeviceScan::InclusiveScanByKey(ws().temp, b, in_as<int>(), in_as<int>(), as<int>(out), ::cuda::maximum<>{},
                                                          std::int64_t(n)));
            }
          },
          [](std::size_t n) { return 4 * n; }, {impl::tilekit, impl::cub}};
}

// DeviceSegmentedReduce::Sum, Max, ArgMin or ArgMax over segments of Length int32 (the Arg
// forms give {offset in the segment, value} of the first extreme item).
enum class segmented { sum, max, arg_min, arg_max };
template <int Length, segmented Kind>
variant segmented_variant(const char* algo) {
  constexpr bool pairs_out = Kind == segmented::arg_min || Kind == segmented::arg_max;
  return {algo, "int32", data::small_ints, 4, [](std::size_t n) { return 4.0 * double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            const std::int64_t segments = std::int64_t(n / Length);
            const long long* offsets = segment_offsets<Length>(segments);
            std::size_t b = ws().temp_bytes;
            // The facade's call or CUB's, the same: `reduce` is either's DeviceSegmentedReduce,
            // `pairs` the output as either's KeyValuePair<int, int> (the Arg forms).
            auto run = [&](auto reduce, [[maybe_unused]] auto* pairs) {
              if constexpr (Kind == segmented::sum)
                return reduce.Sum(ws().temp, b, in_as<int>(), as<int>(out), segments, offsets, offsets + 1);
              else if constexpr (Kind == segmented::max)
                return reduce.Max(ws().temp, b, in_as<int>(), as<int>(out), segments, offsets, offsets + 1);
              else if constexpr (Kind == segmented::arg_min)
                return reduce.ArgMin(ws().temp, b, in_as<int>(), pairs, segments, offsets, offsets + 1);
              else
                return reduce.ArgMax(ws().temp, b, in_as<int>(), pairs, segments, offsets, offsets + 1);
            };
            if (i == impl::tilekit)
              CHECK(run(tilekit::cub::DeviceSegmentedReduce{}, reinterpret_cast<tilekit::cub::KeyValuePair<int, int>*>(out)));
            else CHECK(run(cub::DeviceSegmentedReduce{}, reinterpret_cast<cub::KeyValuePair<int, int>*>(out)));
          },
          [](std::size_t n) { return (pairs_out ? 8 : 4) * (n / Length); }, {impl::tilekit, impl::cub}};
}

// MultiHistogramRange of RGBA uint8 (3 channels), 256 bins each with levels 0, 1, ..., 256 in device memory.
variant multi_histogram_range_variant(const char* algo) {
  return {algo, "uint8", data::bytes, 1, [](std::size_t n) { return double(n); },
          [](impl i, std::size_t n, unsigned char* out) {
            static const int* levels = [] {
              std::vector<int> h(257);
              for (int l = 0; l <= 256; ++l) h[std::size_t(l)] = l;
              int* p = nullptr;
              CHECK(cudaMalloc(&p, h.size() * sizeof(int)));
              CHECK(cudaMemcpy(p, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
              return p;
            }();
            std::size_t b = ws().temp_bytes;
            int* h = as<int>(out);
            const ::cuda::std::array<int*, 3> histograms{h, h + 256, h + 512};
            const ::cuda::std::array<int, 3> num_levels{257, 257, 257};
            const ::cuda::std::array<const int*, 3> level_arrays{levels, levels, levels};
            const auto* pixels = in_as<unsigned char>();
            if (i == impl::tilekit)
              CHECK((tilekit::cub::DeviceHistogram::MultiHistogramRange<4, 3>(ws().temp, b, pixels, histograms, num_levels,
                                                                               level_arrays, std::int64_t(n / 4))));
            else
              CHECK((cub::DeviceHistogram::MultiHistogramRange<4, 3>(ws().temp, b, pixels, histograms, num_levels, level_arrays,
                                                                      std::int64_t(n / 4))));
          },
          [](std::size_t) { return std::size_t(3 * 256 * 4); }, {impl::tilekit, impl::cub}};
}

__global__ void iota(unsigned* p, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = unsigned(i);
}

// The distinct keys in order of first occurrence, and their count (int64 at out + 4 n + 8).
// CUB has no such call; its users sort (key, index) pairs, keep each key's first pair
// (the sort is stable: the lowest index), and sort those back by index. All of it is
// timed, the host's read of the count included (the second sort needs it).
template <std::size_t Percent>
variant distinct_variant(const char* algo) {
  variant v{algo, "int32", data::keys, 4,
            [](std::size_t n) { return 4.0 * double(n) + 4.0 * double(std::max<std::size_t>(1, n * Percent / 100)); },
            [](impl i, std::size_t n, unsigned char* out) {
              auto* num = as<std::int64_t>(out + 4 * n + 8);
              if (i == impl::tilekit) {
                std::size_t b = ws().temp_bytes;
                CHECK(tilekit::device::distinct(ws().temp, b, in_as<int>(), std::int64_t(n), as<int>(out), num));
                return;
              }
              unsigned char* t = static_cast<unsigned char*>(ws().temp);
              auto* index = reinterpret_cast<unsigned*>(t);
              auto* sorted_keys = reinterpret_cast<int*>(t + 4 * n);
              auto* sorted_index = reinterpret_cast<unsigned*>(t + 8 * n);
              auto* first_keys = reinterpret_cast<int*>(t + 12 * n);
              auto* first_index = reinterpret_cast<unsigned*>(t + 16 * n);
              void* cub_temp = t + 20 * n;
              const std::size_t cub_bytes = ws().temp_bytes - 20 * n;
              iota<<<unsigned(bench::sm_count()) * 8, 256>>>(index, n);
              std::size_t b = cub_bytes;
              CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, b, in_as<int>(), sorted_keys, index, sorted_index, std::int64_t(n)));
              b = cub_bytes;
              CHECK(cub::DeviceSelect::UniqueByKey(cub_temp, b, sorted_keys, sorted_index, first_keys, first_index, num, std::int64_t(n)));
              std::int64_t kept = 0;
              CHECK(cudaMemcpy(&kept, num, sizeof(kept), cudaMemcpyDeviceToHost));
              int index_bits = 1;
              while ((std::size_t(1) << index_bits) < n) ++index_bits;
              b = cub_bytes;
              CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, b, first_index, index, first_keys, as<int>(out), kept, 0, index_bits));
            },
            [](std::size_t n) { return 4 * n + 16; }, {impl::tilekit, impl::cub}};
  v.distinct_percent = Percent;
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  // Which CUB the cub rows ran: the JSON's context says, and the report names it.
  benchmark::AddCustomContext("cub_version", std::to_string(CUB_MAJOR_VERSION) + "." + std::to_string(CUB_MINOR_VERSION) +
                                                 "." + std::to_string(CUB_SUBMINOR_VERSION));
  return bench::run(argc, argv, [] {
    const std::vector<variant> variants = {
        reduce_variant<long long>("int64"), reduce_variant<float>("float"), reduce_variant<double>("double"),
        scan_variant<long long, false>("int64"), scan_variant<float, false>("float"), scan_variant<double, false>("double"),
        scan_variant<int, true>("int32"), argmin_variant<int>("int32"), argmin_variant<float>("float"),
        select_variant<-2000>("select0"), select_variant<2000>("select100"), flagged_variant(),
        histogram_variant<int>("histogram65536", "int32", data::wide_ints, 65536, -32768, 32768),
        histogram_variant<int>("histogram65536_skewed", "int32", data::skewed_wide_ints, 65536, -32768, 32768),
        histogram_variant<int>("histogram200000", "int32", data::huge_ints, 200000, -100000, 100000),
        histogram_variant<int>("histogram200000_skewed", "int32", data::skewed_huge_ints, 200000, -100000, 100000),
        histogram_variant<int>("histogram16384", "int32", data::wide_ints, 16384, -32768, 32768),
        histogram_variant<int>("histogram16384_skewed", "int32", data::skewed_wide_ints, 16384, -32768, 32768),
        histogram_variant<int>("histogram4096", "int32", data::wide_ints, 4096, -32768, 32768),
        histogram_variant<int>("histogram4096_skewed", "int32", data::skewed_wide_ints, 4096, -32768, 32768),
        histogram_variant<std::uint8_t>("histogram256_u8_skewed", "uint8", data::skewed_bytes, 256, 0, 256),
        histogram_variant<std::uint8_t>("histogram256_u8_equal", "uint8", data::equal_bytes, 256, 0, 256),
        histogram_variant<std::uint8_t>("histogram256_u8", "uint8", data::bytes, 256, 0, 256), distinct_variant<1>("distinct"),
        distinct_variant<50>("distinct50"), distinct_variant<100>("distinct100"),
        reduce_by_key_variant(), unique_by_key_variant(), scan_by_key_variant(), segmented_variant<1024, segmented::sum>("segmented_sum1024"),
        segmented_variant<64, segmented::sum>("segmented_sum64"), segmented_variant<1024, segmented::arg_min>("segmented_argmin1024"),
        multi_histogram_variant("histogram_rgba3"),
        multi_histogram_variant("histogram_rgba3_rows", 1920, 1920 * 4 + 128), partition_flagged_variant(), partition3_variant(),
        in_place_variant<false>("scan_in_place"), in_place_variant<true>("select_in_place"), flagged_if_variant(),
        scan_by_key_form_variant<true>("exclusive_sum_by_key"), scan_by_key_form_variant<false>("scan_by_key_max"),
        segmented_variant<1024, segmented::max>("segmented_max1024"),
        segmented_variant<1024, segmented::arg_max>("segmented_argmax1024"),
        multi_histogram_range_variant("histogram_rgba3_range")};
    for (int log_n : bench::size_logs({16, 20, 24, 28, 30}, 10, 30)) {
      bench::add_limits(log_n, ws().in, ws().out, in_bytes);
      for (const variant& v : variants)
        if (log_n <= 28 || v.item_bytes == 1) add(v, log_n);  // 2^30 only for 1-byte samples
    }
  });
}
