// tilekit/device/distinct.cuh - what CUB lacks: order-preserving dedup of an unsorted
// sequence, and the number of runs, on the GPU (see tilekit/dedup.cuh, grid level).
//
//   distinct(temp, temp_bytes, in, n, out, num_out[, stream])  the distinct keys in order
//       of first occurrence, no sorting (two launches: a hash set, then a select);
//       keys: 4- or 8-byte integers; temp storage about 1.5-3 n x 8 bytes (4-byte keys, n < 2^32), else x 16
//   unique_count(temp, temp_bytes, in, n, out[, stream])       *out = the number of runs
//       of equal adjacent items (what unique keeps), without writing them
//   ... and each without (temp, temp_bytes): storage allocated in the stream.
// n is a 64-bit count; out must not overlap in. Errors: cudaErrorInvalidValue, with
// nothing written, for n < 0, null pointers, a too small temp_bytes.
#pragma once
#include <tilekit/dedup.cuh>
#include <tilekit/device/reduce.cuh>

namespace tilekit::device {

template <class In, class Out, class NumOut>
cudaError_t distinct(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, NumOut num_out,
                     cudaStream_t stream = 0) {
  return device_distinct(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out);
}

template <class In, class Out>
cudaError_t unique_count(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  return device_unique_count(gpu_launcher{stream}, temp, temp_bytes, in, n, out);
}

template <class In, class Out, class NumOut>
cudaError_t distinct(In in, std::int64_t n, Out out, NumOut num_out, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::distinct(t, b, in, n, out, num_out, stream); });
}

template <class In, class Out>
cudaError_t unique_count(In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::unique_count(t, b, in, n, out, stream); });
}

}  // namespace tilekit::device
