// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Cluster-level benchmarks (sm_90): the cluster rung's reduce, scan and histogram
// against the same work done by the block level plus global memory, on the same
// launch (clusters of C blocks, so both variants have their blocks resident at once).
//
// reduce / scan: each cluster runs `iters` dependent cluster-wide operations on
// register data (one value per thread); the number is cluster operations per second.
//   cluster       tilekit::reduce / exclusive_scan over the cluster (distributed shared memory)
//   block_global  the block level, then the block totals exchanged through global memory:
//                 each block's thread 0 publishes (tag, total) in one 64-bit store to a
//                 per-cluster slot (double-buffered by iteration parity; tags count on
//                 across launches, so the slots are zeroed once), polls every block's slot
//                 until it carries this iteration's tag (so no block runs two iterations
//                 ahead), and hands the total (reduce) or the blocks-before prefix (scan)
//                 to its block.
// histogram: int32 samples over 65536 bins, grid-stride over 2^26 samples:
//   cluster       counters spread over the cluster's shared memory (cluster/histogram.cuh)
//   block_half    16-bit counters per block (block/histogram.cuh half_counters)
//   global        one global atomic add per sample
// Results are checked against each other (and the histogram against the CPU) before timing.
#include "bench_common.cuh"

#include <tilekit/tilekit.cuh>
#include <tilekit/cluster/histogram.cuh>
#include <tilekit/cluster/reduce.cuh>
#include <tilekit/cluster/scan.cuh>

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

constexpr int iters = 64;
enum class impl { cluster, block_global, block_half, global };
const char* name(impl i) {
  switch (i) {
    case impl::cluster: return "cluster";
    case impl::block_global: return "block_global";
    case impl::block_half: return "block_half";
    default: return "global";
  }
}

__device__ int seed(unsigned long long i) { return int((i * 2654435761ull) >> 24 & 0xff) - 128; }

// Publishes this block's value for iteration i (tag: nonzero, new for every iteration of
// every launch) in slots[i % 2][rank] and waits for every block of the cluster to publish
// iteration i; returns the sum of the values of the blocks below `below` (Blocks: all).
// Called by one thread per block.
template <unsigned Blocks>
__device__ int exchange(unsigned long long* slots, unsigned rank, int value, int i, unsigned tag, unsigned below) {
  unsigned long long* row = slots + (i % 2) * Blocks;
  const unsigned long long word = (static_cast<unsigned long long>(tag) << 32) | static_cast<unsigned>(value);
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(row + rank), "l"(word) : "memory");
  int sum = 0;
  for (unsigned b = 0; b < Blocks; ++b) {
    unsigned long long w;
    do {
      asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(row + b) : "memory");
    } while (static_cast<unsigned>(w >> 32) != tag);
    if (b < below) sum += static_cast<int>(static_cast<unsigned>(w));
  }
  return sum;
}

// `iters` chained cluster-wide operations on one value per thread: the reduce (Scan
// false: every thread gets the cluster's total) or the exclusive scan (Scan true). The
// block_global form does the block level's scan-with-aggregate (the reduce: the block's
// total, 0 before it) and adds what the other blocks send through global memory: all
// of their totals (reduce) or those of the blocks below (scan).
template <unsigned Blocks, unsigned Threads, impl I, bool Scan>
struct collective_body {
  int* out;                   // per thread: the sum of the iterations' results
  unsigned long long* slots;  // block_global: 2 * Blocks per cluster, zeroed before the first launch
  unsigned launch;            // block_global: this launch's number (tags launch * iters + i + 1)
  union shared_t {
    std::conditional_t<Scan, tilekit::cluster_scan_storage<int, Blocks, Threads>,
                       tilekit::cluster_reduce_storage<int, Blocks, Threads>>
        cluster;
    struct {
      std::conditional_t<Scan, tilekit::scan_storage<int, Threads>, tilekit::reduce_storage<int, Threads>> block;
      int from_others;
    } local;
  };
  template <class Ctx>
  __device__ void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    auto block = cluster.block();
    shared_t& sh = ctx.template shared<shared_t>();
    const unsigned long long me = (unsigned long long)blockIdx.x * Threads + threadIdx.x;
    const unsigned cluster_index = blockIdx.x / Blocks, rank = cluster.block_rank();
    int v = seed(me), acc = 0;
    if constexpr (I == impl::cluster) cluster.sync();  // every block started: remote shared memory may be used
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
      int result;
      if constexpr (I == impl::cluster) {
        if constexpr (Scan) result = tilekit::exclusive_scan(cluster, v, tilekit::plus{}, 0, sh.cluster);
        else result = tilekit::reduce(cluster, v, tilekit::plus{}, sh.cluster);
        cluster.sync();  // storage reused
      } else {
        tilekit::scanned<int> s;
        if constexpr (Scan) s = tilekit::exclusive_scan_aggregate(block, v, tilekit::plus{}, 0, sh.local.block);
        else s = {0, tilekit::reduce(block, v, tilekit::plus{}, sh.local.block)};
        if (threadIdx.x == 0)
          sh.local.from_others = exchange<Blocks>(slots + cluster_index * 2 * Blocks, rank, s.aggregate, i,
                                                  launch * iters + i + 1, Scan ? rank : Blocks);
        block.sync();
        result = sh.local.from_others + s.value;
        block.sync();  // storage reused
      }
      acc += result;
      v += result & 1;  // the next iteration depends on this one
    }
    out[me] = acc;
    if constexpr (I == impl::cluster) cluster.sync();  // no block exits while others may read its shared memory
  }
};
template <unsigned Blocks, unsigned Threads, impl I>
using reduce_body = collective_body<Blocks, Threads, I, false>;
template <unsigned Blocks, unsigned Threads, impl I>
using scan_body = collective_body<Blocks, Threads, I, true>;

constexpr int bins = 65536, lower = -32768;

template <unsigned Blocks, unsigned Threads, impl I>
struct histogram_body {
  const int* in;
  long long n;
  unsigned* counters;  // zeroed
  template <class Ctx>
  __device__ void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    auto block = cluster.block();
    const long long stride = (long long)gridDim.x * Threads;
    if constexpr (I == impl::cluster) {
      unsigned* local = ctx.template shared_array<unsigned>(tilekit::cluster_histogram_bins_per_block<Blocks>(bins));
      tilekit::cluster_histogram_init(cluster, local, bins);
      for (long long i = (long long)blockIdx.x * Threads + threadIdx.x; i < n; i += stride) {
        const unsigned b[1] = {unsigned(in[i] - lower)};
        tilekit::histogram(cluster, b, local, bins);
      }
      tilekit::cluster_histogram_merge(cluster, local, counters, bins);
    } else if constexpr (I == impl::block_half) {
      const tilekit::half_counters<decltype(block)> local(block, ctx.template shared_array<unsigned char>(tilekit::half_counters_bytes(bins)),
                                                          bins);
      for (long long i = (long long)blockIdx.x * Threads + threadIdx.x; i < n; i += stride) local.add(unsigned(in[i] - lower), counters);
      local.merge(block, counters);
    } else {
      for (long long i = (long long)blockIdx.x * Threads + threadIdx.x; i < n; i += stride) atomicAdd(counters + (in[i] - lower), 1u);
    }
  }
};

// As many clusters as are resident at once for this body's shared memory.
template <class Body>
unsigned resident_grid(unsigned blocks, unsigned threads, std::size_t shared) {
  auto kernel = tilekit::kernel_of<Body>();
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  if (blocks > 8) CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(blocks * 1024);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = blocks;
  attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  int clusters = 0;
  CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  return unsigned(clusters > 0 ? clusters : 1) * blocks;
}

template <template <unsigned, unsigned, impl> class Body, unsigned Blocks, unsigned Threads, impl I>
std::vector<int> run_collective(unsigned grid, int* out, unsigned long long* slots) {
  using body_t = Body<Blocks, Threads, I>;
  CHECK(cudaMemset(slots, 0, std::size_t(grid) * 2 * sizeof(unsigned long long)));
  CHECK(tilekit::launch_cluster(dim3(grid), dim3(Threads), dim3(Blocks), 0, body_t{out, slots, 0},
                                sizeof(typename body_t::shared_t)));
  CHECK(cudaDeviceSynchronize());
  std::vector<int> h(std::size_t(grid) * Threads);
  CHECK(cudaMemcpy(h.data(), out, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
  return h;
}

template <template <unsigned, unsigned, impl> class Body, unsigned Blocks, unsigned Threads>
void add_collective(const char* algo) {
  using cluster_t = Body<Blocks, Threads, impl::cluster>;
  using global_t = Body<Blocks, Threads, impl::block_global>;
  const unsigned grid = std::min(resident_grid<cluster_t>(Blocks, Threads, sizeof(typename cluster_t::shared_t)),
                                 resident_grid<global_t>(Blocks, Threads, sizeof(typename global_t::shared_t)));
  static int* out = nullptr;
  static unsigned long long* slots = nullptr;
  if (!out) {
    CHECK(cudaMalloc(&out, std::size_t(132 * 32) * 1024 * sizeof(int)));
    CHECK(cudaMalloc(&slots, std::size_t(132 * 32) * 2 * sizeof(unsigned long long)));
  }
  if (run_collective<Body, Blocks, Threads, impl::cluster>(grid, out, slots) !=
      run_collective<Body, Blocks, Threads, impl::block_global>(grid, out, slots)) {
    std::fprintf(stderr, "cluster %s C%u T%u: the cluster and block_global variants differ\n", algo, Blocks, Threads);
    std::exit(1);
  }
  for (impl i : {impl::cluster, impl::block_global}) {
    const std::string n = std::string("cluster_") + algo + "/int32/C" + std::to_string(Blocks) + "xT" + std::to_string(Threads) + "/" + name(i);
    benchmark::RegisterBenchmark(n.c_str(), [grid, i](benchmark::State& s) {
      // block_global: the slots zeroed once, then tags new for every launch (no memset timed)
      CHECK(cudaMemset(slots, 0, std::size_t(grid) * 2 * sizeof(unsigned long long)));
      unsigned launch = 0;
      bench::time_kernel(
          s,
          [&] {
            if (i == impl::cluster)
              CHECK(tilekit::launch_cluster(dim3(grid), dim3(Threads), dim3(Blocks), 0, cluster_t{out, slots, 0},
                                            sizeof(typename cluster_t::shared_t)));
            else
              CHECK(tilekit::launch_cluster(dim3(grid), dim3(Threads), dim3(Blocks), 0, global_t{out, slots, launch++},
                                            sizeof(typename global_t::shared_t)));
          },
          double(grid / Blocks) * iters);
    })->UseManualTime();
  }
}

// The samples (uniform over the bins, seed 2026) on the GPU, and their counts from the CPU.
const int* histogram_input(long long n, std::vector<unsigned>& want) {
  static int* d = nullptr;
  static std::vector<unsigned> counts;
  if (!d) {
    std::vector<int> h(static_cast<std::size_t>(n));
    std::mt19937_64 g(2026);
    for (auto& x : h) x = int(g() % bins) + lower;
    counts.assign(bins, 0);
    for (int x : h) ++counts[std::size_t(x - lower)];
    CHECK(cudaMalloc(&d, h.size() * sizeof(int)));
    CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(int), cudaMemcpyHostToDevice));
  }
  want = counts;
  return d;
}

template <unsigned Blocks, unsigned Threads, impl I>
void add_histogram(long long n) {
  using body_t = histogram_body<Blocks, Threads, I>;
  const std::size_t shared = I == impl::cluster      ? tilekit::cluster_histogram_storage_bytes<unsigned, Blocks>(bins)
                             : I == impl::block_half ? tilekit::half_counters_bytes(bins)
                                                     : 0;
  const unsigned grid = resident_grid<body_t>(Blocks, Threads, shared);
  std::vector<unsigned> want;
  const int* in = histogram_input(n, want);
  static unsigned* counters = nullptr;
  if (!counters) CHECK(cudaMalloc(&counters, bins * sizeof(unsigned)));
  auto launch = [=] {
    CHECK(cudaMemsetAsync(counters, 0, bins * sizeof(unsigned)));
    CHECK(tilekit::launch_cluster(dim3(grid), dim3(Threads), dim3(Blocks), 0, body_t{in, n, counters}, shared));
  };
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> got(bins);
  CHECK(cudaMemcpy(got.data(), counters, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (got != want) {
    std::fprintf(stderr, "cluster histogram %s C%u: the counts differ from the CPU's\n", name(I), Blocks);
    std::exit(1);
  }
  // one case, the variants side by side (the report compares them with the first, the cluster on 2 blocks)
  const std::string name_ = std::string("cluster_histogram65536/int32/") + name(I) + "_C" + std::to_string(Blocks) + "xT" + std::to_string(Threads);
  benchmark::RegisterBenchmark(name_.c_str(), [launch, n](benchmark::State& s) { bench::time_kernel(s, launch, double(n)); })
      ->UseManualTime();
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run(argc, argv, [] {
    add_collective<reduce_body, 2, 256>("reduce");
    add_collective<reduce_body, 4, 256>("reduce");
    add_collective<reduce_body, 8, 256>("reduce");
    add_collective<reduce_body, 16, 128>("reduce");
    add_collective<scan_body, 2, 256>("scan");
    add_collective<scan_body, 4, 256>("scan");
    add_collective<scan_body, 8, 256>("scan");
    add_collective<scan_body, 16, 128>("scan");
    const long long n = 1ll << 26;
    add_histogram<2, 1024, impl::cluster>(n);
    add_histogram<4, 512, impl::cluster>(n);
    add_histogram<8, 512, impl::cluster>(n);
    add_histogram<1, 1024, impl::block_half>(n);
    add_histogram<1, 256, impl::global>(n);
  });
}
