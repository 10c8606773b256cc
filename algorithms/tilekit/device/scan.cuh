// tilekit/device/scan.cuh - device-wide prefix scans on the GPU, one pass
// (decoupled look-back; see tilekit/scan.cuh, grid level).
//
//   inclusive_scan(temp, temp_bytes, in, n, out, op[, stream])        out[i] = in[0] op .. op in[i]
//   inclusive_scan_init(temp, temp_bytes, in, n, out, op, init[, stream])  init op in[0] .. in[i]
//   exclusive_scan(temp, temp_bytes, in, n, out, op, init[, stream])  init op in[0] .. in[i-1]
//   inclusive_sum / exclusive_sum(temp, temp_bytes, in, n, out[, stream])
//   ... and each without (temp, temp_bytes): storage allocated in the stream.
// CUB's two-phase protocol: temp == nullptr sets temp_bytes and returns. n is a
// 64-bit count; op need only be associative; in == out is allowed.
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, null pointers
// with n > 0, a too small temp_bytes.
#pragma once
#include <tilekit/device/reduce.cuh>
#include <tilekit/scan.cuh>

namespace tilekit::device {

template <class In, class Out, class Op>
cudaError_t inclusive_scan(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op,
                           cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device_scan<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, op, T{}, false);
}

template <class In, class Out, class Op, class T>
cudaError_t inclusive_scan_init(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op, T init,
                                cudaStream_t stream = 0) {
  return device_scan<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, op, init, true);
}

template <class In, class Out, class Op, class T>
cudaError_t exclusive_scan(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op, T init,
                           cudaStream_t stream = 0) {
  return device_scan<false>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, op, init, true);
}

template <class In, class Out>
cudaError_t inclusive_sum(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  return device::inclusive_scan(temp, temp_bytes, in, n, out, plus{}, stream);
}

template <class In, class Out>
cudaError_t exclusive_sum(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device::exclusive_scan(temp, temp_bytes, in, n, out, plus{}, T{}, stream);
}

template <class In, class Out, class Op>
cudaError_t inclusive_scan(In in, std::int64_t n, Out out, Op op, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::inclusive_scan(t, b, in, n, out, op, stream); });
}

template <class In, class Out, class Op, class T>
cudaError_t exclusive_scan(In in, std::int64_t n, Out out, Op op, T init, cudaStream_t stream = 0) {
  return detail::with_temp(stream,
                           [&](void* t, std::size_t& b) { return device::exclusive_scan(t, b, in, n, out, op, init, stream); });
}

}  // namespace tilekit::device
