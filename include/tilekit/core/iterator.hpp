// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/core/iterator.hpp - what the algorithms need of their inputs and
// outputs: 64-bit counts, the value type of an iterator, null checks, and loads
// of 16-byte vectors where the input allows.
#pragma once
#include <tilekit/core/std.hpp>

#include <cstddef>

namespace tilekit::detail {

/// Item counts and indices of the device-wide algorithms (up to 2^63 - 1 items).
using count_t = std::int64_t;

template <class It, class = void>
struct member_value_type {  // neither: what it[0] reads
  using type = decltype(stdx::declval<It&>()[0]);
};
template <class It>
struct member_value_type<It, stdx::void_t<typename It::value_type>> {
  using type = typename It::value_type;
};
template <class It, class = void>
struct value_of_impl : member_value_type<It> {};
template <class It>
struct value_of_impl<It, stdx::void_t<typename stdx::iterator_traits<It>::value_type>> {
  using type = typename stdx::iterator_traits<It>::value_type;
};

/// The value type of an input: iterator_traits<It>::value_type, else It::value_type,
/// else what it[0] reads. So iterators whose reference is a proxy (thrust::device_ptr,
/// zip or transform iterators) give their value type, not the proxy.
template <class It>
using value_of = remove_cvref_t<typename value_of_impl<remove_cvref_t<It>>::type>;

template <class Out, class Fallback, class = void>
struct output_value_impl {  // no iterator_traits: Fallback
  using type = Fallback;
};
template <class Out, class Fallback>
struct output_value_impl<Out, Fallback, stdx::void_t<typename stdx::iterator_traits<Out>::value_type>> {
  using value = typename stdx::iterator_traits<Out>::value_type;
  using type = typename stdx::conditional<stdx::is_void<value>::value, Fallback, value>::type;
};
/// The value type an output iterator writes (a pointer's pointee), or Fallback where it
/// has none (void, as output-only iterators declare): what a sum accumulates in (CUB's rule).
template <class Out, class Fallback>
using output_value = remove_cvref_t<typename output_value_impl<remove_cvref_t<Out>, Fallback>::type>;

template <class It, class = void>
inline constexpr bool wraps_pointer_v = false;
/// Iterators that hold a raw pointer and give it by get() (thrust::device_ptr): the
/// algorithms read them as that pointer (unwrap), 16-byte vector loads included.
template <class It>
inline constexpr bool wraps_pointer_v<It, stdx::void_t<decltype(stdx::declval<const It&>().get())>> =
    stdx::is_pointer<decltype(stdx::declval<const It&>().get())>::value && !stdx::is_pointer<It>::value;

template <class It>
TILEKIT_HD auto unwrap(const It& it) {
  if constexpr (wraps_pointer_v<It>) return it.get();
  else return it;
}

/// Whether an iterator argument is a null pointer, or wraps one (iterators of other
/// types never are): the argument checks of every device-wide dispatch.
template <class It>
TILEKIT_HD bool is_null(const It& it) {
  if constexpr (stdx::is_pointer<It>::value) return it == nullptr;
  else if constexpr (wraps_pointer_v<It>) return it.get() == nullptr;
  else return false;
}

/// Inputs read as 16-byte vectors: pointers to arithmetic types that divide 16 bytes.
template <class It>
inline constexpr bool vector_loadable_v =
    stdx::is_pointer<It>::value && stdx::is_arithmetic<value_of<It>>::value && 16 % sizeof(value_of<It>) == 0;

/// Items per 16-byte vector of It's values (1 for inputs read item by item).
template <class It>
TILEKIT_HD constexpr unsigned vector_items() {
  if constexpr (vector_loadable_v<It>) return 16 / sizeof(value_of<It>);
  else return 1;
}

/// The alignment of an N-item vector of V's: its size's largest power-of-two divisor, at most 16.
template <class V, unsigned N>
TILEKIT_HD constexpr std::size_t vector_alignment() {
  constexpr std::size_t bytes = N * sizeof(V);
  return bytes % 16 == 0 ? 16 : bytes & (~bytes + 1);
}

/// N items loaded or stored as one vector (one instruction up to 16 bytes): 16-byte
/// aligned, or aligned to its size where that is less (the 4 one-byte flags of a lane).
template <class V, unsigned N>
struct alignas(vector_alignment<V, N>()) vector_of {
  V item[N];
};

/// Whether p can be read as vector_of<value_of<It>, N>'s from p on (vector loadable and so aligned).
template <unsigned N, class It>
TILEKIT_HD bool vector_aligned(It p) {
  if constexpr (vector_loadable_v<It>)
    return reinterpret_cast<std::uintptr_t>(p) % vector_alignment<value_of<It>, N>() == 0;
  else
    return false;
}

/// Items before the first 16-byte boundary of a vector-loadable input (0 otherwise).
template <class It>
TILEKIT_HD count_t misaligned_head(It in, count_t n) {
  if constexpr (vector_loadable_v<It>) {
    const auto address = reinterpret_cast<std::uintptr_t>(in);
    if (address % sizeof(value_of<It>) != 0) return n;  // not even item-aligned: read item by item
    const count_t head = count_t((16 - address % 16) % 16 / sizeof(value_of<It>));
    return head < n ? head : n;
  } else {
    return 0;
  }
}

/// The N items at p (aligned as vector_of) in one load.
template <class V, unsigned N>
TILEKIT_HD vector_of<V, N> load_vector(const V* p) {
#if TILEKIT_DEVICE_PASS
  return *reinterpret_cast<const vector_of<V, N>*>(p);
#else
  vector_of<V, N> v;
  std::memcpy(&v, p, sizeof(v));  // the simulator: no aliasing through the vector type
  return v;
#endif
}

/// Stores the N items of v at p (aligned as vector_of) in one store.
template <class V, unsigned N>
TILEKIT_HD void store_vector(V* p, const vector_of<V, N>& v) {
#if TILEKIT_DEVICE_PASS
  *reinterpret_cast<vector_of<V, N>*>(p) = v;
#else
  std::memcpy(p, &v, sizeof(v));
#endif
}

}  // namespace tilekit::detail
