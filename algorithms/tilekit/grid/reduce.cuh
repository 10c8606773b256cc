// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/grid/reduce.cuh - reduce over the whole grid, inside the caller's kernel:
// every thread of the grid gets op over every thread's value.
//
// Grid level, under a cooperative launch (every block resident at once:
// tilekit::launch_cooperative on the GPU; in the simulator options.resident_blocks
// >= the number of blocks):
//   grid_reduce_storage<T> storage(memory, max_blocks)  over grid_reduce_storage<T>::bytes(max_blocks)
//                                                       bytes of global memory, not initialised
//   reduce(grid, block, v, op, block_storage, storage)  every thread gets op over every v, in grid
//                                                       rank order (block rank, then thread rank)
//   reduce(grid, block, items[K], op, block_storage, storage)   K items per thread, blocked
// Each block reduces its threads (the block level, with block_storage, its
// reduce_storage in shared memory), one thread writes the block's partial to
// global memory, the grid meets at grid.sync(), and every block folds all the
// partials in block rank order. So op need only be associative, and the result is
// the same bit for bit in every thread and every run. The partials alternate
// between two halves of the storage from call to call: a block can start the next
// call while others still read this one's partials, so each call costs one grid
// barrier, and the memory needs no initialisation (nothing is read before it is
// written) and serves the next launch as it is. As at the block level, call
// block.sync() before reusing block_storage.
#pragma once
#include <tilekit/block/reduce.cuh>
#include <tilekit/tile/scan.cuh>  // detail::thread_reduce

namespace tilekit {

/// The global memory a grid reduce of T exchanges its block partials through. Each
/// thread builds its own over the same memory (a kernel argument) and passes it to
/// every grid reduce of the launch, in the same order on every thread: it counts
/// the calls to alternate between the two halves of the memory.
template <class T>
class grid_reduce_storage {
  static_assert(detail::stdx::is_trivially_copyable<T>::value,
                "tilekit::grid_reduce_storage: T must be trivially copyable (its partials pass through global memory)");

 public:
  /// Bytes of global memory for grids of up to `max_blocks` blocks: two partials per block.
  TILEKIT_HD static constexpr std::size_t bytes(unsigned long long max_blocks) { return 2 * max_blocks * sizeof(T); }

  /// Over `memory`: bytes(max_blocks) bytes of global memory aligned for T, needing no
  /// initialisation, shared by every thread of the grid. @pre the grid has at most max_blocks blocks.
  TILEKIT_HD grid_reduce_storage(void* memory, unsigned long long max_blocks)
      : partials_(static_cast<T*>(memory)), max_blocks_(max_blocks) {}

  /// The most blocks a grid may have to use this storage.
  TILEKIT_HD unsigned long long max_blocks() const { return max_blocks_; }

  /// The half of the memory the next call uses; advances to the other half.
  TILEKIT_HD T* next_half() {
    T* half = partials_ + (calls_ % 2) * max_blocks_;
    ++calls_;
    return half;
  }

 private:
  T* partials_;
  unsigned long long max_blocks_;
  unsigned calls_ = 0;
};

/// op over one value per thread of the whole grid, in grid rank order; the result in
/// every thread. @pre a cooperative launch; every thread of the grid calls, with
/// the storage over the same memory; the grid has at most storage.max_blocks() blocks
/// (checked: the simulator throws tilekit::sim::error, the GPU traps).
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class Op, detail::stdx::enable_if_t<Grid::level == group_level::grid, int> = 0,
          detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD T reduce(const Grid& grid, const Block& block, const T& v, Op op,
                    reduce_storage<T, detail::static_threads<Block>()>& block_storage, grid_reduce_storage<T>& storage) {
  detail::require_cooperative<Grid::launch>();
  constexpr unsigned threads = Block::static_size;
  Block::backend::require(grid.num_blocks() <= storage.max_blocks(),
                          "tilekit grid reduce: the grid has more blocks than its grid_reduce_storage holds (max_blocks)");
  T* partials = storage.next_half();
  const T mine = reduce(block, v, op, block_storage);
  const unsigned long long blocks = grid.num_blocks(), rank = block.thread_rank();
  if (rank == 0) partials[grid.block_rank()] = mine;
  grid.sync();  // every partial written and visible; every block done with block_storage
  // Thread t folds a contiguous run of `per_thread` partials, so the block reduce,
  // which combines threads in rank order, combines the partials in block order.
  const unsigned long long per_thread = (blocks + threads - 1) / threads;
  const unsigned long long first = rank * per_thread;
  const unsigned holders = unsigned((blocks + per_thread - 1) / per_thread);  // threads with a run: >= 1
  T run = partials[first < blocks ? first : 0];
  for (unsigned long long i = first + 1; i < first + per_thread && i < blocks; ++i) run = op(run, T(partials[i]));
  return reduce(block, run, op, block_storage, holders);
}

/// As above over K items per thread (blocked: thread i's items come before thread
/// i + 1's), folded in order first.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, int K, class Op, detail::stdx::enable_if_t<Grid::level == group_level::grid, int> = 0,
          detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD T reduce(const Grid& grid, const Block& block, const T (&items)[K], Op op,
                    reduce_storage<T, detail::static_threads<Block>()>& block_storage, grid_reduce_storage<T>& storage) {
  return reduce(grid, block, detail::thread_reduce(items, op), op, block_storage, storage);
}

}  // namespace tilekit
