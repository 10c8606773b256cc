// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/tile/compact.cuh - ballot-compact: each lane says whether it keeps its item;
// kept items get consecutive slots in lane order (stable).
//
// Tile level (tile<N>):
//   compact(tile, keep)                       -> {rank, count}: rank = kept lanes below this
//                                                one (the slot of a kept item), count = kept lanes
//   compact_store(tile, keep, value, out)     writes kept values to out[0 .. count-1] in lane
//                                                order, returns count (every lane)
// One ballot and two popc: no shared memory, no shuffles.
#pragma once
#include <tilekit/core/group.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/core/std.hpp>

namespace tilekit {

/// Where a lane's item lands among the kept ones, and how many were kept.
struct compact_result {
  unsigned rank;   ///< kept lanes below this lane; the output slot when this lane keeps
  unsigned count;  ///< kept lanes in the tile
};

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD compact_result compact(const Tile& tile, bool keep) {
  const unsigned kept = tile.ballot(keep);
  return {detail::popc(kept & detail::lanes_below(tile.thread_rank())), detail::popc(kept)};
}

/// Stores the kept values contiguously at out, in lane order; returns the kept count.
/// @pre out has room for the kept count.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class OutputIt, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD unsigned compact_store(const Tile& tile, bool keep, const T& value, OutputIt out) {
  const compact_result r = compact(tile, keep);
  if (keep) out[r.rank] = value;
  return r.count;
}

}  // namespace tilekit
