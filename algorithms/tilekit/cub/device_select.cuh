// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/device_select.cuh - cub::DeviceSelect and cub::DevicePartition's
// interfaces over tilekit's one-pass select (tilekit/device/select.cuh).
//
// Covered: DeviceSelect::If, Flagged, Unique and DevicePartition::If (two-way:
// rejected items at the back in reverse order, as CUB), with CUB's signatures
// (CCCL 3.0) and two-phase protocol. Differences: num_items up to 2^63 - 1; a
// negative num_items is cudaErrorInvalidValue. Not covered yet: the in-place
// (single-iterator) overloads, FlaggedIf, UniqueByKey, DevicePartition::Flagged
// and the three-way DevicePartition::If.
#pragma once
#include <tilekit/device/select.cuh>

namespace tilekit::cub {

struct DeviceSelect {
  template <class InputIteratorT, class OutputIteratorT, class NumSelectedIteratorT, class SelectOp, class NumItemsT>
  static cudaError_t If(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                        NumSelectedIteratorT d_num_selected_out, NumItemsT num_items, SelectOp select_op,
                        cudaStream_t stream = 0) {
    return tilekit::device::select_if(d_temp_storage, temp_storage_bytes, d_in, static_cast<std::int64_t>(num_items), d_out,
                                      d_num_selected_out, select_op, stream);
  }

  template <class InputIteratorT, class FlagIterator, class OutputIteratorT, class NumSelectedIteratorT, class NumItemsT>
  static cudaError_t Flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                             FlagIterator d_flags, OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out,
                             NumItemsT num_items, cudaStream_t stream = 0) {
    return tilekit::device::select_flagged(d_temp_storage, temp_storage_bytes, d_in, d_flags,
                                           static_cast<std::int64_t>(num_items), d_out, d_num_selected_out, stream);
  }

  template <class InputIteratorT, class OutputIteratorT, class NumSelectedIteratorT, class NumItemsT>
  static cudaError_t Unique(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            OutputIteratorT d_out, NumSelectedIteratorT d_num_selected_out, NumItemsT num_items,
                            cudaStream_t stream = 0) {
    return tilekit::device::unique(d_temp_storage, temp_storage_bytes, d_in, static_cast<std::int64_t>(num_items), d_out,
                                   d_num_selected_out, stream);
  }
};

struct DevicePartition {
  template <class InputIteratorT, class OutputIteratorT, class NumSelectedIteratorT, class SelectOp, class NumItemsT>
  static cudaError_t If(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in, OutputIteratorT d_out,
                        NumSelectedIteratorT d_num_selected_out, NumItemsT num_items, SelectOp select_op,
                        cudaStream_t stream = 0) {
    return tilekit::device::partition(d_temp_storage, temp_storage_bytes, d_in, static_cast<std::int64_t>(num_items), d_out,
                                      d_num_selected_out, select_op, stream);
  }
};

}  // namespace tilekit::cub
