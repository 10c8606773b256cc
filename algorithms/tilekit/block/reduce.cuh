// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/block/reduce.cuh - reduce over a block: combine one value (or K items) per
// thread with an associative operator; every thread gets the result.
//
// Block level (block<Threads>, any Threads 1..1024), result in every thread:
//   reduce(block, v, op, storage[, valid_items])
//   reduce(block, items[K], op, storage[, valid_items])    blocked arrangement
// Each whole warp reduces as a tile<32>; the lanes of a last, partial warp (Threads
// not a multiple of 32) put their values in shared memory; after one barrier
// every thread folds the warp totals and those values in order, or, for 32-bit
// integers with a built-in operator in whole-warp blocks, each warp reduces the
// warp totals with one redux. A block of 32 threads needs no barrier. CUB's
// BlockReduce gives the result to thread 0 only; here every thread has it.
// storage: reduce_storage<T, Threads> in shared memory; call block.sync()
// before reusing it. valid_items (>= 1): only threads / items below it count; in blocks of
// whole warps the warps below the cut reduce as above and the cut warp its lanes below it
// (the same tree, pruned), other blocks reduce values flagged present or not.
#pragma once
#include <tilekit/block/shape.cuh>
#include <tilekit/core/storage.hpp>
#include <tilekit/tile/reduce.cuh>

namespace tilekit {

/// Shared storage of a block reduce of T over Threads threads.
template <class T, unsigned Threads>
struct reduce_storage {
  /// One partial per warp (a partial last warp included).
  static constexpr unsigned slots = detail::block_shape<Threads>::full_warps + detail::block_shape<Threads>::rest;
  union {
    detail::raw_slots<T, slots> full;
    detail::raw_slots<detail::maybe<T>, slots> partial;
  };
};

namespace detail {

// Every thread of the block gets op over every thread's v, in rank order.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op, class Slots>
TILEKIT_HD T block_reduce(const Block& block, const T& v, Op op, Slots& slots) {
  using shape = block_shape<Threads>;
  constexpr unsigned count = shape::full_warps + shape::rest;
  if constexpr (Threads == 32) {
    return tilekit::reduce(tilekit::tiled_partition<32>(block), v, op);  // one warp: no shared memory
  } else {
    const unsigned rank = block.thread_rank(), warp = rank / 32, lane = rank % 32;
    if (shape::rest == 0 || below(warp, shape::full_warps)) {
      const T total = tilekit::reduce(tilekit::tiled_partition<32>(block), v, op);
      if (lane == 0) slots[warp] = total;
    } else {
      slots[shape::full_warps + lane] = v;
    }
    block.sync();
    using warp_tile = decltype(tilekit::tiled_partition<32>(block));
    if constexpr (shape::rest == 0 && hardware_reducible_v<T, Op> && warp_tile::has_hardware_reduce) {
      // Whole warps only: lane i takes warp i's total, one redux per warp (every
      // thread folding every slot issues `count` times the instructions).
      const T x = lane < count ? T(slots[lane]) : identity<T>(op);
      return reduce_hardware(tilekit::tiled_partition<32>(block), x, op);
    } else {
      T r = slots[0];
      TILEKIT_UNROLL
      for (unsigned i = 1; i < count; ++i) r = op(r, slots[i]);
      return r;
    }
  }
}

// As block_reduce over the threads of rank < valid (1 <= valid <= Threads) of a block of whole
// warps: bitwise what it gives over maybe-values absent from valid on, without their flags.
// Warps below the cut reduce plainly, the cut warp its lanes below valid, and the totals of
// the warps with threads below valid are folded in warp order.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op, class Slots>
TILEKIT_HD T block_reduce_below(const Block& block, const T& v, Op op, Slots& slots, unsigned valid) {
  static_assert(Threads % 32 == 0, "block_reduce_below: whole warps");
  auto warp = tilekit::tiled_partition<32>(block);
  if constexpr (Threads == 32) {
    return reduce_lanes_below(warp, v, op, valid);
  } else {
    constexpr unsigned count = Threads / 32;
    const unsigned rank = block.thread_rank(), w = rank / 32, lane = rank % 32;
    const unsigned full = valid / 32, with_threads = (valid + 31) / 32;  // warps wholly below valid; with any thread below it
    if (w < full) {
      const T total = tilekit::reduce(warp, v, op);
      if (lane == 0) slots[w] = total;
    } else if (w < with_threads) {
      const T total = reduce_lanes_below(warp, v, op, valid - 32 * w);
      if (lane == 0) slots[w] = total;
    }
    block.sync();
    if constexpr (hardware_reducible_v<T, Op> && decltype(warp)::has_hardware_reduce) {
      const T x = lane < with_threads ? T(slots[lane]) : identity<T>(op);
      return reduce_hardware(warp, x, op);
    } else {
      T r = slots[0];
      TILEKIT_UNROLL
      for (unsigned i = 1; i < count; ++i)
        if (i < with_threads) r = op(r, slots[i]);
      return r;
    }
  }
}

// op over the threads of rank < valid (1 <= valid; every thread where valid is past the block):
// block_reduce_below for blocks of whole warps, else block_reduce over maybe-values.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class T, class Op>
TILEKIT_HD T block_reduce_valid(const Block& block, const T& v, Op op, reduce_storage<T, Threads>& storage,
                                unsigned valid) {
  if constexpr (Threads % 32 == 0) {
    return block_reduce_below<Threads>(block, v, op, storage.full, valid < Threads ? valid : Threads);
  } else {
    const maybe<T> mine{v, block.thread_rank() < valid};
    return block_reduce<Threads>(block, mine, maybe_op<Op>{op}, storage.partial).value;
  }
}

}  // namespace detail

#define TILEKIT_BLOCK_ONLY detail::stdx::enable_if_t<is_block_v<Block>, int> = 0

/// op over one value per thread of the block; result in every thread.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T reduce(const Block& block, const T& v, Op op, reduce_storage<T, detail::static_threads<Block>()>& storage) {
  return detail::block_reduce<Block::static_size>(block, v, op, storage.full);
}

/// As above, counting only threads with rank < valid_items (every thread where valid_items is
/// past the block). @pre 1 <= valid_items.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T reduce(const Block& block, const T& v, Op op, reduce_storage<T, detail::static_threads<Block>()>& storage,
                    unsigned valid_items) {
  return detail::block_reduce_valid<detail::static_threads<Block>()>(block, v, op, storage, valid_items);
}

/// op over K items per thread (blocked arrangement); result in every thread.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T reduce(const Block& block, const T (&items)[K], Op op,
                    reduce_storage<T, detail::static_threads<Block>()>& storage) {
  T partial = items[0];
  TILEKIT_UNROLL
  for (int k = 1; k < K; ++k) partial = op(partial, items[k]);
  return detail::block_reduce<Block::static_size>(block, partial, op, storage.full);
}

/// As above, counting only the first valid_items items of the block. @pre 1 <= valid_items.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T reduce(const Block& block, const T (&items)[K], Op op,
                    reduce_storage<T, detail::static_threads<Block>()>& storage, unsigned valid_items) {
  const unsigned n = detail::items_valid(block.thread_rank(), K, valid_items);
  T partial = items[0];
  TILEKIT_UNROLL
  for (int k = 1; k < K; ++k)
    if (unsigned(k) < n) partial = op(partial, items[k]);
  // Threads with items: a prefix of the block (block_reduce_valid caps it: valid_items may exceed Threads x K).
  const unsigned threads = valid_items / unsigned(K) + (valid_items % unsigned(K) != 0);
  return detail::block_reduce_valid<detail::static_threads<Block>()>(block, partial, op, storage, threads);
}

#undef TILEKIT_BLOCK_ONLY
}  // namespace tilekit
