// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide scans in the simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/device_scan.hpp"

// The look-back under drawn block orders (options.shuffle_seed; the GPU runs in its own orders, so
// this case is the simulator's): a chunk's block may run before its predecessors have published
// anything, or find some with only their aggregates out and look back past 32 of them. A temporary
// counter, per round of two scans: 67-71 polls that found a chunk unpublished and 3-7 windows past
// the first (the int scan alone in the fixed order: 34-36 and 2-4). A non-commutative operator and
// int sums.
namespace {
template <class T, class Op>
void check_scan_on(const tilekit::sim::launcher& launcher, tk_test::scan_kind kind, const std::vector<T>& data, Op op, T init,
                   const char* what) {
  using namespace tk_test;
  const std::int64_t n = std::int64_t(data.size());
  sbuf<T> in(data), out(data.size() + 1, poison<T>());
  BOOST_TEST_CONTEXT("sim device scan " << name(kind) << " " << what << " in drawn block orders (seed " << launcher.opt.shuffle_seed
                                        << "), n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(run_device_scan(kind, in.data(), n, out.data(), op, init, false, launcher) == launcher.success);
    const std::vector<T> got = out.to_host();
    const std::vector<T> want = reference_scan(kind, data.data(), n, op, init);
    mismatch_log log;
    for (std::int64_t i = 0; i < n; ++i)
      if (!(got[std::size_t(i)] == want[std::size_t(i)])) log.expect(got[std::size_t(i)], want[std::size_t(i)], "item " + std::to_string(i));
    log.expect_true(is_poison(got[std::size_t(n)]), "wrote past the end");
    BOOST_TEST(log.count == 0u);
  }
}
}  // namespace

BOOST_AUTO_TEST_CASE(look_back_in_any_block_order) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t mat_chunk = tilekit::detail::scan_shape<const mat2*, mat2>::chunk;
  const std::int64_t int_chunk = tilekit::detail::scan_shape<const int*, int>::chunk;
  for (int round = 0; round < 3; ++round) {
    const auto launcher = sim_backend::launcher_shuffled(10, g() | 1u);  // 40 resident: all 33-40 chunks
    const std::int64_t chunks = 33 + std::int64_t(g() % 8);
    check_scan_on(launcher, scan_kind::inclusive_init, random_vector<mat2>(std::size_t(chunks * mat_chunk - std::int64_t(g() % 7)), g),
                  mat_mul{}, mat2{1, 2, 0, 1}, "matrix product");
    std::vector<int> ints = random_vector<int>(std::size_t(chunks * int_chunk + std::int64_t(g() % 100)), g);
    for (auto& x : ints) x %= 1000;
    check_scan_on(launcher, scan_kind::exclusive_init, ints, tilekit::plus{}, 7, "int sums");
  }
}
