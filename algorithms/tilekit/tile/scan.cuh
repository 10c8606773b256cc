// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/tile/scan.cuh - prefix scans: lane i gets op over the values of lanes 0..i
// (inclusive) or 0..i-1 (exclusive).
//
// Tile level (tile<N>):
//   inclusive_scan(tile, v[, op])                  op defaults to plus
//   exclusive_scan(tile, v, op, init)              lane 0 gets init, lane i init op x0 op .. op x(i-1)
//   exclusive_scan(tile, v[, op])                  init = identity(op); needs an operator with a known identity
//   inclusive_scan_aggregate / exclusive_scan_aggregate
//                                                  the same, returning {value, aggregate}; aggregate is op
//                                                  over the tile's values (init not included), in every lane
//   array forms (blocked arrangement: lane i holds items K*i .. K*i+K-1): the
//   same names over `const T (&in)[K], T (&out)[K]`; in and out may be the same array.
//
// Order of combination: Kogge-Stone steps with shfl_up (distance 1, 2, 4, ...);
// the left operand always holds lower lanes, so op need not be commutative.
#pragma once
#include <tilekit/core/group.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/core/std.hpp>

namespace tilekit {

/// A scanned value and the aggregate of the whole group.
template <class T>
struct scanned {
  T value;      ///< this lane's scan result
  T aggregate;  ///< the combination of every lane's input, the same on every lane
};

// Scalar forms: also require op(T, T), so an array argument never selects them.
#define TILEKIT_TILE_ONLY detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0
#define TILEKIT_TILE_SCALAR \
  detail::stdx::enable_if_t<is_tile_v<Tile> && detail::stdx::is_invocable<Op&, const T&, const T&>::value, int> = 0

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op = plus, TILEKIT_TILE_SCALAR>
TILEKIT_HD T inclusive_scan(const Tile& tile, T v, Op op = {}) {
  TILEKIT_UNROLL
  for (unsigned d = 1; d < Tile::size(); d *= 2) {
    const T lower = tile.shfl_up(v, d);
    if (tile.thread_rank() >= d) v = op(lower, v);
  }
  return v;
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op, TILEKIT_TILE_SCALAR>
TILEKIT_HD scanned<T> inclusive_scan_aggregate(const Tile& tile, const T& v, Op op) {
  const T inclusive = inclusive_scan(tile, v, op);
  return {inclusive, tile.shfl(inclusive, Tile::size() - 1)};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op, TILEKIT_TILE_SCALAR>
TILEKIT_HD scanned<T> exclusive_scan_aggregate(const Tile& tile, const T& v, Op op, const T& init) {
  const T inclusive = inclusive_scan(tile, v, op);
  const T lower = tile.shfl_up(inclusive, 1);
  const T aggregate = tile.shfl(inclusive, Tile::size() - 1);
  return {tile.thread_rank() == 0 ? init : op(init, lower), aggregate};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op, TILEKIT_TILE_SCALAR>
TILEKIT_HD scanned<T> exclusive_scan_aggregate(const Tile& tile, const T& v, Op op) {
  static_assert(has_identity_v<T, Op>,
                "tilekit::exclusive_scan: this operator has no known identity; pass an init value");
  const T inclusive = inclusive_scan(tile, v, op);
  const T lower = tile.shfl_up(inclusive, 1);
  const T aggregate = tile.shfl(inclusive, Tile::size() - 1);
  return {tile.thread_rank() == 0 ? identity<T>(op) : lower, aggregate};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op, TILEKIT_TILE_SCALAR>
TILEKIT_HD T exclusive_scan(const Tile& tile, const T& v, Op op, const T& init) {
  const T lower = tile.shfl_up(inclusive_scan(tile, v, op), 1);
  return tile.thread_rank() == 0 ? init : op(init, lower);
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op = plus, TILEKIT_TILE_SCALAR>
TILEKIT_HD T exclusive_scan(const Tile& tile, const T& v, Op op = {}) {
  static_assert(has_identity_v<T, Op>,
                "tilekit::exclusive_scan: this operator has no known identity; pass an init value");
  const T lower = tile.shfl_up(inclusive_scan(tile, v, op), 1);
  return tile.thread_rank() == 0 ? identity<T>(op) : lower;
}

// ---- arrays of K items per lane (blocked arrangement) ----

namespace detail {
template <class T, int K, class Op>
TILEKIT_HD T thread_reduce(const T (&in)[K], Op op) {
  T total = in[0];
  TILEKIT_UNROLL
  for (int k = 1; k < K; ++k) total = op(total, in[k]);
  return total;
}

// out[k] = seed op in[0] op .. op in[k]; in and out may alias.
template <class T, int K, class Op>
TILEKIT_HD void thread_inclusive_scan(const T (&in)[K], T (&out)[K], Op op, const T& seed, bool has_seed) {
  T running = has_seed ? op(seed, in[0]) : in[0];
  out[0] = running;
  TILEKIT_UNROLL
  for (int k = 1; k < K; ++k) {
    running = op(running, in[k]);
    out[k] = running;
  }
}

// out[k] = seed op in[0] op .. op in[k-1]; in and out may alias.
template <class T, int K, class Op>
TILEKIT_HD void thread_exclusive_scan(const T (&in)[K], T (&out)[K], Op op, const T& seed) {
  T running = seed;
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) {
    const T x = in[k];
    out[k] = running;
    running = op(running, x);
  }
}
}  // namespace detail

/// Inclusive scan over K items per lane; returns the tile aggregate.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, int K, class Op = plus, TILEKIT_TILE_ONLY>
TILEKIT_HD T inclusive_scan(const Tile& tile, const T (&in)[K], T (&out)[K], Op op = {}) {
  static_assert(K >= 1, "tilekit::inclusive_scan: the array needs at least one item");
  const T total = detail::thread_reduce(in, op);
  const T inclusive = inclusive_scan(tile, total, op);
  const T lower = tile.shfl_up(inclusive, 1);
  const T aggregate = tile.shfl(inclusive, Tile::size() - 1);
  detail::thread_inclusive_scan(in, out, op, lower, tile.thread_rank() != 0);
  return aggregate;
}

/// Exclusive scan over K items per lane seeded with init; returns the tile aggregate (init not included).
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, int K, class Op, TILEKIT_TILE_ONLY>
TILEKIT_HD T exclusive_scan(const Tile& tile, const T (&in)[K], T (&out)[K], Op op, const T& init) {
  static_assert(K >= 1, "tilekit::exclusive_scan: the array needs at least one item");
  const scanned<T> s = exclusive_scan_aggregate(tile, detail::thread_reduce(in, op), op, init);
  detail::thread_exclusive_scan(in, out, op, s.value);
  return s.aggregate;
}

/// Exclusive scan over K items per lane seeded with identity(op); returns the tile aggregate.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, int K, class Op = plus, TILEKIT_TILE_ONLY>
TILEKIT_HD T exclusive_scan(const Tile& tile, const T (&in)[K], T (&out)[K], Op op = {}) {
  static_assert(has_identity_v<T, Op>,
                "tilekit::exclusive_scan: this operator has no known identity; pass an init value");
  return exclusive_scan(tile, in, out, op, identity<T>(op));
}

#undef TILEKIT_TILE_ONLY
#undef TILEKIT_TILE_SCALAR

}  // namespace tilekit
