// tilekit/device/histogram.cuh - device-wide histograms on the GPU, one launch
// (see tilekit/histogram.cuh, grid level).
//
//   histogram_even(temp, temp_bytes, samples, n, counters, num_levels, lower, upper[, stream])
//       num_levels - 1 bins of equal width over [lower, upper), binned as CUB's HistogramEven
//   histogram_range(temp, temp_bytes, samples, n, counters, num_levels, levels[, stream])
//       bin i = [levels[i], levels[i+1]); levels ascending, in device memory
// counters[0 .. num_levels - 1) are zeroed, then counted; samples outside the
// bins are not counted. Any bin count: shared-memory counters per block while
// they fit (about 58K 4-byte counters on the H200), global ones beyond.
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, num_levels < 2,
// lower >= upper, bin arithmetic that could overflow, null pointers.
#pragma once
#include <tilekit/device/reduce.cuh>
#include <tilekit/histogram.cuh>

namespace tilekit::device {

template <class In, class Counter, class Level>
cudaError_t histogram_even(void* temp, std::size_t& temp_bytes, In samples, std::int64_t n, Counter* counters,
                           int num_levels, Level lower, Level upper, cudaStream_t stream = 0) {
  using bins_t = even_bins<tilekit::detail::value_of<In>, Level>;
  if (temp != nullptr && !(lower < upper)) return cudaErrorInvalidValue;  // num_levels < 2: the dispatch's bins < 1
  const bins_t bins(num_levels < 2 ? 2 : num_levels, lower, upper);
  if (temp != nullptr && bins.may_overflow()) return cudaErrorInvalidValue;
  return device_histogram(gpu_launcher{stream}, temp, temp_bytes, samples, n, counters, num_levels - 1, bins);
}

template <class In, class Counter, class Level>
cudaError_t histogram_range(void* temp, std::size_t& temp_bytes, In samples, std::int64_t n, Counter* counters,
                            int num_levels, const Level* levels, cudaStream_t stream = 0) {
  if (temp != nullptr && levels == nullptr) return cudaErrorInvalidValue;  // num_levels < 2: the dispatch's bins < 1
  return device_histogram(gpu_launcher{stream}, temp, temp_bytes, samples, n, counters, num_levels - 1,
                          range_bins<tilekit::detail::value_of<In>, Level>{levels, num_levels});
}

}  // namespace tilekit::device
