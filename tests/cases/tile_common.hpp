// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the tile-level test cases share: operators per type, types, checks.
// The including file defines `using backend = ...;` (tk_test::gpu_backend or tk_test::sim_backend).
#pragma once
#include "../common/test_support.hpp"


#include <tuple>

namespace tk_test {

// Precondition of the cases past 2^32 items, as precondition(huge_counts_wanted<::backend>).
// A function, not a lambda: g++ 13 at -O1 takes the copy of an empty lambda inside
// boost::function for a read of uninitialized bytes (-Wuninitialized, an error under
// TILEKIT_WARNINGS_AS_ERRORS).
template <class Backend>
boost::test_tools::assertion_result huge_counts_wanted(boost::unit_test::test_unit_id) {
  return Backend::huge_counts();
}

// Operators each type is tested with: every built-in, the same as custom functors,
// and (under nvcc) the CUB/libcu++ operator types tilekit recognises.
template <class T>
struct ops_for {
  using type = type_list<tilekit::plus, tilekit::minimum, tilekit::maximum, tilekit::bit_and, tilekit::bit_or,
                         tilekit::bit_xor, custom_plus, custom_min, custom_max, custom_xor
#if defined(__CUDACC__)
                         , cuda::std::plus<>, cuda::minimum<>, cuda::maximum<>
#endif
                         >;
};
template <>
struct ops_for<std::int8_t> {
  using type = type_list<tilekit::plus, tilekit::minimum, tilekit::maximum, tilekit::bit_xor, custom_plus>;
};
template <>
struct ops_for<std::int64_t> {
  using type = type_list<tilekit::plus, tilekit::minimum, tilekit::maximum, tilekit::bit_xor, custom_plus>;
};
template <>
struct ops_for<float> {
  using type = type_list<tilekit::plus, tilekit::minimum, tilekit::maximum, custom_plus>;
};
template <>
struct ops_for<double> {
  using type = type_list<tilekit::plus, tilekit::minimum, tilekit::maximum, custom_plus>;
};
template <>
struct ops_for<mat2> {
  using type = type_list<mat_mul>;  // associative, not commutative
};
template <>
struct ops_for<tracked> {
  using type = type_list<tilekit::plus, custom_plus>;
};

using tile_value_types = std::tuple<std::int32_t, std::uint32_t, std::int8_t, std::int64_t, float, double, mat2, tracked>;

inline std::uint64_t next_salt() {
  static std::uint64_t salt = 0;
  return ++salt;
}

// Mismatches are counted and the first few reported, so a broken case prints a
// readable failure instead of thousands of lines.
struct mismatch_log {
  unsigned count = 0;
  template <class T>
  void expect(const T& got, const T& want, const std::string& what) {
    if (same_value(got, want)) return;
    if (++count <= 5) BOOST_ERROR(what << ": got " << show(got) << ", want " << show(want));
  }
  void expect_true(bool ok, const std::string& what) {
    if (!ok && ++count <= 5) BOOST_ERROR(what);
  }
};

inline std::string at(std::size_t block, std::size_t tile, unsigned lane) {
  return "block " + std::to_string(block) + " tile " + std::to_string(tile) + " lane " + std::to_string(lane);
}

// Data patterns shared by the tile and block tests.
enum class keep_pattern { all, none, alternating, first, last, random_half, random_tenth };
inline const char* name(keep_pattern p) {
  const char* names[] = {"all kept", "none kept", "alternating", "first lane kept", "last lane kept", "random 50%", "random 10%"};
  return names[int(p)];
}

/// Whether the item at `position` of a group of `size` is kept under pattern p.
inline bool keep_at(keep_pattern p, unsigned position, unsigned size, std::mt19937_64& g) {
  switch (p) {
    case keep_pattern::all: return true;
    case keep_pattern::none: return false;
    case keep_pattern::alternating: return position % 2 != 0;
    case keep_pattern::first: return position == 0;
    case keep_pattern::last: return position == size - 1;
    case keep_pattern::random_half: return g() % 2 != 0;
    case keep_pattern::random_tenth: return g() % 10 == 0;
  }
  return false;
}

enum class key_pattern { all_equal, all_distinct, few_values, many_values, float_specials };
inline const char* name(key_pattern p) {
  const char* names[] = {"all equal", "all distinct", "few values (runs and repeats)", "many values", "+-0.0 and NaN"};
  return names[int(p)];
}

/// in[i] = (base + i) % 1000 as int64, from an iterator: closed forms check the
/// device-wide algorithms at counts past 2^31 and 2^32 without memory.
struct mod_1000 {
  std::int64_t base;
  TILEKIT_HD std::int64_t operator[](std::int64_t i) const { return (base + i) % 1000; }
  TILEKIT_HD std::int64_t operator*() const { return base % 1000; }
};
/// The sum of mod_1000{0}'s first n items.
TILEKIT_HD std::int64_t mod_1000_sum(std::int64_t n) { return (n / 1000) * 499500 + (n % 1000) * (n % 1000 - 1) / 2; }

enum class bin_pattern { uniform, one_bin, skewed };
inline const char* name(bin_pattern p) {
  const char* names[] = {"uniform", "all in one bin", "skewed"};
  return names[int(p)];
}

/// blocks x n byte samples for block-histogram tests: uniform, all in one bin, or
/// skewed (3 in 4 in one bin). The crowded bin is the first bin in block 0, the last
/// in block 1, random after that.
template <class Rng>
std::vector<unsigned char> block_histogram_samples(unsigned blocks, unsigned n, bin_pattern pattern, Rng& g) {
  std::vector<unsigned char> in(std::size_t(blocks) * n);
  for (unsigned b = 0; b < blocks; ++b) {
    const unsigned char hot = b == 0 ? 0 : b == 1 ? 255 : static_cast<unsigned char>(g());
    for (unsigned i = 0; i < n; ++i) {
      unsigned char& x = in[std::size_t(b) * n + i];
      switch (pattern) {
        case bin_pattern::uniform: x = static_cast<unsigned char>(g()); break;
        case bin_pattern::one_bin: x = hot; break;
        case bin_pattern::skewed: x = g() % 4 != 0 ? hot : static_cast<unsigned char>(g()); break;
      }
    }
  }
  return in;
}

template <class B, class T, class F>
void for_each_op_and_size(F&& f) {
  for_each_type(typename ops_for<T>::type{}, [&](auto* op_tag) {
    using Op = std::remove_pointer_t<decltype(op_tag)>;
    for_each_size<1, 2, 4, 8, 16, 32>([&](auto size) { f(size, static_cast<Op*>(nullptr)); });
  });
}

}  // namespace tk_test
