// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide histograms in the simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/device_histogram.hpp"

// Simulator only: block 0 held back (options.first_block_late_rounds), so that the other
// blocks reach the 1-byte kernel's zero gate before block 0 has zeroed the counters and opened
// it: each one's add to the gate's word comes first and is dropped by the opening, and it waits
// and adds again (zero_gate::pass; with 400 rounds every block but block 0 took that path, a
// temporary counter showed). The counts must still land on zeroed counters (poisoned before
// every call), and two calls on fresh storage each.
BOOST_AUTO_TEST_CASE(gate_passed_before_block_0_opens_it) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  auto launcher = ::backend::launcher_with_sms(4);
  launcher.opt.first_block_late_rounds = 400;
  const std::int64_t n = std::int64_t(::backend::device_max_items()) + 3;
  for (spread s : {spread::uniform, spread::skewed}) {
    const auto samples = histogram_samples<unsigned char>(std::size_t(n), 0, 255, s, g);
    for (int call = 0; call < 2; ++call)
      check_device_histogram(samples, 256, tilekit::even_bins<unsigned char, int>(257, 0, 256),
                             std::string("uint8, block 0 late, ") + name(s), 0, launcher);
  }
}
