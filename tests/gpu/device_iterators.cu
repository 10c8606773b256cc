// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every device algorithm through thrust::device_ptr on the GPU: the launcher-generic
// dispatch (the shared cases), the tilekit::device entry points and the CUB facade.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/device_iterators.hpp"

#include <tilekit/cub.cuh>
#include <tilekit/device/distinct.cuh>
#include <tilekit/device/histogram.cuh>
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/run_length_encode.cuh>
#include <tilekit/device/scan.cuh>
#include <tilekit/device/select.cuh>

#include <thrust/device_vector.h>

namespace {

struct is_odd {
  __host__ __device__ bool operator()(int x) const { return (x & 1) != 0; }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(device_ptr_entry_points)

// The tilekit::device entry points and the CUB facade with thrust::device_ptr (and
// thrust::device_vector's iterators' underlying pointers) for inputs and outputs.
BOOST_AUTO_TEST_CASE(entry_points_and_facade) {
  using namespace tk_test;
  namespace cub = tilekit::cub;
  auto g = rng_for(next_salt());
  const int n = 100003;
  const std::vector<int> x = runs_of_small_values(std::size_t(n), g);
  thrust::device_vector<int> in(x.begin(), x.end()), out(n, poison<int>()), lengths(n, poison<int>());
  thrust::device_vector<int> one(4, poison<int>());
  thrust::device_vector<unsigned char> flags(n);
  thrust::device_ptr<int> d_in = in.data(), d_out = out.data(), d_one = one.data(), d_lengths = lengths.data();
  std::vector<int> want_inc(x.size()), want_exc(x.size()), odd_items, unique_items, run_lengths;
  std::inclusive_scan(x.begin(), x.end(), want_inc.begin());
  std::exclusive_scan(x.begin(), x.end(), want_exc.begin(), 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] & 1) odd_items.push_back(x[i]);
    if (i == 0 || x[i] != x[i - 1]) unique_items.push_back(x[i]), run_lengths.push_back(0);
    ++run_lengths.back();
  }
  const long long sum = std::accumulate(x.begin(), x.end(), 0ll);
  const auto min_at = std::min_element(x.begin(), x.end());
  auto prefix = [](const thrust::device_vector<int>& v, std::size_t count) {
    std::vector<int> h(v.size());
    thrust::copy(v.begin(), v.end(), h.begin());
    h.resize(count);
    return h;
  };
  BOOST_TEST_CONTEXT("TILEKIT_TEST_SEED=" << base_seed()) {
    // tilekit::device
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return tilekit::device::reduce(t, b, d_in, n, d_one, tilekit::plus{}, 0); }) == cudaSuccess);
    BOOST_TEST(one[0] == int(sum));
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return tilekit::device::arg_min(t, b, d_in, n, d_one, d_one + 1); }) == cudaSuccess);
    BOOST_TEST(one[0] == *min_at);
    BOOST_TEST(one[1] == int(min_at - x.begin()));
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return tilekit::device::inclusive_sum(t, b, d_in, n, d_out); }) == cudaSuccess);
    BOOST_TEST(prefix(out, x.size()) == want_inc);
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return tilekit::device::select_if(t, b, d_in, n, d_out, d_one, is_odd{}); }) == cudaSuccess);
    BOOST_TEST(one[0] == int(odd_items.size()));
    BOOST_TEST(prefix(out, odd_items.size()) == odd_items);
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) {
                 return tilekit::device::run_length_encode(t, b, d_in, n, d_out, d_lengths, d_one);
               }) == cudaSuccess);
    BOOST_TEST(one[0] == int(unique_items.size()));
    BOOST_TEST(prefix(out, unique_items.size()) == unique_items);
    BOOST_TEST(prefix(lengths, run_lengths.size()) == run_lengths);
    // tilekit::cub, as CUB code passes thrust::device_ptr
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return cub::DeviceReduce::Sum(t, b, d_in, d_one, n); }) == cudaSuccess);
    BOOST_TEST(one[0] == int(sum));
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return cub::DeviceReduce::ArgMin(t, b, d_in, d_one, d_one + 1, n); }) == cudaSuccess);
    BOOST_TEST(one[0] == *min_at);
    BOOST_TEST(one[1] == int(min_at - x.begin()));
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, d_in, d_out, n); }) == cudaSuccess);
    BOOST_TEST(prefix(out, x.size()) == want_exc);
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return cub::DeviceSelect::If(t, b, d_in, d_out, d_one, n, is_odd{}); }) == cudaSuccess);
    BOOST_TEST(one[0] == int(odd_items.size()));
    BOOST_TEST(prefix(out, odd_items.size()) == odd_items);
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) { return cub::DeviceSelect::Unique(t, b, d_in, d_out, d_one, n); }) == cudaSuccess);
    BOOST_TEST(one[0] == int(unique_items.size()));
    BOOST_TEST(prefix(out, unique_items.size()) == unique_items);
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) {
                 return cub::DeviceRunLengthEncode::Encode(t, b, d_in, d_out, d_lengths, d_one, n);
               }) == cudaSuccess);
    BOOST_TEST(one[0] == int(unique_items.size()));
    BOOST_TEST(prefix(lengths, run_lengths.size()) == run_lengths);
    thrust::device_vector<int> hist(50, poison<int>());
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) {
                 return cub::DeviceHistogram::HistogramEven(t, b, d_in, hist.data().get(), 51, 0, 50, n);
               }) == cudaSuccess);
    std::vector<int> want_hist(50, 0), got_hist(50);
    for (int v : x) ++want_hist[std::size_t(v)];
    thrust::copy(hist.begin(), hist.end(), got_hist.begin());
    BOOST_TEST(got_hist == want_hist);
  }
}

BOOST_AUTO_TEST_SUITE_END()
