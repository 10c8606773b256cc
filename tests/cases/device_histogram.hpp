// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide histograms, written once for both backends through
// tilekit::device_histogram: even bins over uint8 / int8 / uint16 / int32 / float samples
// (1-byte samples all of one value with few blocks, from pointers and iterators),
// uneven (range) bins, 1 .. 65536 bins (shared-memory counters, and global
// counters past what shared memory holds), uniform, skewed and all-equal data,
// samples outside the bins, invalid arguments. References: CPU counts with the
// binning CUB documents.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/device/histogram.cuh>

#include <algorithm>
#include <cstring>
#include <limits>

namespace tk_test {

template <class T>
using hbuf = typename ::backend::template buffer<T>;

enum class spread { uniform, skewed, all_equal };
inline const char* name(spread s) { return s == spread::uniform ? "uniform" : s == spread::skewed ? "skewed" : "all equal"; }

// Runs run(samples, n, counters) (returns the call's error) over `samples` placed `offset`
// items into their buffer, into poisoned counters placed counter_offset into theirs, and
// checks the counts against the CPU's.
template <class Sample, class Binner, class Run>
void check_histogram_run(const std::vector<Sample>& samples, int bins, Binner binner, const std::string& what, std::size_t offset,
                         std::size_t counter_offset, Run run) {
  std::vector<Sample> padded(offset, samples.empty() ? Sample{} : samples[0]);
  padded.insert(padded.end(), samples.begin(), samples.end());
  hbuf<Sample> d_padded(padded);
  hbuf<unsigned> d_counts(counter_offset + std::size_t(bins) + 1, poison<unsigned>());
  unsigned* counters = d_counts.data() + counter_offset;
  const auto e = run(d_padded.data() + offset, std::int64_t(samples.size()), counters);
  ::backend::sync();
  std::vector<unsigned> want(std::size_t(bins), 0);
  for (const Sample& s : samples) {
    const int b = binner(s);
    if (b >= 0) ++want[std::size_t(b)];
  }
  auto got = d_counts.to_host();
  for (std::size_t i = 0; i < counter_offset; ++i) BOOST_TEST(is_poison(got[i]), "wrote before the first bin");
  got.erase(got.begin(), got.begin() + std::ptrdiff_t(counter_offset));
  BOOST_TEST_CONTEXT(::backend::name << " device histogram " << what << " bins=" << bins << " n=" << samples.size() << " offset=" << offset
                                     << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == ::backend::launcher().success);
    mismatch_log log;
    for (int b = 0; b < bins; ++b)
      if (got[std::size_t(b)] != want[std::size_t(b)]) log.expect(got[std::size_t(b)], want[std::size_t(b)], "bin " + std::to_string(b));
    log.expect_true(is_poison(got[std::size_t(bins)]), "wrote past the last bin");
    BOOST_TEST(log.count == 0u);
  }
}

template <class Sample, class Binner>
void check_device_histogram(const std::vector<Sample>& samples, int bins, Binner binner, const std::string& what,
                            std::size_t offset = 0,  // offset: the samples start that many items into their buffer
                            decltype(::backend::launcher()) launcher = ::backend::launcher(),
                            std::size_t counter_offset = 0) {  // the counters start that many into their buffer
  check_histogram_run(samples, bins, binner, what, offset, counter_offset, [&](Sample* in, std::int64_t n, unsigned* counters) {
    std::size_t bytes = 0;
    BOOST_REQUIRE(tilekit::device_histogram(launcher, nullptr, bytes, in, n, counters, bins, binner) == launcher.success);
    hbuf<unsigned char> temp(bytes, 0xCD);
    return tilekit::device_histogram(launcher, temp.data(), bytes, in, n, counters, bins, binner);
  });
}

// The 1-byte histogram kernel counting with byte_tensor_counters (the tensor cores' 1-bit
// product; shuffles in the simulator) whatever byte_histogram_tuning::tensor_cores says; with
// Hybrid, each warp trip by the tensor cores or by shared atomics as its samples' spread says.
template <bool Hybrid = false, class Sample, class Binner>
void check_tensor_byte_histogram(const std::vector<Sample>& samples, int bins, Binner binner, const std::string& what,
                                 std::size_t offset, decltype(::backend::launcher()) launcher = ::backend::launcher()) {
  const std::string how = Hybrid ? " (tensor counters or atomics, by trip)" : " (tensor counters)";
  check_histogram_run(samples, bins, binner, what + how, offset, 0, [&](Sample* in, std::int64_t n, unsigned* counters) {
    unsigned* const channel_counters[1] = {counters};
    const int channel_bins[1] = {bins};
    const Binner channel_binners[1] = {binner};
    return tilekit::detail::run_byte_histogram<1, 1, false, true, Hybrid>(launcher, in, n, 1, n, channel_counters, channel_bins,
                                                                          channel_binners, tilekit::detail::stdx::make_index_sequence<1>{});
  });
}

template <class T>
std::vector<T> histogram_samples(std::size_t n, T lo, T hi, spread s, std::mt19937_64& g) {
  std::vector<T> v(n);
  for (auto& x : v) {
    const double u = std::uniform_real_distribution<double>(0, 1)(g);
    if (s == spread::all_equal || (s == spread::skewed && g() % 4 != 0)) x = T(lo + (hi - lo) / 3);
    else x = T(double(lo) + u * (double(hi) - double(lo)));
  }
  return v;
}

/// CUB's HistogramEven bin for an integer sample, written independently: 64-bit
/// arithmetic, (sample - lower) * bins / (upper - lower).
struct int_even_reference {
  long long lower, upper;
  int bins;
  int operator()(long long s) const { return s >= lower && s < upper ? int((s - lower) * bins / (upper - lower)) : -1; }
};

struct index_mod_256 {  // in[i] = i % 256, from an iterator
  TILEKIT_HD int operator[](std::int64_t i) const { return int(i % 256); }
  TILEKIT_HD int operator*() const { return 0; }
};

struct byte_index_mod_256 {  // in[i] = i % 256 as a 1-byte sample, from an iterator (read item by item)
  TILEKIT_HD unsigned char operator[](std::int64_t i) const { return static_cast<unsigned char>(i % 256); }
  TILEKIT_HD unsigned char operator*() const { return 0; }
};

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(device_histogram)

BOOST_AUTO_TEST_CASE(even_bins_every_spread_and_size) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::size_t n = ::backend::device_max_items() / 2 + 17;
  for (spread s : {spread::uniform, spread::skewed, spread::all_equal}) {
    // uint8 samples, 256 bins over [0, 256): CUB's classic case
    const auto bytes = histogram_samples<unsigned char>(n, 0, 255, s, g);
    for (std::size_t offset : {0, 3})
      check_device_histogram(bytes, 256, tilekit::even_bins<unsigned char, int>(257, 0, 256), std::string("uint8 ") + name(s), offset);
    // int8 samples, 11 bins over [-50, 60): the 256-value table with negative samples and samples outside the bins
    const auto signed_bytes = histogram_samples<signed char>(n, -128, 127, s, g);
    check_device_histogram(signed_bytes, 11, tilekit::even_bins<signed char, int>(12, -50, 60), std::string("int8 ") + name(s), 5);
    // 16-bit samples, 1000 bins over [100, 60000): a reciprocal that is not a power of two
    const auto shorts = histogram_samples<unsigned short>(n, 0, 65535, s, g);
    check_device_histogram(shorts, 1000, tilekit::even_bins<unsigned short, int>(1001, 100, 60000), std::string("uint16 ") + name(s), 1);
    // int32 samples, some outside [-1000, 3000), with 1, 1024, 4096, 20000 / 20001 and 65536 / 65537 bins: 20000
    // and 20001 in 16-bit counters in the simulator (48 KB), 65536 and 65537 in 16-bit counters on the H200 (227 KB)
    // and in global counters in the simulator; skewed and all equal: one bin's counter spills many times. The 16-bit
    // counters' merge adds two bins per 64-bit atomic, except an odd last bin and counters not 8-byte aligned
    // (the 20000 / 65536-bin cases again with the counters one word in).
    const auto ints = histogram_samples<int>(n, -1500, 3500, s, g);
    for (int bins : {1, 1024, 4096, 20000, 20001, 65536, 65537}) {
      const tilekit::even_bins<int, int> binner(bins + 1, -1000, 3000);
      check_device_histogram(ints, bins, binner, std::string("int32 ") + name(s));
      if (bins == 20000 || bins == 65536)
        check_device_histogram(ints, bins, binner, std::string("int32, counters 4-byte aligned, ") + name(s), 0,
                               ::backend::launcher(), 1);
      const int_even_reference ref{-1000, 3000, bins};
      std::size_t differ = 0;
      for (int x : ints) differ += binner(x) != ref(x);
      BOOST_TEST(differ == 0u, "even_bins differs from CUB's integer formula for " << differ << " samples");
    }
    // bins 2^k integers wide, binned by a subtraction and a shift (shift_bins): 1000 bins 4
    // wide, 20000 and 65536 bins 1 wide; 64-bit samples in 256 bins 2^24 wide
    for (int bins : {1000, 20000, 65536}) {
      const int width = bins == 1000 ? 4 : 1;
      const tilekit::even_bins<int, int> binner(bins + 1, -1024, -1024 + bins * width);
      BOOST_TEST(binner.width_shift == (width == 4 ? 2 : 0));
      check_device_histogram(ints, bins, binner, std::string("int32 2^k wide ") + name(s));
    }
    const auto longs = histogram_samples<long long>(n, -(1ll << 32), 1ll << 32, s, g);
    const tilekit::even_bins<long long, long long> long_bins(257, -(1ll << 31), 1ll << 31);
    BOOST_TEST(long_bins.width_shift == 24);
    check_device_histogram(longs, 256, long_bins, std::string("int64 2^24 wide ") + name(s));
    const auto floats = histogram_samples<float>(n, -2.0f, 2.0f, s, g);
    check_device_histogram(floats, 100, tilekit::even_bins<float, float>(101, -1.5f, 1.5f), std::string("float ") + name(s));
  }
}

// 65536 / 65537 bins in 16-bit counters, the blocks in clusters that add up their counters
// through distributed shared memory before the global atomics (sm_90; the simulator with 5
// pretended multiprocessors: a grid of 4, two clusters of 2, the fifth left out), with the
// merge's 64-bit pairs, an odd last bin, and counters not 8-byte aligned (one atomic per bin).
BOOST_AUTO_TEST_CASE(half_counters_in_clusters) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::size_t n = std::size_t(5 * tilekit::half_histogram_tuning::min_samples) + 3;
  const auto launcher = ::backend::launcher_with_sms(5);
  for (spread s : {spread::uniform, spread::skewed}) {
    const auto ints = histogram_samples<int>(n, -1500, 66000, s, g);
    const tilekit::even_bins<int, int> one_wide(65537, -1000, 64536), odd(65538, -1000, 3000);
    check_device_histogram(ints, 65536, one_wide, std::string("int32 in clusters, 1 wide, ") + name(s), 0, launcher);
    check_device_histogram(ints, 65536, one_wide, std::string("int32 in clusters, counters 4-byte aligned, ") + name(s), 0,
                           launcher, 1);
    check_device_histogram(ints, 65537, odd, std::string("int32 in clusters, 65537 bins, ") + name(s), 0, launcher);
  }
}

// Bins past one block's 16-bit counters: 16-bit counters spread over a cluster of 2 blocks
// (cluster_half_counters) where the samples outnumber the bins times the clusters, global
// counters otherwise. With the default launcher 150000 / 200001 bins (spread on the H200 at
// device_max_items(), 2^24 samples; global in the simulator, at most 2^17 samples), and with
// blocks of 8 KB 6000 / 8191 bins (spread in the simulator from 5 * 32768 samples, global for
// 1000; the GPU keeps its own limit: shared 32-bit counters there); uniform and skewed data
// (one bin's counter spills many times), an odd last bin, counters one word into their buffer.
BOOST_AUTO_TEST_CASE(counters_spread_over_a_cluster) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::size_t big = std::size_t(5 * tilekit::half_histogram_tuning::min_samples) + 3;
  for (spread s : {spread::uniform, spread::skewed}) {
    for (std::size_t n : {std::size_t(1000), big, std::size_t(::backend::device_max_items())}) {
      const auto ints = histogram_samples<int>(n, -2000, 210000, s, g);
      for (int bins : {150000, 200001}) {
        if (n == big) continue;
        const tilekit::even_bins<int, int> binner(bins + 1, -1000, -1000 + bins);
        check_device_histogram(ints, bins, binner, std::string("int32 spread over a cluster, ") + name(s), 0,
                               ::backend::launcher_with_sms(5), bins == 150000 ? 1 : 0);
      }
      const auto small = histogram_samples<int>(n, -1500, 30000, s, g);
      for (int bins : {6000, 8191}) {
        if (n != big && n != 1000) continue;
        const tilekit::even_bins<int, int> binner(bins + 1, -1000, 3 * bins);  // 4 values a bin, some past the bins
        check_device_histogram(small, bins, binner, std::string("int32 spread over a cluster, 8 KB blocks, ") + name(s), 0,
                               ::backend::launcher_with_max_shared(5, 8192), bins == 6000 ? 1 : 0);
      }
    }
  }
}

// even_bins divides by a multiply-high when the products fit 32 bits, or by the bins'
// width when it is whole, and shift_bins shifts where that width is 2^k: the same bins
// as the division for random levels and bin counts (every third trial with a span that
// is a multiple of the bins, every sixth a 2^k multiple), at the edges of every bin range.
BOOST_AUTO_TEST_CASE(even_bins_reciprocal_matches_division) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  std::size_t differ = 0, cases = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int bins = trial % 3 == 0 ? int(1 + g() % 4) : int(1 + g() % 70000);
    const long long lower = (long long)(g() % 200001) - 100000;
    const long long span = trial % 6 == 4   ? (long long)bins << (g() % 12)                                // 2^k widths
                           : trial % 3 == 1 ? (long long)bins * (long long)(1 + g() % (65536 / bins + 1))  // whole widths
                           : trial % 2  ? (long long)(1 + g() % 1000)
                                        : (long long)(1 + g() % ((1ull << 32) / unsigned(bins)));
    const long long upper = std::min<long long>(lower + span, 2147483647);
    const tilekit::even_bins<int, int> binner(bins + 1, int(lower), int(upper));
    const int_even_reference ref{lower, upper, bins};
    for (long long x : {lower - 1, lower, lower + 1, upper - 1, upper, (lower + upper) / 2,
                        lower + (long long)(g() % std::uint64_t(upper - lower))}) {
      if (x < -2147483648LL || x > 2147483647LL) continue;
      differ += binner(int(x)) != ref(x);
      if (binner.width_shift >= 0)
        differ += tilekit::shift_bins<int, int>{binner.lower, binner.upper, unsigned(binner.width_shift)}(int(x)) != ref(x);
      ++cases;
    }
  }
  BOOST_TEST(differ == 0u, differ << " of " << cases << " samples binned differently, TILEKIT_TEST_SEED=" << base_seed());
}

BOOST_AUTO_TEST_CASE(counts_past_32_bits, *boost::unit_test::precondition(tk_test::huge_counts_wanted<::backend>)) {
  using namespace tk_test;
  const std::int64_t n = (std::int64_t(1) << 32) + 5;
  hbuf<unsigned> counts(257, poison<unsigned>());
  const auto launcher = ::backend::launcher();
  const tilekit::even_bins<int, int> binner(257, 0, 256);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_histogram(launcher, nullptr, bytes, index_mod_256{}, n, counts.data(), 256, binner) ==
                launcher.success);
  hbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = tilekit::device_histogram(launcher, temp.data(), bytes, index_mod_256{}, n, counts.data(), 256, binner);
  ::backend::sync();
  const auto got = counts.to_host();
  BOOST_TEST(e == launcher.success);
  std::size_t bad = 0;
  for (int b = 0; b < 256; ++b) bad += got[std::size_t(b)] != unsigned(n / 256 + (b < n % 256 ? 1 : 0));
  BOOST_TEST(bad == 0u, bad << " bins differ from the closed form");
  BOOST_TEST(is_poison(got[256]));
}

// 1-byte samples (a histogram of the 256 values per warp, mapped to bins per block):
// one value in every sample (0xFF, 0, 0x80) with the fewest blocks, so each block
// counts many samples of it; and an iterator input (the item-by-item path).
BOOST_AUTO_TEST_CASE(byte_samples_one_value_and_iterators) {
  using namespace tk_test;
  const std::size_t n = 4 * ::backend::device_max_items() + 5;
  for (unsigned char value : {0xFF, 0x00, 0x80}) {
    const std::vector<unsigned char> same(value == 0xFF ? n : n / 4, value);
    check_device_histogram(same, 256, tilekit::even_bins<unsigned char, int>(257, 0, 256), "uint8 all " + std::to_string(value), 1,
                           ::backend::launcher_with_few_blocks());
  }
  const std::int64_t m = 2 * std::int64_t(::backend::device_max_items()) + 77;
  hbuf<unsigned> counts(257, poison<unsigned>());
  const auto launcher = ::backend::launcher_with_few_blocks();
  const tilekit::even_bins<unsigned char, int> binner(257, 0, 256);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_histogram(launcher, nullptr, bytes, byte_index_mod_256{}, m, counts.data(), 256, binner) ==
                launcher.success);
  hbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = tilekit::device_histogram(launcher, temp.data(), bytes, byte_index_mod_256{}, m, counts.data(), 256, binner);
  ::backend::sync();
  const auto got = counts.to_host();
  BOOST_TEST(e == launcher.success);
  std::size_t bad = 0;
  for (int b = 0; b < 256; ++b) bad += got[std::size_t(b)] != unsigned(m / 256 + (b < m % 256 ? 1 : 0));
  BOOST_TEST(bad == 0u, bad << " bins of the iterator's bytes differ from the closed form (n=" << m << ")");
  BOOST_TEST(is_poison(got[256]));
}

// byte_tensor_counters through the 1-byte kernel: every spread, sizes around a lane's 64
// samples, a warp's 2048 and the block's trips (whole trips of 4 vectors a lane where few
// blocks share the samples, a last partial trip with lanes past the end adding nothing, the
// row's ends item by item), misaligned starts, a value per sample in
// its own bin (even bins), signed samples partly outside 11 bins (values mapped to bins
// after the counting, as for every binner), and runs of the edge values 0x00 / 0xFF / 0x80 / 0x7F.
template <bool Hybrid>
void check_tensor_byte_cases() {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::size_t big = ::backend::device_max_items() / 2 + 17;
  for (spread s : {spread::uniform, spread::skewed, spread::all_equal}) {
    for (std::size_t n : {std::size_t(1), std::size_t(31), std::size_t(32 * 16 + 5), std::size_t(1024 * 16 - 1), std::size_t(40000), big}) {
      const auto bytes = histogram_samples<unsigned char>(n, 0, 255, s, g);
      for (std::size_t offset : {0, 7})
        check_tensor_byte_histogram<Hybrid>(bytes, 256, tilekit::even_bins<unsigned char, int>(257, 0, 256), std::string("uint8 ") + name(s),
                                            offset);
      if (n >= 40000)
        check_tensor_byte_histogram<Hybrid>(bytes, 256, tilekit::even_bins<unsigned char, int>(257, 0, 256),
                                            std::string("uint8, few blocks, ") + name(s), 3, ::backend::launcher_with_few_blocks());
    }
    const auto signed_bytes = histogram_samples<signed char>(big, -128, 127, s, g);
    check_tensor_byte_histogram<Hybrid>(signed_bytes, 11, tilekit::even_bins<signed char, int>(12, -50, 60), std::string("int8 ") + name(s), 5);
  }
  for (unsigned char value : {0x00, 0xFF, 0x80, 0x7F}) {
    const std::vector<unsigned char> same(big, value);
    check_tensor_byte_histogram<Hybrid>(same, 256, tilekit::even_bins<unsigned char, int>(257, 0, 256), "uint8 all " + std::to_string(value), 3);
  }
  if constexpr (Hybrid) {  // spread and skewed stretches in one input: warps take both paths in turn
    std::vector<unsigned char> mixed = histogram_samples<unsigned char>(big, 0, 255, spread::uniform, g);
    for (std::size_t i = 0; i < mixed.size(); ++i)
      if ((i / 4096) % 2 == 1) mixed[i] = static_cast<unsigned char>(200 + (i / 4096) % 3);
    check_tensor_byte_histogram<Hybrid>(mixed, 256, tilekit::even_bins<unsigned char, int>(257, 0, 256), "uint8 mixed stretches", 0);
  }
}
BOOST_AUTO_TEST_CASE(byte_samples_counted_by_the_tensor_cores) { check_tensor_byte_cases<false>(); }
BOOST_AUTO_TEST_CASE(byte_samples_counted_by_tensor_cores_or_atomics_by_trip) { check_tensor_byte_cases<true>(); }

// The first 8 bytes of temporary storage (where a zero_gate keeps its word), read back.
inline unsigned long long first_word_of(const tk_test::hbuf<unsigned char>& temp) {
  const auto h = temp.to_host();
  unsigned long long word = 0;
  std::memcpy(&word, h.data(), sizeof(word));
  return word;
}

// 1-byte samples: block 0 zeroes the counters in the counting launch and the other blocks wait
// for it before they add (zero_gate, a word of temporary storage). The simulator runs later
// blocks first, but block 0 opens the gate in its first slice there: the waiting itself is
// exercised on the GPU (and by the graph and stream cases there), and in the simulator by
// gate_passed_before_block_0_opens_it (block 0 held back). One storage, poisoned once, for
// every call: each call must leave the gate closed (word 0 back to 0), and a launch repeating the
// last one's tag (what a graph's replay does) must count from zero again. Storage smaller than
// the size query's 16 bytes (the 1 byte it asked for before) or misaligned: the counters are
// zeroed before the launch instead, with the same counts.
BOOST_AUTO_TEST_CASE(byte_counters_zeroed_in_the_launch) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const auto launcher = ::backend::launcher_with_sms(4);
  const tilekit::even_bins<unsigned char, int> binner(257, 0, 256);
  const std::int64_t big = std::int64_t(::backend::device_max_items()) + 3;
  hbuf<unsigned char> temp(64, 0xCD);
  for (std::int64_t n : {std::int64_t(1), std::int64_t(4097), std::int64_t(70001), big}) {
    const auto samples = histogram_samples<unsigned char>(std::size_t(n), 0, 255, spread::uniform, g);
    // Counts samples with temp_bytes of temp from `at` (checked against the CPU's counts).
    auto check_with = [&](unsigned char* at, std::size_t temp_bytes, const std::string& how) {
      check_histogram_run(samples, 256, binner, "uint8, " + how, 0, 0, [&](unsigned char* in, std::int64_t m, unsigned* counters) {
        return tilekit::device_histogram(launcher, at, temp_bytes, in, m, counters, 256, binner);
      });
    };
    std::size_t bytes = 0;
    BOOST_REQUIRE(tilekit::device_histogram(launcher, nullptr, bytes, samples.data(), n, static_cast<unsigned*>(nullptr), 256,
                                            binner) == launcher.success);
    BOOST_TEST(bytes == tilekit::detail::histogram_temp_bytes);
    for (int call = 0; call < 3; ++call) {
      check_with(temp.data(), bytes, "the gate in the storage of every call");
      BOOST_TEST(first_word_of(temp) == 0u, "the gate is left open after call " << call << ", n=" << n);
    }
    // A replay: the same gate (word and tag) twice.
    const tilekit::detail::zero_gate gate = tilekit::detail::gate_in(temp.data(), bytes);
    BOOST_REQUIRE(bool(gate));
    const int channel_bins[1] = {256};
    const decltype(binner) channel_binners[1] = {binner};
    for (int replay = 0; replay < 2; ++replay)
      check_histogram_run(samples, 256, binner, replay == 0 ? "uint8, a tag's first launch" : "uint8, the tag's replay", 0, 0,
                          [&](unsigned char* in, std::int64_t m, unsigned* counters) {
                            unsigned* const channel_counters[1] = {counters};
                            return tilekit::detail::run_byte_histogram<1, 1, false>(
                                launcher, in, m, 1, m, channel_counters, channel_bins, channel_binners,
                                tilekit::detail::stdx::make_index_sequence<1>{}, gate);
                          });
    BOOST_TEST(first_word_of(temp) == 0u, "the gate is left open after the replay, n=" << n);
    check_with(temp.data(), 1, "1 byte of storage: zeroed before the launch");
    check_with(temp.data() + 4, bytes, "storage not 8-byte aligned: zeroed before the launch");
  }
}

BOOST_AUTO_TEST_CASE(range_bins_and_edges) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::vector<int> levels = {-50, -10, 0, 1, 2, 3, 100, 1000, 1001, 5000};
  hbuf<int> d_levels(levels);
  std::vector<int> samples = histogram_samples<int>(::backend::device_max_items() / 4, -100, 6000, spread::uniform, g);
  for (int l : levels) {  // every level itself, and its neighbours
    samples.push_back(l);
    samples.push_back(l - 1);
    samples.push_back(l + 1);
  }
  // the kernel reads the levels where it runs; the reference reads the host copy
  const tilekit::range_bins<int, int> device_binner{d_levels.data(), int(levels.size())};
  const tilekit::range_bins<int, int> host_binner{levels.data(), int(levels.size())};
  hbuf<int> d_samples(samples);
  hbuf<unsigned> d_counts(levels.size(), poison<unsigned>());
  const auto launcher = ::backend::launcher();
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_histogram(launcher, nullptr, bytes, d_samples.data(), std::int64_t(samples.size()),
                                          d_counts.data(), int(levels.size()) - 1, device_binner) == launcher.success);
  hbuf<unsigned char> temp(bytes, 0);
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, d_samples.data(), std::int64_t(samples.size()),
                                       d_counts.data(), int(levels.size()) - 1, device_binner) == launcher.success);
  ::backend::sync();
  std::vector<unsigned> want(levels.size() - 1, 0);
  for (int s : samples) {
    const auto it = std::upper_bound(levels.begin(), levels.end(), s);  // independent of range_bins
    const long b = long(it - levels.begin()) - 1;
    if (b >= 0 && b < long(levels.size()) - 1) ++want[std::size_t(b)];
    BOOST_TEST_REQUIRE(host_binner(s) == int(b < long(levels.size()) - 1 ? b : -1));
  }
  const auto got = d_counts.to_host();
  for (std::size_t b = 0; b + 1 < levels.size(); ++b) BOOST_TEST(got[b] == want[b], "bin " << b);
  BOOST_TEST(is_poison(got[levels.size() - 1]));
}

// One channel of an image of interleaved channels, rows apart by a stride with padding
// (tilekit::pixel_samples, what cub::DeviceHistogram's multi-channel and row-stride forms
// count through): every channel of 4, uint8 even bins and int range bins, against the CPU.
BOOST_AUTO_TEST_CASE(channels_of_an_image_with_row_padding) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const auto launcher = ::backend::launcher();
  for (std::int64_t row_pixels : {std::int64_t(1), std::int64_t(37), std::int64_t(1000)}) {
    for (std::int64_t rows : {std::int64_t(1), std::int64_t(11)}) {
      for (std::int64_t padding : {std::int64_t(9), std::int64_t(0)}) {  // rows with padding, and back to back
        const std::int64_t stride = row_pixels * 4 + padding;  // samples from a row to the next
        std::vector<unsigned char> image(std::size_t(stride * rows), 0xEE);
        std::vector<int> image32(image.size(), -7);
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t p = 0; p < row_pixels * 4; ++p) {
            image[std::size_t(r * stride + p)] = static_cast<unsigned char>(g() % 5 == 0 ? 200 : g());
            image32[std::size_t(r * stride + p)] = int(g() % 1000);
          }
        hbuf<unsigned char> d_image(image);
        hbuf<int> d_image32(image32);
        hbuf<int> d_levels(std::vector<int>{0, 10, 100, 250, 999});
        for (int channel = 0; channel < 4; ++channel) {
          const tilekit::pixel_samples<const unsigned char*> px{d_image.data(), row_pixels, stride, 4, channel};
          const tilekit::pixel_samples<const int*> px32{d_image32.data(), row_pixels, stride, 4, channel};
          const tilekit::even_bins<unsigned char, int> even(257, 0, 256);
          const tilekit::range_bins<int, int> range{d_levels.data(), 5};
          const std::vector<int> host_levels = {0, 10, 100, 250, 999};
          std::vector<unsigned> want(256, 0), want32(4, 0);
          for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t p = 0; p < row_pixels; ++p) {
              ++want[image[std::size_t(r * stride + p * 4 + channel)]];
              const int x = image32[std::size_t(r * stride + p * 4 + channel)];
              for (int b = 0; b < 4; ++b)
                if (x >= host_levels[std::size_t(b)] && x < host_levels[std::size_t(b) + 1]) ++want32[std::size_t(b)];
            }
          hbuf<unsigned> counts(257, poison<unsigned>()), counts32(5, poison<unsigned>());
          std::size_t bytes = 0, bytes32 = 0;
          BOOST_REQUIRE(tilekit::device_histogram(launcher, nullptr, bytes, px, row_pixels * rows, counts.data(), 256, even) ==
                        launcher.success);
          BOOST_REQUIRE(tilekit::device_histogram(launcher, nullptr, bytes32, px32, row_pixels * rows, counts32.data(), 4, range) ==
                        launcher.success);
          hbuf<unsigned char> temp(std::max(bytes, bytes32), 0xCD);
          const auto e = tilekit::device_histogram(launcher, temp.data(), bytes, px, row_pixels * rows, counts.data(), 256, even);
          const auto e32 =
              tilekit::device_histogram(launcher, temp.data(), bytes32, px32, row_pixels * rows, counts32.data(), 4, range);
          ::backend::sync();
          const auto got = counts.to_host(), got32 = counts32.to_host();
          BOOST_TEST_CONTEXT(::backend::name << " channel " << channel << " of 4, " << rows << " rows of " << row_pixels
                                             << " pixels, " << padding << " samples of padding, TILEKIT_TEST_SEED="
                                             << base_seed()) {
            BOOST_TEST(e == launcher.success);
            BOOST_TEST(e32 == launcher.success);
            mismatch_log log;
            for (int b = 0; b < 256; ++b) log.expect(got[std::size_t(b)], want[std::size_t(b)], "uint8 bin " + std::to_string(b));
            for (int b = 0; b < 4; ++b) log.expect(got32[std::size_t(b)], want32[std::size_t(b)], "int range bin " + std::to_string(b));
            log.expect_true(is_poison(got[256]) && is_poison(got32[4]), "wrote past the last bin");
            BOOST_TEST(log.count == 0u);
          }
        }
      }
    }
  }
}

// The multi-channel histogram (tilekit::device_multi_histogram): the first Active of
// Channels interleaved channels, each into its own counters with its own bins; uint8
// images (one pass for every channel) starting on and off a 16-byte boundary, in one row
// and in rows with padding (a multiple of 16 bytes apart, read as vectors, or not), and an
// int image (a pass per channel), against the CPU.

// Channel c's counts at got[first[c] ..] against want[c], and the slot after its last bin
// still poisoned: the mismatches (each logged).
inline unsigned channel_mismatches(const std::vector<unsigned>& got, const std::size_t* first, const int* bins,
                                   const std::vector<std::vector<unsigned>>& want, unsigned channels) {
  tk_test::mismatch_log log;
  for (unsigned c = 0; c < channels; ++c) {
    for (int b = 0; b < bins[c]; ++b)
      log.expect(got[first[c] + std::size_t(b)], want[c][std::size_t(b)], "channel " + std::to_string(c) + " bin " + std::to_string(b));
    log.expect_true(tk_test::is_poison(got[first[c] + std::size_t(bins[c])]), "wrote past channel " + std::to_string(c) + "'s last bin");
  }
  return unsigned(log.count);
}

// The launcher with one multiprocessor where its count can be set (the simulator's: a grid
// of fewer threads, so that each has several vectors), else as it is.
template <class L>
auto with_one_sm(L l, int) -> decltype(l.sms = 1u, L()) {
  l.sms = 1u;
  return l;
}
template <class L>
L with_one_sm(L l, long) {
  return l;
}

template <unsigned Channels, unsigned Active, class Sample>
void check_multi_histogram(std::int64_t row_pixels, std::int64_t rows, std::int64_t padding, std::size_t offset,
                           std::mt19937_64& g, bool one_sm = false) {
  using namespace tk_test;
  const auto launcher = one_sm ? with_one_sm(::backend::launcher(), 0) : ::backend::launcher();
  const std::int64_t stride = row_pixels * Channels + padding;  // samples from a row to the next
  std::vector<Sample> image(offset + std::size_t(stride * rows) + 3);
  for (auto& x : image) x = Sample(g() % 4 == 0 ? 9 : g() % 256);  // a quarter in one bin
  hbuf<Sample> d_image(image);
  // Channel c: 256 >> c bins over [c, 256 - c): narrower and shifted as c grows.
  using bins_t = tilekit::even_bins<Sample, int>;
  bins_t binners[Active];
  int bins[Active];
  std::vector<std::vector<unsigned>> want(Active);
  std::size_t first[Active + 1] = {};  // channel c's counters at first[c], one poisoned slot after its last
  for (unsigned c = 0; c < Active; ++c) {
    bins[c] = 256 >> c;
    binners[c] = bins_t(bins[c] + 1, int(c), 256 - int(c));
    want[c].assign(std::size_t(bins[c]), 0u);
    first[c + 1] = first[c] + std::size_t(bins[c]) + 1;
  }
  hbuf<unsigned> counts(first[Active], poison<unsigned>());
  unsigned* counters[Active];
  for (unsigned c = 0; c < Active; ++c) counters[c] = counts.data() + first[c];
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t p = 0; p < row_pixels; ++p)
      for (unsigned c = 0; c < Active; ++c) {
        const int bin = binners[c](image[offset + std::size_t(r * stride + p * Channels) + c]);
        if (bin >= 0) ++want[c][std::size_t(bin)];
      }
  const Sample* samples = d_image.data() + offset;
  std::size_t bytes = 0;
  auto call = [&](void* temp) {
    return tilekit::device_multi_histogram<Channels, Active>(launcher, temp, bytes, samples, row_pixels, rows, stride, counters,
                                                             bins, binners);
  };
  BOOST_REQUIRE(call(nullptr) == launcher.success);
  hbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = call(temp.data());
  ::backend::sync();
  // 1-byte samples zero their counters in the launch (the gate in temp, closed again after it)
  // for one channel, and for several from gate_channels_from samples on; temp is untouched otherwise.
  const bool gated = sizeof(Sample) == 1 && row_pixels * rows > 0 &&
                     (Active == 1 || row_pixels * rows * std::int64_t(Channels) >= tilekit::byte_histogram_tuning::gate_channels_from);
  const unsigned long long gate_word = first_word_of(temp);
  BOOST_TEST_CONTEXT(::backend::name << " multi-channel histogram, " << Active << " of " << Channels << " channels of "
                                     << sizeof(Sample) << "-byte samples, " << rows << " rows of " << row_pixels << " pixels, "
                                     << padding << " samples of padding, from sample " << offset
                                     << ", TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    BOOST_TEST(channel_mismatches(counts.to_host(), first, bins, want, Active) == 0u);
    BOOST_TEST(gate_word == (gated ? 0ull : 0xCDCDCDCDCDCDCDCDull), std::hex << "temp's first word " << gate_word
                                                                              << (gated ? " (gated: the gate not taken or left open)" : " (not gated: written)"));
  }
}

// Range bins over 1-byte samples (byte_histogram_kernel maps each value to its bin once per
// block, through a copy of the levels in shared memory where there are at most 257): Active
// of Channels channels, each with its own levels, of Level type, against std::upper_bound on
// the host's copy.
template <unsigned Channels, unsigned Active, class Level>
void check_byte_range_bins(std::int64_t pixels, const std::vector<std::vector<Level>>& levels, std::mt19937_64& g) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  std::vector<unsigned char> image(std::size_t(pixels) * Channels);
  for (auto& x : image) x = static_cast<unsigned char>(g() % 4 == 0 ? 200 : g() % 256);
  hbuf<unsigned char> d_image(image.empty() ? std::vector<unsigned char>(1) : image);
  std::vector<Level> all_levels;  // every channel's, one after another (buffers do not move)
  std::size_t level_from[Active] = {};
  for (unsigned c = 0; c < Active; ++c) {
    level_from[c] = all_levels.size();
    all_levels.insert(all_levels.end(), levels[c].begin(), levels[c].end());
  }
  hbuf<Level> d_levels(all_levels);
  using bins_t = tilekit::range_bins<unsigned char, Level>;
  bins_t binners[Active];
  int bins[Active];
  std::size_t first[Active + 1] = {};
  std::vector<std::vector<unsigned>> want(Active);
  for (unsigned c = 0; c < Active; ++c) {
    binners[c] = bins_t{d_levels.data() + level_from[c], int(levels[c].size())};
    bins[c] = int(levels[c].size()) - 1;
    want[c].assign(std::size_t(bins[c]), 0u);
    first[c + 1] = first[c] + std::size_t(bins[c]) + 1;
  }
  for (std::int64_t p = 0; p < pixels; ++p)
    for (unsigned c = 0; c < Active; ++c) {
      const Level sample = Level(image[std::size_t(p) * Channels + c]);
      const auto b = long(std::upper_bound(levels[c].begin(), levels[c].end(), sample) - levels[c].begin()) - 1;
      if (b >= 0 && b < bins[c]) ++want[c][std::size_t(b)];
    }
  hbuf<unsigned> counts(first[Active], poison<unsigned>());
  unsigned* counters[Active];
  for (unsigned c = 0; c < Active; ++c) counters[c] = counts.data() + first[c];
  std::size_t bytes = 0;
  auto call = [&](void* temp) {
    return tilekit::device_multi_histogram<Channels, Active>(launcher, temp, bytes, d_image.data(), pixels, 1, 0, counters, bins,
                                                             binners);
  };
  BOOST_REQUIRE(call(nullptr) == launcher.success);
  hbuf<unsigned char> temp(bytes, 0xCD);
  const auto e = call(temp.data());
  ::backend::sync();
  BOOST_TEST_CONTEXT(::backend::name << " uint8 range bins, " << Active << " of " << Channels << " channels, " << pixels
                                     << " pixels, " << levels[0].size() << " levels in channel 0, TILEKIT_TEST_SEED=" << base_seed()) {
    BOOST_TEST(e == launcher.success);
    BOOST_TEST(channel_mismatches(counts.to_host(), first, bins, want, Active) == 0u);
  }
}

BOOST_AUTO_TEST_CASE(byte_samples_with_range_bins) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t big = std::int64_t(std::min<std::size_t>(::backend::device_max_items(), std::size_t(1) << 22) / 4);
  // Uneven int levels (some below 0 and past 255), a level per value (257), and 300 float levels
  // in steps of 1 from -20 (more than the shared copy holds: read from global memory).
  const std::vector<int> uneven = {-5, 0, 3, 10, 50, 51, 100, 199, 200, 201, 255, 300};
  std::vector<int> every(257);
  for (int l = 0; l <= 256; ++l) every[std::size_t(l)] = l;
  std::vector<float> many(300);
  for (int l = 0; l < 300; ++l) many[std::size_t(l)] = float(l - 20);
  const std::vector<float> halves = {0.5f, 1.5f, 99.5f, 200.f, 200.5f, 254.5f};
  for (std::int64_t pixels : {std::int64_t(1), std::int64_t(4099), big}) {
    check_byte_range_bins<4, 3, int>(pixels, {uneven, every, {7, 8}}, g);
    check_byte_range_bins<1, 1, int>(pixels * 4, {uneven}, g);
    check_byte_range_bins<1, 1, int>(pixels * 4, {every}, g);
    check_byte_range_bins<3, 2, float>(pixels, {many, halves}, g);
    check_byte_range_bins<4, 4, float>(pixels, {halves, halves, many, halves}, g);
  }
}

BOOST_AUTO_TEST_CASE(multi_channel_histograms) {
  using namespace tk_test;
  auto g = rng_for(next_salt());
  const std::int64_t big = std::int64_t(std::min<std::size_t>(::backend::device_max_items(), std::size_t(1) << 22) / 4);
  for (std::int64_t pixels : {std::int64_t(0), std::int64_t(1), std::int64_t(37), std::int64_t(4099), big}) {
    for (std::size_t offset : {std::size_t(0), std::size_t(1), std::size_t(6)}) {
      check_multi_histogram<4, 3, unsigned char>(pixels, 1, 0, offset, g);
      check_multi_histogram<3, 3, unsigned char>(pixels, 1, 0, offset, g);
      check_multi_histogram<3, 2, signed char>(pixels, 1, 0, offset, g);
      check_multi_histogram<1, 1, unsigned char>(pixels, 1, 0, offset, g);
    }
    check_multi_histogram<4, 3, int>(pixels, 1, 0, 0, g);
  }
  // Rows: 4 x 333 + 12 and 4 x 1000 (+ 32) samples are multiples of 16 (vectors), 4 x 333 (+ 7) and 3 x 1000 + 5 are not.
  for (std::int64_t row_pixels : {std::int64_t(1), std::int64_t(333), std::int64_t(1000)}) {
    for (std::int64_t padding : {std::int64_t(0), std::int64_t(7), std::int64_t(12), std::int64_t(32)}) {
      for (std::size_t offset : {std::size_t(0), std::size_t(5)}) {
        check_multi_histogram<4, 3, unsigned char>(row_pixels, 9, padding, offset, g);
        check_multi_histogram<3, 2, unsigned char>(row_pixels, 9, padding + 5, offset, g);
      }
      check_multi_histogram<4, 3, int>(row_pixels, 9, padding, 0, g);
    }
  }
  // Rows enough for several in-flight vectors per thread (rows of 250 vectors, 32 bytes apart
  // beyond them; the simulator's grid on one multiprocessor).
  const std::int64_t many_rows = std::max<std::int64_t>(30, std::int64_t(::backend::device_max_items()) / 4032);
  check_multi_histogram<4, 3, unsigned char>(1000, many_rows, 32, 0, g, true);
  check_multi_histogram<4, 4, unsigned char>(1000, many_rows, 48, 3, g, true);
  // Several channels zero their counters in the counting launch from gate_channels_from samples
  // on (below it, a zeroing kernel before the launch): one row and rows, just past it.
  const std::int64_t gated_pixels = tilekit::byte_histogram_tuning::gate_channels_from / 4 + 3;
  check_multi_histogram<4, 3, unsigned char>(gated_pixels, 1, 0, 1, g);
  check_multi_histogram<4, 3, unsigned char>(gated_pixels / 8 + 1, 8, 12, 0, g);
  check_multi_histogram<4, 3, unsigned char>(gated_pixels - 4, 1, 0, 0, g);  // just below: no gate
  // Invalid arguments: nothing written.
  const auto launcher = ::backend::launcher();
  hbuf<unsigned char> image(std::vector<unsigned char>(64, 1));
  hbuf<unsigned> a(256, poison<unsigned>()), b(256, poison<unsigned>());
  unsigned* counters[2] = {a.data(), b.data()};
  unsigned* null_second[2] = {a.data(), nullptr};
  const int bins[2] = {256, 256}, no_bins[2] = {256, 0};
  using bins_t = tilekit::even_bins<unsigned char, int>;
  const bins_t binners[2] = {bins_t(257, 0, 256), bins_t(257, 0, 256)}, empty_range[2] = {bins_t(257, 0, 256), bins_t(257, 5, 5)};
  std::size_t bytes = 0;
  const unsigned char* pixels = image.data();
  auto call = [&](void* temp, const unsigned char* samples, std::int64_t n, unsigned* const (&c)[2], const int (&nb)[2],
                  const bins_t (&bn)[2]) { return tilekit::device_multi_histogram<4, 2>(launcher, temp, bytes, samples, n, 1, 4 * n, c, nb, bn); };
  BOOST_REQUIRE(call(nullptr, pixels, 16, counters, bins, binners) == launcher.success);
  hbuf<unsigned char> temp(bytes, 0xCD);
  BOOST_TEST(call(temp.data(), pixels, -1, counters, bins, binners) == launcher.invalid_value);
  BOOST_TEST(call(temp.data(), pixels, 16, null_second, bins, binners) == launcher.invalid_value);
  BOOST_TEST(call(temp.data(), pixels, 16, counters, no_bins, binners) == launcher.invalid_value);
  BOOST_TEST(call(temp.data(), pixels, 16, counters, bins, empty_range) == launcher.invalid_value);
  BOOST_TEST(call(temp.data(), nullptr, 16, counters, bins, binners) == launcher.invalid_value);
  const auto overlapping = tilekit::device_multi_histogram<4, 2>(launcher, temp.data(), bytes, pixels, 4, 2, 15, counters, bins,
                                                                 binners);  // rows overlap: 16 samples a row, 15 apart
  BOOST_TEST(overlapping == launcher.invalid_value);
  bytes = 0;  // a non-null temp of 0 bytes: less than the size query's 16
  BOOST_TEST(call(temp.data(), pixels, 16, counters, bins, binners) == launcher.invalid_value);
  ::backend::sync();
  for (unsigned x : a.to_host()) BOOST_TEST(is_poison(x));
  for (unsigned x : b.to_host()) BOOST_TEST(is_poison(x));
}

BOOST_AUTO_TEST_CASE(empty_input_and_invalid_arguments) {
  using namespace tk_test;
  const auto launcher = ::backend::launcher();
  hbuf<int> samples(std::vector<int>(10, 1));
  hbuf<unsigned> counts(8, poison<unsigned>());
  const tilekit::even_bins<int, int> binner(9, 0, 8);
  std::size_t bytes = 0;
  BOOST_REQUIRE(tilekit::device_histogram(launcher, nullptr, bytes, samples.data(), 10, counts.data(), 8, binner) == launcher.success);
  hbuf<unsigned char> temp(bytes, 0);
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, samples.data(), -1, counts.data(), 8, binner) == ::backend::invalid_value);
  std::size_t query = 12345;  // a size query answers a negative count as the call does, and sets nothing
  BOOST_TEST(tilekit::device_histogram(launcher, nullptr, query, samples.data(), -1, counts.data(), 8, binner) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_histogram(launcher, nullptr, query, samples.data(), 10, counts.data(), 0, binner) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_histogram(launcher, nullptr, query, samples.data(), 10, counts.data(), 8,
                                       tilekit::even_bins<int, int>(9, 8, 8)) == ::backend::invalid_value);
  BOOST_TEST(query == 12345u);
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, samples.data(), 10, counts.data(), 0, binner) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, static_cast<const int*>(nullptr), 10, counts.data(), 8,
                                       binner) == ::backend::invalid_value);
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, samples.data(), 10, static_cast<unsigned*>(nullptr), 8,
                                       binner) == ::backend::invalid_value);
  // Bins that cannot bin: the same answer on both backends (the checks are the dispatch's).
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, samples.data(), 10, counts.data(), 8,
                                       tilekit::even_bins<int, int>(9, 8, 8)) == ::backend::invalid_value);  // lower == upper
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, samples.data(), 10, counts.data(), 8,
                                       tilekit::even_bins<int, int>(9, 8, 0)) == ::backend::invalid_value);  // lower > upper
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, samples.data(), 10, counts.data(), 8,
                                       tilekit::range_bins<int, int>{nullptr, 9}) == ::backend::invalid_value);  // no levels
  // Float levels whose span overflows (every sample would land in bin 0).
  hbuf<float> float_samples(std::vector<float>(10, 1.0f));
  const float most = std::numeric_limits<float>::max();
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, float_samples.data(), 10, counts.data(), 8,
                                       tilekit::even_bins<float, float>(9, -most, most)) == ::backend::invalid_value);
  // A non-null temp of 0 bytes: less than the size query's 16.
  std::size_t none = 0;
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), none, samples.data(), 10, counts.data(), 8, binner) ==
             ::backend::invalid_value);
  ::backend::sync();
  for (unsigned c : counts.to_host()) BOOST_TEST(is_poison(c));
  // no samples: every counter zeroed, as CUB
  BOOST_TEST(tilekit::device_histogram(launcher, temp.data(), bytes, samples.data(), 0, counts.data(), 8, binner) == launcher.success);
  ::backend::sync();
  for (unsigned c : counts.to_host()) BOOST_TEST(c == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
