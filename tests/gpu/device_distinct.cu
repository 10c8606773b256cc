// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide distinct, unique count and count on the GPU: the shared cases, then
// the native entry points (allocating forms, a stream) against Thrust's count.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/device_distinct.hpp"

#include <tilekit/device/distinct.cuh>
#include <tilekit/device/histogram.cuh>
#include <tilekit/device/run_length_encode.cuh>
#include <tilekit/device/select.cuh>

#include <thrust/count.h>
#include <thrust/execution_policy.h>

BOOST_AUTO_TEST_SUITE(device_distinct_native)

BOOST_AUTO_TEST_CASE(entry_points_in_a_stream) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<int> h(3000017);
  for (auto& x : h) x = int(g() % 50000) - 25000;
  tk_test::device_buffer<int> in(h), out(h.size(), tk_test::poison<int>());
  tk_test::device_buffer<std::int64_t> nums(3, tk_test::poison<std::int64_t>());
  cudaStream_t stream;
  TK_CUDA_CHECK(cudaStreamCreate(&stream));
  const auto n = std::int64_t(h.size());
  BOOST_TEST(tilekit::device::distinct(in.data(), n, out.data(), nums.data(), stream) == cudaSuccess);
  BOOST_TEST(tilekit::device::unique_count(in.data(), n, nums.data() + 1, stream) == cudaSuccess);
  BOOST_TEST(tilekit::device::count(in.data(), n, 7, nums.data() + 2, stream) == cudaSuccess);
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  TK_CUDA_CHECK(cudaStreamDestroy(stream));
  const auto got = nums.to_host();
  std::vector<int> first;
  std::vector<char> seen(50000, 0);
  std::int64_t runs = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (!seen[std::size_t(h[i] + 25000)]) seen[std::size_t(h[i] + 25000)] = 1, first.push_back(h[i]);
    runs += i == 0 || h[i] != h[i - 1];
  }
  BOOST_TEST(got[0] == std::int64_t(first.size()));
  const auto keys = out.to_host();
  BOOST_TEST(std::equal(first.begin(), first.end(), keys.begin()));
  BOOST_TEST(got[1] == runs);
  BOOST_TEST(got[2] == std::int64_t(thrust::count(thrust::device, in.data(), in.data() + n, 7)));
}

// Select, histogram, run-length encode and distinct captured into one CUDA graph
// (their memsets and launches are stream work; storage allocated before capture),
// replayed twice on the same data: the same answers as the CPU each time.
BOOST_AUTO_TEST_CASE(under_graph_capture) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<int> h(1000003);
  for (auto& x : h) x = g() % 4 == 0 ? int(g() % 300) : 42;
  const auto n = std::int64_t(h.size());
  tk_test::device_buffer<int> in(h), selected(h.size(), 0), keys(h.size(), 0), lengths(h.size(), 0), uniq(h.size(), 0);
  tk_test::device_buffer<unsigned> bins(300, 0u);
  tk_test::device_buffer<std::int64_t> counts(3, 0);
  const auto below_100 = [] __host__ __device__(int x) { return x < 100; };
  cudaStream_t stream;
  TK_CUDA_CHECK(cudaStreamCreate(&stream));
  std::size_t b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  BOOST_REQUIRE(tilekit::device::select_if(nullptr, b0, in.data(), n, selected.data(), counts.data(), below_100) == cudaSuccess);
  BOOST_REQUIRE(tilekit::device::histogram_even(nullptr, b1, in.data(), n, bins.data(), 301, 0, 300) == cudaSuccess);
  BOOST_REQUIRE(tilekit::device::run_length_encode(nullptr, b2, in.data(), n, keys.data(), lengths.data(), counts.data() + 1) ==
                cudaSuccess);
  BOOST_REQUIRE(tilekit::device::distinct(nullptr, b3, in.data(), n, uniq.data(), counts.data() + 2) == cudaSuccess);
  tk_test::device_buffer<unsigned char> t0(b0, 0), t1(b1, 0), t2(b2, 0), t3(b3, 0);
  cudaGraph_t graph;
  TK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  BOOST_TEST(tilekit::device::select_if(t0.data(), b0, in.data(), n, selected.data(), counts.data(), below_100, stream) == cudaSuccess);
  BOOST_TEST(tilekit::device::histogram_even(t1.data(), b1, in.data(), n, bins.data(), 301, 0, 300, stream) == cudaSuccess);
  BOOST_TEST(tilekit::device::run_length_encode(t2.data(), b2, in.data(), n, keys.data(), lengths.data(), counts.data() + 1,
                                                stream) == cudaSuccess);
  BOOST_TEST(tilekit::device::distinct(t3.data(), b3, in.data(), n, uniq.data(), counts.data() + 2, stream) == cudaSuccess);
  TK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  TK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  std::int64_t want_selected = 0, want_runs = 0;
  std::vector<unsigned> want_bins(300, 0);
  std::vector<char> seen(300, 0);
  std::vector<int> want_distinct;
  for (std::size_t i = 0; i < h.size(); ++i) {
    want_selected += h[i] < 100;
    want_runs += i == 0 || h[i] != h[i - 1];
    ++want_bins[std::size_t(h[i])];
    if (!seen[std::size_t(h[i])]) seen[std::size_t(h[i])] = 1, want_distinct.push_back(h[i]);
  }
  for (int replay = 0; replay < 2; ++replay) {
    TK_CUDA_CHECK(cudaGraphLaunch(exec, stream));
    TK_CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto c = counts.to_host();
    const auto u = uniq.to_host();
    BOOST_TEST_CONTEXT("replay " << replay << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
      BOOST_TEST(c[0] == want_selected);
      BOOST_TEST(c[1] == want_runs);
      BOOST_TEST(c[2] == std::int64_t(want_distinct.size()));
      BOOST_TEST(bins.to_host() == want_bins);
      BOOST_TEST(std::equal(want_distinct.begin(), want_distinct.end(), u.begin()));
    }
  }
  TK_CUDA_CHECK(cudaGraphExecDestroy(exec));
  TK_CUDA_CHECK(cudaGraphDestroy(graph));
  TK_CUDA_CHECK(cudaStreamDestroy(stream));
}

BOOST_AUTO_TEST_SUITE_END()
