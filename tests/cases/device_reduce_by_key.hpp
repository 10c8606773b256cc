// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reduce by key, written once for both backends through the launcher-generic dispatch
// tilekit::device_reduce_by_key: long runs and single-item runs, runs across chunk
// boundaries, sizes around the chunk, a non-commutative operator (the 2x2 matrix
// product: the order of every combination shows), a custom key equality, invalid
// arguments. References: sequential CPU code.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <algorithm>

#include <tilekit/device/reduce_by_key.cuh>

namespace tk_test {

template <class T>
using rbkbuf = typename ::backend::template buffer<T>;

/// Keys equal when they agree modulo 5.
struct same_mod_5 {
  TILEKIT_HD bool operator()(int a, int b) const { return a % 5 == b % 5; }
};

/// shape: -1 the public dispatch (which picks the blocks' shape and states by n), 0 / 1 blocks
/// of the narrow / wide shape (by_key_kernel's WideBlocks) with zeroed states whatever n, 2 / 3
/// the wide / narrow shape with tagged states (by_key_kernel's Tagged; values over 4 bytes:
/// zeroed). Each
/// call runs twice on the same temporary storage, the second over the first's states.
template <class V, class Op, class Eq, class K = int>
void check_reduce_by_key(std::int64_t n, unsigned run_kind, Op op, Eq eq, const char* what, int shape = -1,
                         decltype(::backend::launcher()) launcher = ::backend::launcher()) {
  auto g = rng_for(next_salt());
  // run_kind 0: runs of 1-3; 1: long runs (a new key with probability 1/500); 2: every item its own run.
  // A new key is the last plus 1-3 (wrapping in narrow key types: still a different key).
  std::vector<K> keys(std::size_t(n) + 1);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool repeat = i > 0 && (run_kind == 0 ? g() % 2 == 0 : run_kind == 1 ? g() % 500 != 0 : false);
    keys[i] = repeat ? keys[i - 1] : (i > 0 ? K(keys[i - 1] + K(1 + g() % 3)) : K(0));
  }
  std::vector<V> values(std::size_t(n) + 1);
  for (auto& v : values) v = random_value<V>(g);
  std::vector<K> want_keys;
  std::vector<V> want_values;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::size_t u = std::size_t(i);
    if (i == 0 || !eq(keys[u - 1], keys[u])) {
      want_keys.push_back(keys[u]);
      want_values.push_back(values[u]);
    } else {
      want_values.back() = V(op(want_values.back(), values[u]));
    }
  }
  rbkbuf<K> k_in(keys), k_out(std::size_t(n) + 1, poison<K>());
  rbkbuf<V> v_in(values), v_out(std::size_t(n) + 1, poison<V>());
  rbkbuf<long long> num(1, poison<long long>());
  std::size_t bytes = 0;
  auto call = [&](void* temp) {
    if (shape == 0)
      return tilekit::detail::reduce_by_key_blocks<false, false>(launcher, temp, bytes, k_in.data(), v_in.data(), n, k_out.data(),
                                                                 v_out.data(), num.data(), op, eq);
    if (shape == 1)
      return tilekit::detail::reduce_by_key_blocks<true, false>(launcher, temp, bytes, k_in.data(), v_in.data(), n, k_out.data(),
                                                                v_out.data(), num.data(), op, eq);
    if (shape == 2)
      return tilekit::detail::reduce_by_key_blocks<true, sizeof(V) <= 4>(launcher, temp, bytes, k_in.data(), v_in.data(), n,
                                                                         k_out.data(), v_out.data(), num.data(), op, eq);
    if (shape == 3)
      return tilekit::detail::reduce_by_key_blocks<false, sizeof(V) <= 4>(launcher, temp, bytes, k_in.data(), v_in.data(), n,
                                                                          k_out.data(), v_out.data(), num.data(), op, eq);
    return tilekit::device_reduce_by_key(launcher, temp, bytes, k_in.data(), v_in.data(), n, k_out.data(), v_out.data(),
                                         num.data(), op, eq);
  };
  BOOST_REQUIRE(call(nullptr) == launcher.success);
  rbkbuf<unsigned char> temp(bytes, 0xCD);
  for (int round = 0; round < 2; ++round) {
    if (round > 0) {
      k_out.fill(poison<K>());
      v_out.fill(poison<V>());
      num.fill(poison<long long>());
    }
    const auto e = call(temp.data());
    ::backend::sync();
    const auto got_keys = k_out.to_host();
    const auto got_values = v_out.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " reduce_by_key " << what << " " << type_name<K>() << " keys, " << type_name<V>()
                                       << " values, n=" << n << " runs kind " << run_kind
                                       << (shape < 0    ? ""
                                           : shape == 0 ? ", narrow blocks"
                                           : shape == 1 ? ", wide blocks"
                                           : shape == 2 ? ", wide blocks, tagged"
                                                        : ", narrow blocks, tagged")
                                       << (round > 0 ? ", second call" : "") << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(e == launcher.success);
      BOOST_TEST(num.to_host()[0] == (long long)want_keys.size());
      mismatch_log log;
      for (std::size_t r = 0; r < want_keys.size(); ++r) {
        if (got_keys[r] != want_keys[r]) log.expect(got_keys[r], want_keys[r], "key of run " + std::to_string(r));
        if (!same_value(got_values[r], want_values[r])) log.expect(got_values[r], want_values[r], "aggregate of run " + std::to_string(r));
      }
      log.expect_true(is_poison(got_keys[want_keys.size()]) && is_poison(got_values[want_keys.size()]), "wrote past the run count");
      BOOST_TEST(log.count == 0u);
    }
  }
}

/// The by-key scans against the CPU (in_place: values_out is values_in). states: -1 the public
/// dispatch (which picks them by n), 0 zeroed, 1 tagged (values over 4 bytes: zeroed) whatever n.
template <class V, class Op, class Eq, class K = int>
void check_scan_by_key(std::int64_t n, bool inclusive, bool in_place, Op op, Eq eq, V init, const char* what, int states = -1,
                       decltype(::backend::launcher()) launcher = ::backend::launcher()) {
  auto g = rng_for(next_salt());
  std::vector<K> keys(std::size_t(n) + 1);
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = i > 0 && g() % 5 != 0 ? keys[i - 1] : K(g() % 20);
  std::vector<V> values(std::size_t(n) + 1);
  for (auto& v : values) v = random_value<V>(g);
  std::vector<V> want(static_cast<std::size_t>(n));
  V run{};
  for (std::int64_t i = 0; i < n; ++i) {
    const std::size_t u = std::size_t(i);
    const bool head = i == 0 || !eq(keys[u - 1], keys[u]);
    if (inclusive) {
      run = head ? values[u] : V(op(run, values[u]));
      want[u] = run;
    } else {
      run = head ? init : V(op(run, values[u - 1]));
      want[u] = run;
    }
  }
  rbkbuf<K> k_in(keys);
  rbkbuf<V> v_in(values), v_out(std::size_t(n) + 1, poison<V>());
  V* out = in_place ? v_in.data() : v_out.data();
  std::size_t bytes = 0;
  auto call = [&](void* temp) {
    constexpr bool can_tag = sizeof(V) <= 4;
    if (states == 0)
      return inclusive ? tilekit::detail::scan_by_key_states<true, false>(launcher, temp, bytes, k_in.data(), v_in.data(), n, out, op, init, eq)
                       : tilekit::detail::scan_by_key_states<false, false>(launcher, temp, bytes, k_in.data(), v_in.data(), n, out, op, init, eq);
    if (states == 1)
      return inclusive ? tilekit::detail::scan_by_key_states<true, can_tag>(launcher, temp, bytes, k_in.data(), v_in.data(), n, out, op, init, eq)
                       : tilekit::detail::scan_by_key_states<false, can_tag>(launcher, temp, bytes, k_in.data(), v_in.data(), n, out, op, init, eq);
    return inclusive ? tilekit::device_scan_by_key<true>(launcher, temp, bytes, k_in.data(), v_in.data(), n, out, op, init, eq)
                     : tilekit::device_scan_by_key<false>(launcher, temp, bytes, k_in.data(), v_in.data(), n, out, op, init, eq);
  };
  BOOST_REQUIRE(call(nullptr) == launcher.success);
  rbkbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = call(temp.data());
  ::backend::sync();
  const auto got = in_place ? v_in.to_host() : v_out.to_host();
  BOOST_TEST_CONTEXT(::backend::name << (inclusive ? " inclusive" : " exclusive") << "_scan_by_key " << what << " "
                                     << type_name<V>() << " values, " << type_name<K>() << " keys, n=" << n << (in_place ? " in place" : "")
                                     << (states == 0 ? ", zeroed states" : states == 1 ? ", tagged states" : "")
                                     << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    mismatch_log log;
    for (std::int64_t i = 0; i < n; ++i)
      if (!same_value(got[std::size_t(i)], want[std::size_t(i)])) log.expect(got[std::size_t(i)], want[std::size_t(i)], "item " + std::to_string(i));
    if (!in_place) log.expect_true(is_poison(got[std::size_t(n)]), "wrote past the end");
    BOOST_TEST(log.count == 0u);
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_reduce_by_key)

BOOST_AUTO_TEST_CASE(runs_sizes_and_operators) {
  using namespace tk_test;
  // Each shape of blocks with each kind of states (check_reduce_by_key's shape) around its own
  // chunk, whatever n the dispatch would pick them for.
  for (int shape : {0, 1, 2, 3}) {
    using narrow_kernel = tilekit::detail::by_key_kernel<tilekit::detail::by_key::reduce, const int*, const int*, int*, int*,
                                                         long long*, tilekit::plus, tilekit::equal_to, false>;
    using wide_kernel = tilekit::detail::by_key_kernel<tilekit::detail::by_key::reduce, const int*, const int*, int*, int*,
                                                       long long*, tilekit::plus, tilekit::equal_to, true>;
    const std::int64_t chunk = shape == 1 || shape == 2 ? wide_kernel::chunk_items : narrow_kernel::chunk_items;
    for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(2), std::int64_t(9), chunk - 1, chunk, chunk + 1,
                           33 * chunk + 7}) {
      for (unsigned run_kind : {0u, 1u, 2u}) {
        check_reduce_by_key<int>(n, run_kind, tilekit::plus{}, tilekit::equal_to{}, "plus", shape);
        check_reduce_by_key<mat2>(n, run_kind, mat_mul{}, tilekit::equal_to{}, "matrix product", shape);
      }
      check_reduce_by_key<long long>(n, 0, tilekit::maximum{}, same_mod_5{}, "max, keys mod 5", shape);
      // Key and value types (sums wrap in narrow types alike on both sides; floating point: max / min, exact)
      check_reduce_by_key<short, tilekit::plus, tilekit::equal_to, signed char>(n, 0, tilekit::plus{}, tilekit::equal_to{}, "plus",
                                                                                shape);
      check_reduce_by_key<double, tilekit::maximum, tilekit::equal_to, long long>(n, 1, tilekit::maximum{}, tilekit::equal_to{},
                                                                                  "max", shape);
      check_reduce_by_key<float, tilekit::minimum, tilekit::equal_to, unsigned char>(n, 0, tilekit::minimum{}, tilekit::equal_to{},
                                                                                     "min", shape);
      check_reduce_by_key<long long, tilekit::plus, tilekit::equal_to, long long>(n, 2, tilekit::plus{}, tilekit::equal_to{},
                                                                                  "plus", shape);
    }
  }
  // The public dispatch: the largest n the device holds, and either side of where it
  // changes shape (where the device holds it).
  const std::int64_t max_n = std::int64_t(::backend::device_max_items());
  for (std::int64_t n : {max_n, std::int64_t(tilekit::reduce_by_key_tuning::narrow_from) - 1,
                         std::int64_t(tilekit::reduce_by_key_tuning::narrow_from),
                         std::int64_t(tilekit::reduce_by_key_tuning::tagged_below) - 1,
                         std::int64_t(tilekit::reduce_by_key_tuning::tagged_below)}) {
    if (n > max_n) continue;
    for (unsigned run_kind : {0u, 1u, 2u}) check_reduce_by_key<int>(n, run_kind, tilekit::plus{}, tilekit::equal_to{}, "plus");
    check_reduce_by_key<mat2>(n, 0, mat_mul{}, tilekit::equal_to{}, "matrix product");
    check_reduce_by_key<long long, tilekit::plus, tilekit::equal_to, long long>(n, 2, tilekit::plus{}, tilekit::equal_to{}, "plus");
  }
}

BOOST_AUTO_TEST_CASE(scans_by_key) {
  using namespace tk_test;
  using kernel = tilekit::detail::by_key_kernel<tilekit::detail::by_key::inclusive_scan, const int*, const int*, int*, int*, long long*,
                                                tilekit::plus, tilekit::equal_to>;
  const std::int64_t chunk = kernel::chunk_items;
  const std::int64_t max_n = std::int64_t(::backend::device_max_items());
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(3), chunk - 1, chunk + 1, 21 * chunk + 5, max_n}) {
    for (bool inclusive : {true, false}) {
      check_scan_by_key<int>(n, inclusive, false, tilekit::plus{}, tilekit::equal_to{}, 7, "plus, init 7");
      check_scan_by_key<mat2>(n, inclusive, false, mat_mul{}, tilekit::equal_to{}, mat2{1, 2, 0, 1}, "matrix product");
      check_scan_by_key<long long>(n, inclusive, true, tilekit::maximum{}, same_mod_5{}, -5ll, "max, keys mod 5");
      // Key and value types: int8 keys / int16 sums (wrapping alike), uint16 keys / double max, int64 keys / float min
      check_scan_by_key<short, tilekit::plus, tilekit::equal_to, signed char>(n, inclusive, false, tilekit::plus{},
                                                                               tilekit::equal_to{}, short(3), "plus");
      check_scan_by_key<double, tilekit::maximum, tilekit::equal_to, unsigned short>(n, inclusive, true, tilekit::maximum{},
                                                                                     tilekit::equal_to{}, -2000.0, "max");
      check_scan_by_key<float, tilekit::minimum, tilekit::equal_to, long long>(n, inclusive, false, tilekit::minimum{},
                                                                               tilekit::equal_to{}, 2000.f, "min");
      // Both kinds of states whatever n (the dispatch picks by n)
      for (int states : {0, 1}) {
        check_scan_by_key<int>(n, inclusive, false, tilekit::plus{}, tilekit::equal_to{}, 7, "plus, init 7", states);
        check_scan_by_key<short, tilekit::plus, tilekit::equal_to, signed char>(n, inclusive, true, tilekit::plus{},
                                                                                 tilekit::equal_to{}, short(3), "plus", states);
      }
    }
  }
}

// The last chunk's items past n (copies of its first key and value) are never combined by op:
// every item its own run, of value INT_MAX, so op has nothing to compute for items before n,
// and a padding item added into the last run overflows (UBSan reports it in the simulator).
BOOST_AUTO_TEST_CASE(padding_past_n_is_never_combined) {
  using namespace tk_test;
  using reduce_kernel = tilekit::detail::by_key_kernel<tilekit::detail::by_key::reduce, const int*, const int*, int*, int*,
                                                       long long*, tilekit::plus, tilekit::equal_to, false>;
  using scan_kernel = tilekit::detail::by_key_kernel<tilekit::detail::by_key::inclusive_scan, const int*, const int*, int*, int*,
                                                     long long*, tilekit::plus, tilekit::equal_to>;
  const int big = std::numeric_limits<int>::max();
  const auto launcher = ::backend::launcher();
  for (std::int64_t n : {std::int64_t(1), std::int64_t(3), reduce_kernel::chunk_items + 1, scan_kernel::chunk_items - 1,
                         scan_kernel::chunk_items + 1}) {
    std::vector<int> keys(std::size_t(n) + 1);
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = int(i);
    rbkbuf<int> k_in(keys), v_in(std::vector<int>(std::size_t(n) + 1, big)), k_out(std::size_t(n) + 1, poison<int>()),
        v_out(std::size_t(n) + 1, poison<int>());
    rbkbuf<long long> num(1, poison<long long>());
    std::size_t bytes = 0;
    for (int wide : {0, 1, 2}) {  // ReduceByKey in either shape of blocks, the wide one also with tagged states
      auto reduce = [&](void* t) {
        if (wide == 2)
          return tilekit::detail::reduce_by_key_blocks<true, true>(launcher, t, bytes, k_in.data(), v_in.data(), n, k_out.data(),
                                                                   v_out.data(), num.data(), tilekit::plus{}, tilekit::equal_to{});
        return wide ? tilekit::detail::reduce_by_key_blocks<true, false>(launcher, t, bytes, k_in.data(), v_in.data(), n,
                                                                         k_out.data(), v_out.data(), num.data(), tilekit::plus{},
                                                                         tilekit::equal_to{})
                    : tilekit::detail::reduce_by_key_blocks<false, false>(launcher, t, bytes, k_in.data(), v_in.data(), n,
                                                                          k_out.data(), v_out.data(), num.data(), tilekit::plus{},
                                                                          tilekit::equal_to{});
      };
      BOOST_REQUIRE(reduce(nullptr) == launcher.success);
      rbkbuf<unsigned char> temp(bytes, 0xCD);
      BOOST_TEST(reduce(temp.data()) == launcher.success);
      ::backend::sync();
      BOOST_TEST_CONTEXT(::backend::name << " reduce_by_key, n=" << n
                                         << (wide == 2 ? ", wide blocks, tagged" : wide ? ", wide blocks" : ", narrow blocks")) {
        BOOST_TEST(num.to_host()[0] == n);
        const auto got = v_out.to_host();
        BOOST_TEST(std::count(got.begin(), got.begin() + n, big) == n);
      }
    }
    for (bool inclusive : {true, false}) {
      rbkbuf<int> out(std::size_t(n) + 1, poison<int>());
      auto call = [&](void* t) {
        return inclusive ? tilekit::device_scan_by_key<true>(launcher, t, bytes, k_in.data(), v_in.data(), n, out.data(),
                                                             tilekit::plus{}, 7, tilekit::equal_to{})
                         : tilekit::device_scan_by_key<false>(launcher, t, bytes, k_in.data(), v_in.data(), n, out.data(),
                                                              tilekit::plus{}, 7, tilekit::equal_to{});
      };
      BOOST_REQUIRE(call(nullptr) == launcher.success);
      rbkbuf<unsigned char> scan_temp(bytes, 0xCD);
      BOOST_TEST(call(scan_temp.data()) == launcher.success);
      ::backend::sync();
      BOOST_TEST_CONTEXT(::backend::name << (inclusive ? " inclusive" : " exclusive") << "_scan_by_key, n=" << n) {
        const auto got = out.to_host();
        BOOST_TEST(std::count(got.begin(), got.begin() + n, inclusive ? big : 7) == n);
        BOOST_TEST(is_poison(got[std::size_t(n)]));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(invalid_arguments_write_nothing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  rbkbuf<int> k(std::vector<int>{1, 1, 2}), v(std::vector<int>{1, 2, 3}), ko(3, poison<int>()), vo(3, poison<int>());
  rbkbuf<long long> num(1, poison<long long>());
  std::size_t bytes = 0;
  BOOST_TEST(tilekit::device_reduce_by_key(launcher, nullptr, bytes, k.data(), v.data(), -1, ko.data(), vo.data(), num.data(),
                                           tilekit::plus{}, tilekit::equal_to{}) == ::backend::invalid_value);
  BOOST_REQUIRE(tilekit::device_reduce_by_key(launcher, nullptr, bytes, k.data(), v.data(), 3, ko.data(), vo.data(), num.data(),
                                              tilekit::plus{}, tilekit::equal_to{}) == launcher.success);
  rbkbuf<unsigned char> temp(bytes, 0xCD);
  const int* none = nullptr;
  BOOST_TEST(tilekit::device_reduce_by_key(launcher, temp.data(), bytes, none, v.data(), 3, ko.data(), vo.data(), num.data(),
                                           tilekit::plus{}, tilekit::equal_to{}) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_reduce_by_key(launcher, temp.data(), bytes, k.data(), none, 3, ko.data(), vo.data(), num.data(),
                                           tilekit::plus{}, tilekit::equal_to{}) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_reduce_by_key(launcher, temp.data(), bytes, k.data(), v.data(), 3, ko.data(), vo.data(),
                                           static_cast<long long*>(nullptr), tilekit::plus{}, tilekit::equal_to{}) ==
             ::backend::invalid_value);
  std::size_t small = bytes - 1;
  BOOST_TEST(tilekit::device_reduce_by_key(launcher, temp.data(), small, k.data(), v.data(), 3, ko.data(), vo.data(), num.data(),
                                           tilekit::plus{}, tilekit::equal_to{}) == ::backend::invalid_value);
  // The by-key scans: a negative count (the size query too), null keys, values or output, too little storage.
  for (bool inclusive : {true, false}) {
    auto scan = [&](void* t, std::size_t& b, const int* keys, const int* values, std::int64_t n, int* out) {
      return inclusive ? tilekit::device_scan_by_key<true>(launcher, t, b, keys, values, n, out, tilekit::plus{}, 0, tilekit::equal_to{})
                       : tilekit::device_scan_by_key<false>(launcher, t, b, keys, values, n, out, tilekit::plus{}, 0, tilekit::equal_to{});
    };
    std::size_t query = 12345, scan_bytes = 0;
    BOOST_TEST(scan(nullptr, query, k.data(), v.data(), -1, vo.data()) == ::backend::invalid_value);
    BOOST_TEST(query == 12345u);
    BOOST_REQUIRE(scan(nullptr, scan_bytes, k.data(), v.data(), 3, vo.data()) == launcher.success);
    rbkbuf<unsigned char> scan_temp(scan_bytes, 0xCD);
    BOOST_TEST(scan(scan_temp.data(), scan_bytes, k.data(), v.data(), -1, vo.data()) == ::backend::invalid_value);
    BOOST_TEST(scan(scan_temp.data(), scan_bytes, none, v.data(), 3, vo.data()) == ::backend::invalid_value);
    BOOST_TEST(scan(scan_temp.data(), scan_bytes, k.data(), none, 3, vo.data()) == ::backend::invalid_value);
    BOOST_TEST(scan(scan_temp.data(), scan_bytes, k.data(), v.data(), 3, static_cast<int*>(nullptr)) == ::backend::invalid_value);
    std::size_t scan_small = scan_bytes - 1;
    BOOST_TEST(scan(scan_temp.data(), scan_small, k.data(), v.data(), 3, vo.data()) == ::backend::invalid_value);
  }
  ::backend::sync();
  BOOST_TEST(is_poison(num.to_host()[0]));
  BOOST_TEST((is_poison(ko.to_host()[0]) && is_poison(vo.to_host()[0])));
}

BOOST_AUTO_TEST_SUITE_END()
