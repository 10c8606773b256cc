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
    for (bool non_trivial : {false, true}) {
      const std::int64_t n = (33 + std::int64_t(g() % 8)) * kernel::chunk_items - std::int64_t(g() % 50);
      const std::vector<int> data = run_data(std::size_t(n), run_shape::random_short, g);
      rbuf<int> in(data), keys(std::size_t(n) + 1, poison<int>()), lengths(std::size_t(n) + 1, poison<int>()), runs(1, poison<int>());
      auto encode = [&](void* temp, std::size_t& bytes) {
        return non_trivial ? tilekit::device_run_length_encode<true>(launcher, temp, bytes, static_cast<const int*>(in.data()), n,
                                                                     keys.data(), lengths.data(), runs.data())
                           : tilekit::device_run_length_encode<false>(launcher, temp, bytes, static_cast<const int*>(in.data()), n,
                                                                      keys.data(), lengths.data(), runs.data());
      };
      std::size_t bytes = 0;
      BOOST_REQUIRE(encode(nullptr, bytes) == launcher.success);
      rbuf<unsigned char> temp(bytes, 0xCD);
      std::vector<int> want_keys, want_lengths;
      for (std::size_t i = 0; i < data.size();) {
        std::size_t j = i + 1;
        while (j < data.size() && data[j] == data[i]) ++j;
        if (!non_trivial || j - i > 1) {
          want_keys.push_back(non_trivial ? int(i) : data[i]);
          want_lengths.push_back(int(j - i));
        }
        i = j;
      }
      BOOST_TEST_CONTEXT("sim device " << (non_trivial ? "non-trivial runs" : "run-length encode") << " in drawn block orders (seed "
                                        << launcher.opt.shuffle_seed << "), n=" << n << ", TILEKIT_TEST_SEED=" << base_seed()) {
        BOOST_TEST(encode(temp.data(), bytes) == launcher.success);
        BOOST_TEST(runs.to_host()[0] == int(want_keys.size()));
        const auto got_keys = keys.to_host(), got_lengths = lengths.to_host();
        mismatch_log log;
        for (std::size_t r = 0; r < want_keys.size(); ++r) {
          if (got_keys[r] != want_keys[r]) log.expect(got_keys[r], want_keys[r], "key/offset of run " + std::to_string(r));
          if (got_lengths[r] != want_lengths[r]) log.expect(got_lengths[r], want_lengths[r], "length of run " + std::to_string(r));
        }
        log.expect_true(is_poison(got_keys[want_keys.size()]) && is_poison(got_lengths[want_keys.size()]), "wrote past the last run");
        BOOST_TEST(log.count == 0u);
      }
    }
  }
}
