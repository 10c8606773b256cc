// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide reduce on the GPU: the shared cases, then tilekit::device and the
// cub facade against CUB itself on the same data.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/device_reduce.hpp"
#include "../cases/device_segmented_reduce.hpp"
#include "../cases/device_reduce_by_key.hpp"
#include "../common/replay_slices.cuh"

#include <tilekit/cub/device_reduce.cuh>
#include <tilekit/cub/device_segmented_reduce.cuh>
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/scan.cuh>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cuda_fp16.h>

#include <algorithm>
#include <memory>
#include <string>
#include <thread>

namespace {

using tk_test::two_phase;

struct square {
  __host__ __device__ long long operator()(int x) const { return static_cast<long long>(x) * x; }
};

// tilekit::cub::DeviceReduce and ::cub::DeviceReduce on the same data must agree exactly.
template <class T>
void facade_matches_cub(std::int64_t n, tk_test::device_buffer<T>& in, const std::vector<T>& host) {
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
        // Rounding scales with the items' magnitudes, not the sum's (which cancellation can
        // bring near 0: 155.9 of 2^22 items in [-1000, 1000] once, 0.2 apart from CUB's). A
        // missing item is caught where it is above 4e-9 of their sum (8 at 2^22 items).
        double magnitudes = 0;
        for (std::int64_t k = 0; k < n; ++k) magnitudes += std::fabs(double(host[std::size_t(k)]));
        const double apart = std::fabs(double(ha[i]) - double(hb[i]));
        BOOST_TEST((apart <= 1e-4 * (1 + std::fabs(double(hb[i]))) || apart <= 4e-9 * magnitudes),
                   "sum " << ha[i] << " vs CUB " << hb[i] << " (item magnitudes " << magnitudes << ")");
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
      facade_matches_cub<int>(n, di, ints);
      facade_matches_cub<float>(n, df, floats);
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

// Precondition of the case below: compute-sanitizer counts its deliberately failed runtime call as
// an API error, so under tests/sanitize (which sets TILEKIT_TEST_SANITIZER) it is skipped.
boost::test_tools::assertion_result outside_a_sanitizer(boost::unit_test::test_unit_id) {
  const char* tool = std::getenv("TILEKIT_TEST_SANITIZER");
  boost::test_tools::assertion_result r(tool == nullptr || *tool == 0);
  r.message() << "skipped under compute-sanitizer (TILEKIT_TEST_SANITIZER set): it fails a runtime call on purpose";
  return r;
}

// A failed runtime call earlier in the thread (its error still pending for
// cudaGetLastError) is not reported as this call's failure.
BOOST_AUTO_TEST_CASE(an_earlier_runtime_error_is_not_reported, *boost::unit_test::precondition(outside_a_sanitizer)) {
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

// Captured into a graph and replayed: the grid's hand-off (300000 ints, and long longs: the first
// replay finds the storage as cudaMalloc left it and takes the tagged one, the others the packed
// one) and, where the device runs clusters, the cluster (50000 doubles: 8-byte sums that do not
// pack, past one block's chunk).
template <class T>
void check_under_graph_capture(int n) {
  std::vector<T> h(std::size_t(n), T(3));
  tk_test::device_buffer<T> in(h), out(1, tk_test::poison<T>());
  cudaStream_t stream;
  TK_CUDA_CHECK(cudaStreamCreate(&stream));
  std::size_t bytes = 0;
  BOOST_TEST(tilekit::cub::DeviceReduce::Sum(nullptr, bytes, in.data(), out.data(), n, stream) == cudaSuccess);
  void* temp = nullptr;
  TK_CUDA_CHECK(cudaMalloc(&temp, bytes));
  cudaGraph_t graph;
  TK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  BOOST_TEST(tilekit::cub::DeviceReduce::Sum(temp, bytes, in.data(), out.data(), n, stream) == cudaSuccess);
  TK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  TK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < 3; ++i) TK_CUDA_CHECK(cudaGraphLaunch(exec, stream));  // replays reuse the temp storage
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  BOOST_TEST(out.to_host()[0] == T(3) * T(n), "n=" << n);
  TK_CUDA_CHECK(cudaGraphExecDestroy(exec));
  TK_CUDA_CHECK(cudaGraphDestroy(graph));
  TK_CUDA_CHECK(cudaFree(temp));
  TK_CUDA_CHECK(cudaStreamDestroy(stream));
}

BOOST_AUTO_TEST_CASE(under_graph_capture) {
  check_under_graph_capture<int>(300000);
  check_under_graph_capture<long long>(300000);
  const unsigned blocks = tilekit::detail::reduce_cluster_blocks<const double*, double, tilekit::plus>(tilekit::gpu_launcher{});
  BOOST_TEST(blocks == (tilekit::gpu_launcher{}.has_clusters() ? tilekit::reduce_tuning::cluster_blocks : 0u));
  if (blocks > 0)  // one cluster's, not one block's
    BOOST_TEST((tilekit::detail::reduce_storage_free_items<const double*, double, tilekit::plus>(blocks)) >= 50000);
  check_under_graph_capture<double>(50000);
}

// ---- one launch, no memset: the slots' tags across calls, graph replays and streams

namespace {

std::vector<long long> slice_sums(const std::vector<int>& all, std::size_t n) {
  std::vector<long long> sums(all.size() / n, 0);
  for (std::size_t k = 0; k < sums.size(); ++k)
    for (std::size_t i = 0; i < n; ++i) sums[k] += all[k * n + i];
  return sums;
}

}  // namespace

// A graph of (copy slice k into the input, reduce, keep the result) replayed 100 times on
// the same temporary storage, never cleared: each replay must sum its own slice (the
// replays repeat the call's tag, so a slot the previous replay left unread would add a
// stale total).
BOOST_AUTO_TEST_CASE(graph_replayed_100_times_on_the_same_storage) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  constexpr unsigned replays = 100;
  const std::size_t n = tk_test::gpu_backend::small() ? 100003 : 1000003;  // many blocks
  std::vector<int> all(n * replays);
  for (auto& x : all) x = int(g() % 2001) - 1000;
  tk_test::device_buffer<int> inputs(all), in(n, 0);
  tk_test::device_buffer<long long> out(1, tk_test::poison<long long>()), results(replays, tk_test::poison<long long>());
  tk_test::device_buffer<unsigned> next(1, 0u);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device::reduce(nullptr, bytes, in.data(), std::int64_t(n), out.data(), tilekit::plus{}, 0ll) == cudaSuccess);
  tk_test::device_buffer<unsigned char> temp(bytes, 0xCD);
  cudaStream_t stream;
  TK_CUDA_CHECK(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  TK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  tk_test::pick_slice<<<264, 256, 0, stream>>>(inputs.data(), in.data(), (long long)n, next.data());
  BOOST_TEST(tilekit::device::reduce(temp.data(), bytes, in.data(), std::int64_t(n), out.data(), tilekit::plus{}, 0ll,
                                     stream) == cudaSuccess);
  tk_test::keep_results<<<1, 32, 0, stream>>>(out.data(), results.data(), 1u, next.data());
  TK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  TK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (unsigned i = 0; i < replays; ++i) TK_CUDA_CHECK(cudaGraphLaunch(exec, stream));
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto want = slice_sums(all, n);
  const auto got = results.to_host();
  int wrong = 0;
  for (unsigned k = 0; k < replays; ++k) wrong += got[k] != want[k];
  BOOST_TEST(wrong == 0, wrong << " of " << replays << " replays wrong (first: replay "
                               << (std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin())
                               << "), TILEKIT_TEST_SEED=" << tk_test::base_seed());
  TK_CUDA_CHECK(cudaGraphExecDestroy(exec));
  TK_CUDA_CHECK(cudaGraphDestroy(graph));
  TK_CUDA_CHECK(cudaStreamDestroy(stream));
}

// Calls on 8 streams at once, each stream with its own temporary storage (reused by its
// calls, never cleared) and its own data; float sums must also repeat bitwise.
BOOST_AUTO_TEST_CASE(concurrent_calls_on_8_streams) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  constexpr int streams = 8, calls = 12;
  const std::size_t n = tk_test::gpu_backend::small() ? 50001 : 2000003;
  std::vector<std::vector<float>> data(streams);
  std::vector<std::unique_ptr<tk_test::device_buffer<float>>> in, out;
  std::vector<std::unique_ptr<tk_test::device_buffer<unsigned char>>> temp;
  std::vector<cudaStream_t> s(streams);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device::reduce(nullptr, bytes, static_cast<const float*>(nullptr), std::int64_t(n),
                                        static_cast<float*>(nullptr), tilekit::plus{}, 0.0f) == cudaSuccess);
  for (int k = 0; k < streams; ++k) {
    data[k] = tk_test::random_vector<float>(n - std::size_t(k) * 17, g);
    in.push_back(std::make_unique<tk_test::device_buffer<float>>(data[k]));
    out.push_back(std::make_unique<tk_test::device_buffer<float>>(std::size_t(calls), tk_test::poison<float>()));
    temp.push_back(std::make_unique<tk_test::device_buffer<unsigned char>>(bytes, 0xCD));
    TK_CUDA_CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
  }
  for (int c = 0; c < calls; ++c)
    for (int k = 0; k < streams; ++k) {
      std::size_t b = bytes;
      BOOST_TEST(tilekit::device::reduce(temp[k]->data(), b, in[k]->data(), std::int64_t(data[k].size()),
                                         out[k]->data() + c, tilekit::plus{}, 0.0f, s[k]) == cudaSuccess);
    }
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  for (int k = 0; k < streams; ++k) {
    const auto got = out[k]->to_host();
    double want = 0, scale = 0;
    for (float x : data[k]) want += x, scale += std::fabs(x);
    BOOST_TEST_CONTEXT("stream " << k << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
      BOOST_TEST(std::fabs(double(got[0]) - want) <= 1e-5 * scale, "sum " << got[0] << ", want " << want);
      for (int c = 1; c < calls; ++c) BOOST_TEST(tk_test::same_value(got[c], got[0]), "call " << c << ": " << got[c] << " vs " << got[0]);
    }
  }
  for (auto& x : s) TK_CUDA_CHECK(cudaStreamDestroy(x));
}

// The allocating forms' storage kept per host thread and stream (device::detail::kept_temp_for),
// in a thread of its own (this one's holds the earlier cases' streams): the same storage for the
// same stream, another for another, none past kept_temp_bytes or past kept_temp_streams streams,
// a larger one where a call needs more; freed as the thread exits.
BOOST_AUTO_TEST_CASE(allocating_forms_keep_storage_per_stream) {
  namespace dd = tilekit::device::detail;
  struct {
    void *first, *again, *other, *too_big, *grown, *after_grown, *fifth;
  } seen{};
  std::thread([&] {
    cudaStream_t s[dd::kept_temp_streams + 1];
    for (auto& x : s) (void)cudaStreamCreate(&x);
    seen.first = dd::kept_temp_for(s[0], 1000);
    seen.again = dd::kept_temp_for(s[0], 2000);
    seen.other = dd::kept_temp_for(s[1], 1000);
    seen.too_big = dd::kept_temp_for(s[0], dd::kept_temp_bytes + 1);
    seen.grown = dd::kept_temp_for(s[0], dd::kept_temp_least + 1);
    seen.after_grown = dd::kept_temp_for(s[0], 100);
    for (unsigned k = 2; k < dd::kept_temp_streams; ++k) (void)dd::kept_temp_for(s[k], 1);
    seen.fifth = dd::kept_temp_for(s[dd::kept_temp_streams], 1000);  // every slot taken: none
    for (auto& x : s) (void)cudaStreamDestroy(x);
  }).join();
  BOOST_TEST(seen.first != nullptr);
  BOOST_TEST(seen.again == seen.first);
  BOOST_TEST((seen.other != nullptr && seen.other != seen.first));
  BOOST_TEST(seen.too_big == nullptr);
  BOOST_TEST(seen.grown != nullptr);
  BOOST_TEST(seen.after_grown == seen.grown);
  BOOST_TEST(seen.fifth == nullptr);
  BOOST_TEST(cudaGetLastError() == cudaSuccess);
}

// Allocating calls of several algorithms back to back, never synchronised between, on more
// streams than a thread keeps storage for (the rest take the pool's), each stream's kept storage
// shared by its calls and grown once midway; a stream with kept storage destroyed and another
// created in its place (a new id: the pool's storage, every slot being taken). All from a thread
// that then exits, against the CPU.
BOOST_AUTO_TEST_CASE(allocating_calls_on_kept_storage) {
  namespace dd = tilekit::device::detail;
  constexpr int streams = int(dd::kept_temp_streams) + 2, rounds = 3;
  const std::int64_t n = tk_test::gpu_backend::small() ? 70001 : 300001, scan_n = n / 3;
  std::vector<int> h(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = int((i * 7919) % 201) - 100;
  tk_test::device_buffer<int> in(h);
  // per stream and round: the int sum (into long long), the count of 7s, the last of an inclusive
  // scan's, and a double sum; then the scan's output itself (the last round's)
  tk_test::device_buffer<long long> sums(std::size_t(streams * rounds), tk_test::poison<long long>());
  tk_test::device_buffer<long long> counts(std::size_t(streams * rounds), tk_test::poison<long long>());
  tk_test::device_buffer<double> doubles(std::size_t(streams * rounds), tk_test::poison<double>());
  tk_test::device_buffer<int> scans(std::size_t(streams) * std::size_t(scan_n), tk_test::poison<int>());
  std::vector<double> hd(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < hd.size(); ++i) hd[i] = 0.5 * double(h[i] % 3);
  tk_test::device_buffer<double> ind(hd);
  std::vector<cudaError_t> errors;
  std::thread([&] {
    std::vector<cudaStream_t> s(streams);
    for (auto& x : s) (void)cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
    for (int r = 0; r < rounds; ++r) {
      for (int k = 0; k < streams; ++k) {
        const int at = k * rounds + r;
        if (r == 1 && k == 0) (void)dd::kept_temp_for(s[0], dd::kept_temp_least + 1);  // grows stream 0's, in its order
        errors.push_back(tilekit::device::sum(in.data(), n - k, sums.data() + at, s[k]));
        errors.push_back(tilekit::device::count(in.data(), n, 7, counts.data() + at, s[k]));
        errors.push_back(tilekit::device::inclusive_scan(in.data(), scan_n, scans.data() + std::size_t(k) * std::size_t(scan_n),
                                                         tilekit::plus{}, s[k]));
        errors.push_back(tilekit::device::sum(ind.data(), n - 2 * k, doubles.data() + at, s[k]));
      }
      if (r == 1) {  // a new stream in place of one with kept storage: another id (its handle may be the old one's)
        (void)cudaStreamDestroy(s[dd::kept_temp_streams - 1]);
        (void)cudaStreamCreateWithFlags(&s[dd::kept_temp_streams - 1], cudaStreamNonBlocking);
      }
    }
    for (auto& x : s) (void)cudaStreamSynchronize(x);
    for (auto& x : s) (void)cudaStreamDestroy(x);
  }).join();
  for (cudaError_t e : errors) BOOST_TEST(e == cudaSuccess);
  const auto got_sums = sums.to_host(), got_counts = counts.to_host();
  const auto got_doubles = doubles.to_host();
  const auto got_scans = scans.to_host();
  std::vector<int> want_scan(static_cast<std::size_t>(scan_n));
  int run = 0;
  for (std::size_t i = 0; i < want_scan.size(); ++i) want_scan[i] = run += h[i];
  long long sevens = 0;
  for (int x : h) sevens += x == 7;
  for (int k = 0; k < streams; ++k) {
    long long want = 0;
    double want_d = 0;
    for (std::int64_t i = 0; i < n - k; ++i) want += h[std::size_t(i)];
    for (std::int64_t i = 0; i < n - 2 * k; ++i) want_d += hd[std::size_t(i)];
    BOOST_TEST_CONTEXT("stream " << k) {
      for (int r = 0; r < rounds; ++r) {
        BOOST_TEST(got_sums[std::size_t(k * rounds + r)] == want, "round " << r);
        BOOST_TEST(got_counts[std::size_t(k * rounds + r)] == sevens, "round " << r);
        BOOST_TEST(got_doubles[std::size_t(k * rounds + r)] == want_d, "round " << r);  // (halves: exact)
      }
      BOOST_TEST(std::equal(want_scan.begin(), want_scan.end(), got_scans.begin() + std::ptrdiff_t(k) * scan_n));
    }
  }
}

// n ints (i x 7919) % 201 - 100, their sum to sum: the allocating-form cases' input.
static std::vector<int> mixed_ints(std::int64_t n, long long& sum) {
  std::vector<int> h(static_cast<std::size_t>(n));
  sum = 0;
  for (std::size_t i = 0; i < h.size(); ++i) sum += h[i] = int((i * 7919) % 201) - 100;
  return h;
}

// An allocating call captured into a graph takes the graph's own storage, not the kept one (the
// graph may replay on any stream): replayed on two other streams, the second replay beside a call
// on the captured stream (its kept storage), all right. Then a thread that queues an allocating
// call and exits at once: its kept storage is freed only after the call (the exit waits for the device).
BOOST_AUTO_TEST_CASE(allocating_calls_under_capture_and_at_a_thread_exit) {
  namespace dd = tilekit::device::detail;
  const std::int64_t n = 300001;
  long long want = 0;
  const std::vector<int> h = mixed_ints(n, want);
  tk_test::device_buffer<int> in(h);
  tk_test::device_buffer<long long> out(6, tk_test::poison<long long>());
  cudaStream_t s, r0, r1;
  TK_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  TK_CUDA_CHECK(cudaStreamCreateWithFlags(&r0, cudaStreamNonBlocking));
  TK_CUDA_CHECK(cudaStreamCreateWithFlags(&r1, cudaStreamNonBlocking));
  BOOST_TEST(tilekit::device::sum(in.data(), n, out.data() + 0, s) == cudaSuccess);  // before: kept storage
  cudaGraph_t graph;
  TK_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  BOOST_TEST(dd::kept_temp_for(s, 1000) == nullptr);  // not while capturing
  BOOST_TEST(tilekit::device::sum(in.data(), n, out.data() + 1, s) == cudaSuccess);
  TK_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  TK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  TK_CUDA_CHECK(cudaGraphLaunch(exec, r0));
  TK_CUDA_CHECK(cudaStreamSynchronize(r0));
  TK_CUDA_CHECK(cudaGraphLaunch(exec, r1));
  BOOST_TEST(tilekit::device::sum(in.data(), n - 1, out.data() + 2, s) == cudaSuccess);  // after: kept storage again
  TK_CUDA_CHECK(cudaStreamSynchronize(r1));
  TK_CUDA_CHECK(cudaStreamSynchronize(s));
  cudaStream_t t;
  TK_CUDA_CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
  std::thread([&] {  // queues two calls and exits without waiting for them
    (void)tilekit::device::sum(in.data(), n, out.data() + 3, t);
    (void)tilekit::device::sum(in.data(), n - 2, out.data() + 4, t);
  }).join();
  TK_CUDA_CHECK(cudaStreamSynchronize(t));
  const auto got = out.to_host();
  BOOST_TEST(got[0] == want);
  BOOST_TEST(got[1] == want);  // the graph's last replay
  BOOST_TEST(got[2] == want - h[std::size_t(n - 1)]);
  BOOST_TEST(got[3] == want);
  BOOST_TEST(got[4] == want - h[std::size_t(n - 1)] - h[std::size_t(n - 2)]);
  BOOST_TEST(tk_test::is_poison(got[5]));
  TK_CUDA_CHECK(cudaGraphExecDestroy(exec));
  TK_CUDA_CHECK(cudaGraphDestroy(graph));
  for (cudaStream_t x : {s, r0, r1, t}) TK_CUDA_CHECK(cudaStreamDestroy(x));
}

// tilekit::device::sum accumulates in the output's type (int items, long long sum), as
// cub::DeviceReduce::Sum: the int sum would overflow.
// TransformReduce wraps d_in in a transforming iterator: a null d_in with items is still cudaErrorInvalidValue.
BOOST_AUTO_TEST_CASE(transform_reduce_rejects_a_null_input) {
  tk_test::device_buffer<long long> out(1, -1);
  const int* no_input = nullptr;
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::cub::DeviceReduce::TransformReduce(nullptr, bytes, no_input, out.data(), 1000, cuda::std::plus<>{},
                                                            square{}, 0ll) == cudaSuccess);
  tk_test::device_buffer<unsigned char> temp(bytes, 0);
  BOOST_TEST(tilekit::cub::DeviceReduce::TransformReduce(temp.data(), bytes, no_input, out.data(), 1000, cuda::std::plus<>{},
                                                         square{}, 0ll) == cudaErrorInvalidValue);
  BOOST_TEST(cudaDeviceSynchronize() == cudaSuccess);
  BOOST_TEST(out.to_host()[0] == -1);
}

BOOST_AUTO_TEST_CASE(sum_accumulates_in_the_output_type) {
  for (std::size_t n : {std::size_t(3000), std::size_t(1) << 22}) {
    std::vector<int> h(n, 1 << 20);  // 2^20 * 3000 > 2^31
    tk_test::device_buffer<int> in(h);
    tk_test::device_buffer<long long> out(1, tk_test::poison<long long>());
    BOOST_TEST(tilekit::device::sum(in.data(), std::int64_t(n), out.data()) == cudaSuccess);
    BOOST_TEST(out.to_host()[0] == (long long)n << 20, "n=" << n);
  }
}

// A cudaDeviceReset between allocating calls (as test fixtures do): the pool and the storage kept
// for the legacy stream and for a created one went with the context, and the calls after it take
// new ones (device::detail::context_id: the new context's id is another), against the CPU. The
// last case of the suite: the cases after it start on the new context.
BOOST_AUTO_TEST_CASE(allocating_calls_across_a_device_reset) {
  namespace dd = tilekit::device::detail;
  const std::int64_t n = 300001;
  long long want = 0;
  const std::vector<int> h = mixed_ints(n, want);
  for (int round = 0; round < 2; ++round) {
    BOOST_TEST_CONTEXT("round " << round << (round > 0 ? ", after a cudaDeviceReset" : "")) {
      tk_test::device_buffer<int> in(h);
      tk_test::device_buffer<long long> out(2, tk_test::poison<long long>());
      cudaStream_t s;
      TK_CUDA_CHECK(cudaStreamCreate(&s));
      BOOST_TEST(dd::context_id() != 0u);
      BOOST_TEST(tilekit::device::sum(in.data(), n, out.data() + 0) == cudaSuccess);     // the legacy stream's kept storage
      BOOST_TEST(tilekit::device::sum(in.data(), n, out.data() + 1, s) == cudaSuccess);  // a created stream's
      const auto big = [&](void* t, std::size_t& b) {  // past what is kept: the pool's storage, written
        if (t == nullptr) {
          b = dd::kept_temp_bytes + 1;
          return cudaSuccess;
        }
        return cudaMemsetAsync(t, 0x5A, b, s);
      };
      BOOST_TEST(dd::with_temp(s, big) == cudaSuccess);
      TK_CUDA_CHECK(cudaDeviceSynchronize());
      const auto got = out.to_host();
      BOOST_TEST(got[0] == want);
      BOOST_TEST(got[1] == want);
      TK_CUDA_CHECK(cudaStreamDestroy(s));
    }
    if (round == 0) {
      const unsigned long long before = dd::context_id();
      TK_CUDA_CHECK(cudaDeviceReset());
      TK_CUDA_CHECK(cudaFree(nullptr));  // (the runtime's new context)
      BOOST_TEST(dd::context_id() != before);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(device_segmented_reduce_facade)

// tilekit::cub::DeviceSegmentedReduce and ::cub::DeviceSegmentedReduce on the same data and
// segments (empty ones, long ones, gaps, overlaps): every output the same. No segment ends
// before it begins here: CUB reads such a segment as a negative range (its Min and Max
// then differ from the initial value tilekit gives; the shared cases check tilekit's
// answer against the CPU).
BOOST_AUTO_TEST_CASE(cub_facade_matches_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const std::int64_t n = std::int64_t(1) << 24;
  std::vector<int> h = tk_test::random_vector<int>(std::size_t(n), g);
  for (auto& x : h) x %= 1000;
  std::vector<double> hd(h.begin(), h.end());
  for (auto& x : hd) x *= 0.5;
  tk_test::device_buffer<int> in(h);
  tk_test::device_buffer<double> ind(hd);
  for (std::int64_t segments : {std::int64_t(0), std::int64_t(1), std::int64_t(1000), std::int64_t(100000)}) {
    for (bool overlap : {false, true}) {
      std::vector<long long> begins, ends;
      tk_test::make_segments(n, segments, overlap, g, begins, ends, false);
      if (segments == 1) ends[0] = n;  // one segment over everything
      tk_test::device_buffer<long long> b(begins.empty() ? std::vector<long long>(1) : begins);
      tk_test::device_buffer<long long> e(ends.empty() ? std::vector<long long>(1) : ends);
      for (int which = 0; which < 5; ++which) {
        tk_test::device_buffer<int> a(std::size_t(segments) + 1, tk_test::poison<int>()), c(std::size_t(segments) + 1, tk_test::poison<int>());
        tk_test::device_buffer<double> ad(std::size_t(segments) + 1, tk_test::poison<double>()), cd(std::size_t(segments) + 1, tk_test::poison<double>());
        auto run = [&](auto seg, int* out, double* outd) {
          return two_phase([&](void* t, std::size_t& s) {
            switch (which) {
              case 0: return seg.Sum(t, s, in.data(), out, segments, b.data(), e.data());
              case 1: return seg.Min(t, s, in.data(), out, segments, b.data(), e.data());
              case 2: return seg.Max(t, s, in.data(), out, segments, b.data(), e.data());
              case 3: return seg.Reduce(t, s, in.data(), out, segments, b.data(), e.data(), cuda::maximum<>{}, -7);
              default: return seg.Sum(t, s, ind.data(), outd, segments, b.data(), e.data());
            }
          });
        };
        BOOST_TEST(run(tilekit::cub::DeviceSegmentedReduce{}, a.data(), ad.data()) == cudaSuccess);
        BOOST_TEST(run(cub::DeviceSegmentedReduce{}, c.data(), cd.data()) == cudaSuccess);
        const auto ha = a.to_host(), hc = c.to_host();
        const auto had = ad.to_host(), hcd = cd.to_host();
        std::size_t bad = 0;
        for (std::size_t s = 0; s <= std::size_t(segments); ++s) bad += which == 4 ? !tk_test::same_value(had[s], hcd[s]) : ha[s] != hc[s];
        BOOST_TEST(bad == 0u, "call " << which << " segments=" << segments << (overlap ? " overlapping" : "") << ": " << bad
                                      << " outputs differ from CUB, TILEKIT_TEST_SEED=" << tk_test::base_seed());
      }
    }
  }
}

// Segmented ArgMin / ArgMax with KeyValuePair outputs against CUB (ties: the first wins), on T
// values 0, 0.5, ..., 49.5 (float) or 0 .. 99 (int: the warp's two-redux path).
template <class T>
void check_arg_against_cub(std::mt19937_64& g) {
  const std::int64_t n = std::int64_t(1) << 22;
  std::vector<T> h(static_cast<std::size_t>(n));
  for (auto& x : h) x = std::is_floating_point_v<T> ? T(float(g() % 100) * 0.5f) : T(g() % 100);
  tk_test::device_buffer<T> in(h);
  for (std::int64_t segments : {std::int64_t(1), std::int64_t(1000), std::int64_t(4096), std::int64_t(20000)}) {
    std::vector<long long> begins, ends;
    tk_test::make_segments(n, segments, true, g, begins, ends, false);
    tk_test::device_buffer<long long> b(begins), e(ends);
    for (bool max : {false, true}) {
      using tk_pair = tilekit::cub::KeyValuePair<int, T>;
      using cub_pair = cub::KeyValuePair<int, T>;
      tk_test::device_buffer<tk_pair> a(std::size_t(segments), tk_pair{-7, T(-7)});
      tk_test::device_buffer<cub_pair> c(std::size_t(segments), cub_pair{-7, T(-7)});
      BOOST_TEST(two_phase([&](void* t, std::size_t& s) {
                   return max ? tilekit::cub::DeviceSegmentedReduce::ArgMax(t, s, in.data(), a.data(), segments, b.data(), e.data())
                              : tilekit::cub::DeviceSegmentedReduce::ArgMin(t, s, in.data(), a.data(), segments, b.data(), e.data());
                 }) == cudaSuccess);
      BOOST_TEST(two_phase([&](void* t, std::size_t& s) {
                   return max ? cub::DeviceSegmentedReduce::ArgMax(t, s, in.data(), c.data(), segments, b.data(), e.data())
                              : cub::DeviceSegmentedReduce::ArgMin(t, s, in.data(), c.data(), segments, b.data(), e.data());
                 }) == cudaSuccess);
      const auto ha = a.to_host();
      const auto hc = c.to_host();
      std::size_t bad = 0;
      for (std::size_t s = 0; s < std::size_t(segments); ++s) bad += ha[s].key != hc[s].key || ha[s].value != hc[s].value;
      BOOST_TEST(bad == 0u, (max ? "ArgMax" : "ArgMin") << (std::is_floating_point_v<T> ? " float" : " int") << " segments="
                                                         << segments << ": " << bad
                                                         << " outputs differ from CUB, TILEKIT_TEST_SEED=" << tk_test::base_seed());
    }
  }
}

BOOST_AUTO_TEST_CASE(arg_min_and_arg_max_match_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  check_arg_against_cub<float>(g);
  check_arg_against_cub<int>(g);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(device_reduce_by_key_facade)

// tilekit::cub::DeviceReduce::ReduceByKey and CUB's on the same keys and values (short and
// long runs; a sum and a max): keys, aggregates and the run count the same.
BOOST_AUTO_TEST_CASE(cub_facade_matches_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const std::size_t max_n = std::size_t(1) << 24;
  for (unsigned long long new_key_every : {2ull, 1000ull}) {
    std::vector<int> keys(max_n);
    std::vector<int> values(max_n);
    for (std::size_t i = 0; i < max_n; ++i) {
      keys[i] = i > 0 && g() % new_key_every != 0 ? keys[i - 1] : int(g() % 1000);
      values[i] = int(g() % 2001) - 1000;
    }
    tk_test::device_buffer<int> k(keys), v(values);
    for (int n : {0, 1, 1023, 1025, 100003, int(max_n)}) {
      for (int which = 0; which < 2; ++which) {
        tk_test::device_buffer<int> ka(std::size_t(n) + 1, tk_test::poison<int>()), kb(std::size_t(n) + 1, tk_test::poison<int>());
        tk_test::device_buffer<int> va(std::size_t(n) + 1, tk_test::poison<int>()), vb(std::size_t(n) + 1, tk_test::poison<int>());
        tk_test::device_buffer<int> na(1, tk_test::poison<int>()), nb(1, tk_test::poison<int>());
        auto run = [&](auto reduce, int* ko, int* vo, int* num) {
          return two_phase([&](void* t, std::size_t& s) {
            return which == 0 ? reduce.ReduceByKey(t, s, k.data(), ko, v.data(), vo, num, cuda::std::plus<>{}, n)
                              : reduce.ReduceByKey(t, s, k.data(), ko, v.data(), vo, num, cuda::maximum<>{}, n);
          });
        };
        BOOST_TEST(run(tilekit::cub::DeviceReduce{}, ka.data(), va.data(), na.data()) == cudaSuccess);
        BOOST_TEST(run(cub::DeviceReduce{}, kb.data(), vb.data(), nb.data()) == cudaSuccess);
        const int count = nb.to_host()[0];
        BOOST_TEST(na.to_host()[0] == count, "n=" << n << ": runs " << na.to_host()[0] << " vs CUB " << count);
        const auto hka = ka.to_host(), hkb = kb.to_host(), hva = va.to_host(), hvb = vb.to_host();
        std::size_t bad = 0;
        for (std::size_t i = 0; i <= std::size_t(count); ++i) bad += hka[i] != hkb[i] || hva[i] != hvb[i];
        BOOST_TEST(bad == 0u, "n=" << n << " op " << which << " new key every " << new_key_every << ": " << bad
                                   << " runs differ from CUB, TILEKIT_TEST_SEED=" << tk_test::base_seed());
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
