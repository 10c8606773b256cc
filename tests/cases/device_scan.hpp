// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide scans (one pass, decoupled look-back), written once for both
// backends through the launcher-generic dispatch tilekit::device_scan: inclusive,
// inclusive with init, exclusive with init; sizes around tile boundaries and
// many tiles; in place; misaligned pointers; an iterator input; a
// non-commutative operator; invalid arguments. References: sequential CPU scans.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/device/scan.cuh>

#include <cmath>

namespace tk_test {

template <class T>
using sbuf = typename ::backend::template buffer<T>;

enum class scan_kind { inclusive, inclusive_init, exclusive_init };
inline const char* name(scan_kind k) {
  return k == scan_kind::inclusive ? "inclusive" : k == scan_kind::inclusive_init ? "inclusive(init)" : "exclusive(init)";
}

/// large: the public dispatch (which picks the chunks' shape by n), or (where the items have
/// one, detail::scan_shape's has_large) the large shape whatever n.
template <class In, class Out, class T, class Op>
auto run_device_scan(scan_kind kind, In in, std::int64_t n, Out out, Op op, T init, bool large = false,
                     decltype(::backend::launcher()) launcher = ::backend::launcher()) {
  const bool has_init = kind != scan_kind::inclusive;
  std::size_t bytes = 0;
  auto scan = [&](void* temp) {
    if constexpr (tilekit::detail::scan_shape<In, T>::has_large) {
      if (large)
        return kind == scan_kind::exclusive_init
                   ? tilekit::detail::scan_in_shape<false, true>(launcher, temp, bytes, in, n, out, op, init, true, static_cast<const T*>(nullptr))
                   : tilekit::detail::scan_in_shape<true, true>(launcher, temp, bytes, in, n, out, op, init, has_init, static_cast<const T*>(nullptr));
    }
    return kind == scan_kind::exclusive_init ? tilekit::device_scan<false>(launcher, temp, bytes, in, n, out, op, init, true)
                                             : tilekit::device_scan<true>(launcher, temp, bytes, in, n, out, op, init, has_init);
  };
  BOOST_REQUIRE(scan(nullptr) == launcher.success);
  sbuf<unsigned char> temp(bytes, 0xCD);  // poisoned: the dispatch zeroes the tile states itself
  const auto e = scan(temp.data());
  ::backend::sync();
  return e;
}

template <class T, class Op>
std::vector<T> reference_scan(scan_kind kind, const T* x, std::int64_t n, Op op, T init) {
  std::vector<T> r;
  r.reserve(std::size_t(n));
  T run = init;
  for (std::int64_t i = 0; i < n; ++i) {
    if (kind == scan_kind::exclusive_init) {
      r.push_back(run);
      run = op(run, x[i]);
    } else {
      run = (i == 0 && kind == scan_kind::inclusive) ? x[0] : op(run, x[i]);
      r.push_back(run);
    }
  }
  return r;
}

template <class T>
bool scan_matches(const T& got, const T& want, double scale) {
  if constexpr (std::is_floating_point_v<T>) return std::fabs(double(got) - double(want)) <= 1e-5 * scale + 1e-3;
  else return got == want;
}

template <class T, class Op>
void check_device_scan_type(Op op, const char* what) {
  auto g = rng_for(next_salt());
  const std::size_t max_n = std::min<std::size_t>(::backend::device_max_items(), std::size_t(1) << 22);
  const std::int64_t tile = tilekit::detail::scan_shape<const T*, T>::chunk;
  std::vector<T> data = random_vector<T>(max_n + 8, g);
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 4)
    for (auto& x : data) x = static_cast<T>(x % 1000);
  const T init = random_value<T>(g);
  sbuf<T> d_in(data);
  std::vector<std::int64_t> sizes = {0, 1, 2, 31, 33, tile - 1, tile, tile + 1, 2 * tile, 33 * tile + 5, 65 * tile - 1,
                                     std::int64_t(max_n), std::int64_t(g() % max_n)};
  // Items with a large shape (scan_tuning::large_*): it too around its chunk, whatever n.
  std::vector<std::int64_t> large_sizes;
  if constexpr (tilekit::detail::scan_shape<const T*, T>::has_large) {
    const std::int64_t large = tilekit::detail::scan_shape<const T*, T, true>::chunk;
    large_sizes = {1, 33, large - 1, large, large + 1, 17 * large + 5};
  }
  for (bool large : {false, true}) {
    for (std::int64_t n : large ? large_sizes : sizes) {
      if (n > std::int64_t(max_n)) continue;
      for (scan_kind kind : {scan_kind::inclusive, scan_kind::inclusive_init, scan_kind::exclusive_init}) {
        for (int run = 0; run < 3; ++run) {  // aligned; input one item off 16 bytes; output one item off
          const std::int64_t offset = run == 1 ? 1 : 0, out_offset = run == 2 ? 1 : 0;
          sbuf<T> d_out(std::size_t(n) + 2, poison<T>());
          const auto e = run_device_scan(kind, d_in.data() + offset, n, d_out.data() + out_offset, op, init, large);
          auto got = d_out.to_host();
          got.erase(got.begin(), got.begin() + out_offset);
          const auto want = reference_scan(kind, data.data() + offset, n, op, init);
          BOOST_TEST_CONTEXT(::backend::name << " device scan " << name(kind) << " " << what << " " << type_name<T>() << " n=" << n
                                             << " offset=" << offset << " out offset=" << out_offset << (large ? ", large shape" : "")
                                             << ", TILEKIT_TEST_SEED=" << base_seed()) {
            BOOST_TEST(e == ::backend::launcher().success);
            mismatch_log log;
            double scale = 0;
            if constexpr (std::is_floating_point_v<T>) scale = std::fabs(double(init));
            for (std::int64_t i = 0; i < n; ++i) {
              if constexpr (std::is_floating_point_v<T>) scale += std::fabs(double(data[offset + i]));
              if (!scan_matches(got[i], want[i], scale))  // the message only for a mismatch: millions of items
                log.expect_true(false, "item " + std::to_string(i) + ": got " + show(got[i]) + ", want " + show(want[i]));
            }
            log.expect_true(is_poison(got[n]), "wrote past the end");
            BOOST_TEST(log.count == 0u);
          }
        }
      }
    }
  }
}

/// in[i] = i % 13 - 6 from an iterator.
struct mod_13 {
  TILEKIT_HD int operator[](std::int64_t i) const { return int(i % 13) - 6; }
  TILEKIT_HD int operator*() const { return -6; }
};

/// An output iterator that writes nothing and counts the items that differ from
/// mod_1000's inclusive sums in closed form.
struct check_against_closed_form {
  unsigned long long* wrong;
  struct slot {
    unsigned long long* wrong;
    std::int64_t i;
    TILEKIT_HD void operator=(std::int64_t v) const {
      if (v != mod_1000_sum(i + 1)) {
#if TILEKIT_DEVICE_PASS
        atomicAdd(wrong, 1ull);
#else
        ++*wrong;
#endif
      }
    }
  };
  TILEKIT_HD slot operator[](std::int64_t i) const { return {wrong, i}; }
};

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_scan)

BOOST_AUTO_TEST_CASE(counts_past_32_bits, *boost::unit_test::precondition(tk_test::huge_counts_wanted<::backend>)) {
  using namespace tk_test;
  for (std::int64_t n : {(std::int64_t(1) << 32) + 5}) {
    sbuf<unsigned long long> wrong(1, 0ull);
    const auto e = run_device_scan(scan_kind::inclusive, mod_1000{0}, n, check_against_closed_form{wrong.data()},
                                   tilekit::plus{}, std::int64_t(0));
    BOOST_TEST_CONTEXT(::backend::name << " device scan of an iterator, n=" << n) {
      BOOST_TEST(e == ::backend::launcher().success);
      BOOST_TEST(wrong.to_host()[0] == 0ull);
    }
  }
}

BOOST_AUTO_TEST_CASE(types_and_operators) {
  using namespace tk_test;
  check_device_scan_type<std::int32_t>(tilekit::plus{}, "plus");
  check_device_scan_type<std::int32_t>(tilekit::maximum{}, "maximum");
  check_device_scan_type<std::uint32_t>(custom_plus{}, "custom plus");
  check_device_scan_type<std::int64_t>(tilekit::plus{}, "plus");
  check_device_scan_type<double>(tilekit::plus{}, "plus");
  check_device_scan_type<float>(tilekit::plus{}, "plus");
  check_device_scan_type<mat2>(mat_mul{}, "matrix product (not commutative)");
  check_device_scan_type<std::int8_t>(custom_plus{}, "custom plus (wraps)");
  check_device_scan_type<std::uint8_t>(tilekit::maximum{}, "maximum");
  check_device_scan_type<std::int16_t>(custom_plus{}, "custom plus (wraps)");
}

BOOST_AUTO_TEST_CASE(in_place_and_iterator_input) {
  using namespace tk_test;
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 4) + 77;
  std::vector<int> h(std::size_t(n), 0);
  for (std::int64_t i = 0; i < n; ++i) h[std::size_t(i)] = int(i % 13) - 6;
  sbuf<int> d(h);
  BOOST_TEST(run_device_scan(scan_kind::inclusive, d.data(), n, d.data(), tilekit::plus{}, 0) == ::backend::launcher().success);
  const auto got = d.to_host();
  const auto want = reference_scan(scan_kind::inclusive, h.data(), n, tilekit::plus{}, 0);
  BOOST_TEST(got == want);
  sbuf<int> out(std::size_t(n), poison<int>());
  BOOST_TEST(run_device_scan(scan_kind::exclusive_init, mod_13{}, n, out.data(), tilekit::plus{}, 100) == ::backend::launcher().success);
  BOOST_TEST(out.to_host() == reference_scan(scan_kind::exclusive_init, h.data(), n, tilekit::plus{}, 100));
}

// Temporary storage at any alignment, as CUB takes it: the dispatch aligns its pieces
// inside the buffer (the queried size has room for that). 4-byte (packed) and 8-byte
// (16-byte pairs) chunk states; several chunks.
BOOST_AUTO_TEST_CASE(temporary_storage_at_any_alignment) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 8) + 5;
  std::vector<int> h(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) h[std::size_t(i)] = int(i % 17) - 8;
  std::vector<long long> h64(h.begin(), h.end());
  sbuf<int> in(h), out(std::size_t(n), poison<int>());
  sbuf<long long> in64(h64), out64(std::size_t(n), poison<long long>());
  for (std::size_t offset : {1u, 8u, 100u}) {
    std::size_t bytes = 0, bytes64 = 0;
    BOOST_REQUIRE(tilekit::device_scan<true>(launcher, nullptr, bytes, in.data(), n, out.data(), tilekit::plus{}, 0, false) ==
                  launcher.success);
    BOOST_REQUIRE(tilekit::device_scan<true>(launcher, nullptr, bytes64, in64.data(), n, out64.data(), tilekit::plus{}, 0ll,
                                             false) == launcher.success);
    sbuf<unsigned char> temp(std::max(bytes, bytes64) + offset, 0xCD);
    BOOST_TEST_CONTEXT(::backend::name << " device scan, temporary storage " << offset << " bytes past an allocation") {
      BOOST_TEST(tilekit::device_scan<true>(launcher, temp.data() + offset, bytes, in.data(), n, out.data(), tilekit::plus{}, 0,
                                            false) == launcher.success);
      BOOST_TEST(tilekit::device_scan<true>(launcher, temp.data() + offset, bytes64, in64.data(), n, out64.data(),
                                            tilekit::plus{}, 0ll, false) == launcher.success);
      ::backend::sync();
      BOOST_TEST(out.to_host() == reference_scan(scan_kind::inclusive, h.data(), n, tilekit::plus{}, 0));
      BOOST_TEST(out64.to_host() == reference_scan(scan_kind::inclusive, h64.data(), n, tilekit::plus{}, 0ll));
    }
  }
}

// One temporary storage reused by call after call, never cleared: each call's chunk states
// must ignore those the calls before it left (the storage needs no zeroing). Sizes that
// shrink and grow, 4-, 8- and 16-byte values (one 16-byte word per state, or values apart
// from their tag).
BOOST_AUTO_TEST_CASE(storage_reused_without_clearing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher_later_blocks_first();  // the simulator: later chunks poll first
  auto g = rng_for(next_salt());
  const std::int64_t max_n = std::int64_t(std::min<std::size_t>(::backend::device_max_items(), std::size_t(1) << 21));
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_scan<true>(launcher, nullptr, bytes, static_cast<const mat2*>(nullptr), max_n,
                                           static_cast<mat2*>(nullptr), mat_mul{}, mat2{}, false) == launcher.success);
  sbuf<unsigned char> temp(bytes, 0xCD);  // the largest states of the three types
  auto check = [&](auto zero, auto op, std::int64_t n, int call) {
    using T = decltype(zero);
    std::vector<T> h = random_vector<T>(std::size_t(n), g);
    if constexpr (std::is_integral_v<T>) for (auto& x : h) x = static_cast<T>(x % 1000);
    sbuf<T> in(h), out(std::size_t(n), poison<T>());
    std::size_t b = bytes;
    const auto e = tilekit::device_scan<true>(launcher, temp.data(), b, in.data(), n, out.data(), op, zero, false);
    ::backend::sync();
    BOOST_TEST_CONTEXT(::backend::name << " device scan, call " << call << " on reused storage, " << type_name<T>() << " n=" << n
                                       << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(e == launcher.success);
      BOOST_TEST((out.to_host() == reference_scan(scan_kind::inclusive, h.data(), n, op, zero)));
    }
  };
  int call = 0;
  for (std::int64_t n : {max_n, max_n, max_n / 3 + 7, max_n, std::int64_t(1000)}) {
    check(0, tilekit::plus{}, n, call++);
    check(0ll, tilekit::plus{}, n, call++);
    check(mat2{}, mat_mul{}, n / 4 + 1, call++);
  }
}

// An exclusive scan whose init the kernel reads from memory (CUB's FutureValue): the value
// stored there, not the one passed, seeds the scan.
BOOST_AUTO_TEST_CASE(init_read_when_the_kernel_runs) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  auto g = rng_for(next_salt());
  for (std::int64_t n : {std::int64_t(1), std::int64_t(5000), std::int64_t(::backend::device_max_items() / 3)}) {
    std::vector<long long> h(static_cast<std::size_t>(n));
    for (auto& x : h) x = (long long)(g() % 1000);
    const long long init = (long long)(g() % 100000) + 1;
    sbuf<long long> in(h), out(std::size_t(n) + 1, poison<long long>()), init_at(std::vector<long long>{init});
    std::size_t bytes = 0;
    BOOST_REQUIRE(tilekit::device_scan<false>(launcher, nullptr, bytes, in.data(), n, out.data(), tilekit::plus{}, 0ll, true,
                                              static_cast<const long long*>(init_at.data())) == launcher.success);
    sbuf<unsigned char> temp(bytes, 0xCD);
    // The init passed by value (-1) is not the one used: *init_from is.
    const auto e = tilekit::device_scan<false>(launcher, temp.data(), bytes, in.data(), n, out.data(), tilekit::plus{}, -1ll,
                                               true, static_cast<const long long*>(init_at.data()));
    ::backend::sync();
    BOOST_TEST_CONTEXT(::backend::name << " exclusive scan, init from memory, n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(e == launcher.success);
      auto got = out.to_host();
      BOOST_TEST(is_poison(got[std::size_t(n)]));
      got.pop_back();
      BOOST_TEST(got == reference_scan(scan_kind::exclusive_init, h.data(), n, tilekit::plus{}, init));
    }
  }
}

BOOST_AUTO_TEST_CASE(invalid_arguments_write_nothing) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  sbuf<int> in(std::vector<int>(100, 1)), out(100, poison<int>());
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_scan<true>(launcher, nullptr, bytes, in.data(), 100, out.data(), tilekit::plus{}, 0, false) == launcher.success);
  sbuf<unsigned char> temp(bytes, 0);
  BOOST_TEST(tilekit::device_scan<true>(launcher, temp.data(), bytes, in.data(), -1, out.data(), tilekit::plus{}, 0, false) == ::backend::invalid_value);
  std::size_t query = 12345;  // a size query answers a negative count as the call does, and sets nothing
  BOOST_TEST(tilekit::device_scan<true>(launcher, nullptr, query, in.data(), -1, out.data(), tilekit::plus{}, 0, false) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_scan<false>(launcher, nullptr, query, in.data(), 100, out.data(), tilekit::plus{}, 0, false) ==
             ::backend::invalid_value);  // exclusive needs an init
  BOOST_TEST(query == 12345u);
  BOOST_TEST(tilekit::device_scan<true>(launcher, temp.data(), bytes, static_cast<const int*>(nullptr), 100, out.data(),
                                        tilekit::plus{}, 0, false) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_scan<true>(launcher, temp.data(), bytes, in.data(), 100, static_cast<int*>(nullptr),
                                        tilekit::plus{}, 0, false) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_scan<false>(launcher, temp.data(), bytes, in.data(), 100, out.data(), tilekit::plus{}, 0, false) ==
             ::backend::invalid_value);  // exclusive needs an init
  std::size_t too_few = bytes - 1;
  BOOST_TEST(tilekit::device_scan<true>(launcher, temp.data(), too_few, in.data(), 100, out.data(), tilekit::plus{}, 0, false) ==
             ::backend::invalid_value);
  ::backend::sync();
  for (int v : out.to_host()) BOOST_TEST(is_poison(v));
}

BOOST_AUTO_TEST_SUITE_END()
