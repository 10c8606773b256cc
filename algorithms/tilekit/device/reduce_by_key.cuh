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

template <class V>
struct run_sum {
  count_t heads;  // run heads up to and including this item
  V value;        // op over the current run's values up to this item
};

template <class Op>
struct run_sum_op {  // associative (as op), not commutative
  Op op;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class V>
  TILEKIT_HD run_sum<V> operator()(const run_sum<V>& a, const run_sum<V>& b) const {
    return {a.heads + b.heads, b.heads > 0 ? b.value : V(op(a.value, b.value))};
  }
};

enum class by_key { reduce, inclusive_scan, exclusive_scan };

// The look-back's prefix callback, keeping what it returns (thread 0's: the chunk's
// exclusive prefix) in *slot.
template <class Prefix, class Pair>
struct keep_prefix {
  Prefix inner;
  Pair* slot;
  unsigned rank;
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD Pair operator()(const Pair& aggregate) const {
    const Pair p = inner(aggregate);
    if (rank == 0) *slot = p;
    return p;
  }
};

// Mode reduce: keys_out, aggregates_out and num_out are written; the scans:
// aggregates_out only, one output per item (init: the exclusive scan's).
template <by_key Mode, class KeysIn, class ValuesIn, class KeysOut, class ValuesOut, class NumOut, class Op, class Eq>
struct by_key_kernel {
  using K = value_of<KeysIn>;
  using V = value_of<ValuesIn>;
  using pair_t = run_sum<V>;
  static constexpr unsigned Threads = reduce_by_key_tuning::threads, Items = reduce_by_key_tuning::items;
  static constexpr count_t chunk_items = count_t(Threads) * Items;
  struct shared_t {
    scan_storage<pair_t, Threads> scan;
    raw_slots<unsigned char, Threads> first_is_head;  // whether each thread's first item is a head
    raw_slots<pair_t, Mode == by_key::exclusive_scan ? Threads : 1> last;  // exclusive scan: each thread's last inclusive pair
    raw_slots<pair_t, 1> chunk_prefix;                // and the chunk's exclusive prefix
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
  chunk_states<pair_t> states;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    decltype(block)::backend::wait_for_prior_grid();  // launched by zero_then_run
    shared_t& shared = ctx.template shared<shared_t>();
    const unsigned rank = block.thread_rank();
    const count_t chunk = count_t(ctx.grid().block_rank()), base = chunk * chunk_items;
    const count_t first = base + count_t(rank) * Items;  // this thread's first item
    // Items past n: not heads, the chunk's first value (only the last chunk's aggregate sees them).
    pair_t items[Items];
    bool head[Items];
    K previous = first > 0 && first <= n ? K(keys_in[first - 1]) : K{};
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k) {
      const count_t i = first + k;
      if (i < n) {
        const K key = keys_in[i];
        head[k] = i == 0 || !bool(eq(previous, key));
        items[k] = {head[k] ? 1 : 0, V(values_in[i])};
        previous = key;
      } else {
        head[k] = false;
        items[k] = {0, V(values_in[base])};
      }
    }
    shared.first_is_head[rank] = head[0];
    const run_sum_op<Op> pair_op{op};
    if (chunk == 0) {
      const pair_t aggregate = tilekit::inclusive_scan(block, items, items, pair_op, shared.scan);
      if (rank == 0) states.template publish<typename decltype(block)::backend>(0, 2, aggregate);
    } else {
      const bool patient = ctx.grid().num_blocks() >= look_back_tuning::patient_grid;
      using look_back_t = look_back<decltype(block), pair_t, run_sum_op<Op>>;
      keep_prefix<look_back_t, pair_t> prefix{look_back_t{block, states, chunk, pair_op, pair_t{}, false, patient},
                                              &shared.chunk_prefix[0], rank};
      tilekit::inclusive_scan_prefix(block, items, items, pair_op, shared.scan, prefix);
    }
    if constexpr (Mode != by_key::reduce) {
      write_scan(block, shared, items, head, first, rank);
      return;
    }
    // (the scan's barriers order first_is_head's writes before these reads)
    // Whether the item after this thread's last starts a run (or there is none).
    bool next_is_head;
    const count_t after = first + Items;
    if (after >= n) next_is_head = true;
    else if (rank + 1 < Threads) next_is_head = shared.first_is_head[rank + 1] != 0;
    else next_is_head = after == 0 || !bool(eq(K(keys_in[after - 1]), K(keys_in[after])));
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k) {
      const count_t i = first + k;
      if (i >= n) break;
      const count_t run = items[k].heads - 1;
      if (head[k]) keys_out[run] = keys_in[i];
      const bool last = k + 1 < Items ? (i + 1 >= n || head[k + 1]) : next_is_head;
      if (last) aggregates_out[run] = items[k].value;
      if (i == n - 1) *num_out = items[k].heads;
    }
  }

  // The scans' outputs: the inclusive prefix's value, or init op the item before's.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Block>
  TILEKIT_HD void write_scan(const Block& block, shared_t& shared, const pair_t (&items)[Items], const bool (&head)[Items],
                             count_t first, unsigned rank) const {
    if constexpr (Mode == by_key::inclusive_scan) {
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k)
        if (first + k < n) aggregates_out[first + k] = items[k].value;
    } else {
      shared.last[rank] = items[Items - 1];
      block.sync();
      // The item before this thread's first: the thread before's last, or the chunk's
      // prefix (thread 0 of a chunk after the first; chunk 0's first item is a head).
      V before = rank > 0 ? shared.last[rank - 1].value : first > 0 ? shared.chunk_prefix[0].value : init;
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        if (first + k >= n) break;
        aggregates_out[first + k] = head[k] ? init : V(op(init, before));
        before = items[k].value;
      }
    }
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
  const auto storage = carve_chunk_states<typename Body::pair_t>(temp, chunks);
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (temp_bytes < storage.bytes || chunks > 0x7fffffff || !args_ok) return launcher.invalid_value;
  if (n == 0) return on_empty();
  return launcher.zero_then_run(storage.zero_from, storage.zero_bytes, chunks >= launch_tuning::overlap_chunks,
                                unsigned(chunks), Body::Threads, make(storage.states), sizeof(typename Body::shared_t));
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
  using body_t = detail::by_key_kernel<detail::by_key::reduce, KeysIn, ValuesIn, KeysOut, AggregatesOut, NumOut, Op, Eq>;
  const bool args_ok = !detail::is_null(num_out) &&
                       (n <= 0 || !(detail::is_null(keys_in) || detail::is_null(values_in) || detail::is_null(keys_out) ||
                                    detail::is_null(aggregates_out)));
  return detail::run_by_key<body_t>(
      launcher, temp, temp_bytes, n, args_ok,
      [&](const auto& states) {
        return body_t{keys_in, values_in, n, keys_out, aggregates_out, num_out, op, detail::value_of<ValuesIn>{}, eq, states};
      },
      [&] { return launcher.run(1, 1, detail::write_no_runs<NumOut>{num_out}); });
}

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
  constexpr detail::by_key mode = Inclusive ? detail::by_key::inclusive_scan : detail::by_key::exclusive_scan;
  using body_t = detail::by_key_kernel<mode, KeysIn, ValuesIn, detail::value_of<KeysIn>*, ValuesOut, detail::count_t*, Op, Eq>;
  const bool args_ok = n <= 0 || !(detail::is_null(keys_in) || detail::is_null(values_in) || detail::is_null(values_out));
  return detail::run_by_key<body_t>(
      launcher, temp, temp_bytes, n, args_ok,
      [&](const auto& states) {
        return body_t{keys_in, values_in, n, nullptr, values_out, nullptr, op, detail::value_of<ValuesIn>(init), eq, states};
      },
      [&] { return launcher.success; });
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
