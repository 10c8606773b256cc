// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/histogram.cuh - device-wide histograms on the GPU, one launch
// (the kernel and its dispatch below).
//
//   histogram_even(temp, temp_bytes, samples, n, counters, num_levels, lower, upper[, stream])
//       num_levels - 1 bins of equal width over [lower, upper), binned as CUB's HistogramEven
//   histogram_range(temp, temp_bytes, samples, n, counters, num_levels, levels[, stream])
//       bin i = [levels[i], levels[i+1]); levels ascending, in device memory
//   multi_histogram_even<Channels, Active>(temp, temp_bytes, samples, pixels | row_pixels, rows, row_stride,
//       counters[Active], num_levels[Active], lower[Active], upper[Active][, stream]) and
//       multi_histogram_range<..>(.., counters[Active], num_levels[Active], levels[Active][, stream]): the
//       first Active of Channels interleaved channels, each into its own counters (1-byte samples: one
//       pass for all)
// counters[0 .. num_levels - 1) are zeroed, then counted; samples outside the
// bins are not counted. Any bin count: shared-memory counters per block while
// they fit (launcher.max_shared_bytes()), 16-bit ones (two to a word) up to twice
// that, global ones beyond.
// Temporary storage: 16 bytes (1-byte samples: one launch, no zeroing before it; a call given
// less, at least 1, zeroes the counters in a stream operation before its launch).
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, num_levels < 2,
// lower >= upper, bin arithmetic that could overflow, null pointers, temp_bytes 0.
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
// one shared histogram (byte_counters), then adds the values' totals to
// their bins; block 0 zeroes the counters in the same launch, the others wait for it
// before they add (zero_gate, in temp; several channels from
// byte_histogram_tuning::gate_channels_from samples on, a zeroing kernel before the
// launch below it). Other samples: while the bins fit in a block's shared
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

  /// A placeholder (one bin over [0, 1)) for arrays of binners, assigned before use.
  TILEKIT_HD even_bins() : even_bins(2, Level(0), Level(1)) {}
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
  /// lower < upper, and bin arithmetic that cannot overflow (integers: (s - lower) x bins;
  /// floats: upper - lower finite, else every sample would fall in bin 0); CUB answers
  /// cudaErrorInvalidValue for the first.
  TILEKIT_HD bool valid() const {
    if (!(lower < upper)) return false;
    if constexpr (detail::stdx::is_integral<common>::value)
      return span(upper, lower) <= detail::stdx::numeric_limits<wide>::max() / wide(bins);
    else
      return common(upper - lower) <= detail::stdx::numeric_limits<common>::max();
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
  using sample = Sample;  ///< what is binned
  using level = Level;    ///< the levels' type
  const Level* levels;  ///< num_levels of them, readable where the kernel runs
  int num_levels;       ///< bins + 1
  /// Levels given and at least one bin; CUB answers cudaErrorInvalidValue otherwise.
  TILEKIT_HD bool valid() const { return levels != nullptr && num_levels >= 2; }
  /// The bin of `sample` (the i with levels[i] <= sample < levels[i + 1], by bisection), or -1.
  TILEKIT_HD int operator()(const Sample& sample) const { return bin_in(levels, sample); }
  /// As operator(), with the levels read from `copy` (num_levels of them, e.g. in shared memory).
  TILEKIT_HD int bin_in(const Level* copy, const Sample& sample) const {
    int lo = 0, hi = num_levels;  // the first level greater than sample, by bisection
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;  // (lo + hi could pass INT_MAX)
      if (sample < copy[mid]) hi = mid;
      else lo = mid + 1;
    }
    const int bin = lo - 1;
    return bin >= 0 && bin < num_levels - 1 ? bin : -1;
  }
};

namespace detail {

template <class Binner>
inline constexpr bool is_range_bins_v = false;
template <class S, class L>
inline constexpr bool is_range_bins_v<range_bins<S, L>> = true;

// A binner's levels: range_bins' num_levels; none for the others.
template <class Binner>
TILEKIT_HD int level_count(const Binner& binner) {
  if constexpr (is_range_bins_v<Binner>) return binner.num_levels;
  else return 0;
}

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

// One launch in place of "zero the counters, then count" (a memset or zeroing kernel before the
// kernel: two stream operations). Block 0 zeroes the counters first thing, then opens the gate,
// one word in temporary storage: the call's tag in its high 48 bits, a count of the blocks
// through in its low 16, set to (tag, 0) by an exchange with release semantics. Before its
// block's first global add, every block's thread 0 adds 1 to the word (acquire) and checks what
// the add returned: the tag, or else the add came before block 0 opened the gate and the opening
// dropped it; the thread then polls for the tag and adds again. One round trip a block where the
// gate is open (a poll, then a separate count, took two). The block whose add finds blocks - 1
// through closes the gate (word = 0), so that neither the next call on the same storage nor a
// graph's replay of this call (the same tag) finds it open. The word may hold anything before its
// first use (a stale tag equal to this call's: odds of 2^-48). Blocks wait only on block 0, which
// the GPU starts first (as CUB's look-back relies on lower blocks starting first); the grid fits
// the device at once besides. @pre fewer than 2^16 blocks.
struct zero_gate {
  static constexpr unsigned count_bits = 16;
  static constexpr unsigned long long count_mask = (1ull << count_bits) - 1;
  unsigned long long* word = nullptr;  // null: the counters were zeroed before the launch
  unsigned long long tag = 0;          // 48 bits, never 0 (gate_in)
  explicit TILEKIT_HD operator bool() const { return word != nullptr; }
  TILEKIT_HD bool shows_tag(unsigned long long value) const { return value >> count_bits == tag; }
  // Block 0's thread 0, after the block zeroed the counters and synchronised.
  template <class be>
  TILEKIT_HD void open() const { be::atomic_exch_release(word, tag << count_bits); }
  // A block's thread 0, before its block's first global add: returns once the block is counted
  // through an open gate, the word's value before that add. One acquire add (no release: the
  // count publishes nothing; the last block closes the gate once every block has read the tag),
  // so one round trip where block 0 opened the gate before; otherwise poll and add again.
  template <class be>
  TILEKIT_HD unsigned long long pass() const {
    for (;;) {
      const unsigned long long passed = be::atomic_add_acquire(word, 1ull);
      if (shows_tag(passed)) return passed;
      while (!shows_tag(be::load_acquire(word))) be::pause(64);
    }
  }
  // A block's thread 0, with what pass() returned: the last block through closes the gate.
  template <class be>
  TILEKIT_HD void leave(unsigned long long passed, unsigned long long blocks) const {
    if ((passed & count_mask) == blocks - 1) be::store_relaxed(word, 0ull);
  }
};

// The histograms' temporary storage: 16 bytes, of which a zero_gate's word takes the first 8
// (8 more kept for the gate's future use: callers size storage by the size query).
inline constexpr std::size_t histogram_temp_bytes = 2 * sizeof(unsigned long long);
// The gate of a call given temp (temp_bytes of it): none where temp is smaller than
// histogram_temp_bytes (storage sized by the 1 byte the size query asked for before
// 2026-12-06) or not 8-byte aligned; the call then zeroes the counters before its launch.
inline zero_gate gate_in(void* temp, std::size_t temp_bytes) {
  if (temp == nullptr || temp_bytes < histogram_temp_bytes || reinterpret_cast<std::uintptr_t>(temp) % 8 != 0) return {};
  const unsigned long long tag = next_call_tag() >> zero_gate::count_bits;
  return zero_gate{static_cast<unsigned long long*>(temp), tag != 0 ? tag : 1};
}

// Counters zeroed in the launch (zero_gate) where the counters of every channel together are at
// most this many bytes (block 0 zeroes them alone); more are zeroed before it (zero_then_run).
inline constexpr std::size_t gate_zeroes_bytes = 32 * 1024;

// 1-byte samples: the block counts the 256 values in a shared histogram
// (byte_counters), then adds each value's total to its bin's global counter. With
// Channels > 1 the samples are interleaved channels (sample i of a row is channel
// i % Channels of pixel i / Channels) and the first Active channels are counted, each in
// its own set of byte_counters, into counters[c] through binners[c]: one pass for every
// channel. The samples are `rows` rows of row_samples, row_stride apart (one row: the 1D
// forms); where the rows are a multiple of 16 bytes apart (vector_rows) every row has the
// same samples before its first 16-byte boundary, and its whole 16-byte vectors are read
// as such, the rest item by item. Without Rows, one row (rows is 1): the 1D loop alone.
// With Tensor (one channel, one row) and a backend with has_bit_mma (sm_80 on), the block
// counts whole vectors with byte_tensor_counters (the tensor cores' 1-bit product), 64 samples
// a lane in warp-uniform trips, and the rest with shared atomics. With Hybrid too, each warp
// picks for each trip: the tensor cores where 32 of its samples (one a lane, at every byte
// position of 16) hold at least byte_histogram_tuning::hybrid_distinct values (spread data,
// where a shared atomic costs a pass per distinct value), else the same shared atomics as
// without Tensor (skewed data, where the hardware combines a warp's adds to one address).
template <class In, class Counter, class Binner, unsigned Channels = 1, unsigned Active = 1, bool Rows = false,
          bool Tensor = byte_histogram_tuning::tensor_cores, bool Hybrid = false>
struct byte_histogram_kernel {
  static_assert(1 <= Active && Active <= Channels && Active <= 32, "byte_histogram_kernel: 1 <= Active <= Channels, Active <= 32");
  static constexpr bool tensor = Tensor && Channels == 1 && !Rows;
  // Blocks of 512 threads, fewer for many channels (two blocks per SM).
  static constexpr unsigned Threads = Active <= 4    ? byte_histogram_tuning::threads
                                      : Active <= 8  ? byte_histogram_tuning::threads / 2
                                      : Active <= 16 ? byte_histogram_tuning::threads / 4
                                                     : byte_histogram_tuning::threads / 8;
  static constexpr unsigned in_flight = byte_histogram_tuning::vectors;  // 16-byte vectors per thread per trip
  // Warps per shared histogram (byte_histogram_tuning), at most the block's.
  static constexpr unsigned warps_per_histogram =
      byte_histogram_tuning::warps_per_histogram < Threads / 32 ? byte_histogram_tuning::warps_per_histogram : Threads / 32;
  template <class Block>
  using counters_of = stdx::conditional_t<tensor && Block::backend::has_bit_mma, byte_tensor_counters<Block>,
                                          byte_counters<Block, Active, warps_per_histogram>>;
  static constexpr std::size_t counter_bytes =
      tensor ? byte_tensor_counters_bytes(Threads)
             : std::size_t(Threads / 32 / warps_per_histogram) * Active * 256 * sizeof(std::uint32_t);
  // Range bins of at most 257 levels a channel are looked up in a copy of the levels in shared
  // memory when the values are mapped to bins: each thread loads its share of the levels into
  // registers at the start (the round trip hidden behind the samples'), and stores them before
  // the block's last barrier. Bisection in global memory cost a chain of dependent L2 round
  // trips per value (MultiHistogramRange, RGBA, 2^20 bytes: 0.88x CUB 3.5; 1.15x with the copy
  // and the channels indexed at compile time, below).
  static constexpr unsigned staged_levels = 257;
  static constexpr unsigned level_rounds = (staged_levels + Threads - 1) / Threads;  // a thread's levels a channel
  static constexpr bool stages_levels = is_range_bins_v<Binner> && Active * level_rounds <= 8;
  template <class B, bool = is_range_bins_v<B>>
  struct level_of {
    using type = unsigned char;  // (no levels)
  };
  template <class B>
  struct level_of<B, true> {
    using type = typename B::level;
  };
  using Level = typename level_of<Binner>::type;
  static constexpr std::size_t level_bytes = stages_levels ? (Active * staged_levels * sizeof(Level) + 15) / 16 * 16 : 0;
  static constexpr std::size_t shared_bytes = counter_bytes + level_bytes;
  using Sample = value_of<In>;
  In in;
  count_t row_samples;  // samples counted in a row (pixels x Channels)
  count_t rows;        // 1 without Rows
  count_t row_stride;  // samples from a row's start to the next's
  bool vector_rows;    // rows == 1, or row_stride a multiple of 16 bytes
  Counter* counters[Active];  // global: zeroed before the launch, or by block 0 (gate)
  Binner binners[Active];
  zero_gate gate;             // open: block 0 zeroes counters[c][0 .. zero_bins[c]) first
  int zero_bins[Active];

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using block_t = decltype(block);
    using be = typename block_t::backend;
    using counters_t = counters_of<block_t>;
    static_assert(counters_t::bytes <= counter_bytes, "byte_histogram_kernel: counter_bytes holds the counters");
    unsigned char* shared = ctx.template shared_array<unsigned char>(shared_bytes);
    counters_t local(block, shared);
    // This thread's share of the levels (stages_levels): levels rank, rank + Threads, ... of
    // each channel. (Channels index the kernel's arrays at compile time here and below: a
    // run-time index puts the kernel's parameters in local memory, and every load through
    // them becomes a generic one.)
    [[maybe_unused]] Level levels[Active][stages_levels ? level_rounds : 1];
    // f(c, r, i) for each of this thread's levels: level i = rank + r x Threads of channel c.
    [[maybe_unused]] auto for_my_levels = [&](auto f) {
      TILEKIT_UNROLL
      for (unsigned c = 0; c < Active; ++c)
        TILEKIT_UNROLL
        for (unsigned r = 0; r < level_rounds; ++r) {
          const unsigned i = block.thread_rank() + r * Threads;
          if (int(i) < level_count(binners[c])) f(c, r, i);
        }
    };
    bool staged = stages_levels;
    if constexpr (stages_levels) {
      TILEKIT_UNROLL
      for (unsigned c = 0; c < Active; ++c) staged = staged && binners[c].num_levels <= int(staged_levels);
      if (staged) for_my_levels([&](unsigned c, unsigned r, unsigned i) { levels[c][r] = binners[c].levels[i]; });
    }
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    const count_t threads = blocks * Threads, thread = b * Threads + block.thread_rank();
    if (gate && b == 0) {
      TILEKIT_UNROLL
      for (unsigned c = 0; c < Active; ++c)
        for (int k = int(block.thread_rank()); k < zero_bins[c]; k += int(Threads)) counters[c][k] = Counter(0);
      block.sync();
      if (block.thread_rank() == 0) gate.template open<be>();
    }
    // Sample `value` of channel c: counted where c is active.
    auto add = [&](unsigned value, unsigned c) {
      if (Active == Channels || c < Active) local.add(value, c);
    };
    const count_t all_rows = Rows ? rows : 1;
    // Item k of `count` items a row, k = row * count + at: the row and `at` (32-bit
    // division where the items allow; none for one row).
    auto split = [&](count_t k, count_t count, count_t& at) {
      const count_t row = all_rows == 1                     ? 0
                          : count * all_rows <= 0xffffffffll ? count_t(unsigned(k) / unsigned(count))
                                                             : k / count;
      at = k - row * count;
      return row;
    };

    count_t head = row_samples, vectors = 0;  // per row: samples before the first 16-byte boundary, whole vectors after
    if constexpr (vector_loadable_v<In>) {
      if (vector_rows) {
        head = misaligned_head(in, row_samples);
        vectors = (row_samples - head) / 16;
      }
      // The vector's first sample is sample `at` of its row, of channel at % Channels
      // ((head % Channels) alone where Channels divides 16).
      auto count_words = [&](const vector_of<std::uint32_t, 4>& x, count_t at) {
        const unsigned first = Channels == 1 ? 0u : unsigned((16 % Channels == 0 ? head : at) % Channels);
        TILEKIT_UNROLL
        for (unsigned w = 0; w < 4; ++w)
          TILEKIT_UNROLL
          for (unsigned j = 0; j < 4; ++j) add((x.item[w] >> (8 * j)) & 0xffu, Channels == 1 ? 0u : (first + 4 * w + j) % Channels);
      };
      // Vectors 0 .. all: vector v at locate(v, at), which sets `at`, its first sample's place in its row.
      auto count_vectors = [&](count_t all, auto locate) {
        count_t v = thread;
        for (; v + (in_flight - 1) * threads < all; v += in_flight * threads) {
          vector_of<std::uint32_t, 4> x[in_flight];
          count_t at[in_flight];
          TILEKIT_UNROLL
          for (unsigned u = 0; u < in_flight; ++u) x[u] = load_vector<std::uint32_t, 4>(locate(v + u * threads, at[u]));
          TILEKIT_UNROLL
          for (unsigned u = 0; u < in_flight; ++u) count_words(x[u], at[u]);
        }
        for (; v < all; v += threads) {
          count_t at = 0;
          const auto x = load_vector<std::uint32_t, 4>(locate(v, at));
          count_words(x, at);
        }
      };
      if constexpr (Rows) {
        // Vector k of row `row`, the thread's vectors thread, thread + threads, ... followed by
        // adding the step (one division for it and one for the first; a division per vector
        // had put each in-flight load behind its own: 1.09 -> 1.15x the faster CUB at 2^28 bytes).
        count_t k = 0, step_k = 0;
        const count_t some = vectors > 0 ? vectors : 1;  // (no vectors: neither loop runs)
        count_t row = split(thread, some, k);
        const count_t step_rows = split(threads, some, step_k);
        auto advance = [&](count_t& r, count_t& kk) {
          r += step_rows, kk += step_k;
          if (kk >= vectors) kk -= vectors, ++r;
        };
        auto address = [&](count_t r, count_t kk) {
          return reinterpret_cast<const std::uint32_t*>(in + r * row_stride + head + 16 * kk);
        };
        const count_t all = vectors * rows;
        count_t v = thread;
        for (; v + (in_flight - 1) * threads < all; v += in_flight * threads) {
          vector_of<std::uint32_t, 4> x[in_flight];
          count_t r[in_flight], kk[in_flight];
          TILEKIT_UNROLL
          for (unsigned u = 0; u < in_flight; ++u) {
            r[u] = u == 0 ? row : r[u - 1], kk[u] = u == 0 ? k : kk[u - 1];
            if (u > 0) advance(r[u], kk[u]);
            x[u] = load_vector<std::uint32_t, 4>(address(r[u], kk[u]));
          }
          TILEKIT_UNROLL
          for (unsigned u = 0; u < in_flight; ++u) count_words(x[u], head + 16 * kk[u]);
          row = r[in_flight - 1], k = kk[in_flight - 1];
          advance(row, k);
        }
        for (; v < all; v += threads) {
          count_words(load_vector<std::uint32_t, 4>(address(row, k)), head + 16 * k);
          advance(row, k);
        }
      } else if constexpr (tensor && be::has_bit_mma) {
        // Warp-uniform trips (add_words is warp-collective): a lane's vectors v, v + threads,
        // v + 2 threads, v + 3 threads; lanes past the end give zero vectors, not counted.
        const auto* words = reinterpret_cast<const std::uint32_t*>(in + head);
        const count_t lane = block.thread_rank() % 32;
        // A trip's vectors x[u] = vector v + u x threads (zeros: padding samples, the last trip's).
        auto add_vectors = [&](const vector_of<std::uint32_t, 4> (&x)[4], unsigned zeros, count_t v, bool whole_trip) {
          if constexpr (Hybrid) {
            // Few values among 32 of the trip's samples (a lane's byte lane % 16 of its first
            // vector, so that every position in 16 bytes is seen: data with a period, such as the
            // bytes of small int32 values, is random at some positions only): shared atomics
            // (whole trips only: the choice is the warp's, as add_words is warp-collective).
            auto warp = tilekit::tiled_partition<32>(block);
            const unsigned word_at = (unsigned(lane) >> 2) & 3u;
            const std::uint32_t word = word_at == 0   ? x[0].item[0]
                                       : word_at == 1 ? x[0].item[1]
                                       : word_at == 2 ? x[0].item[2]
                                                      : x[0].item[3];
            const unsigned sample = (word >> (8 * (unsigned(lane) & 3u))) & 0xffu;
            const bool leads = lowest_bit(warp.match_any(sample)) == unsigned(lane);
            if (whole_trip && popc(warp.ballot(leads)) < byte_histogram_tuning::hybrid_distinct) {
              TILEKIT_UNROLL
              for (unsigned u = 0; u < 4; ++u) count_words(x[u], head + 16 * (v + u * threads));
              return;
            }
          }
          std::uint32_t w[16];
          TILEKIT_UNROLL
          for (unsigned u = 0; u < 16; ++u) w[u] = x[u / 4].item[u % 4];
          local.add_words(w, zeros);
        };
        count_t v = thread;
        for (; v - lane + 31 + 3 * threads < vectors; v += 4 * threads) {  // 4 vectors for every lane of the warp
          vector_of<std::uint32_t, 4> x[4];
          TILEKIT_UNROLL
          for (unsigned u = 0; u < 4; ++u) x[u] = load_vector<std::uint32_t, 4>(words + 4 * (v + u * threads));
          add_vectors(x, 0, v, true);
        }
        if (v - lane < vectors) {  // the warp's first lane has a vector: the last trip
          vector_of<std::uint32_t, 4> x[4];
          unsigned zeros = 0;
          TILEKIT_UNROLL
          for (unsigned u = 0; u < 4; ++u) {
            const bool here = v + u * threads < vectors;
            x[u] = here ? load_vector<std::uint32_t, 4>(words + 4 * (v + u * threads)) : vector_of<std::uint32_t, 4>{};
            zeros += here ? 0u : 16u;
          }
          add_vectors(x, zeros, v, false);
        }
      } else {
        const auto* words = reinterpret_cast<const std::uint32_t*>(in + head);
        count_vectors(vectors, [&](count_t v, count_t& at) {
          at = head + 16 * v;
          return words + 4 * v;
        });
      }
    }
    // Item by item: each row's samples before its first 16-byte boundary and after its
    // last whole vector (every sample where the rows are not read as vectors).
    const count_t tail_from = head + vectors * 16, per_row = row_samples - vectors * 16;
    for (count_t k = thread; k < per_row * all_rows; k += threads) {
      count_t at = 0;
      const count_t row = split(k, per_row, at);
      const count_t column = at < head ? at : tail_from + (at - head);
      add(static_cast<unsigned char>(in[row * row_stride + column]), Channels == 1 ? 0u : unsigned(column % Channels));
    }
    // Values to bins, once per block. The global counters are touched only once they are
    // zeroed: past the gate (thread 0, then wait_all's barrier), or after wait_for_prior_grid()
    // where zero_then_run launched the kernel (the samples were read at once).
    Level* const level_copy = reinterpret_cast<Level*>(shared + counter_bytes);
    if constexpr (stages_levels) {
      if (staged) for_my_levels([&](unsigned c, unsigned r, unsigned i) { level_copy[c * staged_levels + i] = levels[c][r]; });
    }
    unsigned long long passed = 0;
    if (gate && block.thread_rank() == 0) passed = gate.template pass<be>();
    local.wait_all(block);  // (a barrier: the level copy is complete after it, thread 0 through the gate)
    if (!gate) be::wait_for_prior_grid();
    for (unsigned k = block.thread_rank(); k < 256 * Active; k += Threads) {
      const unsigned channel = Active == 1 ? 0u : k / 256, value = k % 256;
      const std::uint32_t total = local.total(value, channel);
      if (total == 0) continue;
      TILEKIT_UNROLL
      for (unsigned c = 0; c < Active; ++c) {
        if (c != channel) continue;
        int bin;
        if constexpr (stages_levels)
          bin = staged ? binners[c].bin_in(level_copy + c * staged_levels, static_cast<Sample>(value))
                       : binners[c](static_cast<Sample>(value));
        else
          bin = binners[c](static_cast<Sample>(value));
        if (bin >= 0) be::atomic_add(counters[c] + bin, static_cast<Counter>(total));
      }
    }
    if (gate && block.thread_rank() == 0) gate.template leave<be>(passed, blocks);
  }
};

// The grid of a histogram's persistent blocks: enough for n samples, per_block each, and
// no more than blocks_per_sm per multiprocessor (each block adds its counters to the global
// ones at the end).
template <class Launcher>
unsigned histogram_grid(const Launcher& launcher, count_t n, count_t per_block, unsigned blocks_per_sm) {
  const count_t sms = launcher.sm_count() > 0 ? count_t(launcher.sm_count()) : 1;
  const count_t wanted = (n + per_block - 1) / per_block, most = sms * blocks_per_sm;
  return unsigned(wanted < most ? wanted : most);
}

// Runs byte_histogram_kernel<.., Channels, Active> over `rows` rows of row_samples samples,
// row_stride apart, at in, its counters zeroed first: no more blocks than fill the GPU once
// (each adds its totals to the global counters), fewer for smaller inputs, and at most 2^31
// samples a block (32-bit counts). One launch through `gate` where it is open and the counters
// are at most gate_zeroes_bytes; else the zeroing is a stream operation before the launch.
// @pre rows >= 1 (1 without Rows), row_samples >= 1.
template <unsigned Channels, unsigned Active, bool Rows, bool Tensor = byte_histogram_tuning::tensor_cores,
          bool Hybrid = false, class Launcher,
          class In, class Counter, class Binner, std::size_t... C>
typename Launcher::error_type run_byte_histogram(const Launcher& launcher, In in, count_t row_samples, count_t rows,
                                                 count_t row_stride, Counter* const (&counters)[Active],
                                                 const int (&bins)[Active], const Binner (&binners)[Active],
                                                 stdx::index_sequence<C...>, zero_gate gate = {}) {
  using body_t = byte_histogram_kernel<In, Counter, Binner, Channels, Active, Rows, Tensor, Hybrid>;
  const count_t n = row_samples * rows;
  const bool vector_rows = rows == 1 || (row_stride * count_t(sizeof(value_of<In>))) % 16 == 0;
  const count_t fewest = (n >> 31) + 1;
  const count_t fit = histogram_grid(launcher, n, count_t(body_t::Threads) * 16 * byte_histogram_tuning::min_vectors,
                                     byte_histogram_tuning::blocks_per_sm);
  const count_t grid = fit > fewest ? fit : fewest;
  std::size_t zero_bytes = 0;
  for (unsigned c = 0; c < Active; ++c) zero_bytes += std::size_t(bins[c]) * sizeof(Counter);
  if (zero_bytes > gate_zeroes_bytes || grid > count_t(zero_gate::count_mask)) gate = zero_gate{};
  const body_t body{in, row_samples, rows, row_stride, vector_rows, {counters[C]...}, {binners[C]...}, gate, {bins[C]...}};
  // The block reserves more shared memory than it uses (byte_histogram_tuning::reserved_bytes),
  // as far as the device allows (the dispatch checked shared_bytes alone against it).
  const std::size_t most = launcher.max_shared_bytes();
  const std::size_t wanted = std::size_t(body_t::Threads / 32) * Active * byte_histogram_tuning::reserved_bytes;
  const std::size_t reserved = wanted < most ? wanted : most;
  const std::size_t launch_shared = body_t::shared_bytes > reserved ? body_t::shared_bytes : reserved;
  if (gate) {
    launcher.assume_initialized(gate.word, sizeof(*gate.word));  // any content is valid before block 0 opens it
    return launcher.run(unsigned(grid), body_t::Threads, body, launch_shared);
  }
  if constexpr (Active == 1)
    return launcher.zero_then_run(counters[0], std::size_t(bins[0]) * sizeof(Counter), byte_histogram_tuning::overlap,
                                  unsigned(grid), body_t::Threads, body, launch_shared);
  else
    return launcher.zero_then_run({static_cast<void*>(counters[C])...}, {std::size_t(bins[C]) * sizeof(Counter)...}, true,
                                  unsigned(grid), body_t::Threads, body, launch_shared);
}

}  // namespace detail

/// The device-wide histogram's dispatch, for any launcher. With temp == nullptr it
/// only sets temp_bytes (detail::histogram_temp_bytes: a zero_gate; with less, at least
/// 1, the counters are zeroed before the launch: detail::gate_in), or answers
/// invalid_value for n < 0, bins < 1 or a binner that is not valid() as the call does. Returns launcher.invalid_value, writing
/// nothing, for n < 0, bins < 1, temp_bytes 0, a null counters pointer, a null sample pointer
/// with n > 0, or a binner that is not valid() (even bins with lower >= upper or overflowing
/// arithmetic; range bins without levels).
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
    temp_bytes = detail::histogram_temp_bytes;
    return launcher.success;
  }
  if (temp_bytes < 1 || counters == nullptr || (n > 0 && detail::is_null(in))) return launcher.invalid_value;
  const std::size_t counter_bytes = std::size_t(bins) * sizeof(Counter);
  if (n == 0) return launcher.zero(counters, counter_bytes);
  const unsigned sms = launcher.sm_count() > 0 ? launcher.sm_count() : 1;
  auto grid_for = [&](detail::count_t per_block, unsigned blocks_per_sm) {
    return detail::histogram_grid(launcher, n, per_block, blocks_per_sm);
  };
  if constexpr (detail::byte_samples_v<detail::value_of<In>>) {
    if (detail::byte_histogram_kernel<In, Counter, Binner>::shared_bytes <= launcher.max_shared_bytes()) {
      Counter* const channel_counters[1] = {counters};
      const int channel_bins[1] = {bins};
      const Binner channel_binners[1] = {binner};
      // Large inputs: the tensor-core / atomics hybrid (byte_histogram_tuning::hybrid_from).
      using hybrid_t = detail::byte_histogram_kernel<In, Counter, Binner, 1, 1, false, true, true>;
      if (n >= byte_histogram_tuning::hybrid_from && hybrid_t::shared_bytes <= launcher.max_shared_bytes())
        return detail::run_byte_histogram<1, 1, false, true, true>(launcher, in, n, 1, n, channel_counters, channel_bins,
                                                                   channel_binners, detail::stdx::make_index_sequence<1>{},
                                                                   detail::gate_in(temp, temp_bytes));
      return detail::run_byte_histogram<1, 1, false>(launcher, in, n, 1, n, channel_counters, channel_bins, channel_binners,
                                                     detail::stdx::make_index_sequence<1>{}, detail::gate_in(temp, temp_bytes));
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

/// The multi-channel histogram's dispatch, for any launcher: an image of `rows` rows of
/// row_pixels pixels, rows row_stride samples apart (row_stride = row_pixels x Channels:
/// back to back), each pixel Channels interleaved samples (as cub::DeviceHistogram's
/// MultiHistogram and row-stride forms); for each of the first Active channels c,
/// counters[c][0 .. bins[c]) are zeroed, then count the channel's samples binned by
/// binners[c] (as device_histogram). 1-byte samples: one pass over the image for every
/// channel (byte_histogram_kernel; 16-byte vectors where the rows are a multiple of 16 bytes
/// apart); others: a device_histogram of each channel through pixel_samples. With temp ==
/// nullptr it only sets temp_bytes (as device_histogram). Returns launcher.invalid_value,
/// writing nothing, for negative sizes, rows > 1 with row_stride < row_pixels x Channels, an
/// image above 2^63 - 1 samples, bins[c] < 1, a binner that is not valid(), temp_bytes 0, a
/// null counters[c], a null samples pointer with pixels.
template <unsigned Channels, unsigned Active, class Launcher, class In, class Counter, class Binner>
typename Launcher::error_type device_multi_histogram(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In samples,
                                                     detail::count_t row_pixels, detail::count_t rows,
                                                     detail::count_t row_stride, Counter* const (&counters)[Active],
                                                     const int (&bins)[Active], const Binner (&binners)[Active]) {
  static_assert(1 <= Active && Active <= Channels, "tilekit::device_multi_histogram: 1 <= Active <= Channels");
  using detail::count_t;
  if constexpr (detail::wraps_pointer_v<In>) {  // thrust::device_ptr: read it as its pointer
    return device_multi_histogram<Channels, Active>(launcher, temp, temp_bytes, detail::unwrap(samples), row_pixels, rows,
                                                    row_stride, counters, bins, binners);
  } else {
    constexpr count_t most = detail::stdx::numeric_limits<count_t>::max();
    if (row_pixels < 0 || rows < 0 || row_pixels > most / count_t(Channels)) return launcher.invalid_value;
    const count_t row_samples = row_pixels * count_t(Channels);
    if (rows > 1 && (row_stride < row_samples || row_stride > most / rows)) return launcher.invalid_value;
    const count_t pixels = row_pixels * rows;  // (below row_stride x rows)
    for (unsigned c = 0; c < Active; ++c)
      if (bins[c] < 1 || !binners[c].valid()) return launcher.invalid_value;  // the size query too
    if (temp == nullptr) {
      temp_bytes = detail::histogram_temp_bytes;
      return launcher.success;
    }
    if (temp_bytes < 1) return launcher.invalid_value;
    for (unsigned c = 0; c < Active; ++c)
      if (counters[c] == nullptr) return launcher.invalid_value;
    if (pixels > 0 && detail::is_null(samples)) return launcher.invalid_value;
    if constexpr (detail::byte_samples_v<detail::value_of<In>> && Active <= 32) {
      using body_t = detail::byte_histogram_kernel<In, Counter, Binner, Channels, Active>;
      if (pixels > 0 && body_t::shared_bytes <= launcher.max_shared_bytes()) {
        constexpr auto channels = detail::stdx::make_index_sequence<Active>{};
        const detail::zero_gate gate = Active == 1 || pixels * count_t(Channels) >= byte_histogram_tuning::gate_channels_from
                                           ? detail::gate_in(temp, temp_bytes)
                                           : detail::zero_gate{};
        if (rows > 1)
          return detail::run_byte_histogram<Channels, Active, true>(launcher, samples, row_samples, rows, row_stride, counters, bins,
                                                                    binners, channels, gate);
        return detail::run_byte_histogram<Channels, Active, false>(launcher, samples, row_samples, 1, row_samples, counters, bins,
                                                                   binners, channels, gate);
      }
    }
    for (unsigned c = 0; c < Active; ++c) {
      const pixel_samples<In> channel{samples, row_pixels > 0 ? row_pixels : 1, rows > 1 ? row_stride : row_samples, int(Channels),
                                      int(c)};
      std::size_t bytes = temp_bytes;
      if (const auto e = device_histogram(launcher, temp, bytes, channel, pixels, counters[c], bins[c], binners[c]);
          e != launcher.success)
        return e;
    }
    return launcher.success;
  }
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::detail {
// The stride of a one-row image of `pixels` pixels: pixels x Channels samples, or 0 where that
// overflows or pixels < 0 (the dispatch rejects such a row: no overflow on the way there).
template <unsigned Channels>
inline std::int64_t one_row_stride(std::int64_t pixels) {
  return pixels >= 0 && pixels <= INT64_MAX / std::int64_t(Channels) ? pixels * std::int64_t(Channels) : 0;
}
}  // namespace tilekit::detail

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

/// Each of the first Active of Channels interleaved channels' histogram (see
/// device_multi_histogram): channel c in num_levels[c] - 1 bins of equal width over
/// [lower[c], upper[c]), binned as histogram_even, into counters[c]; `rows` rows of
/// row_pixels pixels, row_stride samples apart.
template <unsigned Channels, unsigned Active, class In, class Counter, class Level>
cudaError_t multi_histogram_even(void* temp, std::size_t& temp_bytes, In samples, std::int64_t row_pixels, std::int64_t rows,
                                 std::int64_t row_stride, Counter* const (&counters)[Active], const int (&num_levels)[Active],
                                 const Level (&lower)[Active], const Level (&upper)[Active], cudaStream_t stream = 0) {
  using bins_t = even_bins<tilekit::detail::value_of<In>, Level>;
  bins_t binners[Active];
  int bins[Active];
  for (unsigned c = 0; c < Active; ++c) {
    binners[c] = bins_t(num_levels[c] < 2 ? 2 : num_levels[c], lower[c], upper[c]);  // (as histogram_even)
    bins[c] = num_levels[c] - 1;
  }
  return device_multi_histogram<Channels, Active>(gpu_launcher{stream}, temp, temp_bytes, samples, row_pixels, rows, row_stride,
                                                  counters, bins, binners);
}

/// As above, one row of `pixels` pixels.
template <unsigned Channels, unsigned Active, class In, class Counter, class Level>
cudaError_t multi_histogram_even(void* temp, std::size_t& temp_bytes, In samples, std::int64_t pixels,
                                 Counter* const (&counters)[Active], const int (&num_levels)[Active],
                                 const Level (&lower)[Active], const Level (&upper)[Active], cudaStream_t stream = 0) {
  const std::int64_t row = tilekit::detail::one_row_stride<Channels>(pixels);
  return multi_histogram_even<Channels, Active>(temp, temp_bytes, samples, pixels, 1, row, counters,
                                                num_levels, lower, upper, stream);
}

/// Each of the first Active of Channels interleaved channels' histogram (see
/// device_multi_histogram): channel c's bin i is [levels[c][i], levels[c][i + 1]), as
/// histogram_range, into counters[c]; `rows` rows of row_pixels pixels, row_stride samples apart.
template <unsigned Channels, unsigned Active, class In, class Counter, class Level>
cudaError_t multi_histogram_range(void* temp, std::size_t& temp_bytes, In samples, std::int64_t row_pixels, std::int64_t rows,
                                  std::int64_t row_stride, Counter* const (&counters)[Active], const int (&num_levels)[Active],
                                  const Level* const (&levels)[Active], cudaStream_t stream = 0) {
  using bins_t = range_bins<tilekit::detail::value_of<In>, Level>;
  bins_t binners[Active];
  int bins[Active];
  for (unsigned c = 0; c < Active; ++c) {
    binners[c] = bins_t{levels[c], num_levels[c]};
    bins[c] = num_levels[c] - 1;
  }
  return device_multi_histogram<Channels, Active>(gpu_launcher{stream}, temp, temp_bytes, samples, row_pixels, rows, row_stride,
                                                  counters, bins, binners);
}

/// As above, one row of `pixels` pixels.
template <unsigned Channels, unsigned Active, class In, class Counter, class Level>
cudaError_t multi_histogram_range(void* temp, std::size_t& temp_bytes, In samples, std::int64_t pixels,
                                  Counter* const (&counters)[Active], const int (&num_levels)[Active],
                                  const Level* const (&levels)[Active], cudaStream_t stream = 0) {
  const std::int64_t row = tilekit::detail::one_row_stride<Channels>(pixels);
  return multi_histogram_range<Channels, Active>(temp, temp_bytes, samples, pixels, 1, row, counters,
                                                 num_levels, levels, stream);
}

}  // namespace tilekit::device
#endif  // __CUDACC__
