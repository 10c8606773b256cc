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
// Block level (block<Threads>, any Threads 1..1024; storage: scan_storage<T, Threads>):
//   inclusive_scan(block, v, op, storage)            exclusive_scan(block, v, op, init, storage)
//   exclusive_scan(block, v, op, storage)            (init = identity(op))
//   inclusive_scan_aggregate / exclusive_scan_aggregate   {value, block aggregate}
//   inclusive_scan(block, in[K], out[K], op, storage[, valid_items])        -> block aggregate
//   exclusive_scan(block, in[K], out[K], op, init, storage[, valid_items])  -> block aggregate
//   inclusive_scan_prefix / exclusive_scan_prefix(block, in[K], out[K], op, storage, prefix_op)
//       prefix_op(block_aggregate) is called by the threads of the first warp; what
//       thread 0's call returns seeds the whole block (CUB's BlockPrefixCallbackOp):
//       the running prefix that chaining tiles or blocks needs.
// Whole warps scan as tile<32>, the lanes of a partial last warp through shared
// memory; after one barrier each thread folds the warp totals before its own.
// With valid_items, items at or past it do not count; their outputs hold the
// scan of the valid items before them. Call block.sync() before reusing storage.
#pragma once
#include <tilekit/detail/block_shape.hpp>
#include <tilekit/group_traits.hpp>
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

/// Shared storage of a block scan of T over Threads threads.
template <class T, unsigned Threads>
struct scan_storage {
  static constexpr unsigned slots = detail::block_shape<Threads>::full_warps + detail::block_shape<Threads>::rest;
  union {
    detail::raw_slots<T, slots + 1> full;  // warp totals / partial-warp values, then the callback's prefix
    detail::raw_slots<detail::maybe<T>, slots + 1> partial;
  };
};

namespace detail {

// What one thread knows after the block-wide part of a scan of one value per thread.
template <class T>
struct block_scan_parts {
  T inclusive;       // op over threads 0..rank
  T exclusive;       // op over threads 0..rank-1 (meaningless when !has_exclusive)
  bool has_exclusive;
  T aggregate;       // op over every thread
};

TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op, class Slots>
TILEKIT_HD block_scan_parts<T> block_scan(const Block& block, const T& v, Op op, Slots& slots) {
  using shape = block_shape<Threads>;
  constexpr unsigned count = shape::full_warps + shape::rest;
  const unsigned rank = block.thread_rank(), warp = rank / 32, lane = rank % 32;
  T local_inclusive = v, local_exclusive = v;
  bool has_local = lane > 0;
  if (warp < shape::full_warps) {
    auto tile = tilekit::tiled_partition<32>(block);
    local_inclusive = tilekit::inclusive_scan(tile, v, op);
    local_exclusive = tile.shfl_up(local_inclusive, 1);
    if (lane == 31) slots[warp] = local_inclusive;
  } else {
    slots[shape::full_warps + lane] = v;
  }
  block.sync();
  const unsigned group = warp < shape::full_warps ? warp : shape::full_warps;  // slots before this thread's group
  if (warp >= shape::full_warps && lane > 0) {
    local_exclusive = slots[shape::full_warps];
    for (unsigned j = 1; j < lane; ++j) local_exclusive = op(local_exclusive, slots[shape::full_warps + j]);
    local_inclusive = op(local_exclusive, v);
  }
  // One pass over the slots: the prefix before this thread's group, and the aggregate.
  T running = slots[0], prefix = slots[0];
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

// The block part plus an optional callback prefix (thread 0's return of
// prefix_op(aggregate), shared through the slot after the warp slots).
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op, class Slots, class PrefixOp>
TILEKIT_HD block_scan_parts<T> block_scan_prefixed(const Block& block, const T& v, Op op, Slots& slots,
                                                   PrefixOp& prefix_op) {
  block_scan_parts<T> p = block_scan<Threads>(block, v, op, slots);
  constexpr unsigned prefix_slot = block_shape<Threads>::full_warps + block_shape<Threads>::rest;
  if (block.thread_rank() < 32) {
    const T seed = prefix_op(p.aggregate);
    if (block.thread_rank() == 0) slots[prefix_slot] = seed;
  }
  block.sync();
  const T seed = slots[prefix_slot];
  p.inclusive = op(seed, p.inclusive);
  p.exclusive = p.has_exclusive ? op(seed, p.exclusive) : seed;
  p.has_exclusive = true;
  return p;
}

template <class T>
struct no_prefix {};

TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op, class Slots>
TILEKIT_HD block_scan_parts<T> block_scan_seeded(const Block& block, const T& v, Op op, Slots& slots, no_prefix<T>*) {
  return block_scan<Threads>(block, v, op, slots);
}

TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op, class Slots, class PrefixOp>
TILEKIT_HD block_scan_parts<T> block_scan_seeded(const Block& block, const T& v, Op op, Slots& slots, PrefixOp* prefix_op) {
  return block_scan_prefixed<Threads>(block, v, op, slots, *prefix_op);
}

// Array scans: thread totals through the block part, then each thread's items.
TILEKIT_EXEC_CHECK_DISABLE
template <bool Inclusive, unsigned Threads, class Block, class T, int K, class Op, class Slots, class PrefixOp>
TILEKIT_HD T block_scan_items(const Block& block, const T (&in)[K], T (&out)[K], Op op, Slots& slots,
                              const T* init, PrefixOp* prefix_op) {
  const block_scan_parts<T> p = block_scan_seeded<Threads>(block, thread_reduce(in, op), op, slots, prefix_op);
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
template <bool Inclusive, unsigned Threads, class Block, class T, int K, class Op, class Slots>
TILEKIT_HD T block_scan_valid(const Block& block, const T (&in)[K], T (&out)[K], Op op, Slots& slots, const T* init,
                              unsigned valid_items) {
  const unsigned n = items_valid(block.thread_rank(), K, valid_items);
  maybe<T> items[K] = {};
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) items[k] = {in[k], unsigned(k) < n};
  const maybe<T> seed{init ? *init : in[0], init != nullptr};
  no_prefix<maybe<T>>* none = nullptr;
  const maybe<T> aggregate = block_scan_items<Inclusive, Threads>(block, items, items, maybe_op<Op>{op}, slots,
                                                                  init ? &seed : static_cast<const maybe<T>*>(nullptr), none);
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) out[k] = items[k].value;
  return aggregate.value;
}

}  // namespace detail

#define TILEKIT_BLOCK_ONLY detail::stdx::enable_if_t<is_block_v<Block>, int> = 0
#define TILEKIT_BLOCK_SCALAR \
  detail::stdx::enable_if_t<is_block_v<Block> && detail::stdx::is_invocable<Op&, const T&, const T&>::value, int> = 0
#define TILEKIT_SCAN_STORAGE scan_storage<T, detail::static_threads<Block>()>

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD T inclusive_scan(const Block& block, const T& v, Op op, TILEKIT_SCAN_STORAGE& storage) {
  return detail::block_scan<Block::static_size>(block, v, op, storage.full).inclusive;
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD scanned<T> inclusive_scan_aggregate(const Block& block, const T& v, Op op, TILEKIT_SCAN_STORAGE& storage) {
  const auto p = detail::block_scan<Block::static_size>(block, v, op, storage.full);
  return {p.inclusive, p.aggregate};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD scanned<T> exclusive_scan_aggregate(const Block& block, const T& v, Op op, const T& init,
                                               TILEKIT_SCAN_STORAGE& storage) {
  const auto p = detail::block_scan<Block::static_size>(block, v, op, storage.full);
  return {p.has_exclusive ? op(init, p.exclusive) : init, p.aggregate};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD T exclusive_scan(const Block& block, const T& v, Op op, const T& init, TILEKIT_SCAN_STORAGE& storage) {
  return exclusive_scan_aggregate(block, v, op, init, storage).value;
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_SCALAR>
TILEKIT_HD T exclusive_scan(const Block& block, const T& v, Op op, TILEKIT_SCAN_STORAGE& storage) {
  static_assert(has_identity_v<T, Op>,
                "tilekit::exclusive_scan: this operator has no known identity; pass an init value");
  const auto p = detail::block_scan<Block::static_size>(block, v, op, storage.full);
  return p.has_exclusive ? p.exclusive : identity<T>(op);
}

/// Inclusive scan of K items per thread; returns the block aggregate.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T inclusive_scan(const Block& block, const T (&in)[K], T (&out)[K], Op op, TILEKIT_SCAN_STORAGE& storage) {
  detail::no_prefix<T>* none = nullptr;
  return detail::block_scan_items<true, Block::static_size>(block, in, out, op, storage.full, static_cast<const T*>(nullptr), none);
}

/// Exclusive scan of K items per thread seeded with init; returns the block aggregate (init not included).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T exclusive_scan(const Block& block, const T (&in)[K], T (&out)[K], Op op, const T& init,
                            TILEKIT_SCAN_STORAGE& storage) {
  detail::no_prefix<T>* none = nullptr;
  return detail::block_scan_items<false, Block::static_size>(block, in, out, op, storage.full, &init, none);
}

/// Partial tile: only the first valid_items items of the block count. @pre 1 <= valid_items.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T inclusive_scan(const Block& block, const T (&in)[K], T (&out)[K], Op op, TILEKIT_SCAN_STORAGE& storage,
                            unsigned valid_items) {
  return detail::block_scan_valid<true, Block::static_size>(block, in, out, op, storage.partial, static_cast<const T*>(nullptr), valid_items);
}

/// Partial tile: only the first valid_items items of the block count.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T exclusive_scan(const Block& block, const T (&in)[K], T (&out)[K], Op op, const T& init,
                            TILEKIT_SCAN_STORAGE& storage, unsigned valid_items) {
  return detail::block_scan_valid<false, Block::static_size>(block, in, out, op, storage.partial, &init, valid_items);
}

/// Inclusive scan seeded by prefix_op(block aggregate) (see above); returns the block aggregate.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, class PrefixOp, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T inclusive_scan_prefix(const Block& block, const T (&in)[K], T (&out)[K], Op op,
                                   TILEKIT_SCAN_STORAGE& storage, PrefixOp& prefix_op) {
  return detail::block_scan_items<true, Block::static_size>(block, in, out, op, storage.full, static_cast<const T*>(nullptr), &prefix_op);
}

/// Exclusive scan seeded by prefix_op(block aggregate); returns the block aggregate.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, class PrefixOp, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T exclusive_scan_prefix(const Block& block, const T (&in)[K], T (&out)[K], Op op,
                                   TILEKIT_SCAN_STORAGE& storage, PrefixOp& prefix_op) {
  return detail::block_scan_items<false, Block::static_size>(block, in, out, op, storage.full, static_cast<const T*>(nullptr), &prefix_op);
}

#undef TILEKIT_BLOCK_ONLY
#undef TILEKIT_BLOCK_SCALAR
#undef TILEKIT_SCAN_STORAGE
#undef TILEKIT_TILE_ONLY
#undef TILEKIT_TILE_SCALAR

}  // namespace tilekit
