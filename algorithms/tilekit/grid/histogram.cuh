// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/grid/histogram.cuh - histogram over the whole grid, inside the caller's
// kernel: every thread's samples counted into global counters that every thread
// of the grid can read when the call returns.
//
// Grid level, under a cooperative launch (see grid/reduce.cuh):
//   histogram(grid, block, bins_of_items[K], local, counters, bins)
// bins_of_items: each thread's K bins (0 <= bin < bins); local: the block's `bins`
// shared counters (histogram_storage or histogram_storage_bytes of dynamic shared
// memory, as at the block level); counters: `bins` global counters, overwritten
// (no initialisation needed). Each block counts its samples in shared memory (the
// block level: a shared atomic per sample); after a grid barrier block 0 stores its
// counts over the previous contents of counters; after a second every other block
// adds its non-zero counts; a third makes the totals visible to every thread. The
// first barrier also means no block overwrites counters while a thread of another
// still reads the previous call's totals, so calls back to back need nothing more.
#pragma once
#include <tilekit/block/histogram.cuh>

namespace tilekit {

/// Counts every thread's K samples (their bins) of the whole grid into counters[0 .. bins),
/// overwriting them; every thread of the grid may read the totals when it returns.
/// @pre a cooperative launch; every thread of the grid calls, with the same counters
/// and bins; 0 <= every bin < bins; local holds `bins` counters in the block's shared memory.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class Bin, int K, class Counter,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram(const Grid& grid, const Block& block, const Bin (&items)[K], Counter* local, Counter* counters,
                          unsigned bins) {
  detail::require_cooperative<Grid::launch>();
  using be = typename Block::backend;
  const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
  histogram_init(block, local, bins);
  histogram(block, items, local);
  grid.sync();  // every block counted; every thread done reading the previous totals
  const bool first = grid.block_rank() == 0;
  if (first)
    for (unsigned i = block.thread_rank(); i < bins; i += stride) counters[i] = local[i];
  grid.sync();  // block 0's counts stored
  if (!first)
    for (unsigned i = block.thread_rank(); i < bins; i += stride)
      if (local[i] != Counter(0)) be::atomic_add(counters + i, local[i]);
  grid.sync();  // the totals complete and visible
}

}  // namespace tilekit
