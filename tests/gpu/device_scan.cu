// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide scans on the GPU: the shared cases, then tilekit::device and the
// cub facade against CUB itself on the same data.
#include "../common/gpu_backend.cuh"

#include <algorithm>
using backend = tk_test::gpu_backend;
#include "../cases/device_scan.hpp"

#include <tilekit/cub/device_scan.cuh>

#include <cub/device/device_scan.cuh>
#include <cuda_fp16.h>

namespace {

using tk_test::two_phase;

// tilekit::cub::DeviceScan and ::cub::DeviceScan on the same data: integers exactly.
template <class T>
void facade_matches_cub(std::int64_t n, tk_test::device_buffer<T>& in) {
  const int num = static_cast<int>(n);
  const std::vector<T> h_in = in.to_host();
  for (int which = 0; which < 9; ++which) {  // 5-8: in place, each side's buffer a copy of the input
    std::vector<T> start(std::size_t(n) + 1, tk_test::poison<T>());
    if (which >= 5) std::copy(h_in.begin(), h_in.begin() + n, start.begin());
    tk_test::device_buffer<T> a(start), b(start);
    auto call = [&](auto scan, T* out) {
      return two_phase([&](void* t, std::size_t& s) {
        switch (which) {
          case 0: return scan.InclusiveSum(t, s, in.data(), out, num);
          case 1: return scan.ExclusiveSum(t, s, in.data(), out, num);
          case 2: return scan.InclusiveScan(t, s, in.data(), out, cuda::maximum<>{}, num);
          case 3: return scan.ExclusiveScan(t, s, in.data(), out, cuda::std::plus<>{}, T(17), num);
          case 4: return scan.InclusiveScanInit(t, s, in.data(), out, cuda::std::plus<>{}, T(-5), num);
          case 5: return scan.InclusiveSum(t, s, out, num);
          case 6: return scan.ExclusiveSum(t, s, out, num);
          case 7: return scan.InclusiveScan(t, s, out, cuda::maximum<>{}, num);
          default: return scan.ExclusiveScan(t, s, out, cuda::std::plus<>{}, T(17), num);
        }
      });
    };
    BOOST_TEST(call(tilekit::cub::DeviceScan{}, a.data()) == cudaSuccess);
    BOOST_TEST(call(cub::DeviceScan{}, b.data()) == cudaSuccess);
    const auto ha = a.to_host(), hb = b.to_host();
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i <= std::size_t(n); ++i)
      if (!tk_test::same_value(ha[i], hb[i]) && bad++ == 0) first = i;
    BOOST_TEST(bad == 0u, "scan " << which << ": " << bad << " items differ from CUB, first at " << first << ": "
                                 << tk_test::show(ha[first]) << " vs " << tk_test::show(hb[first]));
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_scan)

BOOST_AUTO_TEST_CASE(cub_facade_matches_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<int> ints = tk_test::random_vector<int>(std::size_t(1) << 24, g);
  for (auto& x : ints) x %= 1000;
  tk_test::device_buffer<int> di(ints);
  std::vector<long long> longs = tk_test::random_vector<long long>(std::size_t(1) << 20, g);
  tk_test::device_buffer<long long> dl(longs);
  for (std::int64_t n : {0, 1, 2047, 2049, 100003, 1 << 20, (1 << 24) - 3}) {
    BOOST_TEST_CONTEXT("int n=" << n << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) { facade_matches_cub<int>(n, di); }
  }
  for (std::int64_t n : {1, 1023, 1025, 77777, 1 << 20}) {
    BOOST_TEST_CONTEXT("int64 n=" << n << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) { facade_matches_cub<long long>(n, dl); }
  }
}

// The ByKey scans against CUB on the same keys and values (short and long runs).
BOOST_AUTO_TEST_CASE(by_key_scans_match_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const std::size_t max_n = std::size_t(1) << 24;
  for (unsigned long long new_key_every : {2ull, 5000ull}) {
    std::vector<int> keys(max_n), values(max_n);
    for (std::size_t i = 0; i < max_n; ++i) {
      keys[i] = i > 0 && g() % new_key_every != 0 ? keys[i - 1] : int(g() % 100);
      values[i] = int(g() % 2001) - 1000;
    }
    tk_test::device_buffer<int> k(keys), v(values);
    for (int n : {0, 1, 1023, 1025, 100003, int(max_n)}) {
      for (int which = 0; which < 4; ++which) {
        tk_test::device_buffer<int> a(std::size_t(n) + 1, tk_test::poison<int>()), b(std::size_t(n) + 1, tk_test::poison<int>());
        auto call = [&](auto scan, int* out) {
          return two_phase([&](void* t, std::size_t& s) {
            switch (which) {
              case 0: return scan.InclusiveSumByKey(t, s, k.data(), v.data(), out, n);
              case 1: return scan.ExclusiveSumByKey(t, s, k.data(), v.data(), out, n);
              case 2: return scan.InclusiveScanByKey(t, s, k.data(), v.data(), out, cuda::maximum<>{}, n);
              default: return scan.ExclusiveScanByKey(t, s, k.data(), v.data(), out, cuda::maximum<>{}, -2000, n);
            }
          });
        };
        BOOST_TEST(call(tilekit::cub::DeviceScan{}, a.data()) == cudaSuccess);
        BOOST_TEST(call(cub::DeviceScan{}, b.data()) == cudaSuccess);
        const auto ha = a.to_host(), hb = b.to_host();
        std::size_t bad = 0;
        for (std::size_t i = 0; i <= std::size_t(n); ++i) bad += ha[i] != hb[i];
        BOOST_TEST(bad == 0u, "by-key scan " << which << " n=" << n << " new key every " << new_key_every << ": " << bad
                                             << " items differ from CUB, TILEKIT_TEST_SEED=" << tk_test::base_seed());
      }
    }
  }
}

// ExclusiveScan with a FutureValue: the init is written by a kernel queued before the scan.
__global__ void write_init(long long* p, long long v) { *p = v; }
BOOST_AUTO_TEST_CASE(future_init_value_matches_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<long long> h(std::size_t(1) << 22);
  for (auto& x : h) x = (long long)(g() % 1000);
  tk_test::device_buffer<long long> in(h), init(1, 0ll);
  for (int n : {1, 1025, 100003, 1 << 22}) {
    for (int in_place = 0; in_place < 2; ++in_place) {
      std::vector<long long> start(std::size_t(n) + 1, tk_test::poison<long long>());
      if (in_place) std::copy(h.begin(), h.begin() + n, start.begin());
      tk_test::device_buffer<long long> a(start), b(start);
      auto call = [&](auto scan, long long* out, auto future) {
        return two_phase([&](void* t, std::size_t& s) {
          write_init<<<1, 1>>>(init.data(), 12345);  // queued before the scan: the scan must see it
          return in_place ? scan.ExclusiveScan(t, s, out, cuda::std::plus<>{}, future, n)
                          : scan.ExclusiveScan(t, s, in.data(), out, cuda::std::plus<>{}, future, n);
        });
      };
      BOOST_TEST(call(tilekit::cub::DeviceScan{}, a.data(), tilekit::cub::FutureValue<long long>(init.data())) == cudaSuccess);
      BOOST_TEST(call(cub::DeviceScan{}, b.data(), cub::FutureValue<long long>(init.data())) == cudaSuccess);
      const auto ha = a.to_host(), hb = b.to_host();
      std::size_t bad = 0;
      for (std::size_t i = 0; i <= std::size_t(n); ++i) bad += ha[i] != hb[i];
      BOOST_TEST(bad == 0u, "n=" << n << (in_place ? " in place" : "") << ": " << bad << " items differ from CUB");
      BOOST_TEST(ha[0] == 12345);
    }
  }
}

// ---- one launch, no zeroing: the chunk states across graph replays

namespace {

// in = all + *next (replay k scans the window starting at item k).
__global__ void pick_window(const int* all, int* in, long long n, const unsigned* next) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    in[i] = all[*next + i];
}

// checksums[*next] = sum of out[i] * (2i + 1) (mod 2^64); then ++*next (one block of 1024).
__global__ void checksum(const int* out, long long n, unsigned long long* checksums, unsigned* next) {
  unsigned long long s = 0;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) s += (unsigned long long)(long long)out[i] * (2ull * i + 1);
  atomicAdd(&checksums[*next], s);
  __syncthreads();
  if (threadIdx.x == 0) *next += 1;
}

}  // namespace

// A graph of (copy window k into the input, scan it, checksum the output) replayed 100
// times on the same temporary storage, never cleared: the replays repeat the call's tag,
// so each must still ignore the chunk states the replay before it left.
BOOST_AUTO_TEST_CASE(graph_replayed_100_times_on_the_same_storage) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  constexpr unsigned replays = 100;
  const long long n = tk_test::gpu_backend::small() ? 300007 : 4000037;  // many chunks (above the patient grid)
  std::vector<int> all(std::size_t(n) + replays);
  for (auto& x : all) x = int(g() % 2001) - 1000;
  tk_test::device_buffer<int> d_all(all), in(std::size_t(n), 0), out(std::size_t(n), tk_test::poison<int>());
  tk_test::device_buffer<unsigned long long> sums(replays, 0ull);
  tk_test::device_buffer<unsigned> next(1, 0u);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device::inclusive_sum(nullptr, bytes, in.data(), std::int64_t(n), out.data()) == cudaSuccess);
  tk_test::device_buffer<unsigned char> temp(bytes, 0xCD);
  cudaStream_t stream;
  TK_CUDA_CHECK(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  TK_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  pick_window<<<264, 256, 0, stream>>>(d_all.data(), in.data(), n, next.data());
  BOOST_TEST(tilekit::device::inclusive_sum(temp.data(), bytes, in.data(), std::int64_t(n), out.data(), stream) == cudaSuccess);
  checksum<<<1, 1024, 0, stream>>>(out.data(), n, sums.data(), next.data());
  TK_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  TK_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (unsigned i = 0; i < replays; ++i) TK_CUDA_CHECK(cudaGraphLaunch(exec, stream));
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  const auto got = sums.to_host();
  int wrong = 0, first = -1;
  for (unsigned k = 0; k < replays; ++k) {
    unsigned long long want = 0;
    long long run = 0;
    for (long long i = 0; i < n; ++i) {
      run += all[k + std::size_t(i)];
      want += (unsigned long long)(long long)int(run) * (2ull * i + 1);
    }
    if (got[k] != want && wrong++ == 0) first = int(k);
  }
  BOOST_TEST(wrong == 0, wrong << " of " << replays << " replays wrong (first: replay " << first
                               << "), TILEKIT_TEST_SEED=" << tk_test::base_seed());
  TK_CUDA_CHECK(cudaGraphExecDestroy(exec));
  TK_CUDA_CHECK(cudaGraphDestroy(graph));
  TK_CUDA_CHECK(cudaStreamDestroy(stream));
}

BOOST_AUTO_TEST_CASE(native_entry_points_in_a_stream) {
  std::vector<int> h(3000017);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = int(i % 7) - 3;
  tk_test::device_buffer<int> in(h), out(h.size(), tk_test::poison<int>());
  cudaStream_t stream;
  TK_CUDA_CHECK(cudaStreamCreate(&stream));
  BOOST_TEST(tilekit::device::exclusive_scan(in.data(), std::int64_t(h.size()), out.data(), tilekit::plus{}, 10, stream) == cudaSuccess);
  TK_CUDA_CHECK(cudaStreamSynchronize(stream));
  TK_CUDA_CHECK(cudaStreamDestroy(stream));
  const auto got = out.to_host();
  int run = 10;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    bad += got[i] != run;
    run += h[i];
  }
  BOOST_TEST(bad == 0u);
}

// __half: values 0, 0.5 and 1, so every prefix of up to 1000 items is exact in half precision.
BOOST_AUTO_TEST_CASE(half_scans_exactly) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  for (int n : {1, 33, 999, 1000}) {
    std::vector<__half> h(static_cast<std::size_t>(n));
    std::vector<float> want(static_cast<std::size_t>(n));
    double run = 0;
    for (int i = 0; i < n; ++i) {
      const double x = 0.5 * double(g() % 3);
      h[std::size_t(i)] = __double2half(x);
      want[std::size_t(i)] = float(run += x);
    }
    tk_test::device_buffer<__half> in(h), out(std::size_t(n), __double2half(-7.0));
    BOOST_TEST(tk_test::two_phase([&](void* t, std::size_t& b) {
                 return tilekit::cub::DeviceScan::InclusiveSum(t, b, in.data(), out.data(), n);
               }) == cudaSuccess);
    const auto got = out.to_host();
    std::size_t bad = 0;
    for (int i = 0; i < n; ++i) bad += __half2float(got[std::size_t(i)]) != want[std::size_t(i)];
    BOOST_TEST(bad == 0u, "n=" << n << ", TILEKIT_TEST_SEED=" << tk_test::base_seed());
  }
}

BOOST_AUTO_TEST_SUITE_END()
