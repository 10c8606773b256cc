// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/tile/dedup.cuh - dedup: which lanes hold the first copy of each distinct key.
//
// Tile level (tile<N>):
//   dedup(tile, key[, eq])            -> {first, rank, count}: first = no lower lane holds an
//                                        equal key; rank = first-lanes below this one (the slot
//                                        of a first key); count = distinct keys in the tile
//   dedup_store(tile, key, out[, eq]) writes the distinct keys to out[0 .. count-1] in lane
//                                        order (first occurrence), returns count (every lane)
// Equality is eq (default ==). Integer keys of 4 or 8 bytes with the default
// use one match_any; other keys compare against every lower lane (N-1 shuffles).
// Floating point with ==: -0.0 equals +0.0, and a NaN equals nothing (each NaN is distinct).
#pragma once
#include <tilekit/core/group.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/core/std.hpp>

namespace tilekit {

/// What dedup returns to each lane of the tile.
struct dedup_result {
  bool first;      ///< this lane holds the first copy of its key
  unsigned rank;   ///< first-lanes below this lane; the output slot when first
  unsigned count;  ///< distinct keys in the tile
};

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Eq = equal_to, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD dedup_result dedup(const Tile& tile, const T& key, Eq eq = {}) {
  const unsigned rank = tile.thread_rank();
  bool first = true;
  if constexpr (detail::stdx::is_same<Eq, equal_to>::value && detail::stdx::is_integral<T>::value &&
                (sizeof(T) == 4 || sizeof(T) == 8)) {
    first = detail::lowest_bit(tile.match_any(key)) == rank;
  } else {
    TILEKIT_UNROLL
    for (unsigned src = 0; src + 1 < Tile::size(); ++src) {
      const T other = tile.shfl(key, src);
      if (src < rank && eq(other, key)) first = false;
    }
  }
  const unsigned firsts = tile.ballot(first);
  return {first, detail::popc(firsts & detail::lanes_below(rank)), detail::popc(firsts)};
}

/// Stores the distinct keys contiguously at out, in lane order; returns their count.
/// @pre out has room for the distinct count.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class OutputIt, class Eq = equal_to, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD unsigned dedup_store(const Tile& tile, const T& key, OutputIt out, Eq eq = {}) {
  const dedup_result r = dedup(tile, key, eq);
  if (r.first) out[r.rank] = key;
  return r.count;
}

}  // namespace tilekit
