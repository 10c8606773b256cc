// tilekit/reduce.cuh - reduce: combine one value per thread with an associative
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
//
// Block level (block<Threads>, any Threads 1..1024), result in every thread:
//   reduce(block, v, op, storage[, valid_items])
//   reduce(block, items[K], op, storage[, valid_items])    blocked arrangement
// Each whole warp reduces as a tile<32>; the lanes of a last, partial warp (Threads
// not a multiple of 32) put their values in shared memory; after one barrier
// every thread folds the warp totals and those values in order. CUB's
// BlockReduce gives the result to thread 0 only; here every thread has it.
// storage: reduce_storage<T, Threads> in shared memory; call block.sync()
// before reusing it. valid_items (>= 1): only threads / items below it count.
#pragma once
#include <tilekit/detail/block_shape.hpp>
#include <tilekit/group_traits.hpp>
#include <tilekit/operators.hpp>

namespace tilekit {

/// True when reduce_hardware applies: an integer of up to 32 bits with a built-in operator.
template <class T, class Op>
inline constexpr bool hardware_reducible_v = detail::stdx::is_integral<T>::value && sizeof(T) <= 4 &&
                                             !detail::stdx::is_same<T, bool>::value && builtin_kind_v<Op> != builtin_op::none;

/// Tiles from this many lanes up use redux.sync in reduce(). Measured on the H200
/// (perf/tile_bench.cu, int32 sum, tile operations per second): at 32 lanes redux
/// runs 2.1x the butterfly; at 16 lanes, where two tiles share a warp, it runs
/// at 0.59x, at 8 and 4 lanes at 0.2x and 0.08x.
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

// ---------------------------------------------------------------- block level

/// Shared storage of a block reduce of T over Threads threads.
template <class T, unsigned Threads>
struct reduce_storage {
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
  const unsigned rank = block.thread_rank(), warp = rank / 32, lane = rank % 32;
  if (warp < shape::full_warps) {
    const T total = tilekit::reduce(tilekit::tiled_partition<32>(block), v, op);
    if (lane == 0) slots[warp] = total;
  } else {
    slots[shape::full_warps + lane] = v;
  }
  block.sync();
  T r = slots[0];
  for (unsigned i = 1; i < shape::full_warps + shape::rest; ++i) r = op(r, slots[i]);
  return r;
}

}  // namespace detail

#define TILEKIT_BLOCK_ONLY detail::stdx::enable_if_t<is_block_v<Block>, int> = 0

/// op over one value per thread of the block; result in every thread.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T reduce(const Block& block, const T& v, Op op, reduce_storage<T, detail::static_threads<Block>()>& storage) {
  return detail::block_reduce<Block::static_size>(block, v, op, storage.full);
}

/// As above, counting only threads with rank < valid_items. @pre 1 <= valid_items.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class Op, TILEKIT_BLOCK_ONLY>
TILEKIT_HD T reduce(const Block& block, const T& v, Op op, reduce_storage<T, detail::static_threads<Block>()>& storage,
                    unsigned valid_items) {
  const detail::maybe<T> mine{v, block.thread_rank() < valid_items};
  return detail::block_reduce<Block::static_size>(block, mine, detail::maybe_op<Op>{op}, storage.partial).value;
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
  detail::maybe<T> partial{items[0], n > 0};
  TILEKIT_UNROLL
  for (int k = 1; k < K; ++k)
    if (unsigned(k) < n) partial.value = op(partial.value, items[k]);
  return detail::block_reduce<Block::static_size>(block, partial, detail::maybe_op<Op>{op}, storage.partial).value;
}

#undef TILEKIT_BLOCK_ONLY

}  // namespace tilekit
