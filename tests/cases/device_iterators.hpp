// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every device algorithm through a pointer-like iterator whose reference is a proxy,
// as inputs and outputs: on the GPU thrust::device_ptr<T> (read and written as its
// raw pointer), in the simulator tk_test::proxy_ptr<T> (read and written through
// its proxy reference, element by element). Each result is checked against the
// same call on raw pointers and against a CPU reference.
// The including file defines `using backend = ...;` with
//   template <class T> static auto pointer_like(T* p);   the pointer-like iterator over p
#pragma once
#include "tile_common.hpp"

#include <tilekit/device/distinct.cuh>
#include <tilekit/device/histogram.cuh>
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/run_length_encode.cuh>
#include <tilekit/device/scan.cuh>
#include <tilekit/device/select.cuh>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace tk_test {

template <class T>
using ibuf = typename ::backend::template buffer<T>;

struct odd {
  TILEKIT_HD bool operator()(int x) const { return (x & 1) != 0; }
};

// Runs call(temp, bytes) through both phases with poisoned temporary storage.
template <class Call>
void run_two_phases(Call call) {
  const auto launcher = ::backend::launcher();
  std::size_t bytes = 0;
  BOOST_REQUIRE(call(nullptr, bytes) == launcher.success);
  ibuf<unsigned char> temp(bytes, 0xCD);
  BOOST_REQUIRE(call(temp.data(), bytes) == launcher.success);
  ::backend::sync();
}

inline std::vector<int> runs_of_small_values(std::size_t n, std::mt19937_64& g) {
  std::vector<int> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = (i > 0 && g() % 3 != 0) ? v[i - 1] : int(g() % 50);
  return v;
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_iterators)

BOOST_AUTO_TEST_CASE(reduce_and_count) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 2 + 13);
  const std::vector<int> x = runs_of_small_values(std::size_t(n), g);
  ibuf<int> in(x);
  ibuf<long long> out(2, poison<long long>());
  const auto launcher = ::backend::launcher();
  run_two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_reduce(launcher, t, b, ::backend::pointer_like(in.data()), n, ::backend::pointer_like(out.data()),
                                  tilekit::plus{}, 0ll);
  });
  run_two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_count_if(launcher, t, b, ::backend::pointer_like(in.data()), n, ::backend::pointer_like(out.data() + 1), odd{});
  });
  const auto got = out.to_host();
  BOOST_TEST_CONTEXT("n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(got[0] == std::accumulate(x.begin(), x.end(), 0ll));
    BOOST_TEST(got[1] == std::count_if(x.begin(), x.end(), [](int v) { return (v & 1) != 0; }));
  }
}

BOOST_AUTO_TEST_CASE(scans) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 2 + 29);
  const std::vector<int> x = runs_of_small_values(std::size_t(n), g);
  ibuf<int> in(x), inc(std::size_t(n), poison<int>()), exc(std::size_t(n), poison<int>());
  const auto launcher = ::backend::launcher();
  run_two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_scan<true>(launcher, t, b, ::backend::pointer_like(in.data()), n, ::backend::pointer_like(inc.data()),
                                      tilekit::plus{}, 0, false);
  });
  run_two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_scan<false>(launcher, t, b, ::backend::pointer_like(in.data()), n, ::backend::pointer_like(exc.data()),
                                       tilekit::plus{}, 7, true);
  });
  std::vector<int> want_inc(x.size()), want_exc(x.size());
  std::inclusive_scan(x.begin(), x.end(), want_inc.begin());
  std::exclusive_scan(x.begin(), x.end(), want_exc.begin(), 7);
  BOOST_TEST_CONTEXT("n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(inc.to_host() == want_inc);
    BOOST_TEST(exc.to_host() == want_exc);
  }
}

BOOST_AUTO_TEST_CASE(select_flagged_unique_partition) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 2 + 5);
  const std::vector<int> x = runs_of_small_values(std::size_t(n), g);
  std::vector<unsigned char> f(x.size());
  for (auto& v : f) v = g() % 2;
  ibuf<int> in(x);
  ibuf<unsigned char> flags(f);
  const auto launcher = ::backend::launcher();
  for (int kind = 0; kind < 4; ++kind) {
    ibuf<int> out(std::size_t(n), poison<int>());
    ibuf<std::int64_t> count(1, poison<std::int64_t>());
    auto call = [&](auto keep, bool partition) {
      run_two_phases([&](void* t, std::size_t& b) {
        auto select = [&](auto partition_tag) {
          return tilekit::device_select<decltype(partition_tag)::value>(launcher, t, b, ::backend::pointer_like(in.data()), n,
                                                                        ::backend::pointer_like(out.data()),
                                                                        ::backend::pointer_like(count.data()), keep);
        };
        return partition ? select(std::true_type{}) : select(std::false_type{});
      });
    };
    std::vector<int> want, rejected;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const bool kept = kind == 1 ? f[i] != 0 : kind == 2 ? (i == 0 || x[i] != x[i - 1]) : (x[i] & 1) != 0;
      (kept ? want : rejected).push_back(x[i]);
    }
    if (kind == 0) call(tilekit::keep_if<odd>{odd{}}, false);
    if (kind == 1) call(tilekit::keep_flagged<decltype(::backend::pointer_like(flags.data()))>{::backend::pointer_like(flags.data())}, false);
    if (kind == 2) call(tilekit::keep_unique<tilekit::equal_to>{tilekit::equal_to{}}, false);
    if (kind == 3) {
      call(tilekit::keep_if<odd>{odd{}}, true);
      want.insert(want.end(), rejected.rbegin(), rejected.rend());  // the rejected items in reverse order, as CUB
    }
    const std::int64_t kept = count.to_host()[0];
    std::vector<int> got = out.to_host();
    if (kind != 3) got.resize(std::size_t(std::max<std::int64_t>(kept, 0)));
    BOOST_TEST_CONTEXT("kind " << kind << " n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(kept == std::int64_t(kind == 3 ? want.size() - rejected.size() : want.size()));
      BOOST_TEST(got == want);
    }
  }
}

BOOST_AUTO_TEST_CASE(histogram_even) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 2 + 3);
  std::vector<int> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = int(g() % 1200) - 100;
  ibuf<int> in(x);
  ibuf<unsigned> counters(100, poison<unsigned>());
  const auto launcher = ::backend::launcher();
  run_two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_histogram(launcher, t, b, ::backend::pointer_like(in.data()), n, counters.data(), 100,
                                     tilekit::even_bins<int, int>(101, 0, 1000));
  });
  std::vector<unsigned> want(100, 0);
  for (int v : x)
    if (v >= 0 && v < 1000) ++want[std::size_t(v / 10)];
  BOOST_TEST_CONTEXT("n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) { BOOST_TEST(counters.to_host() == want); }
}

BOOST_AUTO_TEST_CASE(run_length_encode_both_kinds) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 2 + 11);
  const std::vector<int> x = runs_of_small_values(std::size_t(n), g);
  std::vector<int> keys;
  std::vector<std::int64_t> lengths, starts;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (i == 0 || x[i] != x[i - 1]) keys.push_back(x[i]), lengths.push_back(0), starts.push_back(std::int64_t(i));
    ++lengths.back();
  }
  ibuf<int> in(x);
  const auto launcher = ::backend::launcher();
  {
    ibuf<int> keys_out(std::size_t(n), poison<int>());
    ibuf<std::int64_t> lengths_out(std::size_t(n), poison<std::int64_t>()), runs(1, poison<std::int64_t>());
    run_two_phases([&](void* t, std::size_t& b) {
      return tilekit::device_run_length_encode<false>(launcher, t, b, ::backend::pointer_like(in.data()), n,
                                                      ::backend::pointer_like(keys_out.data()),
                                                      ::backend::pointer_like(lengths_out.data()), ::backend::pointer_like(runs.data()));
    });
    std::vector<int> got_keys = keys_out.to_host();
    std::vector<std::int64_t> got_lengths = lengths_out.to_host();
    got_keys.resize(keys.size());
    got_lengths.resize(keys.size());
    BOOST_TEST_CONTEXT("encode n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(runs.to_host()[0] == std::int64_t(keys.size()));
      BOOST_TEST(got_keys == keys);
      BOOST_TEST(got_lengths == lengths);
    }
  }
  {
    std::vector<std::int64_t> offsets, long_lengths;
    for (std::size_t r = 0; r < keys.size(); ++r)
      if (lengths[r] > 1) offsets.push_back(starts[r]), long_lengths.push_back(lengths[r]);
    ibuf<std::int64_t> offsets_out(std::size_t(n), poison<std::int64_t>()), lengths_out(std::size_t(n), poison<std::int64_t>()),
        runs(1, poison<std::int64_t>());
    run_two_phases([&](void* t, std::size_t& b) {
      return tilekit::device_run_length_encode<true>(launcher, t, b, ::backend::pointer_like(in.data()), n,
                                                     ::backend::pointer_like(offsets_out.data()),
                                                     ::backend::pointer_like(lengths_out.data()), ::backend::pointer_like(runs.data()));
    });
    std::vector<std::int64_t> got_offsets = offsets_out.to_host(), got_lengths = lengths_out.to_host();
    got_offsets.resize(offsets.size());
    got_lengths.resize(offsets.size());
    BOOST_TEST_CONTEXT("non-trivial runs n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(runs.to_host()[0] == std::int64_t(offsets.size()));
      BOOST_TEST(got_offsets == offsets);
      BOOST_TEST(got_lengths == long_lengths);
    }
  }
}

BOOST_AUTO_TEST_CASE(distinct_and_unique_count) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t n = std::int64_t(::backend::device_max_items() / 4 + 7);
  const std::vector<int> x = runs_of_small_values(std::size_t(n), g);
  ibuf<int> in(x), out(std::size_t(n), poison<int>());
  ibuf<std::int64_t> count(2, poison<std::int64_t>());
  const auto launcher = ::backend::launcher();
  run_two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_distinct(launcher, t, b, ::backend::pointer_like(in.data()), n, ::backend::pointer_like(out.data()),
                                    ::backend::pointer_like(count.data()));
  });
  run_two_phases([&](void* t, std::size_t& b) {
    return tilekit::device_unique_count(launcher, t, b, ::backend::pointer_like(in.data()), n, ::backend::pointer_like(count.data() + 1));
  });
  std::vector<int> want;
  std::set<int> seen;
  std::int64_t runs = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (seen.insert(x[i]).second) want.push_back(x[i]);
    runs += (i == 0 || x[i] != x[i - 1]) ? 1 : 0;
  }
  const std::vector<std::int64_t> counts = count.to_host();
  std::vector<int> got = out.to_host();
  got.resize(want.size());
  BOOST_TEST_CONTEXT("n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(counts[0] == std::int64_t(want.size()));
    BOOST_TEST(got == want);
    BOOST_TEST(counts[1] == runs);
  }
}

BOOST_AUTO_TEST_SUITE_END()
