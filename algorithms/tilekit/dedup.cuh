// tilekit/dedup.cuh - dedup: which lanes hold the first copy of each distinct key.
//
// Tile level (tile<N>):
//   dedup(tile, key[, eq])            -> {first, rank, count}: first = no lower lane holds an
//                                        equal key; rank = first-lanes below this one (the slot
//                                        of a first key); count = distinct keys in the tile
//   dedup_store(tile, key, out[, eq]) writes the distinct keys to out[0 .. count-1] in lane
//                                        order (first occurrence), returns count (every lane)
// Equality is eq (default ==). Integer keys of 4 or 8 bytes with the default
// use one match_any; other keys compare against every lower lane (N-1 shuffles).
// Floating point with ==: -0.0 equals +0.0, and a NaN equals nothing (each NaN is distinct).
//
// Block level, adjacent duplicates (what unique and run-length encoding need;
// storage: flag_heads_storage<T, Threads>):
//   flag_heads(block, items[K], heads[K], storage[, eq[, valid_items]])   the block's first item is a head
//   flag_heads_after(block, predecessor, items[K], heads[K], storage[, eq[, valid_items]])
//                                          the first item is compared with the previous tile's last one
//   items at or past valid_items are not heads
// heads[k] = item k differs (!eq) from the item before it in blocked order.
//
// Block level, distinct keys without sorting (storage: distinct_storage<T, Threads, K>):
//   dedup(block, keys[K], first[K], storage[, valid_items])    -> distinct keys in the block;
//       first[k]: item k is the first occurrence of its key in blocked order
//   dedup_store(block, keys[K], out, storage[, valid_items])   the distinct keys, in order of
//       first occurrence, to out[0 .. count); returns count
// A shared-memory hash set (open addressing, twice as many slots as items),
// probed in rounds separated by barriers; the lowest item index wins a slot.
// Keys compare with ==; floating-point -0.0 and +0.0 are one key, every NaN its own.
// Call block.sync() before reusing storage.
#pragma once
#include <tilekit/detail/block_shape.hpp>
#include <tilekit/detail/grid_io.hpp>
#include <tilekit/group_traits.hpp>
#include <tilekit/compact.cuh>
#include <tilekit/reduce.cuh>
#include <tilekit/scan.cuh>

namespace tilekit {

/// == as a functor: the default key equality.
struct equal_to {
  template <class T>
  TILEKIT_HD constexpr bool operator()(const T& a, const T& b) const { return a == b; }
};

struct dedup_result {
  bool first;      ///< this lane holds the first copy of its key
  unsigned rank;   ///< first-lanes below this lane; the output slot when first
  unsigned count;  ///< distinct keys in the tile
};

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class Eq = equal_to, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD dedup_result dedup(const Tile& tile, const T& key, Eq eq = {}) {
  const unsigned rank = tile.thread_rank();
  bool first = true;
  if constexpr (detail::stdx::is_same<Eq, equal_to>::value && detail::stdx::is_integral<T>::value &&
                (sizeof(T) == 4 || sizeof(T) == 8)) {
    first = detail::lowest_bit(tile.match_any(key)) == rank;
  } else {
    TILEKIT_UNROLL
    for (unsigned src = 0; src + 1 < Tile::size(); ++src) {
      const T other = tile.shfl(key, src);
      if (src < rank && eq(other, key)) first = false;
    }
  }
  const unsigned firsts = tile.ballot(first);
  return {first, detail::popc(firsts & detail::lanes_below(rank)), detail::popc(firsts)};
}

/// Stores the distinct keys contiguously at out, in lane order; returns their count.
/// @pre out has room for the distinct count.
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class T, class OutputIt, class Eq = equal_to, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD unsigned dedup_store(const Tile& tile, const T& key, OutputIt out, Eq eq = {}) {
  const dedup_result r = dedup(tile, key, eq);
  if (r.first) out[r.rank] = key;
  return r.count;
}

// ---------------------------------------------------------------- block level

/// Shared storage of flag_heads over Threads threads: each thread's last item.
template <class T, unsigned Threads>
struct flag_heads_storage {
  detail::raw_slots<T, Threads> last;
};

namespace detail {
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Eq, class Storage>
TILEKIT_HD void flag_heads(const Block& block, const T (&items)[K], bool (&heads)[K], Storage& storage,
                           const T* predecessor, Eq eq, unsigned valid_items) {
  const unsigned rank = block.thread_rank();
  storage.last[rank] = items[K - 1];
  block.sync();
  const unsigned n = items_valid(rank, K, valid_items);
  if (rank > 0) heads[0] = !eq(storage.last[rank - 1], items[0]);
  else heads[0] = predecessor ? !eq(*predecessor, items[0]) : true;
  TILEKIT_UNROLL
  for (int k = 1; k < K; ++k) heads[k] = !eq(items[k - 1], items[k]);
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k)
    if (unsigned(k) >= n) heads[k] = false;
}
}  // namespace detail

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Eq = equal_to, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void flag_heads(const Block& block, const T (&items)[K], bool (&heads)[K],
                           flag_heads_storage<T, detail::static_threads<Block>()>& storage, Eq eq = {},
                           unsigned valid_items = ~0u) {
  detail::flag_heads(block, items, heads, storage, static_cast<const T*>(nullptr), eq, valid_items);
}

/// As flag_heads, the block's first item compared with `predecessor` (the previous tile's last item).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Eq = equal_to, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void flag_heads_after(const Block& block, const T& predecessor, const T (&items)[K], bool (&heads)[K],
                                 flag_heads_storage<T, detail::static_threads<Block>()>& storage, Eq eq = {},
                                 unsigned valid_items = ~0u) {
  detail::flag_heads(block, items, heads, storage, &predecessor, eq, valid_items);
}

// ---------------------------------------------------------------- distinct keys in a block

namespace detail {
constexpr unsigned pow2_at_least(unsigned n) {
  unsigned p = 1;
  while (p < n) p *= 2;
  return p;
}

// 32-bit hash of a key's bytes; +0.0 and -0.0 hash alike (they compare equal).
template <class T>
TILEKIT_HD unsigned key_hash(const T& key) {
  constexpr unsigned words = (sizeof(T) + 3) / 4;
  unsigned w[words] = {};
  if constexpr (stdx::is_floating_point<T>::value) {
    const T k = key == T(0) ? T(0) : key;
    std::memcpy(w, &k, sizeof(T));
  } else {
    std::memcpy(w, &key, sizeof(T));
  }
  unsigned h = 0x9E3779B9u;
  for (unsigned i = 0; i < words; ++i) {
    h ^= w[i] * 0x85EBCA6Bu;
    h = (h << 13 | h >> 19) * 5u + 0xE6546B64u;
  }
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  return h;
}
}  // namespace detail

/// Shared storage of block dedup of K keys per thread over Threads threads.
template <class T, unsigned Threads, int K>
struct distinct_storage {
  static constexpr unsigned capacity = detail::pow2_at_least(2 * Threads * K);
  detail::raw_slots<T, capacity> keys;
  unsigned owner[capacity];  // lowest item index that claimed the slot (~0u: free)
  unsigned char taken[capacity];
  unsigned distinct;
  unsigned pending;          // items still probing (per round)
  scan_storage<unsigned, Threads> scan;
};

namespace detail {
// Linear probing in rounds separated by barriers, so no thread ever reads a slot
// another thread is writing: each round, every unresolved item bids for its
// current slot if it is free (the lowest item index wins), the winners write
// their keys, and every unresolved item compares the slot's key with its own:
// equal ends its probe (first occurrence: it won the slot), else it moves on.
// Items with equal keys probe the same slots in the same rounds, so the lowest
// index among them is the one that wins.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Storage, class Eq>
TILEKIT_HD unsigned block_dedup(const Block& block, const T (&keys)[K], bool (&first)[K], Storage& s, Eq eq,
                                unsigned valid_items) {
  using be = typename Block::backend;
  constexpr unsigned mask = Storage::capacity - 1;
  const unsigned rank = block.thread_rank();
  for (unsigned i = rank; i < Storage::capacity; i += block.num_threads()) {
    s.owner[i] = ~0u;
    s.taken[i] = 0;
  }
  if (rank == 0) s.distinct = 0;
  const unsigned n = items_valid(rank, K, valid_items);
  unsigned slot[K];
  bool open[K];
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) {
    slot[k] = key_hash(keys[k]) & mask;
    open[k] = unsigned(k) < n;
    first[k] = false;
  }
  for (;;) {
    if (rank == 0) s.pending = 0;
    block.sync();
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k)
      if (open[k] && !s.taken[slot[k]]) be::atomic_min(&s.owner[slot[k]], rank * unsigned(K) + k);
    block.sync();
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k)
      if (open[k] && !s.taken[slot[k]] && s.owner[slot[k]] == rank * unsigned(K) + k) {
        s.keys[slot[k]] = keys[k];
        first[k] = true;
        be::atomic_add(&s.distinct, 1u);
      }
    block.sync();
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k) {
      if (!open[k]) continue;
      if (first[k] || eq(s.keys[slot[k]], keys[k])) {  // a winner always stops (a NaN equals not even itself)
        open[k] = false;
      } else {
        slot[k] = (slot[k] + 1) & mask;
        be::atomic_add(&s.pending, 1u);
      }
    }
    // The winners' slots are taken from now on (set after the comparisons read them).
    block.sync();
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k)
      if (first[k]) s.taken[slot[k]] = 1;
    const unsigned pending = s.pending;
    block.sync();
    if (pending == 0) break;
  }
  return s.distinct;
}
}  // namespace detail

/// Flags the first occurrence of each key among the block's items (blocked order);
/// returns the number of distinct keys (every thread).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Eq = equal_to, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned dedup(const Block& block, const T (&keys)[K], bool (&first)[K],
                          distinct_storage<T, detail::static_threads<Block>(), K>& storage,
                          unsigned valid_items = ~0u, Eq eq = {}) {
  return detail::block_dedup(block, keys, first, storage, eq, valid_items);
}

/// Writes the block's distinct keys, in order of first occurrence, to out[0 .. count); returns count.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class OutputIt, class Eq = equal_to,
          detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned dedup_store(const Block& block, const T (&keys)[K], OutputIt out,
                                distinct_storage<T, detail::static_threads<Block>(), K>& storage,
                                unsigned valid_items = ~0u, Eq eq = {}) {
  bool first[K];
  const unsigned count = detail::block_dedup(block, keys, first, storage, eq, valid_items);
  unsigned mine[1] = {0}, offset[1];
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) mine[0] += first[k] ? 1u : 0u;
  exclusive_scan(block, mine, offset, plus{}, 0u, storage.scan);
  unsigned at = offset[0];
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k)
    if (first[k]) out[at++] = keys[k];
  return count;
}

// ---------------------------------------------------------------- grid level
//
// device_run_length_encode<NonTrivial>(launcher, temp, temp_bytes, in, n, keys_out,
// lengths_out, num_runs_out): the runs of equal adjacent items (==), in one pass.
//   encode (NonTrivial false): keys_out[r] = the r-th run's item, lengths_out[r] its
//       length, *num_runs_out the number of runs (cub::DeviceRunLengthEncode::Encode);
//   non-trivial runs (true): keys_out[r] = the offset of the r-th run longer than one
//       item, lengths_out[r] its length (NonTrivialRuns; keys_out holds offsets).
// Every item is scanned as the pair {emits, last run start}: the items that write an
// output (run heads; or the last item of a run longer than one) are counted, and
// the position of the latest run head is carried (the later pair's when it has
// one), so that the exclusive prefix tells each emitting item its output slot and
// where its run (encode: the previous run) began. The pairs are chained across
// tiles by the scan's decoupled look-back; the last tile writes what is left.

namespace detail {

struct run_mark {
  count_t emits;  // emitting items
  count_t start;  // the latest run head, -1 for none
};

struct run_mark_op {  // associative, not commutative
  TILEKIT_HD run_mark operator()(const run_mark& a, const run_mark& b) const {
    return {a.emits + b.emits, b.start >= 0 ? b.start : a.start};
  }
};

// The run marks' tile states while n < 2^31: emits and start + 1 in 31 bits each of
// packed62_states' word (single relaxed accesses, as count_states). Larger inputs use
// tile_states<run_mark> (fenced).
struct run_mark_codec {
  static constexpr unsigned long long low31 = (1ull << 31) - 1;
  TILEKIT_HD static unsigned long long bits(const run_mark& v) {
    return (static_cast<unsigned long long>(v.start + 1) << 31) | static_cast<unsigned long long>(v.emits);
  }
  TILEKIT_HD static run_mark value(unsigned long long bits) {
    return {count_t(bits & low31), count_t((bits >> 31) & low31) - 1};
  }
};
using run_mark_states = packed62_states<run_mark, run_mark_codec>;

template <bool NonTrivial, class In, class KeysOut, class LengthsOut, class NumOut, class States>
struct rle_grid_body {
  using T = value_of<In>;
  static constexpr unsigned Threads = 128, Warps = Threads / 32;
  static constexpr unsigned MinBlocksPerSM = 5;  // up to 102 registers: no spills at 16 items per lane
  static constexpr unsigned V = vector_items<In>();                             // items per lane in a row
  static constexpr unsigned R = vector_loadable_v<In> ? (V >= 16 ? 1 : 16 / V) : 8;  // rows: at most 16 items per lane
  static constexpr count_t row_items = 32 * V, warp_items = R * row_items, tile_items = Warps * warp_items;
  using key_t = stdx::conditional_t<NonTrivial, count_t, T>;  // what keys_out receives: run offsets, or items
  struct shared_t {
    count_t emits[Warps];  // per warp: emitting items,
    count_t start[Warps];  // and its latest run head (-1: none)
    run_mark prefix;       // everything before the tile
    raw_slots<key_t, Warps * warp_items> keys;  // per warp, its outputs in order
    raw_slots<count_t, Warps * warp_items> lengths;
  };
  In in;
  count_t n;
  KeysOut keys_out;
  LengthsOut lengths_out;
  NumOut num_out;
  bool vector_in;
  States states;

  // The position of the last head among the lanes `lanes` of a row (heads[j]: the
  // ballot of slot j; lanes not 0), as lane * V + slot.
  TILEKIT_HD static count_t last_head(const unsigned (&heads)[V], unsigned lanes) {
    const unsigned lane = highest_bit(lanes);
    unsigned slot = 0;
    TILEKIT_UNROLL
    for (unsigned j = 0; j < V; ++j)
      if ((heads[j] >> lane) & 1u) slot = j;
    return count_t(lane) * V + slot;
  }

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
    const unsigned lane = warp.thread_rank(), w = block.thread_rank() / 32, lower_lanes = lanes_below(lane);
    const count_t base = tile * tile_items, stretch = base + count_t(w) * warp_items;
    T items[R][V];
    load_rows<R, V>(items, in, n, stretch, lane, vector_in && n - base >= tile_items);
    T before = stretch > 0 && stretch <= n ? T(in[stretch - 1]) : T{};  // the item before the current row
    T after{};  // the item after the stretch (non-trivial runs)
    if constexpr (NonTrivial)
      if (stretch + warp_items < n) after = in[stretch + warp_items];
    // Pass 1: which items are heads (start a run) and which emit an output (encode:
    // the heads; non-trivial runs: the last item of a run longer than one), as bits
    // r * V + j; per row the emitting items before it and the latest head before it
    // in this warp's stretch.
    unsigned head_bits = 0, emit_bits = 0, emits_before_row[R];
    count_t head_before_row[R];
    unsigned warp_emits = 0;
    count_t warp_head = -1;
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      const count_t row = stretch + count_t(r) * row_items, at = row + count_t(lane) * V;
      const T from_left = warp.shfl_up(items[r][V - 1], 1);
      const T first_before = lane > 0 ? from_left : before;
      before = warp.shfl(items[r][V - 1], 31);
      T last_after{};
      if constexpr (NonTrivial) {
        const T from_right = warp.shfl_down(items[r][0], 1);
        const T next_row_first = r + 1 < R ? warp.shfl(items[r + 1 < R ? r + 1 : r][0], 0) : after;
        last_after = lane < 31 ? from_right : next_row_first;
      }
      unsigned heads[V], row_emits = 0, any_head = 0;
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const count_t i = at + j;
        const T& prev = j == 0 ? first_before : items[r][j == 0 ? 0 : j - 1];
        const bool head = i < n && (i == 0 || !(prev == items[r][j]));
        bool emit = head;
        if constexpr (NonTrivial) {
          const T& next = j + 1 < V ? items[r][j + 1 < V ? j + 1 : j] : last_after;
          emit = i < n && !head && (i + 1 == n || !(next == items[r][j]));
        }
        head_bits |= unsigned(head) << (r * V + j);
        emit_bits |= unsigned(emit) << (r * V + j);
        heads[j] = warp.ballot(head);
        any_head |= heads[j];
        row_emits += popc(warp.ballot(emit));
      }
      emits_before_row[r] = warp_emits;
      head_before_row[r] = warp_head;
      warp_emits += row_emits;
      if (any_head) warp_head = row + last_head(heads, any_head);
    }
    // The warps of the block in order, then the tiles before by the look-back.
    if (lane == 0) shared.emits[w] = warp_emits, shared.start[w] = warp_head;
    block.sync();
    run_mark before_warp{0, -1}, tile_total{0, -1};
    TILEKIT_UNROLL
    for (unsigned v = 0; v < Warps; ++v) {
      const run_mark m{shared.emits[v], shared.start[v]};
      if (v < w) before_warp = run_mark_op{}(before_warp, m);
      tile_total = run_mark_op{}(tile_total, m);
    }
    if (w == 0) {
      look_back<decltype(block), run_mark, run_mark_op, States> prefix{block, states, tile, run_mark_op{}, run_mark{0, -1}, true};
      const run_mark p = prefix(tile_total);
      if (lane == 0) shared.prefix = p;
    }
    block.sync();
    const run_mark outside = run_mark_op{}(shared.prefix, before_warp);  // everything before this warp's stretch
    // Pass 2: each emitting item's place among the warp's outputs and the latest head
    // before it; the outputs go to shared memory in order, then out as contiguous runs
    // (coalesced stores, not one scattered store per output).
    const unsigned slot0 = w * unsigned(warp_items);
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      const count_t row = stretch + count_t(r) * row_items, at = row + count_t(lane) * V;
      unsigned heads[V], below = 0, any_head = 0;
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        heads[j] = warp.ballot((head_bits >> (r * V + j)) & 1u);
        any_head |= heads[j];
        below += popc(warp.ballot((emit_bits >> (r * V + j)) & 1u) & lower_lanes);
      }
      unsigned e = emits_before_row[r] + below;  // this lane's first output in the warp's order
      count_t latest = (any_head & lower_lanes) ? row + last_head(heads, any_head & lower_lanes)
                       : head_before_row[r] >= 0 ? head_before_row[r]
                                                 : outside.start;
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const count_t i = at + j;
        if ((emit_bits >> (r * V + j)) & 1u) {
          if constexpr (NonTrivial) {  // a long run ends here; it began at the latest head
            shared.keys[slot0 + e] = latest;
            shared.lengths[slot0 + e] = i - latest + 1;
          } else {  // a run begins here; the previous one (output e - 1) ended just before
            shared.keys[slot0 + e] = items[r][j];
            shared.lengths[slot0 + e] = i - latest;
          }
          ++e;
        }
        if ((head_bits >> (r * V + j)) & 1u) latest = i;
      }
    }
    warp.sync();
    for (unsigned k = lane; k < warp_emits; k += 32) {
      const count_t rank = outside.emits + k;
      keys_out[rank] = shared.keys[slot0 + k];
      if constexpr (NonTrivial) lengths_out[rank] = shared.lengths[slot0 + k];
      else if (rank > 0) lengths_out[rank - 1] = shared.lengths[slot0 + k];
    }
    if (base + tile_items >= n && block.thread_rank() == 0) {  // the last tile: the totals
      const run_mark all = run_mark_op{}(shared.prefix, tile_total);
      if (!NonTrivial) lengths_out[all.emits - 1] = n - all.start;
      *num_out = all.emits;
    }
  }
};

}  // namespace detail

namespace detail {
template <bool NonTrivial, class States, class Launcher, class In, class KeysOut, class LengthsOut, class NumOut>
typename Launcher::error_type run_length_encode_with(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                     count_t n, KeysOut keys_out, LengthsOut lengths_out, NumOut num_out) {
  using body_t = rle_grid_body<NonTrivial, In, KeysOut, LengthsOut, NumOut, States>;
  const count_t tiles = n > 0 ? (n + body_t::tile_items - 1) / body_t::tile_items : 0;
  const auto storage = carve_tile_states<run_mark, States>(temp, tiles);
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (n < 0 || temp_bytes < storage.bytes || tiles > 0x7fffffff) return launcher.invalid_value;
  if (is_null(num_out) || (n > 0 && (is_null(in) || is_null(keys_out) || is_null(lengths_out))))
    return launcher.invalid_value;
  if (tiles > 0)
    if (auto e = launcher.zero(storage.zero_from, storage.zero_bytes); e != launcher.success) return e;
  const bool vector_in = misaligned_head(in, body_t::tile_items) == 0;
  return launcher.run(unsigned(tiles > 0 ? tiles : 1), body_t::Threads,
                      body_t{in, n, keys_out, lengths_out, num_out, vector_in, storage.states},
                      sizeof(typename body_t::shared_t));
}
}  // namespace detail

/// The device-wide run-length encode's dispatch, for any launcher. With temp ==
/// nullptr it only sets temp_bytes (for this n). Returns launcher.invalid_value,
/// writing nothing, for n < 0, null pointers (num_runs_out always, the others with
/// n > 0), temp_bytes too small, or more than 2^31 - 1 tiles.
template <bool NonTrivial, class Launcher, class In, class KeysOut, class LengthsOut, class NumOut>
typename Launcher::error_type device_run_length_encode(const Launcher& launcher, void* temp, std::size_t& temp_bytes,
                                                       In in, detail::count_t n, KeysOut keys_out,
                                                       LengthsOut lengths_out, NumOut num_out) {
  if (n < (detail::count_t(1) << 31))
    return detail::run_length_encode_with<NonTrivial, detail::run_mark_states>(launcher, temp, temp_bytes, in, n, keys_out,
                                                                               lengths_out, num_out);
  return detail::run_length_encode_with<NonTrivial, detail::tile_states<detail::run_mark>>(
      launcher, temp, temp_bytes, in, n, keys_out, lengths_out, num_out);
}

// ---------------------------------------------------------------- distinct, unique count (grid level)
//
// device_distinct(launcher, temp, temp_bytes, in, n, out, num_out): the distinct keys
// of in[0 .. n) in order of first occurrence to out[0 .. count), *num_out = count;
// no sorting. Pass 1 puts every key into a hash set in the temporary storage (open
// addressing with linear probing, capacity the power of two at or above 1.5 n), each
// slot keeping the lowest index of its key (with 4-byte keys and n < 2^32 key and
// index share one 64-bit word); a warp first drops its own repeats
// (dedup over the warp, one match_any), and an index already beaten is not sent.
// Pass 2 is device_select keeping the items whose index is the one kept for their
// key. Keys: integers of 4 or 8 bytes, compared bitwise. Temporary storage: about
// 1.5 to 3 n x 8 bytes (4-byte keys, n < 2^32), 16 bytes otherwise.
//
// device_unique_count(launcher, temp, temp_bytes, in, n, out): *out = the number of
// runs of equal (==) adjacent items (what unique would keep), as a device reduce.

namespace detail {

template <class T>
using key_bits_t = stdx::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;

TILEKIT_HD unsigned long long mix64(unsigned long long x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The set, in slots that start zeroed (an empty set). A slot holds ~key (0: free;
// the key whose complement is 0 has the extra slot at `capacity`) and ~(the lowest
// index seen), so that the lowest index wins by atomic max.
//   Packed (4-byte keys, n < 2^32): both in one 64-bit word, ~key above ~index. One
//   CAS claims a free slot with its index; a later index of the same key is one
//   64-bit atomic max (the key halves being equal, the larger word has the lower index).
//   Otherwise: 16-byte slots {~key, ~index}, both in one 32-byte sector.
template <class T, bool Packed>
struct key_set {
  using U = key_bits_t<T>;
  static constexpr unsigned words = Packed ? 1 : 2;  // 64-bit words per slot
  unsigned long long* slots;                         // capacity + 1 slots
  unsigned long long mask;                           // capacity - 1

  TILEKIT_HD static U stored(const T& key) {
    U bits;
    std::memcpy(&bits, &key, sizeof(U));
    return U(~bits);
  }
  TILEKIT_HD unsigned long long home(U s) const { return s == 0 ? mask + 1 : mix64(s) & mask; }

  template <class Be>
  TILEKIT_HD void insert(const T& key, count_t i) const {
    const U s = stored(key);
    unsigned long long at = home(s);
    if constexpr (Packed) {
      const unsigned long long mine = static_cast<unsigned long long>(s) << 32 | unsigned(~static_cast<unsigned long long>(i));
      for (; s != 0; at = (at + 1) & mask) {
        unsigned long long seen = slots[at];  // a stale read only costs a CAS
        if (seen == 0 && (seen = Be::atomic_cas(slots + at, 0ull, mine)) == 0) return;
        if ((seen >> 32) == s) break;
      }
      if (slots[at] < mine) Be::atomic_max(slots + at, mine);  // a stale read only costs the atomic
    } else {
      for (; s != 0; at = (at + 1) & mask) {
        U* k = reinterpret_cast<U*>(slots + 2 * at);
        U seen = *k;
        if (seen == 0) seen = Be::atomic_cas(k, U(0), s);
        if (seen == 0 || seen == s) break;
      }
      const unsigned long long mine = ~static_cast<unsigned long long>(i);
      unsigned long long* first = slots + 2 * at + 1;
      if (*first < mine) Be::atomic_max(first, mine);
    }
  }
  /// The lowest index of key. @pre key was inserted.
  TILEKIT_HD count_t first_index(const T& key) const {
    const U s = stored(key);
    unsigned long long at = home(s);
    if constexpr (Packed) {
      if (s != 0)
        while ((slots[at] >> 32) != s) at = (at + 1) & mask;
      return static_cast<count_t>(unsigned(~slots[at]));
    } else {
      if (s != 0)
        while (*reinterpret_cast<const U*>(slots + 2 * at) != s) at = (at + 1) & mask;
      return static_cast<count_t>(~slots[2 * at + 1]);
    }
  }
};

template <class In, bool Packed>
struct distinct_insert_body {
  static constexpr unsigned Threads = 256;
  using T = value_of<In>;
  In in;
  count_t n;
  key_set<T, Packed> set;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto warp = tilekit::tiled_partition<32>(block);
    using be = typename decltype(block)::backend;
    const count_t threads = count_t(ctx.grid().num_blocks()) * Threads;
    // Every lane of a warp runs the same trips (dedup is collective); lanes past
    // the end repeat their warp's first key and are never first.
    const count_t start = count_t(ctx.grid().block_rank()) * Threads + block.thread_rank();
    const count_t warp_start = start - warp.thread_rank();
    for (count_t base = warp_start; base < n; base += threads) {
      const count_t i = base + warp.thread_rank();
      const T key = in[i < n ? i : base];
      if (tilekit::dedup(warp, key).first && i < n) set.template insert<be>(key, i);
    }
  }
};

template <class T, bool Packed>
struct keep_first_occurrence {
  static constexpr bool wants_previous = false;
  key_set<T, Packed> set;
  TILEKIT_HD bool operator()(count_t i, const T& item, const T&) const { return set.first_index(item) == i; }
};

template <class In>
struct run_heads {  // 1 where a run of equal items begins
  In in;
  using value_type = count_t;
  TILEKIT_HD count_t operator[](count_t i) const { return i == 0 || !(in[i] == in[i - 1]) ? 1 : 0; }
  TILEKIT_HD count_t operator*() const { return 1; }
};

}  // namespace detail

namespace detail {
template <bool Packed, class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type distinct_with(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            count_t n, Out out, NumOut num_out) {
  using T = value_of<In>;
  using set_t = key_set<T, Packed>;
  const count_t items = n > 0 ? n : 0;
  unsigned long long capacity = 64;
  while (capacity < static_cast<unsigned long long>(items) + static_cast<unsigned long long>(items) / 2) capacity *= 2;
  temp_carver carve(temp);
  unsigned long long* slots = carve.take<unsigned long long>((capacity + 1) * set_t::words);
  const std::size_t set_bytes = carve.bytes();
  std::size_t select_bytes = 0;
  const keep_first_occurrence<T, Packed> keep{{slots, capacity - 1}};
  device_select(launcher, nullptr, select_bytes, in, items, out, num_out, keep, false);
  void* select_temp = carve.take<unsigned char>(select_bytes);
  if (temp == nullptr) {
    temp_bytes = carve.bytes();
    return launcher.success;
  }
  if (n < 0 || temp_bytes < carve.bytes()) return launcher.invalid_value;
  if (is_null(num_out) || (n > 0 && (is_null(in) || is_null(out)))) return launcher.invalid_value;
  if (n > 0) {
    if (auto e = launcher.zero(temp, set_bytes); e != launcher.success) return e;  // the set comes first
    using body_t = distinct_insert_body<In, Packed>;
    const unsigned sms = launcher.sm_count() > 0 ? launcher.sm_count() : 1;
    const count_t wanted = (n + body_t::Threads - 1) / body_t::Threads;
    const unsigned grid = unsigned(wanted < count_t(sms) * 8 ? wanted : count_t(sms) * 8);
    if (auto e = launcher.run(grid, body_t::Threads, body_t{in, n, keep.set}); e != launcher.success) return e;
  }
  return device_select(launcher, select_temp, select_bytes, in, n, out, num_out, keep, false);
}
}  // namespace detail

/// The device-wide distinct's dispatch, for any launcher. With temp == nullptr it
/// only sets temp_bytes (for this n). Returns launcher.invalid_value, writing
/// nothing, for n < 0, null pointers (num_out always, in and out with n > 0), or a
/// too small temp_bytes.
template <class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type device_distinct(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                              detail::count_t n, Out out, NumOut num_out) {
  using T = detail::value_of<In>;
  static_assert(detail::stdx::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "tilekit distinct: keys must be 4- or 8-byte integers (the hash set compares and claims keys bitwise "
                "with one atomic compare-and-swap); map other keys to such an integer first");
  if constexpr (sizeof(T) == 4)
    if (n < (detail::count_t(1) << 32)) return detail::distinct_with<true>(launcher, temp, temp_bytes, in, n, out, num_out);
  return detail::distinct_with<false>(launcher, temp, temp_bytes, in, n, out, num_out);
}

/// The device-wide unique count's dispatch (a device reduce; its temp_bytes and errors).
template <class Launcher, class In, class Out>
typename Launcher::error_type device_unique_count(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                  detail::count_t n, Out out) {
  if (temp != nullptr && n > 0 && detail::is_null(in)) return launcher.invalid_value;
  return device_reduce(launcher, temp, temp_bytes, detail::run_heads<In>{in}, n, out, plus{}, detail::count_t(0));
}

}  // namespace tilekit
