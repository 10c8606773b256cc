// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Order-preserving dedup of an unsorted stream of keys, without sorting:
// tilekit::device::distinct keeps the first occurrence of every key, in stream
// order (a hash set in the temporary storage keeps each key's lowest index; a bitmap
// marks those indices; the marked keys are gathered in order). Also unique_count (runs of equal adjacent keys: what unique would
// keep) and count (occurrences of one key).
//
// The stream: runs of about 3 equal keys, 1% of the keys distinct.
// Simulator build (distinct_sim): 20000 keys through the same dispatch code
// (tilekit::device_distinct with a tilekit::sim::launcher), checked against the CPU.
// GPU build (distinct_gpu, this file through distinct.cu): 2^26 keys, timed (medians
// of 7 runs, CUDA events) against what a CUB user writes today for the same
// result: sort (key, index) pairs, keep the first of each key (UniqueByKey), sort
// the survivors back by index. Both are checked against the CPU.
#if defined(__CUDACC__)
#  include <tilekit/device/distinct.cuh>
#  include <tilekit/tilekit.cuh>
#  include <cub/device/device_radix_sort.cuh>
#  include <cub/device/device_select.cuh>
#  include <algorithm>
#  include "gpu_helpers.cuh"  // CHECK, median_ms, small_inputs
#else
#  include <tilekit/sim.cuh>
#endif

#include <cstdint>
#include <cstdio>
#include <vector>

// The stream: key i is the image of slot(i) = hash(i / 3) % slots under a bijection
// of 32-bit words, so the keys look random and there are at most `slots` of them.
inline unsigned slot_of(std::uint64_t i, std::uint64_t slots) {
  std::uint64_t h = (i / 3 + 1) * 0x9E3779B97F4A7C15ull;
  return unsigned((h ^ (h >> 32)) % slots);
}
inline int key_of(unsigned slot) {
  unsigned x = slot;
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
  return int(x);
}

struct expected {
  std::vector<int> distinct;            // first occurrences, in order
  std::int64_t runs = 0, of_first = 0;  // runs of equal adjacent keys; occurrences of keys[0]
};
inline std::vector<int> make_keys(std::size_t n, std::uint64_t slots, expected& want) {
  std::vector<int> keys(n);
  std::vector<unsigned char> seen(slots, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned s = slot_of(i, slots);
    keys[i] = key_of(s);
    if (!seen[s]) seen[s] = 1, want.distinct.push_back(keys[i]);
    want.runs += i == 0 || keys[i] != keys[i - 1];
    want.of_first += keys[i] == keys[0];
  }
  return keys;
}

struct equals {  // count's predicate for the simulator
  int key;
  TILEKIT_HD bool operator()(int x) const { return x == key; }
};

#if !defined(__CUDACC__)

int main() {
  const std::size_t n = 20000;
  expected want;
  const std::vector<int> keys = make_keys(n, n / 100, want);
  std::vector<int> out(n, 0);
  std::int64_t num = -1, runs = -1, of_first = -1;
  const tilekit::sim::launcher launcher;
  std::size_t bytes = 0;
  std::vector<unsigned char> temp;
  auto two_phases = [&](auto call) {  // CUB's protocol: ask for the size, then run
    bytes = 0;
    if (call(nullptr) != launcher.success) return false;
    temp.assign(bytes, 0xCD);
    return call(temp.data()) == launcher.success;
  };
  const std::int64_t count = std::int64_t(n);
  bool ok = two_phases([&](void* t) { return tilekit::device_distinct(launcher, t, bytes, keys.data(), count, out.data(), &num); });
  ok = ok && two_phases([&](void* t) { return tilekit::device_unique_count(launcher, t, bytes, keys.data(), count, &runs); });
  ok = ok && two_phases([&](void* t) {
    return tilekit::device_count_if(launcher, t, bytes, keys.data(), count, &of_first, equals{keys[0]});
  });
  out.resize(num >= 0 && std::size_t(num) <= n ? std::size_t(num) : 0);
  ok = ok && out == want.distinct && runs == want.runs && of_first == want.of_first;
  std::printf("distinct (simulator): %zu keys in runs of about 3, %zu of them distinct\n", n, want.distinct.size());
  std::printf("  distinct: %lld keys, in order of first occurrence: %d %d %d %d ...\n", (long long)num, out.size() > 3 ? out[0] : 0,
              out.size() > 3 ? out[1] : 0, out.size() > 3 ? out[2] : 0, out.size() > 3 ? out[3] : 0);
  std::printf("  unique_count (runs of equal adjacent keys): %lld; count of key %d: %lld\n", (long long)runs, keys[0],
              (long long)of_first);
  std::printf("  %s\n", ok ? "all match the CPU" : "MISMATCHES against the CPU");
  return ok ? 0 : 1;
}

#else  // the GPU: against the sort-based CUB pipeline

__global__ void iota(unsigned* v, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = i;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("distinct: no CUDA device (run distinct_sim instead)\n");
    return 77;
  }
  // TILEKIT_TEST_SMALL=1 (.ci/gpu-check sets it under compute-sanitizer): a small input, one timed run.
  const bool small = small_inputs();
  const unsigned n = small ? 20000u : 1u << 26;
  const int runs = small ? 1 : 7;
  expected want;
  const std::vector<int> keys = make_keys(n, n / 100, want);
  int *d_keys, *d_out, *c_sorted, *c_out;
  unsigned *c_index, *c_index_sorted;
  std::int64_t* d_num;  // tilekit: distinct count, unique_count, count; CUB: distinct count
  CHECK(cudaMalloc(&d_keys, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&c_sorted, n * sizeof(int)));
  CHECK(cudaMalloc(&c_out, n * sizeof(int)));
  CHECK(cudaMalloc(&c_index, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&c_index_sorted, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_num, 4 * sizeof(std::int64_t)));
  CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  // The CUB pipeline reuses its buffers: c_out holds the survivors' keys, then the result.
  int* c_unique = c_out;
  unsigned* c_unique_index = c_index;  // free once the first sort has read it

  std::size_t tk_bytes = 0, b[3] = {0, 0, 0};
  CHECK(tilekit::device::distinct(nullptr, tk_bytes, d_keys, n, d_out, d_num));
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, b[0], d_keys, c_sorted, c_index, c_index_sorted, n));
  CHECK(cub::DeviceSelect::UniqueByKey(nullptr, b[1], c_sorted, c_index_sorted, c_unique, c_unique_index, d_num + 3, n));
  int index_bits = 1;
  while ((1ull << index_bits) < n) ++index_bits;
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, b[2], c_unique_index, c_index_sorted, c_unique, c_sorted, n, 0, index_bits));
  const std::size_t cub_bytes = std::max({b[0], b[1], b[2]});
  void *tk_temp, *cub_temp;
  CHECK(cudaMalloc(&tk_temp, tk_bytes));
  CHECK(cudaMalloc(&cub_temp, cub_bytes));
  std::int64_t cub_num = 0;

  auto run_tilekit = [&] { CHECK(tilekit::device::distinct(tk_temp, tk_bytes, d_keys, n, d_out, d_num)); };
  auto run_cub = [&] {
    std::size_t bytes = cub_bytes;
    iota<<<(n + 255) / 256, 256>>>(c_index, n);
    CHECK(cudaGetLastError());
    // Sort by key; the sort is stable, so each key's first index comes first.
    CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, bytes, d_keys, c_sorted, c_index, c_index_sorted, n));
    CHECK(cub::DeviceSelect::UniqueByKey(cub_temp, bytes, c_sorted, c_index_sorted, c_unique, c_unique_index, d_num + 3, n));
    CHECK(cudaMemcpy(&cub_num, d_num + 3, sizeof(cub_num), cudaMemcpyDeviceToHost));  // the last sort needs the count
    // Back to stream order: sort the survivors by their index (only its low bits vary).
    CHECK(cub::DeviceRadixSort::SortPairs(cub_temp, bytes, c_unique_index, c_index_sorted, c_unique, c_sorted, cub_num, 0,
                                          index_bits));
  };
  const float t_tilekit = median_ms(run_tilekit, runs);
  const float t_cub = median_ms(run_cub, runs);
  std::size_t bytes = tk_bytes;  // unique_count and count: smaller storage than distinct's
  CHECK(tilekit::device::unique_count(tk_temp, bytes, d_keys, n, d_num + 1));
  bytes = tk_bytes;
  CHECK(tilekit::device::count(tk_temp, bytes, d_keys, n, keys[0], d_num + 2));
  CHECK(cudaDeviceSynchronize());

  std::int64_t num[4];
  CHECK(cudaMemcpy(num, d_num, sizeof(num), cudaMemcpyDeviceToHost));
  const std::size_t d = want.distinct.size();
  std::vector<int> got_tk(d), got_cub(d);
  CHECK(cudaMemcpy(got_tk.data(), d_out, d * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_cub.data(), c_sorted, d * sizeof(int), cudaMemcpyDeviceToHost));  // the last sort's values
  const bool tk_ok = num[0] == std::int64_t(d) && got_tk == want.distinct;
  const bool cub_ok = num[3] == std::int64_t(d) && got_cub == want.distinct;
  const bool counts_ok = num[1] == want.runs && num[2] == want.of_first;
  for (void* p : {(void*)d_keys, (void*)d_out, (void*)c_sorted, (void*)c_out, (void*)c_index, (void*)c_index_sorted,
                  (void*)d_num, tk_temp, cub_temp})
    CHECK(cudaFree(p));

  std::printf("distinct (GPU): %u int keys in runs of about 3, %zu distinct (%.1f%%)\n", n, d, 100.0 * double(d) / n);
  std::printf("  tilekit::device::distinct (hash set + gather):      %8.3f ms, %lld keys%s\n", t_tilekit, (long long)num[0],
              tk_ok ? "" : "  WRONG");
  std::printf("  CUB: sort pairs, UniqueByKey, count to host, sort back: %8.3f ms, %lld keys%s\n", t_cub, (long long)num[3],
              cub_ok ? "" : "  WRONG");
  std::printf("  CUB's time / tilekit's: %.2f (medians of %d runs%s)\n", t_cub / t_tilekit, runs,
              small ? ", TILEKIT_TEST_SMALL: not a measurement" : "");
  std::printf("  temporary storage: tilekit %.0f MB; CUB %.0f MB and 4 buffers of n items (%.0f MB)\n", tk_bytes / 1e6,
              cub_bytes / 1e6, 4.0 * n * sizeof(int) / 1e6);
  std::printf("  unique_count: %lld runs; count of key %d: %lld%s\n", (long long)num[1], keys[0], (long long)num[2],
              counts_ok ? "" : "  WRONG");
  const bool ok = tk_ok && cub_ok && counts_ok;
  std::printf("  %s\n", ok ? "both give the CPU's keys in the CPU's order; the counts match the CPU" : "MISMATCHES against the CPU");
  return ok ? 0 : 1;
}

#endif
