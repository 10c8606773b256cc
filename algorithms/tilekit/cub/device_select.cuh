// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/device_select.cuh - cub::DeviceSelect and cub::DevicePartition's
// interfaces over tilekit's one-pass select (tilekit/device/select.cuh).
//
// Covered: DeviceSelect::If, Flagged, FlaggedIf (each also in place: one d_data for
// input and output), Unique, UniqueByKey; DevicePartition::If (two-way: rejected items at the back in
// reverse order, as CUB) and Flagged; with CUB's signatures (CCCL 3.0: num_items is an
// int64_t, which keeps the in-place overloads apart) and two-phase protocol. Differences:
// num_items up to 2^63 - 1; a negative num_items is cudaErrorInvalidValue; null d_flags with
// items is cudaErrorInvalidValue too. The three-way DevicePartition::If is one pass, as CUB's.
#pragma once
#include <tilekit/device/select.cuh>

#include <cuda/std/functional>

#include <type_traits>

namespace tilekit::cub {

/// cub::DeviceSelect: device-wide stream compaction with CUB's signatures (CCCL 3.0), in one pass.
/// The kept items go to d_out in input order and the number kept to *d_num_selected_out;
/// d_out must not overlap d_in (the in-place overloads take one d_data for both).
/// CUB's two-phase protocol: a call with d_temp_storage == nullptr only sets temp_storage_bytes (for
/// this num_items); the second call, with that many bytes of device memory, queues the work in stream.
/// Errors: cudaErrorInvalidValue, writing nothing, for a negative num_items, a null
/// d_num_selected_out, a null d_in or d_out pointer with num_items > 0, a too small
/// temp_storage_bytes, or more than 2^31 - 1 chunks (one block each); else the launch's.
/// Differences from CUB: num_items up to 2^63 - 1; a negative one is an error.
struct DeviceSelect {
  /// Keeps the items x with select_op(x) true. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class NumSelectedIteratorT, class SelectOp>
  static cudaError_t If(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                        NumSelectedIteratorT d_num_selected_out, std::int64_t num_items, SelectOp select_op,
                        cudaStream_t stream = 0) {
    return tilekit::device::select_if(d_temp_storage, temp_storage_bytes, d_in, num_items, d_out, d_num_selected_out,
                                      select_op, stream);
  }

  /// If in place: the kept items go to the front of d_data, in order (the rest of d_data is unspecified).
  template <class IteratorT, class NumSelectedIteratorT, class SelectOp>
  static cudaError_t If(void* d_temp_storage, std::size_t& temp_storage_bytes, IteratorT d_data,
                        NumSelectedIteratorT d_num_selected_out, std::int64_t num_items, SelectOp select_op,
                        cudaStream_t stream = 0) {
    return If(d_temp_storage, temp_storage_bytes, d_data, d_data, d_num_selected_out, num_items, select_op, stream);
  }

  /// Keeps item i where d_flags[i] (as bool) is true.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class FlagIterator, class OutputIteratorT, class NumSelectedIteratorT>
  static cudaError_t Flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                             FlagIterator d_flags, OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out,
                             std::int64_t num_items, cudaStream_t stream = 0) {
    return tilekit::device::select_flagged(d_temp_storage, temp_storage_bytes, d_in, d_flags, num_items, d_out,
                                           d_num_selected_out, stream);
  }

  /// Flagged in place: the kept items go to the front of d_data, in order (the rest of d_data is unspecified).
  template <class IteratorT, class FlagIterator, class NumSelectedIteratorT>
  static cudaError_t Flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, IteratorT d_data, FlagIterator d_flags,
                             NumSelectedIteratorT d_num_selected_out, std::int64_t num_items, cudaStream_t stream = 0) {
    return Flagged(d_temp_storage, temp_storage_bytes, d_data, d_flags, d_data, d_num_selected_out, num_items, stream);
  }

  /// Keeps item i where select_op(d_flags[i]) is true.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class FlagIterator, class OutputIteratorT, class NumSelectedIteratorT, class SelectOp>
  static cudaError_t FlaggedIf(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                               FlagIterator d_flags, OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out,
                               std::int64_t num_items, SelectOp select_op, cudaStream_t stream = 0) {
    return tilekit::device::select_flagged_if(d_temp_storage, temp_storage_bytes, d_in, d_flags, num_items, d_out,
                                              d_num_selected_out, select_op, stream);
  }

  /// FlaggedIf in place: the kept items go to the front of d_data, in order (the rest of d_data is unspecified).
  template <class IteratorT, class FlagIterator, class NumSelectedIteratorT, class SelectOp>
  static cudaError_t FlaggedIf(void* d_temp_storage, std::size_t& temp_storage_bytes, IteratorT d_data,
                               FlagIterator d_flags, NumSelectedIteratorT d_num_selected_out, std::int64_t num_items,
                               SelectOp select_op, cudaStream_t stream = 0) {
    return FlaggedIf(d_temp_storage, temp_storage_bytes, d_data, d_flags, d_data, d_num_selected_out, num_items, select_op,
                     stream);
  }

  /// Keeps the first item of every run of equal (==) adjacent items.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class NumSelectedIteratorT>
  static cudaError_t Unique(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out, std::int64_t num_items,
                            cudaStream_t stream = 0) {
    return tilekit::device::unique(d_temp_storage, temp_storage_bytes, d_in, num_items, d_out, d_num_selected_out, stream);
  }

  /// Keeps the first key of every run of equal (equality_op) adjacent keys and its value:
  /// d_keys_out / d_values_out in order, *d_num_selected_out the count.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class KeyInputIteratorT, class ValueInputIteratorT, class KeyOutputIteratorT, class ValueOutputIteratorT,
            class NumSelectedIteratorT, class NumItemsT, class EqualityOpT,
            class = std::enable_if_t<!std::is_convertible<EqualityOpT, cudaStream_t>::value>>
  static cudaError_t UniqueByKey(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyInputIteratorT d_keys_in,
                                 ValueInputIteratorT d_values_in, KeyOutputIteratorT d_keys_out,
                                 ValueOutputIteratorT d_values_out, NumSelectedIteratorT d_num_selected_out,
                                 NumItemsT num_items, EqualityOpT equality_op, cudaStream_t stream = 0) {
    return tilekit::device::unique_by_key(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in,
                                          static_cast<std::int64_t>(num_items), d_keys_out, d_values_out,
                                          d_num_selected_out, equality_op, stream);
  }

  /// UniqueByKey with == on the keys.
  template <class KeyInputIteratorT, class ValueInputIteratorT, class KeyOutputIteratorT, class ValueOutputIteratorT,
            class NumSelectedIteratorT, class NumItemsT>
  static cudaError_t UniqueByKey(void* d_temp_storage, std::size_t& temp_storage_bytes, KeyInputIteratorT d_keys_in,
                                 ValueInputIteratorT d_values_in, KeyOutputIteratorT d_keys_out,
                                 ValueOutputIteratorT d_values_out, NumSelectedIteratorT d_num_selected_out,
                                 NumItemsT num_items, cudaStream_t stream = 0) {
    return UniqueByKey(d_temp_storage, temp_storage_bytes, d_keys_in, d_values_in, d_keys_out, d_values_out,
                       d_num_selected_out, num_items, ::cuda::std::equal_to<>{}, stream);
  }
};

/// cub::DevicePartition (two-way If and Flagged, three-way If): as DeviceSelect, its protocol and
/// errors; two-way: the rejected items follow the selected ones in d_out, in reverse order (as CUB).
/// The outputs must not overlap d_in.
struct DevicePartition {
  /// d_out[0 .. count) = the items x with select_op(x) true, in order; d_out[count .. num_items) = the
  /// others, in reverse order; *d_num_selected_out = count.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OutputIteratorT, class NumSelectedIteratorT, class SelectOp>
  static cudaError_t If(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                        NumSelectedIteratorT d_num_selected_out, std::int64_t num_items, SelectOp select_op,
                        cudaStream_t stream = 0) {
    return tilekit::device::partition(d_temp_storage, temp_storage_bytes, d_in, num_items, d_out, d_num_selected_out,
                                      select_op, stream);
  }

  /// As If, by d_flags[i] (as bool). d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class FlagIterator, class OutputIteratorT, class NumSelectedIteratorT>
  static cudaError_t Flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                             FlagIterator d_flags, OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out,
                             std::int64_t num_items, cudaStream_t stream = 0) {
    return tilekit::device::partition_flagged(d_temp_storage, temp_storage_bytes, d_in, d_flags, num_items, d_out,
                                              d_num_selected_out, stream);
  }

  /// Three-way: the items x with select_first_part_op(x) to d_first_part_out, those with
  /// !select_first_part_op(x) && select_second_part_op(x) to d_second_part_out, the others to
  /// d_unselected_out, each in input order (as CUB 3.0's kernel writes them); d_num_selected_out[0] and
  /// [1] the first two counts. Three passes over d_in (one per part). d_temp_storage == nullptr: only
  /// sets temp_storage_bytes.
  template <class InputIteratorT, class FirstOutputIteratorT, class SecondOutputIteratorT,
            class UnselectedOutputIteratorT, class NumSelectedIteratorT, class SelectFirstPartOp,
            class SelectSecondPartOp, class NumItemsT>
  static cudaError_t If(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                        FirstOutputIteratorT d_first_part_out, SecondOutputIteratorT d_second_part_out,
                        UnselectedOutputIteratorT d_unselected_out, NumSelectedIteratorT d_num_selected_out,
                        NumItemsT num_items, SelectFirstPartOp select_first_part_op,
                        SelectSecondPartOp select_second_part_op, cudaStream_t stream = 0) {
    return tilekit::device::partition_three_way(d_temp_storage, temp_storage_bytes, d_in,
                                                static_cast<std::int64_t>(num_items), d_first_part_out,
                                                d_second_part_out, d_unselected_out, d_num_selected_out,
                                                select_first_part_op, select_second_part_op, stream);
  }
};

}  // namespace tilekit::cub
