// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/block/histogram.cuh - histogram over a block: counters privatised in
// the block's shared memory.
//
// Block level: counters privatised in the block's shared memory, any number of
// bins that fits there (Counter[bins], runtime or compile-time count):
//   histogram_init(block, counters, bins)                 zero them (ends with block.sync())
//   histogram(block, items[K], counters[, valid_items])  add the block's samples
//   histogram_merge(block, counters, global, bins[, first]) block.sync(), then add the
//                                                         non-zero counters to global ones
//                                                         (from bin `first`, wrapping)
// Samples go to shared counters with one atomic each: shared-memory atomics are
// ahead of match_any aggregation on every distribution benchmarked, all samples in
// one bin included (tile/histogram.cuh). Bins past 256 stay in shared memory
// (CUB's BlockHistogram sorts or goes to global atomics instead).
// histogram_storage<Counter, Bins> holds a compile-time count; for a run-time
// count give histogram_storage_bytes<Counter>(bins) of dynamic shared memory.
//
// byte_counters<Block[, Sets, WarpsPer]>: counts of the 256 values of 1-byte samples, a
// 32-bit histogram per WarpsPer warps (per set of samples, e.g. an image's channels, with
// Sets > 1): a sample is one shared atomic add on its histogram's counter of
// its value (the hardware combines the lanes of one instruction that add to one
// address, so skewed data is no slower), and the caller maps values to bins once
// per block (pass-through privatisation, as CUB's 8-bit path). Measured on the
// H200 against one 8-bit counter per value per thread (no contention at all): that
// is slower on every distribution, shared atomics at 32 addresses an instruction
// (0.97x CUB uniform, 0.68x skewed at 2^28) and plain read-add-write chains more so.
//
// half_counters<Block>: twice the bins a block's shared memory holds as 32-bit
// counters (65536 bins in 128 KB): two 16-bit counters to a word, a sample one shared
// atomic add of 1 or 1 << 16 on its word. The thread whose add takes a counter to a
// multiple of spill_at (2^14) takes spill_at off it and adds spill_at to the bin's global
// counter. With p such subtractions pending the counter stays in [p, p + 1) x spill_at, so
// it passes 2^16 - 1 only if four threads are each between their two atomics on it at
// once (taking spill_at off only at spill_at itself, one thread stalled there, as under
// compute-sanitizer racecheck, let other threads carry a counter into the next bin). merge adds what is left; merge_pairs adds two bins per 64-bit
// atomic (4-byte integer counters, 8-byte aligned, none reaching 2^32). Measured on the H200 (int32, 65536
// bins, 1024 threads, a block per SM): 3.5 TB/s at 2^28, uniform or 90% in 64 bins,
// 35x / 14x the faster of CUB 3.0.1 and 3.5; counters spread over a cluster's blocks
// (distributed shared memory atomics) reached 0.66 TB/s at best
// (perf/results/2026-12-02-h200-histogram-65536).
#pragma once
#include <tilekit/block/shape.cuh>
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/storage.hpp>
#include <tilekit/tile/histogram.cuh>

#include <cstdint>

namespace tilekit {

namespace detail {
// The i-th of the indices 0 .. n taken from `first` on, wrapping (first <= n): where the
// merges below start at different bins in different blocks.
TILEKIT_HD unsigned wrapped_index(unsigned i, unsigned n, unsigned first) { return i < n - first ? i + first : i - (n - first); }
}  // namespace detail

/// Shared counters for Bins bins.
template <class Counter, unsigned Bins>
struct histogram_storage {
  static_assert(Bins >= 1, "tilekit::histogram_storage: at least one bin");
  Counter counters[Bins];  ///< one counter per bin
};

/// Bytes of shared memory for `bins` counters.
template <class Counter>
TILEKIT_HD constexpr std::size_t histogram_storage_bytes(std::size_t bins) { return bins * sizeof(Counter); }

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Counter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram_init(const Block& block, Counter* counters, unsigned bins) {
  // A compile-time stride where the block size is static.
  const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
  for (unsigned i = block.thread_rank(); i < bins; i += stride) counters[i] = Counter(0);
  block.sync();
}

/// Adds each thread's K samples (blocked arrangement) to the block's counters.
/// @pre counters initialised (histogram_init) and every sample < bins.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Bin, int K, class Counter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram(const Block&, const Bin (&items)[K], Counter* counters) {
  // No per-item predicate: the K atomics issue back to back.
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) Block::backend::atomic_add(counters + items[k], Counter(1));
}

/// As above, counting only the first valid_items samples of the block.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Bin, int K, class Counter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram(const Block& block, const Bin (&items)[K], Counter* counters, unsigned valid_items) {
  const unsigned n = detail::items_valid(block.thread_rank(), K, valid_items);
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k)
    if (unsigned(k) < n) Block::backend::atomic_add(counters + items[k], Counter(1));
}

/// Waits for the block's samples, then adds its non-zero counters to global[0 .. bins),
/// starting at bin `first` (< bins) and wrapping: blocks that merge at the same time
/// start at different bins (e.g. block_rank * bins / blocks), so that their atomics do
/// not queue on the same L2 lines one block after another.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Counter, class GlobalCounter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram_merge(const Block& block, const Counter* counters, GlobalCounter* global, unsigned bins,
                                unsigned first = 0) {
  block.sync();
  const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
  for (unsigned i = block.thread_rank(); i < bins; i += stride) {
    const unsigned b = detail::wrapped_index(i, bins, first);
    if (counters[b] != Counter(0)) Block::backend::atomic_add(global + b, static_cast<GlobalCounter>(counters[b]));
  }
}

/// The 256 values' counts of a block's 1-byte samples in each of Sets sets (see the top
/// of this file), one histogram per set and WarpsPer warps (a divisor of the block's warps).
/// Shared memory: byte_counters<Block, Sets, WarpsPer>::bytes. Every thread of the
/// block calls the constructor and wait_all; add and total are per thread.
template <class Block, unsigned Sets = 1, unsigned WarpsPer = 1>
class byte_counters {
  static_assert(Block::static_size > 0 && Block::static_size % 32 == 0,
                "tilekit::byte_counters: the block's size must be a compile-time multiple of 32 (whole warps)");
  static_assert(WarpsPer >= 1 && Block::static_size / 32 % WarpsPer == 0,
                "tilekit::byte_counters: WarpsPer (warps per histogram) must divide the block's warps");
  static constexpr unsigned threads = Block::static_size, histograms = threads / 32 / WarpsPer;
  using be = typename Block::backend;

 public:
  /// Shared bytes: 256 32-bit counters per set and WarpsPer warps.
  static constexpr std::size_t bytes = std::size_t(histograms) * Sets * 256 * sizeof(std::uint32_t);

  /// Zeroes the counters in `shared` (16-byte aligned, `bytes` long); ends with block.sync().
  TILEKIT_HD byte_counters(const Block& block, void* shared) : counts_(static_cast<std::uint32_t*>(shared)), rank_(block.thread_rank()) {
    const detail::vector_of<std::uint32_t, 4> zero{};
    for (unsigned i = rank_; i < histograms * Sets * 64; i += threads) detail::store_vector(counts_ + 4 * i, zero);
    block.sync();
  }
  /// Counts one sample of value v (0..255) in set `set` (< Sets) for the calling thread.
  /// @pre fewer than 2^32 samples of one value added by one histogram's warps (32-bit
  /// counters: a 64-bit shared atomic add is a compare-and-swap loop on sm_90).
  TILEKIT_HD void add(unsigned v, unsigned set = 0) const {
    be::atomic_add(counts_ + (rank_ / 32 / WarpsPer * Sets + set) * 256 + v, std::uint32_t(1));
  }
  /// Waits for every thread's adds (block.sync()).
  TILEKIT_HD void wait_all(const Block& block) const { block.sync(); }
  /// Value v's count in set `set` over the block, after wait_all (at most 2^32 - 1: the block's samples).
  TILEKIT_HD std::uint32_t total(unsigned v, unsigned set = 0) const {
    std::uint32_t sum = 0;
    for (unsigned h = 0; h < histograms; ++h) sum += counts_[(h * Sets + set) * 256 + v];
    return sum;
  }

 private:
  std::uint32_t* counts_;
  unsigned rank_;
};

/// Shared bytes of half_counters for `bins` bins: a 32-bit word per two bins.
TILEKIT_HD constexpr std::size_t half_counters_bytes(unsigned bins) { return std::size_t((bins + 1) / 2) * sizeof(std::uint32_t); }

/// Two 16-bit counters to a 32-bit word of the block's shared memory (see the top of
/// this file): bins up to twice what 32-bit counters allow. Every thread of the block
/// calls the constructor and merge; add is per thread.
template <class Block>
class half_counters {
  using be = typename Block::backend;

 public:
  /// A counter that reaches a multiple of spill_at hands spill_at to its bin's global counter.
  static constexpr unsigned spill_at = 1u << 14;
  /// Zeroes the counters in `shared` (4-byte aligned, half_counters_bytes(bins) long); ends with block.sync().
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD half_counters(const Block& block, void* shared, unsigned bins)
      : words_(static_cast<std::uint32_t*>(shared)), bins_(bins) {
    const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
    unsigned from = 0;  // the words zeroed 16 bytes a store (where aligned), then one by one
    if (reinterpret_cast<std::uintptr_t>(shared) % 16 == 0) {
      const detail::vector_of<std::uint32_t, 4> zero{};
      for (unsigned i = block.thread_rank(); i < (bins + 1) / 8; i += stride) detail::store_vector(words_ + 4 * i, zero);
      from = (bins + 1) / 8 * 4;
    }
    for (unsigned i = from + block.thread_rank(); i < (bins + 1) / 2; i += stride) words_[i] = 0;
    block.sync();
  }
  /// Counts one sample of bin `bin` (< bins); global[bin] gets spill_at at a time.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class GlobalCounter>
  TILEKIT_HD void add(unsigned bin, GlobalCounter* global) const {
    add_spilling(bin, [global](unsigned b, unsigned count) { be::atomic_add(global + b, static_cast<GlobalCounter>(count)); });
  }
  /// As add, calling spill(bin, spill_at) where the counter reaches a multiple of spill_at (rarely:
  /// the caller may wait there for the global counters to be ready).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Spill>
  TILEKIT_HD void add_spilling(unsigned bin, Spill&& spill) const {
    const unsigned shift = shift_of(bin);
    const std::uint32_t old = be::atomic_add(words_ + bin / 2, std::uint32_t(1) << shift);
    if (((old >> shift) & (spill_at - 1)) == spill_at - 1) {  // a multiple of spill_at reached (see the top of the file)
      be::atomic_add(words_ + bin / 2, std::uint32_t(0u - (spill_at << shift)));  // the counter is >= spill_at: no borrow
      spill(bin, spill_at);
    }
  }
  /// Waits for the block's samples (block.sync()), then adds its non-zero counters to
  /// global[0 .. bins), starting at bin `first` (< bins; see histogram_merge) and wrapping.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class GlobalCounter>
  TILEKIT_HD void merge(const Block& block, GlobalCounter* global, unsigned first = 0) const {
    block.sync();
    // Consecutive threads take consecutive bins (two to a word), so each warp's atomics
    // cover 32 consecutive counters: half the sectors of a word per thread (measured on
    // the H200: the merge's atomics were throttled by the memory pipeline).
    const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
    for (unsigned i = block.thread_rank(); i < bins_; i += stride) {
      const unsigned b = detail::wrapped_index(i, bins_, first);
      const std::uint32_t count = (words_[b / 2] >> shift_of(b)) & 0xFFFFu;
      if (count != 0) be::atomic_add(global + b, static_cast<GlobalCounter>(count));
    }
  }
  /// As merge, with the two bins of each word in one 64-bit atomic add (bin 2w in its low
  /// half): half the atomics. Words from `first_word` (<= bins / 2), wrapping.
  /// @pre GlobalCounter is a 4-byte integer, global is 8-byte aligned, no global
  /// counter reaches 2^32 (e.g. fewer than 2^32 samples in all), so that no add carries
  /// from a bin into the next, and every other atomic on global[0 .. bins & ~1) is
  /// 64-bit too (atomics of different widths on one word are not atomic to each other).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class GlobalCounter>
  TILEKIT_HD void merge_pairs(const Block& block, GlobalCounter* global, unsigned first_word = 0) const {
    static_assert(sizeof(GlobalCounter) == 4 && detail::stdx::is_integral<GlobalCounter>::value,
                  "tilekit::half_counters::merge_pairs: 4-byte integer counters (use merge for others)");
    block.sync();
    const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
    const unsigned pairs = bins_ / 2;  // whole words; an odd last bin is added alone
    auto* wide = reinterpret_cast<unsigned long long*>(global);
    for (unsigned i = block.thread_rank(); i < pairs; i += stride) {
      const unsigned w = detail::wrapped_index(i, pairs, first_word);
      const std::uint32_t x = words_[w];
      if (x != 0) be::atomic_add(wide + w, (static_cast<unsigned long long>(x >> 16) << 32) | (x & 0xFFFFu));
    }
    if (bins_ % 2 != 0 && block.thread_rank() == 0) {
      const std::uint32_t count = words_[pairs] & 0xFFFFu;
      if (count != 0) be::atomic_add(global + (bins_ - 1), static_cast<GlobalCounter>(count));
    }
  }

  /// The counters' words in shared memory: bin 2w in the low half of word w, bin 2w + 1 in its high half.
  TILEKIT_HD const std::uint32_t* words() const { return words_; }
  /// The number of bins.
  TILEKIT_HD unsigned bins() const { return bins_; }

 private:
  TILEKIT_HD static unsigned shift_of(unsigned bin) { return (bin & 1u) * 16u; }  // the bin's half of its word
  std::uint32_t* words_;
  unsigned bins_;
};

}  // namespace tilekit
