// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/run_length_encode.cuh - device-wide run-length encoding on the GPU,
// one pass (the kernel and its dispatch below).
//
//   run_length_encode(temp, temp_bytes, in, n, keys_out, lengths_out, num_runs_out[, stream])
//       every run of equal adjacent items (==): its item and its length
//   non_trivial_runs(temp, temp_bytes, in, n, offsets_out, lengths_out, num_runs_out[, stream])
//       the runs longer than one item: their offset and length
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, null pointers,
// a too small temp_bytes.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/core/storage.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/exchange.cuh>
#include <tilekit/tile/reduce.cuh>
#include <tilekit/device/detail/look_back.cuh>

namespace tilekit {

// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
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
// chunks by the scan's decoupled look-back; the last chunk writes what is left.

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

// The run marks' chunk states while n < 2^31: emits and start + 1 in 31 bits each of
// the 64-bit word beside the tag (epoch_states' pair layout: single relaxed accesses).
// Larger inputs use epoch_states<run_mark> (values apart from the tag, which is fenced).
struct run_mark_codec {
  static constexpr unsigned long long low31 = (1ull << 31) - 1;
  TILEKIT_HD static unsigned long long bits(const run_mark& v) {
    return (static_cast<unsigned long long>(v.start + 1) << 31) | static_cast<unsigned long long>(v.emits);
  }
  TILEKIT_HD static void unpack(unsigned long long bits, run_mark& v) {
    v = {count_t(bits & low31), count_t((bits >> 31) & low31) - 1};
  }
};
using run_mark_states = epoch_states<run_mark, true, run_mark_codec>;

template <bool NonTrivial, class In, class KeysOut, class LengthsOut, class NumOut, class States>
struct rle_kernel {
  using T = value_of<In>;
  using tuning = run_length_encode_tuning;
  static constexpr unsigned Threads = tuning::threads, Warps = Threads / 32;
  static constexpr unsigned MinBlocksPerSM = sizeof(T) <= 4 ? tuning::blocks_per_sm : tuning::blocks_per_sm_wide;
  static constexpr unsigned V = vector_items<In>();  // items per lane in a row
  static constexpr unsigned lane_items = sizeof(T) <= 4 ? tuning::items_per_lane : tuning::items_per_lane_wide;
  static constexpr unsigned R = vector_loadable_v<In> ? (V >= lane_items ? 1 : lane_items / V) : tuning::scalar_rows;
  using rows = warp_rows<R, V>;  // each warp's stretch of the chunk
  static constexpr count_t warp_items = rows::items, chunk_items = Warps * warp_items;
  using key_t = stdx::conditional_t<NonTrivial, count_t, T>;  // what keys_out receives: run offsets, or items
  // What the lengths come from: encode, each run head's place in the stretch (a run's
  // length is the next head's place minus its own); non-trivial runs, the length itself.
  using second_t = stdx::conditional_t<NonTrivial, count_t, unsigned>;
  struct shared_t {
    count_t emits[Warps];  // per warp: emitting items,
    count_t start[Warps];  // and its latest run head (-1: none)
    run_mark prefix;       // everything before the chunk
    raw_slots<key_t, Warps * warp_items> keys;  // per warp, its outputs in order
    raw_slots<second_t, Warps * warp_items> second;
  };
  In in;
  count_t n;
  KeysOut keys_out;
  LengthsOut lengths_out;
  NumOut num_out;
  bool vector_in;
  launch_states<run_mark, States> states;
  count_t ahead = 0;  // the chunk whose input this one's block asks L2 for: chunk + ahead (prefetch_tuning; 0: none)

  // The position of the last head among the lanes `lanes` of a row (heads[j]: the
  // ballot of slot j; lanes not 0), as lane * V + slot.
  TILEKIT_HD static count_t last_head(const unsigned (&heads)[V], unsigned lanes) {
    const unsigned lane = highest_bit(lanes);
    unsigned slot = 0;
    TILEKIT_UNROLL
    for (unsigned j = 0; j < V; ++j)
      if ((heads[j] >> lane) & 1u) slot = j;
    return count_t(rows::offset(0, lane, slot));
  }

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
    }
    const unsigned lane = warp.thread_rank(), warp_index = block.thread_rank() / 32;
    const count_t base = chunk * chunk_items, stretch = base + count_t(warp_index) * warp_items;
    T items[R][V];
    rows::load(items, in, n, stretch, lane, vector_in && n - base >= chunk_items);
    // The stretch's items below n (32-bit bounds checks), and whether n ends the stretch.
    const bool ends = n - stretch <= warp_items;
    const unsigned valid = stretch >= n ? 0u : ends ? unsigned(n - stretch) : unsigned(warp_items);
    T before = stretch > 0 && stretch <= n ? T(in[stretch - 1]) : T{};  // the item before the current row
    T after{};  // the item after the stretch (non-trivial runs)
    if constexpr (NonTrivial)
      if (!ends) after = in[stretch + warp_items];
    // Pass 1: which items are heads (start a run) and which emit an output (encode:
    // the heads; non-trivial runs: the last item of a run longer than one), as bits
    // r * V + j; each emitting item's rank among the warp's outputs; the warp's last head.
    static_assert(R * V <= 32, "tilekit: a lane's items of a run-length encode stretch are bits of one word");
    unsigned head_bits = 0, emit_bits = 0, emit_counts[R];
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      const T from_left = warp.shfl_up(items[r][V - 1], 1);
      const T first_before = lane > 0 ? from_left : before;
      before = warp.shfl(items[r][V - 1], 31);
      T last_after{};
      if constexpr (NonTrivial) {
        const T from_right = warp.shfl_down(items[r][0], 1);
        const T next_row_first = r + 1 < R ? warp.shfl(items[r + 1 < R ? r + 1 : r][0], 0) : after;
        last_after = lane < 31 ? from_right : next_row_first;
      }
      emit_counts[r] = 0;
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const unsigned offset = rows::offset(r, lane, j);
        const T& prev = j == 0 ? first_before : items[r][j == 0 ? 0 : j - 1];
        const bool head = offset < valid && ((stretch == 0 && offset == 0) || !(prev == items[r][j]));
        bool emit = head;
        if constexpr (NonTrivial) {
          const T& next = j + 1 < V ? items[r][j + 1 < V ? j + 1 : j] : last_after;
          emit = offset < valid && !head && ((ends && offset + 1 == valid) || !(next == items[r][j]));
        }
        head_bits |= unsigned(head) << (r * V + j);
        emit_bits |= unsigned(emit) << (r * V + j);
        emit_counts[r] += emit;
      }
    }
    unsigned emits_before[R];  // the warp's outputs before this lane's first item in each row
    const unsigned warp_emits = rows::row_ranks(warp, emit_counts, emits_before);
    unsigned last = 0;  // this lane's last head, 1 + its place in the stretch (0: none)
    if (head_bits) {
      const unsigned b = highest_bit(head_bits);
      last = 1 + rows::offset(b / V, lane, b % V);
    }
    last = tilekit::reduce(warp, last, maximum{});
    // The warps of the block in order, then the chunks before by the look-back.
    if (lane == 0) shared.emits[warp_index] = warp_emits, shared.start[warp_index] = last ? stretch + last - 1 : -1;
    block.sync();
    run_mark before_warp{0, -1}, chunk_total{0, -1};
    TILEKIT_UNROLL
    for (unsigned v = 0; v < Warps; ++v) {
      const run_mark m{shared.emits[v], shared.start[v]};
      if (v < warp_index) before_warp = run_mark_op{}(before_warp, m);
      chunk_total = run_mark_op{}(chunk_total, m);
    }
    if (warp_index == 0) {
      const bool patient = ctx.grid().num_blocks() >= look_back_tuning::patient_grid;
      look_back<decltype(block), run_mark, run_mark_op, States> prefix{
          block, states.at(seen), chunk, run_mark_op{}, run_mark{0, -1}, true, patient};
      const run_mark p = prefix(chunk_total);
      if (lane == 0) shared.prefix = p;
    }
    block.sync();
    const run_mark outside = run_mark_op{}(shared.prefix, before_warp);  // everything before this warp's stretch
    // Pass 2: the outputs go to shared memory in the warp's order, then out as
    // contiguous runs (coalesced stores, not one scattered store per output).
    const unsigned slot0 = warp_index * unsigned(warp_items);
    count_t latest = outside.start;  // non-trivial runs: the latest head before the current row
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      unsigned e = emits_before[r];  // this lane's first output in the warp's order
      if constexpr (NonTrivial) {  // a long run ends at an emitting item; it began at the latest head
        const count_t row = rows::index(stretch, r, 0, 0), at = rows::index(stretch, r, lane, 0);
        unsigned heads[V], any_head = 0;
        TILEKIT_UNROLL
        for (unsigned j = 0; j < V; ++j) {
          heads[j] = warp.ballot((head_bits >> (r * V + j)) & 1u);
          any_head |= heads[j];
        }
        const unsigned lower_heads = any_head & lanes_below(lane);
        count_t mine = lower_heads ? row + last_head(heads, lower_heads) : latest;
        if (any_head) latest = row + last_head(heads, any_head);
        TILEKIT_UNROLL
        for (unsigned j = 0; j < V; ++j) {
          if ((head_bits >> (r * V + j)) & 1u) mine = at + j;
          if ((emit_bits >> (r * V + j)) & 1u) {
            shared.keys[slot0 + e] = mine;
            shared.second[slot0 + e] = at + j - mine + 1;
            ++e;
          }
        }
      } else {  // a run begins at an emitting item (a head)
        TILEKIT_UNROLL
        for (unsigned j = 0; j < V; ++j)
          if ((emit_bits >> (r * V + j)) & 1u) {
            shared.keys[slot0 + e] = items[r][j];
            shared.second[slot0 + e] = rows::offset(r, lane, j);
            ++e;
          }
      }
    }
    warp.sync();
    TILEKIT_UNROLL  // over the stretch's slots (the shared loads issue together), not a loop to warp_emits
    for (unsigned i = 0; i < R * V; ++i) {
      const unsigned k = i * 32 + lane;
      if (k >= warp_emits) break;
      const count_t rank = outside.emits + k;
      keys_out[rank] = shared.keys[slot0 + k];
      if constexpr (NonTrivial) {
        lengths_out[rank] = shared.second[slot0 + k];
      } else if (rank > 0) {  // the previous run ends just before this head
        const unsigned head = shared.second[slot0 + k];
        lengths_out[rank - 1] = k > 0 ? count_t(head - shared.second[slot0 + k - 1]) : stretch + head - outside.start;
      }
    }
    if (base + chunk_items >= n && block.thread_rank() == 0) {  // the last chunk: the totals
      const run_mark all = run_mark_op{}(shared.prefix, chunk_total);
      if (!NonTrivial) lengths_out[all.emits - 1] = n - all.start;
      *num_out = all.emits;
      states.template close<be>(seen);  // this thread ran the look-back: every chunk has published
    }
  }
};

}  // namespace detail

namespace detail {
template <bool NonTrivial, class States, class Launcher, class In, class KeysOut, class LengthsOut, class NumOut>
typename Launcher::error_type run_length_encode_with(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                     count_t n, KeysOut keys_out, LengthsOut lengths_out, NumOut num_out) {
  using body_t = rle_kernel<NonTrivial, In, KeysOut, LengthsOut, NumOut, States>;
  const count_t chunks = n > 0 ? (n + body_t::chunk_items - 1) / body_t::chunk_items : 0;
  const auto storage = carve_launch_states<run_mark, States>(temp, chunks, next_call_tag());
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (temp_bytes < storage.bytes || chunks > 0x7fffffff) return launcher.invalid_value;
  if (is_null(num_out) || (n > 0 && (is_null(in) || is_null(keys_out) || is_null(lengths_out))))
    return launcher.invalid_value;
  const bool vector_in = misaligned_head(in, body_t::chunk_items) == 0;
  launcher.assume_initialized(storage.first, storage.used);  // any content is valid (launch_states)
  body_t body{in, n, keys_out, lengths_out, num_out, vector_in, storage.states};
  body.ahead = prefetch_ahead(launcher.sm_count(), body_t::MinBlocksPerSM);
  return launcher.run(unsigned(chunks > 0 ? chunks : 1), body_t::Threads, body, sizeof(typename body_t::shared_t));
}
}  // namespace detail

/// The device-wide run-length encode's dispatch, for any launcher. With temp ==
/// nullptr it only sets temp_bytes (for this n), or answers invalid_value for n < 0
/// as the call does. Returns launcher.invalid_value,
/// writing nothing, for n < 0, null pointers (num_runs_out always, the others with
/// n > 0), temp_bytes too small, or more than 2^31 - 1 chunks.
template <bool NonTrivial, class Launcher, class In, class KeysOut, class LengthsOut, class NumOut>
typename Launcher::error_type device_run_length_encode(const Launcher& launcher, void* temp, std::size_t& temp_bytes,
                                                       In in, detail::count_t n, KeysOut keys_out,
                                                       LengthsOut lengths_out, NumOut num_out) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<KeysOut> || detail::wraps_pointer_v<LengthsOut> || detail::wraps_pointer_v<NumOut>)  // thrust::device_ptr: as its pointer
    return device_run_length_encode<NonTrivial>(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(keys_out), detail::unwrap(lengths_out),
                                                detail::unwrap(num_out));
  if (n < (detail::count_t(1) << 31))
    return detail::run_length_encode_with<NonTrivial, detail::run_mark_states>(launcher, temp, temp_bytes, in, n, keys_out,
                                                                               lengths_out, num_out);
  return detail::run_length_encode_with<NonTrivial, detail::epoch_states<detail::run_mark>>(
      launcher, temp, temp_bytes, in, n, keys_out, lengths_out, num_out);
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::device {

template <class In, class KeysOut, class LengthsOut, class NumOut>
cudaError_t run_length_encode(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, KeysOut keys_out,
                              LengthsOut lengths_out, NumOut num_runs_out, cudaStream_t stream = 0) {
  return device_run_length_encode<false>(gpu_launcher{stream}, temp, temp_bytes, in, n, keys_out, lengths_out,
                                         num_runs_out);
}

template <class In, class OffsetsOut, class LengthsOut, class NumOut>
cudaError_t non_trivial_runs(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, OffsetsOut offsets_out,
                             LengthsOut lengths_out, NumOut num_runs_out, cudaStream_t stream = 0) {
  return device_run_length_encode<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, offsets_out, lengths_out,
                                        num_runs_out);
}

}  // namespace tilekit::device
#endif  // __CUDACC__
