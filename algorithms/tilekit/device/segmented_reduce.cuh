// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/segmented_reduce.cuh - reductions of many segments of one input on the
// GPU, one launch (the kernel and its dispatch below).
//
//   segmented_reduce(temp, temp_bytes, in, segments, begins, ends, out, op, init[, stream])
//       out[s] = init op in[begins[s]] op ... op in[ends[s] - 1]; init where ends[s] <= begins[s]
//   segmented_sum / segmented_min / segmented_max(temp, temp_bytes, in, segments, begins, ends, out[, stream])
//       init: T{} / the largest T / the lowest T (T: out's value type for the sum, in's for
//       min and max), as cub::DeviceSegmentedReduce::Sum / Min / Max
//   segmented_arg_min / segmented_arg_max(temp, temp_bytes, in, segments, begins, ends, value_out, index_out[, stream])
//       each segment's first smallest (largest) item and its offset in the segment; an empty
//       segment gives the type's max (lowest) and offset 1, as CUB's ArgMin / ArgMax
// CUB's two-phase protocol (temp == nullptr sets temp_bytes; nothing else is needed
// there). segments is a 64-bit count; begins and ends are iterators of integral offsets
// (segments may overlap, leave gaps, or be empty); op must be associative and commutative.
// Errors: cudaErrorInvalidValue, with nothing written, for segments < 0, temp_bytes 0, null
// pointers (in, out, begins, ends) with segments > 0.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/reduce.cuh>
#include <tilekit/device/reduce.cuh>

#include <limits>

namespace tilekit {

namespace detail {

// Folds in[first .. end) with the threads of a group of `Stride` threads, thread `rank`
// taking items first + rank, first + rank + Stride, ...: `Batch` loads are issued before
// any is combined, so a thread waits for one DRAM round trip per batch, not per item.
// @pre rank < end - first (the thread has at least one item).
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Stride, unsigned Batch, class T, class In, class Op>
TILEKIT_HD T fold_strided(In in, count_t first, count_t end, unsigned rank, Op op) {
  T partial = T(in[first + rank]);
  for (count_t i = first + rank + Stride; i < end; i += count_t(Stride) * Batch) {
    T v[Batch];
    TILEKIT_UNROLL
    for (unsigned u = 0; u < Batch; ++u)
      if (i + count_t(u) * Stride < end) v[u] = T(in[i + count_t(u) * Stride]);
    TILEKIT_UNROLL
    for (unsigned u = 0; u < Batch; ++u)
      if (i + count_t(u) * Stride < end) partial = op(partial, v[u]);
  }
  return partial;
}

// A group of Stride threads' fold of in[first .. end), thread `rank` taking its share (at
// least one item: end - first >= Stride). Pointers to arithmetic items, and the
// indexed_input of one (ArgMin / ArgMax: each item made from its index and value), with at
// least Stride whole 16-byte vectors in the range are read as vectors (Batch per thread in
// flight, the first batch with the items before the first 16-byte boundary and after the
// last vector), so a warp's segment of 1024 int32 costs one DRAM round trip, not four, and
// a block's four loads a thread fewer; others as fold_strided.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Stride, unsigned Batch, class T, class In, class Op>
TILEKIT_HD T fold_vectors(In in, count_t first, count_t end, unsigned rank, Op op) {
  using source = vector_source<In>;
  using P = typename source::pointer;
  constexpr unsigned per_vector = vector_items<P>();
  if constexpr (per_vector > 1 && (stdx::is_arithmetic<T>::value || is_indexed_input_v<In>)) {
    using V = value_of<P>;
    const P items = source::base(in);
    const count_t head = misaligned_head(items + first, end - first);
    const count_t vectors = (end - first - head) / per_vector, tail_from = first + head + vectors * per_vector;
    if (vectors >= Stride) {
      const count_t aligned_from = first + head;  // the index of the first vector's first item
      const V* aligned = items + aligned_from;
      const bool has_head = rank < head, has_tail = tail_from + rank < end;
      const T head_item = has_head ? T(in[first + rank]) : T(), tail_item = has_tail ? T(in[tail_from + rank]) : T();
      // Item j of vector v, as T (with its index, for an indexed input).
      auto item = [&](count_t v, unsigned j, const V& x) { return T(source::item(aligned_from + v * per_vector + j, x)); };
      // op over vectors v, v + Stride, ... (up to Batch of them, loaded before any is combined); @pre v < vectors.
      // Offsets within the batch are 32-bit and from one pointer, so the loads take immediate offsets.
      auto fold_batch = [&](count_t v) {
        const V* batch = aligned + v * per_vector;
        const unsigned left = vectors - v < count_t(Stride * Batch) ? unsigned(vectors - v) : Stride * Batch;  // vectors from v on
        // Vectors past the batch's end are zeros, skipped by predicates rather than branches.
        vector_of<V, per_vector> x[Batch];
        TILEKIT_UNROLL
        for (unsigned u = 0; u < Batch; ++u)
          x[u] = u * Stride < left ? load_vector<V, per_vector>(batch + u * Stride * per_vector) : vector_of<V, per_vector>{};
        if constexpr (is_indexed_input_v<In> && is_arg_extremum_v<Op>) {
          V best;  // ArgMin / ArgMax: the index built once
          unsigned pos;
          arg_of_vectors<Op::max, Stride>(x, left, best, pos);
          return T{aligned_from + v * per_vector + count_t(pos), best};
        }
        T folded = item(v, 0, x[0].item[0]);
        TILEKIT_UNROLL
        for (unsigned u = 0; u < Batch; ++u)
          TILEKIT_UNROLL
          for (unsigned j = u == 0 ? 1 : 0; j < per_vector; ++j) {
            const T next = op(folded, item(v + u * Stride, j, x[u].item[j]));
            folded = u * Stride < left ? next : folded;
          }
        return folded;
      };
      T partial = fold_batch(rank);  // (rank < Stride <= vectors)
      for (count_t v = rank + Stride * Batch; v < vectors; v += Stride * Batch) partial = op(partial, fold_batch(v));
      if (has_head) partial = op(partial, head_item);
      if (has_tail) partial = op(partial, tail_item);
      return partial;
    }
  }
  return fold_strided<Stride, Batch, T>(in, first, end, rank, op);
}

// Two shapes, chosen by the dispatch from the segment count alone (the lengths are on the
// device): a block per segment while there are too few segments to keep the device busy
// a warp each (a long segment needs the whole block's loads in flight), else a warp
// per segment with no barrier at all (short segments: a block per segment spent most of
// its time in the block reduce's barrier, 0.32x CUB on segments of 64 items). Either
// way a grid of at most 2^31 - 1 blocks takes the rest in turn.
template <class In, class Begins, class Ends, class Out, class Op, class T>
struct segmented_reduce_kernel {
  static constexpr unsigned Threads = segmented_reduce_tuning::threads;
  static constexpr unsigned Batch = segmented_reduce_tuning::batch;
  // ArgMin / ArgMax (an indexed input, arg_extremum) take their own vector batch and register bound.
  static constexpr bool arg = is_indexed_input_v<In> && is_arg_extremum_v<Op>;
  static constexpr unsigned VectorBatch = arg ? segmented_reduce_tuning::arg_vector_batch : segmented_reduce_tuning::vector_batch;
  static constexpr unsigned MinBlocksPerSM = arg ? segmented_reduce_tuning::arg_min_blocks_per_sm : segmented_reduce_tuning::min_blocks_per_sm;
  // ArgMin / ArgMax of 4-byte integers and floats: a segment shorter than 2^31 items meets as
  // arg_key's 64-bit keys (offsets in the segment) where whole arg_items would cross lanes.
  template <class U, bool = arg>
  struct keys_of {
    static constexpr bool applies = false;
  };
  template <class U>
  struct keys_of<U, true> {
    using type = arg_key<Op::max, stdx::remove_cv_t<decltype(U::value)>>;
    static constexpr bool applies = type::applies;
  };
  using arg_keys = keys_of<T>;
  /// The dynamic shared memory of the block-per-segment shape.
  union shared_t {
    reduce_storage<T, Threads> items;
    reduce_storage<unsigned long long, Threads> keys;
  };
  In in;
  count_t segments;
  Begins begins;
  Ends ends;
  Out out;
  Op op;
  T init;
  bool warp_per_segment;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    if (warp_per_segment) return by_warps(ctx, block);
    shared_t& shared = ctx.template shared<shared_t>();
    const unsigned rank = block.thread_rank();
    const count_t blocks = count_t(ctx.grid().num_blocks());
    for (count_t s = count_t(ctx.grid().block_rank()); s < segments; s += blocks) {
      const count_t first = count_t(begins[s]), end = count_t(ends[s]);
      if (end <= first) {
        if (rank == 0) out[s] = init;
        continue;
      }
      const count_t length = end - first;
      const T partial = length >= Threads ? fold_vectors<Threads, VectorBatch, T>(in, first, end, rank, op)
                        : rank < length    ? fold_strided<Threads, Batch, T>(in, first, end, rank, op)
                                           : init;
      bool done = false;
      if constexpr (arg_keys::applies) {
        using key = typename arg_keys::type;
        if (length <= key::max_items) {
          const unsigned long long mine = rank < length ? key::make(partial.value, partial.index - first) : key::none;
          const unsigned long long best = tilekit::reduce(block, mine, minimum{}, shared.keys);
          if (rank == 0) out[s] = T{first + key::index(best), key::value(best)};
          done = true;
        }
      }
      if (!done) {
        // Every thread holds an item from Threads items on: the plain block reduce (redux.sync for
        // 32-bit integers with a built-in operator), not the one over maybe<T>s.
        const T total = length >= Threads ? tilekit::reduce(block, partial, op, shared.items)
                                          : tilekit::reduce(block, partial, op, shared.items, unsigned(length));
        if (rank == 0) out[s] = op(init, total);
      }
      block.sync();  // the storage is reused by the next segment
    }
  }

  // The warp's total of one partial per lane. ArgMin / ArgMax of integers of up to 32 bits
  // in a segment shorter than 2^32 items take two redux.sync, the best value and then the
  // lowest offset of the lanes holding it, in place of a butterfly over 16-byte items with
  // a 64-bit index (5 steps of 4 shuffles and a branch each).
  // @pre every lane's partial has an item of in[first .. end).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Warp>
  TILEKIT_HD T warp_total(const Warp& warp, const T& mine, count_t first, count_t end) const {
    if constexpr (arg) {
      using V = stdx::remove_cv_t<decltype(T::value)>;
      if constexpr (hardware_reducible_v<V, minimum>) {  // (redux.sync where the backend has it)
        if (end - first <= count_t(0xffffffffu)) {
          using extreme = stdx::conditional_t<Op::max, maximum, minimum>;
          const V best = tilekit::reduce(warp, mine.value, extreme{});
          const unsigned offset = mine.value == best ? unsigned(mine.index - first) : 0xffffffffu;
          return T{first + count_t(tilekit::reduce(warp, offset, minimum{})), best};
        }
      }
    }
    if constexpr (arg_keys::applies) {  // floats: a butterfly over 8-byte keys, not 16-byte arg_items
      using key = typename arg_keys::type;
      if (end - first <= key::max_items) {
        const unsigned long long best = tilekit::reduce(warp, key::make(mine.value, mine.index - first), minimum{});
        return T{first + key::index(best), key::value(best)};
      }
    }
    return tilekit::reduce(warp, mine, op);
  }

  // Warp w of the grid reduces segments w, w + warps, ...; the next segment's offsets are
  // read before this one's items, so their round trip overlaps the items' loads.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx, class Block>
  TILEKIT_HD void by_warps(Ctx& ctx, const Block& block) const {
    constexpr unsigned warps_per_block = Threads / 32;
    auto warp = tilekit::tiled_partition<32>(block);
    const unsigned lane = warp.thread_rank();
    const count_t warps = count_t(ctx.grid().num_blocks()) * warps_per_block;
    count_t s = count_t(ctx.grid().block_rank()) * warps_per_block + warp.meta_group_rank();
    if (s >= segments) return;
    count_t first = count_t(begins[s]), end = count_t(ends[s]);
    for (; s < segments; s += warps) {
      const count_t next = s + warps;
      count_t next_first = 0, next_end = 0;
      if (next < segments) next_first = count_t(begins[next]), next_end = count_t(ends[next]);
      if (end <= first) {
        if (lane == 0) out[s] = init;
      } else if (end - first >= 32) {  // every lane has an item
        const T total = warp_total(warp, fold_vectors<32, VectorBatch, T>(in, first, end, lane, op), first, end);
        if (lane == 0) out[s] = op(init, total);
      } else {
        const bool mine = lane < end - first;
        const maybe<T> partial{mine ? T(in[first + lane]) : init, mine};
        const maybe<T> total = tilekit::reduce(warp, partial, maybe_op<Op>{op});
        if (lane == 0) out[s] = op(init, total.value);
      }
      first = next_first, end = next_end;
    }
  }
};

// The segmented arg reductions' output: segment s's arg_item as a value and an offset in the
// segment (an empty segment, the identity: the type's max or lowest, offset 1).
template <bool Max, class T, class Begins, class ValueOut, class IndexOut>
struct segmented_arg_output {
  Begins begins;
  ValueOut value_out;
  IndexOut index_out;
  struct proxy {
    const segmented_arg_output* o;
    count_t s;
    TILEKIT_EXEC_CHECK_DISABLE
    TILEKIT_HD void operator=(const arg_item<T>& a) const {
      using limits = stdx::numeric_limits<T>;
      const bool empty = a.index == arg_item<T>::no_index;
      o->value_out[s] = empty ? (Max ? limits::lowest() : limits::max()) : a.value;
      o->index_out[s] = empty ? count_t(1) : a.index - count_t(o->begins[s]);
    }
  };
  TILEKIT_HD proxy operator[](count_t s) const { return {this, s}; }
};

}  // namespace detail

/// The segmented arg reductions, for any launcher: value_out[s] and index_out[s] get segment s's
/// first smallest item (Max: largest) and its offset from begins[s]; an empty segment gives the
/// type's max (Max: lowest) and 1, as CUB. Errors as device_segmented_reduce, and null value_out or
/// index_out with segments > 0.
template <bool Max, class Launcher, class In, class Begins, class Ends, class ValueOut, class IndexOut>
typename Launcher::error_type device_segmented_arg(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                   detail::count_t segments, Begins begins, Ends ends, ValueOut value_out,
                                                   IndexOut index_out) {
  using T = detail::value_of<In>;
  if (temp != nullptr && segments > 0 && (detail::is_null(value_out) || detail::is_null(index_out)))
    return launcher.invalid_value;
  auto items = detail::unwrap(in);
  auto b = detail::unwrap(begins);
  auto vo = detail::unwrap(value_out);
  auto io = detail::unwrap(index_out);
  using out_t = detail::segmented_arg_output<Max, T, decltype(b), decltype(vo), decltype(io)>;
  return device_segmented_reduce(launcher, temp, temp_bytes, detail::indexed_input<decltype(items)>{items}, segments, b,
                                 detail::unwrap(ends), out_t{b, vo, io}, detail::arg_extremum<Max>{},
                                 detail::arg_identity<Max, T>());
}

/// The segmented reduce's dispatch, for any launcher (tilekit::gpu_launcher,
/// tilekit::sim::launcher): out[s] = init op (op over in[begins[s] .. ends[s])), init for
/// an empty segment. With temp == nullptr it only sets temp_bytes (nothing is needed but
/// a non-null temp), or answers invalid_value for segments < 0 as the call does. Returns
/// launcher.invalid_value, writing nothing, for segments < 0, temp_bytes 0 (below the size
/// query's 1), a null in, out, begins or ends with segments > 0.
template <class Launcher, class In, class Begins, class Ends, class Out, class Op, class T>
typename Launcher::error_type device_segmented_reduce(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                      detail::count_t segments, Begins begins, Ends ends, Out out, Op op,
                                                      T init) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out> || detail::wraps_pointer_v<Begins> ||
                detail::wraps_pointer_v<Ends>)  // thrust::device_ptr: as its pointer
    return device_segmented_reduce(launcher, temp, temp_bytes, detail::unwrap(in), segments, detail::unwrap(begins),
                                   detail::unwrap(ends), detail::unwrap(out), op, init);
  using body_t = detail::segmented_reduce_kernel<In, Begins, Ends, Out, Op, T>;
  if (segments < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = 1;
    return launcher.success;
  }
  if (temp_bytes < 1) return launcher.invalid_value;
  if (segments == 0) return launcher.success;
  if (detail::is_null(in) || detail::is_null(out) || detail::is_null(begins) || detail::is_null(ends))
    return launcher.invalid_value;
  // A warp per segment once there are segments for a sixteenth of the warps the device
  // holds at once (the persistent grid below fills it); a block per segment below that.
  // On the H200, 1024 segments of 1024 int32: 7.3 us a warp per segment, 9.8 us a block.
  constexpr unsigned warps_per_block = body_t::Threads / 32;
  using detail::count_t;
  const count_t sms = launcher.sm_count() ? count_t(launcher.sm_count()) : 1;
  const count_t resident_warps = sms * (2048 / body_t::Threads) * warps_per_block;
  const bool by_warps = segments >= (resident_warps + 15) / 16;  // segments x 16 >= resident_warps, without overflow
  const count_t wanted = by_warps ? detail::stdx::min<count_t>((segments + warps_per_block - 1) / warps_per_block,
                                                       resident_warps / warps_per_block)
                                  : segments;
  const unsigned blocks = wanted < 0x7fffffff ? unsigned(wanted) : 0x7fffffffu;
  return launcher.run(blocks, body_t::Threads, body_t{in, segments, begins, ends, out, op, init, by_warps},
                      by_warps ? 0 : sizeof(typename body_t::shared_t));
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::device {

template <class In, class Begins, class Ends, class Out, class Op, class T>
cudaError_t segmented_reduce(void* temp, std::size_t& temp_bytes, In in, std::int64_t segments, Begins begins, Ends ends,
                             Out out, Op op, T init, cudaStream_t stream = 0) {
  return device_segmented_reduce(gpu_launcher{stream}, temp, temp_bytes, in, segments, begins, ends, out, op, init);
}

template <class In, class Begins, class Ends, class Out>
cudaError_t segmented_sum(void* temp, std::size_t& temp_bytes, In in, std::int64_t segments, Begins begins, Ends ends,
                          Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::output_value<Out, tilekit::detail::value_of<In>>;
  return device_segmented_reduce(gpu_launcher{stream}, temp, temp_bytes, in, segments, begins, ends, out, plus{}, T{});
}

template <class In, class Begins, class Ends, class Out>
cudaError_t segmented_min(void* temp, std::size_t& temp_bytes, In in, std::int64_t segments, Begins begins, Ends ends,
                          Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device_segmented_reduce(gpu_launcher{stream}, temp, temp_bytes, in, segments, begins, ends, out, minimum{},
                                 std::numeric_limits<T>::max());
}

template <class In, class Begins, class Ends, class Out>
cudaError_t segmented_max(void* temp, std::size_t& temp_bytes, In in, std::int64_t segments, Begins begins, Ends ends,
                          Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device_segmented_reduce(gpu_launcher{stream}, temp, temp_bytes, in, segments, begins, ends, out, maximum{},
                                 std::numeric_limits<T>::lowest());
}

template <class In, class Begins, class Ends, class ValueOut, class IndexOut>
cudaError_t segmented_arg_min(void* temp, std::size_t& temp_bytes, In in, std::int64_t segments, Begins begins, Ends ends,
                              ValueOut value_out, IndexOut index_out, cudaStream_t stream = 0) {
  return device_segmented_arg<false>(gpu_launcher{stream}, temp, temp_bytes, in, segments, begins, ends, value_out,
                                     index_out);
}

template <class In, class Begins, class Ends, class ValueOut, class IndexOut>
cudaError_t segmented_arg_max(void* temp, std::size_t& temp_bytes, In in, std::int64_t segments, Begins begins, Ends ends,
                              ValueOut value_out, IndexOut index_out, cudaStream_t stream = 0) {
  return device_segmented_arg<true>(gpu_launcher{stream}, temp, temp_bytes, in, segments, begins, ends, value_out,
                                    index_out);
}

}  // namespace tilekit::device
#endif  // __CUDACC__
