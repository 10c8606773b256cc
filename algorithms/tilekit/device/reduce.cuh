// tilekit/device/reduce.cuh - device-wide reduce on the GPU, one kernel launch.
//
//   cudaError_t tilekit::device::reduce(temp, temp_bytes, in, n, out, op, init[, stream])
//       CUB's two-phase protocol: temp == nullptr sets temp_bytes and returns.
//   cudaError_t tilekit::device::reduce(in, n, out, op, init[, stream])
//       allocates its temporary storage in the stream (cudaMallocAsync).
//   sum(in, n, out[, stream]), min(...), max(...)  with the operator's identity as init.
//   arg_min / arg_max(temp, temp_bytes, in, n, value_out, index_out[, stream])  as CUB's ArgMin / ArgMax
//   count_if(..., in, n, out, pred), count(..., in, n, value, out)  how many items match (64-bit)
//
// *out = init op in[0] op ... op in[n-1]; n is a 64-bit count; in is a pointer or a
// random-access iterator, out a pointer or output iterator. op must be associative
// and commutative; results are bitwise repeatable on a given device and n (see
// tilekit/reduce.cuh, grid level). Errors: cudaErrorInvalidValue, with nothing
// written, for n < 0, a null in with n > 0, a null out, a too small temp_bytes.
#pragma once
#include <tilekit/launch.cuh>
#include <tilekit/operators.hpp>
#include <tilekit/reduce.cuh>

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tilekit::device {

template <class In, class Out, class T, class Op>
cudaError_t reduce(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op, T init,
                   cudaStream_t stream = 0) {
  return device_reduce(gpu_launcher{stream}, temp, temp_bytes, in, n, out, op, init);
}

namespace detail {
// Runs call(temp, temp_bytes) twice: the size query, then with storage allocated in the stream.
template <class Call>
cudaError_t with_temp(cudaStream_t stream, Call call) {
  std::size_t bytes = 0;
  if (cudaError_t e = call(nullptr, bytes); e != cudaSuccess) return e;
  void* temp = nullptr;
  if (cudaError_t e = cudaMallocAsync(&temp, bytes, stream); e != cudaSuccess) return e;
  const cudaError_t e = call(temp, bytes);
  const cudaError_t f = cudaFreeAsync(temp, stream);
  return e != cudaSuccess ? e : f;
}
}  // namespace detail

template <class In, class Out, class T, class Op>
cudaError_t reduce(In in, std::int64_t n, Out out, Op op, T init, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* temp, std::size_t& bytes) {
    return device::reduce(temp, bytes, in, n, out, op, init, stream);
  });
}

template <class In, class Out>
cudaError_t sum(In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device::reduce(in, n, out, plus{}, identity<T>(plus{}), stream);
}

template <class In, class Out>
cudaError_t min(In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device::reduce(in, n, out, minimum{}, identity<T>(minimum{}), stream);
}

template <class In, class Out>
cudaError_t max(In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device::reduce(in, n, out, maximum{}, identity<T>(maximum{}), stream);
}

/// The first smallest item by `<` and its index (Max: the first largest), as
/// cub::DeviceReduce::ArgMin / ArgMax: an empty input gives the type's max
/// (lowest) and index 1. `<` must be a strict weak order on the values present
/// (with NaNs the result depends on the combination order, as CUB's).
template <bool Max, class In, class ValueOut, class IndexOut>
cudaError_t arg_extremum(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, ValueOut value_out,
                         IndexOut index_out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  using tilekit::detail::is_null;
  if (temp != nullptr && (is_null(value_out) || is_null(index_out) || (n > 0 && is_null(in))))
    return cudaErrorInvalidValue;
  const arg_item<T> none{0, T{}, false};
  return device::reduce(temp, temp_bytes, tilekit::detail::indexed_input<In>{in}, n,
                        tilekit::detail::arg_output<Max, T, ValueOut, IndexOut>{value_out, index_out},
                        tilekit::detail::arg_extremum<Max>{}, none, stream);
}

template <class In, class ValueOut, class IndexOut>
cudaError_t arg_min(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, ValueOut value_out, IndexOut index_out,
                    cudaStream_t stream = 0) {
  return arg_extremum<false>(temp, temp_bytes, in, n, value_out, index_out, stream);
}

template <class In, class ValueOut, class IndexOut>
cudaError_t arg_max(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, ValueOut value_out, IndexOut index_out,
                    cudaStream_t stream = 0) {
  return arg_extremum<true>(temp, temp_bytes, in, n, value_out, index_out, stream);
}

/// *out = the number of items with pred(in[i]) (a 64-bit count; out may point to a
/// narrower integer); count: the items == value. As reduce: temp_bytes, errors.
template <class In, class Out, class Pred>
cudaError_t count_if(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Pred pred,
                     cudaStream_t stream = 0) {
  return device_count_if(gpu_launcher{stream}, temp, temp_bytes, in, n, out, pred);
}

template <class In, class Out, class T>
cudaError_t count(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, const T& value, Out out,
                  cudaStream_t stream = 0) {
  return device_count_if(gpu_launcher{stream}, temp, temp_bytes, in, n, out, tilekit::detail::equal_to_value<T>{value});
}

template <class In, class Out, class Pred>
cudaError_t count_if(In in, std::int64_t n, Out out, Pred pred, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::count_if(t, b, in, n, out, pred, stream); });
}

template <class In, class Out, class T>
cudaError_t count(In in, std::int64_t n, const T& value, Out out, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::count(t, b, in, n, value, out, stream); });
}

}  // namespace tilekit::device
