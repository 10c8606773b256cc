// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide reduce, segmented reduce and reduce by key in the simulator.
#include "../common/sim_backend.hpp"

#include <cstring>
using backend = tk_test::sim_backend;
#include "../cases/device_reduce.hpp"
#include "../cases/device_segmented_reduce.hpp"
#include "../cases/device_reduce_by_key.hpp"

// An int input a byte off its alignment (only the CPU reads one: a GPU faults) is read item
// by item: misaligned_head gives n, and the one-block kernel takes every item, not one a thread.
// Not in the sanitized builds (CI's): UBSan stops at the misaligned reads this makes on purpose.
#if !defined(__SANITIZE_ADDRESS__)
BOOST_AUTO_TEST_CASE(input_not_item_aligned_in_the_simulator) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  for (std::int64_t n : {std::int64_t(5), std::int64_t(300), std::int64_t(4096), std::int64_t(5000)}) {
    std::vector<int> items(static_cast<std::size_t>(n));
    long long want = 0;
    for (auto& x : items) want += (x = int(g() % 2001) - 1000);
    std::vector<unsigned char> bytes(items.size() * sizeof(int) + 1);
    std::memcpy(bytes.data() + 1, items.data(), items.size() * sizeof(int));
    const int* in = reinterpret_cast<const int*>(bytes.data() + 1);
    dbuf<long long> out(1, poison<long long>());
    BOOST_TEST_CONTEXT("n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(run_device_reduce(in, n, out.data(), tilekit::plus{}, 0ll) == ::backend::launcher().success);
      BOOST_TEST(out.to_host()[0] == want);
    }
  }
}
#endif
