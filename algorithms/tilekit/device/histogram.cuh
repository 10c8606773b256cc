// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/histogram.cuh - device-wide histograms on the GPU, one launch
// (the kernel and its dispatch below).
//
//   histogram_even(temp, temp_bytes, samples, n, counters, num_levels, lower, upper[, stream])
//       num_levels - 1 bins of equal width over [lower, upper), binned as CUB's HistogramEven
//   histogram_range(temp, temp_bytes, samples, n, counters, num_levels, levels[, stream])
//       bin i = [levels[i], levels[i+1]); levels ascending, in device memory
// counters[0 .. num_levels - 1) are zeroed, then counted; samples outside the
// bins are not counted. Any bin count: shared-memory counters per block while
// they fit (launcher.max_shared_bytes()), 16-bit ones (two to a word) up to twice
// that, global ones beyond.
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, num_levels < 2,
// lower >= upper, bin arithmetic that could overflow, null pointers.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/histogram.cuh>
#include <tilekit/cluster/histogram.cuh>

namespace tilekit {

// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_histogram(launcher, temp, temp_bytes, samples, n, counters, bins, binner):
// counters[binner(x)] += 1 for every sample x with a bin (binner returns -1 for
// none); counters[0 .. bins) are zeroed first (as CUB). binner.valid() says whether
// its parameters can bin at all (the dispatch answers invalid_value otherwise, on
// every backend). One launch. 1-byte samples: each block counts the 256 values in
// a shared histogram per warp (byte_counters), then adds the values' totals to
// their bins. Other samples: while the bins fit in a block's shared
// memory (launcher.max_shared_bytes()), every block counts its share of the
// samples in shared counters and adds the non-zero ones to the global counters;
// up to twice that many bins, 16-bit counters two to a word (half_counters: 65536
// bins in 128 KB, a block of 1024 threads per SM; where the grid fills the device, in
// clusters of 2 blocks that add up their counters before the global atomics:
// cluster_half_merge); beyond that, chunks count straight
// into the global counters, lanes with the same bin aggregated by match_any (histogram_match).
// even_bins and range_bins compute bins exactly as cub::DeviceHistogram's
// HistogramEven / HistogramRange do.

/// One channel of an image of interleaved channels, as a sequence of samples for
/// device_histogram: sample i is channel `channel` of pixel i, the pixels taken row by
/// row, row_pixels to a row, rows starting row_stride samples apart (cub::DeviceHistogram's
/// multi-channel and row-stride forms). @pre row_pixels >= 1, 0 <= channel < channels.
template <class It>
struct pixel_samples {
  using value_type = detail::value_of<It>;  ///< what each sample is
  It samples;                               ///< channel 0 of pixel 0
  detail::count_t row_pixels;               ///< pixels in a row
  detail::count_t row_stride;               ///< samples from the start of a row to the next
  int channels;                             ///< samples per pixel
  int channel;                              ///< the channel read
  /// Channel `channel` of pixel i.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD value_type operator[](detail::count_t i) const {
    if (row_stride == row_pixels * channels) return samples[i * channels + channel];  // rows back to back: no division
    return samples[(i / row_pixels) * row_stride + (i % row_pixels) * channels + channel];
  }
};

/// CUB's HistogramEven binning: bins of equal width over [lower, upper).
template <class Sample, class Level>
struct even_bins {
  using sample = Sample;  ///< what is binned
  using level = Level;    ///< the levels' type
  /// The type samples and levels are compared and scaled in (CUB's CommonT).
  using common = detail::stdx::common_type_t<Level, Sample>;
  /// Integer arithmetic of the bin: 32-bit when sample and common type together fit, 64-bit otherwise (CUB's choice).
  using wide = detail::stdx::conditional_t<sizeof(Sample) + sizeof(common) <= 4, std::uint32_t, std::uint64_t>;
  common lower;  ///< the lowest level: the bins cover [lower, upper)
  common upper;  ///< the highest level, outside the last bin
  int bins;             ///< num_levels - 1
  common scale;         ///< floating point: bins / (upper - lower)
  /// Integers whose products (sample - lower) * bins stay below 2^32 (8- and 16-bit
  /// samples, most levels): the division by upper - lower as a multiply-high by its
  /// reciprocal (detail::divide), which gives the same bins as the division. Also
  /// integers whose bins are all `width` wide (upper - lower a multiple of bins, at most
  /// 2^32): (s - lower) * bins / (bins * width) is (s - lower) / width, so the product
  /// is by multiplier 1 and the reciprocal width's (65536 bins of int32 over 65536 values:
  /// no 64-bit division per sample).
  bool narrow;
  unsigned multiplier;            ///< where narrow: bins, or 1 for bins of a whole width
  unsigned long long reciprocal;  ///< where narrow: the multiply-high factor (by upper - lower, or by the width)
  int width_shift;                ///< integers whose bins are all 2^width_shift wide: that exponent (shift_bins); else -1

  /// a - b for integers a >= b, computed in wide (the difference of two ints can overflow int).
  TILEKIT_HD static wide span(common a, common b) { return static_cast<wide>(static_cast<wide>(a) - static_cast<wide>(b)); }

  /// num_levels - 1 bins over [lower_level, upper_level); check valid() before use.
  TILEKIT_HD even_bins(int num_levels, Level lower_level, Level upper_level)
      : lower(common(lower_level)), upper(common(upper_level)), bins(num_levels - 1), scale(common(0)), narrow(false),
        multiplier(0), reciprocal(0), width_shift(-1) {
    if constexpr (detail::stdx::is_floating_point<common>::value) {
      scale = common(common(num_levels - 1) / common(upper - lower));
    } else if (upper > lower && bins > 0) {
      const unsigned long long range = static_cast<unsigned long long>(span(upper, lower));
      const unsigned long long whole = static_cast<unsigned long long>(bins);
      if (range <= (1ull << 32) && range % whole == 0) {  // bins of a whole width
        narrow = true;
        multiplier = 1;
        const unsigned long long width = range / whole;
        reciprocal = detail::divide_by(width);
        if ((width & (width - 1)) == 0) {
          width_shift = 0;
          while ((1ull << width_shift) < width) ++width_shift;
        }
      } else if (range <= (1ull << 32) / whole) {
        narrow = true;
        multiplier = unsigned(bins);
        reciprocal = detail::divide_by(range);
      }
    }
  }
  /// lower < upper, and (integers) bin arithmetic that cannot overflow; CUB answers
  /// cudaErrorInvalidValue otherwise.
  TILEKIT_HD bool valid() const {
    if (!(lower < upper)) return false;
    if constexpr (detail::stdx::is_integral<common>::value)
      return span(upper, lower) <= detail::stdx::numeric_limits<wide>::max() / wide(bins);
    else
      return true;
  }
  /// The bin of `sample`, or -1 where it lies outside [lower, upper).
  TILEKIT_HD int operator()(const Sample& sample) const {
    const common s = common(sample);
    if (!(s >= lower && s < upper)) return -1;
    int bin;
    if constexpr (detail::stdx::is_floating_point<common>::value) bin = int((s - lower) * scale);
    else if (narrow) bin = int(detail::divide(static_cast<unsigned long long>(span(s, lower)) * multiplier, reciprocal));
    else bin = int((span(s, lower) * wide(bins)) / span(upper, lower));
    return bin < bins ? bin : bins - 1;  // rounding of a float just below upper
  }
};

/// even_bins of integers whose bins are all 2^shift wide (even_bins::width_shift >= 0):
/// the same bins from a subtraction and a shift. device_histogram bins with it where it
/// applies (65536 bins of int32 over 65536 values: 12 fewer instructions per sample than
/// even_bins' multiply-high).
template <class Sample, class Level>
struct shift_bins {
  using common = typename even_bins<Sample, Level>::common;  ///< as even_bins
  common lower;    ///< the lowest level
  common upper;    ///< the highest level, outside the last bin
  unsigned shift;  ///< log2 of the bins' width
  /// As even_bins' (the dispatch checked that one).
  TILEKIT_HD bool valid() const { return lower < upper; }
  /// The bin of `sample`, or -1 where it lies outside [lower, upper).
  TILEKIT_HD int operator()(const Sample& sample) const {
    const common s = common(sample);
    if (!(s >= lower && s < upper)) return -1;
    using bits = detail::stdx::conditional_t<sizeof(common) <= 4, std::uint32_t, std::uint64_t>;
    return int(bits(bits(s) - bits(lower)) >> shift);  // (modulo 2^bits: exact, as upper - lower <= 2^32)
  }
};

/// CUB's HistogramRange binning: bin i is [levels[i], levels[i+1]); levels ascending.
template <class Sample, class Level>
struct range_bins {
  const Level* levels;  ///< num_levels of them, readable where the kernel runs
  int num_levels;       ///< bins + 1
  /// Levels given and at least one bin; CUB answers cudaErrorInvalidValue otherwise.
  TILEKIT_HD bool valid() const { return levels != nullptr && num_levels >= 2; }
  /// The bin of `sample` (the i with levels[i] <= sample < levels[i + 1], by bisection), or -1.
  TILEKIT_HD int operator()(const Sample& sample) const {
    int lo = 0, hi = num_levels;  // the first level greater than sample, by bisection
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (sample < levels[mid]) hi = mid;
      else lo = mid + 1;
    }
    const int bin = lo - 1;
    return bin >= 0 && bin < num_levels - 1 ? bin : -1;
  }
};

namespace detail {

// 1-byte integer samples take byte_histogram_kernel: the 256 values are counted,
// then mapped to bins once per block.
template <class Sample>
inline constexpr bool byte_samples_v =
    sizeof(Sample) == 1 && stdx::is_integral<Sample>::value && !stdx::is_same<Sample, bool>::value;

// Binners device_histogram turns into shift_bins where their bins are 2^k integers wide:
// even_bins of integers, but not of 1-byte samples (those are binned once per block).
template <class Binner, class Sample>
inline constexpr bool shifts_v = false;
template <class S, class L, class Sample>
inline constexpr bool shifts_v<even_bins<S, L>, Sample> =
    stdx::is_integral<typename even_bins<S, L>::common>::value && !byte_samples_v<Sample>;

// Calls count(sample) for block b's share of in[0 .. n) (of `blocks` blocks of Threads
// threads; rank: the thread's rank in its block): 16-byte vectors past the first 16-byte
// boundary, in_flight of them per thread per trip, then the rest item by item (all of
// them for inputs that are not vector-loadable).
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, unsigned K, unsigned in_flight, class In, class Count>
TILEKIT_HD void for_each_sample(In in, count_t n, count_t b, count_t blocks, unsigned rank, Count count) {
  constexpr unsigned per_vector = vector_items<In>();
  count_t head = n, vectors = 0;
  if constexpr (vector_loadable_v<In>) {
    head = misaligned_head(in, n);
    vectors = (n - head) / per_vector;
    const count_t thread = b * Threads + rank, threads = blocks * Threads;
    const auto* aligned = in + head;
    count_t v = thread;
    for (; v + (in_flight - 1) * threads < vectors; v += in_flight * threads) {  // in_flight vectors per thread
      vector_of<value_of<In>, per_vector> x[in_flight];
      TILEKIT_UNROLL
      for (unsigned u = 0; u < in_flight; ++u) x[u] = load_vector<value_of<In>, per_vector>(aligned + (v + u * threads) * per_vector);
      TILEKIT_UNROLL
      for (unsigned u = 0; u < in_flight; ++u)
        TILEKIT_UNROLL
        for (unsigned j = 0; j < per_vector; ++j) count(x[u].item[j]);
    }
    if constexpr (in_flight > 1) {
      // The last, partial trip: its loads in flight together too (one by one, each waited
      // out a DRAM round trip: up to 3 per thread in a 65536-bin histogram of 2^24 samples).
      if (v < vectors) {
        vector_of<value_of<In>, per_vector> x[in_flight - 1];
        TILEKIT_UNROLL
        for (unsigned u = 0; u + 1 < in_flight; ++u)
          if (v + u * threads < vectors) x[u] = load_vector<value_of<In>, per_vector>(aligned + (v + u * threads) * per_vector);
        TILEKIT_UNROLL
        for (unsigned u = 0; u + 1 < in_flight; ++u)
          if (v + u * threads < vectors)
            TILEKIT_UNROLL
            for (unsigned j = 0; j < per_vector; ++j) count(x[u].item[j]);
      }
    } else {
      for (; v < vectors; v += threads) {
        const auto x = load_vector<value_of<In>, per_vector>(aligned + v * per_vector);
        TILEKIT_UNROLL
        for (unsigned j = 0; j < per_vector; ++j) count(x.item[j]);
      }
    }
  }
  const count_t tail_from = head + vectors * per_vector, scalar_items = head + (n - tail_from);
  const count_t step = blocks * Threads * K;
  for (count_t base = b * Threads * K; base < scalar_items; base += step) {
    TILEKIT_UNROLL
    for (unsigned k = 0; k < K; ++k) {
      const count_t j = base + count_t(k) * Threads + rank;
      if (j < scalar_items) count(in[j < head ? j : tail_from + (j - head)]);
    }
  }
}

// Where block b of `blocks` starts its merge into the global counters (a multiple of 32
// bins: whole L2 lines for the warps): blocks finish together, and from one first bin
// their atomics would queue on the same lines one block after another.
TILEKIT_HD unsigned merge_start(count_t b, count_t blocks, unsigned bins) {
#if defined(TILEKIT_HISTOGRAM_STAGGER) && !TILEKIT_HISTOGRAM_STAGGER  // for measuring
  (void)b, (void)blocks, (void)bins;
  return 0;
#else
  return unsigned(count_t(bins) * b / blocks) & ~31u;
#endif
}

template <class In, class Counter, class Binner>
struct histogram_kernel {
  static constexpr unsigned Threads = histogram_tuning::threads, K = histogram_tuning::items;
  static constexpr unsigned in_flight = histogram_tuning::vectors;
  TILEKIT_HD static std::size_t shared_bytes(int bins) { return std::size_t(bins) * sizeof(Counter); }
  In in;
  count_t n;
  Counter* counters;  // global, zeroed
  int bins;
  Binner binner;
  bool privatise;  // the bins fit in shared memory

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    const unsigned rank = block.thread_rank();
    if (privatise) {
      Counter* local = ctx.template shared_array<Counter>(std::size_t(bins));
      histogram_init(block, local, unsigned(bins));
      for_each_sample<Threads, K, in_flight>(in, n, b, blocks, rank, [&](const auto& sample) {
        const int bin = binner(sample);
        if (bin >= 0) be::atomic_add(local + bin, Counter(1));
      });
      be::wait_for_prior_grid();  // launched by zero_then_run: the global counters are zeroed from here
      histogram_merge(block, local, counters, unsigned(bins), merge_start(b, blocks, unsigned(bins)));
    } else {
      be::wait_for_prior_grid();
      auto warp = tilekit::tiled_partition<32>(block);
      const count_t step = blocks * Threads * K;
      for (count_t base = b * Threads * K; base < n; base += step) {  // every thread runs the same trips
        TILEKIT_UNROLL
        for (unsigned k = 0; k < K; ++k) {
          const count_t i = base + count_t(k) * Threads + rank;
          const int bin = i < n ? binner(in[i]) : -1;
          histogram_match(warp, bin, counters, bin >= 0);
        }
      }
    }
  }
};

// Bins past what 32-bit shared counters hold, up to twice that: 16-bit counters, two to a
// word (half_counters), in large blocks (one per SM: 65536 bins take 128 KB). With
// Cluster > 1 (launched in clusters of that many blocks) the cluster's blocks add up
// their counters before the global atomics (cluster_half_merge).
template <class In, class Counter, class Binner, unsigned Cluster = 1>
struct half_histogram_kernel {
  static constexpr unsigned Threads = half_histogram_tuning::threads, K = histogram_tuning::items;
  static constexpr unsigned in_flight = half_histogram_tuning::vectors;
  In in;
  count_t n;
  Counter* counters;  // global, zeroed
  int bins;
  Binner binner;
  bool pairs;  // merge two bins per 64-bit atomic (half_counters::merge_pairs' preconditions hold)

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    using counters_t = half_counters<decltype(block)>;
    const counters_t local(block, ctx.template shared_array<unsigned char>(half_counters_bytes(unsigned(bins))), unsigned(bins));
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    Counter* global = counters;
    // Launched by zero_then_run: the samples are read at once, the global counters
    // touched only after wait_for_prior_grid() (the zeroing runs meanwhile).
    const unsigned paired_bins = pairs ? unsigned(bins) & ~1u : 0u;  // bins merge_pairs adds with 64-bit atomics
    auto spill = [global, paired_bins](unsigned bin, unsigned count) {
      be::wait_for_prior_grid();
      // (a bin's atomics all have the same width: a 64-bit one where the merge's are)
      if (bin < paired_bins)
        be::atomic_add(reinterpret_cast<unsigned long long*>(global) + bin / 2,
                       static_cast<unsigned long long>(count) << (32 * (bin & 1u)));
      else be::atomic_add(global + bin, Counter(count));
    };
    for_each_sample<Threads, K, in_flight>(in, n, b, blocks, block.thread_rank(), [&](const auto& sample) {
      const int bin = binner(sample);
      if (bin >= 0) local.add_spilling(unsigned(bin), spill);
    });
    be::wait_for_prior_grid();
    if constexpr (Cluster > 1) {
      const auto cluster = ctx.template cluster<Cluster, Threads>();
      const unsigned slice_vectors = unsigned((bins + 1) / 2 + Cluster - 1) / Cluster / half_histogram_tuning::merge_vector;
      cluster_half_merge<half_histogram_tuning::merge_vector, half_histogram_tuning::merge_batch>(
          cluster, local, counters, merge_start(b / Cluster, blocks / Cluster, slice_vectors), pairs);
      return;
    }
    if constexpr (sizeof(Counter) == 4 && stdx::is_integral<Counter>::value) {
      if (pairs) {
        local.merge_pairs(block, counters, (merge_start(b, blocks, unsigned(bins)) / 2) & ~31u);
        return;
      }
    }
    local.merge(block, counters, merge_start(b, blocks, unsigned(bins)));
  }
};

// Bins past what one block's 16-bit counters hold: 16-bit counters spread over a cluster
// of Cluster blocks (cluster_half_counters), each sample one atomic on its owner block's word.
template <class In, class Counter, class Binner, unsigned Cluster>
struct spread_histogram_kernel {
  static constexpr unsigned Threads = half_histogram_tuning::threads, K = histogram_tuning::items;
  static constexpr unsigned in_flight = half_histogram_tuning::vectors;
  In in;
  count_t n;
  Counter* counters;  // global, zeroed
  int bins;
  Binner binner;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    const auto cluster = ctx.template cluster<Cluster, Threads>();
    using be = typename decltype(cluster)::backend;
    using counters_t = cluster_half_counters<decltype(cluster)>;
    const counters_t local(cluster, ctx.template shared_array<unsigned char>(cluster_half_counters_bytes<Cluster>(unsigned(bins))),
                           unsigned(bins));
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    Counter* global = counters;
    // Launched by zero_then_run_cluster: the global counters touched only after wait_for_prior_grid().
    auto spill = [global](unsigned bin, unsigned count) {
      be::wait_for_prior_grid();
      be::atomic_add(global + bin, Counter(count));
    };
    for_each_sample<Threads, K, in_flight>(in, n, b, blocks, cluster.block().thread_rank(), [&](const auto& sample) {
      const int bin = binner(sample);
      if (bin >= 0) local.add_spilling(unsigned(bin), spill);
    });
    be::wait_for_prior_grid();
    local.merge(counters, merge_start(b / Cluster, blocks / Cluster, counters_t::words_per_block(unsigned(bins))));
  }
};

// 1-byte samples: the block counts the 256 values in a histogram per warp
// (byte_counters), then adds each value's total to its bin's global counter.
template <class In, class Counter, class Binner>
struct byte_histogram_kernel {
  static constexpr unsigned Threads = byte_histogram_tuning::threads;
  static constexpr unsigned in_flight = byte_histogram_tuning::vectors;  // 16-byte vectors per thread per trip
  static constexpr std::size_t shared_bytes = std::size_t(Threads / 32) * 256 * sizeof(std::uint32_t);
  using Sample = value_of<In>;
  In in;
  count_t n;
  Counter* counters;  // global, zeroed
  Binner binner;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using block_t = decltype(block);
    using be = typename block_t::backend;
    using counters_t = byte_counters<block_t>;
    static_assert(counters_t::bytes == shared_bytes, "byte_histogram_kernel: shared_bytes is byte_counters' size");
    const counters_t local(block, ctx.template shared_array<unsigned char>(shared_bytes));
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    const count_t threads = blocks * Threads, thread = b * Threads + block.thread_rank();

    count_t head = n, vectors = 0;  // 16-sample vectors past the first 16-byte boundary
    if constexpr (vector_loadable_v<In>) {
      head = misaligned_head(in, n);
      vectors = (n - head) / 16;
      const auto* words = reinterpret_cast<const std::uint32_t*>(in + head);
      auto count_words = [&](const vector_of<std::uint32_t, 4>& x) {
        TILEKIT_UNROLL
        for (unsigned w = 0; w < 4; ++w)
          TILEKIT_UNROLL
          for (unsigned j = 0; j < 4; ++j) local.add((x.item[w] >> (8 * j)) & 0xffu);
      };
      count_t v = thread;
      for (; v + (in_flight - 1) * threads < vectors; v += in_flight * threads) {
        vector_of<std::uint32_t, 4> x[in_flight];
        TILEKIT_UNROLL
        for (unsigned u = 0; u < in_flight; ++u) x[u] = load_vector<std::uint32_t, 4>(words + (v + u * threads) * 4);
        TILEKIT_UNROLL
        for (unsigned u = 0; u < in_flight; ++u) count_words(x[u]);
      }
      for (; v < vectors; v += threads) count_words(load_vector<std::uint32_t, 4>(words + v * 4));
    }
    // Item by item: the samples before the first 16-byte boundary and after the last
    // whole vector (all of them for inputs that are not vector-loadable).
    const count_t tail_from = head + vectors * 16, scalar_items = head + (n - tail_from);
    for (count_t j = thread; j < scalar_items; j += threads)
      local.add(static_cast<unsigned char>(in[j < head ? j : tail_from + (j - head)]));
    // Values to bins, once per block. Launched by zero_then_run: the samples were read
    // at once, the global counters are touched only after wait_for_prior_grid().
    local.wait_all(block);
    be::wait_for_prior_grid();
    for (unsigned v = block.thread_rank(); v < 256; v += Threads) {
      const std::uint32_t total = local.total(v);
      if (total == 0) continue;
      const int bin = binner(static_cast<Sample>(v));
      if (bin >= 0) be::atomic_add(counters + bin, static_cast<Counter>(total));
    }
  }
};

}  // namespace detail

/// The device-wide histogram's dispatch, for any launcher. With temp == nullptr it
/// only sets temp_bytes (the histogram needs no temporary storage; 1 byte, as CUB's
/// protocol expects a size), or answers invalid_value for n < 0, bins < 1 or a binner
/// that is not valid() as the call does. Returns launcher.invalid_value, writing
/// nothing, for n < 0, bins < 1, a null counters pointer, a null sample pointer with n > 0, or a
/// binner that is not valid() (even bins with lower >= upper or overflowing arithmetic;
/// range bins without levels).
template <class Launcher, class In, class Counter, class Binner>
typename Launcher::error_type device_histogram(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                               detail::count_t n, Counter* counters, int bins, Binner binner) {
  if constexpr (detail::wraps_pointer_v<In>)  // thrust::device_ptr: read it as its pointer
    return device_histogram(launcher, temp, temp_bytes, detail::unwrap(in), n, counters, bins, binner);
  if constexpr (detail::shifts_v<Binner, detail::value_of<In>>) {
    if (binner.width_shift >= 0 && binner.valid())
      return device_histogram(launcher, temp, temp_bytes, in, n, counters, bins,
                              shift_bins<typename Binner::sample, typename Binner::level>{binner.lower, binner.upper,
                                                                                          unsigned(binner.width_shift)});
  }
  using body_t = detail::histogram_kernel<In, Counter, Binner>;
  if (n < 0 || bins < 1 || !binner.valid()) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = 1;
    return launcher.success;
  }
  if (counters == nullptr || (n > 0 && detail::is_null(in))) return launcher.invalid_value;
  const std::size_t counter_bytes = std::size_t(bins) * sizeof(Counter);
  if (n == 0) return launcher.zero(counters, counter_bytes);
  const unsigned sms = launcher.sm_count() > 0 ? launcher.sm_count() : 1;
  auto grid_for = [&](detail::count_t per_block, unsigned blocks_per_sm) {
    const detail::count_t wanted = (n + per_block - 1) / per_block, most = detail::count_t(sms) * blocks_per_sm;
    return unsigned(wanted < most ? wanted : most);
  };
  if constexpr (detail::byte_samples_v<detail::value_of<In>>) {
    using bytes_t = detail::byte_histogram_kernel<In, Counter, Binner>;
    if (bytes_t::shared_bytes <= launcher.max_shared_bytes()) {
      // Each block adds its 256 totals to the global counters, so no more blocks than
      // fill the GPU once, and fewer for smaller inputs; at most 2^31 samples per
      // block (its counters are 32-bit).
      const detail::count_t fewest = (n >> 31) + 1;
      const unsigned grid = grid_for(detail::count_t(bytes_t::Threads) * 16 * byte_histogram_tuning::min_vectors,
                                     byte_histogram_tuning::blocks_per_sm);
      return launcher.zero_then_run(counters, counter_bytes, byte_histogram_tuning::overlap, grid < fewest ? unsigned(fewest) : grid,
                                    bytes_t::Threads,
                                    bytes_t{in, n, counters, binner}, bytes_t::shared_bytes);
    }
  }
  const std::size_t shared_bytes = body_t::shared_bytes(bins);
  const bool privatise = shared_bytes <= launcher.max_shared_bytes();
  using half_t = detail::half_histogram_kernel<In, Counter, Binner>;
  if (const std::size_t half_bytes = half_counters_bytes(unsigned(bins));
      !privatise && half_bytes <= launcher.max_shared_bytes()) {
    // Two bins per 64-bit atomic in the merge where no count can carry into the next bin.
    const bool pairs = half_histogram_tuning::pairs && sizeof(Counter) == 4 && detail::stdx::is_integral<Counter>::value &&
                       reinterpret_cast<std::uintptr_t>(counters) % 8 == 0 && n < (detail::count_t(1) << 32);
    const unsigned grid = grid_for(half_histogram_tuning::min_samples, 1);
    constexpr unsigned cluster = half_histogram_tuning::cluster_blocks;
    if constexpr (cluster > 1) {
      // In clusters where the grid fills the device and the clusters are all resident at
      // once (the blocks of a cluster run on one GPC: an odd SM left over stays idle).
      // Measured on the H200 (int32, 65536 bins; perf/results/2026-12-03-h200-histogram-cluster),
      // in one call: clusters of 2 at 2^24 +12% uniform, +7% with 90% in 64 bins, 2^28 even;
      // clusters of 4 no better at 2^24 and 7% slower at 2^28 (SMs left idle); at 2^20 (a grid
      // of 32 blocks) 12% slower on the skewed data, so only grids that fill the device.
      using cluster_t = detail::half_histogram_kernel<In, Counter, Binner, cluster>;
      const cluster_t body{in, n, counters, bins, binner, pairs};
      const unsigned resident = launcher.max_clusters(body, cluster, cluster_t::Threads, half_bytes) * cluster;
      if (launcher.has_clusters() && grid >= sms && resident >= 2 * cluster)
        return launcher.zero_then_run_cluster(counters, counter_bytes, grid < resident ? grid / cluster * cluster : resident,
                                              cluster, cluster_t::Threads, body, half_bytes);
    }
    return launcher.zero_then_run(counters, counter_bytes, true, grid, half_t::Threads,
                                  half_t{in, n, counters, bins, binner, pairs}, half_bytes);
  }
  if constexpr (half_histogram_tuning::spread_blocks > 1) {
    // Bins past one block's 16-bit counters, spread over a cluster's blocks, where they fit
    // and the samples outnumber the merge's atomics (each cluster adds every bin's counter):
    // measured on the H200 (200000 bins of int32; perf/results/2026-12-03-h200-histogram-cluster),
    // against the global counters: 2^24 1.11x uniform, 3.15x with 90% in 64 bins, 2^28 1.38x
    // and 3.43x; at 2^20 (16 clusters: 3.2M merge atomics for 1M samples) 0.33x and 0.86x.
    constexpr unsigned cluster = half_histogram_tuning::spread_blocks;
    using spread_t = detail::spread_histogram_kernel<In, Counter, Binner, cluster>;
    const std::size_t spread_bytes = cluster_half_counters_bytes<cluster>(unsigned(bins));
    if (!privatise && spread_bytes <= launcher.max_shared_bytes() && launcher.has_clusters()) {
      const spread_t body{in, n, counters, bins, binner};
      const unsigned resident = launcher.max_clusters(body, cluster, spread_t::Threads, spread_bytes) * cluster;
      if (resident >= cluster) {
        unsigned grid = grid_for(half_histogram_tuning::min_samples, 1);
        grid = grid < resident ? grid : resident;
        grid = grid < cluster ? cluster : grid / cluster * cluster;
        if (n >= detail::count_t(grid / cluster) * bins)
          return launcher.zero_then_run_cluster(counters, counter_bytes, grid, cluster, spread_t::Threads, body, spread_bytes);
      }
    }
  }
  return launcher.zero_then_run(counters, counter_bytes, true,
                                grid_for(detail::count_t(body_t::Threads) * body_t::K, histogram_tuning::blocks_per_sm),
                                body_t::Threads, body_t{in, n, counters, bins, binner, privatise},
                                privatise ? shared_bytes : 0);
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::device {

template <class In, class Counter, class Level>
cudaError_t histogram_even(void* temp, std::size_t& temp_bytes, In samples, std::int64_t n, Counter* counters,
                           int num_levels, Level lower, Level upper, cudaStream_t stream = 0) {
  using bins_t = even_bins<tilekit::detail::value_of<In>, Level>;
  // num_levels < 2: the dispatch's bins < 1 (the binner is built with 2, never dividing by 0);
  // lower >= upper or overflowing bins: the binner's valid().
  const bins_t bins(num_levels < 2 ? 2 : num_levels, lower, upper);
  return device_histogram(gpu_launcher{stream}, temp, temp_bytes, samples, n, counters, num_levels - 1, bins);
}

template <class In, class Counter, class Level>
cudaError_t histogram_range(void* temp, std::size_t& temp_bytes, In samples, std::int64_t n, Counter* counters,
                            int num_levels, const Level* levels, cudaStream_t stream = 0) {
  // num_levels < 2: the dispatch's bins < 1; levels == nullptr: the binner's valid().
  return device_histogram(gpu_launcher{stream}, temp, temp_bytes, samples, n, counters, num_levels - 1,
                          range_bins<tilekit::detail::value_of<In>, Level>{levels, num_levels});
}

}  // namespace tilekit::device
#endif  // __CUDACC__
