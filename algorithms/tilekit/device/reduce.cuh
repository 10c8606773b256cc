// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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
// and commutative; results are bitwise repeatable on a given device and n (see the device
// level below). Errors: cudaErrorInvalidValue, with nothing
// written, for n < 0, a null in with n > 0, a null out, a too small temp_bytes.
//
// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_reduce(launcher, temp, temp_bytes, in, n, out, op, init): *out = init op
// (op over in[0 .. n)), in ONE kernel launch (CUB takes two). Each block folds its
// chunks (16-byte vector loads where the input is an aligned pointer), reduces them
// as a block, and publishes its total; the last block to finish (a ticket counter,
// zeroed before the launch) combines the totals in block order and writes *out.
// op must be associative and commutative: items meet in an order set by the grid.
// For a given n and device that order is fixed, so results (floats included) are
// bitwise the same run after run. The entry points are tilekit::device::reduce
// (GPU) and this function with a tilekit::sim::launcher (simulator).

#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/reduce.cuh>

namespace tilekit {

// ---- arg_min / arg_max: a reduce over (index, value) pairs ----

/// An item with its index; `valid` false: no item (the identity of the arg ops).
template <class T>
struct arg_item {
  std::int64_t index;  ///< the item's position in the input
  T value;             ///< the item
  bool valid;          ///< false: no item (then index and value mean nothing)
};

namespace detail {

/// in[i] as arg_item{i, in[i]}.
template <class In>
struct indexed_input {
  using T = value_of<In>;
  In in;
  TILEKIT_HD arg_item<T> operator[](count_t i) const { return {i, T(in[i]), true}; }
};

// Where the grid reduce reads 16-byte vectors: In itself where it is an aligned
// pointer, or the pointer an indexed_input wraps (ArgMin / ArgMax read at memory
// speed too), each item made from its index and its value.
template <class In>
struct vector_source {
  using pointer = In;
  TILEKIT_HD static In base(const In& in) { return in; }
  template <class V>
  TILEKIT_HD static V item(count_t, const V& x) { return x; }
};
template <class P>
struct vector_source<indexed_input<P>> {
  using pointer = P;
  TILEKIT_HD static P base(const indexed_input<P>& in) { return in.in; }
  template <class V>
  TILEKIT_HD static arg_item<V> item(count_t i, const V& x) { return {i, x, true}; }
};

}  // namespace detail

namespace detail {

template <class In, class Tuning = reduce_tuning>
struct reduce_shape {
  using source = vector_source<In>;
  static constexpr bool vectors = vector_loadable_v<typename source::pointer>;
  static constexpr unsigned vec = vector_items<typename source::pointer>();
  static constexpr unsigned items = vectors ? Tuning::vectors * vec : Tuning::scalar_items;
  static constexpr count_t chunk = count_t(Tuning::threads) * items;
};

template <unsigned Threads, class In, class Out, class T, class Op>
struct reduce_kernel {
  using shape = reduce_shape<In>;
  struct shared_t {
    reduce_storage<T, Threads> reduce;
    bool last;
  };
  In in;
  count_t n, head, whole_chunks;  // head: items before the first 16-byte boundary
  Out out;
  Op op;
  T init;
  T* partials;       // one per block
  unsigned* ticket;  // zero at launch

  // op over the items of full chunk t held by this thread.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD T chunk_part(count_t t, unsigned rank) const {
    const count_t base = head + t * shape::chunk;
    if constexpr (shape::vectors) {
      using source = typename shape::source;
      using V = value_of<typename source::pointer>;
      vector_of<V, shape::vec> v[reduce_tuning::vectors];
      const count_t at = base + count_t(rank) * shape::vec;  // index of this thread's first item
      TILEKIT_UNROLL
      for (unsigned j = 0; j < reduce_tuning::vectors; ++j)
        v[j] = load_vector<V, shape::vec>(source::base(in) + at + count_t(j) * Threads * shape::vec);
      T part = T(source::item(at, v[0].item[0]));
      TILEKIT_UNROLL
      for (unsigned j = 0; j < reduce_tuning::vectors; ++j)
        TILEKIT_UNROLL
        for (unsigned i = 0; i < shape::vec; ++i)
          if (j + i > 0) part = op(part, T(source::item(at + count_t(j) * Threads * shape::vec + i, v[j].item[i])));
      return part;
    } else {
      T part = T(in[base + rank]);
      TILEKIT_UNROLL
      for (unsigned k = 1; k < shape::items; ++k) part = op(part, T(in[base + count_t(k) * Threads + rank]));
      return part;
    }
  }

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    shared_t& s = ctx.template shared<shared_t>();
    const unsigned rank = block.thread_rank();
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    if (n == 0) {
      if (rank == 0) *out = init;
      return;
    }
    T acc = init;
    bool have = false;
    for (count_t t = b; t < whole_chunks; t += blocks) {
      const T part = chunk_part(t, rank);
      acc = have ? op(acc, part) : part;
      have = true;
    }
    // The head and the tail past the full chunks go to the block next in line.
    const count_t rest = n - whole_chunks * shape::chunk, tail = head + whole_chunks * shape::chunk;
    if (rest > 0 && b == whole_chunks % blocks) {
      for (count_t i = rank; i < rest; i += Threads) {
        const T x = T(in[i < head ? i : tail + (i - head)]);
        acc = have ? op(acc, x) : x;
        have = true;
      }
    }
    // Threads with items are a prefix of the block: all of them, or the first `rest`.
    const unsigned valid = b < whole_chunks || rest >= count_t(Threads) ? Threads : unsigned(rest);
    const T total =
        valid == Threads ? tilekit::reduce(block, acc, op, s.reduce) : tilekit::reduce(block, acc, op, s.reduce, valid);
    if (blocks == 1) {
      if (rank == 0) *out = op(init, total);
      return;
    }
    if (rank == 0) {
      partials[b] = total;
      be::fence();  // the total is visible before the ticket is
      s.last = be::atomic_add(ticket, 1u) == unsigned(blocks - 1);
    }
    block.sync();
    if (!s.last) return;
    be::fence();
    acc = init;
    have = false;
    for (count_t i = rank; i < blocks; i += Threads) {
      acc = have ? op(acc, partials[i]) : partials[i];
      have = true;
    }
    const unsigned count = blocks < count_t(Threads) ? unsigned(blocks) : Threads;
    const T all = tilekit::reduce(block, acc, op, s.reduce, count);
    if (rank == 0) *out = op(init, all);
  }
};

/// The smaller (Max: larger) value by `<`, the lower index among equals: a total
/// order on (value, index) where `<` is one on values, so any combination order
/// gives the same result.
template <bool Max>
struct arg_extremum {
  template <class T>
  TILEKIT_HD arg_item<T> operator()(const arg_item<T>& a, const arg_item<T>& b) const {
    if (!a.valid) return b;
    if (!b.valid) return a;
    if (Max ? a.value < b.value : b.value < a.value) return b;
    if (Max ? b.value < a.value : a.value < b.value) return a;
    return b.index < a.index ? b : a;
  }
};

/// Writes an arg_item to two outputs, CUB's way: an empty input gives the type's
/// max (Max: lowest) and the index 1.
template <bool Max, class T, class ValueOut, class IndexOut>
struct arg_output {
  ValueOut value_out;
  IndexOut index_out;
  struct proxy {
    const arg_output& o;
    TILEKIT_HD void operator=(const arg_item<T>& r) const {
      *o.value_out = r.valid ? r.value : (Max ? stdx::numeric_limits<T>::lowest() : stdx::numeric_limits<T>::max());
      *o.index_out = r.valid ? r.index : 1;
    }
  };
  TILEKIT_HD proxy operator*() const { return proxy{*this}; }
};

}  // namespace detail

/// The device-wide reduce's dispatch, for any launcher (tilekit::gpu_launcher,
/// tilekit::sim::launcher). With temp == nullptr it only sets temp_bytes, or answers
/// invalid_value for n < 0 as the call does. Returns
/// launcher.invalid_value, writing nothing, for n < 0, a null input with n > 0, a
/// null output pointer, or temp_bytes too small.
template <class Launcher, class In, class Out, class T, class Op>
typename Launcher::error_type device_reduce(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            detail::count_t n, Out out, Op op, T init) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out>)  // thrust::device_ptr: read and write it as its pointer
    return device_reduce(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(out), op, init);
  constexpr unsigned threads = reduce_tuning::threads;
  using body_t = detail::reduce_kernel<threads, In, Out, T, Op>;
  using shape = typename body_t::shape;
  const unsigned sms = launcher.sm_count();
  const unsigned max_blocks = (sms > 0 ? sms : 1) * reduce_tuning::blocks_per_sm;
  detail::temp_carver carve(temp);
  T* partials = carve.take<T>(max_blocks);
  unsigned* ticket = carve.take<unsigned>(1);
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = carve.bytes();
    return launcher.success;
  }
  if (temp_bytes < carve.bytes()) return launcher.invalid_value;
  if ((n > 0 && detail::is_null(in)) || detail::is_null(out)) return launcher.invalid_value;
  const detail::count_t head = detail::misaligned_head(shape::source::base(in), n);
  const detail::count_t whole_chunks = (n - head) / shape::chunk;
  const detail::count_t units = whole_chunks + (n - whole_chunks * shape::chunk > 0 ? 1 : 0);
  const unsigned grid = units < detail::count_t(max_blocks) ? unsigned(units > 0 ? units : 1) : max_blocks;
  if (grid > 1)
    if (auto e = launcher.zero(ticket, sizeof(unsigned)); e != launcher.success) return e;
  return launcher.run(grid, threads, body_t{in, n, head, whole_chunks, out, op, init, partials, ticket},
                      sizeof(typename body_t::shared_t));
}

namespace detail {
template <class In, class Pred>
struct counted {  // 1 where pred(in[i]), 0 elsewhere: count_if as a sum
  In in;
  Pred pred;
  using value_type = count_t;
  TILEKIT_HD count_t operator[](count_t i) const { return pred(in[i]) ? 1 : 0; }
};
template <class T>
struct equal_to_value {
  T value;
  template <class U>
  TILEKIT_HD bool operator()(const U& x) const { return x == value; }
};
}  // namespace detail

/// The device-wide count_if's dispatch: *out = the number of items with pred(in[i]),
/// as a device reduce of 64-bit counts (its temp_bytes and errors).
template <class Launcher, class In, class Out, class Pred>
typename Launcher::error_type device_count_if(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                              detail::count_t n, Out out, Pred pred) {
  if constexpr (detail::wraps_pointer_v<In>)  // thrust::device_ptr: read it as its pointer
    return device_count_if(launcher, temp, temp_bytes, detail::unwrap(in), n, out, pred);
  if (temp != nullptr && n > 0 && detail::is_null(in)) return launcher.invalid_value;
  return device_reduce(launcher, temp, temp_bytes, detail::counted<In, Pred>{in, pred}, n, out, plus{},
                       detail::count_t(0));
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::device {

template <class In, class Out, class T, class Op>
cudaError_t reduce(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op, T init,
                   cudaStream_t stream = 0) {
  return device_reduce(gpu_launcher{stream}, temp, temp_bytes, in, n, out, op, init);
}

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
  auto items = tilekit::detail::unwrap(in);  // a thrust::device_ptr as its pointer: vector loads
  return device::reduce(temp, temp_bytes, tilekit::detail::indexed_input<decltype(items)>{items}, n,
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
#endif  // __CUDACC__
