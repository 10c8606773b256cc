// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide select, partition and unique (one pass, look-back over 64-bit
// counts), written once for both backends through tilekit::device_select:
// selectivity 0%, 1%, 50%, 100%; flags; runs for unique; two-way partition with
// the rejected items reversed (as CUB); sizes around tiles; outputs poisoned;
// invalid arguments. References: sequential CPU code.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include <tilekit/device/select.cuh>

namespace tk_test {

template <class T>
using selbuf = typename ::backend::template buffer<T>;

struct below {
  int threshold;
  TILEKIT_HD bool operator()(int x) const { return x < threshold; }
};

struct equal_to {
  TILEKIT_HD bool operator()(int a, int b) const { return a == b; }
};

/// A flag value kept by keep_flagged_if: flags below 3 of 0..9.
struct flag_below_3 {
  TILEKIT_HD bool operator()(unsigned char f) const { return f < 3; }
};

enum class select_kind { if_, flagged, flagged_if, unique, partition, partition_flagged };
inline const char* name(select_kind k) {
  switch (k) {
    case select_kind::if_: return "select_if";
    case select_kind::flagged: return "select_flagged";
    case select_kind::flagged_if: return "select_flagged_if";
    case select_kind::unique: return "unique";
    case select_kind::partition: return "partition";
    default: return "partition_flagged";
  }
}

/// tilekit::device_select<partition>(args...), the partition chosen at run time.
template <class... Args>
auto select_any(bool partition, Args&&... args) {
  return partition ? tilekit::device_select<true>(args...) : tilekit::device_select<false>(args...);
}

/// Runs one select through the two phases; returns the error.
template <class Keep>
auto run_device_select(const int* in, std::int64_t n, int* out, std::int64_t* num_out, Keep keep, bool partition,
                       decltype(::backend::launcher()) launcher = ::backend::launcher()) {
  std::size_t bytes = 0;
  BOOST_REQUIRE(select_any(partition, launcher, nullptr, bytes, in, n, out, num_out, keep) == launcher.success);
  selbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = select_any(partition, launcher, temp.data(), bytes, in, n, out, num_out, keep);
  ::backend::sync();
  return e;
}

/// One select against the CPU; in_place (not for the partitions): out is the input buffer.
/// The flags are Flag's, from a 16-byte boundary, or one Flag past it with flags_off_boundary
/// (read flag by flag: not aligned for a lane's row of them).
template <class Flag = unsigned char>
void check_device_select(select_kind kind, std::int64_t n, int threshold, std::mt19937_64& g, bool in_place = false,
                         bool flags_off_boundary = false, decltype(::backend::launcher()) launcher = ::backend::launcher()) {
  std::vector<int> data(std::size_t(n) + 1);
  for (auto& x : data) x = kind == select_kind::unique ? int(g() % 3 == 0 ? g() % 1000 : 0) : int(g() % 1000);
  if (kind == select_kind::unique)  // runs: each item repeats the previous one with probability 2/3
    for (std::size_t i = 1; i < data.size(); ++i)
      if (data[i] == 0) data[i] = data[i - 1];
  const std::size_t shift = flags_off_boundary ? 1 : 0;  // flags[shift + i] is item i's
  std::vector<Flag> flags(data.size() + shift, Flag(1));
  for (std::size_t i = 0; i < data.size(); ++i)
    flags[shift + i] = kind == select_kind::flagged_if ? Flag(g() % 10) : Flag(data[i] < threshold);
  selbuf<int> d_in(data), d_out(std::size_t(n) + 1, poison<int>());
  int* out_ptr = in_place ? d_in.data() : d_out.data();
  selbuf<Flag> d_flags(flags);
  selbuf<std::int64_t> d_num(1, poison<std::int64_t>());
  // reference
  std::vector<int> kept, rejected;
  for (std::int64_t i = 0; i < n; ++i) {
    const int x = data[std::size_t(i)];
    const bool keep = kind == select_kind::unique       ? (i == 0 || data[std::size_t(i) - 1] != x)
                      : kind == select_kind::flagged_if ? flags[shift + std::size_t(i)] < 3
                                                        : x < threshold;
    (keep ? kept : rejected).push_back(x);
  }
  decltype(run_device_select(nullptr, 0, nullptr, nullptr, tilekit::keep_if<below>{}, false)) e{};
  const Flag* f = d_flags.data() + shift;
  switch (kind) {
    case select_kind::if_:
      e = run_device_select(d_in.data(), n, out_ptr, d_num.data(), tilekit::keep_if<below>{below{threshold}}, false, launcher);
      break;
    case select_kind::flagged:
      e = run_device_select(d_in.data(), n, out_ptr, d_num.data(), tilekit::keep_flagged<const Flag*>{f}, false, launcher);
      break;
    case select_kind::flagged_if:
      e = run_device_select(d_in.data(), n, out_ptr, d_num.data(),
                            tilekit::keep_flagged_if<const Flag*, flag_below_3>{f, flag_below_3{}}, false, launcher);
      break;
    case select_kind::unique:
      e = run_device_select(d_in.data(), n, out_ptr, d_num.data(), tilekit::keep_unique<equal_to>{equal_to{}}, false, launcher);
      break;
    case select_kind::partition:
      e = run_device_select(d_in.data(), n, out_ptr, d_num.data(), tilekit::keep_if<below>{below{threshold}}, true, launcher);
      break;
    case select_kind::partition_flagged:
      e = run_device_select(d_in.data(), n, out_ptr, d_num.data(), tilekit::keep_flagged<const Flag*>{f}, true, launcher);
      break;
  }
  const auto out = in_place ? d_in.to_host() : d_out.to_host();
  const auto num = d_num.to_host()[0];
  const bool partition = kind == select_kind::partition || kind == select_kind::partition_flagged;
  BOOST_TEST_CONTEXT(::backend::name << " device " << name(kind) << (in_place ? " in place" : "") << " n=" << n
                                     << " flags of " << sizeof(Flag) << " bytes" << (flags_off_boundary ? " off a boundary" : "")
                                     << " threshold=" << threshold << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST((e == ::backend::launcher().success));
    BOOST_TEST(num == std::int64_t(kept.size()));
    mismatch_log log;
    for (std::size_t i = 0; i < kept.size(); ++i)
      if (out[i] != kept[i]) log.expect(out[i], kept[i], "kept item " + std::to_string(i));
    if (partition) {
      for (std::size_t j = 0; j < rejected.size(); ++j)  // reversed at the back
        if (out[std::size_t(n) - 1 - j] != rejected[j]) log.expect(out[std::size_t(n) - 1 - j], rejected[j], "rejected item " + std::to_string(j));
      log.expect_true(is_poison(out[std::size_t(n)]), "wrote past the end");
    } else if (!in_place) {  // (in place the items past the count are unspecified)
      for (std::size_t i = kept.size(); i <= std::size_t(n); ++i)
        if (!is_poison(out[i])) log.expect_true(false, "wrote past the selected count at " + std::to_string(i));
    }
    BOOST_TEST(log.count == 0u);
  }
}

// Other item types (16-byte rows of 16 uint8 or 2 doubles; a 12-byte struct read item
// by item) and inputs that start off a 16-byte boundary (read item by item), through
// select_if, partition and unique, against the CPU.
struct three_ints {
  int a, b, c;
};
TILEKIT_HD int key_of(int x) { return x; }
TILEKIT_HD int key_of(unsigned char x) { return x; }
TILEKIT_HD int key_of(double x) { return int(x); }
TILEKIT_HD int key_of(const three_ints& x) { return x.b; }
template <class T>
struct small_key {
  TILEKIT_HD bool operator()(const T& x) const { return key_of(x) % 8 < 3; }
};
struct same_key {
  template <class T>
  TILEKIT_HD bool operator()(const T& x, const T& y) const { return key_of(x) == key_of(y); }
};

template <class T>
void check_typed_select(std::int64_t n, std::int64_t offset, std::mt19937_64& g) {
  std::vector<T> data(std::size_t(n + offset));
  int key = 0;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (g() % 3 == 0) key = int(g() % 200);  // runs, for unique
    if constexpr (std::is_same_v<T, three_ints>) data[i] = T{int(i), key, -1};
    else data[i] = T(key);
  }
  selbuf<T> d_in(data);
  for (int kind = 0; kind < 3; ++kind) {  // select_if, partition, unique
    std::vector<T> want, rejected;
    for (std::int64_t i = offset; i < n + offset; ++i) {
      const T& x = data[std::size_t(i)];
      const bool keep = kind == 2 ? (i == offset || key_of(data[std::size_t(i) - 1]) != key_of(x)) : small_key<T>{}(x);
      (keep ? want : rejected).push_back(x);
    }
    if (kind == 1) want.insert(want.end(), rejected.rbegin(), rejected.rend());
    T poisoned{};
    std::memset(static_cast<void*>(&poisoned), 0xCD, sizeof(T));
    selbuf<T> d_out(std::size_t(n) + 1, poisoned);
    selbuf<std::int64_t> d_num(1, poison<std::int64_t>());
    const auto launcher = ::backend::launcher();
    const T* in = d_in.data() + offset;
    auto run = [&](auto keep) {
      std::size_t bytes = 0;
      BOOST_REQUIRE(select_any(kind == 1, launcher, nullptr, bytes, in, n, d_out.data(), d_num.data(), keep) ==
                    launcher.success);
      selbuf<unsigned char> temp(bytes, 0xCD);
      return select_any(kind == 1, launcher, temp.data(), bytes, in, n, d_out.data(), d_num.data(), keep);
    };
    const auto e = kind == 2 ? run(tilekit::keep_unique<same_key>{same_key{}})
                             : run(tilekit::keep_if<small_key<T>>{small_key<T>{}});
    ::backend::sync();
    const auto out = d_out.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " " << (kind == 0 ? "select_if" : kind == 1 ? "partition" : "unique") << " of "
                                       << sizeof(T) << "-byte items, n=" << n << " offset=" << offset
                                       << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(e == launcher.success);
      const std::int64_t kept = kind == 1 ? std::int64_t(want.size() - rejected.size()) : std::int64_t(want.size());
      BOOST_TEST(d_num.to_host()[0] == kept);
      std::size_t bad = 0;
      for (std::size_t i = 0; i < want.size(); ++i) bad += std::memcmp(&out[i], &want[i], sizeof(T)) != 0;
      BOOST_TEST(bad == 0u, bad << " items differ");
      BOOST_TEST(std::memcmp(&out[want.size()], &poisoned, sizeof(T)) == 0, "wrote past the end");
    }
  }
}

struct is_seven {
  TILEKIT_HD bool operator()(std::int64_t x) const { return x == 7; }
};

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_select)

BOOST_AUTO_TEST_CASE(selectivity_sizes_and_kinds) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t tile = tilekit::detail::select_kernel<false, const int*, int*, std::int64_t*, tilekit::keep_if<below>>::chunk_items;
  const std::int64_t max_n = std::int64_t(::backend::device_max_items());
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(33), tile - 1, tile, tile + 1, 37 * tile + 11, max_n - 5}) {
    for (int threshold : {0, 10, 500, 1000}) {  // 0%, 1%, 50%, 100% kept
      check_device_select(select_kind::if_, n, threshold, g);
      check_device_select(select_kind::partition, n, threshold, g);
    }
    check_device_select(select_kind::flagged, n, 300, g);
    check_device_select(select_kind::flagged_if, n, 0, g);
    check_device_select(select_kind::unique, n, 0, g);
    check_device_select(select_kind::partition_flagged, n, 300, g);
    for (select_kind kind : {select_kind::if_, select_kind::flagged, select_kind::flagged_if, select_kind::unique})
      check_device_select(kind, n, 500, g, true);  // in place
  }
}

// The flags are read a lane's row at a time where aligned (4 one-byte flags beside 4 int
// items, 8 bytes of 2-byte flags, 16 of 4-byte ones), flag by flag where not.
BOOST_AUTO_TEST_CASE(flag_types_and_misaligned_flags) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t tile = tilekit::detail::select_kernel<false, const int*, int*, std::int64_t*, tilekit::keep_if<below>>::chunk_items;
  const std::int64_t big = std::min<std::int64_t>(std::int64_t(::backend::device_max_items()), 37 * tile + 11);
  for (std::int64_t n : {std::int64_t(1), tile - 1, tile + 1, big}) {
    for (bool off : {false, true}) {
      for (select_kind kind : {select_kind::flagged, select_kind::flagged_if, select_kind::partition_flagged}) {
        check_device_select<unsigned char>(kind, n, 300, g, false, off);
        check_device_select<unsigned short>(kind, n, 300, g, false, off);
        check_device_select<int>(kind, n, 300, g, false, off);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(item_types_and_misaligned_inputs) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t big = std::min<std::int64_t>(std::int64_t(::backend::device_max_items()), 300000);
  for (std::int64_t n : {std::int64_t(1), std::int64_t(4095), std::int64_t(8193), big}) {
    for (std::int64_t offset : {0, 1}) {
      check_typed_select<unsigned char>(n, offset, g);
      check_typed_select<double>(n, offset, g);
      check_typed_select<int>(n, offset + 2, g);  // 8 bytes off: item-aligned, not vector-aligned
    }
    check_typed_select<three_ints>(n, 0, g);
  }
}

BOOST_AUTO_TEST_CASE(counts_past_32_bits, *boost::unit_test::precondition(tk_test::huge_counts_wanted<::backend>)) {
  using namespace tk_test;
  const std::int64_t n = (std::int64_t(1) << 32) + 5;
  const std::int64_t want = n / 1000 + (n % 1000 > 7 ? 1 : 0);  // the i with i % 1000 == 7
  selbuf<std::int64_t> out(std::size_t(want) + 1, poison<std::int64_t>()), num(1, poison<std::int64_t>());
  const auto launcher = ::backend::launcher();
  const auto keep = tilekit::keep_if<is_seven>{};
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_select(launcher, nullptr, bytes, mod_1000{0}, n, out.data(), num.data(), keep) ==
                launcher.success);
  selbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = tilekit::device_select(launcher, temp.data(), bytes, mod_1000{0}, n, out.data(), num.data(), keep);
  ::backend::sync();
  const auto got = out.to_host();
  BOOST_TEST(e == launcher.success);
  BOOST_TEST(num.to_host()[0] == want);
  BOOST_TEST(std::count(got.begin(), got.end() - 1, std::int64_t(7)) == want);
  BOOST_TEST(is_poison(got.back()));
}

// Temporary storage at any alignment (the dispatch aligns its pieces inside the buffer).
/// Keys equal when they agree modulo 7 (a custom equality for unique_by_key).
struct same_mod_7 {
  TILEKIT_HD bool operator()(long long a, long long b) const { return a % 7 == b % 7; }
};

/// unique_by_key of K keys with runs (a new key with probability 1/4) and V values against the CPU;
/// custom: keys equal modulo 7.
template <class K, class V>
void check_unique_by_key(std::int64_t n, bool custom, std::mt19937_64& g) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  std::vector<K> keys(std::size_t(n) + 1);
  std::vector<V> values(std::size_t(n) + 1);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = i > 0 && g() % 4 != 0 ? keys[i - 1] : K(g() % 50);
    values[i] = random_value<V>(g);
  }
  std::vector<K> want_keys;
  std::vector<V> want_values;
  for (std::int64_t i = 0; i < n; ++i) {
    const K k = keys[std::size_t(i)];
    const bool head = i == 0 || (custom ? (long long)(keys[std::size_t(i) - 1]) % 7 != (long long)(k) % 7 : keys[std::size_t(i) - 1] != k);
    if (head) {
      want_keys.push_back(k);
      want_values.push_back(values[std::size_t(i)]);
    }
  }
  selbuf<K> k_in(keys), k_out(std::size_t(n) + 1, poison<K>());
  selbuf<V> v_in(values), v_out(std::size_t(n) + 1, poison<V>());
  selbuf<std::int64_t> num(1, poison<std::int64_t>());
  auto run = [&](void* temp, std::size_t& bytes) {
    return custom ? tilekit::device_unique_by_key(launcher, temp, bytes, k_in.data(), v_in.data(), n, k_out.data(), v_out.data(),
                                                  num.data(), same_mod_7{})
                  : tilekit::device_unique_by_key(launcher, temp, bytes, k_in.data(), v_in.data(), n, k_out.data(), v_out.data(),
                                                  num.data(), tilekit::equal_to{});
  };
  std::size_t bytes = 0;
  BOOST_REQUIRE(run(nullptr, bytes) == launcher.success);
  selbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = run(temp.data(), bytes);
  ::backend::sync();
  const auto got_keys = k_out.to_host();
  const auto got_values = v_out.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " unique_by_key " << type_name<K>() << " keys, " << type_name<V>() << " values, n=" << n
                                     << (custom ? " (keys mod 7)" : "") << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    BOOST_TEST(num.to_host()[0] == std::int64_t(want_keys.size()));
    mismatch_log log;
    for (std::size_t i = 0; i < want_keys.size(); ++i) {
      if (!same_value(got_keys[i], want_keys[i])) log.expect(got_keys[i], want_keys[i], "key " + std::to_string(i));
      if (!same_value(got_values[i], want_values[i])) log.expect(got_values[i], want_values[i], "value " + std::to_string(i));
    }
    log.expect_true(is_poison(got_keys[want_keys.size()]) && is_poison(got_values[want_keys.size()]), "wrote past the selected count");
    BOOST_TEST(log.count == 0u);
  }
}

BOOST_AUTO_TEST_CASE(unique_by_key) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const auto launcher = ::backend::launcher();
  const std::int64_t tile = tilekit::detail::select_kernel<false, const int*, int*, std::int64_t*, tilekit::keep_if<below>>::chunk_items;
  const std::int64_t max_n = std::int64_t(::backend::device_max_items());
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(2), tile - 1, tile + 1, 9 * tile + 3, max_n - 1}) {
    for (bool custom : {false, true}) check_unique_by_key<long long, double>(n, custom, g);
    check_unique_by_key<signed char, mat2>(n, false, g);     // 1-byte keys, 16-byte values
    check_unique_by_key<unsigned short, float>(n, true, g);
    check_unique_by_key<int, unsigned char>(n, false, g);
  }
  // Null keys or values with n > 0: invalid_value, nothing written.
  selbuf<long long> k(std::vector<long long>{1, 1, 2}), ko(3, poison<long long>());
  selbuf<double> v(std::vector<double>{1, 2, 3}), vo(3, poison<double>());
  selbuf<std::int64_t> num(1, poison<std::int64_t>());
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_unique_by_key(launcher, nullptr, bytes, k.data(), v.data(), 3, ko.data(), vo.data(), num.data(),
                                              tilekit::equal_to{}) == launcher.success);
  selbuf<unsigned char> temp(bytes, 0xCD);
  const double* no_values = nullptr;
  long long* no_keys = nullptr;
  BOOST_TEST(tilekit::device_unique_by_key(launcher, temp.data(), bytes, k.data(), no_values, 3, ko.data(), vo.data(),
                                           num.data(), tilekit::equal_to{}) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_unique_by_key(launcher, temp.data(), bytes, k.data(), v.data(), 3, no_keys, vo.data(), num.data(),
                                           tilekit::equal_to{}) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_unique_by_key(launcher, temp.data(), bytes, k.data(), v.data(), -1, ko.data(), vo.data(),
                                           num.data(), tilekit::equal_to{}) == ::backend::invalid_value);
  ::backend::sync();
  BOOST_TEST(is_poison(num.to_host()[0]));
  BOOST_TEST(is_poison(ko.to_host()[0]));
}

/// The three-way partition's parts: small (< 300), then medium (< 700), the rest large.
struct below_300 {
  TILEKIT_HD bool operator()(int x) const { return x < 300; }
};
struct below_700 {
  TILEKIT_HD bool operator()(int x) const { return x < 700; }
};

/// The typed three-way partition's parts, by the key's last digit: below 3, below 7, the rest.
struct digit_below_3 {
  template <class T>
  TILEKIT_HD bool operator()(const T& x) const { return tk_test::key_of(x) % 10 < 3; }
};
struct digit_below_7 {
  template <class T>
  TILEKIT_HD bool operator()(const T& x) const { return tk_test::key_of(x) % 10 < 7; }
};

/// The three-way partition of n items of type T (16-byte vector rows or item by item; input
/// off a 16-byte boundary where offset > 0) against the CPU: every part in order, the two counts.
template <class T>
void check_three_way_typed(std::int64_t n, std::size_t offset, std::mt19937_64& g) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  std::vector<T> h(std::size_t(n) + offset);
  for (std::size_t i = 0; i < h.size(); ++i) {
    const int key = int(g() % 12);  // digits 0..9, and 10, 11 (digits 0, 1)
    if constexpr (std::is_same_v<T, three_ints>) h[i] = T{int(i), key, -1};
    else h[i] = T(key);
  }
  std::vector<T> small, medium, large;
  for (std::size_t i = offset; i < h.size(); ++i)
    (digit_below_3{}(h[i]) ? small : digit_below_7{}(h[i]) ? medium : large).push_back(h[i]);
  selbuf<T> in(h), a(std::size_t(n) + 1, poison<T>()), b(std::size_t(n) + 1, poison<T>()), c(std::size_t(n) + 1, poison<T>());
  selbuf<std::int64_t> num(3, poison<std::int64_t>());
  auto run = [&](void* temp, std::size_t& bytes) {
    return tilekit::device_partition_three_way(launcher, temp, bytes, in.data() + offset, n, a.data(), b.data(), c.data(), num.data(),
                                               digit_below_3{}, digit_below_7{});
  };
  std::size_t bytes = 0;
  BOOST_REQUIRE(run(nullptr, bytes) == launcher.success);
  selbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = run(temp.data(), bytes);
  ::backend::sync();
  const auto ha = a.to_host(), hb = b.to_host(), hc = c.to_host();
  const auto counts = num.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " three-way partition " << type_name<T>() << " n=" << n << " offset " << offset
                                     << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    BOOST_TEST(counts[0] == std::int64_t(small.size()));
    BOOST_TEST(counts[1] == std::int64_t(medium.size()));
    BOOST_TEST(is_poison(counts[2]));
    mismatch_log log;
    const std::vector<T>* want[3] = {&small, &medium, &large};
    const std::vector<T>* got[3] = {&ha, &hb, &hc};
    for (int part = 0; part < 3; ++part) {
      for (std::size_t i = 0; i < want[part]->size(); ++i)
        if (std::memcmp(static_cast<const void*>(&(*got[part])[i]), static_cast<const void*>(&(*want[part])[i]), sizeof(T)) != 0)
          log.expect_true(false, "part " + std::to_string(part) + " item " + std::to_string(i));
      log.expect_true(is_poison((*got[part])[want[part]->size()]), "part " + std::to_string(part) + ": wrote past its count");
    }
    BOOST_TEST(log.count == 0u);
  }
}

BOOST_AUTO_TEST_CASE(three_way_partition_types) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t tile = tilekit::detail::partition3_kernel<const int*, int*, int*, int*, std::int64_t*, digit_below_3,
                                                               digit_below_7>::chunk_items;
  // (and either side of where the dispatch changes states, where the device holds it)
  const std::int64_t max_n = std::int64_t(::backend::device_max_items()), switch_n = tilekit::select_tuning::partition3_tagged_below;
  for (std::int64_t n : {std::int64_t(1), tile - 1, 3 * tile + 1, max_n / 4, switch_n - 1, switch_n}) {
    if (n > max_n) continue;
    check_three_way_typed<unsigned char>(n, 0, g);
    check_three_way_typed<int>(n, 1, g);  // off a 16-byte boundary: item by item
    check_three_way_typed<double>(n, 0, g);
    check_three_way_typed<three_ints>(n, 0, g);
  }
}

BOOST_AUTO_TEST_CASE(three_way_partition) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const auto launcher = ::backend::launcher();
  const std::int64_t tile = tilekit::detail::select_kernel<false, const int*, int*, std::int64_t*, tilekit::keep_if<below>>::chunk_items;
  const std::int64_t max_n = std::int64_t(::backend::device_max_items());
  // Tagged: the states of calls below 2^32 items (never zeroed); else those of larger ones
  // (zeroed before the launch), here at sizes that fit.
  for (bool tagged : {true, false})
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), tile + 1, 7 * tile - 3, max_n}) {
    for (int spread : {1000, 300, 200}) {  // every part; only small and medium; only small
      std::vector<int> h(static_cast<std::size_t>(n));
      for (auto& x : h) x = int(g() % unsigned(spread));
      std::vector<int> small, medium, large;
      for (int x : h) (x < 300 ? small : x < 700 ? medium : large).push_back(x);
      selbuf<int> in(h.empty() ? std::vector<int>(1) : h), a(std::size_t(n) + 1, poison<int>()), b(std::size_t(n) + 1, poison<int>()),
          c(std::size_t(n) + 1, poison<int>());
      selbuf<std::int64_t> num(3, poison<std::int64_t>());
      std::size_t bytes = 0;
      auto run = [&](void* temp) {
        return tagged ? tilekit::detail::partition_three_way_states<true>(launcher, temp, bytes, in.data(), n, a.data(), b.data(),
                                                                          c.data(), num.data(), below_300{}, below_700{})
                      : tilekit::detail::partition_three_way_states<false>(launcher, temp, bytes, in.data(), n, a.data(), b.data(),
                                                                           c.data(), num.data(), below_300{}, below_700{});
      };
      BOOST_REQUIRE(run(nullptr) == launcher.success);
      selbuf<unsigned char> temp(bytes, 0xCD);
      const auto e = run(temp.data());
      ::backend::sync();
      const auto ha = a.to_host(), hb = b.to_host(), hc = c.to_host();
      const auto counts = num.to_host();
      BOOST_TEST_CONTEXT(::backend::name << " three-way partition n=" << n << " values below " << spread
                                         << (tagged ? ", tagged states" : ", zeroed states")
                                         << ", TILEKIT_TEST_SEED=" << base_seed()) {
        BOOST_TEST(e == launcher.success);
        BOOST_TEST(counts[0] == std::int64_t(small.size()));
        BOOST_TEST(counts[1] == std::int64_t(medium.size()));
        BOOST_TEST(is_poison(counts[2]));  // only two counts are written
        BOOST_TEST(std::vector<int>(ha.begin(), ha.begin() + std::ptrdiff_t(small.size())) == small);
        BOOST_TEST(std::vector<int>(hb.begin(), hb.begin() + std::ptrdiff_t(medium.size())) == medium);
        BOOST_TEST(std::vector<int>(hc.begin(), hc.begin() + std::ptrdiff_t(large.size())) == large);
        BOOST_TEST((is_poison(ha[small.size()]) && is_poison(hb[medium.size()]) && is_poison(hc[large.size()])));
      }
    }
  }
  // A null output with n > 0: invalid_value, nothing written.
  selbuf<int> in(std::vector<int>{1, 500, 900}), a(3, poison<int>());
  selbuf<std::int64_t> num(2, poison<std::int64_t>());
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_partition_three_way(launcher, nullptr, bytes, in.data(), 3, a.data(), a.data(), a.data(),
                                                    num.data(), below_300{}, below_700{}) == launcher.success);
  selbuf<unsigned char> temp(bytes, 0xCD);
  BOOST_TEST(tilekit::device_partition_three_way(launcher, temp.data(), bytes, in.data(), 3, a.data(), static_cast<int*>(nullptr),
                                                 a.data(), num.data(), below_300{}, below_700{}) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_partition_three_way(launcher, temp.data(), bytes, in.data(), -1, a.data(), a.data(), a.data(),
                                                 num.data(), below_300{}, below_700{}) == ::backend::invalid_value);
  ::backend::sync();
  BOOST_TEST((is_poison(num.to_host()[0]) && is_poison(a.to_host()[0])));
}

BOOST_AUTO_TEST_CASE(temporary_storage_at_any_alignment) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 8) + 5;
  std::vector<int> h(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) h[std::size_t(i)] = int((i * 7919) % 101);
  std::vector<int> want;
  for (int x : h)
    if (x < 50) want.push_back(x);
  const tilekit::keep_if<below> keep{below{50}};
  for (std::size_t offset : {1u, 8u, 100u}) {
    selbuf<int> in(h), out(std::size_t(n), poison<int>());
    selbuf<std::int64_t> num(1, -1);
    std::size_t bytes = 0;
    BOOST_REQUIRE(tilekit::device_select<false>(launcher, nullptr, bytes, in.data(), n, out.data(), num.data(), keep) ==
                  launcher.success);
    selbuf<unsigned char> temp(bytes + offset, 0xCD);
    BOOST_TEST_CONTEXT(::backend::name << " device select, temporary storage " << offset << " bytes past an allocation") {
      BOOST_TEST(tilekit::device_select<false>(launcher, temp.data() + offset, bytes, in.data(), n, out.data(), num.data(),
                                               keep) == launcher.success);
      ::backend::sync();
      BOOST_TEST(num.to_host()[0] == std::int64_t(want.size()));
      const auto got = out.to_host();
      BOOST_TEST(std::equal(want.begin(), want.end(), got.begin()));
    }
  }
}

/// The reuse tests' input: random ints below 1000, 2^21 of them or as many as the device holds.
inline std::vector<int> reuse_input() {
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<int> h(std::min<std::size_t>(::backend::device_max_items(), std::size_t(1) << 21));
  for (auto& x : h) x = int(g() % 1000);
  return h;
}

// One temporary storage reused by select after select, never cleared: each call's chunk
// counts must ignore those the calls before it left (the storage needs no zeroing).
BOOST_AUTO_TEST_CASE(storage_reused_without_clearing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher_later_blocks_first();  // the simulator: later chunks poll first
  const std::vector<int> h = reuse_input();
  const std::int64_t max_n = std::int64_t(h.size());
  selbuf<int> in(h);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_select<false>(launcher, nullptr, bytes, in.data(), max_n, in.data(),
                                              static_cast<std::int64_t*>(nullptr), tilekit::keep_if<below>{below{0}}) ==
                launcher.success);
  selbuf<unsigned char> temp(bytes, 0xCD);
  int call = 0;
  for (std::int64_t n : {max_n, max_n, max_n / 3 + 7, max_n, std::int64_t(1000)}) {
    for (int threshold : {500, 10, 990}) {
      const tilekit::keep_if<below> keep{below{threshold}};
      std::vector<int> want;
      for (std::int64_t i = 0; i < n; ++i)
        if (h[std::size_t(i)] < threshold) want.push_back(h[std::size_t(i)]);
      selbuf<int> out(std::size_t(n), poison<int>());
      selbuf<std::int64_t> num(1, -1);
      std::size_t b = bytes;
      const auto e = tilekit::device_select<false>(launcher, temp.data(), b, in.data(), n, out.data(), num.data(), keep);
      ::backend::sync();
      BOOST_TEST_CONTEXT(::backend::name << " device select, call " << call++ << " on reused storage, n=" << n
                                         << " threshold " << threshold << ", TILEKIT_TEST_SEED=" << base_seed()) {
        BOOST_TEST(e == launcher.success);
        BOOST_TEST(num.to_host()[0] == std::int64_t(want.size()));
        const auto got = out.to_host();
        BOOST_TEST(std::equal(want.begin(), want.end(), got.begin()));
      }
    }
  }
}

// The three-way partition's tagged states, never cleared, through calls of several sizes
// on one temporary storage: each call must ignore the states the calls before it left.
BOOST_AUTO_TEST_CASE(three_way_partition_storage_reused) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher_later_blocks_first();  // the simulator: later chunks poll first
  const std::vector<int> h = reuse_input();
  const std::int64_t max_n = std::int64_t(h.size());
  selbuf<int> in(h);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::detail::partition_three_way_states<true>(launcher, nullptr, bytes, in.data(), max_n, in.data(), in.data(),
                                                                   in.data(), static_cast<std::int64_t*>(nullptr), below_300{},
                                                                   below_700{}) == launcher.success);
  selbuf<unsigned char> temp(bytes, 0xCD);
  int call = 0;
  // Each call from another item of h on (off a 16-byte boundary for odd calls): other
  // counts at every chunk, so that a state left by an earlier call would show.
  for (std::int64_t n : {max_n - 64, max_n - 64, max_n / 3 + 7, max_n - 64, std::int64_t(1000), max_n - 64}) {
    const std::size_t from = std::size_t(call) * 4 + std::size_t(call % 2);
    std::vector<int> small, medium, large;
    for (std::int64_t i = 0; i < n; ++i) {
      const int x = h[from + std::size_t(i)];
      (x < 300 ? small : x < 700 ? medium : large).push_back(x);
    }
    selbuf<int> a(std::size_t(n), poison<int>()), b(std::size_t(n), poison<int>()), c(std::size_t(n), poison<int>());
    selbuf<std::int64_t> num(2, -1);
    std::size_t used = bytes;
    const auto e = tilekit::detail::partition_three_way_states<true>(launcher, temp.data(), used, in.data() + from, n, a.data(),
                                                                     b.data(), c.data(), num.data(), below_300{}, below_700{});
    ::backend::sync();
    const auto ha = a.to_host(), hb = b.to_host(), hc = c.to_host();
    const auto counts = num.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " three-way partition, call " << call++ << " on reused storage, n=" << n << " from item "
                                       << from << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(e == launcher.success);
      BOOST_TEST(counts[0] == std::int64_t(small.size()));
      BOOST_TEST(counts[1] == std::int64_t(medium.size()));
      BOOST_TEST(std::equal(small.begin(), small.end(), ha.begin()));
      BOOST_TEST(std::equal(medium.begin(), medium.end(), hb.begin()));
      BOOST_TEST(std::equal(large.begin(), large.end(), hc.begin()));
    }
  }
}

BOOST_AUTO_TEST_CASE(invalid_arguments_write_nothing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  selbuf<int> in(std::vector<int>(100, 1)), out(100, poison<int>());
  selbuf<std::int64_t> num(1, poison<std::int64_t>());
  const tilekit::keep_if<below> keep{below{5}};
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_select(launcher, nullptr, bytes, in.data(), 100, out.data(), num.data(), keep) == launcher.success);
  selbuf<unsigned char> temp(bytes, 0);
  BOOST_TEST(tilekit::device_select(launcher, temp.data(), bytes, in.data(), -1, out.data(), num.data(), keep) == ::backend::invalid_value);
  std::size_t query = 12345;  // a size query answers a negative count as the call does, and sets nothing
  BOOST_TEST(tilekit::device_select(launcher, nullptr, query, in.data(), -1, out.data(), num.data(), keep) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_select<true>(launcher, nullptr, query, in.data(), -1, out.data(), num.data(), keep) == ::backend::invalid_value);
  BOOST_TEST(query == 12345u);
  BOOST_TEST(tilekit::device_select(launcher, temp.data(), bytes, static_cast<const int*>(nullptr), 100, out.data(), num.data(), keep) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_select(launcher, temp.data(), bytes, in.data(), 100, out.data(), static_cast<std::int64_t*>(nullptr),
                                    keep) == ::backend::invalid_value);
  std::size_t too_few = bytes - 1;
  BOOST_TEST(tilekit::device_select(launcher, temp.data(), too_few, in.data(), 100, out.data(), num.data(), keep) ==
             ::backend::invalid_value);
  // A null output, for the select and the partition.
  BOOST_TEST(tilekit::device_select(launcher, temp.data(), bytes, in.data(), 100, static_cast<int*>(nullptr), num.data(), keep) ==
             ::backend::invalid_value);
  BOOST_TEST(tilekit::device_select<true>(launcher, temp.data(), bytes, in.data(), 100, static_cast<int*>(nullptr), num.data(),
                                          keep) == ::backend::invalid_value);
  // Null flags with n > 0 (flagged select and partition, flagged if): invalid_value, not a null read.
  const tilekit::keep_flagged<const unsigned char*> no_flags{nullptr};
  const tilekit::keep_flagged_if<const int*, below> no_flag_values{nullptr, below{5}};
  std::size_t flagged_bytes = 0;
  BOOST_REQUIRE(tilekit::device_select(launcher, nullptr, flagged_bytes, in.data(), 100, out.data(), num.data(), no_flags) ==
                launcher.success);  // the size query needs no flags
  selbuf<unsigned char> flagged_temp(flagged_bytes, 0);
  BOOST_TEST(tilekit::device_select(launcher, flagged_temp.data(), flagged_bytes, in.data(), 100, out.data(), num.data(),
                                    no_flags) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_select<true>(launcher, flagged_temp.data(), flagged_bytes, in.data(), 100, out.data(), num.data(),
                                          no_flags) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_select(launcher, flagged_temp.data(), flagged_bytes, in.data(), 100, out.data(), num.data(),
                                    no_flag_values) == ::backend::invalid_value);
  ::backend::sync();
  for (int v : out.to_host()) BOOST_TEST(is_poison(v));
  BOOST_TEST(is_poison(num.to_host()[0]));
  // With n == 0 nothing is read: null flags are fine, and the count is 0.
  BOOST_TEST(tilekit::device_select(launcher, flagged_temp.data(), flagged_bytes, in.data(), 0, out.data(), num.data(), no_flags) ==
             launcher.success);
  ::backend::sync();
  BOOST_TEST(num.to_host()[0] == 0);
}

BOOST_AUTO_TEST_SUITE_END()
