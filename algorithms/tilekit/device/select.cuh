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
// memory and the chunks' counts chained by the decoupled look-back (64-bit counts,
// packed with their flag). keep(i, item, previous) sees the global index and, for
// keep_unique, the item before. Without Partition out may be in (in place): a chunk
// writes below its own end only after the look-back, when every chunk before it has
// read its items (a chunk publishes its count after loading them). Otherwise out must
// not overlap in.

/// What device_select keeps, for any launcher (the GPU entry points below build them):
/// keep(i, item, previous) sees item i of the input and, where wants_previous, the item
/// before it. keep_if: pred(item); keep_flagged: flags[i]; keep_flagged_if: pred(flags[i]);
/// keep_unique: the first item of every run of items equal under eq.
template <class Pred>
struct keep_if {
  static constexpr bool wants_previous = false;  ///< the item before is not needed
  Pred pred;                                     ///< called on each item; true keeps it
  /// Whether to keep `item`: pred(item).
  template <class T>
  TILEKIT_HD bool operator()(detail::count_t, const T& item, const T&) const { return bool(pred(item)); }
};

/// Keeps item i where flags[i] (converted to bool) is true.
template <class Flags>
struct keep_flagged {
  static constexpr bool wants_previous = false;  ///< the item before is not needed
  Flags flags;                                   ///< one flag per input item, read as flags[i]
  /// Whether to keep item i: flags[i].
  template <class T>
  TILEKIT_HD bool operator()(detail::count_t i, const T&, const T&) const { return bool(flags[i]); }
};

/// Keeps item i where pred(flags[i]) is true (CUB's FlaggedIf).
template <class Flags, class Pred>
struct keep_flagged_if {
  static constexpr bool wants_previous = false;  ///< the item before is not needed
  Flags flags;                                   ///< one value per input item, read as flags[i]
  Pred pred;                                     ///< called on flags[i]; true keeps item i
  /// Whether to keep item i: pred(flags[i]).
  template <class T>
  TILEKIT_HD bool operator()(detail::count_t i, const T&, const T&) const { return bool(pred(flags[i])); }
};

/// Keeps the first item of every run of items equal under eq (CUB's Unique).
template <class Eq>
struct keep_unique {
  static constexpr bool wants_previous = true;  ///< compares each item with the one before
  Eq eq;                                        ///< the equality of two items
  /// Whether to keep item i: it is the first item, or differs from `previous` (item i - 1).
  template <class T>
  TILEKIT_HD bool operator()(detail::count_t i, const T& item, const T& previous) const {
    return i == 0 || !eq(previous, item);
  }
};

/// What travels with the selected items: nothing (every select but unique_by_key) ...
struct no_values {
  static constexpr bool present = false;
  using value_type = char;
};
/// ... or a value per item (unique_by_key): item i's value in[i] goes where item i goes, to out[..].
template <class ValuesIn, class ValuesOut>
struct with_values {
  static constexpr bool present = true;
  using value_type = detail::value_of<ValuesIn>;
  ValuesIn in;    ///< one value per input item
  ValuesOut out;  ///< the selected items' values, in the same order as the items
};

namespace detail {

template <class Values>
struct values_input {  // no_values: nothing to read
  static constexpr bool vector_loadable = false;
  using type = const char*;
};
template <class ValuesIn, class ValuesOut>
struct values_input<with_values<ValuesIn, ValuesOut>> {
  static constexpr bool vector_loadable = vector_loadable_v<ValuesIn>;
  using type = ValuesIn;
};

template <bool Partition, class In, class Out, class NumOut, class Keep, class Values = no_values>
struct select_kernel {
  using T = value_of<In>;
  static constexpr unsigned Threads = select_tuning::threads, Warps = Threads / 32;
  static constexpr unsigned V = vector_items<In>();  // items per lane in a row
  // Rows of 16-byte vectors: vector_rows; for items under 4 bytes only as many as hold the
  // 4 * vector_rows items per lane of 4-byte items, at least one (1-byte items in 6 rows spilled 300 bytes).
  static constexpr unsigned narrow_rows = 4 * select_tuning::vector_rows / V;
  static constexpr unsigned R = !vector_loadable_v<In> ? select_tuning::scalar_rows
                                : V <= 4               ? select_tuning::vector_rows
                                : narrow_rows > 0      ? narrow_rows
                                                       : 1;
  using rows = warp_rows<R, V>;  // each warp's stretch of the chunk
  static constexpr count_t warp_items = rows::items, chunk_items = Warps * warp_items;
  using U = typename Values::value_type;
  /// The values load as vectors in the items' layout where a lane's V values fill whole 16-byte vectors.
  static constexpr bool values_vectorisable = values_input<Values>::vector_loadable && V * sizeof(U) % 16 == 0;
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
  count_states states;
  Values values;
  bool vector_values;  // values.in is 16-byte aligned and values_vectorisable

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    decltype(block)::backend::wait_for_prior_grid();  // launched by zero_then_run
    auto warp = tilekit::tiled_partition<32>(block);
    shared_t& shared = ctx.template shared<shared_t>();
    const count_t chunk = count_t(ctx.grid().block_rank());
    if (n == 0) {
      if (block.thread_rank() == 0) *num_out = 0;
      return;
    }
    const unsigned lane = warp.thread_rank(), warp_index = block.thread_rank() / 32;
    const count_t base = chunk * chunk_items, stretch = base + count_t(warp_index) * warp_items;
    T items[R][V];
    bool kept[R][V];
    const bool whole = n - base >= chunk_items;
    rows::load(items, in, n, stretch, lane, vector_in && whole);
    U item_values[Values::present ? R : 1][Values::present ? V : 1];
    if constexpr (Values::present) rows::load(item_values, values.in, n, stretch, lane, vector_values && whole);
    // The stretch's items below n, in 32 bits (the bounds check of every item is one 32-bit compare).
    const unsigned valid = stretch >= n ? 0u : n - stretch < warp_items ? unsigned(n - stretch) : unsigned(warp_items);
    unsigned before[R];  // kept items of this warp before this lane's first item in each row
    const unsigned count = classify(warp, items, kept, before, stretch, valid);  // of the stretch
    if (lane == 0) shared.warp_counts[warp_index] = count;
    block.sync();
    count_t before_warp = 0, chunk_count = 0;
    TILEKIT_UNROLL
    for (unsigned v = 0; v < Warps; ++v) {
      before_warp += v < warp_index ? shared.warp_counts[v] : 0u;
      chunk_count += shared.warp_counts[v];
    }
    if (warp_index == 0) {
      const bool patient = ctx.grid().num_blocks() >= look_back_tuning::patient_grid;
      look_back<decltype(block), count_t, plus, count_states, chunk_items> prefix{block, states, chunk, plus{},
                                                                                  count_t(0), true, patient};
      const count_t p = prefix(chunk_count);
      if (lane == 0) shared.chunk_prefix = p;
    }
    block.sync();
    // The warp's kept items go to shared memory in order, its rejected ones (partition)
    // after them; then each kind is written as one contiguous run (coalesced stores,
    // not one scattered store per item), the rejected ones backwards from the end.
    // Values, where they travel, follow through the same slots.
    const count_t kept_before = shared.chunk_prefix + before_warp;
    const count_t rejected_before = stretch - kept_before;  // partition: rejected item k (>= count) goes to
    const count_t rejected_last = n - 1 - rejected_before + count;  // out[rejected_last - k], backwards from the end
    const unsigned stored = Partition ? valid : count;
    T* item_slots = shared.template warp_slots<T>(warp_index);
    stage(item_slots, items, kept, before, count, lane);
    warp.sync();
    write(out, item_slots, lane, stored, count, kept_before, rejected_last);
    if constexpr (Values::present) {
      U* value_slots = shared.template warp_slots<U>(warp_index);
      warp.sync();  // the items' slots are read
      stage(value_slots, item_values, kept, before, count, lane);
      warp.sync();
      write(values.out, value_slots, lane, stored, count, kept_before, rejected_last);
    }
    // The last chunk knows the total.
    if (base + chunk_items >= n && block.thread_rank() == 0) *num_out = shared.chunk_prefix + chunk_count;
  }

  // A lane's items (or values) to the warp's slots: a kept item to slot `mine` (its rank
  // among the kept); for partition, every other one (past `valid` too: it stays in the
  // warp's slots and is never stored) to count + the items before it not kept (offset - mine).
  template <class X>
  TILEKIT_HD static void stage(X* slots, const X (&xs)[R][V], const bool (&kept)[R][V], const unsigned (&before)[R],
                               unsigned count, unsigned lane) {
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      unsigned mine = before[r];
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const unsigned slot = kept[r][j] ? mine : count + rows::offset(r, lane, j) - mine;
        if (Partition || kept[r][j]) slots[slot] = xs[r][j];
        mine += kept[r][j];
      }
    }
  }

  // The warp's first `stored` slots to their places: the kept ones (k < count) to
  // dst[kept_before + k], the rejected ones (partition) to dst[rejected_last - k].
  // Unrolled over the stretch's slots (the shared loads issue together), not a loop to `stored`.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Dst, class X>
  TILEKIT_HD static void write(Dst dst, const X* slots, unsigned lane, unsigned stored, unsigned count, count_t kept_before,
                               count_t rejected_last) {
    TILEKIT_UNROLL
    for (unsigned i = 0; i < R * V; ++i) {
      const unsigned k = i * 32 + lane;
      if (k < stored) dst[!Partition || k < count ? kept_before + k : rejected_last - k] = slots[k];
    }
  }

  // Which items the warp keeps (kept) and, per row, the kept items of the stretch
  // before this lane's first item in the row (before); returns the stretch's kept
  // items. The first `valid` items of the stretch are below n.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Warp>
  TILEKIT_HD unsigned classify(const Warp& warp, const T (&items)[R][V], bool (&kept)[R][V], unsigned (&before)[R],
                               count_t stretch, unsigned valid) const {
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
        kept[r][j] = rows::offset(r, lane, j) < valid && keep(at + j, items[r][j], j == 0 ? previous : items[r][j - 1]);
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
/// nothing, for n < 0, null pointers with n > 0 (in, out, num_out, always), temp_bytes
/// too small, or more than 2^31 - 1 chunks.
template <bool Partition = false, class Launcher, class In, class Out, class NumOut, class Keep, class Values = no_values>
typename Launcher::error_type device_select(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            detail::count_t n, Out out, NumOut num_out, Keep keep, Values values = {}) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out> || detail::wraps_pointer_v<NumOut>)  // thrust::device_ptr: as its pointer
    return device_select<Partition>(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(out),
                                    detail::unwrap(num_out), keep, values);
  using body_t = detail::select_kernel<Partition, In, Out, NumOut, Keep, Values>;
  const detail::count_t chunks = n > 0 ? (n + body_t::chunk_items - 1) / body_t::chunk_items : 0;
  const auto storage = detail::carve_chunk_states<detail::count_t, detail::count_states>(temp, chunks);
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (temp_bytes < storage.bytes || chunks > 0x7fffffff) return launcher.invalid_value;
  if (detail::is_null(num_out) || (n > 0 && (detail::is_null(in) || detail::is_null(out)))) return launcher.invalid_value;
  const bool vector_in = detail::misaligned_head(in, body_t::chunk_items) == 0;
  bool vector_values = false;
  if constexpr (body_t::values_vectorisable) vector_values = detail::misaligned_head(values.in, body_t::chunk_items) == 0;
  return launcher.zero_then_run(storage.zero_from, chunks > 0 ? storage.zero_bytes : 0,
                                chunks >= launch_tuning::overlap_chunks, unsigned(chunks > 0 ? chunks : 1), body_t::Threads,
                                body_t{in, n, out, num_out, keep, vector_in, storage.states, values, vector_values},
                                sizeof(typename body_t::shared_t));
}

namespace detail {

// The three-way partition's second and third parts, as keep_if predicates.
template <class First, class Second>
struct second_part {
  First first;
  Second second;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD bool operator()(const T& x) const { return !bool(first(x)) && bool(second(x)); }
};
template <class First, class Second>
struct neither_part {
  First first;
  Second second;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD bool operator()(const T& x) const { return !bool(first(x)) && !bool(second(x)); }
};
}  // namespace detail

/// The three-way partition, for any launcher: first_out gets the items x with first(x), second_out
/// those with !first(x) && second(x), rest_out the others, each in input order; num_out[0] and
/// num_out[1] the first two counts. Three selects over the input (one pass each); the rest's count
/// goes to the temporary storage. Returns launcher.invalid_value, writing nothing, for n < 0, a
/// null num_out, a null input or output with n > 0, a too small temp_bytes; temp == nullptr only
/// sets temp_bytes. The outputs must not overlap the input or each other.
template <class Launcher, class In, class FirstOut, class SecondOut, class RestOut, class NumOut, class First, class Second>
typename Launcher::error_type device_partition_three_way(const Launcher& launcher, void* temp, std::size_t& temp_bytes,
                                                         In in, detail::count_t n, FirstOut first_out,
                                                         SecondOut second_out, RestOut rest_out, NumOut num_out,
                                                         First first, Second second) {
  std::size_t select_bytes = 0;
  if (device_select<false>(launcher, nullptr, select_bytes, in, n, first_out, num_out, keep_if<First>{first}) !=
      launcher.success)
    return launcher.invalid_value;
  detail::temp_carver carve(temp);
  unsigned char* select_temp = carve.take<unsigned char>(select_bytes);
  detail::count_t* rest_count = carve.take<detail::count_t>(1);
  if (temp == nullptr) {
    temp_bytes = carve.bytes();
    return launcher.success;
  }
  if (temp_bytes < carve.bytes() || detail::is_null(num_out) ||
      (n > 0 && (detail::is_null(in) || detail::is_null(first_out) || detail::is_null(second_out) || detail::is_null(rest_out))))
    return launcher.invalid_value;
  std::size_t b = select_bytes;
  if (auto e = device_select<false>(launcher, select_temp, b, in, n, first_out, num_out, keep_if<First>{first});
      e != launcher.success)
    return e;
  if (auto e = device_select<false>(launcher, select_temp, b, in, n, second_out, num_out + 1,
                                    keep_if<detail::second_part<First, Second>>{{first, second}});
      e != launcher.success)
    return e;
  return device_select<false>(launcher, select_temp, b, in, n, rest_out, rest_count,
                              keep_if<detail::neither_part<First, Second>>{{first, second}});
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
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out,
                       tilekit::keep_flagged<Flags>{flags});
}

template <class In, class Flags, class Out, class NumOut, class Pred>
cudaError_t select_flagged_if(void* temp, std::size_t& temp_bytes, In in, Flags flags, std::int64_t n, Out out,
                              NumOut num_out, Pred pred, cudaStream_t stream = 0) {
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out,
                       tilekit::keep_flagged_if<Flags, Pred>{flags, pred});
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
  return device_select<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out,
                             tilekit::keep_flagged<Flags>{flags});
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
