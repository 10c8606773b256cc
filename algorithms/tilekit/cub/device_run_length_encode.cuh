// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/device_run_length_encode.cuh - cub::DeviceRunLengthEncode's interface
// over tilekit's one-pass run-length encode (tilekit/device/run_length_encode.cuh).
//
// Covered: Encode and NonTrivialRuns with CUB's signatures (CCCL 3.0) and two-phase
// protocol. Differences: num_items is 64-bit (CCCL 3.0's int; later CCCL takes any integer
// type), a negative one is cudaErrorInvalidValue; runs are found with == on the items.
#pragma once
#include <tilekit/device/run_length_encode.cuh>

namespace tilekit::cub {

/// cub::DeviceRunLengthEncode: runs of equal adjacent items (found with ==) with CUB's signatures
/// (CCCL 3.0), in one pass; *d_num_runs_out gets the number of runs written.
/// CUB's two-phase protocol: a call with d_temp_storage == nullptr only sets temp_storage_bytes (for
/// this num_items); the second call, with that many bytes of device memory, queues the work in stream.
/// Errors: cudaErrorInvalidValue, writing nothing, for a negative num_items, a null d_num_runs_out,
/// other null output or input pointers with num_items > 0, or a too small temp_storage_bytes; else the
/// launch's.
struct DeviceRunLengthEncode {
  /// For run r: d_unique_out[r] = its item, d_counts_out[r] = its length.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class UniqueOutputIteratorT, class LengthsOutputIteratorT, class NumRunsOutputIteratorT>
  static cudaError_t Encode(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                            UniqueOutputIteratorT d_unique_out, LengthsOutputIteratorT d_counts_out,
                            NumRunsOutputIteratorT d_num_runs_out, std::int64_t num_items, cudaStream_t stream = 0) {
    return tilekit::device::run_length_encode(d_temp_storage, temp_storage_bytes, d_in, num_items, d_unique_out,
                                              d_counts_out, d_num_runs_out, stream);
  }

  /// For the r-th run longer than one item: d_offsets_out[r] = its offset, d_lengths_out[r] = its
  /// length. d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class InputIteratorT, class OffsetsOutputIteratorT, class LengthsOutputIteratorT, class NumRunsOutputIteratorT>
  static cudaError_t NonTrivialRuns(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIteratorT d_in,
                                    OffsetsOutputIteratorT d_offsets_out, LengthsOutputIteratorT d_lengths_out,
                                    NumRunsOutputIteratorT d_num_runs_out, std::int64_t num_items, cudaStream_t stream = 0) {
    return tilekit::device::non_trivial_runs(d_temp_storage, temp_storage_bytes, d_in, num_items, d_offsets_out,
                                             d_lengths_out, d_num_runs_out, stream);
  }
};

}  // namespace tilekit::cub
