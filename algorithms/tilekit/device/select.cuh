// tilekit/device/select.cuh - device-wide stream compaction on the GPU, one pass
// (see tilekit/compact.cuh, grid level).
//
//   select_if(temp, temp_bytes, in, n, out, num_out, pred[, stream])     items with pred(x), in order
//   select_flagged(temp, temp_bytes, in, flags, n, out, num_out[, stream])  items whose flag is set
//   unique(temp, temp_bytes, in, n, out, num_out[, stream])              the first of each run of ==
//   partition(temp, temp_bytes, in, n, out, num_out, pred[, stream])     pred(x) items first, in
//       order, then the others in reverse order (as cub::DevicePartition::If)
//   ... and each without (temp, temp_bytes): storage allocated in the stream.
// *num_out gets the selected count. n is a 64-bit count; out must not overlap in.
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, null pointers
// (num_out always, in and out with n > 0), a too small temp_bytes.
#pragma once
#include <tilekit/compact.cuh>
#include <tilekit/device/reduce.cuh>

namespace tilekit::device {

namespace detail {
struct equal {
  template <class A, class B>
  __host__ __device__ bool operator()(const A& a, const B& b) const { return a == b; }
};
}  // namespace detail

template <class In, class Out, class NumOut, class Pred>
cudaError_t select_if(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, NumOut num_out, Pred pred,
                      cudaStream_t stream = 0) {
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out, tilekit::detail::keep_if<Pred>{pred},
                       false);
}

template <class In, class Flags, class Out, class NumOut>
cudaError_t select_flagged(void* temp, std::size_t& temp_bytes, In in, Flags flags, std::int64_t n, Out out,
                           NumOut num_out, cudaStream_t stream = 0) {
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out,
                       tilekit::detail::keep_flagged<Flags>{flags}, false);
}

template <class In, class Out, class NumOut>
cudaError_t unique(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, NumOut num_out,
                   cudaStream_t stream = 0) {
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out,
                       tilekit::detail::keep_unique<detail::equal>{detail::equal{}}, false);
}

template <class In, class Out, class NumOut, class Pred>
cudaError_t partition(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, NumOut num_out, Pred pred,
                      cudaStream_t stream = 0) {
  return device_select(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out, tilekit::detail::keep_if<Pred>{pred},
                       true);
}

template <class In, class Out, class NumOut, class Pred>
cudaError_t select_if(In in, std::int64_t n, Out out, NumOut num_out, Pred pred, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::select_if(t, b, in, n, out, num_out, pred, stream); });
}

template <class In, class Out, class NumOut>
cudaError_t unique(In in, std::int64_t n, Out out, NumOut num_out, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::unique(t, b, in, n, out, num_out, stream); });
}

template <class In, class Out, class NumOut, class Pred>
cudaError_t partition(In in, std::int64_t n, Out out, NumOut num_out, Pred pred, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::partition(t, b, in, n, out, num_out, pred, stream); });
}

}  // namespace tilekit::device
