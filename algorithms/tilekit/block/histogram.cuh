// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/block/histogram.cuh - histogram over a block: counters privatised in
// the block's shared memory.
//
// Block level: counters privatised in the block's shared memory, any number of
// bins that fits there (Counter[bins], runtime or compile-time count):
//   histogram_init(block, counters, bins)                 zero them (ends with block.sync())
//   histogram(block, items[K], counters[, valid_items])  add the block's samples
//   histogram_merge(block, counters, global, bins)        block.sync(), then add the
//                                                         non-zero counters to global ones
// Samples go to shared counters with one atomic each: shared-memory atomics are
// ahead of match_any aggregation on every distribution benchmarked, all samples in
// one bin included (tile/histogram.cuh). Bins past 256 stay in shared memory
// (CUB's BlockHistogram sorts or goes to global atomics instead).
// histogram_storage<Counter, Bins> holds a compile-time count; for a run-time
// count give histogram_storage_bytes<Counter>(bins) of dynamic shared memory.
#pragma once
#include <tilekit/block/shape.cuh>
#include <tilekit/core/storage.hpp>
#include <tilekit/tile/histogram.cuh>

namespace tilekit {

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
