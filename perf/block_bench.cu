// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Block-level benchmarks: tilekit's block reduce, scan and histogram against
// CUB's BlockReduce, BlockScan and BlockHistogram in one process, at the block
// shapes CUB's sm_90 tuning uses. Each block runs `iters` dependent block
// operations on register data, so the number is block operations (or samples)
// per second; every harness loop has the same unroll. CUDA-event timing,
// medians of repetitions (Google Benchmark, manual time). Results are checked
// against CUB once before timing.
//
// tilekit's block reduce gives the result to every thread; CUB's to thread 0.
// "cub" is CUB as it comes; "cub_broadcast" adds the shared-memory broadcast a
// CUB user needs to get tilekit's result everywhere.
#include "bench_common.cuh"

#include <tilekit/tilekit.cuh>

#include <benchmark/benchmark.h>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int iters = 64;
#define HARNESS_UNROLL _Pragma("unroll 1")

// tilekit_warp_scans: the scan's other variant (the default, "tilekit", rakes).
enum class impl { tilekit, cub, cub_broadcast, tilekit_warp_scans };
const char* name(impl i) {
  switch (i) {
    case impl::tilekit: return "tilekit";
    case impl::cub: return "cub";
    case impl::cub_broadcast: return "cub_broadcast";
    default: return "tilekit_warp_scans";
  }
}

template <class T>
__device__ T seed_value(unsigned i) {
  return T(int((i * 2654435761u) >> 24) - 128);
}

template <unsigned Threads, int K, class T, impl I>
__global__ void __launch_bounds__(Threads) reduce_kernel(T* out) {
  using cub_reduce = cub::BlockReduce<T, Threads>;
  __shared__ union {
    tilekit::reduce_storage<T, Threads> tk;
    typename cub_reduce::TempStorage cub;
    T broadcast;
  } storage;
  auto block = tilekit::this_block<Threads>();
  T items[K];
  for (int k = 0; k < K; ++k) items[k] = seed_value<T>(blockIdx.x * Threads * K + threadIdx.x * K + k);
  T acc = T(0);
  HARNESS_UNROLL
  for (int i = 0; i < iters; ++i) {
    T total;
    if constexpr (I == impl::tilekit) {
      total = tilekit::reduce(block, items, tilekit::plus{}, storage.tk);
    } else {
      total = cub_reduce(storage.cub).Sum(items);
      if constexpr (I == impl::cub_broadcast) {
        __syncthreads();
        if (threadIdx.x == 0) storage.broadcast = total;
        __syncthreads();
        total = storage.broadcast;
      }
    }
    __syncthreads();  // storage reused by the next iteration
    acc += total;
    items[i % K] += T(1);
  }
  if (I == impl::tilekit || threadIdx.x == 0) out[blockIdx.x] = acc;
}

template <unsigned Threads, int K, class T, impl I>
__global__ void __launch_bounds__(Threads) scan_kernel(T* out) {
  using cub_scan = cub::BlockScan<T, Threads>;
  __shared__ union {
    tilekit::scan_storage<T, Threads> tk;
    tilekit::scan_storage<T, Threads, tilekit::block_scan_algorithm::warp_scans> tk_warps;
    typename cub_scan::TempStorage cub;
  } storage;
  auto block = tilekit::this_block<Threads>();
  T items[K];
  for (int k = 0; k < K; ++k) items[k] = seed_value<T>(blockIdx.x * Threads * K + threadIdx.x * K + k);
  HARNESS_UNROLL
  for (int i = 0; i < iters; ++i) {
    T scanned[K];
    if constexpr (I == impl::tilekit) tilekit::exclusive_scan(block, items, scanned, tilekit::plus{}, T(0), storage.tk);
    else if constexpr (I == impl::tilekit_warp_scans)
      tilekit::exclusive_scan(block, items, scanned, tilekit::plus{}, T(0), storage.tk_warps);
    else cub_scan(storage.cub).ExclusiveSum(items, scanned);
    __syncthreads();
    for (int k = 0; k < K; ++k) items[k] += scanned[k] > T(0) ? T(1) : T(0);  // chains iterations, stays small
  }
  T s = items[0];
  for (int k = 1; k < K; ++k) s += items[k];
  out[blockIdx.x * Threads + threadIdx.x] = s;
}

// Histogram of 256 bins of uint8 samples; skew: 3 of 4 samples in bin 7.
template <unsigned Threads, int K, impl I>
__global__ void __launch_bounds__(Threads) histogram_kernel(unsigned* out, int skewed) {
  using cub_histogram = cub::BlockHistogram<unsigned char, Threads, K, 256, cub::BLOCK_HISTO_ATOMIC>;
  __shared__ typename cub_histogram::TempStorage temp;
  __shared__ unsigned counters[256];
  auto block = tilekit::this_block<Threads>();
  unsigned h = (blockIdx.x * Threads + threadIdx.x) * 0x9E3779B9u;
  HARNESS_UNROLL
  for (int i = 0; i < iters; ++i) {
    unsigned char items[K];
    for (int k = 0; k < K; ++k) {
      h = h * 1664525u + 1013904223u;
      items[k] = static_cast<unsigned char>(skewed && (h & 0x300) ? 7 : h >> 24);
    }
    if constexpr (I == impl::tilekit) {
      tilekit::histogram_init(block, counters, 256);
      tilekit::histogram(block, items, counters);
    } else {
      cub_histogram(temp).Histogram(items, counters);
    }
    __syncthreads();
    if (threadIdx.x < 256 && i == iters - 1) atomicAdd(out + threadIdx.x, counters[threadIdx.x]);
    __syncthreads();
  }
}

int blocks() { return bench::sm_count() * 16; }

template <class T>
std::vector<T> run_and_fetch(void (*kernel)(T*), unsigned grid, unsigned threads, std::size_t n) {
  T* d;
  CHECK(cudaMalloc(&d, n * sizeof(T)));
  kernel<<<grid, threads>>>(d);
  CHECK(cudaDeviceSynchronize());
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  return h;
}

// tilekit's results against CUB's on the same data, once, before any timing.
template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = double(a[i]), y = double(b[i]);
    if (!(x == y || (x - y) * (x - y) <= 1e-10 * (x * x + 1))) return false;
  }
  return true;
}
template <unsigned Threads, int K, class T>
bool reduce_agrees() {
  return same(run_and_fetch<T>(reduce_kernel<Threads, K, T, impl::tilekit>, blocks(), Threads, blocks()),
              run_and_fetch<T>(reduce_kernel<Threads, K, T, impl::cub>, blocks(), Threads, blocks()));
}
template <unsigned Threads, int K, class T>
bool scan_agrees() {
  const std::size_t n = std::size_t(blocks()) * Threads;
  const auto cub = run_and_fetch<T>(scan_kernel<Threads, K, T, impl::cub>, blocks(), Threads, n);
  return same(run_and_fetch<T>(scan_kernel<Threads, K, T, impl::tilekit>, blocks(), Threads, n), cub) &&
         same(run_and_fetch<T>(scan_kernel<Threads, K, T, impl::tilekit_warp_scans>, blocks(), Threads, n), cub);
}

template <unsigned Threads, int K, class T, impl I>
void add_reduce() {
  const std::string n = "block_reduce/" + std::string(std::is_same_v<T, int> ? "int32" : "float") + "/T" +
                        std::to_string(Threads) + "xK" + std::to_string(K) + "/" + name(I);
  benchmark::RegisterBenchmark(n.c_str(), [](benchmark::State& s) {
    T* out;
    CHECK(cudaMalloc(&out, blocks() * sizeof(T)));
    bench::time_kernel(s, [&] { reduce_kernel<Threads, K, T, I><<<blocks(), Threads>>>(out); }, double(blocks()) * iters);
    CHECK(cudaFree(out));
  })->UseManualTime();
}

template <unsigned Threads, int K, class T, impl I>
void add_scan() {
  const std::string n = "block_scan/" + std::string(std::is_same_v<T, int> ? "int32" : "float") + "/T" +
                        std::to_string(Threads) + "xK" + std::to_string(K) + "/" + name(I);
  benchmark::RegisterBenchmark(n.c_str(), [](benchmark::State& s) {
    T* out;
    CHECK(cudaMalloc(&out, std::size_t(blocks()) * Threads * sizeof(T)));
    bench::time_kernel(s, [&] { scan_kernel<Threads, K, T, I><<<blocks(), Threads>>>(out); }, double(blocks()) * iters);
    CHECK(cudaFree(out));
  })->UseManualTime();
}

template <unsigned Threads, int K, impl I>
void add_histogram(bool skewed) {
  const std::string n = std::string("block_histogram/") + (skewed ? "skewed" : "uniform") + "/T" + std::to_string(Threads) +
                        "xK" + std::to_string(K) + "/" + name(I);
  benchmark::RegisterBenchmark(n.c_str(), [skewed](benchmark::State& s) {
    unsigned* out;
    CHECK(cudaMalloc(&out, 256 * sizeof(unsigned)));
    CHECK(cudaMemset(out, 0, 256 * sizeof(unsigned)));
    bench::time_kernel(s, [&] { histogram_kernel<Threads, K, I><<<blocks(), Threads>>>(out, skewed); },
                double(blocks()) * Threads * K * iters);
    CHECK(cudaFree(out));
  })->UseManualTime();
}

template <unsigned Threads, int K, class T>
void add_reduce_all() {
  if (!reduce_agrees<Threads, K, T>()) {
    std::fprintf(stderr, "block reduce T%u K%d disagrees with CUB\n", Threads, K);
    std::exit(1);
  }
  add_reduce<Threads, K, T, impl::tilekit>();
  add_reduce<Threads, K, T, impl::cub>();
  add_reduce<Threads, K, T, impl::cub_broadcast>();
}

template <unsigned Threads, int K, class T>
void add_scan_all() {
  if (!scan_agrees<Threads, K, T>()) {
    std::fprintf(stderr, "block scan T%u K%d disagrees with CUB\n", Threads, K);
    std::exit(1);
  }
  add_scan<Threads, K, T, impl::tilekit>();
  add_scan<Threads, K, T, impl::tilekit_warp_scans>();
  add_scan<Threads, K, T, impl::cub>();
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run(argc, argv, [] {
    add_reduce_all<256, 16, int>();  // CUB's sm_90 reduce tile
    add_reduce_all<128, 8, int>();
    add_reduce_all<256, 16, float>();
    add_reduce_all<512, 4, int>();
    add_scan_all<128, 15, int>();  // CUB's sm_90 scan tile
    add_scan_all<256, 8, int>();
    add_scan_all<128, 15, float>();
    add_scan_all<512, 4, int>();
    add_scan_all<1024, 1, int>();
    for (bool skewed : {false, true}) {
      add_histogram<256, 8, impl::tilekit>(skewed);
      add_histogram<256, 8, impl::cub>(skewed);
      add_histogram<128, 16, impl::tilekit>(skewed);
      add_histogram<128, 16, impl::cub>(skewed);
    }
  });
}
