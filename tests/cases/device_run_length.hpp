// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide run-length encoding (one pass: {emits, run start} pairs chained by
// the scan's look-back), written once for both backends through
// tilekit::device_run_length_encode: Encode and NonTrivialRuns over short and long
// runs, runs crossing tiles, all equal, all distinct, n = 0 and 1, invalid
// arguments. References: sequential CPU code.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/device/run_length_encode.cuh>

namespace tk_test {

template <class T>
using rbuf = typename ::backend::template buffer<T>;

enum class run_shape { random_short, random_long, all_equal, all_distinct };
inline const char* name(run_shape s) {
  switch (s) {
    case run_shape::random_short: return "short runs";
    case run_shape::random_long: return "long runs";
    case run_shape::all_equal: return "all equal";
    default: return "all distinct";
  }
}

inline std::vector<int> run_data(std::size_t n, run_shape s, std::mt19937_64& g) {
  std::vector<int> v(n);
  int value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    switch (s) {
      case run_shape::random_short: if (g() % 2) value = int(g() % 5); break;           // runs of ~2, equal neighbours join
      case run_shape::random_long: if (g() % 3000 == 0) value = int(g() % 1000); break;  // runs longer than tiles
      case run_shape::all_equal: value = 42; break;
      case run_shape::all_distinct: value = int(i); break;
    }
    v[i] = value;
  }
  return v;
}

// General: through the tile states that inputs of 2^31 items or more use (the
// packed ones otherwise), here at small sizes.
template <bool NonTrivial, bool General = false>
void check_run_length(std::size_t n, run_shape s, std::mt19937_64& g,
                      decltype(::backend::launcher()) launcher = ::backend::launcher()) {
  const std::vector<int> data = run_data(n, s, g);
  rbuf<int> in(data), keys(n + 1, poison<int>()), lengths(n + 1, poison<int>()), runs(1, poison<int>());
  auto encode = [&](void* temp, std::size_t& bytes) {
    if constexpr (General)
      return tilekit::detail::run_length_encode_with<NonTrivial, tilekit::detail::epoch_states<tilekit::detail::run_mark>>(
          launcher, temp, bytes, in.data(), std::int64_t(n), keys.data(), lengths.data(), runs.data());
    else
      return tilekit::device_run_length_encode<NonTrivial>(launcher, temp, bytes, in.data(), std::int64_t(n), keys.data(),
                                                           lengths.data(), runs.data());
  };
  std::size_t bytes = 0;
  BOOST_REQUIRE((encode(nullptr, bytes) == launcher.success));
  rbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = encode(temp.data(), bytes);
  ::backend::sync();
  std::vector<int> want_keys, want_lengths;  // keys: the run's item (Encode) or its offset (NonTrivialRuns)
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && data[j] == data[i]) ++j;
    if (!NonTrivial || j - i > 1) {
      want_keys.push_back(NonTrivial ? int(i) : data[i]);
      want_lengths.push_back(int(j - i));
    }
    i = j;
  }
  const auto got_keys = keys.to_host(), got_lengths = lengths.to_host();
  BOOST_TEST_CONTEXT(::backend::name << (NonTrivial ? " non-trivial runs " : " run-length encode ") << (General ? "(general tile states) " : "") << name(s) << " n=" << n
                                     << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    BOOST_TEST(runs.to_host()[0] == int(want_keys.size()));
    mismatch_log log;
    for (std::size_t r = 0; r < want_keys.size(); ++r) {
      if (got_keys[r] != want_keys[r]) log.expect(got_keys[r], want_keys[r], "key/offset of run " + std::to_string(r));
      if (got_lengths[r] != want_lengths[r]) log.expect(got_lengths[r], want_lengths[r], "length of run " + std::to_string(r));
    }
    log.expect_true(is_poison(got_keys[want_keys.size()]) && is_poison(got_lengths[want_keys.size()]), "wrote past the last run");
    BOOST_TEST(log.count == 0u);
  }
}

// Other item types (rows of 16 uint8 or 2 doubles) and an input off its 16-byte
// boundary (read item by item), through both kinds, against the CPU.
template <class T, bool NonTrivial>
void check_typed_runs(std::size_t n, std::size_t offset, std::mt19937_64& g) {
  std::vector<T> data(n + offset);
  T value = T(1);
  for (auto& x : data) {
    if (g() % 3 == 0) value = T(g() % 4);
    x = value;
  }
  rbuf<T> in(data);
  rbuf<T> keys(n + 1, T(99));
  rbuf<long long> offsets(n + 1, -7), lengths(n + 1, -7);
  rbuf<long long> runs(1, -7);
  const auto launcher = ::backend::launcher();
  const T* first = in.data() + offset;
  auto encode = [&](void* temp, std::size_t& bytes) {
    if constexpr (NonTrivial)
      return tilekit::device_run_length_encode<true>(launcher, temp, bytes, first, std::int64_t(n), offsets.data(), lengths.data(), runs.data());
    else
      return tilekit::device_run_length_encode<false>(launcher, temp, bytes, first, std::int64_t(n), keys.data(), lengths.data(), runs.data());
  };
  std::size_t bytes = 0;
  BOOST_REQUIRE((encode(nullptr, bytes) == launcher.success));
  rbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = encode(temp.data(), bytes);
  ::backend::sync();
  std::vector<long long> want_first, want_lengths;
  std::vector<T> want_keys;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && data[offset + j] == data[offset + i]) ++j;
    if (!NonTrivial || j - i > 1) want_first.push_back((long long)i), want_keys.push_back(data[offset + i]), want_lengths.push_back((long long)(j - i));
    i = j;
  }
  const auto got_keys = keys.to_host();
  const auto got_offsets = offsets.to_host();
  const auto got_lengths = lengths.to_host();
  BOOST_TEST_CONTEXT(::backend::name << (NonTrivial ? " non-trivial runs of " : " run-length encode of ") << sizeof(T)
                                     << "-byte items, n=" << n << " offset=" << offset << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    BOOST_TEST(runs.to_host()[0] == (long long)want_lengths.size());
    std::size_t bad = 0;
    for (std::size_t r = 0; r < want_lengths.size(); ++r)
      bad += got_lengths[r] != want_lengths[r] || (NonTrivial ? got_offsets[r] != want_first[r] : !(got_keys[r] == want_keys[r]));
    BOOST_TEST(bad == 0u, bad << " runs differ");
    BOOST_TEST(got_lengths[want_lengths.size()] == -7, "wrote past the last run");
  }
}

struct index_div_1000 {  // in[i] = i / 1000 as int64, from an iterator
  TILEKIT_HD long long operator[](std::int64_t i) const { return i / 1000; }
  TILEKIT_HD long long operator*() const { return 0; }
};

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_run_length)

BOOST_AUTO_TEST_CASE(item_types_and_misaligned_inputs) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  for (std::size_t n : {std::size_t(1), std::size_t(3000), std::size_t(20001)}) {
    for (std::size_t offset : {0, 1}) {
      check_typed_runs<unsigned char, false>(n, offset, g);
      check_typed_runs<unsigned char, true>(n, offset, g);
      check_typed_runs<double, false>(n, offset, g);
      check_typed_runs<double, true>(n, offset, g);
      check_typed_runs<int, true>(n, offset + 2, g);
    }
  }
}

BOOST_AUTO_TEST_CASE(encode_and_non_trivial_runs) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::size_t tile = std::size_t(
      tilekit::detail::rle_kernel<false, const int*, int*, int*, int*, tilekit::detail::run_mark_states>::chunk_items);
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), tile - 1, tile + 1, 5 * tile, ::backend::device_max_items() - 7}) {
    for (run_shape s : {run_shape::random_short, run_shape::random_long, run_shape::all_equal, run_shape::all_distinct}) {
      check_run_length<false>(n, s, g);
      check_run_length<true>(n, s, g);
      if (n < 20 * tile) {
        check_run_length<false, true>(n, s, g);
        check_run_length<true, true>(n, s, g);
      }
    }
  }
}

// Runs of 1000 over 2^32 + 5 items from an iterator: past 2^31 items the look-back
// uses the fenced tile states; closed-form answers.
BOOST_AUTO_TEST_CASE(counts_past_32_bits, *boost::unit_test::precondition(tk_test::huge_counts_wanted<::backend>)) {
  using namespace tk_test;
  const std::int64_t n = (std::int64_t(1) << 32) + 5, runs = (n + 999) / 1000;
  rbuf<long long> keys(std::size_t(runs) + 1, -7), lengths(std::size_t(runs) + 1, -7), num(1, -7);
  const auto launcher = ::backend::launcher();
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_run_length_encode<false>(launcher, nullptr, bytes, index_div_1000{}, n, keys.data(),
                                                         lengths.data(), num.data()) == launcher.success);
  rbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = tilekit::device_run_length_encode<false>(launcher, temp.data(), bytes, index_div_1000{}, n, keys.data(),
                                                          lengths.data(), num.data());
  ::backend::sync();
  const auto k = keys.to_host(), l = lengths.to_host();
  BOOST_TEST(e == launcher.success);
  BOOST_TEST(num.to_host()[0] == runs);
  std::size_t bad = 0;
  for (std::int64_t r = 0; r < runs; ++r)
    bad += k[std::size_t(r)] != r || l[std::size_t(r)] != (r + 1 < runs ? 1000 : n - 1000 * (runs - 1));
  BOOST_TEST(bad == 0u, bad << " runs differ from the closed form");
  BOOST_TEST(l[std::size_t(runs)] == -7, "wrote past the last run");
}

BOOST_AUTO_TEST_CASE(invalid_arguments_write_nothing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  rbuf<int> in(std::vector<int>(100, 1)), keys(100, poison<int>()), lengths(100, poison<int>()), runs(1, poison<int>());
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_run_length_encode<false>(launcher, nullptr, bytes, in.data(), 100, keys.data(), lengths.data(),
                                                         runs.data()) == launcher.success);
  rbuf<unsigned char> temp(bytes, 0);
  BOOST_TEST(tilekit::device_run_length_encode<false>(launcher, temp.data(), bytes, in.data(), -1, keys.data(), lengths.data(),
                                                      runs.data()) == ::backend::invalid_value);
  std::size_t query = 12345;  // a size query answers a negative count as the call does, and sets nothing
  BOOST_TEST(tilekit::device_run_length_encode<false>(launcher, nullptr, query, in.data(), -1, keys.data(), lengths.data(),
                                                      runs.data()) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_run_length_encode<true>(launcher, nullptr, query, in.data(), -1, keys.data(), lengths.data(),
                                                     runs.data()) == ::backend::invalid_value);
  BOOST_TEST(query == 12345u);
  BOOST_TEST(tilekit::device_run_length_encode<false>(launcher, temp.data(), bytes, in.data(), 100, keys.data(), lengths.data(),
                                                      static_cast<int*>(nullptr)) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_run_length_encode<true>(launcher, temp.data(), bytes, in.data(), 100, static_cast<int*>(nullptr),
                                                     lengths.data(), runs.data()) == ::backend::invalid_value);
  // A null input or lengths output with items, and too little storage.
  BOOST_TEST(tilekit::device_run_length_encode<false>(launcher, temp.data(), bytes, static_cast<const int*>(nullptr), 100,
                                                      keys.data(), lengths.data(), runs.data()) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_run_length_encode<false>(launcher, temp.data(), bytes, in.data(), 100, keys.data(),
                                                      static_cast<int*>(nullptr), runs.data()) == ::backend::invalid_value);
  std::size_t too_few = bytes - 1;
  BOOST_TEST(tilekit::device_run_length_encode<false>(launcher, temp.data(), too_few, in.data(), 100, keys.data(), lengths.data(),
                                                      runs.data()) == ::backend::invalid_value);
  ::backend::sync();
  BOOST_TEST(is_poison(runs.to_host()[0]));
  for (int v : keys.to_host()) BOOST_TEST(is_poison(v));
  for (int v : lengths.to_host()) BOOST_TEST(is_poison(v));
}

BOOST_AUTO_TEST_SUITE_END()
