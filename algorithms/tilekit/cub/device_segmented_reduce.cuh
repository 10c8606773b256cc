// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/device_segmented_reduce.cuh - cub::DeviceSegmentedReduce's interface over
// tilekit's segmented reduce (tilekit/device/segmented_reduce.cuh).
//
// Covered: Reduce, Sum, Min, Max, with CUB's signatures (CCCL 3.0: num_segments is an
// int64_t; begin and end offsets are separate iterators of integral offsets) and its
// two-phase protocol. Differences: a negative num_segments is cudaErrorInvalidValue; a
// segment whose end is before its begin is empty (the initial value; CUB: undefined,
// it reads a negative range).
// ArgMin / ArgMax write cub::KeyValuePair<int, T> {offset in the segment, value}.
#pragma once
#include <tilekit/cub/device_reduce.cuh>
#include <tilekit/device/segmented_reduce.cuh>

namespace tilekit::cub {

/// cub::KeyValuePair: a key and a value (what the segmented ArgMin / ArgMax write).
template <class K, class V>
struct KeyValuePair {
  using Key = K;          ///< the key type
  using Value = V;        ///< the value type
  Key key;                ///< the key (ArgMin / ArgMax: the offset in the segment)
  Value value;            ///< the value
  /// Uninitialised, as CUB's.
  __host__ __device__ KeyValuePair() {}
  /// {key, value}.
  __host__ __device__ KeyValuePair(const Key& k, const Value& v) : key(k), value(v) {}
  /// Whether key or value differ.
  __host__ __device__ bool operator!=(const KeyValuePair& b) const { return value != b.value || key != b.key; }
};

namespace detail {
// The key or the value member of an output of KeyValuePairs, as an output iterator.
template <class Out, bool Key>
struct pair_member_output {
  Out out;
  struct slot {
    Out out;
    std::int64_t i;
    template <class X>
    __host__ __device__ void operator=(const X& x) const {
      if constexpr (Key) out[i].key = static_cast<decltype(out[i].key)>(x);
      else out[i].value = x;
    }
  };
  __host__ __device__ slot operator[](std::int64_t i) const { return {out, i}; }
};
}  // namespace detail

/// cub::DeviceSegmentedReduce: one reduction per segment [d_begin_offsets[s], d_end_offsets[s]) of
/// d_in, to d_out[s]; an empty segment (end <= begin) gives the initial value. One block per segment.
/// CUB's two-phase protocol: a call with d_temp_storage == nullptr only sets temp_storage_bytes; the
/// second call, with that many bytes of device memory, queues the work in stream.
/// Errors: cudaErrorInvalidValue, writing nothing, for a negative num_segments, a null d_in, d_out
/// or offsets pointer with num_segments > 0; else the launch's.
struct DeviceSegmentedReduce {
  /// d_out[s] = initial_value op d_in[begin] op ... op d_in[end - 1]; reduction_op must be
  /// associative and commutative. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class BeginOffsetIteratorT, class EndOffsetIteratorT,
            class ReductionOpT, class T>
  static cudaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, std::int64_t num_segments, BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets, ReductionOpT reduction_op, T initial_value,
                            cudaStream_t stream = 0) {
    return tilekit::device::segmented_reduce(d_temp_storage, temp_storage_bytes, d_in, num_segments, d_begin_offsets,
                                             d_end_offsets, d_out, reduction_op, initial_value, stream);
  }

  /// Each segment's sum (an empty one: 0 of d_out's value type, d_in's where that is void).
  template <class InputIteratorT, class OutputIteratorT, class BeginOffsetIteratorT, class EndOffsetIteratorT>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                         std::int64_t num_segments, BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets, cudaStream_t stream = 0) {
    using T = detail::sum_t<OutputIteratorT, InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                  ::cuda::std::plus<>{}, T{}, stream);
  }

  /// Each segment's smallest item (an empty one: the numeric_limits max of d_in's value type).
  template <class InputIteratorT, class OutputIteratorT, class BeginOffsetIteratorT, class EndOffsetIteratorT>
  static cudaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                         std::int64_t num_segments, BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets, cudaStream_t stream = 0) {
    using T = detail::it_value_t<InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                  ::cuda::minimum<>{}, ::cuda::std::numeric_limits<T>::max(), stream);
  }

  /// Each segment's largest item (an empty one: the numeric_limits lowest of d_in's value type).
  template <class InputIteratorT, class OutputIteratorT, class BeginOffsetIteratorT, class EndOffsetIteratorT>
  static cudaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                         std::int64_t num_segments, BeginOffsetIteratorT d_begin_offsets,
                         EndOffsetIteratorT d_end_offsets, cudaStream_t stream = 0) {
    using T = detail::it_value_t<InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets,
                  ::cuda::maximum<>{}, ::cuda::std::numeric_limits<T>::lowest(), stream);
  }

  /// d_out[s] = {the offset in segment s of its first smallest item, that item} (KeyValuePair<int, T>);
  /// an empty segment gives {1, the numeric_limits max of T}, as CUB.
  template <class InputIteratorT, class OutputIteratorT, class BeginOffsetIteratorT, class EndOffsetIteratorT>
  static cudaError_t ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, std::int64_t num_segments, BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets, cudaStream_t stream = 0) {
    return arg<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, stream);
  }

  /// As ArgMin, for the first largest item; an empty segment gives {1, the numeric_limits lowest of T}.
  template <class InputIteratorT, class OutputIteratorT, class BeginOffsetIteratorT, class EndOffsetIteratorT>
  static cudaError_t ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, std::int64_t num_segments, BeginOffsetIteratorT d_begin_offsets,
                            EndOffsetIteratorT d_end_offsets, cudaStream_t stream = 0) {
    return arg<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_segments, d_begin_offsets, d_end_offsets, stream);
  }

 private:
  template <bool Max, class InputIteratorT, class OutputIteratorT, class BeginOffsetIteratorT, class EndOffsetIteratorT>
  static cudaError_t arg(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                         std::int64_t num_segments, BeginOffsetIteratorT d_begin_offsets, EndOffsetIteratorT d_end_offsets,
                         cudaStream_t stream) {
    if (d_temp_storage != nullptr && num_segments > 0 && tilekit::detail::is_null(d_out)) return cudaErrorInvalidValue;
    return device_segmented_arg<Max>(gpu_launcher{stream}, d_temp_storage, temp_storage_bytes, d_in, num_segments,
                                     d_begin_offsets, d_end_offsets, detail::pair_member_output<OutputIteratorT, false>{d_out},
                                     detail::pair_member_output<OutputIteratorT, true>{d_out});
  }
};

}  // namespace tilekit::cub
