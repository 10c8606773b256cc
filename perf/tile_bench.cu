// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tile-level benchmarks: tilekit's tile reduce / scan against cg::reduce,
// cg::inclusive_scan, cub::WarpReduce / WarpScan and a hand-written shuffle
// loop, and tilekit's histogram variants on uniform, skewed and one-bin data.
// All in one process on the same launch shape; CUDA-event timing, medians of
// repetitions (Google Benchmark, manual time).
//
// Each thread runs a dependent chain of `iters` tile operations on register
// data (no memory traffic), so the number is tile operations per second.
// Every harness loop is unrolled by the same factor: nvcc re-checks warp
// convergence (MATCH.ANY) once per loop trip for sub-warp masks, so letting it
// pick a different unroll per implementation would measure the harness.
#include "bench_common.cuh"

#include <tilekit/tilekit.cuh>

#include <benchmark/benchmark.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cg = cooperative_groups;

namespace {

constexpr unsigned threads = 256;
constexpr int iters = 512;
#define HARNESS_UNROLL _Pragma("unroll 16")

enum class impl { tilekit, tilekit_butterfly, tilekit_hardware, cg, cub, shfl_loop };
const char* name(impl i) {
  const char* n[] = {"tilekit", "tilekit_butterfly", "tilekit_hardware", "cg", "cub", "shfl_loop"};
  return n[int(i)];
}

template <unsigned N, class T, impl I>
__global__ void __launch_bounds__(threads) reduce_kernel(T* out, T seed) {
  using warp_reduce = cub::WarpReduce<T, N>;
  __shared__ typename warp_reduce::TempStorage storage[threads / N];
  auto tile = tilekit::tiled_partition<N>(tilekit::this_block<threads>());
  auto cg_tile = cg::tiled_partition<N>(cg::this_thread_block());
  T v = seed + T(threadIdx.x);
  HARNESS_UNROLL
  for (int i = 0; i < iters; ++i) {
    T x = v + T(i);
    if constexpr (I == impl::tilekit) v = tilekit::reduce(tile, x, tilekit::plus{});
    else if constexpr (I == impl::tilekit_butterfly) v = tilekit::reduce_butterfly(tile, x, tilekit::plus{});
    else if constexpr (I == impl::tilekit_hardware) v = tilekit::reduce_hardware(tile, x, tilekit::plus{});
    else if constexpr (I == impl::cg) v = cg::reduce(cg_tile, x, cg::plus<T>());
    else if constexpr (I == impl::cub) v = warp_reduce(storage[threadIdx.x / N]).Sum(x);  // lane 0 only
    else {
#pragma unroll
      for (unsigned o = N / 2; o > 0; o /= 2) x += __shfl_xor_sync(tile.lane_mask(), x, o, N);
      v = x;
    }
  }
  if (v == T(-1)) out[threadIdx.x] = v;  // keeps the chain alive, (almost) never stores
}

template <unsigned N, class T, impl I>
__global__ void __launch_bounds__(threads) scan_kernel(T* out, T seed) {
  using warp_scan = cub::WarpScan<T, N>;
  __shared__ typename warp_scan::TempStorage storage[threads / N];
  auto tile = tilekit::tiled_partition<N>(tilekit::this_block<threads>());
  auto cg_tile = cg::tiled_partition<N>(cg::this_thread_block());
  T v = seed + T(threadIdx.x);
  HARNESS_UNROLL
  for (int i = 0; i < iters; ++i) {
    T x = v + T(i);
    if constexpr (I == impl::tilekit) v = tilekit::inclusive_scan(tile, x);
    else if constexpr (I == impl::cg) v = cg::inclusive_scan(cg_tile, x);
    else if constexpr (I == impl::cub) warp_scan(storage[threadIdx.x / N]).InclusiveSum(x, v);
    else {
      const unsigned lane = threadIdx.x % N;
#pragma unroll
      for (unsigned d = 1; d < N; d *= 2) {
        const T up = __shfl_up_sync(tile.lane_mask(), x, d, N);
        if (lane >= d) x += up;
      }
      v = x;
    }
  }
  if (v == T(-1)) out[threadIdx.x] = v;
}

// Histogram of register-made samples into per-block shared counters, or
// straight into global counters. vote_uniform is an experiment kept here: one
// shuffle and a vote detect a tile whose lanes all hit one bin.
enum class hist_impl { chosen, atomic, match, vote_uniform };
enum class bins_of { uniform, skewed, one_bin };
const char* name(hist_impl i) {
  const char* n[] = {"histogram", "histogram_atomic", "histogram_match", "vote_uniform"};
  return n[int(i)];
}
const char* name(bins_of b) { return b == bins_of::uniform ? "uniform" : b == bins_of::skewed ? "skewed" : "one_bin"; }

template <unsigned N, hist_impl H, bool Global>
__global__ void __launch_bounds__(threads) histogram_kernel(unsigned* out, unsigned num_bins, int pattern, unsigned seed) {
  extern __shared__ unsigned shared_counters[];
  unsigned* counters = Global ? out : shared_counters;
  auto block = tilekit::this_block<threads>();
  auto tile = tilekit::tiled_partition<N>(block);
  if (!Global) {
    for (unsigned k = threadIdx.x; k < num_bins; k += threads) counters[k] = 0;
    block.sync();
  }
  unsigned h = seed ^ (blockIdx.x * threads + threadIdx.x) * 0x9E3779B9u;
  HARNESS_UNROLL
  for (int i = 0; i < iters; ++i) {
    h = h * 1664525u + 1013904223u;  // LCG per thread
    const unsigned r = h >> 8;
    const int bin = pattern == 0 ? int(r % num_bins) : pattern == 1 ? ((r & 3) ? 7 : int(r % num_bins)) : 7;
    if constexpr (H == hist_impl::chosen) tilekit::histogram(tile, bin, counters);
    else if constexpr (H == hist_impl::atomic) tilekit::histogram_atomic(tile, bin, counters);
    else if constexpr (H == hist_impl::match) tilekit::histogram_match(tile, bin, counters);
    else {
      if (tile.all(bin == tile.shfl(bin, 0))) {
        if (tile.thread_rank() == 0) atomicAdd(counters + bin, N);
      } else {
        atomicAdd(counters + bin, 1u);
      }
    }
  }
  if (!Global) {
    block.sync();
    for (unsigned k = threadIdx.x; k < num_bins; k += threads) atomicAdd(out + k, counters[k]);
  }
}

int blocks() { return bench::sm_count() * 8; }  // 8 blocks of 256 threads per SM: full occupancy

template <unsigned N, class T, impl I>
void bench_reduce(benchmark::State& state) {
  T* out;
  CHECK(cudaMalloc(&out, threads * sizeof(T)));
  const double tile_ops = double(blocks()) * threads / N * iters;
  bench::time_kernel(state, [&] { reduce_kernel<N, T, I><<<blocks(), threads>>>(out, T(3)); }, tile_ops);
  CHECK(cudaFree(out));
}

template <unsigned N, class T, impl I>
void bench_scan(benchmark::State& state) {
  T* out;
  CHECK(cudaMalloc(&out, threads * sizeof(T)));
  const double tile_ops = double(blocks()) * threads / N * iters;
  bench::time_kernel(state, [&] { scan_kernel<N, T, I><<<blocks(), threads>>>(out, T(3)); }, tile_ops);
  CHECK(cudaFree(out));
}

template <unsigned N, hist_impl H, bool Global>
void bench_histogram(benchmark::State& state, bins_of pattern, unsigned num_bins) {
  unsigned* out;
  CHECK(cudaMalloc(&out, num_bins * sizeof(unsigned)));
  CHECK(cudaMemset(out, 0, num_bins * sizeof(unsigned)));
  const double samples = double(blocks()) * threads * iters / (Global ? 16 : 1);
  bench::time_kernel(state, [&] {
    histogram_kernel<N, H, Global><<<Global ? blocks() / 16 : blocks(), threads, Global ? 0 : num_bins * sizeof(unsigned)>>>(
        out, num_bins, int(pattern), 12345u);
  }, samples);
  CHECK(cudaFree(out));
}

template <class T>
const char* tname() {
  return std::is_same_v<T, int> ? "int32" : std::is_same_v<T, float> ? "float" : std::is_same_v<T, double> ? "double" : "int64";
}

template <unsigned N, class T, impl I>
void add_reduce() {
  benchmark::RegisterBenchmark((std::string("tile_reduce/") + tname<T>() + "/N" + std::to_string(N) + "/" + name(I)).c_str(),
                               bench_reduce<N, T, I>)->UseManualTime();
}
template <unsigned N, class T, impl I>
void add_scan() {
  benchmark::RegisterBenchmark((std::string("tile_scan/") + tname<T>() + "/N" + std::to_string(N) + "/" + name(I)).c_str(),
                               bench_scan<N, T, I>)->UseManualTime();
}
template <unsigned N, hist_impl H, bool Global>
void add_histogram(bins_of b, unsigned bins) {
  benchmark::RegisterBenchmark((std::string("tile_histogram/") + (Global ? "global/" : "shared/") + name(b) + "/bins" +
                                std::to_string(bins) + "/N" + std::to_string(N) + "/" + name(H))
                                   .c_str(),
                               [=](benchmark::State& s) { bench_histogram<N, H, Global>(s, b, bins); })
      ->UseManualTime();
}

template <unsigned N>
void register_size() {
  add_reduce<N, int, impl::tilekit>();
  add_reduce<N, int, impl::tilekit_butterfly>();
  add_reduce<N, int, impl::tilekit_hardware>();
  add_reduce<N, int, impl::cg>();
  add_reduce<N, int, impl::cub>();
  add_reduce<N, int, impl::shfl_loop>();
  add_reduce<N, float, impl::tilekit>();
  add_reduce<N, float, impl::cg>();
  add_reduce<N, float, impl::cub>();
  add_reduce<N, float, impl::shfl_loop>();
  add_reduce<N, double, impl::tilekit>();
  add_reduce<N, double, impl::cg>();
  add_reduce<N, double, impl::cub>();
  add_reduce<N, double, impl::shfl_loop>();
  add_scan<N, int, impl::tilekit>();
  add_scan<N, int, impl::cg>();
  add_scan<N, int, impl::cub>();
  add_scan<N, int, impl::shfl_loop>();
  add_scan<N, float, impl::tilekit>();
  add_scan<N, float, impl::cg>();
  add_scan<N, float, impl::cub>();
  add_scan<N, float, impl::shfl_loop>();
  for (bins_of b : {bins_of::uniform, bins_of::skewed, bins_of::one_bin})
    for (unsigned bins : {256u, 4096u}) {
      add_histogram<N, hist_impl::chosen, false>(b, bins);
      add_histogram<N, hist_impl::atomic, false>(b, bins);
      add_histogram<N, hist_impl::match, false>(b, bins);
      add_histogram<N, hist_impl::vote_uniform, false>(b, bins);
      add_histogram<N, hist_impl::chosen, true>(b, bins);
      add_histogram<N, hist_impl::atomic, true>(b, bins);
      add_histogram<N, hist_impl::match, true>(b, bins);
      add_histogram<N, hist_impl::vote_uniform, true>(b, bins);
    }
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run(argc, argv, [] {
    register_size<4>();
    register_size<8>();
    register_size<16>();
    register_size<32>();
  });
}
