// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/device_reduce.cuh - cub::DeviceReduce's interface over tilekit's
// one-launch device reduce (tilekit/device/reduce.cuh).
//
// Covered: Reduce, Sum, Min, Max, ArgMin, ArgMax, TransformReduce, ReduceByKey, with CUB's
// signatures (CCCL 3.0) and its two-phase temp-storage protocol. Differences from CUB:
// Reduce and its kin come from one kernel launch and nothing else (CUB: two kernels); num_items
// of any integer type up to 2^63 - 1; a negative num_items is cudaErrorInvalidValue.
// ArgMin / ArgMax: the current interface (separate value and index outputs, int64
// indices); not the deprecated KeyValuePair one.
#pragma once
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/reduce_by_key.cuh>

#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/limits>

namespace tilekit::cub {

namespace detail {
template <class It>
using it_value_t = tilekit::detail::value_of<It>;

// The output iterator's value type, or In's when the output's is void (CUB's non_void_value_t).
template <class Out, class In>
using sum_t = tilekit::detail::output_value<Out, it_value_t<In>>;

// in[i] as transform(in[i]): an input iterator for TransformReduce.
template <class In, class F>
struct transformed {
  In in;
  F f;
  using value_type = tilekit::detail::remove_cvref_t<decltype(f(*in))>;
  __host__ __device__ value_type operator[](std::int64_t i) const { return f(in[i]); }
  __host__ __device__ value_type operator*() const { return f(*in); }
};
}  // namespace detail

/// cub::DeviceReduce: device-wide reductions with CUB's signatures (CCCL 3.0).
/// CUB's two-phase protocol: a call with d_temp_storage == nullptr only sets temp_storage_bytes;
/// the second call, with that many bytes of device memory, queues the work in stream.
/// Errors: cudaErrorInvalidValue, writing nothing, for a negative num_items, a null d_in pointer
/// with num_items > 0, a null output pointer, or a too small temp_storage_bytes; else the launch's.
/// Differences from CUB: one kernel launch and nothing else (CUB takes two kernels; the
/// temporary storage needs no initialisation, and where one block reads every item the call
/// does not touch it); num_items of any integer type up to 2^63 - 1; a negative one is an error.
struct DeviceReduce {
  /// *d_out = init op d_in[0] op ... op d_in[num_items - 1]. reduction_op must be associative and
  /// commutative (items meet in an order set by the grid, fixed for a given num_items and device, so
  /// results are bitwise repeatable). d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class ReductionOpT, class T, class NumItemsT>
  static cudaError_t Reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, NumItemsT num_items, ReductionOpT reduction_op, T init,
                            cudaStream_t stream = 0) {
    return tilekit::device::reduce(d_temp_storage, temp_storage_bytes, d_in, static_cast<std::int64_t>(num_items), d_out,
                                   reduction_op, init, stream);
  }

  /// *d_out = the sum of the items, from T{} (T: d_out's value type, or d_in's where that is void).
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class NumItemsT>
  static cudaError_t Sum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0) {
    using T = detail::sum_t<OutputIteratorT, InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, ::cuda::std::plus<>{}, T{}, stream);
  }

  /// *d_out = the smallest item (cuda::minimum); an empty input gives the numeric_limits max of d_in's
  /// value type, as CUB. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class NumItemsT>
  static cudaError_t Min(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0) {
    using T = detail::it_value_t<InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, ::cuda::minimum<>{},
                  ::cuda::std::numeric_limits<T>::max(), stream);
  }

  /// *d_out = the largest item (cuda::maximum); an empty input gives the numeric_limits lowest of d_in's
  /// value type, as CUB. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class NumItemsT>
  static cudaError_t Max(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                         OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0) {
    using T = detail::it_value_t<InputIteratorT>;
    return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, ::cuda::maximum<>{},
                  ::cuda::std::numeric_limits<T>::lowest(), stream);
  }

  /// *d_min_out = the first smallest item by `<`, *d_index_out its index; an empty input gives the value
  /// type's max and index 1, as CUB. CUB's current interface (separate value and int64 index outputs), not
  /// the deprecated KeyValuePair one. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class ExtremumOutIteratorT, class IndexOutIteratorT>
  static cudaError_t ArgMin(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            ExtremumOutIteratorT d_min_out, IndexOutIteratorT d_index_out, std::int64_t num_items,
                            cudaStream_t stream = 0) {
    return tilekit::device::arg_min(d_temp_storage, temp_storage_bytes, d_in, num_items, d_min_out, d_index_out, stream);
  }

  /// As ArgMin, for the first largest item; an empty input gives the value type's lowest and index 1.
  template <class InputIteratorT, class ExtremumOutIteratorT, class IndexOutIteratorT>
  static cudaError_t ArgMax(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            ExtremumOutIteratorT d_max_out, IndexOutIteratorT d_index_out, std::int64_t num_items,
                            cudaStream_t stream = 0) {
    return tilekit::device::arg_max(d_temp_storage, temp_storage_bytes, d_in, num_items, d_max_out, d_index_out, stream);
  }

  /// *d_out = init op transform_op(d_in[0]) op ... op transform_op(d_in[num_items - 1]), as Reduce (its
  /// errors). d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class ReductionOpT, class TransformOpT, class T,
            class NumItemsT>
  static cudaError_t TransformReduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                     OutputIteratorT d_out, NumItemsT num_items, ReductionOpT reduction_op,
                                     TransformOpT transform_op, T init, cudaStream_t stream = 0) {
    // (the transformed input hides d_in from Reduce's null check)
    if (d_temp_storage != nullptr && num_items > 0 && tilekit::detail::is_null(d_in)) return cudaErrorInvalidValue;
    return Reduce(d_temp_storage, temp_storage_bytes, detail::transformed<InputIteratorT, TransformOpT>{d_in, transform_op},
                  d_out, num_items, reduction_op, init, stream);
  }

  /// For every run of equal (==) adjacent keys: its first key to d_unique_out, reduction_op over its
  /// values in order to d_aggregates_out, and the number of runs to *d_num_runs_out; reduction_op need
  /// only be associative. One pass. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class KeysInputIteratorT, class UniqueOutputIteratorT, class ValuesInputIteratorT,
            class AggregatesOutputIteratorT, class NumRunsOutputIteratorT, class ReductionOpT, class NumItemsT>
  static cudaError_t ReduceByKey(void* d_temp_storage, std::size_t& temp_storage_bytes, KeysInputIteratorT d_keys_in,
                                 UniqueOutputIteratorT d_unique_out, ValuesInputIteratorT d_values_in,
                                 AggregatesOutputIteratorT d_aggregates_out, NumRunsOutputIteratorT d_num_runs_out,
                                 ReductionOpT reduction_op, NumItemsT num_items, cudaStream_t stream = 0) {
    return tilekit::device::reduce_by_key(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in,
                                          static_cast<std::int64_t>(num_items), d_unique_out, d_aggregates_out,
                                          d_num_runs_out, reduction_op, tilekit::equal_to{}, stream);
  }
};

}  // namespace tilekit::cub
