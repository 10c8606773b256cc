// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The simulator against the H200, bit for bit: every shuffle (all four kinds)
// x width 1..32 x lane / delta / lane mask 0..63 x full, partial and divergent
// masks x 32- and 64-bit values, and every vote, match and redux x the same
// masks x value patterns. The calls are generated once; the GPU runs them all in
// one launch, the simulator one launch per call (tests/sim/conformance_sim.cpp).
#include "../cases/conformance.hpp"
#include "../common/gpu_backend.cuh"
#include "../common/test_support.hpp"

#include <string>

namespace tk_conf {

std::vector<std::uint64_t> run_in_sim(const std::vector<call>& calls, std::vector<unsigned char>& undefined,
                                      std::string& first_refusal);

struct gpu_intrinsics {
  template <class T>
  __device__ static T shfl(unsigned m, T v, unsigned b, int w) { return __shfl_sync(m, v, int(b), w); }
  template <class T>
  __device__ static T shfl_up(unsigned m, T v, unsigned b, int w) { return __shfl_up_sync(m, v, b, w); }
  template <class T>
  __device__ static T shfl_down(unsigned m, T v, unsigned b, int w) { return __shfl_down_sync(m, v, b, w); }
  template <class T>
  __device__ static T shfl_xor(unsigned m, T v, unsigned b, int w) { return __shfl_xor_sync(m, v, int(b), w); }
  __device__ static unsigned ballot(unsigned m, bool p) { return __ballot_sync(m, p); }
  __device__ static int any(unsigned m, bool p) { return __any_sync(m, p); }
  __device__ static int all(unsigned m, bool p) { return __all_sync(m, p); }
  template <class T>
  __device__ static unsigned match_any(unsigned m, T v) { return __match_any_sync(m, v); }
  template <class T>
  __device__ static unsigned match_all(unsigned m, T v, int* p) { return __match_all_sync(m, v, p); }
  template <class T>
  __device__ static T reduce_add(unsigned m, T v) { return __reduce_add_sync(m, v); }
  template <class T>
  __device__ static T reduce_min(unsigned m, T v) { return __reduce_min_sync(m, v); }
  template <class T>
  __device__ static T reduce_max(unsigned m, T v) { return __reduce_max_sync(m, v); }
  __device__ static unsigned reduce_and(unsigned m, unsigned v) { return __reduce_and_sync(m, v); }
  __device__ static unsigned reduce_or(unsigned m, unsigned v) { return __reduce_or_sync(m, v); }
  __device__ static unsigned reduce_xor(unsigned m, unsigned v) { return __reduce_xor_sync(m, v); }
};

}  // namespace tk_conf

BOOST_AUTO_TEST_CASE(simulator_matches_the_gpu_bit_for_bit) {
  using namespace tk_conf;
  const std::uint32_t seed = static_cast<std::uint32_t>(tk_test::base_seed());
  const std::vector<call> calls = generate(seed);
  BOOST_TEST_MESSAGE(calls.size() << " generated calls");

  tk_test::device_buffer<call> d_calls(calls);
  tk_test::device_buffer<std::uint64_t> d_out(32 * calls.size(), not_written);
  for (std::size_t first = 0; first < calls.size(); first += 65535) {
    const unsigned grid = static_cast<unsigned>(std::min<std::size_t>(65535, calls.size() - first));
    TK_CUDA_CHECK(tilekit::launch(grid, 32, 0, body<dispatch<gpu_intrinsics>>{d_calls.data(), d_out.data(), first}));
  }
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<std::uint64_t> gpu = d_out.to_host();

  std::vector<unsigned char> undefined;
  std::string refusal;
  const std::vector<std::uint64_t> sim = run_in_sim(calls, undefined, refusal);

  std::size_t compared = 0, skipped = 0, mismatched_calls = 0;
  std::size_t per_prim[prim_count] = {};
  BOOST_TEST_CONTEXT("TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
    for (std::size_t k = 0; k < calls.size(); ++k) {
      const call& c = calls[k];
      if (undefined[k]) {
        ++skipped;
        BOOST_TEST(c.mask_a != 0xffffffffu, "with every lane active no read can be undefined (call " << k << ")");
        continue;
      }
      ++compared;
      ++per_prim[c.prim];
      bool same = true;
      for (unsigned l = 0; l < 32; ++l) same = same && gpu[32 * k + l] == sim[32 * k + l];
      if (!same && ++mismatched_calls <= 10) {
        std::string lanes;
        for (unsigned l = 0; l < 32; ++l)
          if (gpu[32 * k + l] != sim[32 * k + l])
            lanes += " lane " + std::to_string(l) + ": gpu " + std::to_string(gpu[32 * k + l]) + " sim " +
                     std::to_string(sim[32 * k + l]) + ";";
        BOOST_ERROR(prim_name(c.prim) << " mask_a " << std::hex << c.mask_a << " mask_b " << c.mask_b << std::dec
                                      << " width " << c.width << " b " << c.b << (c.wide ? " 64-bit" : " 32-bit")
                                      << " mod " << c.value_mod << ":" << lanes);
      }
    }
  }
  std::printf("conformance: %zu calls compared bit for bit (%zu mismatched), %zu left out as undefined on the GPU\n",
              compared, mismatched_calls, skipped);
  for (std::uint32_t p = 0; p < prim_count; ++p) std::printf("  %-22s %zu calls\n", prim_name(p), per_prim[p]);
  if (!refusal.empty()) std::printf("  e.g. %s\n", refusal.c_str());
  BOOST_TEST(mismatched_calls == 0u);
  BOOST_TEST(compared > 20000u);
}
