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
  if (detail::below(warp, shape::full_warps)) {
    const compact_result r = compact(tilekit::tiled_partition<32>(block), keep);
    local = r.rank;
    if (lane == 0) storage.counts[warp] = r.count;
  } else {
    storage.counts[shape::full_warps + lane] = keep ? 1u : 0u;
  }
  block.sync();
  const unsigned group = detail::below(warp, shape::full_warps) ? warp : shape::full_warps + lane;
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
// REVERSE order (as cub::DevicePartition::If). One pass. Each warp owns a
// contiguous stretch of its block's tile and reads it in rows (a row: 32 lanes x
// one 16-byte vector, or one item each for other inputs), so every load of a
// warp is contiguous. A row's ranks come from ballots: an item's rank in its row
// is the kept items of the lanes below it (popc of a ballot per vector slot) plus
// those before it in its own vector. The warps' counts are added through shared
// memory and the tiles' counts chained by the decoupled look-back (64-bit counts,
// packed with their flag). keep(i, item, previous) sees the global index and, for
// keep_unique, the item before. out must not overlap in.

namespace detail {

template <class Pred>
struct keep_if {
  static constexpr bool wants_previous = false;
  Pred pred;
  template <class T>
  TILEKIT_HD bool operator()(count_t, const T& item, const T&) const { return bool(pred(item)); }
};

template <class Flags>
struct keep_flagged {
  static constexpr bool wants_previous = false;
  Flags flags;
  template <class T>
  TILEKIT_HD bool operator()(count_t i, const T&, const T&) const { return bool(flags[i]); }
};

template <class Eq>
struct keep_unique {  // the first item of every run of equal items
  static constexpr bool wants_previous = true;
  Eq eq;
  template <class T>
  TILEKIT_HD bool operator()(count_t i, const T& item, const T& previous) const { return i == 0 || !eq(previous, item); }
};

struct select_tuning {
  static constexpr unsigned threads = 128;
  static constexpr unsigned vector_rows = 6;  // rows per warp when rows are 16-byte vectors (H200: 6 over 4, +30% at 2^26)
  static constexpr unsigned scalar_rows = 8;  // and for inputs read item by item
};

// A warp's stretch of R rows of 32 lanes x V items from `stretch` on: lane `lane`
// gets items[r][j] = in[stretch + r * 32 * V + lane * V + j] (T{} past n). With
// vectors (a full stretch of a 16-byte aligned input) one 16-byte load per row.
template <unsigned R, unsigned V, class In, class T>
TILEKIT_HD void load_rows(T (&items)[R][V], In in, count_t n, count_t stretch, unsigned lane, bool vectors) {
  if constexpr (vector_loadable_v<In>) {
    if (vectors) {
      TILEKIT_UNROLL
      for (unsigned r = 0; r < R; ++r) {
        const auto v = load_vector<T, V>(in + stretch + count_t(r) * 32 * V + count_t(lane) * V);
        TILEKIT_UNROLL
        for (unsigned j = 0; j < V; ++j) items[r][j] = v.item[j];
      }
      return;
    }
  }
  TILEKIT_UNROLL
  for (unsigned r = 0; r < R; ++r) {
    TILEKIT_UNROLL
    for (unsigned j = 0; j < V; ++j) {
      const count_t i = stretch + count_t(r) * 32 * V + count_t(lane) * V + j;
      items[r][j] = i < n ? T(in[i]) : T{};
    }
  }
}

template <class In, class Out, class NumOut, class Keep>
struct select_grid_body {
  using T = value_of<In>;
  static constexpr unsigned Threads = select_tuning::threads, Warps = Threads / 32;
  static constexpr unsigned V = vector_items<In>();  // items per lane in a row
  static constexpr unsigned R = vector_loadable_v<In> ? select_tuning::vector_rows : select_tuning::scalar_rows;
  static constexpr count_t row_items = 32 * V, warp_items = R * row_items, tile_items = Warps * warp_items;
  struct shared_t {
    unsigned warp_counts[Warps];
    count_t tile_prefix;
    raw_slots<T, Warps * warp_items> staged;  // per warp: kept items from the front, rejected from the back
  };
  In in;
  count_t n;
  Out out;
  NumOut num_out;
  Keep keep;
  bool partition;
  bool vector_in;  // in is 16-byte aligned: full tiles load vectors
  count_states states;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto warp = tilekit::tiled_partition<32>(block);
    shared_t& shared = ctx.template shared<shared_t>();
    const count_t tile = count_t(ctx.grid().block_rank());
    if (n == 0) {
      if (block.thread_rank() == 0) *num_out = 0;
      return;
    }
    const unsigned lane = warp.thread_rank(), w = block.thread_rank() / 32;
    const count_t base = tile * tile_items, stretch = base + count_t(w) * warp_items;
    T items[R][V];
    bool kept[R][V];
    load_rows<R, V>(items, in, n, stretch, lane, vector_in && n - base >= tile_items);
    T carry{};  // the item before the current row (keep_unique)
    if constexpr (Keep::wants_previous)
      if (stretch > 0 && stretch <= n) carry = in[stretch - 1];
    unsigned below[R], row_count[R];  // kept items of the lower lanes in each row; of the whole row
    unsigned count = 0;               // kept items of this warp's stretch
    const unsigned lower_lanes = lanes_below(lane);
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      const count_t at = stretch + count_t(r) * row_items + count_t(lane) * V;
      T previous = carry;
      if constexpr (Keep::wants_previous) {
        const T from_left = warp.shfl_up(items[r][V - 1], 1);
        if (lane > 0) previous = from_left;
        carry = warp.shfl(items[r][V - 1], 31);
      }
      below[r] = 0;
      row_count[r] = 0;
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        kept[r][j] = at + j < n && keep(at + j, items[r][j], j == 0 ? previous : items[r][j - 1]);
        const unsigned votes = warp.ballot(kept[r][j]);
        below[r] += popc(votes & lower_lanes);
        row_count[r] += popc(votes);
      }
      count += row_count[r];
    }
    if (lane == 0) shared.warp_counts[w] = count;
    block.sync();
    count_t before_warp = 0, tile_count = 0;
    TILEKIT_UNROLL
    for (unsigned v = 0; v < Warps; ++v) {
      before_warp += v < w ? shared.warp_counts[v] : 0u;
      tile_count += shared.warp_counts[v];
    }
    if (w == 0) {
      look_back<decltype(block), count_t, plus, count_states> prefix{block, states, tile, plus{}, count_t(0), true};
      const count_t p = prefix(tile_count);
      if (lane == 0) shared.tile_prefix = p;
    }
    block.sync();
    // The warp's kept items go to shared memory in order from the front, its rejected
    // ones (partition) from the back; then each kind is written as one contiguous run
    // (coalesced stores, not one scattered store per item).
    const unsigned slot0 = w * unsigned(warp_items);
    unsigned local = 0;  // kept items of this warp before the current row
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      unsigned mine = local + below[r];  // kept items of this warp before this lane's first item in the row
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const unsigned offset = r * unsigned(row_items) + lane * V + j;  // the item's place in the warp's stretch
        if (kept[r][j]) shared.staged[slot0 + mine++] = items[r][j];
        else if (partition && stretch + offset < n)  // offset - mine items of the stretch were rejected before it
          shared.staged[slot0 + unsigned(warp_items) - 1 - (offset - mine)] = items[r][j];
      }
      local += row_count[r];
    }
    warp.sync();
    const count_t kept_before = shared.tile_prefix + before_warp;
    for (unsigned k = lane; k < count; k += 32) out[kept_before + k] = shared.staged[slot0 + k];
    if (partition && stretch < n) {
      const unsigned valid = n - stretch < warp_items ? unsigned(n - stretch) : unsigned(warp_items);
      const count_t rejected_before = stretch - kept_before;
      for (unsigned k = lane; k < valid - count; k += 32)
        out[n - 1 - (rejected_before + k)] = shared.staged[slot0 + unsigned(warp_items) - 1 - k];
    }
    // The last tile knows the total.
    if (base + tile_items >= n && block.thread_rank() == 0) *num_out = shared.tile_prefix + tile_count;
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
  const auto storage = detail::carve_tile_states<detail::count_t, detail::count_states>(temp, tiles);
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (n < 0 || temp_bytes < storage.bytes || tiles > 0x7fffffff) return launcher.invalid_value;
  if (detail::is_null(num_out) || (n > 0 && (detail::is_null(in) || detail::is_null(out)))) return launcher.invalid_value;
  if (tiles > 0)
    if (auto e = launcher.zero(storage.zero_from, storage.zero_bytes); e != launcher.success) return e;
  const bool vector_in = detail::misaligned_head(in, body_t::tile_items) == 0;
  return launcher.run(unsigned(tiles > 0 ? tiles : 1), body_t::Threads,
                      body_t{in, n, out, num_out, keep, partition, vector_in, storage.states},
                      sizeof(typename body_t::shared_t));
}

}  // namespace tilekit
