// tilekit/histogram.cuh - histogram: every lane adds one sample to caller-provided
// counters (shared or global memory).
//
// Tile level (tile<N>), variants:
//   histogram_atomic    one atomic add per sample.
//   histogram_match     lanes holding the same bin are found with match_any and their
//                       leader adds the group's count: one atomic per distinct bin.
//                       Bins of 4- or 8-byte integers.
//   histogram           the default: histogram_atomic on shared-memory counters,
//                       histogram_match on global ones (checked at run time).
// Measured on the H200 (perf/tile_bench.cu, samples per second, tile<32>):
//   shared counters: atomic runs 15x match on uniform bins, 2.1x on skewed data (75% in
//   one bin), 5x when all samples hit one bin (shared atomics to one address in a
//   warp are cheap); match never pays there.
//   global counters: match runs 18x atomic on skewed data (6x at tile<8>), ties on one
//   bin, and 0.97x on 4096 uniform bins (0.56x at tile<4>): aggregation pays where
//   contention on L2 atomics is the cost.
// Every lane of the tile calls; a lane with valid == false contributes nothing.
// @pre 0 <= bin < number of counters for every valid lane (not checked here).
//
// Block level: counters privatised in the block's shared memory, any number of
// bins that fits there (Counter[bins], runtime or compile-time count):
//   histogram_init(block, counters, bins)                 zero them (ends with block.sync())
//   histogram(block, items[K], counters[, valid_items])  add the block's samples
//   histogram_merge(block, counters, global, bins)        block.sync(), then add the
//                                                         non-zero counters to global ones
// Samples go to shared counters with one atomic each: on the H200 shared-memory
// atomics beat match_any aggregation on every distribution measured, including
// all samples in one bin (see histogram above). Bins past 256 stay in shared memory
// (CUB's BlockHistogram sorts or goes to global atomics instead).
// histogram_storage<Counter, Bins> holds a compile-time count; for a run-time
// count give histogram_storage_bytes<Counter>(bins) of dynamic shared memory.
#pragma once
#include <tilekit/detail/block_shape.hpp>
#include <tilekit/group_traits.hpp>

namespace tilekit {

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class Bin, class Counter, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD void histogram_atomic(const Tile&, const Bin& bin, Counter* counters, bool valid = true) {
  if (valid) Tile::backend::atomic_add(counters + bin, Counter(1));
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class Bin, class Counter, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD void histogram_match(const Tile& tile, const Bin& bin, Counter* counters, bool valid = true) {
  static_assert(detail::stdx::is_integral<Bin>::value && (sizeof(Bin) == 4 || sizeof(Bin) == 8),
                "tilekit::histogram_match: bins must be 32- or 64-bit integers; use histogram_atomic");
  const unsigned peers = tile.match_any(bin) & tile.ballot(valid);
  if (valid && detail::lowest_bit(peers) == tile.thread_rank())
    Tile::backend::atomic_add(counters + bin, static_cast<Counter>(detail::popc(peers)));
}

/// Adds each valid lane's sample to counters[bin].
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class Bin, class Counter, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD void histogram(const Tile& tile, const Bin& bin, Counter* counters, bool valid = true) {
  if constexpr (Tile::size() > 1 && detail::stdx::is_integral<Bin>::value && (sizeof(Bin) == 4 || sizeof(Bin) == 8)) {
    if (!Tile::backend::is_shared(counters)) {
      histogram_match(tile, bin, counters, valid);
      return;
    }
  }
  histogram_atomic(tile, bin, counters, valid);
}

// ---------------------------------------------------------------- block level

/// Shared counters for Bins bins.
template <class Counter, unsigned Bins>
struct histogram_storage {
  static_assert(Bins >= 1, "tilekit::histogram_storage: at least one bin");
  Counter counters[Bins];
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

/// Waits for the block's samples, then adds its non-zero counters to global[0 .. bins).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Counter, class GlobalCounter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram_merge(const Block& block, const Counter* counters, GlobalCounter* global, unsigned bins) {
  block.sync();
  const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
  for (unsigned i = block.thread_rank(); i < bins; i += stride)
    if (counters[i] != Counter(0)) Block::backend::atomic_add(global + i, static_cast<GlobalCounter>(counters[i]));
}

}  // namespace tilekit
