// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/tile/reduce.cuh - reduce: combine one value per thread with an associative
// operator; every participating thread gets the result.
//
// Tile level (tile<N>, N in 1..32), variants:
//   reduce_butterfly  log2(N) shfl_xor steps. Any trivially copyable T, any
//                     associative op (commutativity not needed); every lane
//                     computes the same combinations in the same order, so all
//                     lanes get bitwise the same result, run after run.
//   reduce_hardware   one redux.sync (sm_80+): integers of up to 32 bits with a
//                     built-in operator (sum, min, max, and, or, xor).
//   reduce            picks reduce_hardware where it applies and measured at
//                     least as fast (whole warps: hardware_reduce_min_tile),
//                     reduce_butterfly otherwise.
//
// Combination order of reduce_butterfly (documented so results are reproducible
// on the CPU): pairs of neighbours first, then pairs of pairs, i.e. a balanced
// binary tree over lanes 0..N-1 in order.
#pragma once
#include <tilekit/core/group.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/core/std.hpp>

namespace tilekit {

/// True when reduce_hardware applies: an integer of up to 32 bits with a built-in operator.
template <class T, class Op>
inline constexpr bool hardware_reducible_v = detail::stdx::is_integral<T>::value && sizeof(T) <= 4 &&
                                             !detail::stdx::is_same<T, bool>::value && builtin_kind_v<Op> != builtin_op::none;

/// Tiles from this many lanes up use redux.sync in reduce(): on a whole warp redux
/// is ahead of the butterfly; on smaller tiles, where several tiles share a warp,
/// it is behind (perf/tile_bench.cu; numbers in perf/results).
inline constexpr unsigned hardware_reduce_min_tile = 32;

/// Butterfly reduction over the tile; result in every lane.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD T reduce_butterfly(const Tile& tile, T v, Op op) {
  TILEKIT_UNROLL
  for (unsigned m = 1; m < Tile::size(); m *= 2) {
    const T other = tile.shfl_xor(v, m);
    // The lower half of each pair goes on the left: the order stays lane order.
    v = (tile.thread_rank() & m) ? op(other, v) : op(v, other);
  }
  return v;
}

/// redux.sync reduction over the tile; result in every lane.
/// @pre hardware_reducible_v<T, Op>, sm_80 or newer.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD T reduce_hardware(const Tile& tile, T v, Op) {
  static_assert(hardware_reducible_v<T, Op>,
                "tilekit::reduce_hardware: needs an integer of up to 32 bits and a built-in operator "
                "(plus, minimum, maximum, bit_and, bit_or, bit_xor); use reduce_butterfly otherwise");
  using wide = detail::stdx::conditional_t<detail::stdx::is_signed<T>::value, int, unsigned>;
  return static_cast<T>(tile.template hardware_reduce<builtin_kind_v<Op>>(static_cast<wide>(v)));
}

/// Reduce one value per lane over the tile with an associative op; result in every lane.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD T reduce(const Tile& tile, const T& v, Op op) {
  if constexpr (Tile::size() == 1) {
    return v;
  } else if constexpr (hardware_reducible_v<T, Op> && Tile::has_hardware_reduce &&
                       Tile::size() >= hardware_reduce_min_tile) {
    return reduce_hardware(tile, v, op);
  } else {
    return reduce_butterfly(tile, v, op);
  }
}

namespace detail {

/// op over the values of lanes [0, count) in every lane: reduce_butterfly's balanced tree with
/// the lanes from count on pruned, so bitwise what the butterfly gives over maybe-values absent
/// there, at one shuffle a step and no presence flag (the tree grows towards lane 0 by shfl_down,
/// then lane 0 broadcasts). Integers with a built-in operator: one redux, the identity past count.
/// @pre 1 <= count <= Tile::size().
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op>
TILEKIT_HD T reduce_lanes_below(const Tile& tile, T v, Op op, unsigned count) {
  const unsigned lane = tile.thread_rank();
  if constexpr (Tile::size() == 1) {
    return v;
  } else if constexpr (hardware_reducible_v<T, Op> && Tile::has_hardware_reduce &&
                       Tile::size() >= hardware_reduce_min_tile) {
    return reduce_hardware(tile, lane < count ? v : identity<T>(op), op);
  } else {
    TILEKIT_UNROLL
    for (unsigned m = 1; m < Tile::size(); m *= 2) {
      const T other = tile.shfl_down(v, m);
      // Lane i (i a multiple of 2m) takes the subtree [i + m, i + 2m) on its right, where it has lanes below count.
      if ((lane & (2 * m - 1)) == 0 && lane + m < count) v = op(v, other);
    }
    return tile.shfl(v, 0);
  }
}

}  // namespace detail

/// Reduce K items per lane (blocked arrangement: lane i holds items K*i .. K*i+K-1).
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, int K, class Op, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD T reduce(const Tile& tile, const T (&items)[K], Op op) {
  static_assert(K >= 1, "tilekit::reduce: the array needs at least one item");
  T partial = items[0];
  TILEKIT_UNROLL
  for (int k = 1; k < K; ++k) partial = op(partial, items[k]);
  return reduce(tile, partial, op);
}

}  // namespace tilekit
