// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/block/compact.cuh - ballot-compact over a block: kept items get
// consecutive slots in rank order (stable).
//
// Block level (block<Threads>, any Threads 1..1024; storage: compact_storage<Threads>):
//   compact(block, keep, storage[, valid_items])            -> {rank, count} block-wide, stable
//   compact_store(block, keep, value, out, storage[, valid_items])   kept values to out[0..count)
//   partition(block, keep, value, out, storage[, valid_items])       kept values first, in order,
//       then the rejected ones, in order: out[0..valid); returns the kept count
// Whole warps count with one ballot, a partial last warp through shared memory;
// after one barrier each thread adds up the counts before its own. Threads at
// or past valid_items keep nothing. Call block.sync() before reusing storage.
#pragma once
#include <tilekit/block/shape.cuh>
#include <tilekit/core/storage.hpp>
#include <tilekit/tile/compact.cuh>

namespace tilekit {

/// Shared storage of a block compact over Threads threads.
template <unsigned Threads>
struct compact_storage {
  /// Kept items per warp (a partial last warp included), written by each warp's leader.
  unsigned counts[detail::block_shape<Threads>::full_warps + detail::block_shape<Threads>::rest];
};

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD compact_result compact(const Block& block, bool keep, compact_storage<detail::static_threads<Block>()>& storage) {
  using shape = detail::block_shape<Block::static_size>;
  const unsigned rank = block.thread_rank(), warp = rank / 32, lane = rank % 32;
  unsigned local = 0;  // kept threads before this one in its warp
  if (shape::rest == 0 || detail::below(warp, shape::full_warps)) {  // rest == 0: no partial warp (and no bounds warning)
    const compact_result r = compact(tilekit::tiled_partition<32>(block), keep);
    local = r.rank;
    if (lane == 0) storage.counts[warp] = r.count;
  } else {
    storage.counts[shape::full_warps + lane] = keep ? 1u : 0u;
  }
  block.sync();
  const unsigned group = detail::below(warp, shape::full_warps) ? warp : shape::full_warps + lane;
  unsigned before = 0, total = 0;
  for (unsigned i = 0; i < shape::full_warps + shape::rest; ++i) {
    if (i == group) before = total;
    total += storage.counts[i];
  }
  return {before + local, total};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD compact_result compact(const Block& block, bool keep, compact_storage<detail::static_threads<Block>()>& storage,
                                  unsigned valid_items) {
  return compact(block, keep && block.thread_rank() < valid_items, storage);
}

/// Stores the kept values at out[0 .. count) in rank order; returns count (every thread).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class OutputIt, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned compact_store(const Block& block, bool keep, const T& value, OutputIt out,
                                  compact_storage<detail::static_threads<Block>()>& storage,
                                  unsigned valid_items = detail::static_threads<Block>()) {
  const bool kept = keep && block.thread_rank() < valid_items;
  const compact_result r = compact(block, kept, storage);
  if (kept) out[r.rank] = value;
  return r.count;
}

/// Kept values first (in order), then the rejected ones (in order), at out[0 .. valid_items);
/// returns the kept count (every thread).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class OutputIt, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned partition(const Block& block, bool keep, const T& value, OutputIt out,
                              compact_storage<detail::static_threads<Block>()>& storage,
                              unsigned valid_items = detail::static_threads<Block>()) {
  const unsigned rank = block.thread_rank();
  const bool valid = rank < valid_items;
  const compact_result r = compact(block, keep && valid, storage);
  if (valid) out[keep ? r.rank : r.count + (rank - r.rank)] = value;
  return r.count;
}

}  // namespace tilekit
