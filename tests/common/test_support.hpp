// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Shared by the GPU (.cu) and simulator (.cpp) test programs: seeds, random data,
// the test types and operators, exact value comparison, poison.
#pragma once
#include <tilekit/core/config.hpp>
#include <tilekit/core/operators.hpp>

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <limits>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tk_test {

// ---- seeds: TILEKIT_TEST_SEED=<n> repeats a run; otherwise a fresh one, logged ----
inline std::uint64_t base_seed() {
  static const std::uint64_t seed = [] {
    const char* env = std::getenv("TILEKIT_TEST_SEED");
    std::uint64_t s = env ? std::strtoull(env, nullptr, 10) : (std::uint64_t(std::random_device{}()) << 32 | std::random_device{}());
    BOOST_TEST_MESSAGE("random seed: TILEKIT_TEST_SEED=" << s);
    std::printf("tilekit tests: random seed %llu (rerun with TILEKIT_TEST_SEED=%llu)\n", (unsigned long long)s,
                (unsigned long long)s);
    return s;
  }();
  return seed;
}

/// A generator for one test case: the base seed mixed with a case number, so
/// every case draws different data and each can be replayed.
inline std::mt19937_64 rng_for(std::uint64_t salt) { return std::mt19937_64(base_seed() ^ (salt * 0x9E3779B97F4A7C15ull)); }

// ---- test types ----

using float_types = std::tuple<float, double>;

/// A 16-byte value with an associative, non-commutative operation: the 2x2
/// integer matrix product (mod 2^32).
struct mat2 {
  std::uint32_t a, b, c, d;
  TILEKIT_HD friend bool operator==(const mat2& x, const mat2& y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }
  friend std::ostream& operator<<(std::ostream& os, const mat2& m) {
    return os << "[" << m.a << " " << m.b << "; " << m.c << " " << m.d << "]";
  }
};
struct mat_mul {
  TILEKIT_HD mat2 operator()(const mat2& x, const mat2& y) const {
    return {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  }
  template <class T>
  TILEKIT_HD static T identity() { return T{1, 0, 0, 1}; }
};

/// A value type that is not trivially default-constructible.
struct tracked {
  int v;
  TILEKIT_HD tracked() : v(-7) {}
  TILEKIT_HD explicit tracked(int x) : v(x) {}
  TILEKIT_HD friend tracked operator+(const tracked& x, const tracked& y) { return tracked(x.v + y.v); }
  TILEKIT_HD friend bool operator==(const tracked& x, const tracked& y) { return x.v == y.v; }
  friend std::ostream& operator<<(std::ostream& os, const tracked& t) { return os << "tracked(" << t.v << ")"; }
};

// The built-in operations written as ordinary functors: tilekit must not
// recognise them, so they take the generic (shuffle) paths.
struct custom_plus {
  template <class T>
  TILEKIT_HD T operator()(const T& a, const T& b) const { return static_cast<T>(a + b); }
};
struct custom_min {
  template <class T>
  TILEKIT_HD T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct custom_max {
  template <class T>
  TILEKIT_HD T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct custom_xor {
  template <class T>
  TILEKIT_HD T operator()(const T& a, const T& b) const { return static_cast<T>(a ^ b); }
};

template <class Op>
inline std::string op_name() {
  using namespace tilekit;
  if constexpr (std::is_same_v<Op, plus>) return "plus";
  else if constexpr (std::is_same_v<Op, minimum>) return "minimum";
  else if constexpr (std::is_same_v<Op, maximum>) return "maximum";
  else if constexpr (std::is_same_v<Op, bit_and>) return "bit_and";
  else if constexpr (std::is_same_v<Op, bit_or>) return "bit_or";
  else if constexpr (std::is_same_v<Op, bit_xor>) return "bit_xor";
  else if constexpr (std::is_same_v<Op, custom_plus>) return "custom_plus";
  else if constexpr (std::is_same_v<Op, custom_min>) return "custom_min";
  else if constexpr (std::is_same_v<Op, custom_max>) return "custom_max";
  else if constexpr (std::is_same_v<Op, custom_xor>) return "custom_xor";
  else if constexpr (std::is_same_v<Op, mat_mul>) return "mat_mul";
  else return typeid(Op).name();
}

template <class T>
inline std::string type_name() {
  if constexpr (std::is_same_v<T, std::int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, mat2>) return "mat2";
  else if constexpr (std::is_same_v<T, tracked>) return "tracked";
  else return typeid(T).name();
}

// ---- random data ----

/// Values small enough that sums of a few thousand stay exact in every type.
template <class T>
T random_value(std::mt19937_64& g) {
  if constexpr (std::is_same_v<T, mat2>) {
    // Shears [1 a; 0 1] or [1 0; a 1]: they do not commute, and their products keep
    // determinant 1, so a long product (mod 2^32) still depends on the order. Small
    // random matrices do not: most are singular mod 2, and their products soon
    // become 0 mod 2^32 in any order.
    const std::uint32_t a = std::uniform_int_distribution<std::uint32_t>(1, 5)(g);
    return g() % 2 ? mat2{1, a, 0, 1} : mat2{1, 0, a, 1};
  } else if constexpr (std::is_same_v<T, tracked>) {
    return tracked(std::uniform_int_distribution<int>(-1000, 1000)(g));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(std::uniform_real_distribution<double>(-1000.0, 1000.0)(g));
  } else if constexpr (sizeof(T) == 1) {
    return static_cast<T>(std::uniform_int_distribution<int>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max())(g));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<T>(std::uniform_int_distribution<std::int64_t>(-1000000, 1000000)(g));
  } else {
    return static_cast<T>(std::uniform_int_distribution<std::uint64_t>(0, 2000000)(g));
  }
}

template <class T>
std::vector<T> random_vector(std::size_t n, std::mt19937_64& g) {
  std::vector<T> v;
  v.reserve(n);
  for (std::size_t i = 0; i < n; ++i) v.push_back(random_value<T>(g));
  return v;
}

// ---- comparison and poison ----

/// Exact equality: same bits, or both NaN.
template <class T>
bool same_value(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

template <class T>
std::string show(const T& v) {
  std::ostringstream s;
  if constexpr (sizeof(T) == 1 && std::is_integral_v<T>) s << int(v);
  else if constexpr (std::is_floating_point_v<T>) s << std::setprecision(std::numeric_limits<T>::max_digits10) << v;
  else s << v;
  return s.str();
}

/// A byte pattern no algorithm writes by accident: outputs start as this.
template <class T>
T poison() {
  T v{};
  std::memset(static_cast<void*>(&v), 0xCD, sizeof(T));
  return v;
}
template <class T>
bool is_poison(const T& v) {
  const T p = poison<T>();
  return std::memcmp(static_cast<const void*>(&v), static_cast<const void*>(&p), sizeof(T)) == 0;
}

/// Tiles of a tile test that stay inactive (divergent code): the same rule in kernel and check.
TILEKIT_HD constexpr bool tile_inactive(unsigned tile_in_block, unsigned block) { return (tile_in_block + block) % 3 == 2; }

// ---- CPU references with tilekit's documented combination orders ----

/// The balanced tree of reduce_butterfly: neighbours, then pairs of pairs, in lane order.
template <class T, class Op>
T tree_reduce(const T* v, unsigned n, Op op) {
  std::vector<T> level(v, v + n);
  while (level.size() > 1) {
    std::vector<T> next;
    for (std::size_t i = 0; i < level.size(); i += 2) next.push_back(op(level[i], level[i + 1]));
    level.swap(next);
  }
  return level[0];
}

/// The Kogge-Stone steps of the tile scan: distance 1, 2, 4, ...
template <class T, class Op>
std::vector<T> kogge_stone_inclusive(const T* v, unsigned n, Op op) {
  std::vector<T> cur(v, v + n);
  for (unsigned d = 1; d < n; d *= 2) {
    std::vector<T> next = cur;
    for (unsigned i = d; i < n; ++i) next[i] = op(cur[i - d], cur[i]);
    cur.swap(next);
  }
  return cur;
}

/// Compile-time loop over a list of values / types.
template <unsigned... Ns, class F>
void for_each_size(F&& f) {
  (f(std::integral_constant<unsigned, Ns>{}), ...);
}
template <class... Ts>
struct type_list {};
template <class... Ts, class F>
void for_each_type(type_list<Ts...>, F&& f) {
  (f(static_cast<Ts*>(nullptr)), ...);
}

}  // namespace tk_test
