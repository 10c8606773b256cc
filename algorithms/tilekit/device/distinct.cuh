// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/distinct.cuh - what CUB lacks: order-preserving dedup of an unsorted
// sequence, and the number of runs, on the GPU (the kernels and their dispatch below).
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
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/dedup.cuh>
#include <tilekit/grid/dedup.cuh>  // detail::key_set
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/select.cuh>

namespace tilekit {

// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_distinct(launcher, temp, temp_bytes, in, n, out, num_out): the distinct keys
// of in[0 .. n) in order of first occurrence to out[0 .. count), *num_out = count;
// no sorting. Pass 1 puts every key into a hash set in the temporary storage (open
// addressing with linear probing, capacity the power of two at or above 1.5 n), each
// slot keeping the lowest index of its key (with 4-byte keys and n < 2^32 key and
// index share one 64-bit word); a warp first drops its own repeats
// (dedup over the warp, one match_any), and an index already beaten is not sent.
// Pass 2 is device_select keeping the items whose index is the one kept for their
// key. Keys: integers of 4 or 8 bytes, compared bitwise. Temporary storage: about
// 1.5 to 3 n x 8 bytes (4-byte keys, n < 2^32), 16 bytes otherwise.
//
// device_unique_count(launcher, temp, temp_bytes, in, n, out): *out = the number of
// runs of equal (==) adjacent items (what unique would keep), as a device reduce.

namespace detail {

template <class In, bool Packed>
struct distinct_insert_body {
  static constexpr unsigned Threads = 256;
  using T = value_of<In>;
  In in;
  count_t n;
  key_set<T, Packed> set;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    decltype(block)::backend::wait_for_prior_grid();  // launched by zero_then_run
    auto warp = tilekit::tiled_partition<32>(block);
    using be = typename decltype(block)::backend;
    const count_t threads = count_t(ctx.grid().num_blocks()) * Threads;
    // Every lane of a warp runs the same trips (dedup is collective); lanes past
    // the end repeat their warp's first key and are never first.
    const count_t start = count_t(ctx.grid().block_rank()) * Threads + block.thread_rank();
    const count_t warp_start = start - warp.thread_rank();
    for (count_t base = warp_start; base < n; base += threads) {
      const count_t i = base + warp.thread_rank();
      const T key = in[i < n ? i : base];
      if (tilekit::dedup(warp, key).first && i < n) set.template insert<be>(key, i);
    }
  }
};

template <class T, bool Packed>
struct keep_first_occurrence {
  static constexpr bool wants_previous = false;
  key_set<T, Packed> set;
  TILEKIT_HD bool operator()(count_t i, const T& item, const T&) const { return set.first_index(item) == i; }
};

template <class In>
struct run_heads {  // 1 where a run of equal items begins
  In in;
  using value_type = count_t;
  TILEKIT_HD count_t operator[](count_t i) const { return i == 0 || !(in[i] == in[i - 1]) ? 1 : 0; }
};

}  // namespace detail

namespace detail {
template <bool Packed, class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type distinct_with(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            count_t n, Out out, NumOut num_out) {
  using T = value_of<In>;
  using set_t = key_set<T, Packed>;
  const count_t items = n > 0 ? n : 0;
  unsigned long long capacity = 64;
  while (capacity < static_cast<unsigned long long>(items) + static_cast<unsigned long long>(items) / 2) capacity *= 2;
  temp_carver carve(temp);
  unsigned long long* slots = carve.take<unsigned long long>((capacity + 1) * set_t::words);
  const std::size_t set_bytes = carve.bytes();
  std::size_t select_bytes = 0;
  const keep_first_occurrence<T, Packed> keep{{slots, capacity - 1}};
  device_select(launcher, nullptr, select_bytes, in, items, out, num_out, keep);
  void* select_temp = carve.take<unsigned char>(select_bytes);
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = carve.bytes();
    return launcher.success;
  }
  if (temp_bytes < carve.bytes()) return launcher.invalid_value;
  if (is_null(num_out) || (n > 0 && (is_null(in) || is_null(out)))) return launcher.invalid_value;
  if (n > 0) {
    using body_t = distinct_insert_body<In, Packed>;
    const unsigned sms = launcher.sm_count() > 0 ? launcher.sm_count() : 1;
    const count_t wanted = (n + body_t::Threads - 1) / body_t::Threads;
    const unsigned grid = unsigned(wanted < count_t(sms) * 8 ? wanted : count_t(sms) * 8);
    if (auto e = launcher.zero_then_run(temp, set_bytes, true, grid, body_t::Threads, body_t{in, n, keep.set});  // the set comes first
        e != launcher.success)
      return e;
  }
  return device_select(launcher, select_temp, select_bytes, in, n, out, num_out, keep);
}
}  // namespace detail

/// The device-wide distinct's dispatch, for any launcher. With temp == nullptr it
/// only sets temp_bytes (for this n), or answers invalid_value for n < 0 as the call
/// does. Returns launcher.invalid_value, writing nothing, for n < 0, null pointers (num_out always, in and out with n > 0), or a
/// too small temp_bytes.
template <class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type device_distinct(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                              detail::count_t n, Out out, NumOut num_out) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out> || detail::wraps_pointer_v<NumOut>)  // thrust::device_ptr: as its pointer
    return device_distinct(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(out), detail::unwrap(num_out));
  using T = detail::value_of<In>;
  static_assert(detail::stdx::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "tilekit distinct: keys must be 4- or 8-byte integers (the hash set compares and claims keys bitwise "
                "with one atomic compare-and-swap); map other keys to such an integer first");
  if constexpr (sizeof(T) == 4)
    if (n < (detail::count_t(1) << 32)) return detail::distinct_with<true>(launcher, temp, temp_bytes, in, n, out, num_out);
  return detail::distinct_with<false>(launcher, temp, temp_bytes, in, n, out, num_out);
}

/// The device-wide unique count's dispatch (a device reduce; its temp_bytes and errors).
template <class Launcher, class In, class Out>
typename Launcher::error_type device_unique_count(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                  detail::count_t n, Out out) {
  if constexpr (detail::wraps_pointer_v<In>)  // thrust::device_ptr: read it as its pointer
    return device_unique_count(launcher, temp, temp_bytes, detail::unwrap(in), n, out);
  if (temp != nullptr && n > 0 && detail::is_null(in)) return launcher.invalid_value;
  return device_reduce(launcher, temp, temp_bytes, detail::run_heads<In>{in}, n, out, plus{}, detail::count_t(0));
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
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
#endif  // __CUDACC__
