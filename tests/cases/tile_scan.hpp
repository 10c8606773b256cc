// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tile-level scan, written once for both backends.
// The including file defines `using backend = ...;` (tk_test::gpu_backend or tk_test::sim_backend).
#pragma once
#include "tile_common.hpp"

#include <tilekit/tile/scan.cuh>

namespace tk_test {

// ---------------------------------------------------------------- scan

constexpr int scan_items = 4;
constexpr int scan_outputs = 8;  // scalar results per thread, then two arrays of scan_items

template <unsigned N, class T, class Op>
struct scan_body {
  const T* in;
  const T* items;
  T init;
  T* out;
  std::size_t n;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    if (tile_inactive(tile.meta_group_rank(), block.group_index().x)) return;
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    const Op op{};
    const T v = in[i];
    out[0 * n + i] = tilekit::inclusive_scan(tile, v, op);
    out[1 * n + i] = tilekit::exclusive_scan(tile, v, op, init);
    if constexpr (tilekit::has_identity_v<T, Op>) out[2 * n + i] = tilekit::exclusive_scan(tile, v, op);
    out[3 * n + i] = tilekit::inclusive_scan_aggregate(tile, v, op).aggregate;
    const tilekit::scanned<T> ex = tilekit::exclusive_scan_aggregate(tile, v, op, init);
    out[4 * n + i] = ex.value;
    out[5 * n + i] = ex.aggregate;

    T a[scan_items], b[scan_items];
    for (int k = 0; k < scan_items; ++k) a[k] = b[k] = items[scan_items * i + k];
    out[6 * n + i] = tilekit::inclusive_scan(tile, a, a, op);  // in place
    out[7 * n + i] = tilekit::exclusive_scan(tile, b, b, op, init);
    for (int k = 0; k < scan_items; ++k) {
      out[scan_outputs * n + scan_items * i + k] = a[k];
      out[(scan_outputs + scan_items) * n + scan_items * i + k] = b[k];
    }
  }
};

// The check takes the tile size at run time: one instantiation per type and operator, not per size.
template <class B, class T, class Op>
void verify_scan_values(unsigned N, const std::vector<T>& in, const std::vector<T>& items, const T& init,
                        const std::vector<T>& out, const std::string& label) {
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
          for (unsigned l = 0; l < N; ++l) log.expect_true(is_poison(out[base + l]), "inactive tile written at " + at(b, t, l));
          continue;
        }
        const std::vector<T> inc = kogge_stone_inclusive(&in[base], N, op);
        // Arrays: per-lane totals, scanned across the tile, then within the lane.
        std::vector<T> totals;
        for (unsigned l = 0; l < N; ++l) {
          const T* it = &items[scan_items * (base + l)];
          T s = it[0];
          for (int k = 1; k < scan_items; ++k) s = op(s, it[k]);
          totals.push_back(s);
        }
        const std::vector<T> inc_totals = kogge_stone_inclusive(totals.data(), N, op);
        for (unsigned l = 0; l < N; ++l) {
          const std::size_t i = base + l;
          const std::string where = at(b, t, l);
          log.expect(out[0 * n + i], inc[l], "inclusive_scan at " + where);
          const T ex_init = l == 0 ? init : op(init, inc[l - 1]);
          log.expect(out[1 * n + i], ex_init, "exclusive_scan(init) at " + where);
          if constexpr (tilekit::has_identity_v<T, Op>)
            log.expect(out[2 * n + i], l == 0 ? tilekit::identity<T>(op) : inc[l - 1], "exclusive_scan at " + where);
          log.expect(out[3 * n + i], inc[N - 1], "inclusive_scan_aggregate.aggregate at " + where);
          log.expect(out[4 * n + i], ex_init, "exclusive_scan_aggregate.value at " + where);
          log.expect(out[5 * n + i], inc[N - 1], "exclusive_scan_aggregate.aggregate at " + where);
          log.expect(out[6 * n + i], inc_totals[N - 1], "inclusive_scan(items) aggregate at " + where);
          log.expect(out[7 * n + i], inc_totals[N - 1], "exclusive_scan(items, init) aggregate at " + where);
          const T* it = &items[scan_items * i];
          T run_inc = l == 0 ? it[0] : op(inc_totals[l - 1], it[0]);
          T run_ex = l == 0 ? init : op(init, inc_totals[l - 1]);
          for (int k = 0; k < scan_items; ++k) {
            if (k > 0) run_inc = op(run_inc, it[k]);
            log.expect(out[scan_outputs * n + scan_items * i + k], run_inc,
                       "inclusive_scan(items)[" + std::to_string(k) + "] at " + where);
            log.expect(out[(scan_outputs + scan_items) * n + scan_items * i + k], run_ex,
                       "exclusive_scan(items, init)[" + std::to_string(k) + "] at " + where);
            run_ex = op(run_ex, it[k]);
          }
        }
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

template <class B, unsigned N, class T, class Op>
void check_scan_values(const std::vector<T>& in, const std::vector<T>& items, const T& init, const std::string& label) {
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  const std::size_t out_size = (scan_outputs + 2 * scan_items) * n;
  typename B::template buffer<T> d_in(in), d_items(items), d_out(out_size, poison<T>());
  B::run(blocks, threads, scan_body<N, T, Op>{d_in.data(), d_items.data(), init, d_out.data(), n});
  verify_scan_values<B, T, Op>(N, in, items, init, d_out.to_host(), label);
}

template <class B, unsigned N, class T, class Op>
void check_scan_random() {
  auto g = rng_for(next_salt());
  const std::size_t n = std::size_t(B::tile_blocks) * B::tile_threads;
  const std::vector<T> in = random_vector<T>(n, g);
  const std::vector<T> items = random_vector<T>(scan_items * n, g);
  check_scan_values<B, N, T, Op>(in, items, random_value<T>(g), "random");
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(tile_scan)

BOOST_AUTO_TEST_CASE_TEMPLATE(matches_reference, T, tk_test::tile_value_types) {
  tk_test::for_each_op_and_size<backend, T>([](auto size, auto* op_tag) {
    using Op = std::remove_pointer_t<decltype(op_tag)>;
    tk_test::check_scan_random<backend, decltype(size)::value, T, Op>();
  });
}

BOOST_AUTO_TEST_SUITE_END()
