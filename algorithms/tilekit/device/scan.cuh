// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/scan.cuh - device-wide prefix scans on the GPU, one pass
// (decoupled look-back: the kernel and its dispatch below).
//
//   inclusive_scan(temp, temp_bytes, in, n, out, op[, stream])        out[i] = in[0] op .. op in[i]
//   inclusive_scan_init(temp, temp_bytes, in, n, out, op, init[, stream])  init op in[0] .. in[i]
//   exclusive_scan(temp, temp_bytes, in, n, out, op, init[, stream])  init op in[0] .. in[i-1]
//   exclusive_scan_future(temp, temp_bytes, in, n, out, op, init_from[, stream])  init read from device memory
//   inclusive_sum / exclusive_sum(temp, temp_bytes, in, n, out[, stream])
//   ... and each without (temp, temp_bytes): storage allocated in the stream.
// CUB's two-phase protocol: temp == nullptr sets temp_bytes and returns. n is a
// 64-bit count; op need only be associative; in == out is allowed.
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, null pointers
// with n > 0, a too small temp_bytes.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/exchange.cuh>
#include <tilekit/block/scan.cuh>
#include <tilekit/device/detail/look_back.cuh>

namespace tilekit {

// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_scan<Inclusive>(launcher, temp, temp_bytes, in, n, out, op, init, has_init):
// out[i] = [init op] in[0] op .. op in[i] (inclusive) or [init op] in[0] .. in[i-1]
// (exclusive; init required) in ONE pass: one chunk per block, chained by
// decoupled look-back. Each chunk publishes its aggregate as soon as it has it,
// then its inclusive prefix; the first warp of the next chunks walks back over
// those, 32 chunks at a time, to the nearest inclusive prefix. op need only be
// associative (values meet in index order). in == out is allowed. The kernel is the
// call's only launch: its chunk states need no zeroing (launch_states). The entry points are
// tilekit::device::inclusive_scan / exclusive_scan (GPU) and this function with
// a tilekit::sim::launcher (simulator).

namespace detail {

// Large: the shape for large inputs (scan_tuning::large_*), where has_large.
template <class In, class T, bool Large = false>
struct scan_shape {
  static constexpr unsigned vec = vector_items<In>();
  // 16-byte vectors all the way (loads, swizzled transposes, stores): the scan's T is the input's.
  static constexpr bool vectors = vector_loadable_v<In> && stdx::is_same<value_of<In>, T>::value;
  // Whether inputs of large_from items take the large shape: 8-byte items scanned as they are, loaded as vectors.
  static constexpr bool has_large = vectors && vec == 2;
  static_assert(!Large || has_large, "scan_shape: no large shape for these items");
  // Up to scan_tuning::vectors vectors a thread, at most max_items items (1- and 2-byte items
  // spilled 1 KB and 70 bytes at 6 vectors).
  static constexpr unsigned vector_count = Large ? scan_tuning::large_vectors : scan_tuning::vectors;
  static constexpr unsigned items = !vector_loadable_v<In>                          ? scan_tuning::scalar_items
                                    : vector_count * vec <= scan_tuning::max_items ? vector_count * vec
                                                                                    : scan_tuning::max_items / vec * vec;
  // The registers' bound: 64 a thread (8 blocks of 128 per SM), or the large shape's.
  static constexpr unsigned blocks_per_sm = Large ? scan_tuning::large_blocks_per_sm : 8;
  static constexpr count_t chunk = count_t(scan_tuning::threads) * items;
};

template <bool Inclusive, class In, class Out, class T, class Op, bool Large = false>
struct scan_kernel {
  using shape = scan_shape<In, T, Large>;
  static constexpr unsigned Threads = scan_tuning::threads, K = shape::items, MinBlocksPerSM = shape::blocks_per_sm;
  using exchange = stdx::conditional_t<shape::vectors, warp_vector_transpose<K, shape::vec>, warp_transpose<K>>;
  struct shared_t {
    scan_storage<T, Threads> scan;
    alignas(16) raw_slots<T, (Threads / 32) * exchange::slots> transpose;  // per warp: its stretch, blocked <-> striped
  };
  In in;
  Out out;
  count_t n;
  Op op;
  T init;
  bool has_init;
  bool vector_in;   // in is 16-byte aligned: whole chunks load vectors
  bool vector_out;  // out is a T*, 16-byte aligned: whole chunks store vectors
  launch_states<T> states;
  const T* init_from;  // non-null: init is read from here when the kernel runs (a future value)
  count_t ahead = 0;   // the chunk whose input this one's block asks L2 for: chunk + ahead (prefetch_tuning; 0: none)

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    auto warp = tilekit::tiled_partition<32>(block);
    shared_t& shared = ctx.template shared<shared_t>();
    const count_t chunk = count_t(ctx.grid().block_rank());
    const unsigned long long seen = states.template read_counter<be>();
    // Its own state into L2 before anyone polls it: on the H200 +3% at 2^28 int32 and
    // float, +4-6% at 2^24-2^28 int64 (perf/results/2026-12-03-h200/extras/prefetch).
    if (block.thread_rank() == 0) {
      states.template warm<be>(chunk);
      prefetch_chunk_ahead<be>(in, n, chunk, shape::chunk, ahead);
    }
    T* slots = &shared.transpose[warp.meta_group_rank() * exchange::slots];
    T items[K] = {};
    load(warp, chunk, items, slots);
    scan_store(block, warp, shared.scan, chunk, items, slots, seen, ctx.grid().num_blocks() >= look_back_tuning::patient_grid);
    // thread 0 ran the look-back: every chunk before this one has published
    if (chunk + 1 == count_t(ctx.grid().num_blocks()) && block.thread_rank() == 0) states.template close<be>(seen);
  }

  // Loads chunk `chunk` into items (blocked), through the warp's slots.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Warp>
  TILEKIT_HD void load(const Warp& warp, count_t chunk, T (&items)[K], T* slots) const {
    const count_t base = chunk * shape::chunk, warp_base = base + count_t(warp.meta_group_rank()) * 32 * K;
    if constexpr (vector_loadable_v<In>) {
      if (n - base >= shape::chunk && vector_in) {
        if constexpr (shape::vectors) exchange::load_vectors_to_blocked(warp, in + warp_base, items, slots);
        else exchange::template load_vectors_to_blocked<shape::vec>(warp, in + warp_base, items, slots);
        return;
      }
    }
    load_items(items, warp_base + count_t(warp.thread_rank()) * K, base);
  }

  // Items past n copy the chunk's first: only the last chunk's aggregate sees them, and no chunk reads that.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void load_items(T (&items)[K], count_t first, count_t base) const {
    TILEKIT_UNROLL
    for (unsigned k = 0; k < K; ++k) items[k] = T(in[first + k < n ? first + k : base]);
  }

  // Scans chunk `chunk`'s items seeded by its look-back, and stores them through the warp's slots.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Block, class Warp, class Scan>
  TILEKIT_HD void scan_store(const Block& block, const Warp& warp, Scan& scan, count_t chunk, T (&items)[K], T* slots,
                             unsigned long long seen, bool patient) const {
    const T seed = init_from != nullptr ? T(*init_from) : init;
    const epoch_states<T> tagged = states.at(seen);  // this launch's
    look_back<Block, T, Op, epoch_states<T>> prefix{block, tagged, chunk, op, seed, has_init, patient};
    if (chunk == 0 && !has_init) {
      const T aggregate = tilekit::inclusive_scan(block, items, items, op, scan);
      if (block.thread_rank() == 0) tagged.template publish<typename Block::backend>(0, 2, aggregate);
    } else if constexpr (Inclusive) {
      tilekit::inclusive_scan_prefix(block, items, items, op, scan, prefix);
    } else {
      tilekit::exclusive_scan_prefix(block, items, items, op, scan, prefix);
    }
    // (the block scan's barriers separate the load's reads of slots from these writes)
    const count_t base = chunk * shape::chunk, warp_base = base + count_t(warp.meta_group_rank()) * 32 * K;
    const bool whole = n - base >= shape::chunk;
    const count_t end = whole ? warp_base + 32 * K : n;
    if constexpr (shape::vectors) exchange::store_blocked(warp, items, slots, out, warp_base, end, whole && vector_out);
    else exchange::store_blocked(warp, items, slots, out, warp_base, end);
  }
};

// The scan in chunks of one shape (scan_kernel's Large); device_scan picks it.
template <bool Inclusive, bool Large, class Launcher, class In, class Out, class T, class Op>
typename Launcher::error_type scan_in_shape(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in, count_t n,
                                            Out out, Op op, T init, bool has_init, const T* init_from) {
  using body_t = detail::scan_kernel<Inclusive, In, Out, T, Op, Large>;
  using shape = typename body_t::shape;
  const detail::count_t chunks = n > 0 ? (n + shape::chunk - 1) / shape::chunk : 0;
  const auto storage = detail::carve_launch_states<T>(temp, chunks, detail::next_call_tag());
  if (n < 0 || (!Inclusive && !has_init)) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = storage.bytes;
    return launcher.success;
  }
  if (temp_bytes < storage.bytes) return launcher.invalid_value;
  if (n == 0) return launcher.success;
  if (detail::is_null(in) || detail::is_null(out)) return launcher.invalid_value;
  if (chunks > 0x7fffffff) return launcher.invalid_value;  // one chunk per block: gridDim.x's limit
  const bool vector_in = detail::vector_loadable_v<In> && detail::misaligned_head(in, shape::chunk) == 0;
  bool vector_out = false;
  if constexpr (detail::stdx::is_same<Out, T*>::value) vector_out = reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  // Any content of the storage is valid (launch_states); tell a memory checker so
  // (compute-sanitizer initcheck, through NVTX).
  launcher.assume_initialized(storage.first, storage.used);
  body_t body{in, out, n, op, init, has_init, vector_in, vector_out, storage.states, init_from};
  body.ahead = detail::prefetch_ahead(launcher.sm_count(), body_t::MinBlocksPerSM);
  return launcher.run(unsigned(chunks), body_t::Threads, body, sizeof(typename body_t::shared_t));
}
}  // namespace detail

/// The device-wide scan's dispatch, for any launcher (tilekit::gpu_launcher,
/// tilekit::sim::launcher). With temp == nullptr it only sets temp_bytes, or answers
/// invalid_value for n < 0 or an exclusive scan without init as the call does. Returns
/// launcher.invalid_value, writing nothing, for n < 0, a null input or output
/// with n > 0, an exclusive scan without init, temp_bytes too small, or more
/// than 2^31 - 1 chunks (one per block: about 4 * 10^12 int items). init_from (optional): where
/// the kernel reads init when it runs (CUB's future value; has_init must be true).
template <bool Inclusive, class Launcher, class In, class Out, class T, class Op>
typename Launcher::error_type device_scan(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                          detail::count_t n, Out out, Op op, T init, bool has_init,
                                          const T* init_from = nullptr) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out>)  // thrust::device_ptr: read and write it as its pointer
    return device_scan<Inclusive>(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(out), op, init,
                                  has_init, init_from);
  // The size query and the call see the same n, so pick the same shape.
  if constexpr (detail::scan_shape<In, T>::has_large) {
    if (n >= scan_tuning::large_from)
      return detail::scan_in_shape<Inclusive, true>(launcher, temp, temp_bytes, in, n, out, op, init, has_init, init_from);
  }
  return detail::scan_in_shape<Inclusive, false>(launcher, temp, temp_bytes, in, n, out, op, init, has_init, init_from);
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::detail {
// The operator the scan kernel runs for op on accumulators of type T: cuda::std::plus<>
// (what CUB's and the facade's sums pass) as tilekit::plus, which gives the same sums
// (each is converted to T either way) and lets ptxas keep the double scan in 56
// registers, where cuda::std::plus<> spilled 48 bytes at 64 (nvcc 13.0, sm_90).
template <class T, class Op>
auto scan_op(Op op) {
  if constexpr (std::is_same_v<Op, ::cuda::std::plus<>> && std::is_arithmetic_v<T>) return plus{};
  else return op;
}
}  // namespace tilekit::detail

namespace tilekit::device {

template <class In, class Out, class Op>
cudaError_t inclusive_scan(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op,
                           cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device_scan<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, tilekit::detail::scan_op<T>(op), T{}, false);
}

template <class In, class Out, class Op, class T>
cudaError_t inclusive_scan_init(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op, T init,
                                cudaStream_t stream = 0) {
  return device_scan<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, tilekit::detail::scan_op<T>(op), init, true);
}

template <class In, class Out, class Op, class T>
cudaError_t exclusive_scan(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op, T init,
                           cudaStream_t stream = 0) {
  return device_scan<false>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, tilekit::detail::scan_op<T>(op), init, true);
}

/// exclusive_scan with the init read from *init_from when the kernel runs (after the work
/// queued before it in the stream), as CUB's FutureValue.
template <class In, class Out, class Op, class T>
cudaError_t exclusive_scan_future(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op,
                                  const T* init_from, cudaStream_t stream = 0) {
  if (init_from == nullptr && temp != nullptr && n > 0) return cudaErrorInvalidValue;
  return device_scan<false>(gpu_launcher{stream}, temp, temp_bytes, in, n, out, tilekit::detail::scan_op<T>(op), T{}, true, init_from);
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
#endif  // __CUDACC__
