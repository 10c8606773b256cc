// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The operators' documented semantics, on the host (no GPU, no simulator needed):
// identities, the NaN / signed-zero policy of minimum and maximum, and which
// functors count as built-in.
#include "../common/test_support.hpp"

#include <tilekit/core/operators.hpp>

#include <cmath>
#include <limits>
#include <tuple>

namespace {
template <class T>
bool is_negative_zero(T x) { return x == T(0) && std::signbit(x); }
template <class T>
bool is_positive_zero(T x) { return x == T(0) && !std::signbit(x); }
}  // namespace

using arithmetic_types = std::tuple<std::int8_t, std::uint8_t, std::int16_t, std::int32_t, std::uint32_t, std::int64_t,
                                    std::uint64_t, float, double>;

BOOST_AUTO_TEST_CASE_TEMPLATE(identities_are_neutral, T, arithmetic_types) {
  auto g = tk_test::rng_for(1);
  for (int k = 0; k < 1000; ++k) {
    const T x = tk_test::random_value<T>(g);
    BOOST_TEST(tk_test::same_value(tilekit::plus{}(x, tilekit::identity<T>(tilekit::plus{})), x));
    BOOST_TEST(tk_test::same_value(tilekit::minimum{}(tilekit::identity<T>(tilekit::minimum{}), x), x));
    BOOST_TEST(tk_test::same_value(tilekit::maximum{}(x, tilekit::identity<T>(tilekit::maximum{})), x));
    if constexpr (std::is_integral_v<T>) {
      BOOST_TEST(tilekit::bit_and{}(x, tilekit::identity<T>(tilekit::bit_and{})) == x);
      BOOST_TEST(tilekit::bit_or{}(x, tilekit::identity<T>(tilekit::bit_or{})) == x);
      BOOST_TEST(tilekit::bit_xor{}(x, tilekit::identity<T>(tilekit::bit_xor{})) == x);
    }
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(float_sum_identity_keeps_negative_zero, T, tk_test::float_types) {
  BOOST_TEST(is_negative_zero(tilekit::identity<T>(tilekit::plus{})));
  BOOST_TEST(is_negative_zero(tilekit::plus{}(T(-0.0), tilekit::identity<T>(tilekit::plus{}))));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(min_max_nan_policy, T, tk_test::float_types) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const tilekit::minimum mn;
  const tilekit::maximum mx;
  for (T x : {T(1), T(-1), T(0), T(-0.0), inf, -inf, nan}) {
    BOOST_TEST(std::isnan(mn(nan, x)));
    BOOST_TEST(std::isnan(mn(x, nan)));
    BOOST_TEST(std::isnan(mx(nan, x)));
    BOOST_TEST(std::isnan(mx(x, nan)));
  }
  BOOST_TEST(is_negative_zero(mn(T(0.0), T(-0.0))));
  BOOST_TEST(is_negative_zero(mn(T(-0.0), T(0.0))));
  BOOST_TEST(is_positive_zero(mx(T(0.0), T(-0.0))));
  BOOST_TEST(is_positive_zero(mx(T(-0.0), T(0.0))));
  BOOST_TEST(mn(T(2), T(-3)) == T(-3));
  BOOST_TEST(mx(T(2), T(-3)) == T(2));
  BOOST_TEST(mn(-inf, T(5)) == -inf);
  BOOST_TEST(mx(inf, T(5)) == inf);
}

struct with_identity {
  template <class T>
  T operator()(const T& a, const T& b) const { return a * b; }
  template <class T>
  static T identity() { return T(1); }
};

BOOST_AUTO_TEST_CASE(builtin_recognition) {
  static_assert(tilekit::builtin_kind_v<tilekit::plus> == tilekit::builtin_op::sum);
  static_assert(tilekit::builtin_kind_v<const tilekit::minimum&> == tilekit::builtin_op::min);
  static_assert(tilekit::builtin_kind_v<tilekit::bit_xor> == tilekit::builtin_op::bit_xor);
  static_assert(tilekit::builtin_kind_v<tk_test::custom_plus> == tilekit::builtin_op::none);
  static_assert(tilekit::has_identity_v<int, tilekit::plus>);
  static_assert(!tilekit::has_identity_v<float, tilekit::bit_and>);
  static_assert(!tilekit::has_identity_v<int, tk_test::custom_plus>);
  static_assert(tilekit::has_identity_v<int, with_identity>);
  static_assert(tilekit::has_identity_v<tk_test::mat2, tk_test::mat_mul>);
  BOOST_TEST(tilekit::identity<int>(with_identity{}) == 1);
  BOOST_TEST((tilekit::identity<tk_test::mat2>(tk_test::mat_mul{}) == tk_test::mat2{1, 0, 0, 1}));
}
