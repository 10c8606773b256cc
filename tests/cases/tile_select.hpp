// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tile-level compact, dedup and histogram, written once for both backends.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/tile/compact.cuh>
#include <tilekit/tile/dedup.cuh>
#include <tilekit/tile/histogram.cuh>

#include <map>

namespace tk_test {

// ---------------------------------------------------------------- compact

template <unsigned N, class T>
struct compact_body {
  const T* values;
  const unsigned char* keep;
  unsigned* rank;
  unsigned* count;
  T* stored;  // each tile stores its kept values at its own base
  unsigned* stored_count;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    if (tile_inactive(tile.meta_group_rank(), block.group_index().x)) return;
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    const tilekit::compact_result r = tilekit::compact(tile, keep[i] != 0);
    rank[i] = r.rank;
    count[i] = r.count;
    stored_count[i] = tilekit::compact_store(tile, keep[i] != 0, values[i], stored + (i - tile.thread_rank()));
  }
};


template <class B, unsigned N, class T>
void check_compact(keep_pattern pattern) {
  auto g = rng_for(next_salt());
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  const std::vector<T> values = random_vector<T>(n, g);
  std::vector<unsigned char> keep(n);
  for (std::size_t i = 0; i < n; ++i) keep[i] = keep_at(pattern, unsigned(i % N), N, g);
  typename B::template buffer<T> d_values(values), d_stored(n, poison<T>());
  typename B::template buffer<unsigned char> d_keep(keep);
  typename B::template buffer<unsigned> d_rank(n, poison<unsigned>()), d_count(n, poison<unsigned>()), d_sc(n, poison<unsigned>());
  B::run(blocks, threads, compact_body<N, T>{d_values.data(), d_keep.data(), d_rank.data(), d_count.data(), d_stored.data(), d_sc.data()});
  const auto rank = d_rank.to_host(), count = d_count.to_host(), sc = d_sc.to_host();
  const auto stored = d_stored.to_host();

  BOOST_TEST_CONTEXT(B::name << " compact tile<" << N << "> " << type_name<T>() << " " << name(pattern)
                             << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < threads / N; ++t) {
        const std::size_t base = std::size_t(b) * threads + std::size_t(t) * N;
        if (tile_inactive(t, b)) {
          for (unsigned l = 0; l < N; ++l) log.expect_true(is_poison(rank[base + l]) && is_poison(stored[base + l]), "inactive tile written");
          continue;
        }
        unsigned kept = 0;
        for (unsigned l = 0; l < N; ++l) kept += keep[base + l];
        unsigned before = 0;
        for (unsigned l = 0; l < N; ++l) {
          const std::string where = at(b, t, l);
          log.expect(rank[base + l], before, "rank at " + where);
          log.expect(count[base + l], kept, "count at " + where);
          log.expect(sc[base + l], kept, "compact_store count at " + where);
          if (keep[base + l]) log.expect(stored[base + before], values[base + l], "stored value of " + where);
          before += keep[base + l];
        }
        for (unsigned s = kept; s < N; ++s) log.expect_true(is_poison(stored[base + s]), "compact_store wrote past the kept count");
      }
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- dedup

/// Keys equal when they agree modulo 10: a custom equality for the generic path.
struct equal_mod10 {
  template <class T>
  TILEKIT_HD bool operator()(const T& a, const T& b) const { return a % 10 == b % 10; }
};

template <unsigned N, class T, class Eq>
struct dedup_body {
  const T* keys;
  unsigned char* first;
  unsigned* rank;
  unsigned* count;
  T* stored;
  unsigned* stored_count;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    if (tile_inactive(tile.meta_group_rank(), block.group_index().x)) return;
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    const tilekit::dedup_result r = tilekit::dedup(tile, keys[i], Eq{});
    first[i] = r.first;
    rank[i] = r.rank;
    count[i] = r.count;
    stored_count[i] = tilekit::dedup_store(tile, keys[i], stored + (i - tile.thread_rank()), Eq{});
  }
};


template <class T>
T key_from(std::uint64_t x) {
  if constexpr (std::is_same_v<T, mat2>) return mat2{std::uint32_t(x), std::uint32_t(x >> 1), 7, std::uint32_t(x & 1)};
  else return static_cast<T>(x);
}

template <class B, unsigned N, class T, class Eq>
void check_dedup(key_pattern pattern) {
  auto g = rng_for(next_salt());
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  std::vector<T> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (pattern) {
      case key_pattern::all_equal: keys[i] = key_from<T>(42); break;
      case key_pattern::all_distinct: keys[i] = key_from<T>(i * 7 + 3); break;
      case key_pattern::few_values: keys[i] = key_from<T>(g() % 4 + ((g() % 3 == 0) ? 1000000007ull : 0)); break;
      case key_pattern::many_values: keys[i] = key_from<T>(g() % (4 * N)); break;
      case key_pattern::float_specials: {
        if constexpr (std::is_floating_point_v<T>) {
          const T specials[] = {T(0.0), T(-0.0), std::numeric_limits<T>::quiet_NaN(), T(1.5), T(-1.5)};
          keys[i] = specials[g() % 5];
        }
        break;
      }
    }
  }
  typename B::template buffer<T> d_keys(keys), d_stored(n, poison<T>());
  typename B::template buffer<unsigned char> d_first(n, poison<unsigned char>());
  typename B::template buffer<unsigned> d_rank(n, poison<unsigned>()), d_count(n, poison<unsigned>()), d_sc(n, poison<unsigned>());
  B::run(blocks, threads,
         dedup_body<N, T, Eq>{d_keys.data(), d_first.data(), d_rank.data(), d_count.data(), d_stored.data(), d_sc.data()});
  const auto first = d_first.to_host();
  const auto rank = d_rank.to_host(), count = d_count.to_host(), sc = d_sc.to_host();
  const auto stored = d_stored.to_host();

  BOOST_TEST_CONTEXT(B::name << " dedup tile<" << N << "> " << type_name<T>() << " " << name(pattern)
                             << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    const Eq eq{};
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < threads / N; ++t) {
        const std::size_t base = std::size_t(b) * threads + std::size_t(t) * N;
        if (tile_inactive(t, b)) {
          for (unsigned l = 0; l < N; ++l) log.expect_true(is_poison(first[base + l]) && is_poison(stored[base + l]), "inactive tile written");
          continue;
        }
        std::vector<bool> is_first(N, true);
        unsigned distinct = 0;
        for (unsigned l = 0; l < N; ++l) {
          for (unsigned k = 0; k < l; ++k)
            if (eq(keys[base + k], keys[base + l])) is_first[l] = false;
          distinct += is_first[l];
        }
        unsigned before = 0;
        for (unsigned l = 0; l < N; ++l) {
          const std::string where = at(b, t, l);
          log.expect(unsigned(first[base + l]), unsigned(is_first[l]), "first at " + where);
          log.expect(rank[base + l], before, "rank at " + where);
          log.expect(count[base + l], distinct, "count at " + where);
          log.expect(sc[base + l], distinct, "dedup_store count at " + where);
          if (is_first[l]) log.expect(stored[base + before], keys[base + l], "stored key of " + where);
          before += is_first[l];
        }
        for (unsigned s = distinct; s < N; ++s) log.expect_true(is_poison(stored[base + s]), "dedup_store wrote past the distinct count");
      }
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- histogram

enum class hist_variant { chosen, atomic, match };
inline const char* name(hist_variant v) {
  const char* names[] = {"histogram", "histogram_atomic", "histogram_match"};
  return names[int(v)];
}

template <unsigned N, class Bin, class Counter, hist_variant V, bool Shared>
struct histogram_body {
  const Bin* bins;
  const unsigned char* valid;
  Counter* counters;
  unsigned num_bins;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Tile>
  TILEKIT_HD void add(const Tile& tile, Bin bin, Counter* c, bool ok) const {
    if constexpr (V == hist_variant::chosen) tilekit::histogram(tile, bin, c, ok);
    else if constexpr (V == hist_variant::atomic) tilekit::histogram_atomic(tile, bin, c, ok);
    else tilekit::histogram_match(tile, bin, c, ok);
  }

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    const bool active = !tile_inactive(tile.meta_group_rank(), block.group_index().x);
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    if constexpr (Shared) {
      Counter* local = ctx.template shared_array<Counter>(num_bins);
      for (unsigned k = block.thread_rank(); k < num_bins; k += block.num_threads()) local[k] = 0;
      block.sync();
      if (active) add(tile, bins[i], local, valid[i] != 0);
      block.sync();
      for (unsigned k = block.thread_rank(); k < num_bins; k += block.num_threads())
        if (local[k]) decltype(block)::backend::atomic_add(counters + k, local[k]);
    } else {
      if (active) add(tile, bins[i], counters, valid[i] != 0);
    }
  }
};


template <class B, unsigned N, class Bin, class Counter, hist_variant V, bool Shared>
void check_histogram(bin_pattern pattern, unsigned num_bins, bool all_valid) {
  auto g = rng_for(next_salt());
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  std::vector<Bin> bins(n);
  std::vector<unsigned char> valid(n);
  const unsigned hot = static_cast<unsigned>(g() % num_bins);
  for (std::size_t i = 0; i < n; ++i) {
    switch (pattern) {
      case bin_pattern::uniform: bins[i] = static_cast<Bin>(g() % num_bins); break;
      case bin_pattern::one_bin: bins[i] = static_cast<Bin>(hot); break;
      case bin_pattern::skewed: bins[i] = static_cast<Bin>((g() % 4 != 0) ? hot : g() % num_bins); break;
    }
    valid[i] = all_valid || g() % 5 != 0;
  }
  std::vector<Counter> want(num_bins, 0);
  for (unsigned b = 0; b < blocks; ++b)
    for (unsigned r = 0; r < threads; ++r) {
      const std::size_t i = std::size_t(b) * threads + r;
      if (!tile_inactive(r / N, b) && valid[i]) ++want[bins[i]];
    }
  typename B::template buffer<Bin> d_bins(bins);
  typename B::template buffer<unsigned char> d_valid(valid);
  typename B::template buffer<Counter> d_counters(num_bins, Counter(0));
  B::run(blocks, threads, histogram_body<N, Bin, Counter, V, Shared>{d_bins.data(), d_valid.data(), d_counters.data(), num_bins},
         Shared ? num_bins * sizeof(Counter) : 0);
  const auto got = d_counters.to_host();
  BOOST_TEST_CONTEXT(B::name << " " << name(V) << " tile<" << N << "> bins " << type_name<Bin>() << " x" << num_bins
                             << " counters " << type_name<Counter>() << (Shared ? " in shared memory" : " in global memory")
                             << ", " << name(pattern) << (all_valid ? "" : ", 80% valid") << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned k = 0; k < num_bins; ++k) log.expect(got[k], want[k], "count of bin " + std::to_string(k));
    BOOST_TEST(log.count == 0u);
  }
}

template <class B, unsigned N, class Bin, class Counter, hist_variant V, bool Shared>
void check_histogram_all_patterns() {
  for (unsigned bins : {1u, 37u, 256u, 1024u})
    for (bin_pattern p : {bin_pattern::uniform, bin_pattern::one_bin, bin_pattern::skewed})
      for (bool all_valid : {true, false}) check_histogram<B, N, Bin, Counter, V, Shared>(p, bins, all_valid);
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(tile_compact)

BOOST_AUTO_TEST_CASE(every_pattern_and_size) {
  using namespace tk_test;
  for (keep_pattern p : {keep_pattern::all, keep_pattern::none, keep_pattern::alternating, keep_pattern::first,
                         keep_pattern::last, keep_pattern::random_half, keep_pattern::random_tenth}) {
    for_each_size<1, 2, 4, 8, 16, 32>([&](auto size) {
      check_compact<backend, decltype(size)::value, std::int32_t>(p);
      check_compact<backend, decltype(size)::value, mat2>(p);
    });
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(tile_dedup)

BOOST_AUTO_TEST_CASE(integer_keys) {
  using namespace tk_test;
  for (key_pattern p : {key_pattern::all_equal, key_pattern::all_distinct, key_pattern::few_values, key_pattern::many_values}) {
    for_each_size<1, 2, 4, 8, 16, 32>([&](auto size) {
      constexpr unsigned N = decltype(size)::value;
      check_dedup<backend, N, std::int32_t, tilekit::equal_to>(p);
      check_dedup<backend, N, std::uint32_t, tilekit::equal_to>(p);
      check_dedup<backend, N, std::int64_t, tilekit::equal_to>(p);
      check_dedup<backend, N, std::uint64_t, tilekit::equal_to>(p);
      check_dedup<backend, N, std::int16_t, tilekit::equal_to>(p);  // compared lane by lane
    });
  }
}

BOOST_AUTO_TEST_CASE(other_keys_and_custom_equality) {
  using namespace tk_test;
  for (key_pattern p : {key_pattern::all_equal, key_pattern::all_distinct, key_pattern::few_values, key_pattern::many_values}) {
    for_each_size<1, 2, 4, 8, 16, 32>([&](auto size) {
      constexpr unsigned N = decltype(size)::value;
      check_dedup<backend, N, mat2, tilekit::equal_to>(p);
      check_dedup<backend, N, std::int32_t, equal_mod10>(p);
      check_dedup<backend, N, double, tilekit::equal_to>(p);
    });
  }
  for_each_size<1, 2, 4, 8, 16, 32>([&](auto size) {
    check_dedup<backend, decltype(size)::value, float, tilekit::equal_to>(key_pattern::float_specials);
    check_dedup<backend, decltype(size)::value, double, tilekit::equal_to>(key_pattern::float_specials);
  });
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(tile_histogram)

BOOST_AUTO_TEST_CASE(every_variant_and_size) {
  using namespace tk_test;
  for_each_size<1, 2, 4, 8, 16, 32>([&](auto size) {
    constexpr unsigned N = decltype(size)::value;
    check_histogram_all_patterns<backend, N, std::int32_t, unsigned, hist_variant::chosen, false>();
    check_histogram_all_patterns<backend, N, std::int32_t, unsigned, hist_variant::chosen, true>();
    check_histogram_all_patterns<backend, N, std::int32_t, unsigned, hist_variant::atomic, true>();
    check_histogram_all_patterns<backend, N, std::int32_t, unsigned, hist_variant::match, false>();
    check_histogram_all_patterns<backend, N, std::int32_t, unsigned, hist_variant::match, true>();
  });
}

BOOST_AUTO_TEST_CASE(bin_and_counter_types) {
  using namespace tk_test;
  for_each_size<8, 32>([&](auto size) {
    constexpr unsigned N = decltype(size)::value;
    check_histogram_all_patterns<backend, N, std::uint32_t, unsigned long long, hist_variant::chosen, false>();
    check_histogram_all_patterns<backend, N, std::int64_t, unsigned long long, hist_variant::chosen, true>();
    check_histogram_all_patterns<backend, N, std::uint64_t, unsigned, hist_variant::match, false>();
    check_histogram_all_patterns<backend, N, std::uint8_t, unsigned, hist_variant::chosen, true>();
    check_histogram_all_patterns<backend, N, std::int32_t, int, hist_variant::chosen, true>();
  });
}

BOOST_AUTO_TEST_SUITE_END()
