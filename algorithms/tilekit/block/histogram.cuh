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
// byte_tensor_counters<Block>: the same counts without a shared atomic a sample, by the
// tensor cores. A warp's 2048 samples (64 a lane) become bit planes (a transpose of each
// 32 bytes), which cross lanes through 2.5 KB of shared staging a warp (the 8 lanes that need
// a lane's planes read them in one broadcast); each lane turns them into one-hot masks of
// the samples' high and low 4 bits for its rows and columns, and the 1-bit matrix product
// (mma .b1 .and.popc, sm_80 on; emulated by shuffles below it, one collective in the simulator) of the
// 16 high masks by the 16 low ones counts the samples of each of the 16 x 16 values, in 8
// registers a lane. The cost is the same whatever the distribution, where byte_counters'
// atomics cost about one shared-memory pass per distinct value in a warp's instruction
// (uniform bytes: ~30 of 32).
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

/// Shared bytes of byte_tensor_counters for a block of `threads` threads: 256 32-bit
/// counters, then 2.5 KB of staging a warp.
TILEKIT_HD constexpr std::size_t byte_tensor_counters_bytes(unsigned threads) {
  return (256 + std::size_t(threads / 32) * 32 * 20) * sizeof(std::uint32_t);
}

/// The 256 values' counts of a block's 1-byte samples, by the tensor cores' 1-bit matrix
/// product (backend bit_mma; see the top of this file). add_words is warp-collective: each
/// lane gives 64 samples, a warp 2048, and no sample costs a shared atomic, whatever the
/// values. add (one sample, a shared atomic on the block's histogram) is for the few
/// samples outside whole 16-byte vectors. Shared memory: bytes. Every thread of the
/// block calls the constructor and wait_all.
template <class Block>
class byte_tensor_counters {
  static_assert(Block::static_size > 0 && Block::static_size % 32 == 0,
                "tilekit::byte_tensor_counters: the block's size must be a compile-time multiple of 32 (whole warps)");
  using be = typename Block::backend;
  using chunk_t = detail::vector_of<std::uint32_t, 4>;
  static constexpr unsigned threads = Block::static_size;

 public:
  /// Shared bytes: byte_tensor_counters_bytes(the block's threads).
  static constexpr std::size_t bytes = byte_tensor_counters_bytes(threads);

  /// Zeroes the counters in `shared` (16-byte aligned, `bytes` long); ends with block.sync().
  TILEKIT_HD byte_tensor_counters(const Block& block, void* shared)
      : counts_(static_cast<std::uint32_t*>(shared)), staging_(counts_ + 256 + block.thread_rank() / 32 * 32 * row_words), lane_(be::lane_id()) {
    const chunk_t zero{};
    for (unsigned i = block.thread_rank(); i < 64; i += threads) detail::store_vector(counts_ + 4 * i, zero);
    block.sync();
  }

  /// Counts the 64 samples of words[16] (4 bytes each), of which the last `zeros` are
  /// padding: zero bytes not to be counted (a lane past the end of the input gives 16 zero
  /// bytes a missing 16-byte vector). Warp-collective: every lane of the warp calls it
  /// together. @pre fewer than 2^31 samples of one value (padding included) added by the warp.
  TILEKIT_HD void add_words(const std::uint32_t (&words)[16], unsigned zeros = 0) {
    // Bit planes of each half's 32 samples: p[i] bit 8 b + j is bit i of byte b of
    // words[8 h + j], each byte's 8 x 8 bits transposed by swapping blocks of 4, 2, then 1
    // bits between words. Stored at the lane's row of the warp's staging.
    TILEKIT_UNROLL
    for (unsigned h = 0; h < 2; ++h) {
      std::uint32_t p[8];
      TILEKIT_UNROLL
      for (unsigned j = 0; j < 8; ++j) p[j] = words[8 * h + j];
      swap_bits<4>(p, 0x0f0f0f0fu);
      swap_bits<2>(p, 0x33333333u);
      swap_bits<1>(p, 0x55555555u);
      detail::store_vector(staging_ + slot(lane_, 2 * h), chunk_t{{p[0], p[1], p[2], p[3]}});
      detail::store_vector(staging_ + slot(lane_, 2 * h + 1), chunk_t{{p[4], p[5], p[6], p[7]}});
    }
    zeros_ += zeros;
    be::syncwarp(~0u);
    // Round r: lane 4 g + t reads lane 4 r + t's planes (the 8 lanes of one t read the same
    // words) and builds its fragments: A rows g and g + 8 (samples whose high 4 bits are g,
    // g + 8) and B column g (low 4 bits g, then g + 8), over columns 32 t .. (the lane's first
    // half) and 128 + 32 t .. (its second). Cell (h, l) of the products counts the samples of
    // value 16 h + l.
    const unsigned g = lane_ / 4, t = lane_ % 4;
    const std::uint32_t same0 = g & 1 ? 0u : ~0u, same1 = g & 2 ? 0u : ~0u, same2 = g & 4 ? 0u : ~0u;
    // The samples whose 3 bits (b0, b1, b2) equal g's low three: b ^ same has a 1 where they agree.
    auto match3 = [&](std::uint32_t b0, std::uint32_t b1, std::uint32_t b2) { return (b0 ^ same0) & (b1 ^ same1) & (b2 ^ same2); };
    TILEKIT_UNROLL
    for (unsigned r = 0; r < 8; ++r) {
      unsigned a[4], low_g[2], low_g8[2];
      TILEKIT_UNROLL
      for (unsigned h = 0; h < 2; ++h) {
        const chunk_t low = detail::load_vector<std::uint32_t, 4>(staging_ + slot(4 * r + t, 2 * h));
        const chunk_t high = detail::load_vector<std::uint32_t, 4>(staging_ + slot(4 * r + t, 2 * h + 1));
        const std::uint32_t mh = match3(high.item[0], high.item[1], high.item[2]);
        a[2 * h] = mh & ~high.item[3], a[2 * h + 1] = mh & high.item[3];
        const std::uint32_t ml = match3(low.item[0], low.item[1], low.item[2]);
        low_g[h] = ml & ~low.item[3], low_g8[h] = ml & low.item[3];
      }
      be::bit_mma(a, low_g, low_half_);
      be::bit_mma(a, low_g8, high_half_);
    }
    be::syncwarp(~0u);  // every lane's planes read before the next add_words stores
  }
  /// Counts one sample of value v (0..255): a shared atomic add. (`set` is for byte_counters' interface: 0.)
  TILEKIT_HD void add(unsigned v, unsigned /*set*/ = 0) const { be::atomic_add(counts_ + v, std::uint32_t(1)); }
  /// Adds every lane's product cells to the block's counters (less the padding), then block.sync().
  TILEKIT_HD void wait_all(const Block& block) const {
    // Lane 4 g + t holds cells (g, 2 t), (g, 2 t + 1), (g + 8, 2 t), (g + 8, 2 t + 1): value 16 h + l,
    // of low values 0 .. 7 (low_half_) and 8 .. 15 (high_half_).
    const unsigned g = lane_ / 4, t = lane_ % 4;
    TILEKIT_UNROLL
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned v = 16 * (g + 8 * (i / 2)) + 2 * t + i % 2;
      if (low_half_[i] != 0) be::atomic_add(counts_ + v, std::uint32_t(low_half_[i]));
      if (high_half_[i] != 0) be::atomic_add(counts_ + v + 8, std::uint32_t(high_half_[i]));
    }
    if (zeros_ != 0) be::atomic_add(counts_, 0u - zeros_);  // (wraps: value 0's cells counted them)
    block.sync();
  }
  /// Value v's count over the block, after wait_all (at most 2^32 - 1: the block's samples).
  TILEKIT_HD std::uint32_t total(unsigned v, unsigned /*set*/ = 0) const { return counts_[v]; }

 private:
  // p[j] and p[j + S] (j & S == 0) swap their bits i + S and i of each byte (i & S == 0: the
  // bits of m; ~m is m << S). Two shifts and two 3-input logic operations a pair.
  template <unsigned S>
  TILEKIT_HD static void swap_bits(std::uint32_t (&p)[8], std::uint32_t m) {
    TILEKIT_UNROLL
    for (unsigned j = 0; j < 8; ++j) {
      if (j & S) continue;
      const std::uint32_t high = p[j], low = p[j + S];
      p[j] = detail::bit_select(m, high, low << S);
      p[j + S] = detail::bit_select(m, high >> S, low);
    }
  }
  // Word offset of chunk c (0 .. 3: half c / 2's low planes, then its high ones) of lane `row`'s
  // planes. Rows are 80 bytes apart (64 used), so that a quarter warp's stores (rows 8 s ..
  // 8 s + 7, one c) and a warp's loads (rows 4 r .. 4 r + 3, one c) each fall in different
  // groups of four banks, and a lane's loads are its row's address plus a constant.
  TILEKIT_HD static unsigned slot(unsigned row, unsigned c) { return row * row_words + c * 4; }
  static constexpr unsigned row_words = 20;

  std::uint32_t* counts_;
  std::uint32_t* staging_;
  unsigned lane_;
  unsigned zeros_ = 0;
  int low_half_[4] = {0, 0, 0, 0}, high_half_[4] = {0, 0, 0, 0};
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
