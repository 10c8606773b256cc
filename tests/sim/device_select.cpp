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
    for (bool partition : {false, true}) {
      const std::int64_t chunk = partition ? tilekit::detail::select_kernel<true, const int*, int*, std::int64_t*, tilekit::keep_if<below>>::chunk_items
                                           : tilekit::detail::select_kernel<false, const int*, int*, std::int64_t*, tilekit::keep_if<below>>::chunk_items;
      const std::int64_t n = (33 + std::int64_t(g() % 8)) * chunk - std::int64_t(g() % 50);
      const int threshold = int(g() % 1000);
      std::vector<int> data(static_cast<std::size_t>(n));
      for (auto& x : data) x = int(g() % 1000);
      std::vector<int> kept, rejected;
      for (int x : data) (x < threshold ? kept : rejected).push_back(x);
      selbuf<int> in(data), out(std::size_t(n) + 1, poison<int>());
      selbuf<std::int64_t> num(1, poison<std::int64_t>());
      const tilekit::keep_if<below> keep{below{threshold}};
      std::size_t bytes = 0;
      BOOST_REQUIRE(select_any(partition, launcher, nullptr, bytes, static_cast<const int*>(in.data()), n, out.data(), num.data(), keep) ==
                    launcher.success);
      selbuf<unsigned char> temp(bytes, 0xCD);
      BOOST_TEST_CONTEXT("sim device " << (partition ? "partition" : "select_if") << " in drawn block orders (seed "
                                        << launcher.opt.shuffle_seed << "), n=" << n << " threshold=" << threshold
                                        << ", TILEKIT_TEST_SEED=" << base_seed()) {
        BOOST_TEST(select_any(partition, launcher, temp.data(), bytes, static_cast<const int*>(in.data()), n, out.data(), num.data(), keep) ==
                   launcher.success);
        BOOST_TEST(num.to_host()[0] == std::int64_t(kept.size()));
        const std::vector<int> got = out.to_host();
        mismatch_log log;
        for (std::size_t i = 0; i < kept.size(); ++i)
          if (got[i] != kept[i]) log.expect(got[i], kept[i], "kept item " + std::to_string(i));
        for (std::size_t j = 0; partition && j < rejected.size(); ++j)  // reversed at the back
          if (got[std::size_t(n) - 1 - j] != rejected[j]) log.expect(got[std::size_t(n) - 1 - j], rejected[j], "rejected item " + std::to_string(j));
        if (!partition)
          for (std::size_t i = kept.size(); i <= std::size_t(n); ++i) log.expect_true(is_poison(got[i]), "written past the kept items at " + std::to_string(i));
        else
          log.expect_true(is_poison(got[std::size_t(n)]), "wrote past the end");
        BOOST_TEST(log.count == 0u);
      }
    }
  }
}
