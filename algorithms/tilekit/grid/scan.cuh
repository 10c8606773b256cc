// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/grid/scan.cuh - prefix scans and stream compaction over the whole grid,
// inside the caller's kernel: thread i of the grid (grid rank order: block rank,
// then thread rank) gets op over the values of threads 0..i (inclusive) or 0..i-1
// (exclusive, after init).
//
// Grid level, under a cooperative launch (see grid/reduce.cuh), one value per thread:
//   inclusive_scan(grid, block, v, op, block_storage, storage)
//   exclusive_scan(grid, block, v, op, init, block_storage, storage)
//   inclusive_scan_aggregate / exclusive_scan_aggregate      {value, grid aggregate}
//   inclusive_scan(grid, block, in[K], out[K], op, ...)      K items per thread, blocked;
//   exclusive_scan(grid, block, in[K], out[K], op, init, ...)  both return the grid aggregate
//   compact(grid, block, keep, block_storage, storage)       {rank among the kept
//       threads of the grid, kept count}, 64-bit: what a stream compaction inside a
//       kernel writes out[rank] with
//   compact_store(grid, block, keep, value, out, block_storage, storage)   the kept values
//       to out[0 .. count) in grid rank order; returns count (64-bit, every thread)
// block_storage: the block level's scan_storage<T, Threads> (shared memory; Threads >= 32);
// storage: grid_scan_storage<T> (= grid_reduce_storage<T>) over global memory, no
// initialisation, reusable (calls alternate between its two halves; see reduce.cuh).
// Each block scans its threads once (the block level) and one thread writes the
// block's aggregate; after one grid.sync() the block's first warp folds the
// aggregates of the blocks before its own (and, for the aggregate forms, of all
// blocks) in block order and hands the result to the block through block_storage
// (one block barrier), so op need only be associative. As at the block level, call block.sync()
// before reusing block_storage.
#pragma once
#include <tilekit/block/scan.cuh>
#include <tilekit/grid/reduce.cuh>

namespace tilekit {

/// The global memory a grid scan or compact of T exchanges its block aggregates
/// through: the same type as a grid reduce's (see grid_reduce_storage).
template <class T>
using grid_scan_storage = grid_reduce_storage<T>;

/// What compact(grid, ...) returns to each thread of the grid.
struct grid_compact_result {
  unsigned long long rank;   ///< kept threads before this one in grid rank order: its output slot when kept
  unsigned long long count;  ///< kept threads in the grid
};

namespace detail {

// What every thread of the grid knows after the grid part of a scan.
template <class T>
struct grid_scan_parts {
  block_scan_parts<T> block;  // the scan within the block
  maybe<T> before;            // op over the aggregates of the blocks before this one (absent in block 0)
  maybe<T> total;             // op over every block's aggregate (only where Total)
};

// op over partials[from, to) in order, folded by one warp: lane l takes the l-th of
// 32 contiguous runs, the tile reduce combines the lanes in lane order. Every lane
// gets the result; absent if from == to.
TILEKIT_EXEC_CHECK_DISABLE
template <class Warp, class T, class Op>
TILEKIT_HD maybe<T> fold_partials(const Warp& warp, const T* partials, unsigned long long from, unsigned long long to, Op op) {
  const unsigned long long count = to - from, per_lane = (count + 31) / 32;
  const unsigned long long first = from + warp.thread_rank() * per_lane;
  const unsigned long long last = first + per_lane < to ? first + per_lane : to;
  maybe<T> run{first < last ? T(partials[first]) : T(partials[from < to ? from : 0]), first < last};
  for (unsigned long long i = first + 1; i < last; ++i) run.value = op(run.value, T(partials[i]));
  return tilekit::reduce(warp, run, maybe_op<Op>{op});
}

TILEKIT_EXEC_CHECK_DISABLE
template <bool Total, block_scan_algorithm A, class Grid, class Block, class T, class Op>
TILEKIT_HD grid_scan_parts<T> grid_scan(const Grid& grid, const Block& block, const T& v, Op op,
                                        scan_storage<T, Block::static_size, A>& block_storage, grid_reduce_storage<T>& storage) {
  static_assert(Block::static_size >= 32 && scan_storage<T, Block::static_size, A>::slots >= 2,
                "tilekit grid scans: blocks of at least 32 threads (the first warp folds the block aggregates)");
  detail::require_cooperative<Grid::launch>();
  Block::backend::require(grid.num_blocks() <= storage.max_blocks(),
                          "tilekit grid scan: the grid has more blocks than its grid_scan_storage holds (max_blocks)");
  T* partials = storage.next_half();
  grid_scan_parts<T> p;
  p.block = block_scan<Block::static_size, A>(block, v, op, block_storage.full, static_cast<no_prefix<T>*>(nullptr));
  p.before.present = false;
  p.total.present = false;
  const unsigned long long b = grid.block_rank();
  if (block.thread_rank() == 0) partials[b] = p.block.aggregate;
  grid.sync();  // every aggregate written and visible; block_storage free again
  if (b > 0 || Total) {  // the same in the whole block
    // The first warp folds; two slots of block_storage hand the results to the block.
    auto& slots = block_storage.full;
    if (block.thread_rank() < 32) {
      const auto warp = tilekit::tiled_partition<32>(block);
      const maybe<T> before = fold_partials(warp, partials, 0, b, op);
      if (block.thread_rank() == 0 && before.present) slots[0] = before.value;
      if constexpr (Total) {
        const maybe<T> rest = fold_partials(warp, partials, b, grid.num_blocks(), op);  // this block and after
        if (block.thread_rank() == 0) slots[1] = maybe_op<Op>{op}(before, rest).value;
      }
    }
    block.sync();
    if (b > 0) p.before = {T(slots[0]), true};
    if constexpr (Total) p.total = {T(slots[1]), true};
  }
  return p;
}

// op over the values of the threads before this one in the grid (absent for thread 0).
TILEKIT_EXEC_CHECK_DISABLE
template <class T, class Op>
TILEKIT_HD maybe<T> thread_prefix(const grid_scan_parts<T>& p, Op op) {
  return prefix_before(p.before, p.block, op);
}

}  // namespace detail

/// Thread i of the grid gets op over the values of threads 0..i, in grid rank order.
/// @pre a cooperative launch; every thread of the grid calls, with the storage over the
/// same memory; the grid has at most storage.max_blocks() blocks (checked: the simulator
/// throws tilekit::sim::error, the GPU traps).
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD T inclusive_scan(const Grid& grid, const Block& block, const T& v, Op op,
                            scan_storage<T, detail::static_threads<Block>(), A>& block_storage, grid_scan_storage<T>& storage) {
  const auto p = detail::grid_scan<false, A>(grid, block, v, op, block_storage, storage);
  return p.before.present ? op(p.before.value, p.block.inclusive) : p.block.inclusive;
}

/// As inclusive_scan, with the grid aggregate (op over every value) in every thread.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD scanned<T> inclusive_scan_aggregate(const Grid& grid, const Block& block, const T& v, Op op,
                                               scan_storage<T, detail::static_threads<Block>(), A>& block_storage,
                                               grid_scan_storage<T>& storage) {
  const auto p = detail::grid_scan<true, A>(grid, block, v, op, block_storage, storage);
  return {p.before.present ? op(p.before.value, p.block.inclusive) : p.block.inclusive, p.total.value};
}

/// Thread i of the grid gets init op the values of threads 0..i-1 (thread 0: init).
/// @pre as inclusive_scan.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD T exclusive_scan(const Grid& grid, const Block& block, const T& v, Op op, const T& init,
                            scan_storage<T, detail::static_threads<Block>(), A>& block_storage, grid_scan_storage<T>& storage) {
  const auto p = detail::grid_scan<false, A>(grid, block, v, op, block_storage, storage);
  const detail::maybe<T> before = detail::thread_prefix(p, op);
  return before.present ? op(init, before.value) : init;
}

/// As exclusive_scan, with the grid aggregate (op over every value, without init) in every thread.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD scanned<T> exclusive_scan_aggregate(const Grid& grid, const Block& block, const T& v, Op op, const T& init,
                                               scan_storage<T, detail::static_threads<Block>(), A>& block_storage,
                                               grid_scan_storage<T>& storage) {
  const auto p = detail::grid_scan<true, A>(grid, block, v, op, block_storage, storage);
  const detail::maybe<T> before = detail::thread_prefix(p, op);
  return {before.present ? op(init, before.value) : init, p.total.value};
}

/// K items per thread (blocked, in grid rank order): out[k] = op over every item of the
/// grid up to in[k]; returns the grid aggregate. in and out may be one array.
/// @pre as inclusive_scan of one value.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, int K, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD T inclusive_scan(const Grid& grid, const Block& block, const T (&in)[K], T (&out)[K], Op op,
                            scan_storage<T, detail::static_threads<Block>(), A>& block_storage, grid_scan_storage<T>& storage) {
  const auto p = detail::grid_scan<true, A>(grid, block, detail::thread_reduce(in, op), op, block_storage, storage);
  const detail::maybe<T> seed = detail::thread_prefix(p, op);
  detail::thread_inclusive_scan(in, out, op, seed.value, seed.present);
  return p.total.value;
}

/// K items per thread (blocked): out[k] = init op every item of the grid before in[k];
/// returns the grid aggregate (without init). in and out may be one array.
/// @pre as inclusive_scan of one value.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, int K, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD T exclusive_scan(const Grid& grid, const Block& block, const T (&in)[K], T (&out)[K], Op op, const T& init,
                            scan_storage<T, detail::static_threads<Block>(), A>& block_storage, grid_scan_storage<T>& storage) {
  const auto p = detail::grid_scan<true, A>(grid, block, detail::thread_reduce(in, op), op, block_storage, storage);
  const detail::maybe<T> before = detail::thread_prefix(p, op);
  detail::thread_exclusive_scan(in, out, op, before.present ? op(init, before.value) : init);
  return p.total.value;
}

/// Stream compaction inside a kernel: each thread's rank among the threads of the grid
/// that keep (in grid rank order) and the kept count, 64-bit. @pre as inclusive_scan.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD grid_compact_result compact(const Grid& grid, const Block& block, bool keep,
                                       scan_storage<unsigned long long, detail::static_threads<Block>(), A>& block_storage,
                                       grid_scan_storage<unsigned long long>& storage) {
  const scanned<unsigned long long> s =
      exclusive_scan_aggregate(grid, block, static_cast<unsigned long long>(keep), plus{}, 0ull, block_storage, storage);
  return {s.value, s.aggregate};
}

/// Stream compaction inside a kernel: stores the kept threads' values at out[0 .. count)
/// in grid rank order; returns count (every thread). @pre as compact; out holds as many
/// items as the grid keeps.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class OutputIt, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned long long compact_store(const Grid& grid, const Block& block, bool keep, const T& value, OutputIt out,
                                            scan_storage<unsigned long long, detail::static_threads<Block>(), A>& block_storage,
                                            grid_scan_storage<unsigned long long>& storage) {
  const grid_compact_result r = compact(grid, block, keep, block_storage, storage);
  if (keep) out[r.rank] = value;
  return r.count;
}

}  // namespace tilekit
