// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/core/std.hpp - the standard library pieces used on both sides.
// Under nvcc, libcu++ (cuda::std) supplies them in device code; under a plain
// C++ compiler (the simulator), the ordinary standard library does.
#pragma once
#include <tilekit/core/config.hpp>
#include <cstring>

#if defined(__CUDACC__)
#  include <cuda/std/cstdint>
#  include <cuda/std/iterator>
#  include <cuda/std/limits>
#  include <cuda/std/type_traits>
#  include <cuda/std/utility>
namespace tilekit::detail { namespace stdx = ::cuda::std; }
#else
#  include <cstdint>
#  include <iterator>
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

// The bits of a where m has ones, of b elsewhere: one lop3 on the GPU (nvcc does not
// always find it when m and ~m are both constants).
TILEKIT_HD unsigned bit_select(unsigned m, unsigned a, unsigned b) {
#if TILEKIT_DEVICE_PASS
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, 0xe4;" : "=r"(d) : "r"(a), "r"(b), "r"(m));
  return d;
#else
  return (a & m) | (b & ~m);
#endif
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

// murmur3's 32-bit finaliser: every bit of x spread over the result (32-bit hash sets).
TILEKIT_HD unsigned mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  return x ^ (x >> 16);
}

// splitmix64's finaliser: every bit of x spread over the result (hash sets, call tags).
TILEKIT_HD unsigned long long mix64(unsigned long long x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Index of the highest set bit; x must not be 0.
TILEKIT_HD unsigned highest_bit(unsigned x) {
#if TILEKIT_DEVICE_PASS
  return static_cast<unsigned>(31 - __clz(static_cast<int>(x)));
#else
  return static_cast<unsigned>(31 - __builtin_clz(x));
#endif
}

// Leading zero bits of a 64-bit x; x must not be 0.
TILEKIT_HD unsigned leading_zeros(unsigned long long x) {
#if TILEKIT_DEVICE_PASS
  return static_cast<unsigned>(__clzll(static_cast<long long>(x)));
#else
  return static_cast<unsigned>(__builtin_clzll(x));
#endif
}

// The high 64 bits of the 128-bit product a * b.
TILEKIT_HD unsigned long long mul_hi(unsigned long long a, unsigned long long b) {
#if TILEKIT_DEVICE_PASS
  return __umul64hi(a, b);
#else
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

// x / d for x, d below 2^32 (d > 0) as one multiply by reciprocal = divide_by(d):
// ceil(2^64 / d) is over 2^64 / d by less than 1, so x * reciprocal / 2^64 is over
// x / d by less than x / 2^64 < 1 / d, which never reaches the next integer.
TILEKIT_HD constexpr unsigned long long divide_by(unsigned long long d) { return d == 1 ? 0 : ~0ull / d + 1; }
TILEKIT_HD unsigned long long divide(unsigned long long x, unsigned long long reciprocal) {
  return reciprocal == 0 ? x : mul_hi(x, reciprocal);
}

// Bits of the lanes below `lane` (lane in 0..31).
TILEKIT_HD constexpr unsigned lanes_below(unsigned lane) { return (1u << lane) - 1u; }

// The low n bits set (n in 0..32).
TILEKIT_HD constexpr unsigned low_bits(unsigned n) { return n >= 32 ? ~0u : (1u << n) - 1u; }

}  // namespace tilekit::detail
