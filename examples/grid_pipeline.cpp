// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A multi-step job in one launch with the grid rung (tilekit::reduce / exclusive_scan
// over the whole grid inside the kernel, a cooperative launch):
//   1. top = the largest x                          (grid reduce, maximum)
//   2. sum = the sum of exp(x - top)                (grid reduce, plus)
//   3. y   = exp(x - top) / sum                     (a softmax, every item)
//   4. the items with x > top / 2, in order         (each thread counts its run of items;
//                                                    one grid exclusive scan places the runs)
// Every step's result reaches every thread, so the next step needs no new launch; CUB
// needs one (or two) per step. Then step 4 alone under an ordinary launch of any
// number of blocks (filter_body: the chained grid scan, grid/chain.cuh, no grid barrier).
// Simulator build: 5000 items. GPU build (grid_pipeline.cu): 2^14 .. 2^24 items, the
// pipeline on as many blocks as fit at once and the filter on one block per 1024 items,
// each timed (median of 7, CUDA events, inputs left in L2 between runs on both sides)
// against the same job as a CUB pipeline with its storage allocated beforehand
// (DeviceReduce::Max, DeviceReduce::TransformReduce, DeviceTransform::Transform,
// DeviceSelect::If: 4 calls, 6 launches, no host synchronisation) and against
// DeviceSelect::If alone. Results are checked against the CPU in both builds.
#if defined(__CUDACC__)
#  include <tilekit/tilekit.cuh>
#  include <cub/device/device_reduce.cuh>
#  include <cub/device/device_select.cuh>
#  include <cub/device/device_transform.cuh>
#  include <cuda/std/functional>
#  include "gpu_helpers.cuh"  // CHECK, median_ms, small_inputs
#else
#  include <tilekit/sim.cuh>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

template <unsigned Threads>
struct pipeline_body {
  const float* x;
  std::int64_t n;
  float* y;            // the softmax of x, n items
  float* kept;         // the items with x > top / 2, in order
  unsigned long long* kept_count;
  float* top_and_sum;  // written by grid thread 0
  void* reduce_memory;  // grid_reduce_storage<float>::bytes(max_blocks)
  void* scan_memory;    // grid_scan_storage<unsigned long long>::bytes(max_blocks)
  unsigned long long max_blocks;

  struct shared_t {  // one step at a time: block.sync() between them
    union {
      tilekit::reduce_storage<float, Threads> reduce;
      tilekit::scan_storage<unsigned long long, Threads> scan;
    };
  };

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<shared_t>();
    tilekit::grid_reduce_storage<float> sums(reduce_memory, max_blocks);
    tilekit::grid_scan_storage<unsigned long long> ranks(scan_memory, max_blocks);
    const unsigned long long threads = grid.num_threads(), rank = grid.thread_rank();

    float mine = -INFINITY;  // 1. the largest x
    for (std::int64_t i = std::int64_t(rank); i < n; i += std::int64_t(threads)) mine = mine < x[i] ? x[i] : mine;
    const float top = tilekit::reduce(grid, block, mine, tilekit::maximum{}, shared.reduce, sums);
    block.sync();

    float part = 0.0f;  // 2. the sum of exp(x - top)
    for (std::int64_t i = std::int64_t(rank); i < n; i += std::int64_t(threads)) part += std::exp(x[i] - top);
    const float sum = tilekit::reduce(grid, block, part, tilekit::plus{}, shared.reduce, sums);
    block.sync();

    for (std::int64_t i = std::int64_t(rank); i < n; i += std::int64_t(threads)) y[i] = std::exp(x[i] - top) / sum;  // 3.

    // 4. x > top / 2, in order: thread t owns the run [t * per, (t + 1) * per) of the items;
    // one grid scan of the runs' kept counts says where each run's kept items go.
    const std::int64_t per = (n + std::int64_t(threads) - 1) / std::int64_t(threads);
    const std::int64_t first = std::int64_t(rank) * per, last = first + per < n ? first + per : n;
    unsigned long long count = 0;
    for (std::int64_t i = first; i < last; ++i) count += x[i] > top / 2;
    const tilekit::scanned<unsigned long long> at =
        tilekit::exclusive_scan_aggregate(grid, block, count, tilekit::plus{}, 0ull, shared.scan, ranks);
    unsigned long long o = at.value;
    for (std::int64_t i = first; i < last; ++i)
      if (x[i] > top / 2) kept[o++] = x[i];
    if (rank == 0) *kept_count = at.aggregate, top_and_sum[0] = top, top_and_sum[1] = sum;
  }
};

// An ordinary launch of any number of blocks: the items above `cut`, in order, in one pass.
template <unsigned Threads, int K>
struct filter_body {
  const float* x;
  long long n;
  float cut;
  float* kept;
  unsigned long long* kept_count;
  void* chain_memory;  // grid_chain_storage<unsigned long long>::bytes(max_blocks), zeroed once
  unsigned long long max_blocks;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto grid = ctx.grid();
    auto block = ctx.template block<Threads>();
    auto& shared = ctx.template shared<tilekit::chain_storage<unsigned long long, Threads>>();
    tilekit::grid_chain_storage<unsigned long long> chain(chain_memory, max_blocks);
    const unsigned long long c = tilekit::take_ticket(grid, block, shared, chain);  // this block's chunk
    const long long first = (long long)(c * Threads + block.thread_rank()) * K;
    float v[K];
    unsigned long long mine = 0;
    for (int k = 0; k < K; ++k) {
      v[k] = first + k < n ? x[first + k] : cut;
      mine += v[k] > cut;
    }
    unsigned long long at = tilekit::exclusive_scan(grid, block, mine, tilekit::plus{}, 0ull, shared, chain);
    for (int k = 0; k < K; ++k)
      if (v[k] > cut) kept[at++] = v[k];
    if (c == grid.num_blocks() - 1 && block.thread_rank() == Threads - 1) *kept_count = at;
  }
};

struct expected {
  float top = -INFINITY;
  double sum = 0;
  std::vector<float> kept;
};
inline std::vector<float> make_items(std::size_t n, expected& want) {
  std::vector<float> x(n);
  std::uint32_t s = 2026u;
  for (auto& v : x) {
    s = s * 1664525u + 1013904223u;
    v = float(s >> 8) / float(1u << 24) * 20.0f - 10.0f;  // [-10, 10)
    want.top = want.top < v ? v : want.top;
  }
  for (float v : x) {
    want.sum += std::exp(double(v) - double(want.top));
    if (v > want.top / 2) want.kept.push_back(v);
  }
  return x;
}

// Checks the job's outputs (host copies) against the CPU; prints and returns the mismatches.
inline int check(const std::vector<float>& x, const expected& want, const std::vector<float>& y, const std::vector<float>& kept,
                 unsigned long long kept_count, float top, float sum) {
  int bad = 0;
  if (top != want.top) ++bad, std::printf("  top: got %g, want %g\n", double(top), double(want.top));
  if (std::fabs(double(sum) - want.sum) > 1e-4 * want.sum) ++bad, std::printf("  sum: got %g, want %g\n", double(sum), want.sum);
  std::size_t far = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double w = std::exp(double(x[i]) - double(want.top)) / want.sum;
    far += std::fabs(double(y[i]) - w) > 1e-4 * w + 1e-12;
  }
  if (far) ++bad, std::printf("  softmax: %zu of %zu items off by more than 1e-4 (relative)\n", far, x.size());
  if (kept_count != want.kept.size()) ++bad, std::printf("  kept: %llu items, want %zu\n", kept_count, want.kept.size());
  else if (!std::equal(want.kept.begin(), want.kept.end(), kept.begin())) ++bad, std::printf("  kept: wrong items or order\n");
  return bad;
}

#if !defined(__CUDACC__)

int main() {
  constexpr unsigned threads = 128, blocks = 6;
  const std::size_t n = 5000;
  expected want;
  const std::vector<float> x = make_items(n, want);
  std::vector<float> y(n, -1.0f), kept(n, -1.0f), top_and_sum(2, -1.0f);
  unsigned long long kept_count = ~0ull;
  std::vector<unsigned char> reduce_memory(tilekit::grid_reduce_storage<float>::bytes(blocks), 0xCD);
  std::vector<unsigned char> scan_memory(tilekit::grid_scan_storage<unsigned long long>::bytes(blocks), 0xCD);
  using body_t = pipeline_body<threads>;
  tilekit::sim::launch_cooperative(blocks, threads,
                                   body_t{x.data(), std::int64_t(n), y.data(), kept.data(), &kept_count, top_and_sum.data(),
                                          reduce_memory.data(), scan_memory.data(), blocks},
                                   sizeof(body_t::shared_t));
  std::printf("grid_pipeline (simulator): %zu items, one launch of %u blocks x %u threads: max %.4f, %llu items above max/2\n",
              n, blocks, threads, double(top_and_sum[0]), kept_count);
  int bad = check(x, want, y, kept, kept_count, top_and_sum[0], top_and_sum[1]);

  // Step 4 alone, under an ordinary launch: 10 blocks, 4 resident at a time.
  using filter_t = filter_body<64, 8>;
  const unsigned filter_blocks = unsigned((n + 64 * 8 - 1) / (64 * 8));
  std::vector<unsigned long long> chain_memory(tilekit::grid_chain_storage<unsigned long long>::bytes(filter_blocks) / 8 + 1, 0);
  std::vector<float> filtered(n, -1.0f);
  unsigned long long filtered_count = ~0ull;
  tilekit::sim::launch(filter_blocks, 64,
                       filter_t{x.data(), (long long)n, want.top / 2, filtered.data(), &filtered_count, chain_memory.data(),
                                filter_blocks},
                       sizeof(tilekit::chain_storage<unsigned long long, 64>));
  std::printf("grid_pipeline (simulator): the filter alone, an ordinary launch of %u blocks: %llu items\n", filter_blocks,
              filtered_count);
  if (filtered_count != want.kept.size() || !std::equal(want.kept.begin(), want.kept.end(), filtered.begin()))
    ++bad, std::printf("  filter: wrong count, items or order\n");
  std::printf("%s\n", bad == 0 ? "grid_pipeline: every result matches the CPU" : "grid_pipeline: MISMATCHES");
  return bad == 0 ? 0 : 1;
}

#else

// The CUB pipeline's functors read top and sum where the previous step left them (device memory).
struct exp_minus {
  const float* top;
  __device__ float operator()(float v) const { return expf(v - *top); }
};
struct softmax_of {
  const float* top_and_sum;
  __device__ float operator()(float v) const { return expf(v - top_and_sum[0]) / top_and_sum[1]; }
};
struct above_half {
  const float* top;
  __device__ bool operator()(float v) const { return v > *top / 2; }
};
struct above {
  float cut;
  __device__ bool operator()(float v) const { return v > cut; }
};

// Runs and times both jobs at n items; returns the mismatches.
int run_size(std::size_t n, int runs) {
  constexpr unsigned threads = 256, filter_threads = 128;
  constexpr int filter_items = 8;
  using body_t = pipeline_body<threads>;
  using filter_t = filter_body<filter_threads, filter_items>;
  expected want;
  const std::vector<float> x = make_items(n, want);
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tilekit::kernel_of<body_t, tilekit::grid_launch::cooperative>(),
                                                      threads, sizeof(body_t::shared_t)));
  const unsigned blocks = unsigned(sms * (per_sm > 0 ? per_sm : 1));  // all resident at once
  const unsigned filter_blocks = unsigned((n + filter_threads * filter_items - 1) / (filter_threads * filter_items));
  float *d_x, *d_y, *d_kept, *d_top_and_sum, *c_y, *c_kept, *c_top_and_sum;
  unsigned long long *d_count, *c_count;
  void *reduce_memory, *scan_memory, *chain_memory, *cub_temp;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CHECK(cudaMalloc(&d_kept, n * sizeof(float)));
  CHECK(cudaMalloc(&c_y, n * sizeof(float)));
  CHECK(cudaMalloc(&c_kept, n * sizeof(float)));
  CHECK(cudaMalloc(&d_top_and_sum, 2 * sizeof(float)));
  CHECK(cudaMalloc(&c_top_and_sum, 2 * sizeof(float)));
  CHECK(cudaMalloc(&d_count, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&c_count, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&reduce_memory, tilekit::grid_reduce_storage<float>::bytes(blocks)));
  CHECK(cudaMalloc(&scan_memory, tilekit::grid_scan_storage<unsigned long long>::bytes(blocks)));
  const std::size_t chain_bytes = tilekit::grid_chain_storage<unsigned long long>::bytes(filter_blocks);
  CHECK(cudaMalloc(&chain_memory, chain_bytes));
  CHECK(cudaMemset(chain_memory, 0, chain_bytes));  // once: every launch leaves it ready for the next
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  // CUB's storage, allocated once for its four calls.
  std::size_t bytes[3] = {0, 0, 0};
  CHECK(cub::DeviceReduce::Max(nullptr, bytes[0], d_x, c_top_and_sum, (long long)n));
  CHECK(cub::DeviceReduce::TransformReduce(nullptr, bytes[1], d_x, c_top_and_sum + 1, (long long)n, ::cuda::std::plus<float>{},
                                           exp_minus{c_top_and_sum}, 0.0f));
  CHECK(cub::DeviceSelect::If(nullptr, bytes[2], d_x, c_kept, c_count, (long long)n, above_half{c_top_and_sum}));
  std::size_t cub_bytes = std::max({bytes[0], bytes[1], bytes[2]});
  CHECK(cudaMalloc(&cub_temp, cub_bytes));

  int bad = 0;
  std::vector<float> y(n), kept(n), top_and_sum(2);
  unsigned long long kept_count = 0;
  auto fetch = [&](float* dy, float* dkept, float* dts, unsigned long long* dcount) {
    if (dy) CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(kept.data(), dkept, n * sizeof(float), cudaMemcpyDeviceToHost));
    if (dts) CHECK(cudaMemcpy(top_and_sum.data(), dts, 2 * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&kept_count, dcount, sizeof(kept_count), cudaMemcpyDeviceToHost));
  };

  const body_t body{d_x, std::int64_t(n), d_y, d_kept, d_count, d_top_and_sum, reduce_memory, scan_memory, blocks};
  const float ms_tilekit = median_ms(
      [&] { CHECK(tilekit::launch_cooperative(blocks, threads, 0, body, sizeof(body_t::shared_t))); }, runs);
  fetch(d_y, d_kept, d_top_and_sum, d_count);
  bad += check(x, want, y, kept, kept_count, top_and_sum[0], top_and_sum[1]);

  const float ms_cub = median_ms(
      [&] {
        CHECK(cub::DeviceReduce::Max(cub_temp, bytes[0], d_x, c_top_and_sum, (long long)n));
        CHECK(cub::DeviceReduce::TransformReduce(cub_temp, bytes[1], d_x, c_top_and_sum + 1, (long long)n,
                                                 ::cuda::std::plus<float>{}, exp_minus{c_top_and_sum}, 0.0f));
        CHECK(cub::DeviceTransform::Transform(d_x, c_y, (long long)n, softmax_of{c_top_and_sum}));
        CHECK(cub::DeviceSelect::If(cub_temp, bytes[2], d_x, c_kept, c_count, (long long)n, above_half{c_top_and_sum}));
      },
      runs);
  fetch(c_y, c_kept, c_top_and_sum, c_count);
  bad += check(x, want, y, kept, kept_count, top_and_sum[0], top_and_sum[1]);

  // Step 4 alone: the chained filter under an ordinary launch, and DeviceSelect::If.
  const filter_t filter{d_x, (long long)n, want.top / 2, d_kept, d_count, chain_memory, filter_blocks};
  CHECK(cudaMemset(d_kept, 0xFF, n * sizeof(float)));
  const float ms_filter = median_ms(
      [&] {
        CHECK(tilekit::launch(filter_blocks, filter_threads, 0, filter, sizeof(tilekit::chain_storage<unsigned long long, filter_threads>)));
      },
      runs);
  fetch(nullptr, d_kept, nullptr, d_count);
  if (kept_count != want.kept.size() || !std::equal(want.kept.begin(), want.kept.end(), kept.begin()))
    ++bad, std::printf("  filter: %llu items (want %zu), or wrong items or order\n", kept_count, want.kept.size());
  const float ms_select = median_ms(
      [&] { CHECK(cub::DeviceSelect::If(cub_temp, bytes[2], d_x, c_kept, c_count, (long long)n, above{want.top / 2})); }, runs);
  fetch(nullptr, c_kept, nullptr, c_count);
  if (kept_count != want.kept.size() || !std::equal(want.kept.begin(), want.kept.end(), kept.begin()))
    ++bad, std::printf("  DeviceSelect::If: wrong count, items or order\n");

  std::printf("| 2^%-2d | %8.4f | %8.4f | %5.2f | %8.4f | %8.4f | %5.2f |\n", int(std::log2(double(n))), double(ms_tilekit),
              double(ms_cub), double(ms_cub / ms_tilekit), double(ms_filter), double(ms_select), double(ms_select / ms_filter));
  for (void* p : {(void*)d_x, (void*)d_y, (void*)d_kept, (void*)c_y, (void*)c_kept, (void*)d_top_and_sum, (void*)c_top_and_sum,
                  (void*)d_count, (void*)c_count, reduce_memory, scan_memory, chain_memory, cub_temp})
    CHECK(cudaFree(p));
  return bad;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("grid_pipeline: no CUDA device (run grid_pipeline_sim instead)\n");
    return 77;
  }
  const int runs = small_inputs() ? 1 : 7;
  std::printf("grid_pipeline: ms, median of %d; ratio = CUB / tilekit (above 1: tilekit is faster)\n", runs);
  std::printf("| items | tilekit pipeline (1 cooperative launch) | CUB pipeline (4 calls) | ratio | tilekit filter (1 ordinary launch) | "
              "CUB DeviceSelect::If | ratio |\n|---|---|---|---|---|---|---|\n");
  int bad = 0;
  const int top = small_inputs() ? 16 : 24;
  for (int lg = 14; lg <= top; lg += 2) bad += run_size(std::size_t(1) << lg, runs);
  std::printf("%s\n", bad == 0 ? "grid_pipeline: every result matches the CPU" : "grid_pipeline: MISMATCHES");
  return bad == 0 ? 0 : 1;
}

#endif
