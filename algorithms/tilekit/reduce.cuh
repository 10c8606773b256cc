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
// every thread folds the warp totals and those values in order, or, for 32-bit
// integers with a built-in operator in whole-warp blocks, each warp reduces the
// warp totals with one redux. A block of 32 threads needs no barrier. CUB's
// BlockReduce gives the result to thread 0 only; here every thread has it.
// storage: reduce_storage<T, Threads> in shared memory; call block.sync()
// before reusing it. valid_items (>= 1): only threads / items below it count.
#pragma once
#include <tilekit/detail/block_shape.hpp>
#include <tilekit/detail/grid_io.hpp>
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

// ---- arg_min / arg_max: a reduce over (index, value) pairs ----

/// An item with its index; `valid` false: no item (the identity of the arg ops).
template <class T>
struct arg_item {
  std::int64_t index;
  T value;
  bool valid;
};

namespace detail {

/// in[i] as arg_item{i, in[i]}.
template <class In>
struct indexed_input {
  using T = value_of<In>;
  In in;
  TILEKIT_HD arg_item<T> operator[](count_t i) const { return {i, T(in[i]), true}; }
  TILEKIT_HD arg_item<T> operator*() const { return (*this)[0]; }
};

// Where the grid reduce reads 16-byte vectors: In itself where it is an aligned
// pointer, or the pointer an indexed_input wraps (ArgMin / ArgMax read at memory
// speed too), each item made from its index and its value.
template <class In>
struct vector_source {
  using pointer = In;
  TILEKIT_HD static In base(const In& in) { return in; }
  template <class V>
  TILEKIT_HD static V item(count_t, const V& x) { return x; }
};
template <class P>
struct vector_source<indexed_input<P>> {
  using pointer = P;
  TILEKIT_HD static P base(const indexed_input<P>& in) { return in.in; }
  template <class V>
  TILEKIT_HD static arg_item<V> item(count_t i, const V& x) { return {i, x, true}; }
};

}  // namespace detail

// ---------------------------------------------------------------- grid level
//
// device_reduce(launcher, temp, temp_bytes, in, n, out, op, init): *out = init op
// (op over in[0 .. n)), in ONE kernel launch (CUB takes two). Each block folds its
// tiles (16-byte vector loads where the input is an aligned pointer), reduces them
// as a block, and publishes its total; the last block to finish (a ticket counter,
// zeroed before the launch) combines the totals in block order and writes *out.
// op must be associative and commutative: items meet in an order set by the grid.
// For a given n and device that order is fixed, so results (floats included) are
// bitwise the same run after run. The entry points are tilekit::device::reduce
// (GPU) and this function with a tilekit::sim::launcher (simulator).

/// Tuning of the device-wide reduce, measured on the H200 (perf/device_bench.cu).
struct reduce_tuning {
  static constexpr unsigned threads = 256;
  static constexpr unsigned vectors = 4;        // 16-byte loads per thread per tile
  static constexpr unsigned scalar_items = 16;  // items per thread per tile for other inputs
  static constexpr unsigned blocks_per_sm = 8;
};

namespace detail {

template <class In, class Tuning = reduce_tuning>
struct reduce_shape {
  using source = vector_source<In>;
  static constexpr bool vectors = vector_loadable_v<typename source::pointer>;
  static constexpr unsigned vec = vector_items<typename source::pointer>();
  static constexpr unsigned items = vectors ? Tuning::vectors * vec : Tuning::scalar_items;
  static constexpr count_t tile = count_t(Tuning::threads) * items;
};

template <unsigned Threads, class In, class Out, class T, class Op>
struct reduce_grid_body {
  using shape = reduce_shape<In>;
  struct shared_t {
    reduce_storage<T, Threads> reduce;
    bool last;
  };
  In in;
  count_t n, head, full_tiles;  // head: items before the first 16-byte boundary
  Out out;
  Op op;
  T init;
  T* partials;       // one per block
  unsigned* ticket;  // zero at launch

  // op over the items of full tile t held by this thread.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD T tile_part(count_t t, unsigned rank) const {
    const count_t base = head + t * shape::tile;
    if constexpr (shape::vectors) {
      using source = typename shape::source;
      using V = value_of<typename source::pointer>;
      vector_of<V, shape::vec> v[reduce_tuning::vectors];
      const count_t at = base + count_t(rank) * shape::vec;  // index of this thread's first item
      TILEKIT_UNROLL
      for (unsigned j = 0; j < reduce_tuning::vectors; ++j)
        v[j] = load_vector<V, shape::vec>(source::base(in) + at + count_t(j) * Threads * shape::vec);
      T part = T(source::item(at, v[0].item[0]));
      TILEKIT_UNROLL
      for (unsigned j = 0; j < reduce_tuning::vectors; ++j)
        TILEKIT_UNROLL
        for (unsigned i = 0; i < shape::vec; ++i)
          if (j + i > 0) part = op(part, T(source::item(at + count_t(j) * Threads * shape::vec + i, v[j].item[i])));
      return part;
    } else {
      T part = T(in[base + rank]);
      TILEKIT_UNROLL
      for (unsigned k = 1; k < shape::items; ++k) part = op(part, T(in[base + count_t(k) * Threads + rank]));
      return part;
    }
  }

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    shared_t& s = ctx.template shared<shared_t>();
    const unsigned rank = block.thread_rank();
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    if (n == 0) {
      if (rank == 0) *out = init;
      return;
    }
    T acc = init;
    bool have = false;
    for (count_t t = b; t < full_tiles; t += blocks) {
      const T part = tile_part(t, rank);
      acc = have ? op(acc, part) : part;
      have = true;
    }
    // The head and the tail past the full tiles go to the block next in line.
    const count_t rest = n - full_tiles * shape::tile, tail = head + full_tiles * shape::tile;
    if (rest > 0 && b == full_tiles % blocks) {
      for (count_t i = rank; i < rest; i += Threads) {
        const T x = T(in[i < head ? i : tail + (i - head)]);
        acc = have ? op(acc, x) : x;
        have = true;
      }
    }
    // Threads with items are a prefix of the block: all of them, or the first `rest`.
    const unsigned valid = b < full_tiles || rest >= count_t(Threads) ? Threads : unsigned(rest);
    const T total =
        valid == Threads ? tilekit::reduce(block, acc, op, s.reduce) : tilekit::reduce(block, acc, op, s.reduce, valid);
    if (blocks == 1) {
      if (rank == 0) *out = op(init, total);
      return;
    }
    if (rank == 0) {
      partials[b] = total;
      be::fence();  // the total is visible before the ticket is
      s.last = be::atomic_add(ticket, 1u) == unsigned(blocks - 1);
    }
    block.sync();
    if (!s.last) return;
    be::fence();
    acc = init;
    have = false;
    for (count_t i = rank; i < blocks; i += Threads) {
      acc = have ? op(acc, partials[i]) : partials[i];
      have = true;
    }
    const unsigned count = blocks < count_t(Threads) ? unsigned(blocks) : Threads;
    const T all = tilekit::reduce(block, acc, op, s.reduce, count);
    if (rank == 0) *out = op(init, all);
  }
};

/// The smaller (Max: larger) value by `<`, the lower index among equals: a total
/// order on (value, index) where `<` is one on values, so any combination order
/// gives the same result.
template <bool Max>
struct arg_extremum {
  template <class T>
  TILEKIT_HD arg_item<T> operator()(const arg_item<T>& a, const arg_item<T>& b) const {
    if (!a.valid) return b;
    if (!b.valid) return a;
    if (Max ? a.value < b.value : b.value < a.value) return b;
    if (Max ? b.value < a.value : a.value < b.value) return a;
    return b.index < a.index ? b : a;
  }
};

/// Writes an arg_item to two outputs, CUB's way: an empty input gives the type's
/// max (Max: lowest) and the index 1.
template <bool Max, class T, class ValueOut, class IndexOut>
struct arg_output {
  ValueOut value_out;
  IndexOut index_out;
  struct proxy {
    const arg_output& o;
    TILEKIT_HD void operator=(const arg_item<T>& r) const {
      *o.value_out = r.valid ? r.value : (Max ? stdx::numeric_limits<T>::lowest() : stdx::numeric_limits<T>::max());
      *o.index_out = r.valid ? r.index : 1;
    }
  };
  TILEKIT_HD proxy operator*() const { return proxy{*this}; }
};

}  // namespace detail

/// The device-wide reduce's dispatch, for any launcher (tilekit::gpu_launcher,
/// tilekit::sim::launcher). With temp == nullptr it only sets temp_bytes. Returns
/// launcher.invalid_value, writing nothing, for n < 0, a null input with n > 0, a
/// null output pointer, or temp_bytes too small.
template <class Launcher, class In, class Out, class T, class Op>
typename Launcher::error_type device_reduce(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            detail::count_t n, Out out, Op op, T init) {
  constexpr unsigned threads = reduce_tuning::threads;
  using body_t = detail::reduce_grid_body<threads, In, Out, T, Op>;
  using shape = typename body_t::shape;
  const unsigned sms = launcher.sm_count();
  const unsigned max_blocks = (sms > 0 ? sms : 1) * reduce_tuning::blocks_per_sm;
  detail::temp_carver carve(temp);
  T* partials = carve.take<T>(max_blocks);
  unsigned* ticket = carve.take<unsigned>(1);
  if (temp == nullptr) {
    temp_bytes = carve.bytes();
    return launcher.success;
  }
  if (n < 0 || temp_bytes < carve.bytes()) return launcher.invalid_value;
  if ((n > 0 && detail::is_null(in)) || detail::is_null(out)) return launcher.invalid_value;
  const detail::count_t head = detail::misaligned_head(shape::source::base(in), n);
  const detail::count_t full_tiles = (n - head) / shape::tile;
  const detail::count_t units = full_tiles + (n - full_tiles * shape::tile > 0 ? 1 : 0);
  const unsigned grid = units < detail::count_t(max_blocks) ? unsigned(units > 0 ? units : 1) : max_blocks;
  if (grid > 1)
    if (auto e = launcher.zero(ticket, sizeof(unsigned)); e != launcher.success) return e;
  return launcher.run(grid, threads, body_t{in, n, head, full_tiles, out, op, init, partials, ticket},
                      sizeof(typename body_t::shared_t));
}

namespace detail {
template <class In, class Pred>
struct counted {  // 1 where pred(in[i]), 0 elsewhere: count_if as a sum
  In in;
  Pred pred;
  using value_type = count_t;
  TILEKIT_HD count_t operator[](count_t i) const { return pred(in[i]) ? 1 : 0; }
  TILEKIT_HD count_t operator*() const { return 0; }
};
template <class T>
struct equal_to_value {
  T value;
  template <class U>
  TILEKIT_HD bool operator()(const U& x) const { return x == value; }
};
}  // namespace detail

/// The device-wide count_if's dispatch: *out = the number of items with pred(in[i]),
/// as a device reduce of 64-bit counts (its temp_bytes and errors).
template <class Launcher, class In, class Out, class Pred>
typename Launcher::error_type device_count_if(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                              detail::count_t n, Out out, Pred pred) {
  if (temp != nullptr && n > 0 && detail::is_null(in)) return launcher.invalid_value;
  return device_reduce(launcher, temp, temp_bytes, detail::counted<In, Pred>{in, pred}, n, out, plus{},
                       detail::count_t(0));
}

}  // namespace tilekit
