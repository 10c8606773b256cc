// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide run-length encoding in the simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/device_run_length.hpp"

// The runs' chain through the look-back in drawn block orders (options.shuffle_seed; the
// simulator's case, as device_scan's look_back_in_any_block_order): Encode and NonTrivialRuns of
// 33-40 chunks of short runs, all resident, three orders. A temporary counter, per call: 28-35 polls
// that found a chunk unpublished and 0-7 windows past the first.
BOOST_AUTO_TEST_CASE(runs_in_any_block_order) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  using kernel = tilekit::detail::rle_kernel<false, const int*, int*, int*, int*, tilekit::detail::run_mark_states>;
  for (int round = 0; round < 3; ++round) {
    const auto launcher = sim_backend::launcher_shuffled(10, g() | 1u);  // 40 resident
    BOOST_TEST_CONTEXT("drawn block orders, seed " << launcher.opt.shuffle_seed) {
      check_run_length<false>(std::size_t((33 + g() % 8) * kernel::chunk_items - g() % 50), run_shape::random_short, g, launcher);
      check_run_length<true>(std::size_t((33 + g() % 8) * kernel::chunk_items - g() % 50), run_shape::random_short, g, launcher);
    }
  }
}
