// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The simulator half of the conformance test (tests/gpu/sim_conformance.cu):
// runs each generated call in tilekit::sim, one launch per call, so a call the
// simulator rejects as undefined (a read from a lane outside the mask) is
// recorded and left out of the comparison without stopping the others.
#include "../cases/conformance.hpp"

#include <tilekit/sim.cuh>

#include <cstdint>
#include <string>
#include <vector>

namespace tk_conf {

struct sim_intrinsics {
  template <class T>
  static T shfl(unsigned m, T v, unsigned b, int w) { return tilekit::sim::shfl_sync(m, v, int(b), w); }
  template <class T>
  static T shfl_up(unsigned m, T v, unsigned b, int w) { return tilekit::sim::shfl_up_sync(m, v, b, w); }
  template <class T>
  static T shfl_down(unsigned m, T v, unsigned b, int w) { return tilekit::sim::shfl_down_sync(m, v, b, w); }
  template <class T>
  static T shfl_xor(unsigned m, T v, unsigned b, int w) { return tilekit::sim::shfl_xor_sync(m, v, int(b), w); }
  static unsigned ballot(unsigned m, bool p) { return tilekit::sim::ballot_sync(m, p); }
  static int any(unsigned m, bool p) { return tilekit::sim::any_sync(m, p); }
  static int all(unsigned m, bool p) { return tilekit::sim::all_sync(m, p); }
  template <class T>
  static unsigned match_any(unsigned m, T v) { return tilekit::sim::match_any_sync(m, v); }
  template <class T>
  static unsigned match_all(unsigned m, T v, int* p) { return tilekit::sim::match_all_sync(m, v, p); }
  template <class T>
  static T reduce_add(unsigned m, T v) { return tilekit::sim::reduce_add_sync(m, v); }
  template <class T>
  static T reduce_min(unsigned m, T v) { return tilekit::sim::reduce_min_sync(m, v); }
  template <class T>
  static T reduce_max(unsigned m, T v) { return tilekit::sim::reduce_max_sync(m, v); }
  static unsigned reduce_and(unsigned m, unsigned v) { return tilekit::sim::reduce_and_sync(m, v); }
  static unsigned reduce_or(unsigned m, unsigned v) { return tilekit::sim::reduce_or_sync(m, v); }
  static unsigned reduce_xor(unsigned m, unsigned v) { return tilekit::sim::reduce_xor_sync(m, v); }
};

/// Results of every call in the simulator; undefined[k] = 1 where the simulator
/// refused call k because a lane would read an inactive lane (its message in `why`).
std::vector<std::uint64_t> run_in_sim(const std::vector<call>& calls, std::vector<unsigned char>& undefined,
                                      std::string& first_refusal) {
  std::vector<std::uint64_t> out(32 * calls.size(), not_written);
  undefined.assign(calls.size(), 0);
  for (std::size_t k = 0; k < calls.size(); ++k) {
    try {
      tilekit::sim::launch(1, 32, body<dispatch<sim_intrinsics>>{calls.data(), out.data(), k});
    } catch (const tilekit::sim::error& e) {
      const std::string what = e.what();
      if (what.find("not in the mask (inactive)") == std::string::npos) throw;
      undefined[k] = 1;
      if (first_refusal.empty()) first_refusal = what;
      for (unsigned l = 0; l < 32; ++l) out[32 * k + l] = not_written;
    }
  }
  return out;
}

}  // namespace tk_conf
