// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide select, partition and unique in the simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/device_select.hpp"

// The select family's counts through the look-back in drawn block orders (options.shuffle_seed;
// the simulator's case, as device_scan's look_back_in_any_block_order): select_if and partition
// of 33-40 chunks, all resident, three orders. A temporary counter, per call: 27-36 polls that found
// a chunk unpublished and 1-7 windows past the first.
BOOST_AUTO_TEST_CASE(counts_in_any_block_order) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  for (int round = 0; round < 3; ++round) {
    const auto launcher = sim_backend::launcher_shuffled(10, g() | 1u);  // 40 resident
    BOOST_TEST_CONTEXT("drawn block orders, seed " << launcher.opt.shuffle_seed) {
      for (bool partition : {false, true}) {
        const std::int64_t chunk = partition ? tilekit::detail::select_kernel<true, const int*, int*, std::int64_t*, tilekit::keep_if<below>>::chunk_items
                                             : tilekit::detail::select_kernel<false, const int*, int*, std::int64_t*, tilekit::keep_if<below>>::chunk_items;
        const std::int64_t n = (33 + std::int64_t(g() % 8)) * chunk - std::int64_t(g() % 50);
        check_device_select(partition ? select_kind::partition : select_kind::if_, n, int(g() % 1000), g, false, false, launcher);
      }
    }
  }
}
