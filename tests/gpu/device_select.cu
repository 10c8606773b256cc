// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide select, partition and unique on the GPU: the shared cases, then the
// cub facade against CUB itself on the same data.
#include "../common/gpu_backend.cuh"

#include <algorithm>
using backend = tk_test::gpu_backend;
#include "../cases/device_select.hpp"

#include <tilekit/cub/device_select.cuh>

#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>

namespace {

using tk_test::two_phase;

/// FlaggedIf's predicate on the 0/1 flags: keeps the unflagged items.
struct flag_unset {
  __host__ __device__ bool operator()(unsigned char f) const { return f == 0; }
};

// Every facade call and CUB's on the same data: outputs and counts must be identical.
// Calls 6-8 run in place: each side's buffer starts as a copy of the input.
void facade_matches_cub(int n, int threshold, tk_test::device_buffer<int>& in, tk_test::device_buffer<unsigned char>& flags) {
  const tk_test::below pred{threshold};
  const std::vector<int> h_in = in.to_host();
  for (int which = 0; which < 9; ++which) {
    const bool in_place = which >= 6, partition = which == 3 || which == 5;
    std::vector<int> start(std::size_t(n) + 1, tk_test::poison<int>());
    if (in_place) std::copy(h_in.begin(), h_in.begin() + n, start.begin());
    tk_test::device_buffer<int> a(start), b(start);
    tk_test::device_buffer<int> na(1, tk_test::poison<int>()), nb(1, tk_test::poison<int>());
    auto run = [&](auto select, auto partition, int* out, int* num) {
      return two_phase([&](void* t, std::size_t& s) {
        switch (which) {
          case 0: return select.If(t, s, in.data(), out, num, n, pred);
          case 1: return select.Flagged(t, s, in.data(), flags.data(), out, num, n);
          case 2: return select.Unique(t, s, in.data(), out, num, n);
          case 3: return partition.If(t, s, in.data(), out, num, n, pred);
          case 4: return select.FlaggedIf(t, s, in.data(), flags.data(), out, num, n, flag_unset{});
          case 5: return partition.Flagged(t, s, in.data(), flags.data(), out, num, n);
          case 6: return select.If(t, s, out, num, n, pred);
          case 7: return select.Flagged(t, s, out, flags.data(), num, n);
          default: return select.FlaggedIf(t, s, out, flags.data(), num, n, flag_unset{});
        }
      });
    };
    BOOST_TEST(run(tilekit::cub::DeviceSelect{}, tilekit::cub::DevicePartition{}, a.data(), na.data()) == cudaSuccess);
    BOOST_TEST(run(cub::DeviceSelect{}, cub::DevicePartition{}, b.data(), nb.data()) == cudaSuccess);
    const int count = nb.to_host()[0];
    BOOST_TEST(na.to_host()[0] == count, "call " << which << ": count " << na.to_host()[0] << " vs CUB " << count);
    const auto ha = a.to_host(), hb = b.to_host();
    const std::size_t compared = partition ? std::size_t(n) : std::size_t(count);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < compared; ++i) bad += ha[i] != hb[i];
    BOOST_TEST(bad == 0u, "call " << which << ": " << bad << " items differ from CUB");
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(device_select)

// Null flags with items: cudaErrorInvalidValue for every flagged call, nothing written.
BOOST_AUTO_TEST_CASE(cub_facade_rejects_null_flags) {
  tk_test::device_buffer<int> in(std::vector<int>(1000, 3)), out(1000, -1);
  tk_test::device_buffer<long long> num(1, -1);
  const unsigned char* no_flags = nullptr;
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::cub::DeviceSelect::Flagged(nullptr, bytes, in.data(), no_flags, out.data(), num.data(), 1000) == cudaSuccess);
  tk_test::device_buffer<unsigned char> temp(bytes + 256, 0);
  bytes += 256;  // room for every call below
  BOOST_TEST(tilekit::cub::DeviceSelect::Flagged(temp.data(), bytes, in.data(), no_flags, out.data(), num.data(), 1000) ==
             cudaErrorInvalidValue);
  BOOST_TEST(tilekit::cub::DeviceSelect::FlaggedIf(temp.data(), bytes, in.data(), no_flags, out.data(), num.data(), 1000,
                                                   flag_unset{}) == cudaErrorInvalidValue);
  BOOST_TEST(tilekit::cub::DevicePartition::Flagged(temp.data(), bytes, in.data(), no_flags, out.data(), num.data(), 1000) ==
             cudaErrorInvalidValue);
  BOOST_TEST(cudaDeviceSynchronize() == cudaSuccess);
  for (int v : out.to_host()) BOOST_TEST(v == -1);
  BOOST_TEST(num.to_host()[0] == -1);
}

BOOST_AUTO_TEST_CASE(cub_facade_matches_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const std::size_t max_n = std::size_t(1) << 22;
  std::vector<int> h(max_n);
  for (std::size_t i = 0; i < max_n; ++i) h[i] = g() % 4 == 0 ? int(g() % 1000) : (i ? h[i - 1] : 7);  // runs for Unique
  std::vector<unsigned char> f(max_n);
  for (std::size_t i = 0; i < max_n; ++i) f[i] = (g() % 3) == 0;
  tk_test::device_buffer<int> in(h);
  tk_test::device_buffer<unsigned char> flags(f);
  for (int n : {0, 1, 1023, 1025, 100003, int(max_n)})
    for (int threshold : {0, 10, 500, 1000})
      BOOST_TEST_CONTEXT("n=" << n << " threshold=" << threshold << ", TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
        facade_matches_cub(n, threshold, in, flags);
      }
}

// The three-way DevicePartition::If against CUB on the same data.
struct small_part {
  __host__ __device__ bool operator()(int x) const { return x < 300; }
};
struct medium_part {
  __host__ __device__ bool operator()(int x) const { return x < 700; }
};
BOOST_AUTO_TEST_CASE(three_way_partition_matches_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const std::size_t max_n = std::size_t(1) << 24;
  std::vector<int> h(max_n);
  for (auto& x : h) x = int(g() % 1000);
  tk_test::device_buffer<int> in(h);
  for (int n : {0, 1, 1023, 1025, 100003, int(max_n)}) {
    tk_test::device_buffer<int> a1(std::size_t(n) + 1, tk_test::poison<int>()), a2(std::size_t(n) + 1, tk_test::poison<int>()),
        a3(std::size_t(n) + 1, tk_test::poison<int>()), b1(std::size_t(n) + 1, tk_test::poison<int>()),
        b2(std::size_t(n) + 1, tk_test::poison<int>()), b3(std::size_t(n) + 1, tk_test::poison<int>());
    tk_test::device_buffer<int> na(2, tk_test::poison<int>()), nb(2, tk_test::poison<int>());
    BOOST_TEST(two_phase([&](void* t, std::size_t& s) {
                 return tilekit::cub::DevicePartition::If(t, s, in.data(), a1.data(), a2.data(), a3.data(), na.data(), n,
                                                          small_part{}, medium_part{});
               }) == cudaSuccess);
    BOOST_TEST(two_phase([&](void* t, std::size_t& s) {
                 return cub::DevicePartition::If(t, s, in.data(), b1.data(), b2.data(), b3.data(), nb.data(), n, small_part{},
                                                 medium_part{});
               }) == cudaSuccess);
    const auto hna = na.to_host(), hnb = nb.to_host();
    BOOST_TEST(hna == hnb, "n=" << n << ": counts differ from CUB");
    const std::size_t rest = std::size_t(n) - std::size_t(hnb[0]) - std::size_t(hnb[1]);
    std::size_t bad = 0;
    const auto ha1 = a1.to_host(), hb1 = b1.to_host(), ha2 = a2.to_host(), hb2 = b2.to_host(), ha3 = a3.to_host(), hb3 = b3.to_host();
    for (std::size_t i = 0; i < std::size_t(hnb[0]); ++i) bad += ha1[i] != hb1[i];
    for (std::size_t i = 0; i < std::size_t(hnb[1]); ++i) bad += ha2[i] != hb2[i];
    for (std::size_t i = 0; i < rest; ++i) bad += ha3[i] != hb3[i];
    BOOST_TEST(bad == 0u, "n=" << n << ": " << bad << " items differ from CUB, TILEKIT_TEST_SEED=" << tk_test::base_seed());
  }
}

// UniqueByKey (with == and with a custom equality) against CUB on the same keys and values.
struct same_tens {
  __host__ __device__ bool operator()(int a, int b) const { return a / 10 == b / 10; }
};
BOOST_AUTO_TEST_CASE(unique_by_key_matches_cub) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const std::size_t max_n = std::size_t(1) << 24;
  std::vector<int> keys(max_n);
  std::vector<long long> values(max_n);
  for (std::size_t i = 0; i < max_n; ++i) {
    keys[i] = i > 0 && g() % 3 != 0 ? keys[i - 1] : int(g() % 100);
    values[i] = (long long)(g() % 100000);
  }
  tk_test::device_buffer<int> k(keys);
  tk_test::device_buffer<long long> v(values);
  for (int n : {0, 1, 1023, 1025, 100003, int(max_n)}) {
    for (bool custom : {false, true}) {
      tk_test::device_buffer<int> ka(std::size_t(n) + 1, tk_test::poison<int>()), kb(std::size_t(n) + 1, tk_test::poison<int>());
      tk_test::device_buffer<long long> va(std::size_t(n) + 1, tk_test::poison<long long>()),
          vb(std::size_t(n) + 1, tk_test::poison<long long>());
      tk_test::device_buffer<int> na(1, tk_test::poison<int>()), nb(1, tk_test::poison<int>());
      auto run = [&](auto select, int* ko, long long* vo, int* num) {
        return two_phase([&](void* t, std::size_t& s) {
          return custom ? select.UniqueByKey(t, s, k.data(), v.data(), ko, vo, num, n, same_tens{})
                        : select.UniqueByKey(t, s, k.data(), v.data(), ko, vo, num, n);
        });
      };
      BOOST_TEST(run(tilekit::cub::DeviceSelect{}, ka.data(), va.data(), na.data()) == cudaSuccess);
      BOOST_TEST(run(cub::DeviceSelect{}, kb.data(), vb.data(), nb.data()) == cudaSuccess);
      const int count = nb.to_host()[0];
      BOOST_TEST(na.to_host()[0] == count, "n=" << n << ": count " << na.to_host()[0] << " vs CUB " << count);
      const auto hka = ka.to_host(), hkb = kb.to_host();
      const auto hva = va.to_host(), hvb = vb.to_host();
      std::size_t bad = 0;
      for (std::size_t i = 0; i <= std::size_t(count); ++i) bad += hka[i] != hkb[i] || hva[i] != hvb[i];
      BOOST_TEST(bad == 0u, "n=" << n << (custom ? " custom equality" : "") << ": " << bad
                                 << " keys or values differ from CUB, TILEKIT_TEST_SEED=" << tk_test::base_seed());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
