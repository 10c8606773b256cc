// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/device_scan.cuh - cub::DeviceScan's interface over tilekit's
// one-pass device scan (tilekit/device/scan.cuh).
//
// Covered: InclusiveSum, ExclusiveSum, InclusiveScan, ExclusiveScan (with an
// init value) and their in-place overloads (one d_data), InclusiveScanInit, with CUB's
// signatures (CCCL 3.0) and its two-phase temp-storage protocol (any alignment of
// d_temp_storage); d_in == d_out works too.
// Differences: one launch and nothing else (the tile states are tagged by the call, never
// zeroed: no memset, no init kernel); num_items up to 2^63 - 1; a negative num_items is
// cudaErrorInvalidValue. The ByKey scans (InclusiveSumByKey,
// ExclusiveSumByKey, InclusiveScanByKey, ExclusiveScanByKey) run tilekit's by-key scan
// (tilekit/device/reduce_by_key.cuh). ExclusiveScan takes a FutureValue (an initial value
// the kernel reads from device memory) over a pointer.
#pragma once
#include <tilekit/cub/device_reduce.cuh>
#include <tilekit/device/reduce_by_key.cuh>
#include <tilekit/device/scan.cuh>

#include <type_traits>

namespace tilekit::cub {

/// cub::FutureValue: an initial value read from *iter when the scan's kernel runs, not when it is
/// queued. (tilekit's scans take it over a pointer.)
template <class T, class IterT = T*>
struct FutureValue {
  using value_type = T;         ///< the value's type
  using iterator_type = IterT;  ///< where it is read from
  /// The value *iter, read when the kernel runs.
  explicit __host__ __device__ FutureValue(IterT iter) : iter_(iter) {}
  /// Reads the value now.
  __host__ __device__ operator T() const { return *iter_; }
  /// Where the value is read from.
  __host__ __device__ IterT iterator() const { return iter_; }

 private:
  IterT iter_;
};
/// FutureValue(ptr) deduces its value type from the pointer.
template <class IterT>
FutureValue(IterT) -> FutureValue<tilekit::detail::value_of<IterT>, IterT>;

/// cub::DeviceScan: device-wide prefix scans with CUB's signatures (CCCL 3.0), in one pass
/// (decoupled look-back); d_in == d_out is allowed.
/// CUB's two-phase protocol: a call with d_temp_storage == nullptr only sets temp_storage_bytes (for
/// this num_items); the second call, with that many bytes of device memory, queues the work in stream.
/// Errors: cudaErrorInvalidValue, writing nothing, for a negative num_items, a null d_in or d_out
/// pointer with num_items > 0, a too small temp_storage_bytes, or more than 2^31 - 1 chunks (one
/// block each); else the launch's. Differences from CUB: one launch (the tile states need no
/// zeroing); num_items up to 2^63 - 1; a negative one is an error.
struct DeviceScan {
  /// d_out[i] = d_in[0] + ... + d_in[i]. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class NumItemsT>
  static cudaError_t InclusiveSum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                  OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0) {
    return InclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, ::cuda::std::plus<>{}, num_items, stream);
  }

  /// d_out[i] = d_in[0] + ... + d_in[i - 1]; d_out[0] = T{} (T: d_in's value type).
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class NumItemsT>
  static cudaError_t ExclusiveSum(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                  OutputIteratorT d_out, NumItemsT num_items, cudaStream_t stream = 0) {
    using T = detail::it_value_t<InputIteratorT>;
    return ExclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, ::cuda::std::plus<>{}, T{}, num_items, stream);
  }

  /// d_out[i] = d_in[0] op ... op d_in[i]; scan_op need only be associative.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class ScanOpT, class NumItemsT>
  static cudaError_t InclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                   OutputIteratorT d_out, ScanOpT scan_op, NumItemsT num_items, cudaStream_t stream = 0) {
    return tilekit::device::inclusive_scan(d_temp_storage, temp_storage_bytes, d_in, static_cast<std::int64_t>(num_items),
                                           d_out, scan_op, stream);
  }

  /// d_out[i] = init_value op d_in[0] op ... op d_in[i - 1] (d_out[0] = init_value); scan_op need only
  /// be associative. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class ScanOpT, class InitValueT, class NumItemsT>
  static cudaError_t ExclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                   OutputIteratorT d_out, ScanOpT scan_op, InitValueT init_value, NumItemsT num_items,
                                   cudaStream_t stream = 0) {
    return tilekit::device::exclusive_scan(d_temp_storage, temp_storage_bytes, d_in, static_cast<std::int64_t>(num_items),
                                           d_out, scan_op, init_value, stream);
  }

  /// InclusiveSum in place: d_data[i] = d_data[0] + ... + d_data[i].
  template <class IteratorT, class NumItemsT>
  static cudaError_t InclusiveSum(void* d_temp_storage, std::size_t& temp_storage_bytes, IteratorT d_data,
                                  NumItemsT num_items, cudaStream_t stream = 0) {
    return InclusiveSum(d_temp_storage, temp_storage_bytes, d_data, d_data, num_items, stream);
  }

  /// ExclusiveSum in place.
  template <class IteratorT, class NumItemsT>
  static cudaError_t ExclusiveSum(void* d_temp_storage, std::size_t& temp_storage_bytes, IteratorT d_data,
                                  NumItemsT num_items, cudaStream_t stream = 0) {
    return ExclusiveSum(d_temp_storage, temp_storage_bytes, d_data, d_data, num_items, stream);
  }

  /// InclusiveScan in place.
  template <class IteratorT, class ScanOpT, class NumItemsT>
  static cudaError_t InclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, IteratorT d_data,
                                   ScanOpT scan_op, NumItemsT num_items, cudaStream_t stream = 0) {
    return InclusiveScan(d_temp_storage, temp_storage_bytes, d_data, d_data, scan_op, num_items, stream);
  }

  /// ExclusiveScan in place.
  template <class IteratorT, class ScanOpT, class InitValueT, class NumItemsT>
  static cudaError_t ExclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, IteratorT d_data,
                                   ScanOpT scan_op, InitValueT init_value, NumItemsT num_items, cudaStream_t stream = 0) {
    return ExclusiveScan(d_temp_storage, temp_storage_bytes, d_data, d_data, scan_op, init_value, num_items, stream);
  }

  /// d_values_out[i] = the sum of the values of i's run of equal (equality_op) adjacent keys up to i.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class KeysInputIteratorT, class ValuesInputIteratorT, class ValuesOutputIteratorT,
            class EqualityOpT = ::cuda::std::equal_to<>, class NumItemsT = std::uint32_t>
  static cudaError_t InclusiveSumByKey(void* d_temp_storage, std::size_t& temp_storage_bytes, KeysInputIteratorT d_keys_in,
                                       ValuesInputIteratorT d_values_in, ValuesOutputIteratorT d_values_out,
                                       NumItemsT num_items, EqualityOpT equality_op = EqualityOpT(), cudaStream_t stream = 0) {
    return InclusiveScanByKey(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                              ::cuda::std::plus<>{}, num_items, equality_op, stream);
  }

  /// d_values_out[i] = the sum of the values of i's run before i (0 of the value type at a run's head).
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class KeysInputIteratorT, class ValuesInputIteratorT, class ValuesOutputIteratorT,
            class EqualityOpT = ::cuda::std::equal_to<>, class NumItemsT = std::uint32_t>
  static cudaError_t ExclusiveSumByKey(void* d_temp_storage, std::size_t& temp_storage_bytes, KeysInputIteratorT d_keys_in,
                                       ValuesInputIteratorT d_values_in, ValuesOutputIteratorT d_values_out,
                                       NumItemsT num_items, EqualityOpT equality_op = EqualityOpT(), cudaStream_t stream = 0) {
    using T = detail::it_value_t<ValuesInputIteratorT>;
    return ExclusiveScanByKey(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_values_out,
                              ::cuda::std::plus<>{}, T{}, num_items, equality_op, stream);
  }

  /// d_values_out[i] = scan_op over the values of i's run up to i, in order; scan_op need only be
  /// associative. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class KeysInputIteratorT, class ValuesInputIteratorT, class ValuesOutputIteratorT, class ScanOpT,
            class EqualityOpT = ::cuda::std::equal_to<>, class NumItemsT = std::uint32_t>
  static cudaError_t InclusiveScanByKey(void* d_temp_storage, std::size_t& temp_storage_bytes, KeysInputIteratorT d_keys_in,
                                        ValuesInputIteratorT d_values_in, ValuesOutputIteratorT d_values_out, ScanOpT scan_op,
                                        NumItemsT num_items, EqualityOpT equality_op = EqualityOpT(),
                                        cudaStream_t stream = 0) {
    return tilekit::device::inclusive_scan_by_key(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in,
                                                  static_cast<std::int64_t>(num_items), d_values_out, scan_op, equality_op,
                                                  stream);
  }

  /// d_values_out[i] = init_value scan_op the values of i's run before i (init_value at a run's head).
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class KeysInputIteratorT, class ValuesInputIteratorT, class ValuesOutputIteratorT, class ScanOpT,
            class InitValueT, class EqualityOpT = ::cuda::std::equal_to<>, class NumItemsT = std::uint32_t>
  static cudaError_t ExclusiveScanByKey(void* d_temp_storage, std::size_t& temp_storage_bytes, KeysInputIteratorT d_keys_in,
                                        ValuesInputIteratorT d_values_in, ValuesOutputIteratorT d_values_out, ScanOpT scan_op,
                                        InitValueT init_value, NumItemsT num_items, EqualityOpT equality_op = EqualityOpT(),
                                        cudaStream_t stream = 0) {
    return tilekit::device::exclusive_scan_by_key(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in,
                                                  static_cast<std::int64_t>(num_items), d_values_out, scan_op, init_value,
                                                  equality_op, stream);
  }

  /// ExclusiveScan with an initial value the kernel reads from device memory when it runs.
  template <class InputIteratorT, class OutputIteratorT, class ScanOpT, class InitValueT, class InitValueIterT,
            class NumItemsT>
  static cudaError_t ExclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                   OutputIteratorT d_out, ScanOpT scan_op, FutureValue<InitValueT, InitValueIterT> init_value,
                                   NumItemsT num_items, cudaStream_t stream = 0) {
    static_assert(std::is_pointer<InitValueIterT>::value,
                  "tilekit::cub::DeviceScan::ExclusiveScan: a FutureValue over a pointer (tilekit reads it in the kernel)");
    using T = std::remove_cv_t<std::remove_pointer_t<InitValueIterT>>;
    return tilekit::device::exclusive_scan_future(d_temp_storage, temp_storage_bytes, d_in,
                                                  static_cast<std::int64_t>(num_items), d_out, scan_op,
                                                  static_cast<const T*>(init_value.iterator()), stream);
  }

  /// ExclusiveScan in place with a future initial value.
  template <class IteratorT, class ScanOpT, class InitValueT, class InitValueIterT, class NumItemsT>
  static cudaError_t ExclusiveScan(void* d_temp_storage, std::size_t& temp_storage_bytes, IteratorT d_data, ScanOpT scan_op,
                                   FutureValue<InitValueT, InitValueIterT> init_value, NumItemsT num_items,
                                   cudaStream_t stream = 0) {
    return ExclusiveScan(d_temp_storage, temp_storage_bytes, d_data, d_data, scan_op, init_value, num_items, stream);
  }

  /// d_out[i] = init_value op d_in[0] op ... op d_in[i]; scan_op need only be associative.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class ScanOpT, class InitValueT, class NumItemsT>
  static cudaError_t InclusiveScanInit(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                       OutputIteratorT d_out, ScanOpT scan_op, InitValueT init_value, NumItemsT num_items,
                                       cudaStream_t stream = 0) {
    return tilekit::device::inclusive_scan_init(d_temp_storage, temp_storage_bytes, d_in,
                                                static_cast<std::int64_t>(num_items), d_out, scan_op, init_value, stream);
  }
};

}  // namespace tilekit::cub
