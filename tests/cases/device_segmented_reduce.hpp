// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Segmented reduce, written once for both backends through the launcher-generic
// dispatch tilekit::device_segmented_reduce: empty, single-item, short and long
// segments side by side, gaps and overlaps between them, 64-bit offsets, several
// types and operators, invalid arguments. References: sequential CPU folds.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/device/segmented_reduce.cuh>

namespace tk_test {

template <class T>
using segbuf = typename ::backend::template buffer<T>;

/// Segments over n items: lengths mostly short (0-40), some empty, a few long (up to a
/// tenth of n), with gaps between them; with overlap, each segment also reaches back
/// into the one before; with reversed, some empty segments end before they begin
/// (tilekit: empty; CUB: undefined, only end == begin is empty there).
inline void make_segments(std::int64_t n, std::int64_t segments, bool overlap, std::mt19937_64& g,
                          std::vector<long long>& begins, std::vector<long long>& ends, bool reversed = true) {
  begins.clear();
  ends.clear();
  long long at = 0;
  for (std::int64_t s = 0; s < segments; ++s) {
    const unsigned kind = unsigned(g() % 10);
    long long length = kind == 0 ? 0 : kind == 1 ? 1 : kind == 2 ? (long long)(g() % std::uint64_t(n / 10 + 1)) : (long long)(g() % 41);
    long long first = at + (long long)(g() % 3);
    if (overlap && first > 5) first -= 5;
    if (first > n) first = n;
    if (first + length > n) length = n - first;
    begins.push_back(first);
    ends.push_back(reversed && kind == 0 && g() % 2 ? first - 1 : first + length);
    at = first + length;
  }
}

template <class T, class Op>
void check_segmented_reduce(Op op, T init, std::int64_t n, std::int64_t segments, bool overlap, const char* what) {
  auto g = rng_for(next_salt());
  std::vector<T> data = random_vector<T>(std::size_t(n) + 1, g);
  if constexpr (std::is_floating_point_v<T>)
    for (auto& x : data) x = T(double(std::int64_t(g() % 7) - 3) * 0.5);  // exact sums in any order
  std::vector<long long> begins, ends;
  make_segments(n, segments, overlap, g, begins, ends);
  std::vector<T> want(static_cast<std::size_t>(segments));
  for (std::int64_t s = 0; s < segments; ++s) {
    T acc = init;
    for (long long i = begins[std::size_t(s)]; i < ends[std::size_t(s)]; ++i) acc = op(acc, data[std::size_t(i)]);
    want[std::size_t(s)] = acc;
  }
  segbuf<T> d_in(data), d_out(std::size_t(segments) + 1, poison<T>());
  segbuf<long long> d_begins(begins.empty() ? std::vector<long long>(1) : begins), d_ends(ends.empty() ? std::vector<long long>(1) : ends);
  const auto launcher = ::backend::launcher();
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_segmented_reduce(launcher, nullptr, bytes, d_in.data(), segments, d_begins.data(),
                                                 d_ends.data(), d_out.data(), op, init) == launcher.success);
  segbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = tilekit::device_segmented_reduce(launcher, temp.data(), bytes, d_in.data(), segments, d_begins.data(),
                                                  d_ends.data(), d_out.data(), op, init);
  ::backend::sync();
  const auto got = d_out.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " segmented reduce " << what << " " << type_name<T>() << " n=" << n
                                     << " segments=" << segments << (overlap ? " overlapping" : "")
                                     << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    mismatch_log log;
    for (std::int64_t s = 0; s < segments; ++s)
      if (!(got[std::size_t(s)] == want[std::size_t(s)])) log.expect(got[std::size_t(s)], want[std::size_t(s)], "segment " + std::to_string(s));
    log.expect_true(is_poison(got[std::size_t(segments)]), "wrote past the last segment");
    BOOST_TEST(log.count == 0u);
  }
}

struct max_of_abs {  // associative and commutative, not a built-in operator
  TILEKIT_HD int operator()(int a, int b) const { return (a < 0 ? -a : a) > (b < 0 ? -b : b) ? (a < 0 ? -a : a) : (b < 0 ? -b : b); }
};

// Segmented ArgMin / ArgMax through device_segmented_arg over segment counts that take the block-per-segment
// and the warp-per-segment shapes, against a sequential CPU loop; values compared bitwise.
template <class T, class Make>
void check_segmented_arg(std::mt19937_64& g, Make make) {
  const auto launcher = ::backend::launcher();
  const std::int64_t n = std::int64_t(std::min<std::size_t>(::backend::device_max_items(), std::size_t(1) << 18));
  const std::int64_t sms = std::int64_t(launcher.sm_count());  // sm_count x 4, 8: 4 and 2 warps per segment
  for (std::int64_t segments : {std::int64_t(1), std::int64_t(300), std::int64_t(3000), sms * 4, sms * 8}) {
    std::vector<T> data(std::size_t(n) + 1);
    for (auto& x : data) x = make(g());
    std::vector<long long> begins, ends;
    make_segments(n, segments, true, g, begins, ends);
    segbuf<T> d_in(data), values(std::size_t(segments) + 1, poison<T>());
    segbuf<long long> d_b(begins), d_e(ends), index(std::size_t(segments) + 1, poison<long long>());
    for (bool max : {false, true}) {
      auto call = [&](void* temp, std::size_t& bytes) {
        return max ? tilekit::device_segmented_arg<true>(launcher, temp, bytes, d_in.data(), segments, d_b.data(), d_e.data(),
                                                         values.data(), index.data())
                   : tilekit::device_segmented_arg<false>(launcher, temp, bytes, d_in.data(), segments, d_b.data(), d_e.data(),
                                                          values.data(), index.data());
      };
      std::size_t bytes = 0;
      BOOST_REQUIRE(call(nullptr, bytes) == launcher.success);
      segbuf<unsigned char> temp(bytes, 0xCD);
      const auto e = call(temp.data(), bytes);
      ::backend::sync();
      const auto got_v = values.to_host();
      const auto got_i = index.to_host();
      BOOST_TEST_CONTEXT(::backend::name << " segmented arg " << (max ? "max" : "min") << ", " << segments
                                         << " segments of " << type_name<T>() << ", TILEKIT_TEST_SEED=" << base_seed()) {
        BOOST_TEST(e == launcher.success);
        mismatch_log log;
        for (std::int64_t s = 0; s < segments; ++s) {
          const long long b = begins[std::size_t(s)], en = ends[std::size_t(s)];
          T want_v = max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
          long long want_i = 1;
          for (long long i = b; i < en; ++i) {
            const T x = data[std::size_t(i)];
            if (i == b || (max ? x > want_v : x < want_v)) {
              want_v = x;
              want_i = i - b;
            }
          }
          log.expect_true(same_value(got_v[std::size_t(s)], want_v), "value of segment " + std::to_string(s));
          log.expect(got_i[std::size_t(s)], want_i, "offset of segment " + std::to_string(s));
        }
        log.expect_true(is_poison(got_v[std::size_t(segments)]) && is_poison(got_i[std::size_t(segments)]),
                        "wrote past the last segment");
        BOOST_TEST(log.count == 0u);
      }
    }
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_segmented_reduce)

BOOST_AUTO_TEST_CASE(segment_layouts_types_and_operators) {
  using namespace tk_test;
  const std::int64_t n = std::int64_t(std::min<std::size_t>(::backend::device_max_items(), std::size_t(1) << 20));
  // sm_count x 4, 8, 16: the counts where the dispatch gives a segment 8, 4 and 2 warps (sums) or 4, 2 and 1 (ArgMin).
  const std::int64_t sms = std::int64_t(::backend::launcher().sm_count());
  for (std::int64_t segments : {std::int64_t(0), std::int64_t(1), std::int64_t(7), std::int64_t(300), std::int64_t(5000), sms * 4,
                                sms * 8, sms * 16}) {
    check_segmented_reduce<int>(tilekit::plus{}, 0, n, segments, false, "plus");
    check_segmented_reduce<int>(max_of_abs{}, 0, n, segments, true, "max |x|");
    check_segmented_reduce<long long>(tilekit::minimum{}, std::numeric_limits<long long>::max(), n, segments, false, "min");
    check_segmented_reduce<double>(tilekit::plus{}, 0.5, n, segments, true, "plus, init 0.5");
    check_segmented_reduce<unsigned char>(tilekit::maximum{}, (unsigned char)0, n, segments, false, "max");
  }
}

BOOST_AUTO_TEST_CASE(arg_min_and_arg_max) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  check_segmented_arg<int>(g, [](std::uint64_t r) { return int(r % 50); });  // many ties: the first extremum must win
  // Floats: ties, and -0 / +0, which tie under < (the first wins, its sign kept).
  check_segmented_arg<float>(g, [](std::uint64_t r) { return r % 7 == 0 ? (r % 2 ? -0.0f : 0.0f) : float(int(r % 40) - 20) * 0.25f; });
}

BOOST_AUTO_TEST_CASE(one_segment_longer_than_a_block_pass) {
  using namespace tk_test;
  // Segments of exactly 1, the block size - 1, + 1 and many times it, one after another.
  const auto launcher = ::backend::launcher();
  const long long T = tilekit::segmented_reduce_tuning::threads;
  std::vector<long long> begins = {0, 1, T, 2 * T + 1, 3 * T + 2}, ends = {1, T, 2 * T + 1, 3 * T + 2, 3 * T + 2 + 37 * T + 5};
  const std::int64_t n = ends.back();
  std::vector<int> data(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) data[std::size_t(i)] = int(i % 17) - 8;
  segbuf<int> d_in(data), d_out(begins.size(), poison<int>());
  segbuf<long long> d_b(begins), d_e(ends);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_segmented_reduce(launcher, nullptr, bytes, d_in.data(), std::int64_t(begins.size()),
                                                 d_b.data(), d_e.data(), d_out.data(), tilekit::plus{}, 3) == launcher.success);
  segbuf<unsigned char> temp(bytes, 0xCD);
  BOOST_TEST(tilekit::device_segmented_reduce(launcher, temp.data(), bytes, d_in.data(), std::int64_t(begins.size()),
                                              d_b.data(), d_e.data(), d_out.data(), tilekit::plus{}, 3) == launcher.success);
  ::backend::sync();
  const auto got = d_out.to_host();
  for (std::size_t s = 0; s < begins.size(); ++s) {
    int want = 3;
    for (long long i = begins[s]; i < ends[s]; ++i) want += data[std::size_t(i)];
    BOOST_TEST(got[s] == want, ::backend::name << " segment " << s << " [" << begins[s] << ", " << ends[s] << ")");
  }
}

BOOST_AUTO_TEST_CASE(invalid_arguments_write_nothing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  segbuf<int> in(std::vector<int>(8, 1)), out(2, poison<int>());
  segbuf<long long> b(std::vector<long long>{0, 4}), e(std::vector<long long>{4, 8});
  std::size_t bytes = 0;
  BOOST_TEST(tilekit::device_segmented_reduce(launcher, nullptr, bytes, in.data(), -1, b.data(), e.data(), out.data(),
                                              tilekit::plus{}, 0) == ::backend::invalid_value);
  BOOST_REQUIRE(tilekit::device_segmented_reduce(launcher, nullptr, bytes, in.data(), 2, b.data(), e.data(), out.data(),
                                                 tilekit::plus{}, 0) == launcher.success);
  segbuf<unsigned char> temp(bytes, 0xCD);
  const long long* no_offsets = nullptr;
  const int* no_in = nullptr;
  BOOST_TEST(tilekit::device_segmented_reduce(launcher, temp.data(), bytes, in.data(), -1, b.data(), e.data(), out.data(),
                                              tilekit::plus{}, 0) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_segmented_reduce(launcher, temp.data(), bytes, in.data(), 2, no_offsets, e.data(), out.data(),
                                              tilekit::plus{}, 0) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_segmented_reduce(launcher, temp.data(), bytes, in.data(), 2, b.data(), no_offsets, out.data(),
                                              tilekit::plus{}, 0) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_segmented_reduce(launcher, temp.data(), bytes, no_in, 2, b.data(), e.data(), out.data(),
                                              tilekit::plus{}, 0) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_segmented_reduce(launcher, temp.data(), bytes, in.data(), 2, b.data(), e.data(),
                                              static_cast<int*>(nullptr), tilekit::plus{}, 0) == ::backend::invalid_value);
  std::size_t none = 0;  // a non-null temp of 0 bytes: less than the size query's 1
  BOOST_TEST(tilekit::device_segmented_reduce(launcher, temp.data(), none, in.data(), 2, b.data(), e.data(), out.data(),
                                              tilekit::plus{}, 0) == ::backend::invalid_value);
  ::backend::sync();
  const auto got = out.to_host();
  BOOST_TEST((is_poison(got[0]) && is_poison(got[1])), ::backend::name << ": a rejected call wrote its output");
}

BOOST_AUTO_TEST_SUITE_END()
