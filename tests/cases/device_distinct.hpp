// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide distinct (order-preserving dedup of unsorted keys), unique count and
// count / count_if, written once for both backends: int and int64 keys (the key
// whose bits are all ones takes the hash set's extra slot), no / few / many / all
// distinct keys, sizes around tiles; outputs poisoned; invalid arguments.
// References: sequential CPU code. The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/device/distinct.cuh>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace tk_test {

template <class T>
using dbuf = typename ::backend::template buffer<T>;

enum class key_mix { all_equal, few, some, many, all_distinct, edges, few_then_all_distinct, mostly_distinct, nearly_distinct };
inline const char* name(key_mix m) {
  return m == key_mix::all_equal ? "all equal"
         : m == key_mix::few    ? "few distinct"
         : m == key_mix::some   ? "500 distinct"
         : m == key_mix::many   ? "many distinct"
         : m == key_mix::edges  ? "0, -1 (all ones), min, max and their neighbours"
         : m == key_mix::few_then_all_distinct ? "few distinct in the first half, then all distinct"
         : m == key_mix::mostly_distinct ? "3 of 4 distinct, the others 30 keys repeated"
         : m == key_mix::nearly_distinct ? "1 in 64 a repeat of an earlier key, the others distinct"
                                : "all distinct";
}

struct odd {
  TILEKIT_HD bool operator()(int x) const { return x % 2 != 0; }
};

template <class T>
std::vector<T> distinct_keys(std::size_t n, key_mix m, std::mt19937_64& g) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (m) {
      case key_mix::all_equal: v[i] = T(-1); break;  // all bits set: the extra slot
      case key_mix::few: v[i] = T(int(g() % 7) - 3); break;
      case key_mix::some: v[i] = T((g() % 500) * 2654435761ull); break;
      case key_mix::many: v[i] = T((g() % (n / 2 + 1)) * 1000003ull); break;
      case key_mix::all_distinct: v[i] = T((n - i) * 7919ull - 1); break;
      case key_mix::few_then_all_distinct: v[i] = i < n / 2 ? T(int(g() % 7) - 3) : T(i * 7919ull + 11); break;
      case key_mix::mostly_distinct: v[i] = g() % 4 == 0 ? T(int(g() % 30) - 15) : T(i * 7919ull + 11); break;
      // (all distinct but for a few: the only set's path marks the lowest indices, not all_distinct's none)
      case key_mix::nearly_distinct: v[i] = T((g() % 64 == 0 ? g() % (i + 1) : i) * 7919ull + 11); break;
      case key_mix::edges: {  // the set stores ~key: 0 is all ones, -1 is 0 (the extra slot)
        const T pick[] = {T(0), T(-1), std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(1),
                          T(std::numeric_limits<T>::min() + 1), T(std::numeric_limits<T>::max() - 1), T(-2)};
        v[i] = pick[g() % 8];
        break;
      }
    }
  }
  return v;
}

// Wide: 4-byte keys in the 16-byte slots that counts of 2^32 and more take (too big to test there).
// set_bytes (not 0): the first hash set's most bytes; where more keys are distinct than it
// takes, they go to buckets of about bucket_items keys, deduplicated in sets of bucket_set_slots
// (0: the default) in shared memory.
// estimate_items: the keys whose sketch may give the first set up before any goes in (0: none).
// fused_items: the most keys whose only set's kernels run as one cooperative launch (0: none).
template <class T, bool Wide = false>
void check_distinct(std::size_t n, key_mix m, std::mt19937_64& g, unsigned long long set_bytes = 0,
                    unsigned long long bucket_items = tilekit::distinct_tuning::bucket_items,
                    unsigned long long bucket_set_slots = 0,
                    unsigned long long estimate_items = tilekit::distinct_tuning::estimate_items,
                    long long fused_items = tilekit::distinct_tuning::fused_items) {
  const std::vector<T> data = distinct_keys<T>(n, m, g);
  std::vector<T> want;
  std::unordered_set<T> seen;
  for (const T& x : data)
    if (seen.insert(x).second) want.push_back(x);
  dbuf<T> in(data), out(n + 1, T(0x5A5A5A5A));
  dbuf<std::int64_t> num(1, poison<std::int64_t>());
  const auto launcher = ::backend::launcher();
  auto distinct = [&](void* temp, std::size_t& bytes) {
    constexpr bool packed = !Wide && sizeof(T) == 4;
    using dedup_t = tilekit::detail::piece_dedup<T, packed>;
    if (set_bytes != 0)
      return tilekit::detail::distinct_with<packed>(launcher, temp, bytes, in.data(), std::int64_t(n), out.data(), num.data(),
                                                    set_bytes, bucket_items,
                                                    bucket_set_slots != 0 ? bucket_set_slots : dedup_t::max_set_slots,
                                                    estimate_items, fused_items);
    if constexpr (Wide) return tilekit::detail::distinct_with<false>(launcher, temp, bytes, in.data(), std::int64_t(n), out.data(), num.data());
    return tilekit::device_distinct(launcher, temp, bytes, in.data(), std::int64_t(n), out.data(), num.data());
  };
  std::size_t bytes = 0;
  BOOST_REQUIRE(distinct(nullptr, bytes) == launcher.success);
  dbuf<unsigned char> temp(bytes, 0xCD);  // garbage: the call must clear what it needs
  const auto e = distinct(temp.data(), bytes);
  ::backend::sync();
  const auto got = out.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " distinct of " << sizeof(T) << "-byte keys" << (Wide ? " in 16-byte slots, " : ", ") << name(m) << ", n=" << n
                                     << ", first set of at most " << set_bytes << " bytes (0: the default), buckets of about "
                                     << bucket_items << " keys, their sets of " << bucket_set_slots << " slots (0: the default)"
                                     << ", the first " << estimate_items << " keys sketched, fused up to " << fused_items
                                     << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    BOOST_TEST(num.to_host()[0] == std::int64_t(want.size()));
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i) bad += got[i] != want[i];
    BOOST_TEST(bad == 0u, bad << " keys differ from the first occurrences in order");
    BOOST_TEST(got[want.size()] == T(0x5A5A5A5A), "wrote past the distinct count");
  }
}

inline void check_counts(std::size_t n, std::mt19937_64& g) {
  std::vector<int> data(n);
  for (auto& x : data) x = g() % 3 == 0 ? int(g() % 5) : 2;
  std::int64_t want_runs = 0, want_twos = 0, want_odd = 0;
  for (std::size_t i = 0; i < n; ++i) {
    want_runs += i == 0 || data[i] != data[i - 1];
    want_twos += data[i] == 2;
    want_odd += data[i] % 2 != 0;
  }
  dbuf<int> in(data);
  dbuf<std::int64_t> out(3, poison<std::int64_t>());
  const auto launcher = ::backend::launcher();
  auto two_phases = [&](auto call) {
    std::size_t bytes = 0;
    BOOST_REQUIRE(call(nullptr, bytes) == launcher.success);
    dbuf<unsigned char> temp(bytes, 0xCD);
    const auto e = call(temp.data(), bytes);
    ::backend::sync();
    return e;
  };
  const auto e0 = two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_unique_count(launcher, t, b, in.data(), std::int64_t(n), out.data());
  });
  const auto e1 = two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_count_if(launcher, t, b, in.data(), std::int64_t(n), out.data() + 1,
                                    tilekit::detail::equal_to_value<int>{2});
  });
  const auto e2 = two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_count_if(launcher, t, b, in.data(), std::int64_t(n), out.data() + 2, odd{});
  });
  const auto got = out.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " unique_count / count / count_if n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST((e0 == launcher.success && e1 == launcher.success && e2 == launcher.success));
    BOOST_TEST(got[0] == want_runs);
    BOOST_TEST(got[1] == want_twos);
    BOOST_TEST(got[2] == want_odd);
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_distinct)

BOOST_AUTO_TEST_CASE(distinct_keys_in_order_of_first_occurrence) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::size_t max_n = ::backend::device_max_items();
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(33), std::size_t(3071), std::size_t(3073),
                        std::size_t(40000), max_n - 3}) {
    for (key_mix m : {key_mix::all_equal, key_mix::few, key_mix::many, key_mix::all_distinct, key_mix::edges, key_mix::mostly_distinct,
                      key_mix::nearly_distinct}) {
      check_distinct<int>(n, m, g);
      check_distinct<long long>(n, m, g);
      if ((n == 3073 || n == 40000) && m != key_mix::nearly_distinct) check_distinct<int, true>(n, m, g);
    }
  }
}

// Up to distinct_tuning::fused_items keys, where the first set is the only one, its kernels are
// phases of one cooperative launch (the sizes above); here the same keys take them one launch each.
BOOST_AUTO_TEST_CASE(distinct_keys_launch_by_launch) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const auto set_bytes = tilekit::distinct_tuning::small_set_bytes;
  for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(3073), std::size_t(40000)})
    for (key_mix m : {key_mix::all_equal, key_mix::many, key_mix::all_distinct, key_mix::edges, key_mix::nearly_distinct}) {
      check_distinct<int>(n, m, g, set_bytes, tilekit::distinct_tuning::bucket_items, 0, tilekit::distinct_tuning::estimate_items, 0);
      if (m != key_mix::nearly_distinct)
        check_distinct<long long>(n, m, g, set_bytes, tilekit::distinct_tuning::bucket_items, 0, tilekit::distinct_tuning::estimate_items, 0);
    }
}

// Keys past the first set's size (64 slots here) go to buckets by hash (bucket_items about
// n / 7: 8 buckets), then to pieces by more bits of it (about half a piece set's slots each,
// at most 256 a bucket), each piece to a block, which does it again in 2, 4, ... parts where
// its set has too few slots (one bucket of 20000 keys in sets of 64 slots: pieces of ~78).
BOOST_AUTO_TEST_CASE(distinct_keys_in_buckets) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  for (std::size_t n : {std::size_t(100), std::size_t(3073), std::size_t(20000)}) {
    for (key_mix m : {key_mix::all_equal, key_mix::few, key_mix::many, key_mix::all_distinct, key_mix::edges}) {
      const unsigned long long bucket_items = n / 7 + 1;
      check_distinct<int>(n, m, g, 512, bucket_items);
      check_distinct<int>(n, m, g, 512, n, 64);  // one bucket
      if (n > 3073 && m != key_mix::all_distinct && m != key_mix::edges) continue;  // the simulator's time
      check_distinct<long long>(n, m, g, 512, bucket_items);
      check_distinct<int, true>(n, m, g, 512, bucket_items, 64);
    }
  }
  // The first set given up by the sketch of the first keys, or by its inserts: none sketched;
  // the first half sketched (few distinct there), the second half all distinct.
  for (std::size_t n : {std::size_t(100), std::size_t(3073)}) {
    check_distinct<int>(n, key_mix::many, g, 512, n / 7 + 1, 0, 0);
    check_distinct<int>(n, key_mix::few_then_all_distinct, g, 512, n / 7 + 1, 0, n / 2);
    check_distinct<long long>(n, key_mix::few_then_all_distinct, g, 512, n / 7 + 1, 0, n / 2);
    check_distinct<int>(n, key_mix::few_then_all_distinct, g, 512, n / 7 + 1);
  }
  // The first set sized by the sketch (8x its estimate, here 64 slots for the few keys of the first
  // half and 4096 for 500 keys, of the 16384 the first set has), holding every key or given up.
  for (key_mix m : {key_mix::few, key_mix::some, key_mix::edges, key_mix::few_then_all_distinct}) {
    check_distinct<int>(20000, m, g, 128 << 10, 20000 / 7 + 1, 0, 10000);
    check_distinct<long long>(20000, m, g, 256 << 10, 20000 / 7 + 1, 0, 10000);
  }
  // Most keys distinct, the rest repeated: the bitmap marks the indices that are not their key's
  // lowest (marks_later), found as the pieces' sets take them.
  for (std::size_t n : {std::size_t(3073), std::size_t(20000)}) {
    check_distinct<int>(n, key_mix::mostly_distinct, g, 512, n / 7 + 1);
    check_distinct<int>(n, key_mix::mostly_distinct, g, 512, n / 7 + 1, 64);  // pieces done again in parts
    check_distinct<long long>(n, key_mix::mostly_distinct, g, 512, n / 7 + 1);
    check_distinct<int, true>(n, key_mix::mostly_distinct, g, 512, n / 7 + 1, 64);
  }
  check_distinct<int>(12000, key_mix::many, g, 512, 32);  // as many buckets as there may be (distinct_tuning::max_buckets)
  check_distinct<long long>(1500, key_mix::all_distinct, g, 512, 1500, 8);  // 1500 keys in sets of 8 slots: 256 pieces, split
}

// The sketch that decides whether the first set is worth filling (with a margin of 25%): within
// 15% (4.6 standard errors of 2^10 registers) of the distinct keys, from a few to a million,
// however often each repeats, or within 2.5 keys (few keys: each pair sharing a register counts
// once; 8 keys read 7.02 with one such pair). 8-byte keys (a 64-bit hash) and 4-byte keys with
// fewer than 2^32 of them (Packed: a 32-bit hash).
template <class Key, bool Packed>
void check_distinct_estimate(std::mt19937_64& g) {
  using sketch_t = tilekit::detail::distinct_sketch;
  for (std::size_t distinct : {std::size_t(10), std::size_t(300), std::size_t(5000), std::size_t(200000), std::size_t(1000000)}) {
    std::vector<unsigned> registers(sketch_t::registers, 0u);
    std::vector<Key> drawn(2 * distinct);  // each key about twice, in random order
    const Key offset = Key(g());
    for (auto& key : drawn) {
      key = Key(offset + Key(g() % distinct));
      const unsigned long long h = sketch_t::hash<Key, Packed>(key);
      registers[sketch_t::slot(h)] = std::max(registers[sketch_t::slot(h)], sketch_t::rank(h));
    }
    std::sort(drawn.begin(), drawn.end());
    const double seen = double(std::unique(drawn.begin(), drawn.end()) - drawn.begin());
    unsigned long long terms = 0;
    unsigned zeros = 0;
    for (unsigned v : registers) {
      terms += sketch_t::term(v);
      zeros += v == 0;
    }
    const double got = sketch_t::estimate(terms, zeros);
    BOOST_TEST_CONTEXT(seen << " distinct keys of " << drawn.size() << (Packed ? " (4-byte)" : " (8-byte)")
                            << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
      BOOST_TEST(std::abs(got - seen) <= std::max(0.15 * seen, 2.5));
    }
  }
}
BOOST_AUTO_TEST_CASE(the_distinct_estimate_is_close) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  check_distinct_estimate<unsigned long long, false>(g);
  check_distinct_estimate<unsigned, true>(g);
}

BOOST_AUTO_TEST_CASE(unique_count_and_count) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(65537), ::backend::device_max_items()})
    check_counts(n, g);
}

BOOST_AUTO_TEST_CASE(invalid_arguments_write_nothing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  dbuf<int> in(std::vector<int>(100, 1)), out(100, poison<int>());
  dbuf<std::int64_t> num(1, poison<std::int64_t>());
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_distinct(launcher, nullptr, bytes, in.data(), 100, out.data(), num.data()) == launcher.success);
  dbuf<unsigned char> temp(bytes, 0);
  BOOST_TEST(tilekit::device_distinct(launcher, temp.data(), bytes, in.data(), -1, out.data(), num.data()) == ::backend::invalid_value);
  std::size_t query = 12345;  // a size query answers a negative count as the call does, and sets nothing
  BOOST_TEST(tilekit::device_distinct(launcher, nullptr, query, in.data(), -1, out.data(), num.data()) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_count_if(launcher, nullptr, query, in.data(), -5, num.data(), odd{}) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_unique_count(launcher, nullptr, query, in.data(), -5, num.data()) == ::backend::invalid_value);
  // Past 2^48 keys (the storage would near 2^64 bytes): invalid_value, the size query too.
  BOOST_TEST(tilekit::device_distinct(launcher, nullptr, query, in.data(), std::int64_t(1) << 62, out.data(), num.data()) ==
             ::backend::invalid_value);
  BOOST_TEST(query == 12345u);
  std::size_t at_most = 0;  // at the bound: a size, no overflow (2 x 2^48 keys with their indices, 16 bytes each)
  BOOST_TEST(tilekit::device_distinct(launcher, nullptr, at_most, in.data(), std::int64_t(1) << 48, out.data(), num.data()) ==
             launcher.success);
  BOOST_TEST(at_most > (std::size_t(1) << 52));
  BOOST_TEST(tilekit::device_distinct(launcher, temp.data(), bytes, static_cast<const int*>(nullptr), 100, out.data(), num.data()) ==
             ::backend::invalid_value);
  BOOST_TEST(tilekit::device_distinct(launcher, temp.data(), bytes, in.data(), 100, out.data(), static_cast<std::int64_t*>(nullptr)) ==
             ::backend::invalid_value);
  std::size_t too_few = bytes - 1;
  BOOST_TEST(tilekit::device_distinct(launcher, temp.data(), too_few, in.data(), 100, out.data(), num.data()) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_unique_count(launcher, temp.data(), bytes, static_cast<const int*>(nullptr), 100, num.data()) ==
             ::backend::invalid_value);
  BOOST_TEST(tilekit::device_count_if(launcher, temp.data(), bytes, in.data(), -5, num.data(), odd{}) == ::backend::invalid_value);
  ::backend::sync();
  for (int v : out.to_host()) BOOST_TEST(is_poison(v));
  BOOST_TEST(is_poison(num.to_host()[0]));
}

BOOST_AUTO_TEST_SUITE_END()
