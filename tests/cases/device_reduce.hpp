// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide reduce (one launch), written once for both backends through the
// launcher-generic dispatch tilekit::device_reduce: sizes around every tile and
// grid boundary, misaligned pointers, iterator inputs, types and operators,
// invalid arguments, bitwise repeatability. References are sequential CPU code
// (floats: a double-precision sum within rounding).
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/device/reduce.cuh>

#include <cmath>
#include <limits>
#include <memory>

namespace tk_test {

template <class T>
using dbuf = typename ::backend::template buffer<T>;

/// Runs the two-phase protocol through launcher (by default the backend's); returns the error.
/// Sums that pack (reduce_packs_v) into a pointer: every other call first runs on the same
/// storage into a scratch output, so that the call into out finds the storage as a call before
/// left it (the packed hand-off) where the others find it poisoned (the tagged one).
template <class In, class Out, class T, class Op, class Launcher = decltype(::backend::launcher())>
auto run_device_reduce(In in, std::int64_t n, Out out, Op op, T init, const Launcher& launcher = ::backend::launcher()) {
  std::size_t bytes = 0;
  auto e = tilekit::device_reduce(launcher, nullptr, bytes, in, n, out, op, init);
  BOOST_REQUIRE(e == launcher.success);
  BOOST_REQUIRE(bytes > 0);
  dbuf<unsigned char> temp(bytes, 0xCD);  // poisoned: the dispatch must initialise what it relies on
  if constexpr (tilekit::detail::reduce_packs_v<In, T, Op> && std::is_pointer_v<Out>) {
    static unsigned calls = 0;
    if (++calls % 2 == 0) {
      dbuf<T> scratch(1, poison<T>());
      e = tilekit::device_reduce(launcher, temp.data(), bytes, in, n, scratch.data(), op, init);
      BOOST_REQUIRE(e == launcher.success);
    }
  }
  e = tilekit::device_reduce(launcher, temp.data(), bytes, in, n, out, op, init);
  ::backend::sync();
  return e;
}

template <class T>
bool close_to(const T& got, double want, double scale) {
  if constexpr (std::is_floating_point_v<T>) return double(got) == want || std::fabs(double(got) - want) <= 1e-5 * scale + 1e-6;
  else return false;
}

/// Sizes: 0, 1, 2, 31..33, tile-1..tile+1, several tiles, 2^k +- 1, primes, one random.
inline std::vector<std::int64_t> device_sizes(std::size_t max_items, std::int64_t tile, std::mt19937_64& g) {
  std::vector<std::int64_t> s = {0, 1, 2, 31, 32, 33, 255, 256, 257, tile - 1, tile, tile + 1, 3 * tile + 17, 7919, 65537};
  for (std::int64_t k = 10; (std::int64_t(1) << k) + 1 <= std::int64_t(max_items); k += 3) {
    s.push_back((std::int64_t(1) << k) - 1);
    s.push_back((std::int64_t(1) << k) + 1);
  }
  s.push_back(std::int64_t(max_items));
  s.push_back(std::int64_t(g() % max_items));
  std::vector<std::int64_t> out;
  for (auto n : s)
    if (n >= 0 && n <= std::int64_t(max_items)) out.push_back(n);
  return out;
}

template <class T, class Op>
void check_device_reduce_type(Op op, T init, const char* what) {
  auto g = rng_for(next_salt());
  const std::size_t max_n = ::backend::device_max_items();
  const std::int64_t tile = tilekit::detail::reduce_shape<const T*, tilekit::reduce_tuning::threads>::chunk;
  std::vector<T> data = random_vector<T>(max_n + 8, g);
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 4)
    for (auto& x : data) x = static_cast<T>(x % 1000);  // sums stay far from overflow
  dbuf<T> d_in(data);
  for (std::int64_t n : device_sizes(max_n, tile, g)) {
    for (std::int64_t offset : {0, 1, 3}) {  // misaligned starts read a head item by item
      if (n + offset > std::int64_t(data.size())) continue;
      dbuf<T> d_out(1, poison<T>());
      const auto e = run_device_reduce(d_in.data() + offset, n, d_out.data(), op, init);
      const T got = d_out.to_host()[0];
      BOOST_TEST_CONTEXT(::backend::name << " device reduce " << what << " " << type_name<T>() << " n=" << n << " offset="
                                         << offset << ", TILEKIT_TEST_SEED=" << base_seed()) {
        BOOST_TEST(e == ::backend::launcher().success);
        if constexpr (std::is_floating_point_v<T>) {
          double want = double(init), scale = std::fabs(double(init));
          for (std::int64_t i = 0; i < n; ++i) {
            want = op(want, double(data[offset + i]));  // the operator in double precision
            scale += std::fabs(double(data[offset + i]));
          }
          BOOST_TEST(close_to(got, want, scale), "got " << show(got) << ", want " << want);
        } else {
          T want = init;
          for (std::int64_t i = 0; i < n; ++i) want = op(want, data[offset + i]);
          BOOST_TEST(same_value(got, want), "got " << show(got) << ", want " << show(want));
        }
      }
    }
  }
}

/// arg_min (Max = false) / arg_max: the first extreme item and its index, over data[skip, skip + n)
/// (skip > 0: an input that starts off a 16-byte boundary), through device_arg_extremum (4-byte
/// integers and floats: a minimum of 64-bit keys) and, for those, also through the generic dispatch
/// over arg_items (what other types and inputs of 2^31 items or more take).
template <bool Max, class T, class Launcher = decltype(::backend::launcher())>
void check_arg_extremum(const std::vector<T>& data, std::int64_t n, const std::string& what, std::size_t skip = 0,
                        const Launcher& launcher = ::backend::launcher()) {
  T want = Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  std::int64_t at = 1;  // CUB's answer for an empty input
  for (std::int64_t i = 0; i < n; ++i) {
    const T& x = data[skip + std::size_t(i)];
    if (i == 0 || (Max ? want < x : x < want)) want = x, at = i;
  }
  dbuf<T> in(data);
  constexpr bool keyed = tilekit::detail::arg_key<Max, T>::applies;
  for (int path = 0; path < (keyed ? 2 : 1); ++path) {
    dbuf<T> value(1, poison<T>());
    dbuf<std::int64_t> index(1, poison<std::int64_t>());
    const auto e = [&] {
      if (path == 1)
        return run_device_reduce(tilekit::detail::indexed_input<const T*>{in.data() + skip}, n,
                                 tilekit::detail::arg_output<Max, T, T*, std::int64_t*>{value.data(), index.data()},
                                 tilekit::detail::arg_extremum<Max>{}, tilekit::detail::arg_identity<Max, T>(), launcher);
      std::size_t bytes = 0;
      auto r = tilekit::device_arg_extremum<Max>(launcher, nullptr, bytes, in.data() + skip, n, value.data(), index.data());
      BOOST_REQUIRE(r == launcher.success);
      dbuf<unsigned char> temp(bytes > 0 ? bytes : 1, 0xCD);  // poisoned, as run_device_reduce's
      r = tilekit::device_arg_extremum<Max>(launcher, temp.data(), bytes, in.data() + skip, n, value.data(), index.data());
      ::backend::sync();
      return r;
    }();
    BOOST_TEST_CONTEXT(::backend::name << (Max ? " arg_max " : " arg_min ") << what << " n=" << n << " from item " << skip
                                       << (path == 0 ? (keyed ? " (keys)" : "") : " (arg items)")
                                       << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(e == ::backend::launcher().success);
      BOOST_TEST(same_value(value.to_host()[0], want), "value " << show(value.to_host()[0]) << ", want " << show(want));
      BOOST_TEST(index.to_host()[0] == at);
    }
  }
}

// Min / max over data with infinities: exact. With NaNs the answer depends on the
// order of combination (as CUB's): a NaN or the extremum of the other items.
template <class T>
void check_infinities_and_nans(std::mt19937_64& g) {
  const std::size_t n = std::min<std::size_t>(::backend::device_max_items(), 300000);
  std::vector<T> data(n);
  for (auto& x : data) x = T(int(g() % 20001) - 10000) / T(7);
  data[n / 3] = std::numeric_limits<T>::infinity();
  data[n / 2] = -std::numeric_limits<T>::infinity();
  for (int with_nan : {0, 1}) {
    if (with_nan) data[n / 5] = std::numeric_limits<T>::quiet_NaN(), data[n - 1] = std::numeric_limits<T>::quiet_NaN();
    dbuf<T> d_in(data), d_out(2, poison<T>());
    const auto e0 = run_device_reduce(d_in.data(), std::int64_t(n), d_out.data(), tilekit::minimum{}, std::numeric_limits<T>::infinity());
    const auto e1 = run_device_reduce(d_in.data(), std::int64_t(n), d_out.data() + 1, tilekit::maximum{}, -std::numeric_limits<T>::infinity());
    const auto got = d_out.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " device min / max of " << type_name<T>() << " with infinities" << (with_nan ? " and NaNs" : "")
                                       << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST((e0 == ::backend::launcher().success && e1 == ::backend::launcher().success));
      if (with_nan) {
        BOOST_TEST((std::isnan(got[0]) || got[0] == -std::numeric_limits<T>::infinity()));
        BOOST_TEST((std::isnan(got[1]) || got[1] == std::numeric_limits<T>::infinity()));
      } else {
        BOOST_TEST(got[0] == -std::numeric_limits<T>::infinity());
        BOOST_TEST(got[1] == std::numeric_limits<T>::infinity());
      }
    }
  }
  data[n / 5] = T(0), data[n - 1] = T(0);  // ArgMin / ArgMax find the first infinity
  check_arg_extremum<false>(data, std::int64_t(n), std::string("with infinities, ") + type_name<T>());
  check_arg_extremum<true>(data, std::int64_t(n), std::string("with infinities, ") + type_name<T>());
}

struct mat_add {
  TILEKIT_HD mat2 operator()(const mat2& x, const mat2& y) const { return {x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d}; }
};

// One temporary storage for calls back to back, never cleared: each call's blocks mark
// their totals with the call's tag, so the last block never takes a total left by an
// earlier call (different data and sizes here, so a stale total changes the result).
// T = std::uint32_t: sums that pack (the first call takes the tagged hand-off, the rest the packed one).
template <class T, class Launcher>
void check_storage_reuse(const Launcher& launcher, std::mt19937_64& g, const char* grids) {
  // Past what one block or one cluster of wide blocks reads (no storage there): a few
  // full chunks and 5 items more, so the last block has only those 5 and polls while
  // the others still work (a stale total would be taken then).
  const std::size_t chunk = std::size_t(tilekit::detail::reduce_shape<const T*, tilekit::reduce_tuning::threads>::chunk);
  const std::size_t wide = std::size_t(tilekit::detail::reduce_storage_free_items<const T*, T, tilekit::plus>(
      tilekit::detail::reduce_cluster_blocks<const T*, T, tilekit::plus>(launcher)));
  const std::size_t max_n = std::max(::backend::device_max_items(), wide + 8 * chunk);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_reduce(launcher, nullptr, bytes, static_cast<const T*>(nullptr),
                                       std::int64_t(max_n), static_cast<T*>(nullptr), tilekit::plus{},
                                       T(0)) == launcher.success);
  dbuf<unsigned char> temp(bytes, 0xCD);
  for (int call = 0; call < 8; ++call) {
    const std::size_t n = call % 4 == 0 ? max_n
                          : call % 4 == 1 ? max_n / 2 + std::size_t(g() % (max_n / 2))
                                          : wide + std::size_t(call) * chunk + 5;
    std::vector<T> data = random_vector<T>(n, g);  // sums wrap, as unsigned
    dbuf<T> in(data), out(1, poison<T>());
    std::size_t have = bytes;
    const auto e = tilekit::device_reduce(launcher, temp.data(), have, in.data(), std::int64_t(n), out.data(),
                                          tilekit::plus{}, T(call));
    ::backend::sync();
    T want = T(call);
    for (auto x : data) want = T(want + x);
    BOOST_TEST_CONTEXT(::backend::name << " call " << call << " on the same temporary storage, " << type_name<T>() << " n=" << n
                                       << ", " << grids << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(e == launcher.success);
      BOOST_TEST(out.to_host()[0] == want);
    }
  }
}

// arg_key<Max, T> on the host: the value comes back bit for bit, the index too, and keys order
// as (value by `<`, ArgMax reversed; then index) for values without NaNs.
template <bool Max, class T>
void check_arg_keys(const std::vector<T>& values, std::mt19937_64& g) {
  using key = tilekit::detail::arg_key<Max, T>;
  static_assert(key::applies, "4-byte integers and floats");
  std::size_t bad = 0;
  for (std::size_t k = 0; k < values.size() * values.size(); ++k) {
    const T a = values[k % values.size()], b = values[k / values.size()];
    const std::int64_t i = std::int64_t(g() % std::uint64_t(key::max_items)), j = std::int64_t(g() % 4 == 0 ? i : g() % std::uint64_t(key::max_items));
    const unsigned long long ka = key::make(a, i), kb = key::make(b, j);
    const bool a_first = Max ? (b < a || (!(a < b) && i < j)) : (a < b || (!(b < a) && i < j));
    const bool b_first = Max ? (a < b || (!(b < a) && j < i)) : (b < a || (!(a < b) && j < i));
    bad += !same_value(key::value(ka), a) || key::index(ka) != i || ka == key::none;
    if (a_first || b_first) bad += (ka < kb) != a_first;
  }
  BOOST_TEST(bad == 0u, (Max ? "arg_max" : "arg_min") << " keys of " << type_name<T>() << ": " << bad << " wrong, TILEKIT_TEST_SEED=" << base_seed());
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_reduce)

BOOST_AUTO_TEST_CASE(int32_operators) {
  using namespace tk_test;
  // Small values: no sum over 2^24 items overflows.
  check_device_reduce_type<std::int32_t>(tilekit::plus{}, 7, "plus");
  check_device_reduce_type<std::int32_t>(custom_plus{}, -3, "custom plus");
  check_device_reduce_type<std::int32_t>(tilekit::minimum{}, std::numeric_limits<std::int32_t>::max(), "minimum");
  check_device_reduce_type<std::int32_t>(tilekit::maximum{}, std::numeric_limits<std::int32_t>::lowest(), "maximum");
  check_device_reduce_type<std::uint32_t>(tilekit::bit_xor{}, 0u, "xor");
}

BOOST_AUTO_TEST_CASE(wide_and_float_types) {
  using namespace tk_test;
  check_device_reduce_type<std::int64_t>(tilekit::plus{}, std::int64_t(1) << 40, "plus");
  check_device_reduce_type<std::int8_t>(tilekit::maximum{}, std::int8_t(-128), "maximum");
  check_device_reduce_type<double>(tilekit::plus{}, 0.5, "plus");
  check_device_reduce_type<float>(tilekit::plus{}, 0.0f, "plus");
  check_device_reduce_type<float>(tilekit::minimum{}, std::numeric_limits<float>::infinity(), "minimum");
  // The narrow integers wrap as the CPU reference does; a 16-byte struct with a custom operator.
  check_device_reduce_type<std::uint8_t>(tilekit::plus{}, std::uint8_t(3), "plus (wraps)");
  check_device_reduce_type<std::int16_t>(custom_plus{}, std::int16_t(-5), "custom plus (wraps)");
  check_device_reduce_type<std::uint32_t>(tilekit::plus{}, 0u, "plus");
  check_device_reduce_type<mat2>(mat_add{}, mat2{1, 2, 3, 4}, "elementwise plus");
}



BOOST_AUTO_TEST_CASE(infinities_and_nans) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  check_infinities_and_nans<float>(g);
  check_infinities_and_nans<double>(g);
}

BOOST_AUTO_TEST_CASE(iterator_input_and_counts) {
  using namespace tk_test;
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(999), std::int64_t(1001), std::int64_t(123457),
                         std::int64_t(::backend::device_max_items()) * 6 + 5}) {  // more tiles than blocks
    dbuf<std::int64_t> out(1, poison<std::int64_t>());
    const auto e = run_device_reduce(mod_1000{0}, n, out.data(), tilekit::plus{}, std::int64_t(11));
    BOOST_TEST_CONTEXT(::backend::name << " device reduce of an iterator, n=" << n) {
      BOOST_TEST(e == ::backend::launcher().success);
      BOOST_TEST(out.to_host()[0] == mod_1000_sum(n) + 11);
    }
  }
}

BOOST_AUTO_TEST_CASE(counts_past_32_bits, *boost::unit_test::precondition(tk_test::huge_counts_wanted<::backend>)) {
  using namespace tk_test;
  for (std::int64_t n : {(std::int64_t(1) << 31) - 1, (std::int64_t(1) << 31) + 3, (std::int64_t(1) << 32) + 5}) {
    dbuf<std::int64_t> out(1, poison<std::int64_t>());
    const auto e = run_device_reduce(mod_1000{0}, n, out.data(), tilekit::plus{}, std::int64_t(0));
    BOOST_TEST_CONTEXT(::backend::name << " device reduce of an iterator, n=" << n) {
      BOOST_TEST(e == ::backend::launcher().success);
      BOOST_TEST(out.to_host()[0] == mod_1000_sum(n));
    }
  }
}

BOOST_AUTO_TEST_CASE(arg_keys_round_trip_and_order) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  using fl = std::numeric_limits<float>;
  const std::vector<float> floats = {0.0f, -0.0f, 1.0f, -1.0f, fl::infinity(), -fl::infinity(), fl::max(), fl::lowest(),
                                     fl::min(), -fl::min(), fl::denorm_min(), -fl::denorm_min(), 1.5e-3f, -7.25e9f};
  const std::vector<int> ints = {0, 1, -1, std::numeric_limits<int>::max(), std::numeric_limits<int>::min(), 12345, -98765};
  const std::vector<unsigned> unsigneds = {0u, 1u, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 123456789u};
  check_arg_keys<false>(floats, g);
  check_arg_keys<true>(floats, g);
  check_arg_keys<false>(ints, g);
  check_arg_keys<true>(ints, g);
  check_arg_keys<false>(unsigneds, g);
  check_arg_keys<true>(unsigneds, g);
}

BOOST_AUTO_TEST_CASE(arg_min_and_arg_max_take_the_first) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::size_t n = ::backend::device_max_items() + 3;
  std::vector<int> few(n);
  for (auto& x : few) x = int(g() % 50) - 25;  // many copies of the extremes: the first must win
  std::vector<float> zeros(n);
  for (std::size_t i = 0; i < n; ++i) zeros[i] = (g() % 2) ? 0.0f : -0.0f;  // -0 and +0 tie under <
  // 1000 and 4096: one block's input (reduce_one_block_kernel), ties inside a thread's vectors too.
  for (std::int64_t m : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(4096), std::int64_t(4097), std::int64_t(n)}) {
    check_arg_extremum<false>(few, m, "int");
    check_arg_extremum<true>(few, m, "int");
    check_arg_extremum<false>(zeros, m, "signed zeros");
    check_arg_extremum<true>(zeros, m, "signed zeros");
  }
  // Off a 16-byte boundary: the head item by item, then vectors whose indices start at the head.
  std::vector<long long> wide(n);
  for (auto& x : wide) x = static_cast<long long>(g());  // the extremes anywhere: every lane, vector slot and tile
  for (std::size_t skip : {std::size_t(1), std::size_t(3)}) {  // one block's input off the boundary
    check_arg_extremum<false>(few, std::int64_t(2000), "int", skip);
    check_arg_extremum<true>(few, std::int64_t(2000), "int", skip);
  }
  for (std::size_t skip : {std::size_t(0), std::size_t(1), std::size_t(3)}) {
    check_arg_extremum<false>(few, std::int64_t(n - skip), "int", skip);
    check_arg_extremum<true>(few, std::int64_t(n - skip), "int", skip);
    check_arg_extremum<false>(wide, std::int64_t(n - skip), "long long", skip);
    check_arg_extremum<true>(wide, std::int64_t(n - skip), "long long", skip);
  }
  // Whole ranges: signs, and unsigned values above 2^31 (the keys' order transforms).
  std::vector<int> ints(n);
  std::vector<unsigned> unsigneds(n);
  std::vector<float> floats(n);
  for (std::size_t i = 0; i < n; ++i) {
    ints[i] = static_cast<int>(static_cast<std::uint32_t>(g()));
    unsigneds[i] = static_cast<unsigned>(g());
    floats[i] = float(static_cast<std::int64_t>(g() % 2000001) - 1000000) * 1e-3f;
  }
  for (std::size_t skip : {std::size_t(0), std::size_t(2)}) {
    check_arg_extremum<false>(ints, std::int64_t(n - skip), "full-range int", skip);
    check_arg_extremum<true>(ints, std::int64_t(n - skip), "full-range int", skip);
    check_arg_extremum<false>(unsigneds, std::int64_t(n - skip), "unsigned", skip);
    check_arg_extremum<true>(unsigneds, std::int64_t(n - skip), "unsigned", skip);
    check_arg_extremum<false>(floats, std::int64_t(n - skip), "float", skip);
    check_arg_extremum<true>(floats, std::int64_t(n - skip), "float", skip);
  }
  std::vector<int> equal(n, 7);
  check_arg_extremum<false>(equal, std::int64_t(n), "all equal");
  check_arg_extremum<true>(equal, std::int64_t(n), "all equal");
  // Items equal to the arg operations' identity value (+inf for ArgMin, -inf for ArgMax,
  // the type's max / lowest for integers): still the first item, not "no item".
  for (float inf : {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}) {
    std::vector<float> infinite(n, inf);
    check_arg_extremum<false>(infinite, std::int64_t(n), "all infinite");
    check_arg_extremum<true>(infinite, std::int64_t(n), "all infinite");
  }
  std::vector<int> extreme(n, std::numeric_limits<int>::max());
  check_arg_extremum<false>(extreme, std::int64_t(n), "all int max");
  std::fill(extreme.begin(), extreme.end(), std::numeric_limits<int>::lowest());
  check_arg_extremum<true>(extreme, std::int64_t(n), "all int lowest");
}

BOOST_AUTO_TEST_CASE(float_results_repeat_bitwise) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::size_t n = ::backend::device_max_items() - 3;
  const std::vector<float> data = random_vector<float>(n, g);
  dbuf<float> in(data), a(1, poison<float>()), b(1, poison<float>());
  BOOST_TEST(run_device_reduce(in.data(), std::int64_t(n), a.data(), tilekit::plus{}, 0.0f) == ::backend::launcher().success);
  BOOST_TEST(run_device_reduce(in.data(), std::int64_t(n), b.data(), tilekit::plus{}, 0.0f) == ::backend::launcher().success);
  BOOST_TEST(same_value(a.to_host()[0], b.to_host()[0]), "two runs differ: " << show(a.to_host()[0]) << " vs " << show(b.to_host()[0]));
}

BOOST_AUTO_TEST_CASE(temporary_storage_reused_without_clearing) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  // Grids of up to 32 blocks (the last block's first warp takes the totals) and of more
  // (every thread of the last block polls; the simulator pretends 16 multiprocessors).
  check_storage_reuse<std::uint64_t>(::backend::launcher_later_blocks_first(), g, "default grids");
  check_storage_reuse<std::uint64_t>(::backend::launcher_with_sms(16), g, "grids of more than 32 blocks");
  check_storage_reuse<std::uint32_t>(::backend::launcher_later_blocks_first(), g, "default grids");
  check_storage_reuse<std::uint32_t>(::backend::launcher_with_sms(16), g, "grids of more than 32 blocks");
}

// Grids where some of the last block's threads take more than one slot (past Threads + 1
// blocks): 300 blocks of 8-byte totals and of 16-byte ones; in the simulator later blocks first
// and 64 resident (the last block's first loads find slots not written yet). Against the CPU.
BOOST_AUTO_TEST_CASE(last_block_takes_several_slots_a_thread) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher_with_sms(80);  // (up to 320 blocks; the GPU's own: 528 on an H100)
  constexpr unsigned threads = tilekit::reduce_tuning::threads;
  {
    const std::int64_t n = 300 * tilekit::detail::reduce_shape<const double*, threads>::chunk + 7;
    std::vector<double> h(static_cast<std::size_t>(n));
    double want = 0;
    for (std::int64_t i = 0; i < n; ++i) want += h[std::size_t(i)] = double((i * 7919) % 1001 - 500);
    dbuf<double> in(h), out(1, poison<double>());
    BOOST_TEST(run_device_reduce(in.data(), n, out.data(), tilekit::plus{}, 0.5, launcher) == launcher.success);
    BOOST_TEST(out.to_host()[0] == want + 0.5, ::backend::name << " double sum of " << n << " on 300 blocks");
  }
  {
    const std::int64_t n = 300 * tilekit::detail::reduce_shape<const mat2*, threads>::chunk + 3;
    std::vector<mat2> h(static_cast<std::size_t>(n));
    mat2 want{1, 2, 3, 4};
    for (std::int64_t i = 0; i < n; ++i) {
      const std::uint32_t v = std::uint32_t(i % 97) - 48u;  // (mod 2^32, as mat_add's sums)
      h[std::size_t(i)] = mat2{v, 0u - v, 2u * v, 1u};
      want = mat_add{}(want, h[std::size_t(i)]);
    }
    dbuf<mat2> in(h), out(1, mat2{9u, 9u, 9u, 9u});  // (not the sum)
    BOOST_TEST(run_device_reduce(in.data(), n, out.data(), mat_add{}, mat2{1, 2, 3, 4}, launcher) == launcher.success);
    const mat2 got = out.to_host()[0];
    BOOST_TEST((got.a == want.a && got.b == want.b && got.c == want.c && got.d == want.d),
               ::backend::name << " 16-byte sums of " << n << " on 300 blocks");
  }
}

struct odd_item {
  TILEKIT_HD bool operator()(std::uint32_t x) const { return (x & 1u) != 0; }
};

// One sum of in[0, n) from init on the given temporary storage, against the CPU's (sums wrap).
template <class Launcher, class T>
void check_sum_on(const Launcher& launcher, unsigned char* temp, std::size_t bytes, tk_test::dbuf<T>& in,
                  const std::vector<T>& host, std::int64_t n, T init) {
  tk_test::dbuf<T> out(1, tk_test::poison<T>());
  BOOST_TEST(tilekit::device_reduce(launcher, temp, bytes, in.data(), n, out.data(), tilekit::plus{}, init) == launcher.success);
  ::backend::sync();
  T want = init;
  for (std::int64_t i = 0; i < n; ++i) want += host[std::size_t(i)];
  BOOST_TEST(out.to_host()[0] == want);
}

// Calls that pack (uint32 sums; count_if's 64-bit counts; uint64 sums, in two halves) and one
// that does not (float sums) on one temporary storage, at grid sizes: the first call on the
// storage takes the tagged hand-off and leaves the storage for the packed one; a float sum
// between them leaves it as it was; a newly poisoned storage starts over. Blocks run later
// ones first.
BOOST_AUTO_TEST_CASE(packed_hand_off_on_shared_storage) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const auto launcher = ::backend::launcher_later_blocks_first();
  const std::int64_t one_wide = tilekit::detail::reduce_shape<const int*, tilekit::reduce_tuning::wide_threads>::chunk;
  const std::int64_t most = std::max<std::int64_t>(std::int64_t(::backend::device_max_items()), 3 * one_wide);
  const std::vector<std::uint32_t> data = random_vector<std::uint32_t>(std::size_t(most), g);  // sums wrap
  std::vector<float> floats(data.size());
  for (std::size_t i = 0; i < floats.size(); ++i) floats[i] = float(int(data[i] % 3) - 1);  // exact sums
  const std::vector<std::uint64_t> wide = random_vector<std::uint64_t>(data.size(), g);  // sums wrap, both halves carry
  dbuf<std::uint32_t> in(data);
  dbuf<std::uint64_t> win(wide);
  dbuf<float> fin(floats);
  std::size_t bytes = 0, b = 0;
  BOOST_REQUIRE(tilekit::device_reduce(launcher, nullptr, b, in.data(), most, static_cast<std::uint32_t*>(nullptr), tilekit::plus{},
                                       0u) == launcher.success);
  bytes = std::max(bytes, b);
  BOOST_REQUIRE(tilekit::device_count_if(launcher, nullptr, b, in.data(), most, static_cast<long long*>(nullptr), odd_item{}) ==
                launcher.success);
  bytes = std::max(bytes, b);
  BOOST_REQUIRE(tilekit::device_reduce(launcher, nullptr, b, fin.data(), most, static_cast<float*>(nullptr), tilekit::plus{},
                                       0.0f) == launcher.success);
  bytes = std::max(bytes, b);
  BOOST_REQUIRE(tilekit::device_reduce(launcher, nullptr, b, win.data(), most, static_cast<std::uint64_t*>(nullptr),
                                       tilekit::plus{}, std::uint64_t(0)) == launcher.success);
  bytes = std::max(bytes, b);
  auto temp = std::make_unique<dbuf<unsigned char>>(bytes, 0xCD);
  for (int call = 0; call < 16; ++call) {
    if (call == 9) temp = std::make_unique<dbuf<unsigned char>>(bytes, 0xCD);
    const std::int64_t n = one_wide + 1 + std::int64_t(g() % std::uint64_t(most - one_wide));
    std::size_t have = bytes;
    BOOST_TEST_CONTEXT(::backend::name << " call " << call << " on shared storage, n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
      if (call % 4 == 3) {
        check_sum_on(launcher, temp->data(), bytes, win, wide, n, ~std::uint64_t(0));
      } else if (call % 4 == 0) {
        check_sum_on(launcher, temp->data(), bytes, in, data, n, 7u);
      } else if (call % 4 == 1) {
        dbuf<long long> out(1, poison<long long>());
        BOOST_TEST(tilekit::device_count_if(launcher, temp->data(), have, in.data(), n, out.data(), odd_item{}) == launcher.success);
        ::backend::sync();
        long long want = 0;
        for (std::int64_t i = 0; i < n; ++i) want += data[std::size_t(i)] & 1u;
        BOOST_TEST(out.to_host()[0] == want);
      } else {
        dbuf<float> out(1, poison<float>());
        BOOST_TEST(tilekit::device_reduce(launcher, temp->data(), have, fin.data(), n, out.data(), tilekit::plus{}, 0.0f) ==
                   launcher.success);
        ::backend::sync();
        double want = 0;
        for (std::int64_t i = 0; i < n; ++i) want += floats[std::size_t(i)];
        BOOST_TEST(double(out.to_host()[0]) == want);
      }
    }
  }
}

// The packed hand-offs with the blocks run in an order drawn anew each round (the simulator;
// the GPU runs its own): a block's two atomics (uint64 sums, in halves) land among the others',
// so the block that completes the first counter may find the second short of its count and
// poll it, a path the simulator's fixed orders never take. A uint32 sum between them.
BOOST_AUTO_TEST_CASE(packed_hand_off_in_any_block_order) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t chunk = tilekit::detail::reduce_shape<const std::uint64_t*, tilekit::reduce_tuning::threads>::chunk;
  const std::int64_t most = 40 * chunk;  // (the simulator: 4 pretended SMs, grids of up to 16 blocks, all resident)
  const std::vector<std::uint64_t> wide = random_vector<std::uint64_t>(std::size_t(most), g);
  std::vector<std::uint32_t> narrow(wide.size());
  for (std::size_t i = 0; i < wide.size(); ++i) narrow[i] = std::uint32_t(wide[i] >> 17);
  dbuf<std::uint64_t> win(wide);
  dbuf<std::uint32_t> in(narrow);
  for (int round = 0; round < 6; ++round) {
    const std::uint64_t seed = g() | 1u;
    const auto launcher = ::backend::launcher_shuffled(4, seed);
    std::size_t bytes = 0;
    BOOST_REQUIRE(tilekit::device_reduce(launcher, nullptr, bytes, win.data(), most, static_cast<std::uint64_t*>(nullptr), tilekit::plus{},
                                         std::uint64_t(0)) == launcher.success);
    dbuf<unsigned char> temp(bytes, 0xCD);
    for (int call = 0; call < 4; ++call) {
      const std::int64_t n = 2 * chunk + std::int64_t(g() % std::uint64_t(most - 2 * chunk));
      BOOST_TEST_CONTEXT(::backend::name << " shuffle seed " << seed << ", call " << call << ", n=" << n
                                         << ", TILEKIT_TEST_SEED=" << base_seed()) {
        if (call == 2) check_sum_on(launcher, temp.data(), bytes, in, narrow, n, 3u);
        else check_sum_on(launcher, temp.data(), bytes, win, wide, n, std::uint64_t(5));  // (call 0: the tagged hand-off)
      }
    }
  }
}

// Temporary storage at any alignment (the dispatch aligns the block totals' slots inside
// the buffer): grids of a few blocks and of more than 32.
BOOST_AUTO_TEST_CASE(temporary_storage_at_any_alignment) {
  using namespace tk_test;
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 4) + 3;
  std::vector<long long> h(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) h[std::size_t(i)] = (i * 7919) % 1001 - 500;
  long long want = 0;
  for (long long x : h) want += x;
  dbuf<long long> in(h);
  for (const auto& launcher : {::backend::launcher(), ::backend::launcher_with_sms(16)})
    for (std::size_t offset : {1u, 8u, 100u}) {
      dbuf<long long> out(1, poison<long long>());
      std::size_t bytes = 0;
      BOOST_REQUIRE(tilekit::device_reduce(launcher, nullptr, bytes, in.data(), n, out.data(), tilekit::plus{}, 0ll) ==
                    launcher.success);
      dbuf<unsigned char> temp(bytes + offset, 0xCD);
      BOOST_TEST_CONTEXT(::backend::name << " device reduce, temporary storage " << offset << " bytes past an allocation") {
        BOOST_TEST(tilekit::device_reduce(launcher, temp.data() + offset, bytes, in.data(), n, out.data(), tilekit::plus{},
                                          0ll) == launcher.success);
        ::backend::sync();
        BOOST_TEST(out.to_host()[0] == want);
      }
    }
}

// Inputs that one 1024-thread block, or one cluster (sums into 8-byte accumulators that do not
// pack: double), reads whole need no temporary storage (the size query's single byte; the
// allocating forms allocate nothing); one item more takes the grid's hand-off and its storage.
// Sums that pack (int; long long in halves) and float sums take the grid past one block.
// `blocks`: the cluster launcher's device runs (8; 0: none).
template <class Launcher>
void check_storage_free(const Launcher& launcher, unsigned blocks) {
  using namespace tk_test;
  auto check = [&](auto zero, std::int64_t n, bool wants_storage) {
    using T = decltype(zero);
    std::vector<T> h(static_cast<std::size_t>(n));
    T want = 0;
    for (std::int64_t i = 0; i < n; ++i) want += h[std::size_t(i)] = T(i % 13) - T(6);
    dbuf<T> in(h), out(1, poison<T>());
    std::size_t bytes = 0;
    BOOST_REQUIRE(tilekit::device_reduce(launcher, nullptr, bytes, in.data(), n, out.data(), tilekit::plus{}, T(0)) == launcher.success);
    BOOST_TEST_CONTEXT(::backend::name << " device reduce of " << type_name<T>() << ", n=" << n) {
      BOOST_TEST((bytes > 1) == wants_storage, "temp_bytes " << bytes);
      dbuf<unsigned char> temp(bytes, 0xCD);
      BOOST_TEST(tilekit::device_reduce(launcher, temp.data(), bytes, in.data(), n, out.data(), tilekit::plus{}, T(0)) == launcher.success);
      ::backend::sync();
      BOOST_TEST(out.to_host()[0] == want);
    }
  };
  constexpr unsigned wide = tilekit::reduce_tuning::wide_threads;
  const std::int64_t one_wide = tilekit::detail::reduce_shape<const int*, wide>::chunk;  // one 1024-thread block's chunk
  BOOST_TEST((tilekit::detail::reduce_cluster_blocks<const int*, int, tilekit::plus>(launcher)) == 0u);
  BOOST_TEST((tilekit::detail::reduce_cluster_blocks<const float*, float, tilekit::plus>(launcher)) == 0u);
  constexpr bool longs_cluster = tilekit::reduce_tuning::pack_halves == 0;  // (0: long long sums not packed)
  BOOST_TEST((tilekit::detail::reduce_cluster_blocks<const long long*, long long, tilekit::plus>(launcher)) ==
             (longs_cluster ? blocks : 0u));
  BOOST_TEST((tilekit::detail::reduce_cluster_blocks<const double*, double, tilekit::plus>(launcher)) == blocks);
  using keyed = tilekit::detail::keyed_input<false, const int*>;  // ArgMin's keys: the grid
  BOOST_TEST((tilekit::detail::reduce_cluster_blocks<keyed, unsigned long long, tilekit::minimum>(launcher)) == 0u);
  const std::int64_t ints = tilekit::detail::reduce_storage_free_items<const int*, int, tilekit::plus>(blocks);
  const std::int64_t floats = tilekit::detail::reduce_storage_free_items<const float*, float, tilekit::plus>(blocks);
  const std::int64_t longs = tilekit::detail::reduce_storage_free_items<const long long*, long long, tilekit::plus>(blocks);
  const std::int64_t doubles = tilekit::detail::reduce_storage_free_items<const double*, double, tilekit::plus>(blocks);
  BOOST_TEST(ints == one_wide);
  BOOST_TEST(floats == one_wide);
  // a cluster: cluster_vectors 16-byte loads (2 items) a thread of each of its blocks
  const std::int64_t cluster_items = std::int64_t(blocks) * tilekit::reduce_tuning::cluster_threads * tilekit::reduce_tuning::cluster_vectors * 2;
  BOOST_TEST(doubles == (blocks > 0 ? cluster_items : one_wide / 2));
  BOOST_TEST(longs == (blocks > 0 && longs_cluster ? cluster_items : one_wide / 2));
  check(0, one_wide - 3, false);  // part of it: the one-block kernel at 1024 threads
  check(0, one_wide, false);
  check(0, one_wide + 1, true);
  check(0.0f, floats, false);  // (small integers: exact float sums)
  check(0.0f, floats + 1, true);
  check(0ll, longs, false);
  check(0ll, longs + 1, true);
  check(0.0, doubles, false);
  check(0.0, doubles + 1, true);
}

/// The blocks of the clusters the backend's launcher runs for double sums (8; 0: none).
inline unsigned backend_cluster_blocks() {
  return tilekit::detail::reduce_cluster_blocks<const double*, double, tilekit::plus>(::backend::launcher());
}

BOOST_AUTO_TEST_CASE(one_block_or_cluster_needs_no_storage) { check_storage_free(::backend::launcher(), backend_cluster_blocks()); }

/// Items (base + i) % 1000 as int: an iterator (the reduce reads it item by item) of 4-byte items.
struct mod_1000_int {
  std::int64_t base;
  using value_type = int;
  TILEKIT_HD int operator[](std::int64_t i) const { return int((base + i) % 1000); }
};

/// Sizes around a cluster's slices, for inputs of vec items a 16-byte load (1: an iterator): past one
/// 1024-thread block's chunk, around one load a thread of every block of the cluster and a few, up to the most.
/// `blocks`: the cluster's.
inline std::vector<std::int64_t> cluster_sizes(std::int64_t one_block, std::int64_t most, std::int64_t vec, unsigned blocks) {
  const std::int64_t round = std::int64_t(blocks) * tilekit::reduce_tuning::cluster_threads * vec;
  return {one_block + 1, one_block + vec - 1, round - 1, round, round + 1, round + vec + 1,
          2 * round - vec, 2 * round + 3, 3 * round + 2 * vec - 1, most - vec - 1, most - 1, most};
}

/// Sums of T items (make(g) each) into Acc from init, at cluster_sizes from each offset, against a host sum.
template <class T, class Acc, class Make, class Launcher>
void check_cluster_sums(const Launcher& launcher, unsigned blocks, const char* what, Make make, Acc init,
                        std::initializer_list<std::int64_t> offsets, std::mt19937_64& g) {
  using namespace tk_test;
  const std::int64_t most = tilekit::detail::reduce_storage_free_items<const T*, Acc, tilekit::plus>(blocks);
  const std::int64_t one_block = tilekit::detail::reduce_shape<const T*, tilekit::reduce_tuning::wide_threads>::chunk;
  std::vector<T> data(std::size_t(most) + 16);
  for (auto& x : data) x = make(g);
  dbuf<T> in(data);
  for (std::int64_t n : cluster_sizes(one_block, most, std::int64_t(16 / sizeof(T)), blocks))
    for (std::int64_t offset : offsets) {
      dbuf<Acc> out(1, poison<Acc>());
      const auto e = run_device_reduce(in.data() + offset, n, out.data(), tilekit::plus{}, init, launcher);
      Acc want = init;
      for (std::int64_t i = 0; i < n; ++i) want += Acc(data[std::size_t(offset + i)]);
      BOOST_TEST_CONTEXT(::backend::name << " cluster of " << blocks << " reduce of " << what << ", n=" << n << " offset="
                                         << offset << ", TILEKIT_TEST_SEED=" << base_seed()) {
        BOOST_TEST(e == launcher.success);
        BOOST_TEST(out.to_host()[0] == want);
      }
    }
}

// The slices of a cluster of `blocks` (GPUs with clusters; the simulator has them): every block
// busy or some empty, slices cut short by a vector, the head and tail extras, inputs off their
// 16-byte boundary, 4-, 8- and 1-byte items (1-byte: 16 a vector) into double accumulators (the
// 8-byte sums that do not pack; integers in them, so sums are exact), an iterator (items one by
// one), and doubles whose result repeats bitwise.
template <class Launcher>
void check_cluster_slices(const Launcher& launcher, unsigned blocks, std::mt19937_64& g) {
  using namespace tk_test;
  constexpr unsigned wide = tilekit::reduce_tuning::wide_threads;
  check_cluster_sums<int>(launcher, blocks, "int into double", [](std::mt19937_64& r) { return int(r() % 2001) - 1000; }, 5.0, {0, 1, 3}, g);
  // 8-byte items, 2 a vector; 30-bit values, so sums of a cluster's 2^16 stay exact in a double.
  check_cluster_sums<long long>(launcher, blocks, "int64 into double",
                                [](std::mt19937_64& r) { return static_cast<long long>(r() >> 34) - (1ll << 29); }, 3.0, {0, 1}, g);
  if constexpr (tilekit::detail::reduce_takes_cluster_v<const long long*, long long, tilekit::plus>)  // (pack_halves 0)
    check_cluster_sums<long long>(launcher, blocks, "int64",
                                  [](std::mt19937_64& r) { return static_cast<long long>(r() >> 24) - (1ll << 39); }, 3ll, {0, 1}, g);
  check_cluster_sums<unsigned char>(launcher, blocks, "uint8 into double", [](std::mt19937_64& r) { return static_cast<unsigned char>(r()); }, 0.0, {0, 5, 15}, g);
  {  // an iterator of int, summed into double
    const std::int64_t most = tilekit::detail::reduce_storage_free_items<mod_1000_int, double, tilekit::plus>(blocks);
    const std::int64_t one_block = tilekit::detail::reduce_shape<mod_1000_int, wide>::chunk;
    for (std::int64_t n : cluster_sizes(one_block, most, 1, blocks)) {
      dbuf<double> out(1, poison<double>());
      const auto e = run_device_reduce(mod_1000_int{0}, n, out.data(), tilekit::plus{}, 0.0, launcher);
      BOOST_TEST_CONTEXT(::backend::name << " cluster of " << blocks << " reduce of an iterator, n=" << n) {
        BOOST_TEST(e == launcher.success);
        BOOST_TEST(out.to_host()[0] == double(mod_1000_sum(n)));
      }
    }
  }
  {  // doubles: the same bits run after run
    const std::int64_t most = tilekit::detail::reduce_storage_free_items<const double*, double, tilekit::plus>(blocks);
    const std::vector<double> data = random_vector<double>(std::size_t(most), g);
    dbuf<double> in(data), a(1, poison<double>()), b(1, poison<double>());
    const std::int64_t n = most - 5;
    BOOST_TEST(run_device_reduce(in.data(), n, a.data(), tilekit::plus{}, 0.0, launcher) == launcher.success);
    BOOST_TEST(run_device_reduce(in.data(), n, b.data(), tilekit::plus{}, 0.0, launcher) == launcher.success);
    double want = 0, scale = 0;
    for (std::int64_t i = 0; i < n; ++i) want += data[std::size_t(i)], scale += std::fabs(double(data[std::size_t(i)]));
    BOOST_TEST(close_to(a.to_host()[0], want, scale), "got " << show(a.to_host()[0]) << ", want " << want);
    BOOST_TEST(same_value(a.to_host()[0], b.to_host()[0]), "two runs differ: " << show(a.to_host()[0]) << " vs " << show(b.to_host()[0]));
  }
}

BOOST_AUTO_TEST_CASE(cluster_slices) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  check_cluster_slices(::backend::launcher(), backend_cluster_blocks(), g);
}

BOOST_AUTO_TEST_CASE(invalid_arguments_write_nothing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  dbuf<int> in(std::vector<int>(100, 1)), out(1, poison<int>());
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_reduce(launcher, nullptr, bytes, in.data(), 100, out.data(), tilekit::plus{}, 0) == launcher.success);
  dbuf<unsigned char> temp(bytes, 0);
  BOOST_TEST(tilekit::device_reduce(launcher, temp.data(), bytes, in.data(), -1, out.data(), tilekit::plus{}, 0) == ::backend::invalid_value);
  std::size_t query = 12345;  // a size query answers a negative count as the call does, and sets nothing
  BOOST_TEST(tilekit::device_reduce(launcher, nullptr, query, in.data(), -1, out.data(), tilekit::plus{}, 0) == ::backend::invalid_value);
  BOOST_TEST(query == 12345u);
  BOOST_TEST(tilekit::device_reduce(launcher, temp.data(), bytes, static_cast<const int*>(nullptr), 5, out.data(),
                                    tilekit::plus{}, 0) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_reduce(launcher, temp.data(), bytes, in.data(), 5, static_cast<int*>(nullptr), tilekit::plus{},
                                    0) == ::backend::invalid_value);
  std::size_t too_few = bytes - 1;
  BOOST_TEST(tilekit::device_reduce(launcher, temp.data(), too_few, in.data(), 5, out.data(), tilekit::plus{}, 0) ==
             ::backend::invalid_value);
  // ArgMin / ArgMax: a null value or index output (n > 0 or not: both are always written), a null input with items.
  dbuf<long long> index(1, poison<long long>());
  std::size_t arg_bytes = 0;
  BOOST_REQUIRE(tilekit::device_arg_extremum<false>(launcher, nullptr, arg_bytes, in.data(), 100, out.data(), index.data()) ==
                launcher.success);
  dbuf<unsigned char> arg_temp(arg_bytes, 0);
  BOOST_TEST(tilekit::device_arg_extremum<false>(launcher, arg_temp.data(), arg_bytes, in.data(), 100, static_cast<int*>(nullptr),
                                                 index.data()) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_arg_extremum<true>(launcher, arg_temp.data(), arg_bytes, in.data(), 100, out.data(),
                                                static_cast<long long*>(nullptr)) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_arg_extremum<true>(launcher, arg_temp.data(), arg_bytes, static_cast<const int*>(nullptr), 100,
                                                out.data(), index.data()) == ::backend::invalid_value);
  ::backend::sync();
  BOOST_TEST(is_poison(out.to_host()[0]));
  BOOST_TEST(is_poison(index.to_host()[0]));
}

BOOST_AUTO_TEST_SUITE_END()
