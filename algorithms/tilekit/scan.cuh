// tilekit/scan.cuh - prefix scans: lane i gets op over the values of lanes 0..i
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
//
// Block level (block<Threads>, any Threads 1..1024; storage: scan_storage<T, Threads[, variant]>):
//   inclusive_scan(block, v, op, storage)            exclusive_scan(block, v, op, init, storage)
//   exclusive_scan(block, v, op, storage)            (init = identity(op))
//   inclusive_scan_aggregate / exclusive_scan_aggregate   {value, block aggregate}
//   inclusive_scan(block, in[K], out[K], op, storage[, valid_items])        -> block aggregate
//   exclusive_scan(block, in[K], out[K], op, init, storage[, valid_items])  -> block aggregate
//   inclusive_scan_prefix / exclusive_scan_prefix(block, in[K], out[K], op, storage, prefix_op)
//       prefix_op(block_aggregate) is called by the threads of the first warp; what
//       thread 0's call returns seeds the whole block (CUB's BlockPrefixCallbackOp):
//       the running prefix that chaining tiles or blocks needs.
// The variant (block_scan_algorithm::raking or warp_scans, below) is a parameter
// of the storage type. With valid_items, items at or past it do not count; their
// outputs hold the scan of the valid items before them. Call block.sync() before
// reusing storage.
#pragma once
#include <tilekit/detail/block_shape.hpp>
#include <tilekit/detail/grid_io.hpp>
#include <tilekit/group_traits.hpp>
#include <tilekit/reduce.cuh>
#include <tilekit/operators.hpp>

namespace tilekit {

/// A scanned value and the aggregate of the whole group.
template <class T>
struct scanned {
  T value;
  T aggregate;
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

// ---------------------------------------------------------------- block level

/// The block scan variants (the storage type picks one; measured on the H200 in
/// perf/block_bench.cu, int32 and float, 128 x 15 and 256 x 8 items):
///   raking      every thread puts its total in shared memory; after a barrier the
///               first warp folds consecutive segments of them, scans the segment
///               totals as a tile<32>, writes each thread's prefix back; a second
///               barrier hands them out. One warp works between the barriers, so the
///               block issues the fewest instructions; the prefix callback runs in
///               that warp at no extra barrier. Storage: Threads + Threads/32 + 1 slots.
///   warp_scans  every whole warp scans as a tile<32>; after one barrier each thread
///               folds the warp totals before its own. One barrier, but every warp
///               shuffles and folds; storage: one slot per warp. The prefix callback
///               costs a second barrier.
/// Blocks of fewer than 32 threads always scan as warp_scans (no whole warp to rake with).
enum class block_scan_algorithm { raking, warp_scans };

/// Default: raking, which measured ahead at every benchmarked shape (see above).
inline constexpr block_scan_algorithm default_block_scan_algorithm = block_scan_algorithm::raking;

namespace detail {
// Raking layout: thread i's slot is padded(i), one pad slot per 32 so that lanes
// raking consecutive segments hit distinct banks; then the aggregate slot.
template <unsigned Threads>
struct raking_layout {
  static constexpr unsigned segment = (Threads + 31) / 32;  // thread totals per raking lane
  static constexpr unsigned lanes = (Threads + segment - 1) / segment;  // lanes with a non-empty segment
  static constexpr TILEKIT_HD unsigned padded(unsigned i) { return i + i / 32; }
  static constexpr unsigned aggregate_slot = (Threads - 1) + (Threads - 1) / 32 + 1;
  static constexpr unsigned slots = aggregate_slot + 1;
};

template <unsigned Threads, block_scan_algorithm A>
inline constexpr bool rakes_v = A == block_scan_algorithm::raking && Threads >= 32;

template <unsigned Threads, block_scan_algorithm A>
inline constexpr unsigned scan_slots_v =
    rakes_v<Threads, A> ? raking_layout<Threads>::slots
                        : block_shape<Threads>::full_warps + block_shape<Threads>::rest + 1;  // + callback prefix
}  // namespace detail

/// Shared storage of a block scan of T over Threads threads with variant A.
template <class T, unsigned Threads, block_scan_algorithm A = default_block_scan_algorithm>
struct scan_storage {
  static constexpr unsigned slots = detail::scan_slots_v<Threads, A>;
  union {
    detail::raw_slots<T, slots> full;
    detail::raw_slots<detail::maybe<T>, slots> partial;  // valid_items forms
  };
};

namespace detail {

// What one thread knows after the block-wide part of a scan of one value per thread.
template <class T>
struct block_scan_parts {
  T inclusive;       // op over threads 0..rank (and the callback prefix, if any)
  T exclusive;       // op over threads 0..rank-1 (meaningless when !has_exclusive)
  bool has_exclusive;
  T aggregate;       // op over every thread (never includes the callback prefix)
};

template <class T>
struct no_prefix {};

// warp_scans: whole warps scan as tile<32>, the lanes of a partial last warp through shared memory.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op, class Slots>
TILEKIT_HD block_scan_parts<T> block_scan_warps(const Block& block, const T& v, Op op, Slots& slots) {
  using shape = block_shape<Threads>;
  constexpr unsigned count = shape::full_warps + shape::rest;
  const unsigned rank = block.thread_rank(), warp = rank / 32, lane = rank % 32;
  T local_inclusive = v, local_exclusive = v;
  bool has_local = lane > 0;
  if (shape::rest == 0 || below(warp, shape::full_warps)) {
    auto tile = tilekit::tiled_partition<32>(block);
    local_inclusive = tilekit::inclusive_scan(tile, v, op);
    local_exclusive = tile.shfl_up(local_inclusive, 1);
    if (lane == 31) slots[warp] = local_inclusive;
  } else {
    slots[shape::full_warps + lane] = v;
  }
  if constexpr (Threads == 32) return {local_inclusive, local_exclusive, has_local, tilekit::tiled_partition<32>(block).shfl(local_inclusive, 31)};
  block.sync();
  const unsigned group = below(warp, shape::full_warps) ? warp : shape::full_warps;  // slots before this thread's group
  if (shape::rest != 0 && !below(warp, shape::full_warps) && lane > 0) {
    local_exclusive = slots[shape::full_warps];
    for (unsigned j = 1; j < lane; ++j) local_exclusive = op(local_exclusive, slots[shape::full_warps + j]);
    local_inclusive = op(local_exclusive, v);
  }
  // One pass over the slots: the prefix before this thread's group, and the aggregate.
  T running = slots[0], prefix = slots[0];
  TILEKIT_UNROLL
  for (unsigned i = 1; i < count; ++i) {
    if (i == group) prefix = running;
    running = op(running, slots[i]);
  }
  if (group >= count) prefix = running;
  const bool has_prefix = group > 0;
  block_scan_parts<T> p{local_inclusive, local_exclusive, has_local || has_prefix, running};
  if (has_prefix) {
    p.inclusive = op(prefix, local_inclusive);
    p.exclusive = has_local ? op(prefix, local_exclusive) : prefix;
  }
  return p;
}

// raking (see block_scan_algorithm). @pre Threads >= 32. With a prefix_op, the
// first warp calls it with the aggregate and lane 0's return seeds every thread.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op, class Slots, class PrefixOp>
TILEKIT_HD block_scan_parts<T> block_scan_raking(const Block& block, const T& v, Op op, Slots& slots,
                                                 PrefixOp* prefix_op) {
  using layout = raking_layout<Threads>;
  constexpr bool prefixed = !stdx::is_same<PrefixOp, no_prefix<T>>::value;
  const unsigned rank = block.thread_rank();
  slots[layout::padded(rank)] = v;
  block.sync();
  if (rank < 32) {
    auto warp = tilekit::tiled_partition<32>(block);
    constexpr bool exact = Threads % 32 == 0;  // 32 full segments: no bounds to check
    const unsigned first = rank * layout::segment;
    // Lanes past the last segment fold their own value (no shared read racing lane 0's
    // write-back): their results are never used.
    T total = exact || first < Threads ? T(slots[layout::padded(first)]) : v;
    TILEKIT_UNROLL
    for (unsigned j = 1; j < layout::segment; ++j)
      if (exact || first + j < Threads) total = op(total, slots[layout::padded(first + j)]);
    const T inclusive = tilekit::inclusive_scan(warp, total, op);
    const T lower = warp.shfl_up(inclusive, 1);
    const T aggregate = warp.shfl(inclusive, layout::lanes - 1);
    T running = lower;  // lane 0 without a callback: its own total, written to thread 0's slot and never used
    bool seeded = rank > 0;
    if constexpr (prefixed) {
      const T seed = warp.shfl((*prefix_op)(aggregate), 0);
      running = seeded ? op(seed, lower) : seed;
      seeded = true;
    }
    TILEKIT_UNROLL
    for (unsigned j = 0; j < layout::segment; ++j) {
      const unsigned i = first + j;
      if (exact || i < Threads) {
        const T x = slots[layout::padded(i)];
        slots[layout::padded(i)] = running;
        running = j > 0 || seeded ? op(running, x) : x;
      }
    }
    if (rank == 0) slots[layout::aggregate_slot] = aggregate;
  }
  block.sync();
  const bool has_exclusive = prefixed || rank > 0;
  const T exclusive = slots[layout::padded(rank)];
  return {has_exclusive ? op(exclusive, v) : v, exclusive, has_exclusive, slots[layout::aggregate_slot]};
}

// The block part with variant A, plus an optional callback prefix.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, block_scan_algorithm A, class Block, class T, class Op, class Slots, class PrefixOp>
TILEKIT_HD block_scan_parts<T> block_scan(const Block& block, const T& v, Op op, Slots& slots, PrefixOp* prefix_op) {
  if constexpr (rakes_v<Threads, A>) {
    return block_scan_raking<Threads>(block, v, op, slots, prefix_op);
  } else if constexpr (stdx::is_same<PrefixOp, no_prefix<T>>::value) {
    return block_scan_warps<Threads>(block, v, op, slots);
  } else {
    // thread 0's return of prefix_op(aggregate), shared through the slot after the warp slots
    block_scan_parts<T> p = block_scan_warps<Threads>(block, v, op, slots);
    constexpr unsigned prefix_slot = block_shape<Threads>::full_warps + block_shape<Threads>::rest;
    if (block.thread_rank() < 32) {
      const T seed = (*prefix_op)(p.aggregate);
      if (block.thread_rank() == 0) slots[prefix_slot] = seed;
    }
    block.sync();
    const T seed = slots[prefix_slot];
    p.inclusive = op(seed, p.inclusive);
    p.exclusive = p.has_exclusive ? op(seed, p.exclusive) : seed;
    p.has_exclusive = true;
    return p;
  }
}

// Array scans: thread totals through the block part, then each thread's items.
TILEKIT_EXEC_CHECK_DISABLE
template <bool Inclusive, unsigned Threads, block_scan_algorithm A, class Block, class T, int K, class Op, class Slots,
          class PrefixOp>
TILEKIT_HD T block_scan_items(const Block& block, const T (&in)[K], T (&out)[K], Op op, Slots& slots,
                              const T* init, PrefixOp* prefix_op) {
  const block_scan_parts<T> p = block_scan<Threads, A>(block, thread_reduce(in, op), op, slots, prefix_op);
  if constexpr (Inclusive) {
    thread_inclusive_scan(in, out, op, p.exclusive, p.has_exclusive);
  } else {
    // exclusive: seeded by init (or the callback prefix, already in p)
    const T seed = init ? (p.has_exclusive ? op(*init, p.exclusive) : *init) : p.exclusive;
    thread_exclusive_scan(in, out, op, seed);
  }
  return p.aggregate;
}

// valid_items forms: items become maybe<T>, absent past valid_items.
TILEKIT_EXEC_CHECK_DISABLE
template <bool Inclusive, unsigned Threads, block_scan_algorithm A, class Block, class T, int K, class Op, class Slots>
TILEKIT_HD T block_scan_valid(const Block& block, const T (&in)[K], T (&out)[K], Op op, Slots& slots, const T* init,
                              unsigned valid_items) {
  const unsigned n = items_valid(block.thread_rank(), K, valid_items);
  maybe<T> items[K] = {};
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) items[k] = {in[k], unsigned(k) < n};
  const maybe<T> seed{init ? *init : in[0], init != nullptr};
  no_prefix<maybe<T>>* none = nullptr;
  const maybe<T> aggregate = block_scan_items<Inclusive, Threads, A>(block, items, items, maybe_op<Op>{op}, slots,
                                                                  init ? &seed : static_cast<const maybe<T>*>(nullptr), none);
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) out[k] = items[k].value;
  return aggregate.value;
}

}  // namespace detail

#define TILEKIT_BLOCK_ONLY detail::stdx::enable_if_t<is_block_v<Block>, int> = 0
#define TILEKIT_BLOCK_SCALAR \
  detail::stdx::enable_if_t<is_block_v<Block> && detail::stdx::is_invocable<Op&, const T&, const T&>::value, int> = 0
#define TILEKIT_SCAN_STORAGE scan_storage<T, detail::static_threads<Block>(), A>

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, block_scan_algorithm A, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD T inclusive_scan(const Block& block, const T& v, Op op, TILEKIT_SCAN_STORAGE& storage) {
  return detail::block_scan<Block::static_size, A>(block, v, op, storage.full, static_cast<detail::no_prefix<T>*>(nullptr)).inclusive;
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, block_scan_algorithm A, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD scanned<T> inclusive_scan_aggregate(const Block& block, const T& v, Op op, TILEKIT_SCAN_STORAGE& storage) {
  const auto p = detail::block_scan<Block::static_size, A>(block, v, op, storage.full, static_cast<detail::no_prefix<T>*>(nullptr));
  return {p.inclusive, p.aggregate};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, block_scan_algorithm A, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD scanned<T> exclusive_scan_aggregate(const Block& block, const T& v, Op op, const T& init,
                                               TILEKIT_SCAN_STORAGE& storage) {
  const auto p = detail::block_scan<Block::static_size, A>(block, v, op, storage.full, static_cast<detail::no_prefix<T>*>(nullptr));
  return {p.has_exclusive ? op(init, p.exclusive) : init, p.aggregate};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, block_scan_algorithm A, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD T exclusive_scan(const Block& block, const T& v, Op op, const T& init, TILEKIT_SCAN_STORAGE& storage) {
  return exclusive_scan_aggregate(block, v, op, init, storage).value;
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, block_scan_algorithm A, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD T exclusive_scan(const Block& block, const T& v, Op op, TILEKIT_SCAN_STORAGE& storage) {
  static_assert(has_identity_v<T, Op>,
                "tilekit::exclusive_scan: this operator has no known identity; pass an init value");
  const auto p = detail::block_scan<Block::static_size, A>(block, v, op, storage.full, static_cast<detail::no_prefix<T>*>(nullptr));
  return p.has_exclusive ? p.exclusive : identity<T>(op);
}

/// Inclusive scan of K items per thread; returns the block aggregate.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, block_scan_algorithm A, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T inclusive_scan(const Block& block, const T (&in)[K], T (&out)[K], Op op, TILEKIT_SCAN_STORAGE& storage) {
  detail::no_prefix<T>* none = nullptr;
  return detail::block_scan_items<true, Block::static_size, A>(block, in, out, op, storage.full, static_cast<const T*>(nullptr), none);
}

/// Exclusive scan of K items per thread seeded with init; returns the block aggregate (init not included).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, block_scan_algorithm A, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T exclusive_scan(const Block& block, const T (&in)[K], T (&out)[K], Op op, const T& init,
                            TILEKIT_SCAN_STORAGE& storage) {
  detail::no_prefix<T>* none = nullptr;
  return detail::block_scan_items<false, Block::static_size, A>(block, in, out, op, storage.full, &init, none);
}

/// Partial tile: only the first valid_items items of the block count. @pre 1 <= valid_items.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, block_scan_algorithm A, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T inclusive_scan(const Block& block, const T (&in)[K], T (&out)[K], Op op, TILEKIT_SCAN_STORAGE& storage,
                            unsigned valid_items) {
  return detail::block_scan_valid<true, Block::static_size, A>(block, in, out, op, storage.partial, static_cast<const T*>(nullptr), valid_items);
}

/// Partial tile: only the first valid_items items of the block count.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, block_scan_algorithm A, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T exclusive_scan(const Block& block, const T (&in)[K], T (&out)[K], Op op, const T& init,
                            TILEKIT_SCAN_STORAGE& storage, unsigned valid_items) {
  return detail::block_scan_valid<false, Block::static_size, A>(block, in, out, op, storage.partial, &init, valid_items);
}

/// Inclusive scan seeded by prefix_op(block aggregate) (see above); returns the block aggregate.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, class PrefixOp, block_scan_algorithm A, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T inclusive_scan_prefix(const Block& block, const T (&in)[K], T (&out)[K], Op op,
                                   TILEKIT_SCAN_STORAGE& storage, PrefixOp& prefix_op) {
  return detail::block_scan_items<true, Block::static_size, A>(block, in, out, op, storage.full, static_cast<const T*>(nullptr), &prefix_op);
}

/// Exclusive scan seeded by prefix_op(block aggregate); returns the block aggregate.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, class PrefixOp, block_scan_algorithm A, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T exclusive_scan_prefix(const Block& block, const T (&in)[K], T (&out)[K], Op op,
                                   TILEKIT_SCAN_STORAGE& storage, PrefixOp& prefix_op) {
  return detail::block_scan_items<false, Block::static_size, A>(block, in, out, op, storage.full, static_cast<const T*>(nullptr), &prefix_op);
}

#undef TILEKIT_BLOCK_ONLY
#undef TILEKIT_BLOCK_SCALAR
#undef TILEKIT_SCAN_STORAGE
#undef TILEKIT_TILE_ONLY
#undef TILEKIT_TILE_SCALAR

// ---------------------------------------------------------------- grid level
//
// device_scan<Inclusive>(launcher, temp, temp_bytes, in, n, out, op, init, has_init):
// out[i] = [init op] in[0] op .. op in[i] (inclusive) or [init op] in[0] .. in[i-1]
// (exclusive; init required) in ONE pass: one tile per block, chained by
// decoupled look-back. Each tile publishes its aggregate as soon as it has it,
// then its inclusive prefix; the first warp of the next tiles walks back over
// those, 32 tiles at a time, to the nearest inclusive prefix. op need only be
// associative (values meet in index order). in == out is allowed. Tile states
// start zeroed (a memset before the launch). The entry points are
// tilekit::device::inclusive_scan / exclusive_scan (GPU) and this function with
// a tilekit::sim::launcher (simulator).

/// Tuning of the device-wide scan, measured on the H200 (perf/device_bench.cu).
struct scan_tuning {
  static constexpr unsigned threads = 128;
  static constexpr unsigned vectors = 6;       // 16-byte loads per thread (H200: 6 over 4, +15% at 2^22-2^28)
  static constexpr unsigned scalar_items = 8;  // items per thread for other inputs
};

namespace detail {

template <class In, class T>
struct scan_shape {
  static constexpr unsigned vec = vector_items<In>();
  static constexpr unsigned items = vector_loadable_v<In> ? scan_tuning::vectors * vec : scan_tuning::scalar_items;
  static constexpr count_t tile = count_t(scan_tuning::threads) * items;
};

// The published state of the tiles: a flag (0 nothing yet, 1 aggregate, 2
// inclusive prefix) and a value per tile.
//   Values of up to 4 bytes share one 64-bit word with their flag: one relaxed
//   store publishes both, one relaxed load reads both; no fence anywhere.
//   8-byte values: the flag and the value in one 16-byte word, published by one
//   16-byte store and polled by one 16-byte load (see store_relaxed_pair).
//   Larger values: a flag word and the values as 32-bit words, written before the
//   flag is released and read after its acquire (an acquire also empties the L1,
//   so this path costs more).
// wait(tile, v) spins until the tile has published, sets v and returns the flag.
enum class state_layout { packed, pair, fenced };
template <class T>
constexpr state_layout state_layout_of() {
  return sizeof(T) <= 4 ? state_layout::packed : sizeof(T) == 8 ? state_layout::pair : state_layout::fenced;
}
template <class T, state_layout Layout = state_layout_of<T>()>
struct tile_states {
  static constexpr std::size_t flag_words = 0;   // 32-bit words of temp storage per tile: flags
  static constexpr std::size_t value_words = 2;  // and values (here one 64-bit word, flag included)
  unsigned* flags;
  unsigned* values;  // as unsigned long long, one per tile

  template <class Be>
  TILEKIT_HD void publish(count_t tile, unsigned flag, const T& v) const {
    unsigned bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    Be::store_relaxed(word(tile), (static_cast<unsigned long long>(flag) << 32) | bits);
  }
  template <class Be>
  TILEKIT_HD unsigned wait(count_t tile, T& v) const {
    unsigned long long w;
    while (((w = Be::load_relaxed(word(tile))) >> 32) == 0) {
    }
    const unsigned bits = static_cast<unsigned>(w);
    std::memcpy(static_cast<void*>(&v), &bits, sizeof(T));
    return static_cast<unsigned>(w >> 32);
  }
  TILEKIT_HD unsigned long long* word(count_t tile) const { return reinterpret_cast<unsigned long long*>(values) + tile; }
};

template <class T>
struct tile_states<T, state_layout::pair> {
  static constexpr std::size_t flag_words = 0;
  static constexpr std::size_t value_words = 4;  // one 16-byte word: the flag, then the value
  unsigned* flags;
  unsigned* values;  // as pairs of unsigned long long, one pair per tile (16-byte aligned)

  template <class Be>
  TILEKIT_HD void publish(count_t tile, unsigned flag, const T& v) const {
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    Be::store_relaxed_pair(word(tile), flag, bits);
  }
  template <class Be>
  TILEKIT_HD unsigned wait(count_t tile, T& v) const {
    unsigned long long flag = 0, bits = 0;
    do {
      Be::load_relaxed_pair(word(tile), flag, bits);
    } while (flag == 0);
    std::memcpy(static_cast<void*>(&v), &bits, sizeof(T));
    return static_cast<unsigned>(flag);
  }
  TILEKIT_HD unsigned long long* word(count_t tile) const { return reinterpret_cast<unsigned long long*>(values) + 2 * tile; }
};

template <class T>
struct tile_states<T, state_layout::fenced> {
  static constexpr std::size_t flag_words = 1;
  static constexpr std::size_t words = (sizeof(T) + 3) / 4;
  static constexpr std::size_t value_words = 2 * words;  // aggregate, inclusive
  unsigned* flags;
  unsigned* values;

  template <class Be>
  TILEKIT_HD void publish(count_t tile, unsigned flag, const T& v) const {
    unsigned w[words] = {};
    std::memcpy(w, &v, sizeof(T));
    unsigned* dst = values + (2 * tile + (flag - 1)) * words;
    for (unsigned i = 0; i < words; ++i) dst[i] = w[i];
    Be::store_release(flags + tile, flag);
  }
  template <class Be>
  TILEKIT_HD unsigned wait(count_t tile, T& v) const {
    unsigned flag;
    while ((flag = Be::load_acquire(flags + tile)) == 0) {
    }
    unsigned w[words];
    const unsigned* src = values + (2 * tile + (flag - 1)) * words;
    for (unsigned i = 0; i < words; ++i) w[i] = Be::load_relaxed(src + i);  // bypasses L1: never stale
    std::memcpy(static_cast<void*>(&v), w, sizeof(T));
    return flag;
  }
};

// Tile states of values that pack into 62 bits (Codec::bits(v) below 2^62, and
// Codec::value(bits) back): the flag in the top two bits of one 64-bit word, so a
// value is published and polled as a packed small value is, with single relaxed
// accesses and no fence.
template <class T, class Codec>
struct packed62_states {
  static constexpr std::size_t flag_words = 0;
  static constexpr std::size_t value_words = 2;
  static constexpr unsigned long long value_mask = (1ull << 62) - 1;
  unsigned* flags;
  unsigned* values;  // as unsigned long long, one per tile

  template <class Be>
  TILEKIT_HD void publish(count_t tile, unsigned flag, const T& v) const {
    Be::store_relaxed(word(tile), (static_cast<unsigned long long>(flag) << 62) | Codec::bits(v));
  }
  template <class Be>
  TILEKIT_HD unsigned wait(count_t tile, T& v) const {
    unsigned long long w;
    while (((w = Be::load_relaxed(word(tile))) >> 62) == 0) {
    }
    v = Codec::value(w & value_mask);
    return static_cast<unsigned>(w >> 62);
  }
  TILEKIT_HD unsigned long long* word(count_t tile) const { return reinterpret_cast<unsigned long long*>(values) + tile; }
};

// Item counts (non-negative, below 2^62) as they are.
struct count_codec {
  TILEKIT_HD static unsigned long long bits(count_t v) { return static_cast<unsigned long long>(v); }
  TILEKIT_HD static count_t value(unsigned long long bits) { return static_cast<count_t>(bits); }
};
using count_states = packed62_states<count_t, count_codec>;

// The tile states of `tiles` tiles carved from temporary storage (a null temp:
// only the bytes needed), and the words that must start at zero ("nothing
// published yet") before the launch: what every look-back dispatch shares.
template <class States>
struct tile_state_storage {
  States states;
  unsigned* zero_from;
  std::size_t zero_bytes;
  std::size_t bytes;
};
template <class T, class States = tile_states<T>>
TILEKIT_HD tile_state_storage<States> carve_tile_states(void* temp, count_t tiles) {
  using states_t = States;
  temp_carver carve(temp);
  unsigned* flags = carve.take<unsigned>(std::size_t(tiles) * states_t::flag_words);
  unsigned* values = carve.take<unsigned>(std::size_t(tiles) * states_t::value_words);
  const bool packed = states_t::flag_words == 0;  // the flags live in the value words
  return {states_t{flags, values}, packed ? values : flags,
          std::size_t(tiles) * (packed ? states_t::value_words : states_t::flag_words) * sizeof(unsigned), carve.bytes()};
}

// The block scan's prefix callback for tile `tile` (called by the first warp):
// publishes the aggregate, looks back, publishes the inclusive prefix and
// returns the seed of this tile ([init op] everything before it).
template <class Block, class T, class Op, class States = tile_states<T>>
struct look_back {
  Block block;  // by value, as everything here: nothing needs an address (no local memory)
  States states;
  count_t tile;
  Op op;
  T init;
  bool has_init;

  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD T operator()(const T& aggregate) const {
    using be = typename Block::backend;
    auto warp = tilekit::tiled_partition<32>(block);
    const unsigned lane = warp.thread_rank();
    if (tile == 0) {
      if (lane == 0) states.template publish<be>(0, 2, aggregate);
      return init;  // @pre tile 0 calls back only with an init
    }
    if (lane == 0) states.template publish<be>(tile, 1, aggregate);
    T prefix = aggregate;  // placeholder until the first window
    bool have = false;
    for (count_t end = tile;; end -= 32) {
      const count_t j = end - 32 + count_t(lane);  // lane 31: the nearest tile
      T value = aggregate;
      const unsigned flag = j >= 0 ? states.template wait<be>(j, value) : 0u;
      const unsigned inclusive_lanes = warp.ballot(flag == 2);
      const unsigned from = inclusive_lanes ? detail::highest_bit(inclusive_lanes) : 0u;
      const maybe<T> mine{value, j >= 0 && lane >= from};
      const maybe<T> window = tilekit::reduce_butterfly(warp, mine, maybe_op<Op>{op});
      if (window.present) {
        prefix = have ? op(window.value, prefix) : window.value;
        have = true;
      }
      if (inclusive_lanes) break;  // tile 0 always publishes an inclusive prefix
    }
    if (lane == 0) states.template publish<be>(tile, 2, op(prefix, aggregate));
    return has_init ? op(init, prefix) : prefix;
  }
};

template <bool Inclusive, class In, class Out, class T, class Op>
struct scan_grid_body {
  using shape = scan_shape<In, T>;
  static constexpr unsigned Threads = scan_tuning::threads, K = shape::items;
  // The scan's storage, then per warp the tile's items for the striped store
  // (one pad slot per 32: conflict-free both ways).
  static constexpr unsigned warp_slots = 32 * K + K;
  struct shared_t {
    scan_storage<T, Threads> scan;
    raw_slots<T, (Threads / 32) * warp_slots> transpose;
  };
  In in;
  Out out;
  count_t n;
  Op op;
  T init;
  bool has_init;
  bool vector_in;  // in is 16-byte aligned: full tiles load vectors
  tile_states<T> states;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    shared_t& shared = ctx.template shared<shared_t>();
    auto& storage = shared.scan;
    const count_t tile = count_t(ctx.grid().block_rank());
    const count_t base = tile * shape::tile, first = base + count_t(block.thread_rank()) * K;
    const bool full = n - base >= shape::tile;
    T items[K] = {};
    if constexpr (vector_loadable_v<In>) {
      if (full && vector_in) {
        // Striped 16-byte loads (each warp instruction reads 512 consecutive bytes),
        // then blocked through the warp's part of the transpose buffer.
        using V = value_of<In>;
        auto warp = tilekit::tiled_partition<32>(block);
        const unsigned lane = warp.thread_rank(), w = block.thread_rank() / 32;
        const count_t warp_base = base + count_t(w) * 32 * K;
        auto slot = [&](unsigned i) -> T& { return shared.transpose[w * warp_slots + i + i / 32]; };
        TILEKIT_UNROLL
        for (unsigned j = 0; j < K / shape::vec; ++j) {
          const unsigned at = (j * 32 + lane) * shape::vec;
          const vector_of<V, shape::vec> v = load_vector<V, shape::vec>(in + warp_base + at);
          TILEKIT_UNROLL
          for (unsigned i = 0; i < shape::vec; ++i) slot(at + i) = T(v.item[i]);
        }
        warp.sync();
        TILEKIT_UNROLL
        for (unsigned k = 0; k < K; ++k) items[k] = slot(lane * K + k);
      } else {
        load_items(items, first, base);
      }
    } else {
      load_items(items, first, base);
    }
    look_back<decltype(block), T, Op> prefix{block, states, tile, op, init, has_init};
    if (tile == 0 && !has_init) {
      const T aggregate = tilekit::inclusive_scan(block, items, items, op, storage);
      if (block.thread_rank() == 0) states.template publish<typename decltype(block)::backend>(0, 2, aggregate);
    } else if constexpr (Inclusive) {
      tilekit::inclusive_scan_prefix(block, items, items, op, storage, prefix);
    } else {
      tilekit::exclusive_scan_prefix(block, items, items, op, storage, prefix);
    }
    // Blocked to striped through shared memory, so each store instruction of a warp
    // writes 32 consecutive items (blocked stores would touch 32 sectors each).
    auto warp = tilekit::tiled_partition<32>(block);
    const unsigned lane = warp.thread_rank(), w = block.thread_rank() / 32;
    auto pad = [](unsigned i) { return i + i / 32; };
    TILEKIT_UNROLL
    for (unsigned k = 0; k < K; ++k) shared.transpose[w * warp_slots + pad(lane * K + k)] = items[k];
    warp.sync();
    const count_t warp_base = base + count_t(w) * 32 * K;
    TILEKIT_UNROLL
    for (unsigned j = 0; j < K; ++j) {
      const count_t i = warp_base + j * 32 + lane;
      if (full || i < n) out[i] = shared.transpose[w * warp_slots + pad(j * 32 + lane)];
    }
  }

  // Items past n copy the tile's first: only the last tile's aggregate sees them, and no tile reads that.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void load_items(T (&items)[K], count_t first, count_t base) const {
    TILEKIT_UNROLL
    for (unsigned k = 0; k < K; ++k) items[k] = T(in[first + k < n ? first + k : base]);
  }
};

}  // namespace detail

/// The device-wide scan's dispatch, for any launcher (tilekit::gpu_launcher,
/// tilekit::sim::launcher). With temp == nullptr it only sets temp_bytes. Returns
/// launcher.invalid_value, writing nothing, for n < 0, a null input or output
/// with n > 0, an exclusive scan without init, temp_bytes too small, or more
/// than 2^31 - 1 tiles (one per block: about 4 * 10^12 int items).
template <bool Inclusive, class Launcher, class In, class Out, class T, class Op>
typename Launcher::error_type device_scan(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                          detail::count_t n, Out out, Op op, T init, bool has_init) {
  using body_t = detail::scan_grid_body<Inclusive, In, Out, T, Op>;
  using shape = typename body_t::shape;
  const detail::count_t tiles = n > 0 ? (n + shape::tile - 1) / shape::tile : 0;
  const auto storage = detail::carve_tile_states<T>(temp, tiles);
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (n < 0 || temp_bytes < storage.bytes || (!Inclusive && !has_init)) return launcher.invalid_value;
  if (n == 0) return launcher.success;
  if (detail::is_null(in) || detail::is_null(out)) return launcher.invalid_value;
  if (tiles > 0x7fffffff) return launcher.invalid_value;  // one tile per block: gridDim.x's limit
  if (auto e = launcher.zero(storage.zero_from, storage.zero_bytes); e != launcher.success) return e;
  const bool vector_in = detail::vector_loadable_v<In> && detail::misaligned_head(in, shape::tile) == 0;
  return launcher.run(unsigned(tiles), body_t::Threads,
                      body_t{in, out, n, op, init, has_init, vector_in, storage.states},
                      sizeof(typename body_t::shared_t));
}

}  // namespace tilekit
