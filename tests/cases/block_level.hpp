// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Block level: reduce, scan, compact / partition, histogram and flag_heads over
// blocks of 32..1024 threads (including sizes that are not a multiple of 32),
// 1, 4 and 7 items per thread, full and partial tiles, written once for both
// backends and checked against sequential CPU references. Integer and matrix
// operations are associative exactly, so any correct order must match the
// reference bit for bit; floats are checked against double precision.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/block/compact.cuh>
#include <tilekit/block/dedup.cuh>
#include <tilekit/block/histogram.cuh>
#include <tilekit/block/reduce.cuh>
#include <tilekit/block/scan.cuh>

#include <cmath>

namespace tk_test {

template <class T>
using buf = typename ::backend::template buffer<T>;

inline std::string where_in(unsigned block, unsigned thread, int item = -1) {
  return "block " + std::to_string(block) + " thread " + std::to_string(thread) +
         (item >= 0 ? " item " + std::to_string(item) : std::string());
}

/// Exact for integers and matrices; floats within rounding of a double-precision reference.
template <class T>
bool matches(const T& got, const T& want, double scale) {
  if constexpr (std::is_floating_point_v<T>) return std::fabs(double(got) - double(want)) <= 1e-5 * scale + 1e-3;
  else return got == want;
}

/// Random data small enough that no sum over a block overflows (signed overflow is UB on the host).
template <class T>
std::vector<T> block_data(std::size_t n, std::mt19937_64& g) {
  std::vector<T> v = random_vector<T>(n, g);
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    for (auto& x : v) x = static_cast<T>(x % 1000);
  return v;
}

template <class T>
double magnitude(const T& v) {
  if constexpr (std::is_floating_point_v<T>) return std::fabs(double(v));
  else return 0;
}

/// A block's extents; {0, 0, 0}: Threads along x. thread_rank runs x fastest, so
/// the same data and checks serve 1D, 2D and 3D blocks.
struct extent {
  unsigned x = 0, y = 1, z = 1;
};
template <class B, unsigned Threads>
auto block_dims(extent e) {
  return e.x == 0 ? typename B::dim3_t(Threads, 1, 1) : typename B::dim3_t(e.x, e.y, e.z);
}
inline std::string shape_name(extent e) {
  return e.x == 0 ? std::string() : " (" + std::to_string(e.x) + "x" + std::to_string(e.y) + "x" + std::to_string(e.z) + ")";
}

// ---------------------------------------------------------------- reduce

// out[thread]: full-tile reduce, then (storage reused) the partial-tile reduce.
template <unsigned Threads, int K, class T, class Op>
struct block_reduce_body {
  const T* in;  // Threads * K per block
  T* out;       // 2 per thread
  unsigned valid_items;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto& storage = ctx.template shared<tilekit::reduce_storage<T, Threads>>();
    const std::size_t base = std::size_t(block.group_index().x) * Threads;
    const unsigned r = block.thread_rank();
    T items[K];
    for (int k = 0; k < K; ++k) items[k] = in[(base + r) * K + k];
    T a;
    if constexpr (K == 1) a = tilekit::reduce(block, items[0], Op{}, storage);
    else a = tilekit::reduce(block, items, Op{}, storage);
    block.sync();  // storage reused back to back
    T b;
    if constexpr (K == 1) b = tilekit::reduce(block, items[0], Op{}, storage, valid_items);
    else b = tilekit::reduce(block, items, Op{}, storage, valid_items);
    out[2 * (base + r)] = a;
    out[2 * (base + r) + 1] = b;
  }
};

// The checks take the block size and items per thread at run time: one instantiation
// per type and operator, not per shape.
template <class B, class T, class Op>
void verify_block_reduce(unsigned Threads, int K, unsigned blocks, unsigned valid_items, extent shape,
                         const std::vector<T>& in, const std::vector<T>& out) {
  BOOST_TEST_CONTEXT(B::name << " block<" << Threads << ">" << shape_name(shape) << " reduce " << type_name<T>() << " " << op_name<Op>() << " x" << K
                             << " valid_items " << valid_items << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    const Op op{};
    for (unsigned b = 0; b < blocks; ++b) {
      const T* x = &in[std::size_t(b) * Threads * K];
      T all = x[0], part = x[0];
      double scale = magnitude(x[0]);
      for (std::size_t i = 1; i < std::size_t(Threads) * K; ++i) {
        all = op(all, x[i]);
        if (i < valid_items) part = op(part, x[i]);
        scale += magnitude(x[i]);
      }
      for (unsigned r = 0; r < Threads; ++r) {
        const std::size_t i = std::size_t(b) * Threads + r;
        log.expect_true(matches(out[2 * i], all, scale), "reduce at " + where_in(b, r) + ": got " + show(out[2 * i]) + ", want " + show(all));
        log.expect_true(matches(out[2 * i + 1], part, scale),
                        "reduce(valid_items) at " + where_in(b, r) + ": got " + show(out[2 * i + 1]) + ", want " + show(part));
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

template <class B, unsigned Threads, int K, class T, class Op>
void check_block_reduce(unsigned valid_items, extent shape = {}) {
  auto g = rng_for(next_salt());
  const unsigned blocks = 3;
  const std::size_t n = std::size_t(blocks) * Threads;
  const std::vector<T> in = block_data<T>(n * K, g);
  buf<T> d_in(in), d_out(2 * n, poison<T>());
  B::run(blocks, block_dims<B, Threads>(shape), block_reduce_body<Threads, K, T, Op>{d_in.data(), d_out.data(), valid_items},
         sizeof(tilekit::reduce_storage<T, Threads>));
  verify_block_reduce<B, T, Op>(Threads, K, blocks, valid_items, shape, in, d_out.to_host());
}

// ---------------------------------------------------------------- scan

inline const char* algorithm_name(tilekit::block_scan_algorithm a) {
  return a == tilekit::block_scan_algorithm::raking ? "raking" : "warp_scans";
}

struct recording_prefix {  // CUB-style running-prefix callback: returns a seed, remembers the aggregate
  int seed;
  int* seen_aggregate;
  TILEKIT_HD int operator()(int aggregate) {
    *seen_aggregate = aggregate;
    return seed;
  }
};

// Per item: inclusive, exclusive(init), partial-tile inclusive and exclusive(init);
// per thread: the four aggregates; the scalar forms when K == 1.
template <unsigned Threads, int K, class T, class Op, tilekit::block_scan_algorithm A>
struct block_scan_body {
  const T* in;
  T init;
  unsigned valid_items;
  T* items_out;  // 4 * K per thread
  T* totals;     // 4 per thread (+3 scalar results when K == 1)

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto& storage = ctx.template shared<tilekit::scan_storage<T, Threads, A>>();
    const std::size_t t = std::size_t(block.group_index().x) * Threads + block.thread_rank();
    const Op op{};
    T items[K], out[K];
    for (int k = 0; k < K; ++k) items[k] = in[t * K + k];
    T* o = items_out + 4 * K * t;
    T* a = totals + 7 * t;
    a[0] = tilekit::inclusive_scan(block, items, out, op, storage);
    for (int k = 0; k < K; ++k) o[k] = out[k];
    block.sync();
    a[1] = tilekit::exclusive_scan(block, items, out, op, init, storage);
    for (int k = 0; k < K; ++k) o[K + k] = out[k];
    block.sync();
    a[2] = tilekit::inclusive_scan(block, items, out, op, storage, valid_items);
    for (int k = 0; k < K; ++k) o[2 * K + k] = out[k];
    block.sync();
    a[3] = tilekit::exclusive_scan(block, items, out, op, init, storage, valid_items);
    for (int k = 0; k < K; ++k) o[3 * K + k] = out[k];
    if constexpr (K == 1) {
      block.sync();
      a[4] = tilekit::inclusive_scan(block, items[0], op, storage);
      block.sync();
      const tilekit::scanned<T> s = tilekit::exclusive_scan_aggregate(block, items[0], op, init, storage);
      a[5] = s.value;
      a[6] = s.aggregate;
    }
  }
};

template <class B, class T, class Op>
void verify_block_scan(unsigned Threads, int K, tilekit::block_scan_algorithm A, unsigned blocks, unsigned valid_items,
                       extent shape, const std::vector<T>& in, const T& init, const std::vector<T>& items,
                       const std::vector<T>& totals) {
  BOOST_TEST_CONTEXT(B::name << " block<" << Threads << ">" << shape_name(shape) << " scan (" << algorithm_name(A) << ") "
                             << type_name<T>() << " " << op_name<Op>() << " x" << K
                             << " valid_items " << valid_items << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    const Op op{};
    const std::size_t per_block = std::size_t(Threads) * K;
    for (unsigned b = 0; b < blocks; ++b) {
      const T* x = &in[b * per_block];
      // Sequential references: full tile, and partial tile (items past valid_items do not count).
      std::vector<T> inc(per_block, x[0]), exc(per_block, init), pinc(per_block, x[0]), pexc(per_block, init);
      std::vector<double> scale(per_block);
      double s = 0;
      for (std::size_t i = 0; i < per_block; ++i) {
        s += magnitude(x[i]);
        scale[i] = s + magnitude(init);
        if (i > 0) {
          inc[i] = op(inc[i - 1], x[i]);
          exc[i] = op(exc[i - 1], x[i - 1]);
          pinc[i] = i < valid_items ? op(pinc[i - 1], x[i]) : pinc[i - 1];
          pexc[i] = i - 1 < valid_items ? op(pexc[i - 1], x[i - 1]) : pexc[i - 1];
        }
      }
      const T aggregate = inc[per_block - 1], partial_aggregate = pinc[per_block - 1];
      for (unsigned r = 0; r < Threads; ++r) {
        const std::size_t t = std::size_t(b) * Threads + r;
        const T* o = &items[4 * K * t];
        const T* a = &totals[7 * t];
        auto expect = [&](const T& got, const T& want, double sc, const std::string& what) {
          log.expect_true(matches(got, want, sc), what + ": got " + show(got) + ", want " + show(want));
        };
        for (int k = 0; k < K; ++k) {
          const std::size_t i = std::size_t(r) * K + k;
          expect(o[k], inc[i], scale[i], "inclusive at " + where_in(b, r, k));
          expect(o[K + k], exc[i], scale[i], "exclusive at " + where_in(b, r, k));
          expect(o[2 * K + k], pinc[i], scale[i], "inclusive(valid_items) at " + where_in(b, r, k));
          expect(o[3 * K + k], pexc[i], scale[i], "exclusive(valid_items) at " + where_in(b, r, k));
        }
        const double sc = scale[per_block - 1];
        expect(a[0], aggregate, sc, "inclusive aggregate at " + where_in(b, r));
        expect(a[1], aggregate, sc, "exclusive aggregate at " + where_in(b, r));
        expect(a[2], partial_aggregate, sc, "inclusive(valid_items) aggregate at " + where_in(b, r));
        expect(a[3], partial_aggregate, sc, "exclusive(valid_items) aggregate at " + where_in(b, r));
        if (K == 1) {
          expect(a[4], inc[r], scale[r], "scalar inclusive at " + where_in(b, r));
          expect(a[5], exc[r], scale[r], "exclusive_scan_aggregate value at " + where_in(b, r));
          expect(a[6], aggregate, sc, "exclusive_scan_aggregate aggregate at " + where_in(b, r));
        }
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

template <class B, unsigned Threads, int K, class T, class Op,
          tilekit::block_scan_algorithm A = tilekit::default_block_scan_algorithm>
void check_block_scan(unsigned valid_items, extent shape = {}) {
  auto g = rng_for(next_salt());
  const unsigned blocks = 3;
  const std::size_t n = std::size_t(blocks) * Threads;
  const std::vector<T> in = block_data<T>(n * K, g);
  const T init = random_value<T>(g);
  buf<T> d_in(in), d_items(4 * K * n, poison<T>()), d_totals(7 * n, poison<T>());
  B::run(blocks, block_dims<B, Threads>(shape),
         block_scan_body<Threads, K, T, Op, A>{d_in.data(), init, valid_items, d_items.data(), d_totals.data()},
         sizeof(tilekit::scan_storage<T, Threads, A>));
  verify_block_scan<B, T, Op>(Threads, K, A, blocks, valid_items, shape, in, init, d_items.to_host(), d_totals.to_host());
}

// The running-prefix callback: every block seeds its scan with 1000 * block + 7.
template <unsigned Threads, int K, tilekit::block_scan_algorithm A>
struct block_scan_prefix_body {
  const int* in;
  int* inclusive;
  int* exclusive;
  int* seen;  // per block: the aggregate thread 0's callback saw

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto& storage = ctx.template shared<tilekit::scan_storage<int, Threads, A>>();
    const unsigned b = block.group_index().x;
    const std::size_t t = std::size_t(b) * Threads + block.thread_rank();
    int items[K], out[K];
    for (int k = 0; k < K; ++k) items[k] = in[t * K + k];
    int ignored = 0;
    recording_prefix prefix{int(1000 * b + 7), block.thread_rank() == 0 ? seen + b : &ignored};
    tilekit::inclusive_scan_prefix(block, items, out, tilekit::plus{}, storage, prefix);
    for (int k = 0; k < K; ++k) inclusive[t * K + k] = out[k];
    block.sync();
    tilekit::exclusive_scan_prefix(block, items, out, tilekit::plus{}, storage, prefix);
    for (int k = 0; k < K; ++k) exclusive[t * K + k] = out[k];
  }
};

template <class B, unsigned Threads, int K, tilekit::block_scan_algorithm A>
void check_block_scan_prefix() {
  auto g = rng_for(next_salt());
  const unsigned blocks = 3;
  const std::size_t n = std::size_t(blocks) * Threads * K;
  const std::vector<int> in = block_data<int>(n, g);
  buf<int> d_in(in), d_inc(n, poison<int>()), d_exc(n, poison<int>()), d_seen(blocks, poison<int>());
  B::run(blocks, Threads, block_scan_prefix_body<Threads, K, A>{d_in.data(), d_inc.data(), d_exc.data(), d_seen.data()},
         sizeof(tilekit::scan_storage<int, Threads, A>));
  const auto inc = d_inc.to_host(), exc = d_exc.to_host(), seen = d_seen.to_host();
  BOOST_TEST_CONTEXT(B::name << " block<" << Threads << "> scan (" << algorithm_name(A) << ") with prefix callback x" << K << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned b = 0; b < blocks; ++b) {
      int run = int(1000 * b + 7), total = 0;
      for (std::size_t i = 0; i < std::size_t(Threads) * K; ++i) {
        const std::size_t at = std::size_t(b) * Threads * K + i;
        log.expect(exc[at], run, "exclusive with prefix, block " + std::to_string(b) + " item " + std::to_string(i));
        run += in[at];
        total += in[at];
        log.expect(inc[at], run, "inclusive with prefix, block " + std::to_string(b) + " item " + std::to_string(i));
      }
      log.expect(seen[b], total, "aggregate handed to the callback, block " + std::to_string(b));
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- compact, partition

template <unsigned Threads>
struct block_compact_body {
  const int* values;
  const unsigned char* keep;
  unsigned valid_items;
  unsigned* rank;       // 2 per thread: full, partial
  unsigned* count;      // 2 per thread
  int* stored;          // Threads per block
  int* partitioned;     // Threads per block

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto& storage = ctx.template shared<tilekit::compact_storage<Threads>>();
    const std::size_t base = std::size_t(block.group_index().x) * Threads;
    const std::size_t t = base + block.thread_rank();
    const tilekit::compact_result a = tilekit::compact(block, keep[t] != 0, storage);
    block.sync();
    const tilekit::compact_result b = tilekit::compact(block, keep[t] != 0, storage, valid_items);
    rank[2 * t] = a.rank;
    count[2 * t] = a.count;
    rank[2 * t + 1] = b.rank;
    count[2 * t + 1] = b.count;
    block.sync();
    tilekit::compact_store(block, keep[t] != 0, values[t], stored + base, storage, valid_items);
    block.sync();
    tilekit::partition(block, keep[t] != 0, values[t], partitioned + base, storage, valid_items);
  }
};

template <class B, unsigned Threads>
void check_block_compact(keep_pattern pattern, unsigned valid_items) {
  auto g = rng_for(next_salt());
  const unsigned blocks = 3;
  const std::size_t n = std::size_t(blocks) * Threads;
  const std::vector<int> values = random_vector<int>(n, g);
  std::vector<unsigned char> keep(n);
  for (std::size_t i = 0; i < n; ++i) keep[i] = keep_at(pattern, unsigned(i % Threads), Threads, g);
  buf<int> d_values(values), d_stored(n, poison<int>()), d_part(n, poison<int>());
  buf<unsigned char> d_keep(keep);
  buf<unsigned> d_rank(2 * n, poison<unsigned>()), d_count(2 * n, poison<unsigned>());
  B::run(blocks, Threads,
         block_compact_body<Threads>{d_values.data(), d_keep.data(), valid_items, d_rank.data(), d_count.data(), d_stored.data(),
                                     d_part.data()},
         sizeof(tilekit::compact_storage<Threads>));
  const auto rank = d_rank.to_host(), count = d_count.to_host();
  const auto stored = d_stored.to_host(), part = d_part.to_host();
  BOOST_TEST_CONTEXT(B::name << " block<" << Threads << "> compact " << name(pattern) << " valid_items " << valid_items
                             << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned b = 0; b < blocks; ++b) {
      const std::size_t base = std::size_t(b) * Threads;
      unsigned all = 0, valid = 0;
      for (unsigned r = 0; r < Threads; ++r) {
        all += keep[base + r];
        valid += keep[base + r] && r < valid_items;
      }
      unsigned before = 0, before_valid = 0;
      std::vector<int> want_part;
      for (unsigned r = 0; r < Threads; ++r) {
        const std::size_t t = base + r;
        log.expect(rank[2 * t], before, "rank at " + where_in(b, r));
        log.expect(count[2 * t], all, "count at " + where_in(b, r));
        log.expect(rank[2 * t + 1], before_valid, "rank(valid_items) at " + where_in(b, r));
        log.expect(count[2 * t + 1], valid, "count(valid_items) at " + where_in(b, r));
        const bool kept = keep[t] && r < valid_items;
        if (kept) log.expect(stored[base + before_valid], values[t], "stored value of " + where_in(b, r));
        before += keep[t];
        before_valid += kept;
      }
      for (unsigned r = 0; r < Threads && r < valid_items; ++r)
        if (keep[base + r]) want_part.push_back(values[base + r]);
      for (unsigned r = 0; r < Threads && r < valid_items; ++r)
        if (!keep[base + r]) want_part.push_back(values[base + r]);
      for (unsigned s = 0; s < Threads; ++s) {
        if (s < want_part.size()) log.expect(part[base + s], want_part[s], "partition slot " + std::to_string(s) + " of block " + std::to_string(b));
        else log.expect_true(is_poison(part[base + s]), "partition wrote past valid_items");
        if (s >= valid) log.expect_true(is_poison(stored[base + s]), "compact_store wrote past the kept count");
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- histogram

template <unsigned Threads, int K>
struct block_histogram_body {
  const unsigned* samples;
  unsigned bins;
  unsigned valid_items;
  unsigned long long* global;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    unsigned* counters = ctx.template shared_array<unsigned>(bins);
    const std::size_t t = std::size_t(block.group_index().x) * Threads + block.thread_rank();
    unsigned items[K];
    for (int k = 0; k < K; ++k) items[k] = samples[t * K + k];
    tilekit::histogram_init(block, counters, bins);
    tilekit::histogram(block, items, counters, valid_items);
    // Each block merges from its own first bin (wrapping), as the device kernel does.
    tilekit::histogram_merge(block, counters, global, bins, unsigned(block.group_index().x * bins / 3));
  }
};

template <class B, unsigned Threads, int K>
void check_block_histogram(bin_pattern pattern, unsigned bins, unsigned valid_items) {
  auto g = rng_for(next_salt());
  const unsigned blocks = 3;
  const std::size_t n = std::size_t(blocks) * Threads * K;
  std::vector<unsigned> samples(n);
  const unsigned hot = unsigned(g() % bins);
  for (auto& s : samples)
    s = pattern == bin_pattern::uniform ? unsigned(g() % bins) : pattern == bin_pattern::one_bin ? hot : (g() % 4 ? hot : unsigned(g() % bins));
  std::vector<unsigned long long> want(bins, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (i % (std::size_t(Threads) * K) < valid_items) ++want[samples[i]];
  buf<unsigned> d_samples(samples);
  buf<unsigned long long> d_global(bins, 0ull);
  B::run(blocks, Threads, block_histogram_body<Threads, K>{d_samples.data(), bins, valid_items, d_global.data()},
         tilekit::histogram_storage_bytes<unsigned>(bins));
  const auto got = d_global.to_host();
  BOOST_TEST_CONTEXT(B::name << " block<" << Threads << "> histogram x" << K << " " << bins << " bins " << name(pattern)
                             << " valid_items " << valid_items << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned k = 0; k < bins; ++k) log.expect(got[k], want[k], "bin " + std::to_string(k));
    BOOST_TEST(log.count == 0u);
  }
}

// byte_tensor_counters in a user's kernel: each warp adds `trips` groups of 64 samples a lane
// (the last trip's last `pad` samples of every lane zero bytes given as padding), each thread
// adds `singles` samples one by one, and the block writes its 256 totals.
template <unsigned Threads>
struct byte_tensor_body {
  const unsigned* words;  // 16 a lane a trip, per block
  const unsigned char* singles;
  unsigned trips, pad, single_count;
  unsigned* totals;  // 256 per block

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using counters_t = tilekit::byte_tensor_counters<decltype(block)>;
    counters_t counts(block, ctx.template shared_array<unsigned char>(counters_t::bytes));
    const std::size_t t = std::size_t(block.group_index().x) * Threads + block.thread_rank();
    for (unsigned trip = 0; trip < trips; ++trip) {
      std::uint32_t w[16];
      for (unsigned k = 0; k < 16; ++k) w[k] = words[(t * trips + trip) * 16 + k];
      counts.add_words(w, trip + 1 == trips ? pad : 0u);
    }
    for (unsigned k = 0; k < single_count; ++k) counts.add(singles[t * single_count + k]);
    counts.wait_all(block);
    for (unsigned v = block.thread_rank(); v < 256; v += Threads) totals[block.group_index().x * 256 + v] = counts.total(v);
  }
};

template <class B, unsigned Threads>
void check_byte_tensor_counters(bin_pattern pattern, unsigned trips, unsigned pad, unsigned singles) {
  auto g = rng_for(next_salt());
  const unsigned blocks = 2;
  const std::size_t lanes = std::size_t(blocks) * Threads;
  const unsigned char hot = (unsigned char)(g() % 256);
  auto sample = [&]() -> unsigned char {
    return pattern == bin_pattern::uniform ? (unsigned char)(g()) : pattern == bin_pattern::one_bin ? hot : g() % 4 ? hot : (unsigned char)(g());
  };
  std::vector<unsigned> words(lanes * trips * 16);
  std::vector<unsigned char> ones(lanes * singles);
  std::vector<unsigned> want(std::size_t(blocks) * 256, 0);
  for (std::size_t lane = 0; lane < lanes; ++lane)
    for (unsigned trip = 0; trip < trips; ++trip)
      for (unsigned byte = 0; byte < 64; ++byte) {  // byte k of the lane's trip: byte k % 4 of word k / 4
        const bool padding = trip + 1 == trips && byte >= 64 - pad;
        const unsigned char v = padding ? 0 : sample();
        words[(lane * trips + trip) * 16 + byte / 4] |= unsigned(v) << (8 * (byte % 4));
        if (!padding) ++want[lane / Threads * 256 + v];
      }
  for (std::size_t i = 0; i < ones.size(); ++i) {
    ones[i] = sample();
    ++want[i / (std::size_t(Threads) * singles) * 256 + ones[i]];
  }
  buf<unsigned> d_words(words);
  buf<unsigned char> d_ones(ones.empty() ? std::vector<unsigned char>(1) : ones);
  buf<unsigned> d_totals(std::size_t(blocks) * 256, poison<unsigned>());
  B::run(blocks, Threads, byte_tensor_body<Threads>{d_words.data(), d_ones.data(), trips, pad, singles, d_totals.data()},
         tilekit::byte_tensor_counters_bytes(Threads));
  const auto got = d_totals.to_host();
  BOOST_TEST_CONTEXT(B::name << " block<" << Threads << "> byte_tensor_counters " << name(pattern) << " trips " << trips << " pad " << pad
                             << " singles " << singles << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (std::size_t k = 0; k < want.size(); ++k) log.expect(got[k], want[k], "block " + std::to_string(k / 256) + " value " + std::to_string(k % 256));
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- flag_heads

template <unsigned Threads, int K>
struct block_heads_body {
  const int* items_in;
  unsigned valid_items;
  unsigned char* heads_out;  // 2 * K per thread: without, with predecessor (and valid_items)

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto& storage = ctx.template shared<tilekit::flag_heads_storage<int, Threads>>();
    const unsigned b = block.group_index().x;
    const std::size_t t = std::size_t(b) * Threads + block.thread_rank();
    int items[K];
    bool heads[K];
    for (int k = 0; k < K; ++k) items[k] = items_in[t * K + k];
    tilekit::flag_heads(block, items, heads, storage);
    for (int k = 0; k < K; ++k) heads_out[2 * K * t + k] = heads[k];
    block.sync();
    const int predecessor = b > 0 ? items_in[std::size_t(b) * Threads * K - 1] : -1;
    tilekit::flag_heads_after(block, predecessor, items, heads, storage, tilekit::equal_to{}, valid_items);
    for (int k = 0; k < K; ++k) heads_out[2 * K * t + K + k] = heads[k];
  }
};

template <class B, unsigned Threads, int K>
void check_block_heads(key_pattern pattern, unsigned valid_items) {
  auto g = rng_for(next_salt());
  const unsigned blocks = 3;
  const std::size_t n = std::size_t(blocks) * Threads * K;
  std::vector<int> items(n);
  int run_value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    switch (pattern) {
      case key_pattern::all_equal: items[i] = 5; break;
      case key_pattern::all_distinct: items[i] = int(i); break;
      case key_pattern::few_values: if (g() % 5 == 0) ++run_value; items[i] = run_value; break;  // runs of random length
      default: items[i] = int(g() % 3); break;
    }
  }
  buf<int> d_items(items);
  buf<unsigned char> d_heads(2 * n, poison<unsigned char>());
  B::run(blocks, Threads, block_heads_body<Threads, K>{d_items.data(), valid_items, d_heads.data()},
         sizeof(tilekit::flag_heads_storage<int, Threads>));
  const auto heads = d_heads.to_host();
  BOOST_TEST_CONTEXT(B::name << " block<" << Threads << "> flag_heads x" << K << " " << name(pattern) << " valid_items "
                             << valid_items << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    const std::size_t per_block = std::size_t(Threads) * K;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t in_block = i % per_block, b = i / per_block, t = b * Threads + in_block / K;
      const int k = int(in_block % K);
      const bool plain = in_block == 0 || items[i] != items[i - 1];
      const int before = in_block > 0 ? items[i - 1] : (b > 0 ? items[i - 1] : -1);
      const bool after = in_block < valid_items && items[i] != before;
      log.expect(unsigned(heads[2 * K * t + k]), unsigned(plain), "head at item " + std::to_string(i));
      log.expect(unsigned(heads[2 * K * t + K + k]), unsigned(after), "head (after predecessor) at item " + std::to_string(i));
    }
    BOOST_TEST(log.count == 0u);
  }
}

// Block sizes from the issue: warp multiples, and 96 / 100 / 1000 with partial warps.
template <class F>
void for_each_block_size(F&& f) {
  for_each_size<32, 64, 96, 100, 128, 256, 512, 1000, 1024>(f);
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(block_level)

BOOST_AUTO_TEST_CASE(reduce_every_block_size) {
  using namespace tk_test;
  for_each_block_size([](auto size) {
    constexpr unsigned T = decltype(size)::value;
    for (unsigned valid : {1u, T / 2 + 3, T * 4 - 1}) check_block_reduce<backend, T, 4, int, tilekit::plus>(valid);
    // (valid_items may run past the block: every thread counts)
    for (unsigned valid : {1u, T - 1, T, T + 1, 3 * T}) check_block_reduce<backend, T, 1, int, tilekit::plus>(valid);
    check_block_reduce<backend, T, 7, int, tilekit::plus>(T * 7);
  });
}

BOOST_AUTO_TEST_CASE(reduce_types_and_operators) {
  using namespace tk_test;
  for_each_size<100, 256>([](auto size) {
    constexpr unsigned T = decltype(size)::value;
    check_block_reduce<backend, T, 1, float, tilekit::plus>(T / 3);
    check_block_reduce<backend, T, 7, double, tilekit::plus>(T * 5);
    check_block_reduce<backend, T, 7, int, tilekit::minimum>(T * 2);
    check_block_reduce<backend, T, 4, int, custom_plus>(T * 3 + 1);
    check_block_reduce<backend, T, 4, mat2, mat_mul>(T * 2 + 5);  // not commutative
    check_block_reduce<backend, T, 1, std::int64_t, tilekit::maximum>(T);
  });
}

BOOST_AUTO_TEST_CASE(scan_every_block_size) {
  using namespace tk_test;
  for_each_block_size([](auto size) {
    constexpr unsigned T = decltype(size)::value;
    using algo = tilekit::block_scan_algorithm;
    check_block_scan<backend, T, 1, int, tilekit::plus, algo::raking>(T / 2 + 1);
    check_block_scan<backend, T, 4, int, tilekit::plus, algo::raking>(1);
    check_block_scan<backend, T, 7, int, tilekit::plus, algo::raking>(T * 7 - 3);
    check_block_scan_prefix<backend, T, 4, algo::raking>();
    check_block_scan<backend, T, 1, int, tilekit::plus, algo::warp_scans>(T / 2 + 1);
    check_block_scan<backend, T, 7, int, tilekit::plus, algo::warp_scans>(T * 7 - 3);
    check_block_scan_prefix<backend, T, 4, algo::warp_scans>();
  });
  for_each_size<1, 17>([](auto size) {  // under a warp: raking falls back to warp_scans
    constexpr unsigned T = decltype(size)::value;
    check_block_scan<backend, T, 4, int, tilekit::plus, tilekit::block_scan_algorithm::raking>(T * 2 + 1);
    check_block_scan_prefix<backend, T, 4, tilekit::block_scan_algorithm::raking>();
  });
}

BOOST_AUTO_TEST_CASE(scan_types_and_operators) {
  using namespace tk_test;
  for_each_size<100, 256>([](auto size) {
    constexpr unsigned T = decltype(size)::value;
    check_block_scan<backend, T, 1, float, tilekit::plus>(T - 5);
    check_block_scan<backend, T, 7, double, tilekit::plus>(T * 3);
    check_block_scan<backend, T, 4, int, tilekit::maximum>(T * 2);
    check_block_scan<backend, T, 4, mat2, mat_mul>(T * 4 - 9);  // not commutative
    check_block_scan<backend, T, 4, mat2, mat_mul, tilekit::block_scan_algorithm::warp_scans>(T * 4 - 9);
    check_block_scan<backend, T, 1, tracked, tilekit::plus>(T);
  });
}

BOOST_AUTO_TEST_CASE(two_and_three_dimensional_blocks) {
  using namespace tk_test;
  using algo = tilekit::block_scan_algorithm;
  // 128 threads as 16x8 and 8x4x4, 100 as 10x10 (a partial last warp): ranks run x fastest
  for (extent e : {extent{16, 8, 1}, extent{8, 4, 4}}) {
    check_block_reduce<backend, 128, 4, int, tilekit::plus>(128 * 3, e);
    check_block_scan<backend, 128, 4, int, tilekit::plus, algo::raking>(128 * 4 - 5, e);
    check_block_scan<backend, 128, 4, int, tilekit::plus, algo::warp_scans>(128 * 4 - 5, e);
  }
  check_block_reduce<backend, 100, 4, int, tilekit::plus>(301, extent{10, 10, 1});
  check_block_scan<backend, 100, 4, mat2, mat_mul, algo::raking>(399, extent{10, 10, 1});
  check_block_scan<backend, 100, 4, mat2, mat_mul, algo::warp_scans>(399, extent{5, 5, 4});
}

BOOST_AUTO_TEST_CASE(compact_and_partition) {
  using namespace tk_test;
  for_each_block_size([](auto size) {
    constexpr unsigned T = decltype(size)::value;
    for (keep_pattern p : {keep_pattern::all, keep_pattern::none, keep_pattern::alternating, keep_pattern::first,
                           keep_pattern::last, keep_pattern::random_half, keep_pattern::random_tenth})
      for (unsigned valid : {T, T / 2 + 1}) check_block_compact<backend, T>(p, valid);
  });
}

BOOST_AUTO_TEST_CASE(histogram_in_shared_memory) {
  using namespace tk_test;
  for_each_size<96, 256, 1000>([](auto size) {
    constexpr unsigned T = decltype(size)::value;
    for (bin_pattern p : {bin_pattern::uniform, bin_pattern::one_bin, bin_pattern::skewed})
      for (unsigned bins : {1u, 256u, 4096u, 12000u, backend::max_shared_counters()}) {  // the last: all shared memory holds
        check_block_histogram<backend, T, 4>(p, bins, T * 4);
        check_block_histogram<backend, T, 1>(p, bins, T / 2 + 7);
      }
  });
}

// The tensor cores' byte counts (shuffles in the simulator): whole trips, padding up to a
// whole trip (64 zero bytes a lane: nothing counted), and single samples beside them.
BOOST_AUTO_TEST_CASE(byte_counts_by_the_tensor_cores) {
  using namespace tk_test;
  for (bin_pattern p : {bin_pattern::uniform, bin_pattern::one_bin, bin_pattern::skewed}) {
    check_byte_tensor_counters<backend, 64>(p, 1, 0, 0);
    check_byte_tensor_counters<backend, 256>(p, 3, 17, 2);
    check_byte_tensor_counters<backend, 128>(p, 2, 64, 1);
  }
}

BOOST_AUTO_TEST_CASE(flag_heads_across_threads_and_blocks) {
  using namespace tk_test;
  for_each_block_size([](auto size) {
    constexpr unsigned T = decltype(size)::value;
    for (key_pattern p : {key_pattern::all_equal, key_pattern::all_distinct, key_pattern::few_values, key_pattern::many_values}) {
      check_block_heads<backend, T, 1>(p, T);
      check_block_heads<backend, T, 4>(p, T * 2 + 1);
      check_block_heads<backend, T, 7>(p, T * 7);
    }
  });
}

BOOST_AUTO_TEST_SUITE_END()

namespace tk_test {

template <unsigned Threads, int K, class T>
struct block_distinct_body {
  const T* keys_in;
  unsigned valid_items;
  unsigned char* first_out;  // K per thread
  unsigned* count_out;       // 2 per thread: dedup, dedup_store
  T* stored;                 // Threads * K per block

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto& storage = ctx.template shared<tilekit::distinct_storage<T, Threads, K>>();
    const std::size_t base = std::size_t(block.group_index().x) * Threads;
    const std::size_t t = base + block.thread_rank();
    T keys[K];
    bool first[K];
    for (int k = 0; k < K; ++k) keys[k] = keys_in[t * K + k];
    count_out[2 * t] = tilekit::dedup(block, keys, first, storage, valid_items);
    for (int k = 0; k < K; ++k) first_out[t * K + k] = first[k];
    block.sync();
    count_out[2 * t + 1] = tilekit::dedup_store(block, keys, stored + base * K, storage, valid_items);
  }
};

template <class B, unsigned Threads, int K, class T>
void check_block_distinct(key_pattern pattern, unsigned valid_items) {
  auto g = rng_for(next_salt());
  const unsigned blocks = 3;
  const std::size_t per_block = std::size_t(Threads) * K, n = blocks * per_block;
  std::vector<T> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    switch (pattern) {
      case key_pattern::all_equal: keys[i] = T(42); break;
      case key_pattern::all_distinct: keys[i] = T(i * 3 + 1); break;
      case key_pattern::few_values: keys[i] = T(g() % 5); break;
      case key_pattern::many_values: keys[i] = T(g() % (per_block / 2 + 1)); break;
      case key_pattern::float_specials: {
        const double specials[] = {0.0, -0.0, std::numeric_limits<double>::quiet_NaN(), 1.5, -2.25};
        keys[i] = T(specials[g() % 5]);
        break;
      }
    }
  }
  buf<T> d_keys(keys), d_stored(n, poison<T>());
  buf<unsigned char> d_first(n, poison<unsigned char>());
  buf<unsigned> d_count(2 * std::size_t(blocks) * Threads, poison<unsigned>());
  B::run(blocks, Threads, block_distinct_body<Threads, K, T>{d_keys.data(), valid_items, d_first.data(), d_count.data(), d_stored.data()},
         sizeof(tilekit::distinct_storage<T, Threads, K>));
  const auto first = d_first.to_host();
  const auto count = d_count.to_host();
  const auto stored = d_stored.to_host();
  BOOST_TEST_CONTEXT(B::name << " block<" << Threads << "> dedup x" << K << " " << type_name<T>() << " " << name(pattern)
                             << " valid_items " << valid_items << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned b = 0; b < blocks; ++b) {
      std::vector<T> distinct;
      std::vector<bool> want(per_block, false);
      for (std::size_t i = 0; i < per_block && i < valid_items; ++i) {
        const T& key = keys[b * per_block + i];
        bool seen = false;
        for (const T& d : distinct) seen = seen || d == key;
        if (!seen) {
          distinct.push_back(key);
          want[i] = true;
        }
      }
      for (std::size_t i = 0; i < per_block; ++i)
        log.expect(unsigned(first[b * per_block + i]), unsigned(want[i]), "first flag of item " + std::to_string(i) + " in block " + std::to_string(b));
      for (unsigned r = 0; r < Threads; ++r) {
        log.expect(count[2 * (std::size_t(b) * Threads + r)], unsigned(distinct.size()), "dedup count at " + where_in(b, r));
        log.expect(count[2 * (std::size_t(b) * Threads + r) + 1], unsigned(distinct.size()), "dedup_store count at " + where_in(b, r));
      }
      for (std::size_t s = 0; s < per_block; ++s) {
        if (s < distinct.size()) log.expect(stored[b * per_block + s], distinct[s], "stored key " + std::to_string(s) + " of block " + std::to_string(b));
        else log.expect_true(is_poison(stored[b * per_block + s]), "dedup_store wrote past the distinct count");
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(block_level)

BOOST_AUTO_TEST_CASE(distinct_keys_without_sorting) {
  using namespace tk_test;
  for_each_size<32, 100, 256, 1024>([](auto size) {
    constexpr unsigned T = decltype(size)::value;
    for (key_pattern p : {key_pattern::all_equal, key_pattern::all_distinct, key_pattern::few_values, key_pattern::many_values}) {
      check_block_distinct<backend, T, 1, int>(p, T);
      check_block_distinct<backend, T, 4, std::uint64_t>(p, T * 3 + 1);
    }
    check_block_distinct<backend, T, 2, double>(key_pattern::float_specials, T * 2);
  });
}

BOOST_AUTO_TEST_SUITE_END()
