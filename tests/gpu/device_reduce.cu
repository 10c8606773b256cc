// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide reduce on the GPU: the shared cases, then tilekit::device and the
// cub facade against CUB itself on the same data.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/device_reduce.hpp"

#include <tilekit/cub/device_reduce.cuh>
#include <tilekit/device/reduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda_fp16.h>

namespace {

using tk_test::two_phase;

struct square {
  __host__ __device__ long long operator()(int x) const { return static_cast<long long>(x) * x; }
};

// tilekit::cub::DeviceReduce and ::cub::DeviceReduce on the same data must agree exactly.
template <class T>
void facade_matches_cub(std::int64_t n, tk_test::device_buffer<T>& in) {
  using out_buf = tk_test::device_buffer<T>;
  out_buf a(6, tk_test::poison<T>()), b(6, tk_test::poison<T>());
  tk_test::device_buffer<long long> ta(1, tk_test::poison<long long>()), tb(1, tk_test::poison<long long>());
  auto both = [&](auto call) {
    BOOST_TEST(two_phase([&](void* t, std::size_t& s) { return call(t, s, true); }) == cudaSuccess);
    BOOST_TEST(two_phase([&](void* t, std::size_t& s) { return call(t, s, false); }) == cudaSuccess);
  };
  const int num = static_cast<int>(n);
  both([&](void* t, std::size_t& s, bool tk) {
    return tk ? tilekit::cub::DeviceReduce::Sum(t, s, in.data(), a.data() + 0, num) : cub::DeviceReduce::Sum(t, s, in.data(), b.data() + 0, num);
  });
  both([&](void* t, std::size_t& s, bool tk) {
    return tk ? tilekit::cub::DeviceReduce::Min(t, s, in.data(), a.data() + 1, num) : cub::DeviceReduce::Min(t, s, in.data(), b.data() + 1, num);
  });
  both([&](void* t, std::size_t& s, bool tk) {
    return tk ? tilekit::cub::DeviceReduce::Max(t, s, in.data(), a.data() + 2, num) : cub::DeviceReduce::Max(t, s, in.data(), b.data() + 2, num);
  });
  both([&](void* t, std::size_t& s, bool tk) {
    return tk ? tilekit::cub::DeviceReduce::Reduce(t, s, in.data(), a.data() + 3, num, cuda::maximum<>{}, T(5))
              : cub::DeviceReduce::Reduce(t, s, in.data(), b.data() + 3, num, cuda::maximum<>{}, T(5));
  });
  if constexpr (std::is_same_v<T, int>) {
    both([&](void* t, std::size_t& s, bool tk) {
      return tk ? tilekit::cub::DeviceReduce::TransformReduce(t, s, in.data(), ta.data(), num, cuda::std::plus<>{}, square{}, 0ll)
                : cub::DeviceReduce::TransformReduce(t, s, in.data(), tb.data(), num, cuda::std::plus<>{}, square{}, 0ll);
    });
    BOOST_TEST(ta.to_host()[0] == tb.to_host()[0]);
  }
  const auto ha = a.to_host(), hb = b.to_host();
  for (int i = 0; i < 4; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (i == 0) {  // sums: other combination orders, within rounding
        BOOST_TEST(std::fabs(double(ha[i]) - double(hb[i])) <= 1e-4 * (1 + std::fabs(double(hb[i]))), "sum " << ha[i] << " vs CUB " << hb[i]);
        continue;
      }
    }
    BOOST_TEST(tk_test::same_value(ha[i], hb[i]), "result " << i << ": " << tk_test::show(ha[i]) << " vs CUB " << tk_test::show(hb[i]));
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_reduce)

BOOST_AUTO_TEST_CASE(cub_facade_matches_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<int> ints = tk_test::random_vector<int>(std::size_t(1) << 22, g);
  for (auto& x : ints) x %= 1000;
  std::vector<float> floats = tk_test::random_vector<float>(std::size_t(1) << 22, g);
  tk_test::device_buffer<int> di(ints);
  tk_test::device_buffer<float> df(floats);
  for (std::int64_t n : {0, 1, 33, 4095, 4097, 100000, 1 << 20, (1 << 22) - 1}) {
    BOOST_TEST_CONTEXT("n=" << n << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
      facade_matches_cub<int>(n, di);
      facade_matches_cub<float>(n, df);
    }
  }
}

BOOST_AUTO_TEST_CASE(arg_min_and_arg_max_match_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<float> h(std::size_t(1) << 21);
  for (auto& x : h) x = float(int(g() % 200) - 100);  // many ties at the extremes
  tk_test::device_buffer<float> in(h);
  for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(5000), std::int64_t(h.size())}) {
    BOOST_TEST_CONTEXT("n=" << n << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
      for (int max : {0, 1}) {
        tk_test::device_buffer<float> va(1, tk_test::poison<float>()), vb(1, tk_test::poison<float>());
        tk_test::device_buffer<std::int64_t> ia(1, tk_test::poison<std::int64_t>()), ib(1, tk_test::poison<std::int64_t>());
        BOOST_TEST(two_phase([&](void* t, std::size_t& s) {
                     return max ? tilekit::cub::DeviceReduce::ArgMax(t, s, in.data(), va.data(), ia.data(), n)
                                : tilekit::cub::DeviceReduce::ArgMin(t, s, in.data(), va.data(), ia.data(), n);
                   }) == cudaSuccess);
        BOOST_TEST(two_phase([&](void* t, std::size_t& s) {
                     return max ? cub::DeviceReduce::ArgMax(t, s, in.data(), vb.data(), ib.data(), n)
                                : cub::DeviceReduce::ArgMin(t, s, in.data(), vb.data(), ib.data(), n);
                   }) == cudaSuccess);
        if (n == 0) {  // CUB documents {max (ArgMin) or lowest (ArgMax), index 1}; CCCL 3.0.1's CUB writes nothing
          const float empty = max ? std::numeric_limits<float>::lowest() : std::numeric_limits<float>::max();
          BOOST_TEST(va.to_host()[0] == empty);
          BOOST_TEST(ia.to_host()[0] == 1);
          continue;
        }
        BOOST_TEST(tk_test::same_value(va.to_host()[0], vb.to_host()[0]));
        BOOST_TEST(ia.to_host()[0] == ib.to_host()[0]);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(native_entry_points) {
  std::vector<int> h(1000003);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = int(i % 201) - 100;
  tk_test::device_buffer<int> in(h), out(3, tk_test::poison<int>());
  cudaStream_t stream;
  TK_CUDA_CHECK(cudaStreamCreate(&stream));
  BOOST_TEST(tilekit::device::sum(in.data(), std::int64_t(h.size()), out.data() + 0, stream) == cudaSuccess);
  BOOST_TEST(tilekit::device::min(in.data(), std::int64_t(h.size()), out.data() + 1, stream) == cudaSuccess);
  BOOST_TEST(tilekit::device::max(in.data(), std::int64_t(h.size()), out.data() + 2, stream) == cudaSuccess);
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  TK_CUDA_CHECK(cudaStreamDestroy(stream));
  long long want = 0;
  for (int x : h) want += x;
  const auto got = out.to_host();
  BOOST_TEST(got[0] == want);
  BOOST_TEST(got[1] == -100);
  BOOST_TEST(got[2] == 100);
  BOOST_TEST(tilekit::device::sum(in.data(), -5, out.data()) == cudaErrorInvalidValue);
}

// A failed runtime call earlier in the thread (its error still pending for
// cudaGetLastError) is not reported as this call's failure.
BOOST_AUTO_TEST_CASE(an_earlier_runtime_error_is_not_reported) {
  tk_test::device_buffer<int> in(std::vector<int>(5000, 2)), out(1, tk_test::poison<int>());
  BOOST_REQUIRE(cudaMemcpy(in.data(), nullptr, 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  BOOST_TEST(tilekit::device::sum(in.data(), std::int64_t(5000), out.data()) == cudaSuccess);
  (void)cudaGetLastError();
  BOOST_TEST(out.to_host()[0] == 10000);
}

// __half: values 0, 0.5 and 1, so every partial sum up to 1000 items is exact in half precision.
BOOST_AUTO_TEST_CASE(half_sums_exactly) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  for (int n : {0, 1, 31, 999, 1000}) {
    std::vector<__half> h(std::size_t(n) + 1);
    double want = 0;
    for (int i = 0; i < n; ++i) {
      const double x = 0.5 * double(g() % 3);
      h[std::size_t(i)] = __double2half(x);
      want += x;
    }
    tk_test::device_buffer<__half> in(h), out(1, __double2half(-7.0));
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) {
                 return tilekit::cub::DeviceReduce::Sum(t, b, in.data(), out.data(), n);
               }) == cudaSuccess);
    BOOST_TEST(__half2float(out.to_host()[0]) == float(want), "n=" << n << ", TILEKIT_TEST_SEED=" << tk_test::base_seed());
  }
}

BOOST_AUTO_TEST_CASE(under_graph_capture) {
  std::vector<int> h(300000, 3);
  tk_test::device_buffer<int> in(h), out(1, tk_test::poison<int>());
  cudaStream_t stream;
  TK_CUDA_CHECK(cudaStreamCreate(&stream));
  std::size_t bytes = 0;
  BOOST_TEST(tilekit::cub::DeviceReduce::Sum(nullptr, bytes, in.data(), out.data(), int(h.size()), stream) == cudaSuccess);
  void* temp = nullptr;
  TK_CUDA_CHECK(cudaMalloc(&temp, bytes));
  cudaGraph_t graph;
  TK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  BOOST_TEST(tilekit::cub::DeviceReduce::Sum(temp, bytes, in.data(), out.data(), int(h.size()), stream) == cudaSuccess);
  TK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  TK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) TK_CUDA_CHECK(cudaGraphLaunch(exec, stream));  // replays reuse the temp storage
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  BOOST_TEST(out.to_host()[0] == 900000);
  TK_CUDA_CHECK(cudaGraphExecDestroy(exec));
  TK_CUDA_CHECK(cudaGraphDestroy(graph));
  TK_CUDA_CHECK(cudaFree(temp));
  TK_CUDA_CHECK(cudaStreamDestroy(stream));
}

BOOST_AUTO_TEST_SUITE_END()
