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
// int keys in runs of 1-3, int sums, 33-40 chunks, all resident, three orders; reduce by key in the
// wide shape with tagged states and in the narrow one with epoch states, and the inclusive scan by key.
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
  for (int round = 0; round < 3; ++round) {
    const auto launcher = sim_backend::launcher_shuffled(10, g() | 1u);  // 40 resident
    for (int what : {0, 1, 2}) {  // reduce, narrow / epoch states; reduce, wide / tagged; inclusive scan
      const std::int64_t chunk = what == 0 ? narrow_kernel::chunk_items : what == 1 ? wide_kernel::chunk_items : scan_kernel::chunk_items;
      const std::int64_t n = (33 + std::int64_t(g() % 8)) * chunk - std::int64_t(g() % 50);
      std::vector<int> keys(static_cast<std::size_t>(n)), values(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < keys.size(); ++i) {
        keys[i] = i > 0 && g() % 2 == 0 ? keys[i - 1] : int(g() % 1000);
        values[i] = int(g() % 2001) - 1000;
      }
      std::vector<int> want_keys, want_values, want_scan(keys.size());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i == 0 || keys[i] != keys[i - 1]) {
          want_keys.push_back(keys[i]);
          want_values.push_back(values[i]);
        } else {
          want_values.back() += values[i];
        }
        want_scan[i] = want_values.back();
      }
      rbkbuf<int> k_in(keys), v_in(values), k_out(keys.size() + 1, poison<int>()), v_out(keys.size() + 1, poison<int>());
      rbkbuf<long long> num(1, poison<long long>());
      const int* kp = k_in.data();
      const int* vp = v_in.data();
      auto call = [&](void* temp, std::size_t& bytes) {
        if (what == 0)
          return tilekit::detail::reduce_by_key_blocks<false, false>(launcher, temp, bytes, kp, vp, n, k_out.data(), v_out.data(),
                                                                     num.data(), tilekit::plus{}, tilekit::equal_to{});
        if (what == 1)
          return tilekit::detail::reduce_by_key_blocks<true, true>(launcher, temp, bytes, kp, vp, n, k_out.data(), v_out.data(),
                                                                   num.data(), tilekit::plus{}, tilekit::equal_to{});
        return tilekit::device_scan_by_key<true>(launcher, temp, bytes, kp, vp, n, v_out.data(), tilekit::plus{}, 0,
                                                 tilekit::equal_to{});
      };
      std::size_t bytes = 0;
      BOOST_REQUIRE(call(nullptr, bytes) == launcher.success);
      rbkbuf<unsigned char> temp(bytes, 0xCD);
      const char* name = what == 0 ? "reduce by key (narrow, epoch states)" : what == 1 ? "reduce by key (wide, tagged states)" : "inclusive scan by key";
      BOOST_TEST_CONTEXT("sim " << name << " in drawn block orders (seed " << launcher.opt.shuffle_seed << "), n=" << n
                                << ", TILEKIT_TEST_SEED=" << base_seed()) {
        BOOST_TEST(call(temp.data(), bytes) == launcher.success);
        const std::vector<int> got_keys = k_out.to_host(), got_values = v_out.to_host();
        const std::vector<int>& want = what == 2 ? want_scan : want_values;
        mismatch_log log;
        if (what != 2) {
          BOOST_TEST(num.to_host()[0] == static_cast<long long>(want_keys.size()));
          for (std::size_t r = 0; r < want_keys.size(); ++r)
            if (got_keys[r] != want_keys[r]) log.expect(got_keys[r], want_keys[r], "key of run " + std::to_string(r));
        }
        for (std::size_t i = 0; i < want.size(); ++i)
          if (got_values[i] != want[i]) log.expect(got_values[i], want[i], "value " + std::to_string(i));
        log.expect_true(is_poison(got_values[want.size()]), "wrote past the end");
        BOOST_TEST(log.count == 0u);
      }
    }
  }
}
