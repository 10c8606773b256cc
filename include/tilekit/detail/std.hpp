// tilekit/detail/std.hpp - the standard library pieces used on both sides.
// Under nvcc, libcu++ (cuda::std) supplies them in device code; under a plain
// C++ compiler (the simulator), the ordinary standard library does.
#pragma once
#include <tilekit/config.hpp>
#include <cstring>

#if defined(__CUDACC__)
#  include <cuda/std/cstdint>
#  include <cuda/std/limits>
#  include <cuda/std/type_traits>
#  include <cuda/std/utility>
namespace tilekit::detail { namespace stdx = ::cuda::std; }
#else
#  include <cstdint>
#  include <limits>
#  include <type_traits>
#  include <utility>
namespace tilekit::detail { namespace stdx = ::std; }
#endif

namespace tilekit::detail {

template <class T>
using remove_cvref_t = typename stdx::remove_cv<typename stdx::remove_reference<T>::type>::type;

// bit_cast for trivially copyable types of equal size (std::bit_cast is C++20).
template <class To, class From>
TILEKIT_HD To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast needs types of the same size");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

TILEKIT_HD unsigned popc(unsigned x) {
#if TILEKIT_DEVICE_PASS
  return static_cast<unsigned>(__popc(x));
#else
  return static_cast<unsigned>(__builtin_popcount(x));
#endif
}

// Index of the lowest set bit; x must not be 0.
TILEKIT_HD unsigned lowest_bit(unsigned x) {
#if TILEKIT_DEVICE_PASS
  return static_cast<unsigned>(__ffs(static_cast<int>(x)) - 1);
#else
  return static_cast<unsigned>(__builtin_ctz(x));
#endif
}

// Index of the highest set bit; x must not be 0.
TILEKIT_HD unsigned highest_bit(unsigned x) {
#if TILEKIT_DEVICE_PASS
  return static_cast<unsigned>(31 - __clz(static_cast<int>(x)));
#else
  return static_cast<unsigned>(31 - __builtin_clz(x));
#endif
}

// Bits of the lanes below `lane` (lane in 0..31).
TILEKIT_HD constexpr unsigned lanes_below(unsigned lane) { return (1u << lane) - 1u; }

// The low n bits set (n in 0..32).
TILEKIT_HD constexpr unsigned low_bits(unsigned n) { return n >= 32 ? ~0u : (1u << n) - 1u; }

}  // namespace tilekit::detail
