// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Composing tilekit's primitives inside one application kernel.
//
// Particles carry a cell and an energy. ONE pass over them, in one kernel:
//   - keeps the particles above an energy threshold: each round a block compact
//     (one ballot per warp, the warp counts through shared memory) stages the kept
//     ones in shared memory; one atomic per tile of 2048 reserves their place in
//     the output, and the block copies them out (stable within a tile; the tiles
//     land in the order their atomics ran),
//   - histograms the kept ones by cell: 1024 counters in shared memory per block
//     (tilekit::histogram with a `valid` flag), merged into the global counters once,
//   - totals their energy: a sum per thread, one block reduce, one atomic per block.
// Every storage is the caller's, in one struct of dynamic shared memory.
//
// Simulator build (compose_sim): 20000 particles, checked against the CPU.
// GPU build (compose_gpu, this file through compose.cu): 2^26 particles, checked
// against the CPU and against the same results from CUB's multi-kernel pipeline
// (DeviceSelect::If, then DeviceHistogram::HistogramEven and
// DeviceReduce::TransformReduce over the kept particles); prints both times
// (medians of 7 runs, CUDA events) and their ratio.
#if defined(__CUDACC__)
#  include <tilekit/tilekit.cuh>
#  include <cub/device/device_histogram.cuh>
#  include <cub/device/device_reduce.cuh>
#  include <cub/device/device_select.cuh>
#  include <thrust/iterator/transform_iterator.h>
#  include <algorithm>
#  include "gpu_helpers.cuh"  // CHECK, median_ms, small_inputs
#else
#  include <tilekit/sim.cuh>
#endif

#include <cstdint>
#include <cstdio>
#include <vector>

struct particle {
  unsigned id;  // its index in the input: lets the check find every kept particle
  unsigned short cell;
  unsigned short energy;
};

constexpr unsigned threads = 256, rounds = 8, tile_items = threads * rounds, cells = 1024;
constexpr unsigned energy_threshold = 600;  // particles with more energy are kept

struct compose_shared {  // the block's dynamic shared memory
  tilekit::compact_storage<threads> compact[2];  // alternated: a round needs no barrier before the next
  tilekit::reduce_storage<unsigned long long, threads> reduce;
  unsigned long long out_base;                   // where this tile's kept particles go
  unsigned counters[cells];                      // the block's histogram
  particle staged[tile_items];                   // this tile's kept particles, in order
};

struct compose {
  const particle* in;
  std::int64_t n;
  unsigned threshold;
  particle* kept;                    // out: the kept particles
  unsigned long long* num_kept;      // out, zeroed before the launch
  unsigned* histogram;               // out: cells counters, zeroed
  unsigned long long* total_energy;  // out, zeroed

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<threads>();
    auto warp = tilekit::tiled_partition<32>(block);
    using backend = typename decltype(block)::backend;
    compose_shared& s = ctx.template shared<compose_shared>();
    const unsigned t = block.thread_rank();
    const std::int64_t blocks = std::int64_t(ctx.grid().num_blocks());
    tilekit::histogram_init(block, s.counters, cells);
    unsigned long long energy = 0;

    for (std::int64_t base = std::int64_t(ctx.grid().block_rank()) * tile_items; base < n; base += blocks * tile_items) {
      particle p[rounds];  // striped: all the loads in flight before the first compact
      for (unsigned r = 0; r < rounds; ++r) {
        const std::int64_t i = base + r * threads + t;
        p[r] = i < n ? in[i] : particle{};
      }
      unsigned staged = 0;
      for (unsigned r = 0; r < rounds; ++r) {
        const bool keep = base + r * threads + t < n && p[r].energy > threshold;
        const tilekit::compact_result c = tilekit::compact(block, keep, s.compact[r % 2]);
        if (keep) s.staged[staged + c.rank] = p[r];
        staged += c.count;                                         // the same in every thread
        tilekit::histogram(warp, unsigned(p[r].cell), s.counters, keep);  // shared counters: an atomic each
        if (keep) energy += p[r].energy;
      }
      if (t == 0 && staged > 0) s.out_base = backend::atomic_add(num_kept, (unsigned long long)staged);
      block.sync();
      for (unsigned j = t; j < staged; j += threads) kept[s.out_base + j] = s.staged[j];
      block.sync();  // staged and out_base are reused by the next tile
    }
    const unsigned long long block_energy = tilekit::reduce(block, energy, tilekit::plus{}, s.reduce);
    if (t == 0) backend::atomic_add(total_energy, block_energy);
    tilekit::histogram_merge(block, s.counters, histogram, cells);  // non-zero counters only
  }
};

// The input: cells uniform, energies 0..999, and what a CPU makes of it.
struct reference {
  std::uint64_t kept = 0, energy = 0;
  std::vector<unsigned> histogram = std::vector<unsigned>(cells, 0);
};
inline std::vector<particle> make_particles(std::size_t n, reference& ref, unsigned threshold) {
  std::vector<particle> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
    h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    v[i] = particle{unsigned(i), (unsigned short)(h % cells), (unsigned short)((h >> 32) % 1000)};
    if (v[i].energy > threshold) ++ref.kept, ref.energy += v[i].energy, ++ref.histogram[v[i].cell];
  }
  return v;
}

// Errors in (kept, count, histogram, energy) against the CPU. in_order: kept must
// be the CPU's list exactly; otherwise the same particles with the tiles in any
// order, each tile's particles in input order.
inline unsigned check(const std::vector<particle>& in, unsigned threshold, const reference& ref,
                      const std::vector<particle>& kept, std::uint64_t count, const std::vector<unsigned>& histogram,
                      std::uint64_t energy, bool in_order) {
  unsigned errors = (count != ref.kept) + (energy != ref.energy) + (histogram != ref.histogram);
  std::vector<unsigned char> seen(in.size(), 0);
  std::size_t next = 0;  // in_order: the next kept input
  for (std::size_t j = 0; j < count && j < kept.size() && errors < 10; ++j) {
    const particle& p = kept[j];
    if (in_order)
      while (next < in.size() && in[next].energy <= threshold) ++next;
    const bool ok = p.id < in.size() && !seen[p.id] && in[p.id].cell == p.cell && in[p.id].energy == p.energy &&
                    p.energy > threshold && (!in_order || p.id == next++) &&
                    (j == 0 || kept[j - 1].id / tile_items != p.id / tile_items || kept[j - 1].id < p.id);
    if (ok) seen[p.id] = 1;
    errors += !ok;
  }
  return errors;
}

inline void print_summary(const char* where, std::size_t n, std::uint64_t kept, std::uint64_t energy,
                          const std::vector<unsigned>& histogram) {
  std::printf("compose (%s): %zu particles, %u cells, energy threshold %u\n", where, n, cells, energy_threshold);
  std::printf("  kept %llu particles, total energy %llu; cells 0..3 hold %u %u %u %u\n", (unsigned long long)kept,
              (unsigned long long)energy, histogram[0], histogram[1], histogram[2], histogram[3]);
}

#if !defined(__CUDACC__)

int main() {
  const std::size_t n = 20000;
  reference ref;
  const std::vector<particle> in = make_particles(n, ref, energy_threshold);
  std::vector<particle> kept(n);
  std::vector<unsigned> histogram(cells, 0);
  unsigned long long count = 0, energy = 0;
  const compose body{in.data(), std::int64_t(n), energy_threshold, kept.data(), &count, histogram.data(), &energy};
  tilekit::sim::launch(4, threads, body, sizeof(compose_shared));
  const unsigned errors = check(in, energy_threshold, ref, kept, count, histogram, energy, false);
  print_summary("simulator, 4 blocks of 256", n, count, energy, histogram);
  std::printf("  %s\n", errors == 0 ? "kept particles, histogram and energy match the CPU" : "MISMATCHES against the CPU");
  return errors == 0 ? 0 : 1;
}

#else  // the GPU: against CUB's pipeline

struct above {
  unsigned threshold;
  __host__ __device__ bool operator()(const particle& p) const { return p.energy > threshold; }
};
struct cell_of {
  __host__ __device__ int operator()(const particle& p) const { return p.cell; }
};
struct energy_of {
  __host__ __device__ unsigned long long operator()(const particle& p) const { return p.energy; }
};

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("compose: no CUDA device (run compose_sim instead)\n");
    return 77;
  }
  // TILEKIT_TEST_SMALL=1 (.ci/gpu-check sets it under compute-sanitizer): a small input, one timed run.
  const bool small = small_inputs();
  const std::size_t n = small ? 20000 : std::size_t(1) << 26;
  const int runs = small ? 1 : 7;
  reference ref;
  const std::vector<particle> in = make_particles(n, ref, energy_threshold);
  particle *d_in, *d_kept, *c_kept;
  unsigned *d_hist, *c_hist;
  unsigned long long *d_count, *d_energy, *c_count, *c_energy;  // d_: tilekit's outputs, c_: CUB's
  CHECK(cudaMalloc(&d_in, n * sizeof(particle)));
  CHECK(cudaMalloc(&d_kept, n * sizeof(particle)));
  CHECK(cudaMalloc(&c_kept, n * sizeof(particle)));
  CHECK(cudaMalloc(&d_hist, 2 * cells * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_count, 4 * sizeof(unsigned long long)));
  c_hist = d_hist + cells, d_energy = d_count + 1, c_count = d_count + 2, c_energy = d_count + 3;
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(particle), cudaMemcpyHostToDevice));

  // tilekit: zero the outputs, one launch, as many blocks as fit on the device at once.
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tilekit::kernel_of<compose>(), threads,
                                                      sizeof(compose_shared)));
  const unsigned grid = unsigned(std::min<std::size_t>((n + tile_items - 1) / tile_items, std::size_t(sms) * std::max(per_sm, 1)));
  auto run_tilekit = [&] {
    CHECK(cudaMemsetAsync(d_hist, 0, cells * sizeof(unsigned)));
    CHECK(cudaMemsetAsync(d_count, 0, 2 * sizeof(unsigned long long)));
    CHECK(tilekit::launch(grid, threads, 0, compose{d_in, std::int64_t(n), energy_threshold, d_kept, d_count, d_hist, d_energy},
                          sizeof(compose_shared)));
  };
  // CUB: select, read the kept count back (the next calls need it), histogram and sum the kept ones.
  std::size_t bytes[3] = {0, 0, 0};
  long long kept_cub = 0;
  const auto cells_in = thrust::make_transform_iterator(c_kept, cell_of{});
  CHECK(cub::DeviceSelect::If(nullptr, bytes[0], d_in, c_kept, c_count, std::int64_t(n), above{energy_threshold}));
  CHECK(cub::DeviceHistogram::HistogramEven(nullptr, bytes[1], cells_in, c_hist, int(cells) + 1, 0, int(cells), std::int64_t(n)));
  CHECK(cub::DeviceReduce::TransformReduce(nullptr, bytes[2], c_kept, c_energy, std::int64_t(n), cuda::std::plus<>{},
                                           energy_of{}, 0ull));
  std::size_t temp_bytes = std::max({bytes[0], bytes[1], bytes[2]});
  void* temp;
  CHECK(cudaMalloc(&temp, temp_bytes));
  auto run_cub = [&] {
    std::size_t b = temp_bytes;
    CHECK(cub::DeviceSelect::If(temp, b, d_in, c_kept, c_count, std::int64_t(n), above{energy_threshold}));
    CHECK(cudaMemcpy(&kept_cub, c_count, sizeof(kept_cub), cudaMemcpyDeviceToHost));
    CHECK(cub::DeviceHistogram::HistogramEven(temp, b, cells_in, c_hist, int(cells) + 1, 0, int(cells), std::int64_t(kept_cub)));
    CHECK(cub::DeviceReduce::TransformReduce(temp, b, c_kept, c_energy, std::int64_t(kept_cub), cuda::std::plus<>{},
                                             energy_of{}, 0ull));
  };
  const float t_tilekit = median_ms(run_tilekit, runs);
  const float t_cub = median_ms(run_cub, runs);
  CHECK(cudaDeviceSynchronize());

  unsigned errors = 0;
  unsigned long long counts[4];
  CHECK(cudaMemcpy(counts, d_count, sizeof(counts), cudaMemcpyDeviceToHost));
  std::vector<unsigned> hist(2 * cells);
  CHECK(cudaMemcpy(hist.data(), d_hist, hist.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const std::vector<unsigned> hist_tk(hist.begin(), hist.begin() + cells), hist_cub(hist.begin() + cells, hist.end());
  std::vector<particle> kept(ref.kept);
  for (int side = 0; side < 2; ++side) {
    const std::uint64_t count = counts[2 * side];
    CHECK(cudaMemcpy(kept.data(), side == 0 ? d_kept : c_kept, std::min<std::uint64_t>(count, ref.kept) * sizeof(particle),
                     cudaMemcpyDeviceToHost));
    const unsigned e = check(in, energy_threshold, ref, kept, count, side == 0 ? hist_tk : hist_cub, counts[2 * side + 1], side == 1);
    if (e) std::printf("  %s: %u mismatches against the CPU\n", side == 0 ? "tilekit" : "CUB", e);
    errors += e;
  }
  for (void* p : {(void*)d_in, (void*)d_kept, (void*)c_kept, (void*)d_hist, (void*)d_count, temp}) CHECK(cudaFree(p));

  print_summary("GPU", n, counts[0], counts[1], hist_tk);
  const double gb = double(n) * sizeof(particle) / 1e6;  // input bytes, in GB per ms
  std::printf("  tilekit, one kernel (%u blocks):          %8.3f ms  (%.0f GB/s of input)\n", grid, t_tilekit, gb / t_tilekit);
  std::printf("  CUB: select, count to host, histogram, sum: %8.3f ms  (%.0f GB/s of input)\n", t_cub, gb / t_cub);
  std::printf("  CUB's time / tilekit's: %.2f (medians of %d runs%s; the kept particles come out in another order)\n",
              t_cub / t_tilekit, runs, small ? ", TILEKIT_TEST_SMALL: not a measurement" : "");
  std::printf("  %s\n", errors == 0 ? "both match the CPU" : "MISMATCHES against the CPU");
  return errors == 0 ? 0 : 1;
}

#endif
