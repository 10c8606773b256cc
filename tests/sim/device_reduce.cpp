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

// Reduce and scan by key's chains through the look-back in drawn block orders
// (options.shuffle_seed; the simulator's case, as device_scan's look_back_in_any_block_order):
// int keys and sums, 33-40 chunks, all resident, three orders; reduce by key in the narrow shape
// with zeroed states and in the wide one with tagged states, and the inclusive scan by key.
// A temporary counter, per call: 36-47 polls that found a chunk unpublished and 0-7 windows past the first.
BOOST_AUTO_TEST_CASE(by_key_chains_in_any_block_order) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  using narrow_kernel = tilekit::detail::by_key_kernel<tilekit::detail::by_key::reduce, const int*, const int*, int*, int*, long long*,
                                                       tilekit::plus, tilekit::equal_to, false>;
  using wide_kernel = tilekit::detail::by_key_kernel<tilekit::detail::by_key::reduce, const int*, const int*, int*, int*, long long*,
                                                     tilekit::plus, tilekit::equal_to, true>;
  using scan_kernel = tilekit::detail::by_key_kernel<tilekit::detail::by_key::inclusive_scan, const int*, const int*, int*, int*, long long*,
                                                     tilekit::plus, tilekit::equal_to>;
  auto chunks = [&](std::int64_t chunk) { return (33 + std::int64_t(g() % 8)) * chunk - std::int64_t(g() % 50); };
  for (int round = 0; round < 3; ++round) {
    const auto launcher = sim_backend::launcher_shuffled(10, g() | 1u);  // 40 resident
    BOOST_TEST_CONTEXT("drawn block orders, seed " << launcher.opt.shuffle_seed) {
      check_reduce_by_key<int>(chunks(narrow_kernel::chunk_items), 0, tilekit::plus{}, tilekit::equal_to{}, "plus", 0, launcher);
      check_reduce_by_key<int>(chunks(wide_kernel::chunk_items), 0, tilekit::plus{}, tilekit::equal_to{}, "plus", 2, launcher);
      check_scan_by_key<int>(chunks(scan_kernel::chunk_items), true, false, tilekit::plus{}, tilekit::equal_to{}, 7, "plus, init 7", -1,
                             launcher);
    }
  }
}
