// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grid rung (reduce, scans, compact, histogram, dedup inside a kernel under a cooperative
// launch; the chained scans and compact under an ordinary one) in the CPU simulator, and the
// misuse it reports. (A grid algorithm that needs grid.sync() under an ordinary launch does not
// compile: host_static_asserts checks that.)
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/grid_level.hpp"

// Misuse the simulator reports (on the GPU: a trap, or a hang for the missing cooperative launch).
BOOST_AUTO_TEST_SUITE(grid_level_misuse)

BOOST_AUTO_TEST_CASE(storage_for_fewer_blocks_than_the_grid) {
  using body_t = tk_test::grid_reduce_body<32, int, tilekit::plus>;
  std::vector<int> in(3 * 3 * 32, 1), out(3 * 3 * 32, 0);
  std::vector<unsigned char> memory(tilekit::grid_reduce_storage<int>::bytes(2), 0xCD);  // for 2 blocks
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cooperative(3, 32, body_t{in.data(), out.data(), memory.data(), 2, tilekit::plus{}},
                                                         sizeof(tilekit::reduce_storage<int, 32>)),
                        tilekit::sim::error, [](const tilekit::sim::error& e) {
                          return std::string(e.what()).find("grid_reduce_storage") != std::string::npos;
                        });
}

// Chained scans of ones: `calls` of them over one grid_chain_storage for max_blocks blocks
// (0: the grid's); where out is given, out[ticket * 32 + thread] = the scan and who[ticket] =
// the block's rank.
struct chain_ones_body {
  void* memory;
  unsigned long long max_blocks = 0;
  int calls = 1;
  int* out = nullptr;
  unsigned* who = nullptr;
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto block = ctx.template block<32>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<tilekit::chain_storage<int, 32>>();
    tilekit::grid_chain_storage<int> storage(memory, max_blocks ? max_blocks : grid.num_blocks());
    for (int call = 0; call < calls; ++call) {
      const unsigned long long c = tilekit::take_ticket(grid, block, shared, storage);
      const int scanned = tilekit::inclusive_scan(grid, block, 1, tilekit::plus{}, shared, storage);
      if (out) out[c * 32 + block.thread_rank()] = scanned;
      if (who && block.thread_rank() == 0) who[c] = unsigned(grid.block_rank());
      block.sync();
    }
  }
};

// A second ticket from one storage in one launch (two scans over one grid_chain_storage).
BOOST_AUTO_TEST_CASE(a_chain_storage_serves_one_scan_per_launch) {
  std::vector<unsigned long long> memory(tilekit::grid_chain_storage<int>::bytes(3) / 8 + 1, 0);
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch(3, 32, chain_ones_body{memory.data(), 0, 2}, sizeof(tilekit::chain_storage<int, 32>)),
                        tilekit::sim::error, [](const tilekit::sim::error& e) {
                          return std::string(e.what()).find("more tickets than blocks") != std::string::npos;
                        });
}

// Chain storage for fewer blocks than the grid.
BOOST_AUTO_TEST_CASE(chain_storage_for_fewer_blocks_than_the_grid) {
  std::vector<unsigned long long> memory(tilekit::grid_chain_storage<int>::bytes(2) / 8 + 1, 0);
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch(3, 32, chain_ones_body{memory.data(), 2}, sizeof(tilekit::chain_storage<int, 32>)),
                        tilekit::sim::error, [](const tilekit::sim::error& e) {
                          return std::string(e.what()).find("grid_chain_storage holds") != std::string::npos;
                        });
}

// Later blocks run ahead of earlier ones, two resident at a time: tickets follow the order
// blocks start in, not their rank, and every block still gets the prefix of its chain.
BOOST_AUTO_TEST_CASE(chain_order_follows_the_tickets) {
  const unsigned blocks = 9;
  std::vector<int> out(blocks * 32, -1);
  std::vector<unsigned> who(blocks, ~0u);
  std::vector<unsigned long long> memory(tilekit::grid_chain_storage<int>::bytes(blocks) / 8 + 1, 0);
  tilekit::sim::options opt;
  opt.resident_blocks = 2;
  opt.later_blocks_first = true;
  opt.shared_bytes = sizeof(tilekit::chain_storage<int, 32>);
  tilekit::sim::launch(blocks, 32, chain_ones_body{memory.data(), 0, 1, out.data(), who.data()}, opt);
  for (unsigned i = 0; i < blocks * 32; ++i) BOOST_TEST(out[i] == int(i + 1));
  BOOST_TEST(who != std::vector<unsigned>({0, 1, 2, 3, 4, 5, 6, 7, 8}));  // some later block drew an earlier ticket
  std::vector<unsigned> sorted = who;
  std::sort(sorted.begin(), sorted.end());
  BOOST_TEST(sorted == std::vector<unsigned>({0, 1, 2, 3, 4, 5, 6, 7, 8}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
