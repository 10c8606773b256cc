// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/select.cuh - device-wide stream compaction on the GPU, one pass
// (the kernel and its dispatch below).
//
//   select_if(temp, temp_bytes, in, n, out, num_out, pred[, stream])     items with pred(x), in order
//   select_flagged(temp, temp_bytes, in, flags, n, out, num_out[, stream])  items whose flag is set
//   select_flagged_if(temp, temp_bytes, in, flags, n, out, num_out, pred[, stream])  items i with pred(flags[i])
//   unique(temp, temp_bytes, in, n, out, num_out[, stream])              the first of each run of ==
//   partition(temp, temp_bytes, in, n, out, num_out, pred[, stream])     pred(x) items first, in
//       order, then the others in reverse order (as cub::DevicePartition::If)
//   partition_flagged(temp, temp_bytes, in, flags, n, out, num_out[, stream])  likewise, by flags[i]
//   partition_three_way(temp, temp_bytes, in, n, first_out, second_out, rest_out, num_out, first, second[, stream])
//       first(x) items, then !first(x) && second(x) items, then the rest, each in order to its own
//       output; num_out[0], num_out[1] the first two counts (as cub::DevicePartition::If, three-way)
//   unique_by_key(temp, temp_bytes, keys_in, values_in, n, keys_out, values_out, num_out[, eq][, stream])
//       the first key of every run of equal keys and its value (as cub::DeviceSelect::UniqueByKey)
//   ... and select_if, unique, partition without (temp, temp_bytes): storage allocated in the stream.
// *num_out gets the selected count. n is a 64-bit count. The selects run in place
// (out == in); otherwise, and for the partitions always, out must not overlap in.
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, null pointers
// (num_out always, in and out with n > 0), a too small temp_bytes.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/core/storage.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/exchange.cuh>
#include <tilekit/device/detail/look_back.cuh>

namespace tilekit {

// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_select<Partition>(launcher, temp, temp_bytes, in, n, out, num_out, keep):
// the items of in[0 .. n) that keep says to keep go to out[0 .. count), in order,
// and *num_out = count; with Partition, the others go to out[count .. n) in
// REVERSE order (as cub::DevicePartition::If). One pass. Each warp owns a
// contiguous stretch of its block's chunk and reads it in rows (a row: 32 lanes x
// one 16-byte vector, or one item each for other inputs), so every load of a
// warp is contiguous. An item's rank in the warp is the kept items of the rows
// above, of the lanes below in its row, and before it in its own vector: one warp
// scan of every lane's per-row counts packed into a word (warp_rows::row_ranks). The warps' counts are added through shared
// memory and the chunks' counts chained by the decoupled look-back (64-bit counts in
// launch_states: the kernel is the call's only launch). keep(i, item, previous) sees the global index and, for
// keep_unique, the item before. Without Partition out may be in (in place): a chunk
// writes below its own end only after the look-back, when every chunk before it has
// read its items (a chunk publishes its count after loading them). Otherwise out must
// not overlap in.

/// What device_select keeps, for any launcher (the GPU entry points below build them):
/// keep(i, item, previous) sees item i of the input and, where wants_previous, the item
/// before it; a keep that reads_flags is asked of_flag(flags[i]) instead. keep_if:
/// pred(item); keep_flagged: flags[i]; keep_flagged_if: pred(flags[i]); keep_unique: the
/// first item of every run of items equal under eq.
template <class Pred>
struct keep_if {
  static constexpr bool wants_previous = false;  ///< the item before is not needed
  static constexpr bool reads_flags = false;     ///< decides by the item (operator())
  Pred pred;                                     ///< called on each item; true keeps it
  /// Whether to keep `item`: pred(item).
  template <class T>
  TILEKIT_HD bool operator()(detail::count_t, const T& item, const T&) const { return bool(pred(item)); }
};

/// Keeps item i where flags[i] (converted to bool) is true. The select kernel reads the
/// flags beside the items, in their layout (vector loads where the flags allow), and asks
/// of_flag(flags[i]).
template <class Flags>
struct keep_flagged {
  static constexpr bool wants_previous = false;  ///< the item before is not needed
  static constexpr bool reads_flags = true;      ///< decides by flags[i] alone (of_flag)
  Flags flags;                                   ///< one flag per input item, read as flags[i]
  /// Whether to keep the item whose flag is f: f.
  template <class F>
  TILEKIT_HD bool of_flag(const F& f) const { return bool(f); }
};

/// Keeps item i where pred(flags[i]) is true (CUB's FlaggedIf).
template <class Flags, class Pred>
struct keep_flagged_if {
  static constexpr bool wants_previous = false;  ///< the item before is not needed
  static constexpr bool reads_flags = true;      ///< decides by flags[i] alone (of_flag)
  Flags flags;                                   ///< one value per input item, read as flags[i]
  Pred pred;                                     ///< called on flags[i]; true keeps item i
  /// Whether to keep the item whose flag is f: pred(f).
  template <class F>
  TILEKIT_HD bool of_flag(const F& f) const { return bool(pred(f)); }
};

/// Keeps the first item of every run of items equal under eq (CUB's Unique).
template <class Eq>
struct keep_unique {
  static constexpr bool wants_previous = true;  ///< compares each item with the one before
  static constexpr bool reads_flags = false;    ///< decides by the items (operator())
  Eq eq;                                        ///< the equality of two items
  /// Whether to keep item i: it is the first item, or differs from `previous` (item i - 1).
  template <class T>
  TILEKIT_HD bool operator()(detail::count_t i, const T& item, const T& previous) const {
    return i == 0 || !eq(previous, item);
  }
};

/// What travels with the selected items: nothing (every select but unique_by_key) ...
struct no_values {
  static constexpr bool present = false;          ///< no values: the kernel reads and writes none
  static constexpr bool vector_loadable = false;  ///< nothing to load
  using value_type = char;                        ///< a placeholder (never read)
};
/// ... or a value per item (unique_by_key): item i's value in[i] goes where item i goes, to out[..].
template <class ValuesIn, class ValuesOut>
struct with_values {
  static constexpr bool present = true;           ///< values travel with the items
  using value_type = detail::value_of<ValuesIn>;  ///< what one value is
  /// Whether `in` can be read as 16-byte vectors (a pointer to arithmetic values).
  static constexpr bool vector_loadable = detail::vector_loadable_v<ValuesIn>;
  ValuesIn in;    ///< one value per input item
  ValuesOut out;  ///< the selected items' values, in the same order as the items
};

namespace detail {

/// The type of a keep's flags (a placeholder, never read, for a keep that reads none).
template <class Keep, bool = Keep::reads_flags>
struct flag_type_of {
  using type = char;
};
template <class Keep>
struct flag_type_of<Keep, true> {
  using type = value_of<decltype(Keep::flags)>;
};

// put(i) for each of a lane's Slots slots i x 32 + lane of a warp's stretch below `valid`;
// a whole stretch (valid == Slots x 32) without the check.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Slots, class Put>
TILEKIT_HD void for_slots(unsigned valid, unsigned lane, Put put) {
  if (valid == Slots * 32) {
    TILEKIT_UNROLL
    for (unsigned i = 0; i < Slots; ++i) put(i);
  } else {
    TILEKIT_UNROLL
    for (unsigned i = 0; i < Slots; ++i)
      if (i * 32 + lane < valid) put(i);
  }
}

template <bool Partition, class In, class Out, class NumOut, class Keep, class Values = no_values>
struct select_kernel {
  using T = value_of<In>;
  using F = typename flag_type_of<Keep>::type;
  static constexpr unsigned Threads = select_tuning::threads, Warps = Threads / 32;
  static constexpr unsigned V = vector_items<In>();  // items per lane in a row
  // A select that reads no flags and carries no values: more rows (select_tuning::lean_*).
  static constexpr bool lean = !Partition && !Keep::reads_flags && !Values::present;
  static constexpr bool lean_partition = Partition && !Keep::reads_flags && !Values::present;
  static constexpr unsigned vector_rows = lean             ? select_tuning::lean_vector_rows
                                          : lean_partition ? select_tuning::partition_vector_rows
                                                           : select_tuning::vector_rows;
  // Rows of 16-byte vectors: vector_rows; for items under 4 bytes only as many as hold the
  // 4 * vector_rows items per lane of 4-byte items, at least one (1-byte items in 6 rows spilled 300 bytes).
  static constexpr unsigned narrow_rows = 4 * vector_rows / V;
  static constexpr unsigned item_rows = !vector_loadable_v<In> ? select_tuning::scalar_rows
                                        : V <= 4               ? vector_rows
                                        : narrow_rows > 0      ? narrow_rows
                                                               : 1;
  using U = typename Values::value_type;
  // With values: rows whose items and values take 4/3 of the registers of item_rows rows
  // of items alone (a register holds one item of up to 4 bytes), at least one row and at
  // most item_rows. On the H200, int32 keys and values: 4 rows (80 registers, 6 blocks per
  // SM) 1.00 / 1.05x CUB at 2^28 / 2^24; 3 rows (64, 8 blocks) 0.95 / 1.01; 6 rows (111,
  // 4 blocks) 0.98 / 1.02.
  static constexpr unsigned item_words = (sizeof(T) + 3) / 4, value_words = (sizeof(U) + 3) / 4;
  static constexpr unsigned value_rows = item_rows * 4 * item_words / (3 * (item_words + value_words));
#if defined(TILEKIT_SELECT_VALUE_ROWS)  // for measuring
  static constexpr unsigned R = !Values::present ? item_rows : TILEKIT_SELECT_VALUE_ROWS;
#else
  static constexpr unsigned R = !Values::present ? item_rows : value_rows < 1 ? 1 : value_rows > item_rows ? item_rows : value_rows;
#endif
  /// The registers' bound: 64 a thread (8 blocks of 128 per SM, as a 1024-thread bound
  /// leaves), 72 for lean selects (7 blocks); with values, 80 (6 blocks), or 128 (4 blocks)
  /// where a lane's items and values take more than 40 registers (a 16-byte struct per
  /// 1-byte key: no spills).
  static constexpr unsigned MinBlocksPerSM = lean               ? select_tuning::lean_blocks_per_sm
                                             : lean_partition   ? select_tuning::partition_blocks_per_sm
                                             : !Values::present ? 8
                                             : R * V * (item_words + value_words) <= 40 ? 6 : 4;
  using rows = warp_rows<R, V>;  // each warp's stretch of the chunk
  // A lane's flags in the items' layout, where Keep reads flags (else a placeholder of one).
  using flag_rows = F[Keep::reads_flags ? R : 1][Keep::reads_flags ? V : 1];
  static constexpr count_t warp_items = rows::items, chunk_items = Warps * warp_items;
  /// The values load as vectors in the items' layout where a lane's V values fill whole 16-byte vectors.
  static constexpr bool values_vectorisable = Values::vector_loadable && V * sizeof(U) % 16 == 0;
  static constexpr unsigned slot_bytes = !Values::present || sizeof(T) >= sizeof(U) ? sizeof(T) : sizeof(U);
  struct shared_t {
    unsigned warp_counts[Warps];
    count_t chunk_prefix;
    // Per warp, warp_items slots of slot_bytes: its kept items from the front, rejected
    // ones from the back; then their values in the same slots (a warp's own bytes both times).
    alignas(T) alignas(U) unsigned char staged[Warps * warp_items * slot_bytes];
    template <class X>
    TILEKIT_HD X* warp_slots(unsigned warp_index) {
      return reinterpret_cast<X*>(staged + std::size_t(warp_index) * warp_items * slot_bytes);
    }
  };
  In in;
  count_t n;
  Out out;
  NumOut num_out;
  Keep keep;
  bool vector_in;  // in is 16-byte aligned: full chunks load vectors
  launch_states<count_t> states;
  Values values;
  bool vector_values;  // values.in is 16-byte aligned and values_vectorisable
  bool vector_flags;   // Keep reads flags, aligned as vector_of<F, V>: full chunks load a lane's V flags at once
  count_t ahead = 0;   // the chunk whose input this one's block asks L2 for: chunk + ahead (prefetch_tuning; 0: none)

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    auto warp = tilekit::tiled_partition<32>(block);
    shared_t& shared = ctx.template shared<shared_t>();
    const count_t chunk = count_t(ctx.grid().block_rank());
    if (n == 0) {
      if (block.thread_rank() == 0) *num_out = 0;
      return;
    }
    const unsigned long long seen = states.template read_counter<be>();
    if (block.thread_rank() == 0) {
      states.template warm<be>(chunk);  // as the scan (scan.cuh)
      prefetch_chunk_ahead<be>(in, n, chunk, chunk_items, ahead);
      if constexpr (Keep::reads_flags) prefetch_chunk_ahead<be>(keep.flags, n, chunk, chunk_items, ahead);
      if constexpr (Values::present) prefetch_chunk_ahead<be>(values.in, n, chunk, chunk_items, ahead);
    }
    const unsigned lane = warp.thread_rank(), warp_index = block.thread_rank() / 32;
    const count_t base = chunk * chunk_items, stretch = base + count_t(warp_index) * warp_items;
    T items[R][V];
    bool kept[R][V];
    const bool whole = n - base >= chunk_items;
    rows::load(items, in, n, stretch, lane, vector_in && whole);
    U item_values[Values::present ? R : 1][Values::present ? V : 1];
    if constexpr (Values::present) rows::load(item_values, values.in, n, stretch, lane, vector_values && whole);
    flag_rows flags;
    if constexpr (Keep::reads_flags) rows::load(flags, keep.flags, n, stretch, lane, vector_flags && whole);
    // The stretch's items below n, in 32 bits (the bounds check of every item is one 32-bit compare).
    const unsigned valid = stretch >= n ? 0u : n - stretch < warp_items ? unsigned(n - stretch) : unsigned(warp_items);
    unsigned before[R];  // kept items of this warp before this lane's first item in each row
    const unsigned count = classify(warp, items, flags, kept, before, stretch, valid);  // of the stretch
    if (lane == 0) shared.warp_counts[warp_index] = count;
    // The warp's kept items go to shared memory in order, its rejected ones (partition)
    // after them; then each kind is written as one contiguous run (coalesced stores, not
    // one scattered store per item), the rejected ones backwards from the end. Values,
    // where they travel, follow through the same slots. The slots do not depend on the
    // chunk's prefix: partitions stage before the look-back (the other warps while warp 0
    // looks back), selects after it. H200, int32, against the faster CUB at 2^16 / 2^24 /
    // 2^28 (perf/results/2026-12-04-h200-7), staged before / after: partition 1.31 / 1.16 /
    // 1.16 against 1.23 / 1.14 / 1.15; select 1.46 / 1.20 / 1.24 (in 62 registers, not 72)
    // against 1.52 / 1.22 / 1.27.
    T* item_slots = shared.template warp_slots<T>(warp_index);
    if constexpr (Partition) stage(item_slots, items, kept, before, count, lane);
    block.sync();
    count_t before_warp = 0, chunk_count = 0;
    TILEKIT_UNROLL
    for (unsigned v = 0; v < Warps; ++v) {
      before_warp += v < warp_index ? shared.warp_counts[v] : 0u;
      chunk_count += shared.warp_counts[v];
    }
    if (warp_index == 0) {
      const bool patient = ctx.grid().num_blocks() >= look_back_tuning::patient_grid;
      look_back<decltype(block), count_t, plus, epoch_states<count_t>, chunk_items> prefix{
          block, states.at(seen), chunk, plus{}, count_t(0), true, patient};
      const count_t p = prefix(chunk_count);
      if (lane == 0) shared.chunk_prefix = p;
    }
    block.sync();  // (partition: also orders the staging before the writes' reads of other lanes' slots)
    const count_t kept_before = shared.chunk_prefix + before_warp;
    const count_t rejected_before = stretch - kept_before;  // partition: rejected item k (>= count) goes to
    const count_t rejected_last = n - 1 - rejected_before + count;  // out[rejected_last - k], backwards from the end
    const unsigned stored = Partition ? valid : count;
    if constexpr (!Partition) {
      stage(item_slots, items, kept, before, count, lane);
      warp.sync();
    }
    write(out, item_slots, lane, stored, count, kept_before, rejected_last);
    if constexpr (Values::present) {
      U* value_slots = shared.template warp_slots<U>(warp_index);
      warp.sync();  // the items' slots are read
      stage(value_slots, item_values, kept, before, count, lane);
      warp.sync();
      write(values.out, value_slots, lane, stored, count, kept_before, rejected_last);
    }
    // The last chunk knows the total; its thread 0 ran the look-back, so every chunk has published.
    if (base + chunk_items >= n && block.thread_rank() == 0) {
      *num_out = shared.chunk_prefix + chunk_count;
      states.template close<be>(seen);
    }
  }

  // A lane's items (or values) to the warp's slots: a kept item to slot `mine` (its rank
  // among the kept, from before[r] on in row r); for partition, every other one (past
  // `valid` too: it stays in the warp's slots and is never stored) to count + the items
  // before it not kept (offset - mine).
  template <class X>
  TILEKIT_HD static void stage(X* slots, const X (&xs)[R][V], const bool (&kept)[R][V], const unsigned (&before)[R],
                               unsigned count, unsigned lane) {
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      unsigned mine = before[r];
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const bool keep = kept[r][j];
        const unsigned slot = keep ? mine : count + rows::offset(r, lane, j) - mine;
        if (Partition || keep) slots[slot] = xs[r][j];
        mine += keep;
      }
    }
  }

  // The warp's first `stored` slots to their places: the kept ones (k < count) to
  // dst[kept_before + k], the rejected ones (partition) to dst[rejected_last - k].
  // Unrolled over the stretch's slots (the shared loads issue together), not a loop to `stored`.
  // A partition works out each lane's two places once: slot k = i x 32 + lane goes at a
  // constant offset from one or the other (two predicated stores, no per-item 64-bit index),
  // and a whole stretch (every chunk's but the last) skips the bounds check. H200, int32,
  // against CUB 3.0.1 (perf/results/2026-12-04-h200-partition-writes): 2^20 / 2^24 / 2^28
  // 1.26 / 1.18 / 1.16 -> 1.33 / 1.26 / 1.24 (the per-item form took 18 instructions an item,
  // a branch around each); three-way 2^28 1.58 -> 1.60. Selects keep the per-item form (their
  // one place an item: the other made select half kept 1% slower at 2^28).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Dst, class X>
  TILEKIT_HD static void write(Dst dst, const X* slots, unsigned lane, unsigned stored, unsigned count, count_t kept_before,
                               count_t rejected_last) {
    if constexpr (Partition) {
      const count_t kept = kept_before + lane, rejected = rejected_last - lane;
      auto put = [&](unsigned i) {
        const unsigned k = i * 32 + lane;
        const X x = slots[k];
        if (k < count) dst[kept + count_t(i * 32)] = x;
        else dst[rejected - count_t(i * 32)] = x;
      };
      for_slots<R * V>(stored, lane, put);
    } else {
      TILEKIT_UNROLL
      for (unsigned i = 0; i < R * V; ++i) {
        const unsigned k = i * 32 + lane;
        if (k < stored) dst[kept_before + k] = slots[k];
      }
    }
  }

  // Which items the warp keeps (kept) and, per row, the kept items of the stretch
  // before this lane's first item in the row (before); returns the stretch's kept
  // items. The first `valid` items of the stretch are below n.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Warp>
  TILEKIT_HD unsigned classify(const Warp& warp, const T (&items)[R][V], const flag_rows& flags, bool (&kept)[R][V],
                               unsigned (&before)[R], count_t stretch, unsigned valid) const {
    const unsigned lane = warp.thread_rank();
    T carry{};  // the item before the current row (keep_unique)
    if constexpr (Keep::wants_previous)
      if (stretch > 0 && stretch <= n) carry = in[stretch - 1];
    unsigned counts[R];  // this lane's kept items in each row
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      const count_t at = rows::index(stretch, r, lane, 0);
      T previous = carry;
      if constexpr (Keep::wants_previous) {
        const T from_left = warp.shfl_up(items[r][V - 1], 1);
        if (lane > 0) previous = from_left;
        carry = warp.shfl(items[r][V - 1], 31);
      }
      counts[r] = 0;
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const bool below_n = rows::offset(r, lane, j) < valid;
        if constexpr (Keep::reads_flags) kept[r][j] = below_n && keep.of_flag(flags[r][j]);
        else kept[r][j] = below_n && keep(at + j, items[r][j], j == 0 ? previous : items[r][j - 1]);
        counts[r] += kept[r][j];
      }
    }
    return rows::row_ranks(warp, counts, before);
  }
};

}  // namespace detail

/// The device-wide select / partition's dispatch, for any launcher. With temp ==
/// nullptr it only sets temp_bytes, or answers invalid_value for n < 0 as the call
/// does. Returns launcher.invalid_value, writing
/// nothing, for n < 0, null pointers with n > 0 (in, out, flags, values in and out; num_out
/// always), temp_bytes too small, or more than 2^31 - 1 chunks.
template <bool Partition = false, class Launcher, class In, class Out, class NumOut, class Keep, class Values = no_values>
typename Launcher::error_type device_select(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            detail::count_t n, Out out, NumOut num_out, Keep keep, Values values = {}) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out> || detail::wraps_pointer_v<NumOut>)  // thrust::device_ptr: as its pointer
    return device_select<Partition>(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(out),
                                    detail::unwrap(num_out), keep, values);
  using body_t = detail::select_kernel<Partition, In, Out, NumOut, Keep, Values>;
  const detail::count_t chunks = n > 0 ? (n + body_t::chunk_items - 1) / body_t::chunk_items : 0;
  const auto storage = detail::carve_launch_states<detail::count_t>(temp, chunks, detail::next_call_tag());
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (temp_bytes < storage.bytes || chunks > 0x7fffffff) return launcher.invalid_value;
  if (detail::is_null(num_out) || (n > 0 && (detail::is_null(in) || detail::is_null(out)))) return launcher.invalid_value;
  if constexpr (Keep::reads_flags) {
    if (n > 0 && detail::is_null(keep.flags)) return launcher.invalid_value;
  }
  if constexpr (Values::present) {
    if (n > 0 && (detail::is_null(values.in) || detail::is_null(values.out))) return launcher.invalid_value;
  }
  const bool vector_in = detail::misaligned_head(in, body_t::chunk_items) == 0;
  bool vector_values = false;
  if constexpr (body_t::values_vectorisable) vector_values = detail::misaligned_head(values.in, body_t::chunk_items) == 0;
  bool vector_flags = false;
  if constexpr (Keep::reads_flags) vector_flags = detail::vector_aligned<body_t::V>(keep.flags);
  launcher.assume_initialized(storage.first, storage.used);  // any content is valid (launch_states)
  body_t body{in, n, out, num_out, keep, vector_in, storage.states, values, vector_values, vector_flags};
  body.ahead = detail::prefetch_ahead(launcher.sm_count(), body_t::MinBlocksPerSM);
  return launcher.run(unsigned(chunks > 0 ? chunks : 1), body_t::Threads, body, sizeof(typename body_t::shared_t));
}

namespace detail {

// The three-way partition's two counts (first part, second part), chained across chunks.
struct count_pair {
  count_t first, second;
};
struct count_pair_plus {
  TILEKIT_HD count_pair operator()(const count_pair& a, const count_pair& b) const {
    return {a.first + b.first, a.second + b.second};
  }
  // The look-back's window sum (see look_back): the lanes after `from` hold chunk
  // aggregates, each count below 2^32 / 31 (a chunk's), so they add up in two 32-bit
  // redux.sync; lane `from`'s 64-bit counts (an inclusive prefix) are added after.
  static constexpr bool reduces_windows = true;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Warp>
  TILEKIT_HD count_pair window(const Warp& warp, const count_pair& v, unsigned from) const {
    const bool later = warp.thread_rank() > from;
    const unsigned first = tilekit::reduce_hardware(warp, later ? static_cast<unsigned>(v.first) : 0u, plus{});
    const unsigned second = tilekit::reduce_hardware(warp, later ? static_cast<unsigned>(v.second) : 0u, plus{});
    return {warp.shfl(v.first, from) + count_t(first), warp.shfl(v.second, from) + count_t(second)};
  }
};
// A chunk's count_pair as one 16-byte word: the flag in the top two bits above the
// first count (below 2^62), the second count in the other word; one relaxed 16-byte
// store publishes it, one relaxed 16-byte load polls it (no fence).
struct count_pair_states {
  static constexpr std::size_t flag_words = 0;
  static constexpr std::size_t value_words = 4;
  static constexpr unsigned long long count_mask = (1ull << 62) - 1;
  unsigned* flags;
  unsigned* values;  // as pairs of unsigned long long, one pair per chunk (16-byte aligned)
  template <class Backend>
  TILEKIT_HD void publish(count_t chunk, unsigned flag, const count_pair& v) const {
    Backend::store_relaxed_pair(word(chunk), (static_cast<unsigned long long>(flag) << 62) | static_cast<unsigned long long>(v.first),
                                static_cast<unsigned long long>(v.second));
  }
  template <class Backend>
  TILEKIT_HD unsigned poll(count_t chunk, count_pair& v) const {
    unsigned long long first = 0, second = 0;
    Backend::load_relaxed_pair(word(chunk), first, second);
    v.first = static_cast<count_t>(first & count_mask);
    v.second = static_cast<count_t>(second);
    return static_cast<unsigned>(first >> 62);
  }
  TILEKIT_HD unsigned long long* word(count_t chunk) const { return reinterpret_cast<unsigned long long*>(values) + 2 * chunk; }
};
// A count_pair as one 64-bit word, each count in 32 bits: for calls of fewer than 2^32
// items, whose counts all fit. Their states carry a launch's epoch tag beside it
// (epoch_states' pair layout): nothing to zero, the kernel is the call's only launch.
struct count_pair_32 {
  TILEKIT_HD static unsigned long long bits(const count_pair& v) {
    return static_cast<unsigned long long>(static_cast<unsigned>(v.first)) | (static_cast<unsigned long long>(v.second) << 32);
  }
  TILEKIT_HD static void unpack(unsigned long long b, count_pair& v) {
    v.first = static_cast<count_t>(b & 0xffffffffull);
    v.second = static_cast<count_t>(b >> 32);
  }
};
using count_pair_epoch_states = epoch_states<count_pair, true, count_pair_32>;

// The three-way partition in one pass: each item is classified once (first(x), else
// second(x), else the rest), the warps rank both counted parts with the select's row
// scan, the chunks chain the pair of counts by the look-back, and the three parts go
// through the warp's slots (one after the other) to their outputs in order. The rest's
// rank is what is left: its index minus the items of the two parts before it.
// Tagged (calls of fewer than 2^32 items; see select_tuning::partition3_tagged_below):
// launch_states of 32-bit count pairs, never zeroed; else count_pair_states, zeroed
// before the launch.
template <class In, class FirstOut, class SecondOut, class RestOut, class NumOut, class First, class Second, bool Tagged = true>
struct partition3_kernel {
  using select_t = select_kernel<true, In, FirstOut, NumOut, keep_if<First>>;  // its layout (a partition's: not lean)
  using T = value_of<In>;
  static constexpr unsigned Threads = select_t::Threads, Warps = select_t::Warps, R = select_t::R, V = select_t::V;
  using rows = typename select_t::rows;
  static constexpr count_t warp_items = select_t::warp_items, chunk_items = select_t::chunk_items;
  static constexpr unsigned MinBlocksPerSM = select_tuning::partition3_blocks_per_sm;
  static_assert(chunk_items * 31 < (count_t(1) << 32), "count_pair_plus::window: a chunk's counts must stay below 2^32 / 31");
  struct shared_t {
    unsigned warp_counts[2][Warps];
    count_pair chunk_prefix;
    alignas(T) unsigned char staged[Warps * warp_items * sizeof(T)];
    TILEKIT_HD T* warp_slots(unsigned warp_index) { return reinterpret_cast<T*>(staged + std::size_t(warp_index) * warp_items * sizeof(T)); }
  };
  In in;
  count_t n;
  FirstOut first_out;
  SecondOut second_out;
  RestOut rest_out;
  NumOut num_out;
  First first;
  Second second;
  bool vector_in;
  // Untagged: zeroed before the launch (zero_then_run): a pair of 64-bit counts leaves no
  // room for a tag in one 16-byte word, and values apart from a fenced tag measured
  // 0.78-0.92x CUB against 0.94-1.14x so at 2^16-2^28 (H200, 2026-12-03).
  stdx::conditional_t<Tagged, launch_states<count_pair, count_pair_epoch_states>, count_pair_states> states;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    auto warp = tilekit::tiled_partition<32>(block);
    shared_t& shared = ctx.template shared<shared_t>();
    const count_t chunk = count_t(ctx.grid().block_rank());
    if (n == 0) {
      if (block.thread_rank() == 0) num_out[0] = num_out[1] = 0;
      return;
    }
    unsigned long long seen = 0;
    if constexpr (Tagged) {
      seen = states.template read_counter<be>();
      if (block.thread_rank() == 0) states.template warm<be>(chunk);  // as the scan (scan.cuh)
    }
    const unsigned lane = warp.thread_rank(), warp_index = block.thread_rank() / 32;
    const count_t base = chunk * chunk_items, stretch = base + count_t(warp_index) * warp_items;
    T items[R][V];
    rows::load(items, in, n, stretch, lane, vector_in && n - base >= chunk_items);
    const unsigned valid = stretch >= n ? 0u : n - stretch < warp_items ? unsigned(n - stretch) : unsigned(warp_items);
    // Item (r, j)'s part: 0 first, 1 second, 2 the rest, 3 past n (in no part). Worked
    // out again where needed (the predicates are cheap; an array of parts cost spills).
    const auto part = [&](unsigned r, unsigned j) { return part_of(items[r][j], rows::offset(r, lane, j), valid); };
    unsigned counts_first[R], counts_second[R];
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      counts_first[r] = counts_second[r] = 0;
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const unsigned p = part(r, j);
        counts_first[r] += p == 0;
        counts_second[r] += p == 1;
      }
    }
    unsigned before_first[R], before_second[R];
    const unsigned count_first = rows::row_ranks(warp, counts_first, before_first);
    const unsigned count_second = rows::row_ranks(warp, counts_second, before_second);
    if (lane == 0) {
      shared.warp_counts[0][warp_index] = count_first;
      shared.warp_counts[1][warp_index] = count_second;
    }
    // The warp's items to its slots (stage): the slots do not depend on the chunk's prefix,
    // so the zeroed-states kernel fills them before the look-back (the other warps while
    // warp 0 looks back; the block's barriers order it before the stores' reads), the tagged
    // one after it. H200, int32, against the faster CUB (perf/results/2026-12-04-h200-7):
    // zeroed, 2^28 1.19 -> 1.22x (62 registers, not 72); tagged, 2^16 / 2^20 1.10 / 1.06 ->
    // 1.03 / 1.01 (not kept). The tagged kernel takes its slots' address only after the
    // look-back: held across it, it cost 150 instructions and 10% (0.98x at 2^16-2^20).
    if constexpr (!Tagged)
      stage(shared.warp_slots(warp_index), items, before_first, before_second, count_first, count_first + count_second, lane, valid);
    block.sync();
    count_pair before_warp{0, 0}, chunk_count{0, 0};
    TILEKIT_UNROLL
    for (unsigned v = 0; v < Warps; ++v) {
      before_warp.first += v < warp_index ? shared.warp_counts[0][v] : 0u;
      before_warp.second += v < warp_index ? shared.warp_counts[1][v] : 0u;
      chunk_count.first += shared.warp_counts[0][v];
      chunk_count.second += shared.warp_counts[1][v];
    }
    if (warp_index == 0) {
      const bool patient = ctx.grid().num_blocks() >= look_back_tuning::patient_grid;
      count_pair p;
      if constexpr (Tagged) {
        look_back<decltype(block), count_pair, count_pair_plus, count_pair_epoch_states> prefix{
            block, states.at(seen), chunk, count_pair_plus{}, count_pair{0, 0}, true, patient};
        p = prefix(chunk_count);
      } else {
        // Launched by zero_then_run: the states (the only memory it zeroes) are touched
        // from here; the items were loaded while the zeroing ran.
        be::wait_for_prior_grid();
        look_back<decltype(block), count_pair, count_pair_plus, count_pair_states> prefix{
            block, states, chunk, count_pair_plus{}, count_pair{0, 0}, true, patient};
        p = prefix(chunk_count);
      }
      if (lane == 0) shared.chunk_prefix = p;
    }
    block.sync();
    T* const slots = shared.warp_slots(warp_index);
    const unsigned second_slot0 = count_first, rest_slot0 = count_first + count_second;
    if constexpr (Tagged) {
      stage(slots, items, before_first, before_second, second_slot0, rest_slot0, lane, valid);
      warp.sync();
    }
    const count_t first_before = shared.chunk_prefix.first + before_warp.first;
    const count_t second_before = shared.chunk_prefix.second + before_warp.second;
    const count_t rest_before = stretch - first_before - second_before;
    // Each lane's three places worked out once, slot k = i x 32 + lane at a constant
    // offset from one of them (as select_kernel::write); a whole stretch without the bounds check.
    const count_t first = first_before + lane, second = second_before + lane - second_slot0,
                  rest = rest_before + lane - rest_slot0;
    auto put = [&](unsigned i) {
      const unsigned k = i * 32 + lane;
      const T x = slots[k];
      if (k < second_slot0) first_out[first + count_t(i * 32)] = x;
      else if (k < rest_slot0) second_out[second + count_t(i * 32)] = x;
      else rest_out[rest + count_t(i * 32)] = x;
    };
    for_slots<R * V>(valid, lane, put);
    if (base + chunk_items >= n && block.thread_rank() == 0) {  // the last chunk knows the totals
      num_out[0] = shared.chunk_prefix.first + chunk_count.first;
      num_out[1] = shared.chunk_prefix.second + chunk_count.second;
      // its thread 0 ran the look-back: every chunk before it has published
      if constexpr (Tagged) states.template close<be>(seen);
    }
  }

  // Item x's part: 0 first, 1 second, 2 the rest, 3 past n (offset: its place in the
  // warp's stretch, valid: the stretch's items below n).
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned part_of(const T& x, unsigned offset, unsigned valid) const {
    return offset >= valid ? 3u : bool(first(x)) ? 0u : bool(second(x)) ? 1u : 2u;
  }

  // The warp's items to its slots in one pass: the first part from slot 0, the second from
  // second_slot0, the rest from rest_slot0, each in order; then one coalesced run of stores.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void stage(T* slots, const T (&items)[R][V], const unsigned (&before_first)[R], const unsigned (&before_second)[R],
                        unsigned second_slot0, unsigned rest_slot0, unsigned lane, unsigned valid) const {
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      unsigned mine_first = before_first[r], mine_second = before_second[r];
      unsigned mine_rest = rows::offset(r, lane, 0) - before_first[r] - before_second[r];
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const unsigned p = part_of(items[r][j], rows::offset(r, lane, j), valid);
        const unsigned slot = p == 0 ? mine_first : p == 1 ? second_slot0 + mine_second : rest_slot0 + mine_rest;
        if (p < 3) slots[slot] = items[r][j];
        mine_first += p == 0;
        mine_second += p == 1;
        mine_rest += p == 2;
      }
    }
  }
};

// The three-way partition with one kind of chunk states (partition3_kernel's Tagged:
// only below 2^32 items, else invalid_value); device_partition_three_way picks it by n.
template <bool Tagged, class Launcher, class In, class FirstOut, class SecondOut, class RestOut, class NumOut, class First,
          class Second>
typename Launcher::error_type partition_three_way_states(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                         count_t n, FirstOut first_out, SecondOut second_out, RestOut rest_out,
                                                         NumOut num_out, First first, Second second) {
  using body_t = partition3_kernel<In, FirstOut, SecondOut, RestOut, NumOut, First, Second, Tagged>;
  const count_t chunks = n > 0 ? (n + body_t::chunk_items - 1) / body_t::chunk_items : 0;
  const auto storage = [&] {
    if constexpr (Tagged) return carve_launch_states<count_pair, count_pair_epoch_states>(temp, chunks, next_call_tag());
    else return carve_chunk_states<count_pair, count_pair_states>(temp, chunks);
  }();
  if (n < 0) return launcher.invalid_value;
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (temp_bytes < storage.bytes || chunks > 0x7fffffff || is_null(num_out) ||
      (n > 0 && (is_null(in) || is_null(first_out) || is_null(second_out) || is_null(rest_out))) ||
      (Tagged && n >= (count_t(1) << 32)))  // the tagged states' counts are 32-bit
    return launcher.invalid_value;
  const bool vector_in = misaligned_head(in, body_t::chunk_items) == 0;
  const body_t body{in, n, first_out, second_out, rest_out, num_out, first, second, vector_in, storage.states};
  const unsigned blocks = unsigned(chunks > 0 ? chunks : 1);
  if constexpr (Tagged) {
    launcher.assume_initialized(storage.first, storage.used);  // any content is valid (launch_states)
    return launcher.run(blocks, body_t::Threads, body, sizeof(typename body_t::shared_t));
  } else {
    return launcher.zero_then_run(storage.zero_from, chunks > 0 ? storage.zero_bytes : 0, chunks >= launch_tuning::overlap_chunks,
                                  blocks, body_t::Threads, body, sizeof(typename body_t::shared_t));
  }
}
}  // namespace detail

/// The three-way partition, for any launcher: first_out gets the items x with first(x), second_out
/// those with !first(x) && second(x), rest_out the others, each in input order; num_out[0] and
/// num_out[1] the first two counts. One pass (detail::partition3_kernel). Returns
/// launcher.invalid_value, writing nothing, for n < 0, a null num_out, a null input or output
/// with n > 0, a too small temp_bytes, more than 2^31 - 1 chunks; temp == nullptr only sets
/// temp_bytes. The outputs must not overlap the input or each other.
template <class Launcher, class In, class FirstOut, class SecondOut, class RestOut, class NumOut, class First, class Second>
typename Launcher::error_type device_partition_three_way(const Launcher& launcher, void* temp, std::size_t& temp_bytes,
                                                         In in, detail::count_t n, FirstOut first_out,
                                                         SecondOut second_out, RestOut rest_out, NumOut num_out,
                                                         First first, Second second) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<FirstOut> || detail::wraps_pointer_v<SecondOut> ||
                detail::wraps_pointer_v<RestOut> || detail::wraps_pointer_v<NumOut>)  // thrust::device_ptr: as its pointer
    return device_partition_three_way(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(first_out),
                                      detail::unwrap(second_out), detail::unwrap(rest_out), detail::unwrap(num_out), first,
                                      second);
  // Tagged states (every count in 32 bits) for smaller calls, zeroed ones from
  // select_tuning::partition3_tagged_below items. The size query and the call see the
  // same n, so pick the same states.
  if (n < select_tuning::partition3_tagged_below)
    return detail::partition_three_way_states<true>(launcher, temp, temp_bytes, in, n, first_out, second_out, rest_out, num_out,
                                                    first, second);
  return detail::partition_three_way_states<false>(launcher, temp, temp_bytes, in, n, first_out, second_out, rest_out, num_out,
                                                   first, second);
}

/// Unique by key, for any launcher: keys_out / values_out get the first key of every run
/// of keys equal under eq and its value, in order, and *num_out their count (one pass:
/// device_select over the keys, the values following the kept keys). Returns
/// launcher.invalid_value, writing nothing, for n < 0, a null num_out, null keys or values
/// (in or out) with n > 0, a too small temp_bytes; temp == nullptr only sets temp_bytes.
/// Outputs must not overlap inputs.
template <class Launcher, class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class NumOut, class Eq>
typename Launcher::error_type device_unique_by_key(const Launcher& launcher, void* temp, std::size_t& temp_bytes,
                                                   KeysIn keys_in, ValuesIn values_in, detail::count_t n,
                                                   KeysOut keys_out, ValuesOut values_out, NumOut num_out, Eq eq) {
  auto vi = detail::unwrap(values_in);
  auto vo = detail::unwrap(values_out);
  if (temp != nullptr && n > 0 && (detail::is_null(vi) || detail::is_null(vo))) return launcher.invalid_value;
  return device_select<false>(launcher, temp, temp_bytes, detail::unwrap(keys_in), n, detail::unwrap(keys_out), num_out,
                              keep_unique<Eq>{eq}, with_values<decltype(vi), decltype(vo)>{vi, vo});
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::device {

template <class In, class Out, class NumOut, class Pred>
cudaError_t select_if(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, NumOut num_out, Pred pred,
                      cudaStream_t stream = 0) {
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out, tilekit::keep_if<Pred>{pred});
}

template <class In, class Flags, class Out, class NumOut>
cudaError_t select_flagged(void* temp, std::size_t& temp_bytes, In in, Flags flags, std::int64_t n, Out out,
                           NumOut num_out, cudaStream_t stream = 0) {
  auto f = tilekit::detail::unwrap(flags);  // thrust::device_ptr: as its pointer (vector loads)
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out, tilekit::keep_flagged<decltype(f)>{f});
}

template <class In, class Flags, class Out, class NumOut, class Pred>
cudaError_t select_flagged_if(void* temp, std::size_t& temp_bytes, In in, Flags flags, std::int64_t n, Out out,
                              NumOut num_out, Pred pred, cudaStream_t stream = 0) {
  auto f = tilekit::detail::unwrap(flags);
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out,
                       tilekit::keep_flagged_if<decltype(f), Pred>{f, pred});
}

template <class In, class Out, class NumOut>
cudaError_t unique(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, NumOut num_out,
                   cudaStream_t stream = 0) {
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out,
                       tilekit::keep_unique<equal_to>{equal_to{}});
}

template <class In, class Out, class NumOut, class Pred>
cudaError_t partition(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, NumOut num_out, Pred pred,
                      cudaStream_t stream = 0) {
  return device_select<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out,
                             tilekit::keep_if<Pred>{pred});
}

template <class In, class Flags, class Out, class NumOut>
cudaError_t partition_flagged(void* temp, std::size_t& temp_bytes, In in, Flags flags, std::int64_t n, Out out,
                              NumOut num_out, cudaStream_t stream = 0) {
  auto f = tilekit::detail::unwrap(flags);
  return device_select<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out, tilekit::keep_flagged<decltype(f)>{f});
}

template <class In, class FirstOut, class SecondOut, class RestOut, class NumOut, class First, class Second>
cudaError_t partition_three_way(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, FirstOut first_out,
                                SecondOut second_out, RestOut rest_out, NumOut num_out, First first, Second second,
                                cudaStream_t stream = 0) {
  return device_partition_three_way(gpu_launcher{stream}, temp, temp_bytes, in, n, first_out, second_out, rest_out,
                                    num_out, first, second);
}

template <class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class NumOut, class Eq = equal_to>
cudaError_t unique_by_key(void* temp, std::size_t& temp_bytes, KeysIn keys_in, ValuesIn values_in, std::int64_t n,
                          KeysOut keys_out, ValuesOut values_out, NumOut num_out, Eq eq = {}, cudaStream_t stream = 0) {
  return device_unique_by_key(gpu_launcher{stream}, temp, temp_bytes, keys_in, values_in, n, keys_out, values_out, num_out,
                              eq);
}

template <class In, class Out, class NumOut, class Pred>
cudaError_t select_if(In in, std::int64_t n, Out out, NumOut num_out, Pred pred, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::select_if(t, b, in, n, out, num_out, pred, stream); });
}

template <class In, class Out, class NumOut>
cudaError_t unique(In in, std::int64_t n, Out out, NumOut num_out, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::unique(t, b, in, n, out, num_out, stream); });
}

template <class In, class Out, class NumOut, class Pred>
cudaError_t partition(In in, std::int64_t n, Out out, NumOut num_out, Pred pred, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::partition(t, b, in, n, out, num_out, pred, stream); });
}

}  // namespace tilekit::device
#endif  // __CUDACC__
