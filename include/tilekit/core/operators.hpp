// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/core/operators.hpp - the built-in operators, their identities, and how
// tilekit recognises an operator as built-in (which decides the hardware path).
//
// NaN policy of minimum / maximum on floating point: a NaN operand makes the
// result the canonical quiet NaN, and -0.0 orders below +0.0. Both rules make
// minimum and maximum commutative and associative on every input, so a result
// never depends on the order in which a tree combined the values.
// Other operators (cuda::minimum<>, user functors) are applied as written.
#pragma once
#include <tilekit/core/std.hpp>

#if defined(__CUDACC__)
#  include <cuda/functional>
#  include <cuda/std/functional>
#endif

namespace tilekit {

namespace detail {
template <class T>
inline constexpr bool is_float_v = stdx::is_floating_point<T>::value;

template <class T>
TILEKIT_HD bool is_nan(const T& x) { return !(x == x); }

template <class T>
TILEKIT_HD bool sign_bit(const T& x) {
  if constexpr (sizeof(T) == 4) return (bit_cast<std::uint32_t>(x) >> 31) != 0;
  else return (bit_cast<std::uint64_t>(x) >> 63) != 0;
}
}  // namespace detail

/// a + b
struct plus {
  /// a + b, converted back to T (integer promotion would widen narrow types).
  template <class T>
  TILEKIT_HD constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};

/// The smaller of a and b (floating point: NaN-propagating, -0.0 < +0.0).
struct minimum {
  /// b if b < a, else a; on floating point the canonical quiet NaN if a or b is NaN,
  /// and -0.0 for zeros of different sign.
  template <class T>
  TILEKIT_HD T operator()(const T& a, const T& b) const {
    if constexpr (detail::is_float_v<T>) {
      if (detail::is_nan(a) || detail::is_nan(b)) return detail::stdx::numeric_limits<T>::quiet_NaN();
      if (a == b) return detail::sign_bit(a) ? a : b;
    }
    return b < a ? b : a;
  }
};

/// The larger of a and b (floating point: NaN-propagating, +0.0 > -0.0).
struct maximum {
  /// b if a < b, else a; on floating point the canonical quiet NaN if a or b is NaN,
  /// and +0.0 for zeros of different sign.
  template <class T>
  TILEKIT_HD T operator()(const T& a, const T& b) const {
    if constexpr (detail::is_float_v<T>) {
      if (detail::is_nan(a) || detail::is_nan(b)) return detail::stdx::numeric_limits<T>::quiet_NaN();
      if (a == b) return detail::sign_bit(a) ? b : a;
    }
    return a < b ? b : a;
  }
};

/// a & b
struct bit_and {
  /// a & b, converted back to T.
  template <class T>
  TILEKIT_HD constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a & b); }
};

/// a | b
struct bit_or {
  /// a | b, converted back to T.
  template <class T>
  TILEKIT_HD constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a | b); }
};

/// a ^ b
struct bit_xor {
  /// a ^ b, converted back to T.
  template <class T>
  TILEKIT_HD constexpr T operator()(const T& a, const T& b) const { return static_cast<T>(a ^ b); }
};

/// a == b: the default equality of keys (dedup, unique, run-length encode).
struct equal_to {
  /// a == b; the operands may have different types.
  template <class A, class B>
  TILEKIT_HD constexpr bool operator()(const A& a, const B& b) const { return a == b; }
};

/// What a built-in operator computes; `none` for every other functor.
enum class builtin_op { none, sum, min, max, bit_and, bit_or, bit_xor };

/// Which builtin_op the operator type Op computes: builtin_op::none unless specialised, as it
/// is for tilekit's operators and, under nvcc, for the CUDA ones that CUB and Thrust pass.
template <class Op>
struct builtin_kind { static constexpr builtin_op value = builtin_op::none; };
/// tilekit::plus computes builtin_op::sum.
template <> struct builtin_kind<plus> { static constexpr builtin_op value = builtin_op::sum; };
/// tilekit::minimum computes builtin_op::min.
template <> struct builtin_kind<minimum> { static constexpr builtin_op value = builtin_op::min; };
/// tilekit::maximum computes builtin_op::max.
template <> struct builtin_kind<maximum> { static constexpr builtin_op value = builtin_op::max; };
/// tilekit::bit_and computes builtin_op::bit_and.
template <> struct builtin_kind<bit_and> { static constexpr builtin_op value = builtin_op::bit_and; };
/// tilekit::bit_or computes builtin_op::bit_or.
template <> struct builtin_kind<bit_or> { static constexpr builtin_op value = builtin_op::bit_or; };
/// tilekit::bit_xor computes builtin_op::bit_xor.
template <> struct builtin_kind<bit_xor> { static constexpr builtin_op value = builtin_op::bit_xor; };
/// @var builtin_kind::value
/// The builtin_op that Op computes.
/// @var builtin_kind<plus>::value
/// builtin_op::sum, what tilekit::plus computes.
/// @var builtin_kind<minimum>::value
/// builtin_op::min, what tilekit::minimum computes.
/// @var builtin_kind<maximum>::value
/// builtin_op::max, what tilekit::maximum computes.
/// @var builtin_kind<bit_and>::value
/// builtin_op::bit_and, what tilekit::bit_and computes.
/// @var builtin_kind<bit_or>::value
/// builtin_op::bit_or, what tilekit::bit_or computes.
/// @var builtin_kind<bit_xor>::value
/// builtin_op::bit_xor, what tilekit::bit_xor computes.

#if defined(__CUDACC__)
// The operator types CUB and Thrust code passes.
/// `cuda::std::plus<T>` computes builtin_op::sum.
template <class T> struct builtin_kind<::cuda::std::plus<T>> { static constexpr builtin_op value = builtin_op::sum; };
/// `cuda::minimum<T>` computes builtin_op::min.
template <class T> struct builtin_kind<::cuda::minimum<T>> { static constexpr builtin_op value = builtin_op::min; };
/// `cuda::maximum<T>` computes builtin_op::max.
template <class T> struct builtin_kind<::cuda::maximum<T>> { static constexpr builtin_op value = builtin_op::max; };
/// `cuda::std::bit_and<T>` computes builtin_op::bit_and.
template <class T> struct builtin_kind<::cuda::std::bit_and<T>> { static constexpr builtin_op value = builtin_op::bit_and; };
/// `cuda::std::bit_or<T>` computes builtin_op::bit_or.
template <class T> struct builtin_kind<::cuda::std::bit_or<T>> { static constexpr builtin_op value = builtin_op::bit_or; };
/// `cuda::std::bit_xor<T>` computes builtin_op::bit_xor.
template <class T> struct builtin_kind<::cuda::std::bit_xor<T>> { static constexpr builtin_op value = builtin_op::bit_xor; };
/// @var builtin_kind<::cuda::std::plus< T > >::value
/// builtin_op::sum, what `cuda::std::plus<T>` computes.
/// @var builtin_kind<::cuda::minimum< T > >::value
/// builtin_op::min, what `cuda::minimum<T>` computes.
/// @var builtin_kind<::cuda::maximum< T > >::value
/// builtin_op::max, what `cuda::maximum<T>` computes.
/// @var builtin_kind<::cuda::std::bit_and< T > >::value
/// builtin_op::bit_and, what `cuda::std::bit_and<T>` computes.
/// @var builtin_kind<::cuda::std::bit_or< T > >::value
/// builtin_op::bit_or, what `cuda::std::bit_or<T>` computes.
/// @var builtin_kind<::cuda::std::bit_xor< T > >::value
/// builtin_op::bit_xor, what `cuda::std::bit_xor<T>` computes.
#endif

/// builtin_kind<Op>::value, with cv and reference removed from Op first.
template <class Op>
inline constexpr builtin_op builtin_kind_v = builtin_kind<detail::remove_cvref_t<Op>>::value;

namespace detail {
template <class Op, class T, class = void>
struct has_member_identity : stdx::false_type {};
template <class Op, class T>
struct has_member_identity<Op, T, decltype((void)Op::template identity<T>())> : stdx::true_type {};

template <class T>
inline constexpr bool is_arith_v = stdx::is_arithmetic<T>::value;
template <class T>
inline constexpr bool is_int_v = stdx::is_integral<T>::value;
}  // namespace detail

/// True when tilekit knows op's identity for T: built-in operators on
/// arithmetic types (bitwise ones on integers), or a functor with a static
/// member template `identity<T>()`.
template <class T, class Op>
inline constexpr bool has_identity_v =
    detail::has_member_identity<detail::remove_cvref_t<Op>, T>::value ||
    ((builtin_kind_v<Op> == builtin_op::sum || builtin_kind_v<Op> == builtin_op::min ||
      builtin_kind_v<Op> == builtin_op::max) && detail::is_arith_v<T>) ||
    ((builtin_kind_v<Op> == builtin_op::bit_and || builtin_kind_v<Op> == builtin_op::bit_or ||
      builtin_kind_v<Op> == builtin_op::bit_xor) && detail::is_int_v<T>);

/// The value e with op(e, x) == op(x, e) == x for every x.
/// For a floating-point sum that is -0.0 (+0.0 + -0.0 would lose the sign).
TILEKIT_EXEC_CHECK_DISABLE
template <class T, class Op>
TILEKIT_HD T identity(Op) {
  static_assert(has_identity_v<T, Op>,
                "tilekit::identity: no identity known for this operator and type; give the operator a "
                "`template <class T> static T identity()` member, or pass an initial value");
  using limits = detail::stdx::numeric_limits<T>;
  using D = detail::remove_cvref_t<Op>;
  constexpr builtin_op kind = builtin_kind_v<Op>;
  if constexpr (detail::has_member_identity<D, T>::value) {
    return D::template identity<T>();
  } else if constexpr (kind == builtin_op::sum) {
    if constexpr (detail::is_float_v<T>) return -T(0);
    else return T(0);
  } else if constexpr (kind == builtin_op::min) {
    if constexpr (detail::is_float_v<T>) return limits::infinity();
    else return limits::max();
  } else if constexpr (kind == builtin_op::max) {
    if constexpr (detail::is_float_v<T>) return -limits::infinity();
    else return limits::lowest();
  } else if constexpr (kind == builtin_op::bit_and) {
    return static_cast<T>(~T(0));
  } else {
    return T(0);
  }
}

}  // namespace tilekit
