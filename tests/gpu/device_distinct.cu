// Device-wide distinct, unique count and count on the GPU: the shared cases, then
// the native entry points (allocating forms, a stream) against Thrust's count.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/device_distinct.hpp"

#include <tilekit/device/distinct.cuh>

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

BOOST_AUTO_TEST_SUITE_END()
