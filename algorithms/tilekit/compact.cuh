// tilekit/compact.cuh - ballot-compact: each lane says whether it keeps its item;
// kept items get consecutive slots in lane order (stable).
//
// Tile level (tile<N>):
//   compact(tile, keep)                       -> {rank, count}: rank = kept lanes below this
//                                                one (the slot of a kept item), count = kept lanes
//   compact_store(tile, keep, value, out)     writes kept values to out[0 .. count-1] in lane
//                                                order, returns count (every lane)
// One ballot and two popc: no shared memory, no shuffles.
//
// Block level (block<Threads>, any Threads 1..1024; storage: compact_storage<Threads>):
//   compact(block, keep, storage[, valid_items])            -> {rank, count} block-wide, stable
//   compact_store(block, keep, value, out, storage[, valid_items])   kept values to out[0..count)
//   partition(block, keep, value, out, storage[, valid_items])       kept values first, in order,
//       then the rejected ones, in order: out[0..valid); returns the kept count
// Whole warps count with one ballot, a partial last warp through shared memory;
// after one barrier each thread adds up the counts before its own. Threads at
// or past valid_items keep nothing. Call block.sync() before reusing storage.
#pragma once
#include <tilekit/detail/block_shape.hpp>
#include <tilekit/detail/grid_io.hpp>
#include <tilekit/group_traits.hpp>
#include <tilekit/scan.cuh>

namespace tilekit {

/// Where a lane's item lands among the kept ones, and how many were kept.
struct compact_result {
  unsigned rank;   ///< kept lanes below this lane; the output slot when this lane keeps
  unsigned count;  ///< kept lanes in the tile
};

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD compact_result compact(const Tile& tile, bool keep) {
  const unsigned kept = tile.ballot(keep);
  return {detail::popc(kept & detail::lanes_below(tile.thread_rank())), detail::popc(kept)};
}

/// Stores the kept values contiguously at out, in lane order; returns the kept count.
/// @pre out has room for the kept count.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class OutputIt, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD unsigned compact_store(const Tile& tile, bool keep, const T& value, OutputIt out) {
  const compact_result r = compact(tile, keep);
  if (keep) out[r.rank] = value;
  return r.count;
}

// ---------------------------------------------------------------- block level

/// Shared storage of a block compact over Threads threads.
template <unsigned Threads>
struct compact_storage {
  unsigned counts[detail::block_shape<Threads>::full_warps + detail::block_shape<Threads>::rest];
};

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD compact_result compact(const Block& block, bool keep, compact_storage<detail::static_threads<Block>()>& storage) {
  using shape = detail::block_shape<Block::static_size>;
  const unsigned rank = block.thread_rank(), warp = rank / 32, lane = rank % 32;
  unsigned local = 0;  // kept threads before this one in its warp
  if (warp < shape::full_warps) {
    const compact_result r = compact(tilekit::tiled_partition<32>(block), keep);
    local = r.rank;
    if (lane == 0) storage.counts[warp] = r.count;
  } else {
    storage.counts[shape::full_warps + lane] = keep ? 1u : 0u;
  }
  block.sync();
  const unsigned group = warp < shape::full_warps ? warp : shape::full_warps + lane;
  unsigned before = 0, total = 0;
  for (unsigned i = 0; i < shape::full_warps + shape::rest; ++i) {
    if (i == group) before = total;
    total += storage.counts[i];
  }
  return {before + local, total};
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD compact_result compact(const Block& block, bool keep, compact_storage<detail::static_threads<Block>()>& storage,
                                  unsigned valid_items) {
  return compact(block, keep && block.thread_rank() < valid_items, storage);
}

/// Stores the kept values at out[0 .. count) in rank order; returns count (every thread).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class OutputIt, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned compact_store(const Block& block, bool keep, const T& value, OutputIt out,
                                  compact_storage<detail::static_threads<Block>()>& storage,
                                  unsigned valid_items = detail::static_threads<Block>()) {
  const bool kept = keep && block.thread_rank() < valid_items;
  const compact_result r = compact(block, kept, storage);
  if (kept) out[r.rank] = value;
  return r.count;
}

/// Kept values first (in order), then the rejected ones (in order), at out[0 .. valid_items);
/// returns the kept count (every thread).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, class OutputIt, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned partition(const Block& block, bool keep, const T& value, OutputIt out,
                              compact_storage<detail::static_threads<Block>()>& storage,
                              unsigned valid_items = detail::static_threads<Block>()) {
  const unsigned rank = block.thread_rank();
  const bool valid = rank < valid_items;
  const compact_result r = compact(block, keep && valid, storage);
  if (valid) out[keep ? r.rank : r.count + (rank - r.rank)] = value;
  return r.count;
}

// ---------------------------------------------------------------- grid level
//
// device_select(launcher, temp, temp_bytes, in, n, out, num_out, keep, partition):
// the items of in[0 .. n) that keep says to keep go to out[0 .. count), in order,
// and *num_out = count; with partition, the others go to out[count .. n) in
// REVERSE order (as cub::DevicePartition::If). One pass: each tile counts its
// kept items, the counts are chained across tiles by the same decoupled
// look-back as the device scan (64-bit counts), and each thread writes its kept
// items at their global ranks. keep(i, item) sees the global index, so the same
// body serves a predicate (select_if), a flags array (select_flagged) and
// "differs from the previous item" (unique). out must not overlap in.

namespace detail {

template <class Pred>
struct keep_if {
  Pred pred;
  template <class T>
  TILEKIT_HD bool operator()(count_t, const T& item) const { return bool(pred(item)); }
};

template <class Flags>
struct keep_flagged {
  Flags flags;
  template <class T>
  TILEKIT_HD bool operator()(count_t i, const T&) const { return bool(flags[i]); }
};

template <class In, class Eq>
struct keep_unique {  // the first item of every run of equal items
  In in;
  Eq eq;
  template <class T>
  TILEKIT_HD bool operator()(count_t i, const T& item) const { return i == 0 || !eq(in[i - 1], item); }
};

struct select_tuning {
  static constexpr unsigned threads = 128;
  static constexpr unsigned items = 8;
};

template <class In, class Out, class NumOut, class Keep>
struct select_grid_body {
  static constexpr unsigned Threads = select_tuning::threads, K = select_tuning::items;
  static constexpr count_t tile_items = count_t(Threads) * K;
  using T = value_of<In>;
  using shared_t = scan_storage<count_t, Threads>;
  In in;
  count_t n;
  Out out;
  NumOut num_out;
  Keep keep;
  bool partition;
  tile_states<count_t> states;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    shared_t& storage = ctx.template shared<shared_t>();
    const count_t tile = count_t(ctx.grid().block_rank());
    if (n == 0) {
      if (block.thread_rank() == 0) *num_out = 0;
      return;
    }
    const count_t base = tile * tile_items, first = base + count_t(block.thread_rank()) * K;
    T items[K] = {};
    count_t kept[K];
    TILEKIT_UNROLL
    for (unsigned k = 0; k < K; ++k) {
      const bool valid = first + k < n;
      if (valid) items[k] = in[first + k];
      kept[k] = valid && keep(first + k, items[k]) ? 1 : 0;
    }
    count_t rank[K];
    look_back<decltype(block), count_t, plus> prefix{block, states, tile, plus{}, count_t(0), true};
    const count_t tile_count = tilekit::exclusive_scan_prefix(block, kept, rank, plus{}, storage, prefix);
    TILEKIT_UNROLL
    for (unsigned k = 0; k < K; ++k) {
      const count_t i = first + k;
      if (i >= n) break;
      if (kept[k]) out[rank[k]] = items[k];
      else if (partition) out[n - 1 - (i - rank[k])] = items[k];  // i - rank[k] items were rejected before it
    }
    // The last tile knows the total: its prefix (thread 0's first rank) plus its own count.
    if (base + tile_items >= n && block.thread_rank() == 0) *num_out = rank[0] + tile_count;
  }
};

}  // namespace detail

/// The device-wide select / partition's dispatch, for any launcher. With temp ==
/// nullptr it only sets temp_bytes. Returns launcher.invalid_value, writing
/// nothing, for n < 0, null pointers with n > 0 (in, out, num_out, always), temp_bytes
/// too small, or more than 2^31 - 1 tiles.
template <class Launcher, class In, class Out, class NumOut, class Keep>
typename Launcher::error_type device_select(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            detail::count_t n, Out out, NumOut num_out, Keep keep, bool partition) {
  using body_t = detail::select_grid_body<In, Out, NumOut, Keep>;
  const detail::count_t tiles = n > 0 ? (n + body_t::tile_items - 1) / body_t::tile_items : 0;
  const auto storage = detail::carve_tile_states<detail::count_t>(temp, tiles);
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (n < 0 || temp_bytes < storage.bytes || tiles > 0x7fffffff) return launcher.invalid_value;
  if (detail::is_null(num_out) || (n > 0 && (detail::is_null(in) || detail::is_null(out)))) return launcher.invalid_value;
  if (tiles > 0)
    if (auto e = launcher.zero(storage.zero_from, storage.zero_bytes); e != launcher.success) return e;
  return launcher.run(unsigned(tiles > 0 ? tiles : 1), body_t::Threads,
                      body_t{in, n, out, num_out, keep, partition, storage.states},
                      sizeof(typename body_t::shared_t));
}

}  // namespace tilekit
