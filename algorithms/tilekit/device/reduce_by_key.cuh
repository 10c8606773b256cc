// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/reduce_by_key.cuh - reductions and scans of the runs of equal keys on
// the GPU, one pass (the kernel and its dispatch below).
//
//   reduce_by_key(temp, temp_bytes, keys_in, values_in, n, keys_out, aggregates_out, num_runs_out, op[, eq][, stream])
//       for every run of adjacent keys equal under eq (default ==): its first key, and op
//       over its values in order (as cub::DeviceReduce::ReduceByKey)
//   inclusive_scan_by_key(temp, temp_bytes, keys_in, values_in, n, values_out, op[, eq][, stream])
//       values_out[i] = op over the values of i's run up to i (cub::DeviceScan::InclusiveScanByKey)
//   exclusive_scan_by_key(temp, temp_bytes, keys_in, values_in, n, values_out, op, init[, eq][, stream])
//       values_out[i] = init op the values of i's run before i (cub::DeviceScan::ExclusiveScanByKey)
// n is a 64-bit count; op need only be associative; the scans run in place (values_out
// == values_in). Errors: cudaErrorInvalidValue, with nothing written, for n < 0, null
// pointers (num_runs_out always, the others with n > 0), a too small temp_bytes.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/exchange.cuh>
#include <tilekit/block/scan.cuh>
#include <tilekit/device/detail/look_back.cuh>

namespace tilekit {

// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_reduce_by_key(launcher, temp, temp_bytes, keys_in, values_in, n, keys_out,
// aggregates_out, num_runs_out, op, eq) and device_scan_by_key<Inclusive>(launcher, temp,
// temp_bytes, keys_in, values_in, n, values_out, op, init, eq): every item is scanned as
// the pair {run heads, value} with the segmented operator (heads add up; a value
// restarts at a head), so an item's inclusive prefix holds how many runs began up to it
// and op over its run so far. Reduce: a run's head writes its key to keys_out[heads - 1],
// its last item the run's aggregate to aggregates_out[heads - 1], and the chunk holding
// item n - 1 the run count. Scans: each item writes its prefix's value (exclusive: init,
// or init op the item before's, which the block passes along). The pairs are chained
// across chunks by the scan's decoupled look-back (one chunk per block, blocked items).

namespace detail {

template <class V, class Count = count_t>
struct run_sum {
  Count heads;  // run heads up to and including this item
  V value;      // op over the current run's values up to this item
};

template <class Op>
struct run_sum_op {  // associative (as op), not commutative
  Op op;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class V, class Count>
  TILEKIT_HD run_sum<V, Count> operator()(const run_sum<V, Count>& a, const run_sum<V, Count>& b) const {
    return {Count(a.heads + b.heads), b.heads > 0 ? b.value : V(op(a.value, b.value))};
  }
};

// The look-back's chunk states of run_sum pairs whose value has at most 8 bytes: the
// flag in the top two bits of a 64-bit word above the head count (below 2^62), the
// value's bits in a second word, published and polled as one relaxed 16-byte access
// (no fence, as chunk_states' pair layout, which a 16-byte run_sum is too wide for:
// it would take the fenced one). Wider values: the fenced layout.
template <class V>
struct run_sum_states {
  static constexpr std::size_t flag_words = 0;
  static constexpr std::size_t value_words = 4;  // one 16-byte word per chunk
  static constexpr unsigned long long heads_mask = (1ull << 62) - 1;
  unsigned* flags;
  unsigned* values;  // as pairs of unsigned long long, one pair per chunk (16-byte aligned)

  template <class Backend>
  TILEKIT_HD void publish(count_t chunk, unsigned flag, const run_sum<V>& v) const {
    unsigned long long bits = 0;
    std::memcpy(&bits, &v.value, sizeof(V));
    Backend::store_relaxed_pair(word(chunk), (static_cast<unsigned long long>(flag) << 62) | static_cast<unsigned long long>(v.heads),
                                bits);
  }
  template <class Backend>
  TILEKIT_HD unsigned poll(count_t chunk, run_sum<V>& v) const {
    unsigned long long first = 0, bits = 0;
    Backend::load_relaxed_pair(word(chunk), first, bits);
    v.heads = static_cast<count_t>(first & heads_mask);
    std::memcpy(static_cast<void*>(&v.value), &bits, sizeof(V));
    return static_cast<unsigned>(first >> 62);
  }
  TILEKIT_HD unsigned long long* word(count_t chunk) const { return reinterpret_cast<unsigned long long*>(values) + 2 * chunk; }
};
template <class V>
using run_sum_states_t = stdx::conditional_t<sizeof(V) <= 8, run_sum_states<V>, chunk_states<run_sum<V>>>;

// A run_sum of a value of at most 4 bytes as one 64-bit word, the head count in 32 bits: for
// calls of fewer than 2^32 items, whose counts all fit. Their states carry a launch's epoch
// tag beside it (epoch_states' pair layout): nothing to zero, the kernel is the call's only launch.
template <class V>
struct run_sum_32 {
  static_assert(sizeof(V) <= 4, "run_sum_32 packs a value of at most 4 bytes");
  TILEKIT_HD static unsigned long long bits(const run_sum<V>& v) {
    unsigned value = 0;
    std::memcpy(&value, &v.value, sizeof(V));
    return static_cast<unsigned long long>(static_cast<unsigned>(v.heads)) | (static_cast<unsigned long long>(value) << 32);
  }
  TILEKIT_HD static void unpack(unsigned long long b, run_sum<V>& v) {
    v.heads = static_cast<count_t>(b & 0xffffffffull);
    const unsigned value = static_cast<unsigned>(b >> 32);
    std::memcpy(static_cast<void*>(&v.value), &value, sizeof(V));
  }
};
template <class V>
using run_sum_epoch_states = epoch_states<run_sum<V>, true, run_sum_32<V>>;

enum class by_key { reduce, inclusive_scan, exclusive_scan };

// The block scan's prefix callback: the chunk's pairs count heads in 32 bits (a chunk
// has fewer items), the look-back across chunks in 64. It hands the look-back the
// chunk's aggregate widened, keeps what the look-back returns (thread 0's: the chunk's
// exclusive prefix, whose heads are the runs before the chunk) in *slot, and seeds the
// block with its value alone: a seed's head count does not change any item's value.
template <class LookBack, class Wide, class Narrow>
struct narrow_prefix {
  LookBack look_back;
  Wide* slot;
  unsigned rank;
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD Narrow operator()(const Narrow& aggregate) const {
    const Wide p = look_back(Wide{count_t(aggregate.heads), aggregate.value});
    if (rank == 0) *slot = p;
    return {0u, p.value};
  }
};

// Mode reduce: keys_out, aggregates_out and num_out are written; the scans:
// aggregates_out only, one output per item (init: the exclusive scan's).
// Keys and values are read warp-striped (each load instruction of a warp reads 32
// consecutive items, 16-byte vectors where aligned) and turned blocked through the
// warp's shared slots; the scans' outputs go back the same way.
// WideBlocks: blocks of reduce_by_key_tuning::scan_threads, else of ::threads (ReduceByKey
// from ::narrow_from items). Tagged (values of at most 4 bytes, calls of fewer than 2^32
// items; see reduce_by_key_tuning::tagged_below): launch_states of run_sum_epoch_states,
// never zeroed; else run_sum_states_t, zeroed before the launch.
template <by_key Mode, class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class NumOut, class Op, class Eq,
          bool WideBlocks = Mode != by_key::reduce, bool Tagged = false>
struct by_key_kernel {
  using K = value_of<KeysIn>;
  using V = value_of<ValuesIn>;
  using pair_t = run_sum<V>;               // across chunks: 64-bit run counts
  using local_t = run_sum<V, unsigned>;    // inside a chunk
  using states_t = run_sum_states_t<V>;
  static_assert(!Tagged || sizeof(V) <= 4, "tagged by-key states pack values of at most 4 bytes");
  using epoch_states_t = stdx::conditional_t<Tagged, run_sum_epoch_states<V>, states_t>;  // what a launch publishes
  using all_states_t = stdx::conditional_t<Tagged, launch_states<pair_t, epoch_states_t>, states_t>;
  static constexpr bool tagged = Tagged;
  static constexpr unsigned Threads = WideBlocks ? reduce_by_key_tuning::scan_threads : reduce_by_key_tuning::threads;
  static constexpr unsigned Items = reduce_by_key_tuning::items;
  static constexpr unsigned MinBlocksPerSM =  // the registers' bound
      !WideBlocks                              ? reduce_by_key_tuning::blocks_per_sm
      : Mode != by_key::reduce && sizeof(V) <= 4 ? reduce_by_key_tuning::narrow_scan_blocks_per_sm
                                                 : reduce_by_key_tuning::scan_blocks_per_sm;
  static constexpr count_t chunk_items = count_t(Threads) * Items;
  static constexpr unsigned Warps = Threads / 32;
  using transpose = warp_transpose<Items>;  // item by item; whole aligned stretches: warp_vector_transpose
  static constexpr unsigned slot_bytes = sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V);
  // Reduce: a chunk's run keys and aggregates gathered in shared memory, then written
  // out by the block in order (coalesced), rather than each by the thread of its item.
  // The keys stay in their own exchange slots for it; the values' slots then hold the
  // aggregates (slot j + 1: run j of the chunk, slot 0 the run begun before it).
  static constexpr bool staged = Mode == by_key::reduce && sizeof(K) <= 8 && sizeof(V) <= 8;
  struct shared_t {
    scan_storage<local_t, Threads> scan;
    // per warp: keys, then values (staged: values only; their slots then the aggregates)
    alignas(16) raw_slots<unsigned char, Warps * transpose::slots * slot_bytes> exchange;
    alignas(16) raw_slots<K, staged ? Warps * transpose::slots : 1> key_exchange;  // staged: the keys, per warp
    raw_slots<K, staged ? unsigned(chunk_items) : 1> run_keys;  // staged: run j's key, for the runs begun in the chunk
    unsigned run_counts[2];  // staged: the chunk's runs begun (before n), aggregate slots filled + 1
    raw_slots<unsigned char, Threads> first_is_head;  // whether each thread's first item is a head
    raw_slots<local_t, Mode == by_key::exclusive_scan ? Threads : 1> last;  // exclusive scan: each thread's last inclusive pair
    raw_slots<pair_t, 1> chunk_prefix;                 // the chunk's exclusive prefix (chunks after the first)
  };
  KeysIn keys_in;
  ValuesIn values_in;
  count_t n;
  KeysOut keys_out;
  ValuesOut aggregates_out;  // reduce: the aggregates; the scans: every item's output
  NumOut num_out;
  Op op;
  V init;  // the exclusive scan's
  Eq eq;
  all_states_t states;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using backend = typename decltype(block)::backend;
    auto warp = tilekit::tiled_partition<32>(block);
    shared_t& shared = ctx.template shared<shared_t>();
    const unsigned rank = block.thread_rank(), lane = warp.thread_rank();
    const count_t chunk = count_t(ctx.grid().block_rank()), base = chunk * chunk_items;
    unsigned long long seen = 0;
    if constexpr (Tagged) {
      seen = states.template read_counter<backend>();
      if (rank == 0) states.template warm<backend>(chunk);  // as the scan (scan.cuh)
    }
    const count_t warp_base = base + count_t(warp.meta_group_rank()) * 32 * Items;
    const count_t first = warp_base + count_t(lane) * Items;  // this thread's first item
    unsigned char* slots = &shared.exchange.bytes[warp.meta_group_rank() * transpose::slots * slot_bytes];
    K* key_slots = staged ? &shared.key_exchange[warp.meta_group_rank() * transpose::slots] : reinterpret_cast<K*>(slots);

    // Items past n: the chunk's first key and value, each a head of its own, so that op never
    // combines them (with anything): the last chunk's padding would otherwise add into its
    // last run, e.g. overflowing a signed sum. No item before n, nor any output, sees them.
    bool head[Items];
    bool key_vectors;  // whether key_slots hold the keys in the vector layout
    {
      K keys[Items];
      key_vectors = load_blocked(warp, keys_in, warp_base, base, keys, key_slots);
      K previous = keys[0];
      if (lane > 0) previous = key_slots[slot_of<KeysIn>(lane * Items - 1, key_vectors)];
      else if (first > 0 && first <= n) previous = K(keys_in[first - 1]);
      // Two ways to write it, each the faster for its mode (H200, int32 at 2^24 / 2^28, speed
      // against the heads not set past n, which overflow: ReduceByKey 0.98 / 0.98 this way and
      // 0.88 / 0.87 the other; the scans 0.99 / 0.99 the other way and 0.89 / 0.85 this way).
      if constexpr (Mode == by_key::reduce) {
        TILEKIT_UNROLL
        for (unsigned k = 0; k < Items; ++k) {
          head[k] = first + k >= n || first + k == 0 || !bool(eq(previous, keys[k]));
          previous = keys[k];
        }
      } else {
        TILEKIT_UNROLL
        for (unsigned k = 0; k < Items; ++k) {
          head[k] = first + k < n && (first + k == 0 || !bool(eq(previous, keys[k])));
          previous = keys[k];
        }
        if (first + Items > n)  // items past n in this thread's (the last chunk only)
          TILEKIT_UNROLL
          for (unsigned k = 0; k < Items; ++k) head[k] = head[k] || first + k >= n;
      }
      if constexpr (!staged) warp.sync();  // every lane has read its keys before the values take the slots
    }
    local_t items[Items];
    {
      V values[Items];
      load_blocked(warp, values_in, warp_base, base, values, reinterpret_cast<V*>(slots));
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) items[k] = {head[k] ? 1u : 0u, values[k]};
    }
    shared.first_is_head[rank] = head[0];
    const run_sum_op<Op> pair_op{op};
    count_t runs_before = 0;  // runs that began in earlier chunks
    // Launched by zero_then_run (not Tagged): the states (the only memory it zeroes) are
    // touched from here; the keys and values were loaded while the zeroing ran.
    if constexpr (!Tagged) backend::wait_for_prior_grid();
    const epoch_states_t published = [&] {  // this launch's
      if constexpr (Tagged) return states.at(seen);
      else return states;
    }();
    if (chunk == 0) {
      const local_t aggregate = tilekit::inclusive_scan(block, items, items, pair_op, shared.scan);
      if (rank == 0) published.template publish<backend>(0, 2, pair_t{count_t(aggregate.heads), aggregate.value});
    } else {
      const bool patient = ctx.grid().num_blocks() >= look_back_tuning::patient_grid;
      using look_back_t = look_back<decltype(block), pair_t, run_sum_op<Op>, epoch_states_t>;
      narrow_prefix<look_back_t, pair_t, local_t> prefix{
          look_back_t{block, published, chunk, pair_op, pair_t{}, false, patient}, &shared.chunk_prefix[0], rank};
      tilekit::inclusive_scan_prefix(block, items, items, pair_op, shared.scan, prefix);
      runs_before = shared.chunk_prefix[0].heads;  // (written before the scan's last barrier)
    }
    if constexpr (Tagged) {
      // thread 0 ran the look-back: every chunk before this one has published
      if (chunk + 1 == count_t(ctx.grid().num_blocks()) && rank == 0) states.template close<backend>(seen);
    }
    if constexpr (Mode != by_key::reduce) {
      write_scan(block, warp, shared, items, head, warp_base, first, rank, reinterpret_cast<V*>(slots));
      return;
    }
    // (the scan's barriers order first_is_head's writes before these reads)
    // Whether the item after this thread's last starts a run (or there is none).
    bool next_is_head;
    const count_t after = first + Items;
    if (after >= n) next_is_head = true;
    else if (rank + 1 < Threads) next_is_head = shared.first_is_head[rank + 1] != 0;
    else next_is_head = !bool(eq(K(keys_in[after - 1]), K(keys_in[after])));
    if constexpr (staged) {
      scatter_staged(block, shared, items, head, next_is_head, key_slots, key_vectors, base, first, rank, lane, runs_before);
    } else {
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        const count_t i = first + k;
        if (i >= n) break;
        const count_t run = runs_before + items[k].heads - 1;
        if (head[k]) keys_out[run] = keys_in[i];
        const bool last = k + 1 < Items ? (i + 1 >= n || head[k + 1]) : next_is_head;
        if (last) aggregates_out[run] = items[k].value;
        if (i == n - 1) *num_out = runs_before + items[k].heads;
      }
    }
  }

  // Reduce, staged: the chunk's runs gathered in shared memory, then stored in order. Run j
  // begun in the chunk (items[k].heads == j + 1 at its head) has its key at run_keys[j];
  // a run's last item puts its aggregate at ends[heads] (0: the run begun in an earlier
  // chunk; ends: the values' exchange slots, read by now). The thread of the chunk's last
  // item before n says how many of each there are.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Block>
  TILEKIT_HD void scatter_staged(const Block& block, shared_t& shared, const local_t (&items)[Items], const bool (&head)[Items],
                                 bool next_is_head, const K* key_slots, bool key_vectors, count_t base, count_t first,
                                 unsigned rank, unsigned lane, count_t runs_before) const {
    V* ends = reinterpret_cast<V*>(shared.exchange.bytes);
    const count_t left = n - first;  // this thread's items before n (if below Items)
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k) {
      if (count_t(k) >= left) break;
      if (head[k]) shared.run_keys[items[k].heads - 1] = key_slots[slot_of<KeysIn>(lane * Items + k, key_vectors)];
      // (items past n are heads: item n - 1 ends its run)
      if (k + 1 < Items ? head[k + 1] : next_is_head) ends[items[k].heads] = items[k].value;
    }
    if (left > 0 && (left <= count_t(Items) || rank + 1 == Threads)) {  // the chunk's last item before n
      const unsigned last = left < count_t(Items) ? unsigned(left) - 1 : Items - 1;
      unsigned runs = 0;
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k)
        if (k == last) runs = items[k].heads;
      const bool ends_run = left <= count_t(Items) || next_is_head;
      shared.run_counts[0] = runs;
      shared.run_counts[1] = runs + (ends_run ? 1u : 0u);
    }
    block.sync();
    const unsigned runs = shared.run_counts[0], filled = shared.run_counts[1];
    for (unsigned j = rank; j < runs; j += Threads) keys_out[runs_before + j] = shared.run_keys[j];
    // slot 0 holds the end of a run begun before the chunk, unless its first item is a head
    for (unsigned j = rank + (shared.first_is_head[0] ? 1u : 0u); j < filled; j += Threads)
      aggregates_out[runs_before + j - 1] = ends[j];
    if (rank == 0 && n - base <= chunk_items) *num_out = runs_before + runs;
  }

  // The warp's stretch of Items * 32 items from warp_base, blocked in items (past n: in[fill]),
  // read warp-striped through slots: 16-byte vectors when the stretch is whole and aligned
  // (returns true: slots then hold the vector layout, else the padded one; see slot_of).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Warp, class It, class T>
  TILEKIT_HD bool load_blocked(const Warp& warp, It in, count_t warp_base, count_t fill, T (&items)[Items], T* slots) const {
    if constexpr (loads_vectors<It>) {
      if (n - warp_base >= count_t(32 * Items) && reinterpret_cast<std::uintptr_t>(in + warp_base) % 16 == 0) {
        warp_vector_transpose<Items, vector_items<It>()>::load_vectors_to_blocked(warp, in + warp_base, items, slots);
        return true;
      }
    }
    const unsigned lane = warp.thread_rank();
    TILEKIT_UNROLL
    for (unsigned j = 0; j < Items; ++j) {
      const count_t i = warp_base + j * 32 + lane;
      slots[transpose::padded(j * 32 + lane)] = T(in[i < n ? i : fill]);
    }
    warp.sync();
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k) items[k] = slots[transpose::padded(lane * Items + k)];
    return false;
  }
  // Whether load_blocked reads whole aligned stretches of It as 16-byte vectors.
  template <class It>
  static constexpr bool loads_vectors = vector_loadable_v<It> && Items % vector_items<It>() == 0 && vector_items<It>() > 1;
  // Where item i of a warp's stretch lives in the slots load_blocked filled from It.
  template <class It>
  TILEKIT_HD static unsigned slot_of(unsigned i, bool vectors) {
    if constexpr (loads_vectors<It>) {
      if (vectors) return warp_vector_transpose<Items, vector_items<It>()>::item_slot(i);
    }
    return transpose::padded(i);
  }

  // The scans' outputs: the inclusive prefix's value, or init op the item before's,
  // stored warp-striped through the warp's slots (free since the block scan's barriers).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Block, class Warp>
  TILEKIT_HD void write_scan(const Block& block, const Warp& warp, shared_t& shared, const local_t (&items)[Items],
                             const bool (&head)[Items], count_t warp_base, count_t first, unsigned rank, V* slots) const {
    V outs[Items];
    if constexpr (Mode == by_key::inclusive_scan) {
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) outs[k] = items[k].value;
    } else {
      shared.last[rank] = items[Items - 1];
      block.sync();
      // The item before this thread's first: the thread before's last, or the chunk's
      // prefix (thread 0 of a chunk after the first; chunk 0's first item is a head).
      V before = rank > 0 ? shared.last[rank - 1].value : first > 0 ? shared.chunk_prefix[0].value : init;
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        outs[k] = head[k] ? init : V(op(init, before));
        before = items[k].value;
      }
    }
    const count_t end = n - warp_base < count_t(32 * Items) ? n : warp_base + 32 * Items;
    transpose::store_blocked(warp, outs, slots, aggregates_out, warp_base, end);
  }
};

// n == 0: *num_out = 0, from one thread.
template <class NumOut>
struct write_no_runs {
  NumOut num_out;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    if (ctx.block().thread_rank() == 0) *num_out = 0;
  }
};

}  // namespace detail

namespace detail {
// What the by-key dispatches share: the chunk states carved from temp (temp == nullptr: only
// their size), the checks (args_ok: the caller's null checks), and the launch of make(states),
// or on_empty() for n == 0.
template <class Body, class Launcher, class Make, class OnEmpty>
typename Launcher::error_type run_by_key(const Launcher& launcher, void* temp, std::size_t& temp_bytes, count_t n,
                                         bool args_ok, Make make, OnEmpty on_empty) {
  const count_t chunks = n > 0 ? (n + Body::chunk_items - 1) / Body::chunk_items : 0;
  const auto storage = [&] {
    if constexpr (Body::tagged)
      return carve_launch_states<typename Body::pair_t, typename Body::epoch_states_t>(temp, chunks, next_call_tag());
    else return carve_chunk_states<typename Body::pair_t, typename Body::states_t>(temp, chunks);
  }();
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (temp_bytes < storage.bytes || chunks > 0x7fffffff || !args_ok ||
      (Body::tagged && n >= (count_t(1) << 32)))  // the tagged states' head counts are 32-bit
    return launcher.invalid_value;
  if (n == 0) return on_empty();
  if constexpr (Body::tagged) {
    launcher.assume_initialized(storage.first, storage.used);  // any content is valid (launch_states)
    return launcher.run(unsigned(chunks), Body::Threads, make(storage.states), sizeof(typename Body::shared_t));
  } else {
    return launcher.zero_then_run(storage.zero_from, storage.zero_bytes, chunks >= launch_tuning::overlap_chunks,
                                  unsigned(chunks), Body::Threads, make(storage.states), sizeof(typename Body::shared_t));
  }
}

// ReduceByKey in blocks of one shape and one kind of states (by_key_kernel's WideBlocks,
// Tagged); device_reduce_by_key picks them.
template <bool WideBlocks, bool Tagged, class Launcher, class KeysIn, class ValuesIn, class KeysOut, class AggregatesOut, class NumOut, class Op,
          class Eq>
typename Launcher::error_type reduce_by_key_blocks(const Launcher& launcher, void* temp, std::size_t& temp_bytes, KeysIn keys_in,
                                                   ValuesIn values_in, count_t n, KeysOut keys_out, AggregatesOut aggregates_out,
                                                   NumOut num_out, Op op, Eq eq) {
  using body_t = by_key_kernel<by_key::reduce, KeysIn, ValuesIn, KeysOut, AggregatesOut, NumOut, Op, Eq, WideBlocks, Tagged>;
  const bool args_ok = !is_null(num_out) &&
                       (n <= 0 || !(is_null(keys_in) || is_null(values_in) || is_null(keys_out) || is_null(aggregates_out)));
  return run_by_key<body_t>(
      launcher, temp, temp_bytes, n, args_ok,
      [&](const auto& states) {
        return body_t{keys_in, values_in, n, keys_out, aggregates_out, num_out, op, value_of<ValuesIn>{}, eq, states};
      },
      [&] { return launcher.run(1, 1, write_no_runs<NumOut>{num_out}); });
}
}  // namespace detail

/// Reduce by key's dispatch, for any launcher. With temp == nullptr it only sets
/// temp_bytes, or answers invalid_value for n < 0 as the call does. Returns
/// launcher.invalid_value, writing nothing, for n < 0, a null num_out, null keys,
/// values or outputs with n > 0, temp_bytes too small, or more than 2^31 - 1 chunks.
/// op need only be associative; eq compares adjacent keys.
template <class Launcher, class KeysIn, class ValuesIn, class KeysOut, class AggregatesOut, class NumOut, class Op,
          class Eq>
typename Launcher::error_type device_reduce_by_key(const Launcher& launcher, void* temp, std::size_t& temp_bytes,
                                                   KeysIn keys_in, ValuesIn values_in, detail::count_t n, KeysOut keys_out,
                                                   AggregatesOut aggregates_out, NumOut num_out, Op op, Eq eq) {
  if constexpr (detail::wraps_pointer_v<KeysIn> || detail::wraps_pointer_v<ValuesIn> || detail::wraps_pointer_v<KeysOut> ||
                detail::wraps_pointer_v<AggregatesOut> || detail::wraps_pointer_v<NumOut>)  // thrust::device_ptr: as its pointer
    return device_reduce_by_key(launcher, temp, temp_bytes, detail::unwrap(keys_in), detail::unwrap(values_in), n,
                                detail::unwrap(keys_out), detail::unwrap(aggregates_out), detail::unwrap(num_out), op, eq);
  // The size query and the call see the same n, so pick the same shape and states.
  using detail::stdx::bool_constant;
  const auto blocks = [&](auto wide, auto tag) {  // bool_constants: reduce_by_key_blocks<wide, tag>
    return detail::reduce_by_key_blocks<decltype(wide)::value, decltype(tag)::value>(
        launcher, temp, temp_bytes, keys_in, values_in, n, keys_out, aggregates_out, num_out, op, eq);
  };
  constexpr bool can_tag = sizeof(detail::value_of<ValuesIn>) <= 4;
  const bool tagged = can_tag && n < reduce_by_key_tuning::tagged_below;
  if (n < reduce_by_key_tuning::narrow_from)
    return tagged ? blocks(bool_constant<true>{}, bool_constant<can_tag>{}) : blocks(bool_constant<true>{}, bool_constant<false>{});
  return tagged ? blocks(bool_constant<false>{}, bool_constant<can_tag>{}) : blocks(bool_constant<false>{}, bool_constant<false>{});
}

namespace detail {
// The by-key scans with one kind of states (by_key_kernel's Tagged); device_scan_by_key picks it.
template <bool Inclusive, bool Tagged, class Launcher, class KeysIn, class ValuesIn, class ValuesOut, class Op, class V, class Eq>
typename Launcher::error_type scan_by_key_states(const Launcher& launcher, void* temp, std::size_t& temp_bytes, KeysIn keys_in,
                                                 ValuesIn values_in, count_t n, ValuesOut values_out, Op op, V init, Eq eq) {
  constexpr by_key mode = Inclusive ? by_key::inclusive_scan : by_key::exclusive_scan;
  using body_t = by_key_kernel<mode, KeysIn, ValuesIn, value_of<KeysIn>*, ValuesOut, count_t*, Op, Eq, true, Tagged>;
  const bool args_ok = n <= 0 || !(is_null(keys_in) || is_null(values_in) || is_null(values_out));
  return run_by_key<body_t>(
      launcher, temp, temp_bytes, n, args_ok,
      [&](const auto& states) {
        return body_t{keys_in, values_in, n, nullptr, values_out, nullptr, op, value_of<ValuesIn>(init), eq, states};
      },
      [&] { return launcher.success; });
}
}  // namespace detail

/// The by-key scans' dispatch, for any launcher: values_out[i] = op over the values of
/// i's run (adjacent keys equal under eq) up to i (Inclusive), or init op those before i.
/// With temp == nullptr it only sets temp_bytes, or answers invalid_value for n < 0.
/// Returns launcher.invalid_value, writing nothing, for n < 0, null keys, values in or
/// out with n > 0, temp_bytes too small, or more than 2^31 - 1 chunks. values_out may be
/// values_in.
template <bool Inclusive, class Launcher, class KeysIn, class ValuesIn, class ValuesOut, class Op, class V, class Eq>
typename Launcher::error_type device_scan_by_key(const Launcher& launcher, void* temp, std::size_t& temp_bytes,
                                                 KeysIn keys_in, ValuesIn values_in, detail::count_t n, ValuesOut values_out,
                                                 Op op, V init, Eq eq) {
  if constexpr (detail::wraps_pointer_v<KeysIn> || detail::wraps_pointer_v<ValuesIn> || detail::wraps_pointer_v<ValuesOut>)
    return device_scan_by_key<Inclusive>(launcher, temp, temp_bytes, detail::unwrap(keys_in), detail::unwrap(values_in), n,
                                         detail::unwrap(values_out), op, init, eq);
  // The size query and the call see the same n, so pick the same states.
  constexpr bool can_tag = sizeof(detail::value_of<ValuesIn>) <= 4;
  if (can_tag && n < reduce_by_key_tuning::scan_tagged_below)
    return detail::scan_by_key_states<Inclusive, can_tag>(launcher, temp, temp_bytes, keys_in, values_in, n, values_out, op, init, eq);
  return detail::scan_by_key_states<Inclusive, false>(launcher, temp, temp_bytes, keys_in, values_in, n, values_out, op, init, eq);
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::device {

template <class KeysIn, class ValuesIn, class KeysOut, class AggregatesOut, class NumOut, class Op, class Eq = equal_to>
cudaError_t reduce_by_key(void* temp, std::size_t& temp_bytes, KeysIn keys_in, ValuesIn values_in, std::int64_t n,
                          KeysOut keys_out, AggregatesOut aggregates_out, NumOut num_out, Op op, Eq eq = {},
                          cudaStream_t stream = 0) {
  return device_reduce_by_key(gpu_launcher{stream}, temp, temp_bytes, keys_in, values_in, n, keys_out, aggregates_out,
                              num_out, op, eq);
}

template <class KeysIn, class ValuesIn, class ValuesOut, class Op, class Eq = equal_to>
cudaError_t inclusive_scan_by_key(void* temp, std::size_t& temp_bytes, KeysIn keys_in, ValuesIn values_in, std::int64_t n,
                                  ValuesOut values_out, Op op, Eq eq = {}, cudaStream_t stream = 0) {
  using V = tilekit::detail::value_of<ValuesIn>;
  return device_scan_by_key<true>(gpu_launcher{stream}, temp, temp_bytes, keys_in, values_in, n, values_out, op, V{}, eq);
}

template <class KeysIn, class ValuesIn, class ValuesOut, class Op, class V, class Eq = equal_to>
cudaError_t exclusive_scan_by_key(void* temp, std::size_t& temp_bytes, KeysIn keys_in, ValuesIn values_in, std::int64_t n,
                                  ValuesOut values_out, Op op, V init, Eq eq = {}, cudaStream_t stream = 0) {
  return device_scan_by_key<false>(gpu_launcher{stream}, temp, temp_bytes, keys_in, values_in, n, values_out, op, init, eq);
}

}  // namespace tilekit::device
#endif  // __CUDACC__
