// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/grid/chain.cuh - prefix scans and stream compaction over the whole grid
// without a grid barrier, inside the caller's kernel, under any launch (ordinary
// or cooperative): the blocks form a chain in the order they start (an atomic
// ticket), and each block gets op over the blocks before it in the chain by
// decoupled look-back (grid/detail/look_back.cuh: the single pass the device scan
// runs on). No block waits for a block that started after it, so any number of
// blocks works, resident or not.
//
//   grid_chain_storage<T> storage(memory, max_blocks)   over grid_chain_storage<T>::bytes(max_blocks)
//                                                       bytes of global memory, ZEROED ONCE before the first
//                                                       launch (every launch leaves it ready for the next)
//   chain_storage<T, Threads> block_storage             shared memory
//   c = take_ticket(grid, block, block_storage, storage)     the block's place in the chain, 0 ..
//                                                       num_blocks - 1: the chunk of data it works on
//   inclusive_scan(grid, block, v, op, block_storage, storage)        op over the values of the chain
//   exclusive_scan(grid, block, v, op, init, block_storage, storage)  up to this thread (init first)
//   inclusive_scan / exclusive_scan(grid, block, in[K], out[K], op[, init], ...)   K items per thread,
//       blocked; return op over the items of the chain through this block's (without init)
//   compact(grid, block, keep, ...)          {rank, through}: the thread's output slot when it keeps
//   compact_store(grid, block, keep, value, out, ...)   out[rank] = value; returns through
// Order is chain order: the block with ticket 0 first, then ticket 1, ...; within a block,
// thread rank, then k. The block whose ticket is num_blocks - 1 holds the grid's total
// (`through`). op need only be associative.
// Each storage (global and shared) serves one scan per launch: take_ticket, then one
// scan or compact, in every block of the grid (a block that skips them leaves the storage
// unusable; a second ticket in one launch is caught: the simulator throws
// tilekit::sim::error, the GPU traps). Launches that use one storage run one after
// another (one stream). Blocks of at least 32 threads (the first warp looks back).
// As at the block level, call block.sync() before reusing block_storage.
#pragma once
#include <tilekit/block/scan.cuh>
#include <tilekit/grid/detail/look_back.cuh>

namespace tilekit {

/// The global memory a chained grid scan of T passes its blocks' prefixes through:
/// a ticket counter, the chain's epoch and one published state per block. Zeroed
/// once before its first launch; each launch publishes under a new epoch and the last
/// block of the chain to finish resets the counters, so the next launch (on the same
/// stream) finds it ready.
template <class T>
class grid_chain_storage {
  static_assert(detail::stdx::is_trivially_copyable<T>::value,
                "tilekit::grid_chain_storage: T must be trivially copyable (its prefixes pass through global memory)");
  using states_t = detail::epoch_states<T>;
  static constexpr std::size_t header_words = 4;  // ticket, finished, epoch, (padding to 16 bytes)

 public:
  /// Bytes of global memory for grids of up to max_blocks blocks.
  TILEKIT_HD static constexpr std::size_t bytes(unsigned long long max_blocks) {
    return (header_words + states_t::tag_words * max_blocks) * sizeof(unsigned long long) +
           states_t::value_words * max_blocks * sizeof(unsigned);
  }

  /// Over `memory`: bytes(max_blocks) bytes of global memory, 16-byte aligned (as
  /// cudaMalloc's), zeroed before the first launch that uses it; shared by every thread.
  TILEKIT_HD grid_chain_storage(void* memory, unsigned long long max_blocks)
      : words_(static_cast<unsigned long long*>(memory)), max_blocks_(max_blocks) {}

  /// The most blocks a grid may have to use this storage.
  TILEKIT_HD unsigned long long max_blocks() const { return max_blocks_; }

  /// (for the algorithms) The counter tickets are drawn from.
  TILEKIT_HD unsigned long long* ticket_counter() const { return words_; }
  /// (for the algorithms) The count of blocks that have finished with the chain.
  TILEKIT_HD unsigned long long* finished_counter() const { return words_ + 1; }
  /// (for the algorithms) The epoch this launch publishes under.
  TILEKIT_HD unsigned long long* epoch() const { return words_ + 2; }
  /// (for the algorithms) The blocks' published states, read and written under `epoch`.
  TILEKIT_HD states_t states(unsigned long long epoch) const {
    unsigned long long* tags = words_ + header_words;
    return {tags, reinterpret_cast<unsigned*>(tags + states_t::tag_words * max_blocks_), epoch};
  }

 private:
  unsigned long long* words_;
  unsigned long long max_blocks_;
};

/// The shared memory a block brings to a chained grid scan of T over Threads threads:
/// the block scan's, and the block's ticket and prefix.
template <class T, unsigned Threads, block_scan_algorithm A = default_block_scan_algorithm>
struct chain_storage {
  static_assert(Threads >= 32, "tilekit chained grid scans: blocks of at least 32 threads (the first warp looks back)");
  scan_storage<T, Threads, A> scan;  ///< the block scan's
  detail::raw_slots<T, 1> through;   ///< op over the chain through this block
  unsigned long long ticket;         ///< the block's place in the chain
  unsigned long long epoch;          ///< the launch's epoch
};

/// What compact(grid, ...) of a chain returns to each thread.
struct chain_compact_result {
  unsigned long long rank;     ///< kept threads before this one in chain order: its output slot when kept
  unsigned long long through;  ///< kept threads of the chain up to and including this block (the total in the last)
};

/// Draws the block's place in the chain: 0 for the first block to call, up to
/// num_blocks - 1; every thread of the block gets it. The block then works on the
/// chunk of data at that place (so blocks never wait for one that has not started).
/// @pre every thread of every block calls it once per launch, before the scan.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned long long take_ticket(const Grid& grid, const Block& block,
                                          chain_storage<T, detail::static_threads<Block>(), A>& block_storage,
                                          grid_chain_storage<T>& storage) {
  using be = typename Block::backend;
  if (block.thread_rank() == 0) {
    be::require(grid.num_blocks() <= storage.max_blocks(),
                "tilekit chained grid scan: the grid has more blocks than its grid_chain_storage holds (max_blocks)");
    const unsigned long long ticket = be::atomic_add(storage.ticket_counter(), 1ull);
    be::require(ticket < grid.num_blocks(),
                "tilekit chained grid scan: more tickets than blocks: a grid_chain_storage serves one take_ticket and "
                "one scan per block per launch (and a block of an earlier launch skipped them, or the storage was "
                "not zeroed before its first launch)");
    block_storage.ticket = ticket;
    block_storage.epoch = be::load_relaxed(storage.epoch());
  }
  block.sync();
  return block_storage.ticket;
}

namespace detail {

// What every thread knows after the chain part of a scan.
template <class T>
struct chain_parts {
  block_scan_parts<T> block;  // the block scan, seeded by the chain before this block (where there is one)
  T through;                  // op over the chain through this block
};

// The block scan's prefix callback in a block after the first of the chain: the
// look-back, and op over the chain through this block kept for every thread.
template <class Block, class T, class Op>
struct chain_prefix {
  look_back<Block, T, Op, epoch_states<T>> back;
  raw_slots<T, 1>* through;

  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD T operator()(const T& aggregate) const {
    const T seed = back(aggregate);
    if (back.block.thread_rank() == 0) (*through)[0] = back.op(seed, aggregate);  // before the block scan's last barrier
    return seed;
  }
};

TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, block_scan_algorithm A, class Grid, class Block, class T, class Op>
TILEKIT_HD chain_parts<T> chain_scan(const Grid& grid, const Block& block, const T& v, Op op,
                                     chain_storage<T, Threads, A>& block_storage, grid_chain_storage<T>& storage) {
  using be = typename Block::backend;
  const count_t chunk = count_t(block_storage.ticket);
  const auto states = storage.states(block_storage.epoch);
  chain_parts<T> p;
  if (chunk == 0) {  // the same in the whole block
    p.block = block_scan<Threads, A>(block, v, op, block_storage.scan.full, static_cast<no_prefix<T>*>(nullptr));
    p.through = p.block.aggregate;
    if (block.thread_rank() == 0) states.template publish<be>(0, 2, p.through);
  } else {
    const bool patient = grid.num_blocks() >= look_back_tuning::patient_grid;
    chain_prefix<Block, T, Op> prefix{{block, states, chunk, op, v, false, patient}, &block_storage.through};
    p.block = block_scan<Threads, A>(block, v, op, block_storage.scan.full, &prefix);
    p.through = block_storage.through[0];
  }
  if (block.thread_rank() == 0) {
    // The last block of the launch to get here resets the counters and moves to the
    // next epoch: every block has drawn its ticket and read the epoch, and none polls any more.
    if (be::atomic_add(storage.finished_counter(), 1ull) == grid.num_blocks() - 1) {
      be::store_relaxed(storage.ticket_counter(), 0ull);
      be::store_relaxed(storage.finished_counter(), 0ull);
      be::store_relaxed(storage.epoch(), block_storage.epoch + 1);
    }
  }
  return p;
}

}  // namespace detail

/// Thread i of the chain gets op over the values of threads 0..i of the chain.
/// @pre take_ticket with these storages (see the file comment).
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD T inclusive_scan(const Grid& grid, const Block& block, const T& v, Op op,
                            chain_storage<T, detail::static_threads<Block>(), A>& block_storage,
                            grid_chain_storage<T>& storage) {
  return detail::chain_scan<Block::static_size, A>(grid, block, v, op, block_storage, storage).block.inclusive;
}

/// Thread i of the chain gets init op the values of threads 0..i-1 of the chain (the first: init).
/// @pre take_ticket with these storages.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD T exclusive_scan(const Grid& grid, const Block& block, const T& v, Op op, const T& init,
                            chain_storage<T, detail::static_threads<Block>(), A>& block_storage,
                            grid_chain_storage<T>& storage) {
  const auto p = detail::chain_scan<Block::static_size, A>(grid, block, v, op, block_storage, storage);
  return p.block.has_exclusive ? op(init, p.block.exclusive) : init;
}

/// K items per thread (blocked, in chain order): out[k] = op over every item of the chain
/// up to in[k]; returns op over the items of the chain through this block. in and out
/// may be one array. @pre take_ticket with these storages.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, int K, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD T inclusive_scan(const Grid& grid, const Block& block, const T (&in)[K], T (&out)[K], Op op,
                            chain_storage<T, detail::static_threads<Block>(), A>& block_storage,
                            grid_chain_storage<T>& storage) {
  const auto p = detail::chain_scan<Block::static_size, A>(grid, block, detail::thread_reduce(in, op), op,
                                                          block_storage, storage);
  detail::thread_inclusive_scan(in, out, op, p.block.exclusive, p.block.has_exclusive);
  return p.through;
}

/// K items per thread (blocked): out[k] = init op every item of the chain before in[k];
/// returns op over the items of the chain through this block (without init). in and out
/// may be one array. @pre take_ticket with these storages.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, int K, class Op, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD T exclusive_scan(const Grid& grid, const Block& block, const T (&in)[K], T (&out)[K], Op op, const T& init,
                            chain_storage<T, detail::static_threads<Block>(), A>& block_storage,
                            grid_chain_storage<T>& storage) {
  const auto p = detail::chain_scan<Block::static_size, A>(grid, block, detail::thread_reduce(in, op), op,
                                                          block_storage, storage);
  detail::thread_exclusive_scan(in, out, op, p.block.has_exclusive ? op(init, p.block.exclusive) : init);
  return p.through;
}

/// Stream compaction inside a kernel under any launch: each thread's rank among the
/// threads of the chain that keep, and the kept count through its block (64-bit).
/// @pre take_ticket with these storages.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD chain_compact_result compact(const Grid& grid, const Block& block, bool keep,
                                        chain_storage<unsigned long long, detail::static_threads<Block>(), A>& block_storage,
                                        grid_chain_storage<unsigned long long>& storage) {
  const auto p = detail::chain_scan<Block::static_size, A>(grid, block, static_cast<unsigned long long>(keep), plus{},
                                                          block_storage, storage);
  return {p.block.has_exclusive ? p.block.exclusive : 0ull, p.through};
}

/// Stream compaction inside a kernel under any launch: stores the kept threads' values
/// at out[rank] (chain order); returns the kept count through this block (the total in
/// the block whose ticket is num_blocks - 1). @pre take_ticket with these storages; out
/// holds as many items as the grid keeps.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, class OutputIt, block_scan_algorithm A,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned long long compact_store(const Grid& grid, const Block& block, bool keep, const T& value, OutputIt out,
                                            chain_storage<unsigned long long, detail::static_threads<Block>(), A>& block_storage,
                                            grid_chain_storage<unsigned long long>& storage) {
  const chain_compact_result r = compact(grid, block, keep, block_storage, storage);
  if (keep) out[r.rank] = value;
  return r.through;
}

}  // namespace tilekit
