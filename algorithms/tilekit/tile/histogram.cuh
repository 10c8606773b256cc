// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/tile/histogram.cuh - histogram: every lane adds one sample to caller-provided
// counters (shared or global memory).
//
// Tile level (tile<N>), variants:
//   histogram_atomic    one atomic add per sample.
//   histogram_match     lanes holding the same bin are found with match_any and their
//                       leader adds the group's count: one atomic per distinct bin.
//                       Bins of 4- or 8-byte integers.
//   histogram           the default: histogram_atomic on shared-memory counters,
//                       histogram_match on global ones (checked at run time).
// The default follows perf/tile_bench.cu (numbers in perf/results): on shared
// counters atomics are ahead of match on every distribution, skewed and one-bin
// data included; on global counters match is far ahead on skewed data and about
// even on uniform bins: aggregation pays where contention on L2 atomics is the cost.
// Every lane of the tile calls; a lane with valid == false contributes nothing.
// @pre 0 <= bin < number of counters for every valid lane (not checked here).
#pragma once
#include <tilekit/core/group.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/core/std.hpp>

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

}  // namespace tilekit
