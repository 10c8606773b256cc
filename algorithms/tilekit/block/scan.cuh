// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/block/scan.cuh - prefix scans over a block: thread i gets op over the
// items of threads 0..i (inclusive) or 0..i-1 (exclusive), K items per thread blocked.
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
#include <tilekit/block/shape.cuh>
#include <tilekit/core/storage.hpp>
#include <tilekit/tile/scan.cuh>

namespace tilekit {

/// The block scan variants (the storage type picks one; perf/block_bench.cu compares them):
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

/// Default: raking, ahead at every shape perf/block_bench.cu runs.
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
  /// Partials the variant keeps in shared memory (per warp, or the raking grid, plus a callback prefix).
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

// op over the values of the threads before this one when the blocks before this block
// add up to `before` (absent: nothing before the block): what the cluster and grid scans
// hand each thread after their exchange of block aggregates (absent for the first thread).
TILEKIT_EXEC_CHECK_DISABLE
template <class T, class Op>
TILEKIT_HD maybe<T> prefix_before(const maybe<T>& before, const block_scan_parts<T>& block, Op op) {
  if (before.present && block.has_exclusive) return {op(before.value, block.exclusive), true};
  if (before.present) return before;
  return {block.exclusive, block.has_exclusive};
}

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
}  // namespace tilekit
