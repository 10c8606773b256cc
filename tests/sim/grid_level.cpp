// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grid rung (reduce, scans, compact, histogram inside a kernel; cooperative launch) in the CPU
// simulator, and the misuse it reports.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/grid_level.hpp"

// Misuse the simulator reports (on the GPU: a trap, or a hang for the missing cooperative launch).
BOOST_AUTO_TEST_SUITE(grid_level_misuse)

BOOST_AUTO_TEST_CASE(storage_for_fewer_blocks_than_the_grid) {
  using body_t = tk_test::grid_reduce_body<32, int, tilekit::plus>;
  std::vector<int> in(3 * 3 * 32, 1), out(3 * 3 * 32, 0);
  std::vector<unsigned char> memory(tilekit::grid_reduce_storage<int>::bytes(2), 0xCD);  // for 2 blocks
  tilekit::sim::options opt;
  opt.resident_blocks = 3;
  opt.shared_bytes = sizeof(tilekit::reduce_storage<int, 32>);
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch(3, 32, body_t{in.data(), out.data(), memory.data(), 2, tilekit::plus{}}, opt),
                        tilekit::sim::error, [](const tilekit::sim::error& e) {
                          return std::string(e.what()).find("grid_reduce_storage") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(a_grid_reduce_needs_a_cooperative_launch) {
  using body_t = tk_test::grid_reduce_body<32, int, tilekit::plus>;
  std::vector<int> in(3 * 6 * 32, 1), out(3 * 6 * 32, 0);
  std::vector<unsigned char> memory(tilekit::grid_reduce_storage<int>::bytes(6), 0xCD);
  tilekit::sim::options opt;  // resident_blocks 4 < 6 blocks: not every block at once
  opt.shared_bytes = sizeof(tilekit::reduce_storage<int, 32>);
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch(6, 32, body_t{in.data(), out.data(), memory.data(), 6, tilekit::plus{}}, opt),
                        tilekit::sim::error, [](const tilekit::sim::error& e) {
                          return std::string(e.what()).find("cooperative launch") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_SUITE_END()
