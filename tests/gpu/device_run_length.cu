// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide run-length encoding on the GPU: the shared cases, then the cub
// facade against CUB itself on the same data.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/device_run_length.hpp"

#include <tilekit/cub/device_run_length_encode.cuh>

#include <cub/device/device_run_length_encode.cuh>

BOOST_AUTO_TEST_SUITE(device_run_length)

BOOST_AUTO_TEST_CASE(cub_facade_matches_cub) {
  using tk_test::two_phase;
  auto g = tk_test::rng_for(tk_test::next_salt());
  for (tk_test::run_shape s : {tk_test::run_shape::random_short, tk_test::run_shape::random_long, tk_test::run_shape::all_equal}) {
    const int n = (1 << 22) + 5;
    tk_test::device_buffer<int> in(tk_test::run_data(std::size_t(n), s, g));
    for (int non_trivial : {0, 1}) {
      tk_test::device_buffer<int> ka(std::size_t(n), 0), la(std::size_t(n), 0), ra(1, -1);
      tk_test::device_buffer<int> kb(std::size_t(n), 0), lb(std::size_t(n), 0), rb(1, -1);
      BOOST_TEST(two_phase([&](void* t, std::size_t& b) {
                   return non_trivial ? tilekit::cub::DeviceRunLengthEncode::NonTrivialRuns(t, b, in.data(), ka.data(), la.data(), ra.data(), n)
                                      : tilekit::cub::DeviceRunLengthEncode::Encode(t, b, in.data(), ka.data(), la.data(), ra.data(), n);
                 }) == cudaSuccess);
      BOOST_TEST(two_phase([&](void* t, std::size_t& b) {
                   return non_trivial ? cub::DeviceRunLengthEncode::NonTrivialRuns(t, b, in.data(), kb.data(), lb.data(), rb.data(), n)
                                      : cub::DeviceRunLengthEncode::Encode(t, b, in.data(), kb.data(), lb.data(), rb.data(), n);
                 }) == cudaSuccess);
      const int runs = rb.to_host()[0];
      BOOST_TEST_CONTEXT(tk_test::name(s) << (non_trivial ? " NonTrivialRuns" : " Encode") << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
        BOOST_TEST(ra.to_host()[0] == runs);
        const auto hka = ka.to_host(), hkb = kb.to_host(), hla = la.to_host(), hlb = lb.to_host();
        std::size_t bad = 0;
        for (int r = 0; r < runs; ++r) bad += hka[std::size_t(r)] != hkb[std::size_t(r)] || hla[std::size_t(r)] != hlb[std::size_t(r)];
        BOOST_TEST(bad == 0u, bad << " runs differ from CUB");
      }
    }
  }
}

// num_items is 64-bit: a count past 2^32 is not cut to its low 32 bits (CCCL 3.0's int would make
// 2^32 + 5 items 5), and one past 2^63 - 1 (negative as int64) is cudaErrorInvalidValue.
BOOST_AUTO_TEST_CASE(cub_facade_counts_are_64_bit) {
  std::size_t small = 0, large = 0, wrapped = 7;
  const int* in = nullptr;
  int *keys = nullptr, *lengths = nullptr, *runs = nullptr;
  BOOST_TEST(tilekit::cub::DeviceRunLengthEncode::Encode(nullptr, small, in, keys, lengths, runs, 5) == cudaSuccess);
  BOOST_TEST(tilekit::cub::DeviceRunLengthEncode::Encode(nullptr, large, in, keys, lengths, runs, (1ll << 32) + 5) == cudaSuccess);
  BOOST_TEST(large > small, "the size query for 2^32 + 5 items (" << large << " bytes) is that for 5 (" << small << ")");
  BOOST_TEST(tilekit::cub::DeviceRunLengthEncode::NonTrivialRuns(nullptr, wrapped, in, keys, lengths, runs, ~0ull) ==
             cudaErrorInvalidValue);
  BOOST_TEST(wrapped == 7u);
}

BOOST_AUTO_TEST_SUITE_END()
