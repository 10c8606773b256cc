// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide distinct, unique count and count in the simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/device_distinct.hpp"

// Simulator only (its sizes): the sketch gives the first set up where more than n / 5 of the n
// keys are distinct (distinct_tuning::buckets_below_repeats), though the set would take them.
// 500 distinct keys with a first set of 2048 slots (given up past 806 keys): in 2000 keys they
// go to the buckets, in 3000 the set keeps them (a temporary counter showed both).
BOOST_AUTO_TEST_CASE(few_repeats_go_to_the_buckets) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  for (std::size_t n : {std::size_t(2000), std::size_t(3000)}) {
    check_distinct<int>(n, key_mix::some, g, 16 << 10, n / 7 + 1);        // 8-byte slots
    check_distinct<long long>(n, key_mix::some, g, 32 << 10, n / 7 + 1);  // 16-byte slots
  }
}
