// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/device_histogram.cuh - cub::DeviceHistogram's single-channel
// interface over tilekit's device histogram (tilekit/device/histogram.cuh).
//
// Covered: HistogramEven and HistogramRange (1D and 2D: rows row_stride_bytes apart),
// MultiHistogramEven and MultiHistogramRange (interleaved channels, 1D and 2D; both
// the cuda::std::array and the C-array overloads), CUB's signatures (CCCL 3.0), binning
// and two-phase protocol. Differences: any number of bins is counted in shared memory
// while it fits (CUB privatises up to 256 bins and goes to global atomics beyond);
// lower >= upper is cudaErrorInvalidValue; num_samples may be any integer type up to
// 2^63 - 1. The multi-channel and 2D forms go to tilekit::device::multi_histogram_even /
// _range: 1-byte samples in one pass for every channel (16-byte vectors where rows lie a
// multiple of 16 bytes apart), other samples a pass per channel through
// tilekit::pixel_samples (every argument of every channel is checked before any is counted).
#pragma once
#include <tilekit/device/histogram.cuh>

#include <cuda/std/array>

namespace tilekit::cub {

/// cub::DeviceHistogram, one channel and 1D: CUB's signatures (CCCL 3.0) and binning. d_histogram[0 ..
/// num_levels - 1) is zeroed, then counts the samples in each bin; samples outside the bins are not counted.
/// CUB's two-phase protocol: a call with d_temp_storage == nullptr only sets temp_storage_bytes (16: with
/// 1-byte samples the counters are zeroed in the counting launch, which keeps two words there; a call
/// given less, at least 1 byte, zeroes them before it); the second call, with any non-null
/// d_temp_storage, queues the work in stream. Errors: cudaErrorInvalidValue, writing nothing, for a
/// negative num_samples, num_levels < 2, a null d_histogram, or a null d_samples pointer with num_samples
/// > 0; else the launch's. Differences from CUB: bins are counted in shared memory while they fit (CUB: up to 256),
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

  /// HistogramEven over num_rows rows of num_row_samples samples, rows row_stride_bytes apart.
  template <class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t HistogramEven(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                   CounterT* d_histogram, int num_levels, LevelT lower_level, LevelT upper_level,
                                   OffsetT num_row_samples, OffsetT num_rows, std::size_t row_stride_bytes,
                                   cudaStream_t stream = 0) {
    return MultiHistogramEven<1, 1>(d_temp_storage, temp_storage_bytes, d_samples, ::cuda::std::array<CounterT*, 1>{d_histogram},
                                    ::cuda::std::array<int, 1>{num_levels}, ::cuda::std::array<LevelT, 1>{lower_level},
                                    ::cuda::std::array<LevelT, 1>{upper_level}, num_row_samples, num_rows, row_stride_bytes,
                                    stream);
  }

  /// HistogramRange over num_rows rows of num_row_samples samples, rows row_stride_bytes apart.
  template <class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t HistogramRange(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                    CounterT* d_histogram, int num_levels, const LevelT* d_levels, OffsetT num_row_samples,
                                    OffsetT num_rows, std::size_t row_stride_bytes, cudaStream_t stream = 0) {
    return MultiHistogramRange<1, 1>(d_temp_storage, temp_storage_bytes, d_samples,
                                     ::cuda::std::array<CounterT*, 1>{d_histogram}, ::cuda::std::array<int, 1>{num_levels},
                                     ::cuda::std::array<const LevelT*, 1>{d_levels}, num_row_samples, num_rows,
                                     row_stride_bytes, stream);
  }

  /// Per active channel c (the first NUM_ACTIVE_CHANNELS of NUM_CHANNELS interleaved ones), HistogramEven of
  /// that channel of num_pixels pixels into d_histogram[c], with num_levels[c], lower_level[c], upper_level[c].
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t MultiHistogramEven(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                        ::cuda::std::array<CounterT*, NUM_ACTIVE_CHANNELS> d_histogram,
                                        ::cuda::std::array<int, NUM_ACTIVE_CHANNELS> num_levels,
                                        ::cuda::std::array<LevelT, NUM_ACTIVE_CHANNELS> lower_level,
                                        ::cuda::std::array<LevelT, NUM_ACTIVE_CHANNELS> upper_level, OffsetT num_pixels,
                                        cudaStream_t stream = 0) {
    return MultiHistogramEven<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(d_temp_storage, temp_storage_bytes, d_samples, d_histogram,
                                                                 num_levels, lower_level, upper_level, num_pixels,
                                                                 OffsetT(1), std::size_t(0), stream);
  }

  /// MultiHistogramEven over num_rows rows of num_row_pixels pixels, rows row_stride_bytes apart.
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t MultiHistogramEven(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                        ::cuda::std::array<CounterT*, NUM_ACTIVE_CHANNELS> d_histogram,
                                        ::cuda::std::array<int, NUM_ACTIVE_CHANNELS> num_levels,
                                        ::cuda::std::array<LevelT, NUM_ACTIVE_CHANNELS> lower_level,
                                        ::cuda::std::array<LevelT, NUM_ACTIVE_CHANNELS> upper_level, OffsetT num_row_pixels,
                                        OffsetT num_rows, std::size_t row_stride_bytes, cudaStream_t stream = 0) {
    return channels<NUM_CHANNELS>(
        num_row_pixels, num_rows, row_stride_bytes, sizeof(tilekit::detail::value_of<SampleIteratorT>),
        [&](std::int64_t row_pixels, std::int64_t rows, std::int64_t stride) {
          CounterT* counters[NUM_ACTIVE_CHANNELS];
          int levels[NUM_ACTIVE_CHANNELS];
          LevelT lower[NUM_ACTIVE_CHANNELS], upper[NUM_ACTIVE_CHANNELS];
          for (int c = 0; c < NUM_ACTIVE_CHANNELS; ++c)
            counters[c] = d_histogram[c], levels[c] = num_levels[c], lower[c] = lower_level[c], upper[c] = upper_level[c];
          return tilekit::device::multi_histogram_even<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
              d_temp_storage, temp_storage_bytes, d_samples, row_pixels, rows, stride, counters, levels, lower, upper, stream);
        });
  }

  /// As above, with C arrays (CUB's older overload).
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t MultiHistogramEven(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                        CounterT* d_histogram[NUM_ACTIVE_CHANNELS], const int num_levels[NUM_ACTIVE_CHANNELS],
                                        const LevelT lower_level[NUM_ACTIVE_CHANNELS],
                                        const LevelT upper_level[NUM_ACTIVE_CHANNELS], OffsetT num_pixels,
                                        cudaStream_t stream = 0) {
    return MultiHistogramEven<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(d_temp_storage, temp_storage_bytes, d_samples, d_histogram,
                                                                 num_levels, lower_level, upper_level, num_pixels,
                                                                 OffsetT(1), std::size_t(0), stream);
  }

  /// As above, 2D, with C arrays.
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t MultiHistogramEven(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                        CounterT* d_histogram[NUM_ACTIVE_CHANNELS], const int num_levels[NUM_ACTIVE_CHANNELS],
                                        const LevelT lower_level[NUM_ACTIVE_CHANNELS],
                                        const LevelT upper_level[NUM_ACTIVE_CHANNELS], OffsetT num_row_pixels,
                                        OffsetT num_rows, std::size_t row_stride_bytes, cudaStream_t stream = 0) {
    return MultiHistogramEven<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
        d_temp_storage, temp_storage_bytes, d_samples, to_array<NUM_ACTIVE_CHANNELS>(d_histogram),
        to_array<NUM_ACTIVE_CHANNELS>(num_levels), to_array<NUM_ACTIVE_CHANNELS>(lower_level),
        to_array<NUM_ACTIVE_CHANNELS>(upper_level), num_row_pixels, num_rows, row_stride_bytes, stream);
  }

  /// Per active channel c, HistogramRange of that channel into d_histogram[c] with d_levels[c].
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t MultiHistogramRange(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                         ::cuda::std::array<CounterT*, NUM_ACTIVE_CHANNELS> d_histogram,
                                         ::cuda::std::array<int, NUM_ACTIVE_CHANNELS> num_levels,
                                         ::cuda::std::array<const LevelT*, NUM_ACTIVE_CHANNELS> d_levels, OffsetT num_pixels,
                                         cudaStream_t stream = 0) {
    return MultiHistogramRange<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(d_temp_storage, temp_storage_bytes, d_samples, d_histogram,
                                                                  num_levels, d_levels, num_pixels, OffsetT(1),
                                                                  std::size_t(0), stream);
  }

  /// MultiHistogramRange over num_rows rows of num_row_pixels pixels, rows row_stride_bytes apart.
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t MultiHistogramRange(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                         ::cuda::std::array<CounterT*, NUM_ACTIVE_CHANNELS> d_histogram,
                                         ::cuda::std::array<int, NUM_ACTIVE_CHANNELS> num_levels,
                                         ::cuda::std::array<const LevelT*, NUM_ACTIVE_CHANNELS> d_levels,
                                         OffsetT num_row_pixels, OffsetT num_rows, std::size_t row_stride_bytes,
                                         cudaStream_t stream = 0) {
    return channels<NUM_CHANNELS>(
        num_row_pixels, num_rows, row_stride_bytes, sizeof(tilekit::detail::value_of<SampleIteratorT>),
        [&](std::int64_t row_pixels, std::int64_t rows, std::int64_t stride) {
          CounterT* counters[NUM_ACTIVE_CHANNELS];
          int levels[NUM_ACTIVE_CHANNELS];
          const LevelT* bounds[NUM_ACTIVE_CHANNELS];
          for (int c = 0; c < NUM_ACTIVE_CHANNELS; ++c) counters[c] = d_histogram[c], levels[c] = num_levels[c], bounds[c] = d_levels[c];
          return tilekit::device::multi_histogram_range<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
              d_temp_storage, temp_storage_bytes, d_samples, row_pixels, rows, stride, counters, levels, bounds, stream);
        });
  }

  /// As above, with C arrays (CUB's older overload).
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t MultiHistogramRange(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                         CounterT* d_histogram[NUM_ACTIVE_CHANNELS], const int num_levels[NUM_ACTIVE_CHANNELS],
                                         const LevelT* const d_levels[NUM_ACTIVE_CHANNELS], OffsetT num_pixels,
                                         cudaStream_t stream = 0) {
    return MultiHistogramRange<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(d_temp_storage, temp_storage_bytes, d_samples, d_histogram,
                                                                  num_levels, d_levels, num_pixels, OffsetT(1),
                                                                  std::size_t(0), stream);
  }

  /// As above, 2D, with C arrays.
  template <int NUM_CHANNELS, int NUM_ACTIVE_CHANNELS, class SampleIteratorT, class CounterT, class LevelT, class OffsetT>
  static cudaError_t MultiHistogramRange(void* d_temp_storage, std::size_t& temp_storage_bytes, SampleIteratorT d_samples,
                                         CounterT* d_histogram[NUM_ACTIVE_CHANNELS], const int num_levels[NUM_ACTIVE_CHANNELS],
                                         const LevelT* const d_levels[NUM_ACTIVE_CHANNELS], OffsetT num_row_pixels,
                                         OffsetT num_rows, std::size_t row_stride_bytes, cudaStream_t stream = 0) {
    return MultiHistogramRange<NUM_CHANNELS, NUM_ACTIVE_CHANNELS>(
        d_temp_storage, temp_storage_bytes, d_samples, to_array<NUM_ACTIVE_CHANNELS>(d_histogram),
        to_array<NUM_ACTIVE_CHANNELS>(num_levels), to_array<NUM_ACTIVE_CHANNELS>(d_levels), num_row_pixels, num_rows,
        row_stride_bytes, stream);
  }

 private:
  // The C-array overloads' arguments as the cuda::std::array ones.
  template <int N, class X>
  static ::cuda::std::array<X, N> to_array(const X* x) {
    ::cuda::std::array<X, N> a{};
    for (int i = 0; i < N; ++i) a[i] = x[i];
    return a;
  }

  // The multi-channel and 2D forms: the image's shape in samples, checked, to
  // whole_image(row_pixels, rows, row_stride) (a multi-channel histogram call).
  // row_stride_bytes 0: one row of num_row_pixels (the 1D forms).
  template <int NUM_CHANNELS, class OffsetT, class WholeImage>
  static cudaError_t channels(OffsetT num_row_pixels, OffsetT num_rows, std::size_t row_stride_bytes, std::size_t sample_bytes,
                              WholeImage whole_image) {
    static_assert(NUM_CHANNELS >= 1, "tilekit::cub::DeviceHistogram: NUM_CHANNELS >= 1");
    const std::int64_t row_pixels = static_cast<std::int64_t>(num_row_pixels), rows = static_cast<std::int64_t>(num_rows);
    if (row_pixels < 0 || rows < 0 || row_pixels > INT64_MAX / NUM_CHANNELS) return cudaErrorInvalidValue;
    if (row_stride_bytes % sample_bytes != 0 || row_stride_bytes / sample_bytes > std::size_t(INT64_MAX)) return cudaErrorInvalidValue;
    const std::int64_t stride = row_stride_bytes != 0 ? std::int64_t(row_stride_bytes / sample_bytes) : row_pixels * NUM_CHANNELS;
    if (rows > 1 && stride < row_pixels * NUM_CHANNELS) return cudaErrorInvalidValue;  // rows would overlap
    return whole_image(row_pixels, rows, stride);
  }
};

}  // namespace tilekit::cub
