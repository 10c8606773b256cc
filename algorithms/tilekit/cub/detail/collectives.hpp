// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/detail/collectives.hpp - the few compositions the CUB facade's
// collectives need beyond tilekit's public tile and block algorithms, written over
// the group API like the algorithms themselves (plain C++17, __host__ __device__),
// so the simulator runs them too (tests/sim/cub_collectives.cpp):
//   reduce_valid            a tile reduce over the first valid_items lanes
//   segmented_reduce        every lane gets op over its segment (head or tail flags)
//   exclusive_scan_no_init  a block exclusive scan with neither an initial value nor
//                           an identity (CUB's ExclusiveScan(in, out, op)): thread 0's
//                           (first) output is undefined in CUB and its (first) input here
//   inclusive_scan_init     a block inclusive scan of arrays seeded with an initial value
//   smem_warp_*             reductions over logical warps of any size W (not only the
//                           power-of-two tiles), through W slots of shared memory
// The block forms take the block part of tilekit's scan (detail::block_scan) and do
// the per-thread part themselves; everything else is tilekit's public API.
#pragma once
#include <tilekit/block/shape.cuh>
#include <tilekit/core/group.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/block/reduce.cuh>
#include <tilekit/block/scan.cuh>

namespace tilekit::cub::detail {

/// op over the first valid_items lanes of the tile; every lane gets the result. @pre valid_items >= 1.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op>
TILEKIT_HD T reduce_valid(const Tile& tile, const T& x, Op op, int valid_items) {
  const bool valid = int(tile.thread_rank()) < valid_items;
  if constexpr (::tilekit::has_identity_v<T, Op>) {
    // Lanes past valid_items bring the identity: the hardware path stays open.
    return ::tilekit::reduce(tile, valid ? x : ::tilekit::identity<T>(op), op);
  } else {
    const ::tilekit::detail::maybe<T> mine{x, valid};
    return ::tilekit::reduce(tile, mine, ::tilekit::detail::maybe_op<Op>{op}).value;
  }
}

/// A value and whether it starts a segment. Scanned with segmented_op, an inclusive
/// scan restarts at every head (the usual segmented-scan operator; associative).
template <class T>
struct segment_item {
  T value;
  bool head;
};

template <class Op>
struct segmented_op {
  Op op;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD segment_item<T> operator()(const segment_item<T>& a, const segment_item<T>& b) const {
    if (b.head) return b;
    return {T(op(a.value, b.value)), a.head};
  }
};

/// Every lane gets op over its segment. heads: bit i set where lane i starts a segment
/// (bit 0 always set); a segment ends before the next head or at the last lane.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op>
TILEKIT_HD T segmented_reduce(const Tile& tile, const T& x, unsigned heads, Op op) {
  constexpr unsigned n = Tile::size();
  const unsigned lane = tile.thread_rank();
  const segment_item<T> mine{x, ((heads >> lane) & 1u) != 0};
  const segment_item<T> prefix = ::tilekit::inclusive_scan(tile, mine, segmented_op<Op>{op});
  // The segment's total sits in its last lane: the one before the next head after this lane.
  const unsigned ends = (heads >> 1) | (1u << (n - 1));
  const unsigned last = ::tilekit::detail::lowest_bit(ends & ~::tilekit::detail::lanes_below(lane));
  return tile.shfl(prefix.value, last);
}

/// Segments started by head flags (lane 0 always starts one).
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op>
TILEKIT_HD T head_segmented_reduce(const Tile& tile, const T& x, bool head, Op op) {
  return segmented_reduce(tile, x, tile.ballot(head) | 1u, op);
}

/// Segments ended by tail flags: a lane after a tail starts one (the last lane's tail starts none).
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Op>
TILEKIT_HD T tail_segmented_reduce(const Tile& tile, const T& x, bool tail, Op op) {
  const unsigned heads = ((tile.ballot(tail) << 1) | 1u) & ::tilekit::detail::low_bits(Tile::size());
  return segmented_reduce(tile, x, heads, op);
}

/// The block part of tilekit's scan of one value per thread:
/// {inclusive, exclusive, has_exclusive (false in thread 0), aggregate}.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, ::tilekit::block_scan_algorithm A>
TILEKIT_HD ::tilekit::detail::block_scan_parts<T> scan_parts(
    const Block& block, const T& v, Op op, ::tilekit::scan_storage<T, ::tilekit::detail::static_threads<Block>(), A>& storage) {
  return ::tilekit::detail::block_scan<Block::static_size, A>(block, v, op, storage.full,
                                                             static_cast<::tilekit::detail::no_prefix<T>*>(nullptr));
}

/// Exclusive scan of one value per thread without an initial value: {value, block
/// aggregate}; thread 0's value is its input (CUB: undefined).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, ::tilekit::block_scan_algorithm A>
TILEKIT_HD ::tilekit::scanned<T> exclusive_scan_no_init(
    const Block& block, const T& v, Op op, ::tilekit::scan_storage<T, ::tilekit::detail::static_threads<Block>(), A>& storage) {
  const auto p = scan_parts(block, v, op, storage);
  return {p.has_exclusive ? p.exclusive : v, p.aggregate};
}

/// Exclusive scan of K items per thread without an initial value; returns the block
/// aggregate. Thread 0's first output is its first input (CUB: undefined). in == out allowed.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, ::tilekit::block_scan_algorithm A>
TILEKIT_HD T exclusive_scan_no_init(const Block& block, const T (&in)[K], T (&out)[K], Op op,
                                    ::tilekit::scan_storage<T, ::tilekit::detail::static_threads<Block>(), A>& storage) {
  const auto p = scan_parts(block, ::tilekit::detail::thread_reduce(in, op), op, storage);
  if (p.has_exclusive) {
    ::tilekit::detail::thread_exclusive_scan(in, out, op, p.exclusive);
  } else {  // thread 0: item k gets op over its own items before k
    const T first = in[0];
    T running = first;
    TILEKIT_UNROLL
    for (int k = 1; k < K; ++k) {
      const T x = in[k];
      out[k] = running;
      running = T(op(running, x));
    }
    out[0] = first;
  }
  return p.aggregate;
}

/// Inclusive scan of K items per thread seeded with init; returns the block aggregate
/// (init not in it). in == out allowed.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, ::tilekit::block_scan_algorithm A>
TILEKIT_HD T inclusive_scan_init(const Block& block, const T (&in)[K], T (&out)[K], Op op, const T& init,
                                 ::tilekit::scan_storage<T, ::tilekit::detail::static_threads<Block>(), A>& storage) {
  const auto p = scan_parts(block, ::tilekit::detail::thread_reduce(in, op), op, storage);
  const T seed = p.has_exclusive ? T(op(init, p.exclusive)) : init;
  ::tilekit::detail::thread_inclusive_scan(in, out, op, seed, true);
  return p.aggregate;
}

// ---- logical warps of any size W: thread ranks [i * W, (i + 1) * W) of the block, which
// may span two hardware warps when W is not a power of two. The lanes meet in the logical
// warp's W slots of shared memory (values, and flags for the segmented forms) between two
// block barriers, so every thread of the block calls. Every lane gets the result.

/// op over the first valid_items lanes of the calling thread's logical warp. @pre valid_items >= 1.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned W, class Block, class T, class Op>
TILEKIT_HD T smem_warp_reduce(const Block& block, const T& x, Op op, int valid_items, T* values) {
  const unsigned lane = block.thread_rank() % W;
  values[lane] = x;
  block.sync();
  const unsigned count = valid_items < int(W) ? unsigned(valid_items) : W;
  T r = values[0];
  for (unsigned i = 1; i < count; ++i) r = T(op(r, values[i]));
  block.sync();  // the slots may be written again
  return r;
}

/// op over the calling lane's segment of its logical warp: segments start at lanes whose
/// flag is set (Tail false: head flags; lane 0 always starts one) or after lanes whose flag
/// is set (Tail: tail flags; the last lane always ends one).
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned W, bool Tail, class Block, class T, class Op>
TILEKIT_HD T smem_warp_segmented_reduce(const Block& block, const T& x, bool flag, Op op, T* values,
                                        unsigned char* flags) {
  const unsigned lane = block.thread_rank() % W;
  values[lane] = x;
  flags[lane] = flag;
  block.sync();
  unsigned first = lane, last = lane;  // the segment: lanes first .. last
  if (Tail) {
    while (first > 0 && !flags[first - 1]) --first;
    while (last + 1 < W && !flags[last]) ++last;
  } else {
    while (first > 0 && !flags[first]) --first;
    while (last + 1 < W && !flags[last + 1]) ++last;
  }
  T r = values[first];
  for (unsigned i = first + 1; i <= last; ++i) r = T(op(r, values[i]));
  block.sync();
  return r;
}

/// A lane's scans over its logical warp: inclusive, exclusive (lane 0: its own input, where
/// CUB leaves it undefined) and the warp's aggregate, all in lane order.
template <class T>
struct warp_scanned {
  T inclusive;
  T exclusive;
  T aggregate;
  unsigned lane;
};

/// The scans of the calling lane's logical warp of W lanes (see smem_warp_reduce).
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned W, class Block, class T, class Op>
TILEKIT_HD warp_scanned<T> smem_warp_scan(const Block& block, const T& x, Op op, T* values) {
  const unsigned lane = block.thread_rank() % W;
  values[lane] = x;
  block.sync();
  T run = values[0], exclusive = x;
  for (unsigned i = 1; i <= lane; ++i) {
    exclusive = run;
    run = T(op(run, values[i]));
  }
  T aggregate = run;
  for (unsigned i = lane + 1; i < W; ++i) aggregate = T(op(aggregate, values[i]));
  block.sync();
  return {run, exclusive, aggregate, lane};
}

/// Lane src_lane's x in every lane of the calling logical warp of W lanes. @pre src_lane < W.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned W, class Block, class T>
TILEKIT_HD T smem_warp_broadcast(const Block& block, const T& x, unsigned src_lane, T* values) {
  values[block.thread_rank() % W] = x;
  block.sync();
  const T r = values[src_lane];
  block.sync();
  return r;
}

}  // namespace tilekit::cub::detail
