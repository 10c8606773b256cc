// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Skewed histograms: when does aggregating a tile's samples first pay?
//
// A histogram of 1024 bins where a share of the samples (0%, 50%, 90%, 99%) falls
// in one hot bin and the rest spread evenly. Each warp counts 32 samples at a time,
// two ways, into counters in two places:
//   atomic  tilekit::histogram_atomic: one atomic add per sample
//   match   tilekit::histogram_match: lanes with the same bin find each other with
//           match_any and one of them adds the group's count (one atomic per
//           distinct bin in the warp)
//   shared  per-block counters in shared memory, merged into the global ones at the end
//   global  straight into the global counters
// Simulator build (skewed_histogram_sim): 8192 samples per skew, all four ways checked
// against the CPU; prints the counts and how many atomics each way issues.
// GPU build (skewed_histogram_gpu, this file through skewed_histogram.cu): 2^26
// samples per skew, each way timed (median of 7 runs, CUDA events) and checked;
// prints a table of samples per second and what it says, computed from the numbers.
#if defined(__CUDACC__)
#  include <tilekit/tilekit.cuh>
#  include <algorithm>
#  include "gpu_helpers.cuh"  // CHECK, median_ms, small_inputs
#  include <string>
#else
#  include <tilekit/sim.cuh>
#endif

#include <cstdint>
#include <cstdio>
#include <set>
#include <vector>

constexpr unsigned threads = 256, per_thread = 4, bins = 1024, hot_bin = 7;
constexpr int skews[] = {0, 50, 90, 99};  // percent of the samples in the hot bin

enum class way { atomic, match };

template <way How, bool Shared>
struct count_samples {
  const unsigned* samples;  // bins, each < bins
  std::int64_t n;
  unsigned* counters;  // global, zeroed

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<threads>();
    auto warp = tilekit::tiled_partition<32>(block);
    unsigned* c = counters;
    if constexpr (Shared) {
      c = ctx.template shared_array<unsigned>(bins);
      tilekit::histogram_init(block, c, bins);
    }
    const std::int64_t step = std::int64_t(ctx.grid().num_blocks()) * threads * per_thread;
    for (std::int64_t base = std::int64_t(ctx.grid().block_rank()) * threads * per_thread; base < n; base += step) {
      unsigned bin[per_thread];
      for (unsigned k = 0; k < per_thread; ++k) {  // the loads first, then the counting
        const std::int64_t i = base + k * threads + block.thread_rank();
        bin[k] = i < n ? samples[i] : 0u;
      }
      for (unsigned k = 0; k < per_thread; ++k) {  // every lane of the warp calls (match is collective)
        const bool valid = base + k * threads + block.thread_rank() < n;
        if constexpr (How == way::atomic) tilekit::histogram_atomic(warp, bin[k], c, valid);
        else tilekit::histogram_match(warp, bin[k], c, valid);
      }
    }
    if constexpr (Shared) tilekit::histogram_merge(block, c, counters, bins);
  }
};

// skew percent of the samples in the hot bin, the others uniform over every bin.
inline std::vector<unsigned> make_samples(std::size_t n, int skew, std::vector<unsigned>& want) {
  std::vector<unsigned> v(n);
  want.assign(bins, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull + std::uint64_t(skew);
    h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    v[i] = h % 100 < std::uint64_t(skew) ? hot_bin : unsigned((h >> 20) % bins);
    ++want[v[i]];
  }
  return v;
}

inline const char* name(way how, bool shared) {
  return how == way::atomic ? (shared ? "shared atomic" : "global atomic") : (shared ? "shared match" : "global match");
}

#if !defined(__CUDACC__)

template <way How, bool Shared>
unsigned run_sim(const std::vector<unsigned>& samples, const std::vector<unsigned>& want) {
  std::vector<unsigned> counters(bins, 0);
  tilekit::sim::launch(4, threads, count_samples<How, Shared>{samples.data(), std::int64_t(samples.size()), counters.data()},
                       Shared ? bins * sizeof(unsigned) : 0);
  return counters == want ? 0u : 1u;
}

int main() {
  const std::size_t n = 8192;
  unsigned errors = 0;
  std::printf("skewed_histogram (simulator): %zu samples per skew, %u bins, hot bin %u\n", n, bins, hot_bin);
  std::printf("  skew   in the hot bin   atomics issued: atomic   match (one per distinct bin in a warp's 32 samples)\n");
  for (int skew : skews) {
    std::vector<unsigned> want;
    const std::vector<unsigned> samples = make_samples(n, skew, want);
    const unsigned e = run_sim<way::atomic, true>(samples, want) + run_sim<way::match, true>(samples, want) +
                       run_sim<way::atomic, false>(samples, want) + run_sim<way::match, false>(samples, want);
    errors += e;
    std::size_t match_atomics = 0;  // warps count 32 consecutive samples at a time
    for (std::size_t w = 0; w < n; w += 32) match_atomics += std::set<unsigned>(samples.begin() + w, samples.begin() + w + 32).size();
    std::printf("  %3d%%   %14u   %22zu   %5zu (%.2f per sample)%s\n", skew, want[hot_bin], n, match_atomics,
                double(match_atomics) / double(n), e ? "  MISMATCH" : "");
  }
  std::printf("  %s\n", errors == 0 ? "all four ways (shared/global x atomic/match) match the CPU at every skew"
                                    : "MISMATCHES against the CPU");
  return errors == 0 ? 0 : 1;
}

#else  // the GPU: timings

// Median milliseconds of `runs` runs of `count` (zeroing the counters included), after
// a warm-up; sets `ok` to whether the counters then match `want`.
template <way How, bool Shared>
float time_way(const unsigned* samples, std::int64_t n, unsigned* counters, const std::vector<unsigned>& want, int runs,
               bool& ok) {
  using body = count_samples<How, Shared>;
  const std::size_t shared = Shared ? bins * sizeof(unsigned) : 0;
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tilekit::kernel_of<body>(), threads, shared));
  const unsigned grid = unsigned(sms * std::max(per_sm, 1));
  auto count = [&] {
    CHECK(cudaMemsetAsync(counters, 0, bins * sizeof(unsigned)));
    CHECK(tilekit::launch(grid, threads, 0, body{samples, n, counters}, shared));
  };
  const float ms = median_ms(count, runs);
  std::vector<unsigned> got(bins);
  CHECK(cudaMemcpy(got.data(), counters, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  ok = got == want;
  return ms;
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("skewed_histogram: no CUDA device (run skewed_histogram_sim instead)\n");
    return 77;
  }
  // TILEKIT_TEST_SMALL=1 (.ci/gpu-check sets it under compute-sanitizer): a small input, one timed run.
  const bool small = small_inputs();
  const std::size_t n = small ? 20000 : std::size_t(1) << 26;
  const int runs = small ? 1 : 7;
  unsigned *d_samples, *d_counters;
  CHECK(cudaMalloc(&d_samples, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_counters, bins * sizeof(unsigned)));
  constexpr int rows = int(sizeof(skews) / sizeof(skews[0]));
  float rate[rows][4];  // [skew][shared atomic, shared match, global atomic, global match], G samples/s
  unsigned errors = 0;
  std::printf("skewed_histogram (GPU): %zu samples per skew, %u bins; G samples/s (median of %d runs%s)\n", n, bins, runs,
              small ? ", TILEKIT_TEST_SMALL: not a measurement" : "");
  std::printf("  skew   shared atomic   shared match   global atomic   global match\n");
  for (int r = 0; r < rows; ++r) {
    std::vector<unsigned> want;
    const std::vector<unsigned> samples = make_samples(n, skews[r], want);
    CHECK(cudaMemcpy(d_samples, samples.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    bool ok[4];
    const float ms[4] = {time_way<way::atomic, true>(d_samples, n, d_counters, want, runs, ok[0]),
                         time_way<way::match, true>(d_samples, n, d_counters, want, runs, ok[1]),
                         time_way<way::atomic, false>(d_samples, n, d_counters, want, runs, ok[2]),
                         time_way<way::match, false>(d_samples, n, d_counters, want, runs, ok[3])};
    std::printf("  %3d%%", skews[r]);
    for (int c = 0; c < 4; ++c) {
      rate[r][c] = float(double(n) / ms[c] / 1e6);
      errors += !ok[c];
      std::printf("   %10.1f%s", rate[r][c], ok[c] ? "   " : " !!");
    }
    std::printf("\n");
  }
  CHECK(cudaFree(d_samples));
  CHECK(cudaFree(d_counters));

  // What the numbers say, per place of the counters: match against atomic at each skew.
  for (int place = 0; place < 2; ++place) {
    std::string lists[3];  // skews where match is faster, slower, within 5%
    std::printf("  %s counters, match / atomic:", place == 0 ? "shared" : "global");
    for (int r = 0; r < rows; ++r) {
      const float ratio = rate[r][2 * place + 1] / rate[r][2 * place];
      std::printf(" %.2f at %d%%%s", ratio, skews[r], r + 1 < rows ? "," : "");
      lists[ratio > 1.05f ? 0 : ratio < 0.95f ? 1 : 2] += " " + std::to_string(skews[r]) + "%";
    }
    std::printf("\n    -> aggregating the tile first is");
    const char* what[3] = {"faster at", "slower at", "within 5% at"};
    bool first = true;
    for (int k = 0; k < 3; ++k)
      if (!lists[k].empty()) std::printf("%s %s%s", first ? "" : ";", what[k], lists[k].c_str()), first = false;
    std::printf("\n");
  }
  std::printf("  fastest way at each skew:");
  for (int r = 0; r < rows; ++r) {
    const int best = int(std::max_element(rate[r], rate[r] + 4) - rate[r]);
    std::printf(" %d%%: %s%s", skews[r], name(best % 2 ? way::match : way::atomic, best < 2), r + 1 < rows ? "," : "\n");
  }
  std::printf("  %s\n", errors == 0 ? "every count matches the CPU" : "MISMATCHES against the CPU (marked !!)");
  return errors == 0 ? 0 : 1;
}

#endif
