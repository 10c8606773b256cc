// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A tour of tilekit's tile level: one kernel body that reduces, scans, compacts,
// histograms and dedups a stream of numbers, warp by warp. The same body runs on
// the GPU (this file compiled by nvcc, as tile_tour.cu) and in the CPU simulator
// (compiled by a plain C++ compiler), and both check against the CPU.
#if defined(__CUDACC__)
#  include <tilekit/tilekit.cuh>
#else
#  include <tilekit/sim.cuh>
#endif

#include <cstdio>
#include <set>
#include <vector>

constexpr unsigned block_threads = 128;
constexpr unsigned bins = 16;

// [tour-body]
struct tour {
  const int* in;        // one number per thread
  int* tile_sum;        // per thread: the sum over its tile
  int* tile_offset;     // per thread: exclusive prefix sum within its tile
  int* evens;           // the even numbers, packed per tile (32 slots each)
  unsigned* even_count; // per tile
  unsigned* distinct;   // per tile: how many distinct numbers
  unsigned* histogram;  // bins counters, global

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto warp = tilekit::tiled_partition<32>(block);  // a tile<32>
    unsigned* block_bins = ctx.template shared_array<unsigned>(bins);  // caller-provided shared storage
    const unsigned i = block.group_index().x * block.num_threads() + block.thread_rank();
    const unsigned t = i / 32;
    const int x = in[i];

    if (block.thread_rank() < bins) block_bins[block.thread_rank()] = 0;
    block.sync();

    tile_sum[i] = tilekit::reduce(warp, x, tilekit::plus{});   // every lane gets the sum
    tile_offset[i] = tilekit::exclusive_scan(warp, x);         // 0, x0, x0+x1, ...
    const unsigned kept = tilekit::compact_store(warp, x % 2 == 0, x, evens + 32 * t);
    const tilekit::dedup_result d = tilekit::dedup(warp, x);   // first copy of each value
    tilekit::histogram(warp, x % bins, block_bins);            // aggregated per bin
    if (warp.thread_rank() == 0) {
      even_count[t] = kept;
      distinct[t] = d.count;
    }

    block.sync();
    if (block.thread_rank() < bins)
      decltype(block)::backend::atomic_add(histogram + block.thread_rank(), block_bins[block.thread_rank()]);
  }
};
// [tour-body]

int main() {
  const unsigned blocks = 4, n = blocks * block_threads, tiles = n / 32;
  std::vector<int> in(n);
  for (unsigned i = 0; i < n; ++i) in[i] = int((i * 7919u) % 23u);  // small numbers with repeats

  std::vector<int> sum(n), offset(n), evens(n, -1);
  std::vector<unsigned> even_count(tiles), distinct(tiles), histogram(bins, 0);

#if defined(__CUDACC__)
  const char* where = "GPU";
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("tile_tour: no CUDA device (run tile_tour_sim instead)\n");
    return 77;
  }
  int *d_in, *d_sum, *d_offset, *d_evens;
  unsigned *d_even_count, *d_distinct, *d_histogram;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc(&d_sum, n * sizeof(int));
  cudaMalloc(&d_offset, n * sizeof(int));
  cudaMalloc(&d_evens, n * sizeof(int));
  cudaMalloc(&d_even_count, tiles * sizeof(unsigned));
  cudaMalloc(&d_distinct, tiles * sizeof(unsigned));
  cudaMalloc(&d_histogram, bins * sizeof(unsigned));
  cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_evens, evens.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemset(d_histogram, 0, bins * sizeof(unsigned));
  cudaError_t e = tilekit::launch(blocks, block_threads, 0,
                                  tour{d_in, d_sum, d_offset, d_evens, d_even_count, d_distinct, d_histogram},
                                  bins * sizeof(unsigned));
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("tile_tour: CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(sum.data(), d_sum, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(offset.data(), d_offset, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(evens.data(), d_evens, n * sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(even_count.data(), d_even_count, tiles * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(distinct.data(), d_distinct, tiles * sizeof(unsigned), cudaMemcpyDeviceToHost);
  cudaMemcpy(histogram.data(), d_histogram, bins * sizeof(unsigned), cudaMemcpyDeviceToHost);
  for (void* p : {(void*)d_in, (void*)d_sum, (void*)d_offset, (void*)d_evens, (void*)d_even_count, (void*)d_distinct,
                  (void*)d_histogram})
    cudaFree(p);
#else
  const char* where = "simulator";
  tilekit::sim::launch(blocks, block_threads,
                       tour{in.data(), sum.data(), offset.data(), evens.data(), even_count.data(), distinct.data(),
                            histogram.data()},
                       bins * sizeof(unsigned));
#endif

  // Check every result against plain CPU code.
  unsigned errors = 0;
  std::vector<unsigned> want_hist(bins, 0);
  for (unsigned t = 0; t < tiles; ++t) {
    int s = 0;
    unsigned k = 0;
    std::set<int> seen;
    for (unsigned l = 0; l < 32; ++l) {
      const int x = in[32 * t + l];
      errors += offset[32 * t + l] != s;
      s += x;
      if (x % 2 == 0) errors += evens[32 * t + k++] != x;
      seen.insert(x);
      ++want_hist[x % bins];
    }
    for (unsigned l = 0; l < 32; ++l) errors += sum[32 * t + l] != s;
    errors += even_count[t] != k;
    errors += distinct[t] != seen.size();
  }
  for (unsigned b = 0; b < bins; ++b) errors += histogram[b] != want_hist[b];

  std::printf("tile_tour (%s): %u tiles of 32 lanes\n", where, tiles);
  std::printf("  tile 0: sum %d, even numbers %u, distinct numbers %u\n", sum[0], even_count[0], distinct[0]);
  std::printf("  histogram of x %% %u:", bins);
  for (unsigned b = 0; b < bins; ++b) std::printf(" %u", histogram[b]);
  std::printf("\n  %s\n", errors == 0 ? "all results match the CPU" : "MISMATCHES against the CPU");
  return errors == 0 ? 0 : 1;
}
