// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/device_histogram.cuh - cub::DeviceHistogram's single-channel
// interface over tilekit's device histogram (tilekit/device/histogram.cuh).
//
// Covered: HistogramEven and HistogramRange (one channel, 1D), CUB's signatures
// (CCCL 3.0), binning and two-phase protocol. Differences: any number of bins is
// counted in shared memory while it fits (CUB privatises up to 256 bins and goes
// to global atomics beyond); lower >= upper is cudaErrorInvalidValue; num_samples
// may be any integer type up to 2^63 - 1. Not covered yet: the 2D (row stride)
// and multi-channel forms.
#pragma once
#include <tilekit/device/histogram.cuh>

namespace tilekit::cub {

/// cub::DeviceHistogram, one channel and 1D: CUB's signatures (CCCL 3.0) and binning. d_histogram[0 ..
/// num_levels - 1) is zeroed, then counts the samples in each bin; samples outside the bins are not counted.
/// CUB's two-phase protocol: a call with d_temp_storage == nullptr only sets temp_storage_bytes (to 1:
/// nothing is used, but a size is expected); the second call, with any non-null d_temp_storage, queues
/// the work in stream. Errors: cudaErrorInvalidValue, writing nothing, for a negative num_samples,
/// num_levels < 2, a null d_histogram, or a null d_samples pointer with num_samples > 0; else the
/// launch's. Differences from CUB: bins are counted in shared memory while they fit (CUB: up to 256),
/// in global memory beyond; num_samples of any integer type up to 2^63 - 1.
struct DeviceHistogram {
  /// num_levels - 1 bins of equal width over [lower_level, upper_level). Also cudaErrorInvalidValue for
  /// lower_level >= upper_level or integer bin arithmetic that could overflow.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  template <class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t HistogramEven(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                   CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                                   OffsetT num_samples, cudaStream_t stream = 0) {
    return tilekit::device::histogram_even(d_temp_storage, temp_storage_bytes, d_samples,
                                           static_cast<std::int64_t>(num_samples), d_histogram, num_levels, lower_level,
                                           upper_level, stream);
  }

  /// Bin i is [d_levels[i], d_levels[i + 1]); a null d_levels is also cudaErrorInvalidValue.
  /// d_temp_storage == nullptr: only sets temp_storage_bytes.
  /// @pre d_levels holds num_levels ascending values in device memory.
  template <class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t HistogramRange(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                    CounterT* d_histogram, int num_levels, const LevelT* d_levels, OffsetT num_samples,
                                    cudaStream_t stream = 0) {
    return tilekit::device::histogram_range(d_temp_storage, temp_storage_bytes, d_samples,
                                            static_cast<std::int64_t>(num_samples), d_histogram, num_levels, d_levels,
                                            stream);
  }
};

}  // namespace tilekit::cub
