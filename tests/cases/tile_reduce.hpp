// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tile-level reduce, written once for both backends.
// The including file defines `using backend = ...;` (tk_test::gpu_backend or tk_test::sim_backend).
#pragma once
#include "tile_common.hpp"

#include <tilekit/tile/reduce.cuh>

namespace tk_test {

// ---------------------------------------------------------------- reduce

constexpr int reduce_items = 3;

template <unsigned N, class T, class Op>
struct reduce_body {
  const T* in;     // one value per thread
  const T* items;  // reduce_items per thread
  T* out;          // 3 results per thread: reduce, reduce_butterfly, reduce over items
  std::size_t n;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    if (tile_inactive(tile.meta_group_rank(), block.group_index().x)) return;  // divergent: some tiles sit out
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    out[i] = tilekit::reduce(tile, in[i], Op{});
    out[n + i] = tilekit::reduce_butterfly(tile, in[i], Op{});
    T mine[reduce_items] = {items[reduce_items * i], items[reduce_items * i + 1], items[reduce_items * i + 2]};
    out[2 * n + i] = tilekit::reduce(tile, mine, Op{});
  }
};

// The check takes the tile size at run time: one instantiation per type and operator, not per size.
template <class B, class T, class Op>
void verify_reduce_values(unsigned N, const std::vector<T>& in, const std::vector<T>& items, const std::vector<T>& out,
                          const std::string& label) {
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  BOOST_TEST_CONTEXT(B::name << " tile<" << N << "> " << type_name<T>() << " " << op_name<Op>() << " " << label
                             << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    const Op op{};
    for (unsigned b = 0; b < blocks; ++b) {
      for (unsigned t = 0; t < threads / N; ++t) {
        const std::size_t base = std::size_t(b) * threads + std::size_t(t) * N;
        if (tile_inactive(t, b)) {
          for (unsigned l = 0; l < N; ++l)
            for (int k = 0; k < 3; ++k) log.expect_true(is_poison(out[k * n + base + l]), "inactive tile written at " + at(b, t, l));
          continue;
        }
        const T want = tree_reduce(&in[base], N, op);
        std::vector<T> partials;
        for (unsigned l = 0; l < N; ++l) {
          const T* it = &items[reduce_items * (base + l)];
          partials.push_back(op(op(it[0], it[1]), it[2]));
        }
        const T want_items = tree_reduce(partials.data(), N, op);
        for (unsigned l = 0; l < N; ++l) {
          log.expect(out[base + l], want, "reduce at " + at(b, t, l));
          log.expect(out[n + base + l], want, "reduce_butterfly at " + at(b, t, l));
          log.expect(out[2 * n + base + l], want_items, "reduce(items[3]) at " + at(b, t, l));
        }
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

template <class B, unsigned N, class T, class Op>
void check_reduce_values(const std::vector<T>& in, const std::vector<T>& items, const std::string& label) {
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  typename B::template buffer<T> d_in(in), d_items(items), d_out(3 * n, poison<T>());
  B::run(blocks, threads, reduce_body<N, T, Op>{d_in.data(), d_items.data(), d_out.data(), n});
  verify_reduce_values<B, T, Op>(N, in, items, d_out.to_host(), label);
}

template <class B, unsigned N, class T, class Op>
void check_reduce_random() {
  auto g = rng_for(next_salt());
  const std::size_t n = std::size_t(B::tile_blocks) * B::tile_threads;
  check_reduce_values<B, N, T, Op>(random_vector<T>(n, g), random_vector<T>(reduce_items * n, g), "random");
}

// Every lane the same value, and every lane the identity.
template <class B, unsigned N, class T, class Op>
void check_reduce_uniform() {
  auto g = rng_for(next_salt());
  const std::size_t n = std::size_t(B::tile_blocks) * B::tile_threads;
  const T v = random_value<T>(g);
  check_reduce_values<B, N, T, Op>(std::vector<T>(n, v), std::vector<T>(reduce_items * n, v), "all lanes equal");
  if constexpr (tilekit::has_identity_v<T, Op>) {
    const T e = tilekit::identity<T>(Op{});
    check_reduce_values<B, N, T, Op>(std::vector<T>(n, e), std::vector<T>(reduce_items * n, e), "all lanes the identity");
  }
}

// ---------------------------------------------------------------- lanes below a count

// Every lane of an active tile: detail::reduce_lanes_below over each count 1..N, one after another.
template <unsigned N, class T, class Op>
struct lanes_below_body {
  const T* in;  // one value per thread
  T* out;       // N results per thread: count c's at out[N * i + c - 1]

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    if (tile_inactive(tile.meta_group_rank(), block.group_index().x)) return;
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    for (unsigned c = 1; c <= N; ++c) out[std::size_t(N) * i + c - 1] = tilekit::detail::reduce_lanes_below(tile, in[i], Op{}, c);
  }
};

/// tree_reduce over v[0 .. count) of n: its balanced tree over n leaves with the leaves from count on left out.
template <class T, class Op>
T pruned_tree_reduce(const T* v, unsigned n, unsigned count, Op op) {
  std::vector<std::pair<T, bool>> level;
  for (unsigned l = 0; l < n; ++l) level.push_back({v[l], l < count});
  while (level.size() > 1) {
    std::vector<std::pair<T, bool>> next;
    for (std::size_t i = 0; i < level.size(); i += 2) {
      const auto &a = level[i], &b = level[i + 1];
      next.push_back(a.second && b.second ? std::make_pair(op(a.first, b.first), true) : a.second ? a : b);
    }
    level.swap(next);
  }
  return level[0].first;
}

template <class List>
struct first_of;
template <class First, class... Rest>
struct first_of<type_list<First, Rest...>> {
  using type = First;
};

template <class B, unsigned N, class T, class Op>
void check_lanes_below() {
  auto g = rng_for(next_salt());
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  const std::vector<T> in = random_vector<T>(n, g);
  typename B::template buffer<T> d_in(in), d_out(N * n, poison<T>());
  B::run(blocks, threads, lanes_below_body<N, T, Op>{d_in.data(), d_out.data()});
  const std::vector<T> out = d_out.to_host();
  BOOST_TEST_CONTEXT(B::name << " tile<" << N << "> " << type_name<T>() << " " << op_name<Op>()
                             << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < threads / N; ++t) {
        const std::size_t base = std::size_t(b) * threads + std::size_t(t) * N;
        for (unsigned c = 1; c <= N; ++c) {
          const T want = pruned_tree_reduce(&in[base], N, c, Op{});
          for (unsigned l = 0; l < N; ++l) {
            const T& got = out[N * (base + l) + c - 1];
            if (tile_inactive(t, b)) log.expect_true(is_poison(got), "inactive tile written at " + at(b, t, l));
            else log.expect(got, want, "count " + std::to_string(c) + " at " + at(b, t, l));
          }
        }
      }
    BOOST_TEST(log.count == 0u);
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(tile_reduce)

// The block and device reduces' partial tiles: bitwise the butterfly's tree, pruned. One operator
// a type (the first of ops_for; mat2's is not commutative, so the order shows).
BOOST_AUTO_TEST_CASE_TEMPLATE(lanes_below_a_count, T, tk_test::tile_value_types) {
  using Op = typename tk_test::first_of<typename tk_test::ops_for<T>::type>::type;
  tk_test::for_each_size<1, 2, 4, 8, 16, 32>(
      [](auto size) { tk_test::check_lanes_below<backend, decltype(size)::value, T, Op>(); });
}

BOOST_AUTO_TEST_CASE_TEMPLATE(matches_reference, T, tk_test::tile_value_types) {
  tk_test::for_each_op_and_size<backend, T>([](auto size, auto* op_tag) {
    using Op = std::remove_pointer_t<decltype(op_tag)>;
    tk_test::check_reduce_random<backend, decltype(size)::value, T, Op>();
  });
}

BOOST_AUTO_TEST_CASE_TEMPLATE(uniform_values, T, tk_test::tile_value_types) {
  tk_test::for_each_op_and_size<backend, T>([](auto size, auto* op_tag) {
    using Op = std::remove_pointer_t<decltype(op_tag)>;
    tk_test::check_reduce_uniform<backend, decltype(size)::value, T, Op>();
  });
}

// NaN policy: tilekit::minimum / maximum propagate NaN; -0.0 < +0.0; infinities.
BOOST_AUTO_TEST_CASE_TEMPLATE(float_specials, T, tk_test::float_types) {
  using lim = std::numeric_limits<T>;
  const std::size_t n = std::size_t(backend::tile_blocks) * backend::tile_threads;
  auto g = tk_test::rng_for(tk_test::next_salt());
  tk_test::for_each_size<2, 4, 8, 16, 32>([&](auto size) {
    constexpr unsigned N = decltype(size)::value;
    std::vector<T> nan_in = tk_test::random_vector<T>(n, g), zeros(n), infs(n);
    for (std::size_t i = 0; i < n; i += N) nan_in[i + (g() % N)] = lim::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i) zeros[i] = (g() & 1) ? T(-0.0) : T(0.0);
    for (std::size_t i = 0; i < n; ++i) infs[i] = (g() & 1) ? lim::infinity() : T(i % 7);
    const std::vector<T> items = tk_test::random_vector<T>(tk_test::reduce_items * n, g);
    tk_test::check_reduce_values<backend, N, T, tilekit::minimum>(nan_in, items, "one NaN per tile");
    tk_test::check_reduce_values<backend, N, T, tilekit::maximum>(nan_in, items, "one NaN per tile");
    tk_test::check_reduce_values<backend, N, T, tilekit::plus>(nan_in, items, "one NaN per tile");
    tk_test::check_reduce_values<backend, N, T, tilekit::minimum>(zeros, items, "+0.0 and -0.0");
    tk_test::check_reduce_values<backend, N, T, tilekit::maximum>(zeros, items, "+0.0 and -0.0");
    tk_test::check_reduce_values<backend, N, T, tilekit::plus>(zeros, items, "+0.0 and -0.0");
    tk_test::check_reduce_values<backend, N, T, tilekit::maximum>(infs, items, "+inf");
    tk_test::check_reduce_values<backend, N, T, tilekit::plus>(infs, items, "+inf");
  });
}

BOOST_AUTO_TEST_SUITE_END()

