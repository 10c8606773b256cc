// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A multi-step job in one launch with the grid rung (tilekit::reduce / compact over
// the whole grid inside the kernel, a cooperative launch):
//   1. top = the largest x                          (grid reduce, maximum)
//   2. sum = the sum of exp(x - top)                (grid reduce, plus)
//   3. y   = exp(x - top) / sum                     (a softmax, every item)
//   4. the items with x > top / 2, in order         (grid compact per round of items)
// Each thread strides over the items; every step's result reaches every thread, so
// the next step needs no new launch. CUB and Thrust need a launch (or two) per step.
// Simulator build: 5000 items on 6 blocks of 128 threads. GPU build (grid_pipeline.cu):
// 2^22 items on as many blocks as fit at once, timed (median of 7, CUDA events)
// against the same job as a Thrust pipeline (reduce, transform_reduce, transform,
// copy_if: 4 steps, 5+ launches). Results are checked against the CPU in both.
#if defined(__CUDACC__)
#  include <tilekit/tilekit.cuh>
#  include <thrust/copy.h>
#  include <thrust/device_ptr.h>
#  include <thrust/execution_policy.h>
#  include <thrust/functional.h>
#  include <thrust/reduce.h>
#  include <thrust/transform.h>
#  include <thrust/transform_reduce.h>
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

    unsigned long long offset = 0;  // 4. x > top / 2, in order: one compact per round of `threads` items
    for (unsigned long long base = 0; base < static_cast<unsigned long long>(n); base += threads) {
      const unsigned long long i = base + rank;
      const bool keep = i < static_cast<unsigned long long>(n) && x[i] > top / 2;
      const tilekit::grid_compact_result r = tilekit::compact(grid, block, keep, shared.scan, ranks);
      if (keep) kept[offset + r.rank] = x[i];
      offset += r.count;
      block.sync();
    }
    if (rank == 0) *kept_count = offset, top_and_sum[0] = top, top_and_sum[1] = sum;
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
  tilekit::sim::options opt;
  opt.resident_blocks = blocks;  // every block at once: the simulator's cooperative launch
  opt.shared_bytes = sizeof(body_t::shared_t);
  tilekit::sim::launch(blocks, threads,
                       body_t{x.data(), std::int64_t(n), y.data(), kept.data(), &kept_count, top_and_sum.data(),
                              reduce_memory.data(), scan_memory.data(), blocks},
                       opt);
  std::printf("grid_pipeline (simulator): %zu items, one launch of %u blocks x %u threads: max %.4f, %llu items above max/2\n",
              n, blocks, threads, double(top_and_sum[0]), kept_count);
  const int bad = check(x, want, y, kept, kept_count, top_and_sum[0], top_and_sum[1]);
  std::printf("%s\n", bad == 0 ? "grid_pipeline: every result matches the CPU" : "grid_pipeline: MISMATCHES");
  return bad == 0 ? 0 : 1;
}

#else

struct exp_minus {
  float top;
  __device__ float operator()(float v) const { return expf(v - top); }
};
struct softmax_of {
  float top, sum;
  __device__ float operator()(float v) const { return expf(v - top) / sum; }
};
struct above {
  float cut;
  __device__ bool operator()(float v) const { return v > cut; }
};

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("grid_pipeline: no CUDA device (run grid_pipeline_sim instead)\n");
    return 77;
  }
  constexpr unsigned threads = 256;
  using body_t = pipeline_body<threads>;
  const std::size_t n = small_inputs() ? std::size_t(1) << 16 : std::size_t(1) << 22;
  const int runs = small_inputs() ? 1 : 7;
  expected want;
  const std::vector<float> x = make_items(n, want);
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tilekit::kernel_of<body_t>(), threads, sizeof(body_t::shared_t)));
  const unsigned blocks = unsigned(sms * (per_sm > 0 ? per_sm : 1));  // all resident at once
  float *d_x, *d_y, *d_kept, *d_top_and_sum, *t_y, *t_kept;
  unsigned long long* d_count;
  void *reduce_memory, *scan_memory;
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CHECK(cudaMalloc(&d_kept, n * sizeof(float)));
  CHECK(cudaMalloc(&t_y, n * sizeof(float)));
  CHECK(cudaMalloc(&t_kept, n * sizeof(float)));
  CHECK(cudaMalloc(&d_top_and_sum, 2 * sizeof(float)));
  CHECK(cudaMalloc(&d_count, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&reduce_memory, tilekit::grid_reduce_storage<float>::bytes(blocks)));
  CHECK(cudaMalloc(&scan_memory, tilekit::grid_scan_storage<unsigned long long>::bytes(blocks)));
  CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const body_t body{d_x, std::int64_t(n), d_y, d_kept, d_count, d_top_and_sum, reduce_memory, scan_memory, blocks};

  const float ms_tilekit = median_ms(
      [&] { CHECK(tilekit::launch_cooperative(blocks, threads, 0, body, sizeof(body_t::shared_t))); }, runs);
  std::vector<float> y(n), kept(n), top_and_sum(2);
  unsigned long long kept_count = 0;
  CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(kept.data(), d_kept, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(top_and_sum.data(), d_top_and_sum, 2 * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&kept_count, d_count, sizeof(kept_count), cudaMemcpyDeviceToHost));
  int bad = check(x, want, y, kept, kept_count, top_and_sum[0], top_and_sum[1]);

  // The same job as a Thrust user writes it today: one call (and launch, or more) per step.
  const auto px = thrust::device_pointer_cast(d_x);
  float t_top = 0, t_sum = 0;
  std::size_t t_count = 0;
  const float ms_thrust = median_ms(
      [&] {
        t_top = thrust::reduce(thrust::device, px, px + n, -INFINITY, thrust::maximum<float>());
        t_sum = thrust::transform_reduce(thrust::device, px, px + n, exp_minus{t_top}, 0.0f, thrust::plus<float>());
        thrust::transform(thrust::device, px, px + n, thrust::device_pointer_cast(t_y), softmax_of{t_top, t_sum});
        t_count = std::size_t(thrust::copy_if(thrust::device, px, px + n, thrust::device_pointer_cast(t_kept), above{t_top / 2}) -
                              thrust::device_pointer_cast(t_kept));
      },
      runs);
  CHECK(cudaMemcpy(y.data(), t_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(kept.data(), t_kept, n * sizeof(float), cudaMemcpyDeviceToHost));
  bad += check(x, want, y, kept, t_count, t_top, t_sum);

  std::printf("grid_pipeline: %zu items; tilekit one launch of %u blocks x %u threads %.3f ms, Thrust 4 steps %.3f ms (%.2fx)\n", n,
              blocks, threads, double(ms_tilekit), double(ms_thrust), double(ms_thrust / ms_tilekit));
  std::printf("%s\n", bad == 0 ? "grid_pipeline: every result matches the CPU" : "grid_pipeline: MISMATCHES");
  for (void* p : {(void*)d_x, (void*)d_y, (void*)d_kept, (void*)t_y, (void*)t_kept, (void*)d_top_and_sum, (void*)d_count, reduce_memory,
                  scan_memory})
    CHECK(cudaFree(p));
  return bad == 0 ? 0 : 1;
}

#endif
