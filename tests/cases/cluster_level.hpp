// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cluster rung (sm_90 thread-block clusters), written once for both backends: reduce,
// the scans, compact, histogram and dedup over every thread of a cluster (cluster/*.cuh).
// Clusters of 1, 2, 4, 8 and 16 blocks (16: the non-portable size on the GPU), several
// clusters per grid, whole and partial last warps, one value and K = 3 items per thread,
// three calls back to back in one kernel with cluster.sync() between, int and a
// non-commutative operator (2x2 matrix product: the cluster rank order), outputs
// poisoned before the run, a 2-D / 3-D cluster layout (the rank formula of
// %cluster_ctarank), histograms whose bins the blocks do not divide evenly with samples
// skewed into one bin, dedup of int and long long keys (K = 1, 2) that repeat across
// blocks, are all equal, all distinct, all distinct and hashed to one block (its slice of the
// set overflows into the next), or sit at the hash set's reserved encodings (-1, 0, min,
// max), with a partial valid_items. References: sequential CPU passes per cluster.
// The including file defines `using backend = ...;` with run_cluster, cluster_min_threads,
// cluster_max_threads and cluster_count(Blocks).
#pragma once
#include "tile_common.hpp"

#include <tilekit/cluster/compact.cuh>
#include <tilekit/cluster/dedup.cuh>
#include <tilekit/cluster/histogram.cuh>
#include <tilekit/cluster/reduce.cuh>
#include <tilekit/cluster/scan.cuh>

#include <algorithm>
#include <limits>
#include <set>
#include <string>
#include <type_traits>

namespace tk_test {

template <class T>
using cl_buf = typename ::backend::template buffer<T>;
using cl_dim_t = typename ::backend::dim3_t;

/// A grid of clusters: the cluster's extents and how many clusters along x, y, z.
struct cluster_layout {
  unsigned cx = 1, cy = 1, cz = 1;  // blocks per cluster along x, y, z
  unsigned nx = 1, ny = 1, nz = 1;  // clusters along x, y, z
  unsigned blocks_per_cluster() const { return cx * cy * cz; }
  unsigned clusters() const { return nx * ny * nz; }
  cl_dim_t grid() const { return cl_dim_t(cx * nx, cy * ny, cz * nz); }
  cl_dim_t cluster() const { return cl_dim_t(cx, cy, cz); }
  std::string name() const {
    return "clusters (" + std::to_string(cx) + "," + std::to_string(cy) + "," + std::to_string(cz) + ") x " +
           std::to_string(clusters());
  }
};

/// `count` clusters of Blocks blocks in a row along x.
inline cluster_layout row_of_clusters(unsigned blocks, unsigned count) {
  cluster_layout l;
  l.cx = blocks;
  l.nx = count;
  return l;
}

/// Where a thread's data lives: its cluster's number (x fastest over the grid's clusters)
/// times the threads of a cluster, plus its rank in the cluster. Needs no knowledge of the
/// rank formula: the placement case checks that.
TILEKIT_EXEC_CHECK_DISABLE
template <class Ctx, class Cluster>
TILEKIT_HD unsigned long long cluster_slot(Ctx& ctx, const Cluster& cluster, unsigned cx, unsigned cy, unsigned cz) {
  const auto b = cluster.block().group_index();
  const auto g = ctx.grid().dim_blocks();
  const unsigned long long number =
      b.x / cx + (unsigned long long)(g.x / cx) * (b.y / cy + (unsigned long long)(g.y / cy) * (b.z / cz));
  return number * cluster.num_threads() + cluster.thread_rank();
}

// The shared memory of the reduce and scan bodies: their storages, one after the other in time.
template <class T, unsigned Blocks, unsigned Threads>
union cluster_reduce_scan_shared {
  tilekit::cluster_reduce_storage<T, Blocks, Threads> reduce;
  tilekit::cluster_scan_storage<T, Blocks, Threads> scan;
};

// ---- one value per thread: reduce, the scans (plain, without init, _aggregate) ----
template <unsigned Blocks, unsigned Threads, class T, class Op>
struct cluster_scalar_body {
  static constexpr unsigned calls = 3, outs = 8;  // per call: reduce, inclusive, exclusive(init),
                                                  // exclusive, inclusive_agg value, exclusive_agg value,
                                                  // the two aggregates
  const T* in;  // calls * n
  T* out;       // calls * outs * n
  Op op;
  T init;
  unsigned cx, cy, cz;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    auto& sh = ctx.template shared<cluster_reduce_scan_shared<T, Blocks, Threads>>();
    const unsigned long long n = ctx.grid().num_threads(), i = cluster_slot(ctx, cluster, cx, cy, cz);
    cluster.sync();  // every block of the cluster has started: remote shared memory may be used
    for (unsigned c = 0; c < calls; ++c) {
      const T v = in[c * n + i];
      T* o = out + c * outs * n;
      o[0 * n + i] = tilekit::reduce(cluster, v, op, sh.reduce);
      cluster.sync();
      o[1 * n + i] = tilekit::inclusive_scan(cluster, v, op, sh.scan);
      cluster.sync();
      o[2 * n + i] = tilekit::exclusive_scan(cluster, v, op, init, sh.scan);
      cluster.sync();
      o[3 * n + i] = tilekit::exclusive_scan(cluster, v, op, sh.scan);
      cluster.sync();
      const tilekit::scanned<T> a = tilekit::inclusive_scan_aggregate(cluster, v, op, sh.scan);
      cluster.sync();
      const tilekit::scanned<T> b = tilekit::exclusive_scan_aggregate(cluster, v, op, init, sh.scan);
      cluster.sync();
      o[4 * n + i] = a.value;
      o[5 * n + i] = b.value;
      o[6 * n + i] = a.aggregate;
      o[7 * n + i] = b.aggregate;
    }
  }
};

// The checks take the cluster's size at run time (m threads, `threads` a block): one
// instantiation per type and operator, not one per cluster size as the kernels.
template <class T, class Op>
void verify_cluster_scalar(const cluster_layout& l, std::size_t m, unsigned threads, unsigned calls, unsigned outs,
                           const std::vector<T>& in, const std::vector<T>& got, Op op, T init, const std::string& what) {
  const std::size_t n = m * l.clusters();
  BOOST_TEST_CONTEXT(::backend::name << " cluster scalar " << what << ", " << l.name() << " x " << threads
                                     << " threads, TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    const T id = tilekit::identity<T>(op);
    for (unsigned c = 0; c < calls; ++c)
      for (std::size_t q = 0; q < l.clusters(); ++q) {
        const std::size_t base = c * n + q * m;
        T all = in[base];
        for (std::size_t r = 1; r < m; ++r) all = op(all, in[base + r]);
        T inclusive = in[base], exclusive = init, bare = id;
        const T* o = got.data() + c * outs * n;
        for (std::size_t r = 0; r < m; ++r) {
          const std::size_t i = q * m + r;
          if (r > 0) inclusive = op(inclusive, in[base + r]);
          const std::string where = "call " + std::to_string(c) + ", cluster " + std::to_string(q) + ", rank " + std::to_string(r);
          log.expect(o[0 * n + i], all, "reduce, " + where);
          log.expect(o[1 * n + i], inclusive, "inclusive, " + where);
          log.expect(o[2 * n + i], exclusive, "exclusive (init), " + where);
          log.expect(o[3 * n + i], bare, "exclusive (identity), " + where);
          log.expect(o[4 * n + i], inclusive, "inclusive_scan_aggregate value, " + where);
          log.expect(o[5 * n + i], exclusive, "exclusive_scan_aggregate value, " + where);
          log.expect(o[6 * n + i], all, "inclusive aggregate, " + where);
          log.expect(o[7 * n + i], all, "exclusive aggregate, " + where);
          exclusive = op(exclusive, in[base + r]);
          bare = op(bare, in[base + r]);
        }
      }
    BOOST_TEST(log.count == 0u);
  }
}

template <unsigned Blocks, unsigned Threads, class T, class Op>
void check_cluster_scalar(const cluster_layout& l, Op op, T init, std::mt19937_64& g, const std::string& what) {
  using body_t = cluster_scalar_body<Blocks, Threads, T, Op>;
  const std::size_t m = std::size_t(Blocks) * Threads, n = m * l.clusters();
  const std::vector<T> in = random_vector<T>(body_t::calls * n, g);
  cl_buf<T> d_in(in), d_out(body_t::calls * body_t::outs * n, poison<T>());
  ::backend::run_cluster(l.grid(), cl_dim_t(Threads), l.cluster(), body_t{d_in.data(), d_out.data(), op, init, l.cx, l.cy, l.cz},
                         sizeof(cluster_reduce_scan_shared<T, Blocks, Threads>));
  verify_cluster_scalar(l, m, Threads, body_t::calls, body_t::outs, in, d_out.to_host(), op, init, what);
}

// ---- K = 3 items per thread (blocked): reduce, inclusive, exclusive with and without init ----
template <unsigned Blocks, unsigned Threads, class T, class Op>
struct cluster_items_body {
  static constexpr unsigned calls = 3;
  static constexpr int K = 3;
  const T* in;  // calls * n * K
  T* out;       // per call: n reduce, nK inclusive, nK exclusive(init), nK exclusive, 3n aggregates
  Op op;
  T init;
  unsigned cx, cy, cz;

  TILEKIT_HD static constexpr std::size_t per_call(std::size_t n) { return 4 * n + 3 * n * K; }

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    auto& sh = ctx.template shared<cluster_reduce_scan_shared<T, Blocks, Threads>>();
    const unsigned long long n = ctx.grid().num_threads(), i = cluster_slot(ctx, cluster, cx, cy, cz);
    cluster.sync();
    for (unsigned c = 0; c < calls; ++c) {
      T items[K], inc[K], exc[K];
      for (int k = 0; k < K; ++k) items[k] = in[(c * n + i) * K + k];
      T* o = out + c * per_call(n);
      o[i] = tilekit::reduce(cluster, items, op, sh.reduce);
      cluster.sync();
      const T a0 = tilekit::inclusive_scan(cluster, items, inc, op, sh.scan);
      cluster.sync();
      const T a1 = tilekit::exclusive_scan(cluster, items, exc, op, init, sh.scan);
      cluster.sync();
      const T a2 = tilekit::exclusive_scan(cluster, items, items, op, sh.scan);  // in place
      cluster.sync();
      for (int k = 0; k < K; ++k) {
        o[n + i * K + k] = inc[k];
        o[n + n * K + i * K + k] = exc[k];
        o[n + 2 * n * K + i * K + k] = items[k];
      }
      o[n + 3 * n * K + 3 * i] = a0;
      o[n + 3 * n * K + 3 * i + 1] = a1;
      o[n + 3 * n * K + 3 * i + 2] = a2;
    }
  }
};

template <class T, class Op>
void verify_cluster_items(const cluster_layout& l, std::size_t m, unsigned threads, unsigned calls, std::size_t per,
                          const std::vector<T>& in, const std::vector<T>& got, Op op, T init, const std::string& what) {
  constexpr unsigned K = 3;
  const std::size_t n = m * l.clusters();
  BOOST_TEST_CONTEXT(::backend::name << " cluster items (K = 3) " << what << ", " << l.name() << " x " << threads
                                     << " threads, TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    const T id = tilekit::identity<T>(op);
    for (unsigned c = 0; c < calls; ++c)
      for (std::size_t q = 0; q < l.clusters(); ++q) {
        const std::size_t base = (c * n + q * m) * K;
        T all = in[base];
        for (std::size_t j = 1; j < m * K; ++j) all = op(all, in[base + j]);
        T inclusive = in[base], exclusive = init, bare = id;
        const T* o = got.data() + c * per;
        for (std::size_t j = 0; j < m * K; ++j) {
          const std::size_t r = j / K, i = q * m + r, item = q * m * K + j;
          if (j > 0) inclusive = op(inclusive, in[base + j]);
          const std::string where = "call " + std::to_string(c) + ", cluster " + std::to_string(q) + ", item " + std::to_string(j);
          if (j % K == 0) {
            log.expect(o[i], all, "reduce, " + where);
            for (unsigned a = 0; a < 3; ++a) log.expect(o[n + 3 * n * K + 3 * i + a], all, "aggregate " + std::to_string(a) + ", " + where);
          }
          log.expect(o[n + item], inclusive, "inclusive, " + where);
          log.expect(o[n + n * K + item], exclusive, "exclusive (init), " + where);
          log.expect(o[n + 2 * n * K + item], bare, "exclusive (identity, in place), " + where);
          exclusive = op(exclusive, in[base + j]);
          bare = op(bare, in[base + j]);
        }
      }
    BOOST_TEST(log.count == 0u);
  }
}

template <unsigned Blocks, unsigned Threads, class T, class Op>
void check_cluster_items(const cluster_layout& l, Op op, T init, std::mt19937_64& g, const std::string& what) {
  using body_t = cluster_items_body<Blocks, Threads, T, Op>;
  static_assert(body_t::K == 3, "verify_cluster_items checks K = 3 items a thread");
  const std::size_t m = std::size_t(Blocks) * Threads, n = m * l.clusters(), per = body_t::per_call(n);
  const std::vector<T> in = random_vector<T>(body_t::calls * n * body_t::K, g);
  cl_buf<T> d_in(in), d_out(body_t::calls * per, poison<T>());
  ::backend::run_cluster(l.grid(), cl_dim_t(Threads), l.cluster(), body_t{d_in.data(), d_out.data(), op, init, l.cx, l.cy, l.cz},
                         sizeof(cluster_reduce_scan_shared<T, Blocks, Threads>));
  verify_cluster_items(l, m, Threads, body_t::calls, per, in, d_out.to_host(), op, init, what);
}

// ---- compact: call 0 compact (odd values kept), call 1 compact_store (odd), call 2
// compact_store with every thread kept; per call out holds n slots (cluster q's kept values
// from q * m on) and counts one per cluster.
template <unsigned Blocks, unsigned Threads>
struct cluster_compact_body {
  static constexpr unsigned calls = 3;
  const int* in;  // n
  int* out;       // calls * n
  unsigned* counts;  // calls * clusters
  unsigned cx, cy, cz;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    auto& sh = ctx.template shared<tilekit::cluster_compact_storage<Blocks, Threads>>();
    const unsigned long long n = ctx.grid().num_threads(), i = cluster_slot(ctx, cluster, cx, cy, cz);
    const unsigned m = cluster.num_threads();
    const unsigned long long q = i / m, clusters = n / m;
    const int v = in[i];
    const bool odd = v % 2 != 0;
    cluster.sync();
    const tilekit::compact_result r = tilekit::compact(cluster, odd, sh);
    if (odd) out[q * m + r.rank] = v;
    if (cluster.thread_rank() == m - 1) counts[q] = r.count;
    cluster.sync();
    const unsigned stored = tilekit::compact_store(cluster, odd, v, out + n + q * m, sh);
    if (cluster.thread_rank() == 0) counts[clusters + q] = stored;
    cluster.sync();
    const unsigned all = tilekit::compact_store(cluster, true, v, out + 2 * n + q * m, sh);
    if (cluster.thread_rank() == m / 2) counts[2 * clusters + q] = all;
  }
};

template <unsigned Blocks, unsigned Threads>
void check_cluster_compact(const cluster_layout& l, std::mt19937_64& g) {
  using body_t = cluster_compact_body<Blocks, Threads>;
  const std::size_t m = std::size_t(Blocks) * Threads, n = m * l.clusters();
  std::vector<int> in(n);
  for (auto& x : in) x = int(g() % 2001) - 1000;
  cl_buf<int> d_in(in), d_out(body_t::calls * n, poison<int>());
  cl_buf<unsigned> d_counts(body_t::calls * l.clusters(), poison<unsigned>());
  ::backend::run_cluster(l.grid(), cl_dim_t(Threads), l.cluster(), body_t{d_in.data(), d_out.data(), d_counts.data(), l.cx, l.cy, l.cz},
                         sizeof(tilekit::cluster_compact_storage<Blocks, Threads>));
  const auto got = d_out.to_host();
  const auto counts = d_counts.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " cluster compact, " << l.name() << " x " << Threads
                                     << " threads, TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned c = 0; c < body_t::calls; ++c)
      for (std::size_t q = 0; q < l.clusters(); ++q) {
        std::vector<int> want;
        for (std::size_t r = 0; r < m; ++r)
          if (c == 2 || in[q * m + r] % 2 != 0) want.push_back(in[q * m + r]);
        const std::string where = "call " + std::to_string(c) + ", cluster " + std::to_string(q);
        log.expect(counts[c * l.clusters() + q], unsigned(want.size()), "count, " + where);
        for (std::size_t r = 0; r < m; ++r) {
          const int x = got[c * n + q * m + r];
          if (r < want.size()) log.expect(x, want[r], "slot " + std::to_string(r) + ", " + where);
          else log.expect_true(is_poison(x), "slot " + std::to_string(r) + " past the count written, " + where);
        }
      }
    BOOST_TEST(log.count == 0u);
  }
}

// ---- histogram: call c counts in[(c * n + i) * K ..] into global[c * bins ..] ----
template <unsigned Blocks, unsigned Threads>
struct cluster_histogram_body {
  static constexpr unsigned calls = 2;
  static constexpr int K = 4;
  const unsigned* in;
  unsigned* global;  // calls * bins, zeroed
  unsigned bins;
  unsigned cx, cy, cz;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    unsigned* local = ctx.template shared_array<unsigned>(tilekit::cluster_histogram_bins_per_block<Blocks>(bins));
    const unsigned long long n = ctx.grid().num_threads(), i = cluster_slot(ctx, cluster, cx, cy, cz);
    for (unsigned c = 0; c < calls; ++c) {
      unsigned items[K];
      for (int k = 0; k < K; ++k) items[k] = in[(c * n + i) * K + k];
      tilekit::cluster_histogram_init(cluster, local, bins);  // its cluster.sync() also starts the remote accesses
      tilekit::histogram(cluster, items, local, bins);
      tilekit::cluster_histogram_merge(cluster, local, global + c * bins, bins);
    }
  }
};

template <unsigned Blocks, unsigned Threads>
void check_cluster_histogram(const cluster_layout& l, unsigned bins, std::mt19937_64& g) {
  using body_t = cluster_histogram_body<Blocks, Threads>;
  const std::size_t m = std::size_t(Blocks) * Threads, n = m * l.clusters();
  std::vector<unsigned> in(body_t::calls * n * body_t::K);
  const unsigned heavy = bins / 2;
  for (auto& x : in) x = g() % 3 == 0 ? heavy : unsigned(g() % bins);  // a third of the samples in one bin
  cl_buf<unsigned> d_in(in), d_global(body_t::calls * bins, 0u);
  ::backend::run_cluster(l.grid(), cl_dim_t(Threads), l.cluster(), body_t{d_in.data(), d_global.data(), bins, l.cx, l.cy, l.cz},
                         tilekit::cluster_histogram_storage_bytes<unsigned, Blocks>(bins));
  const auto got = d_global.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " cluster histogram, " << bins << " bins, " << l.name() << " x " << Threads
                                     << " threads, TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned c = 0; c < body_t::calls; ++c) {
      std::vector<unsigned> want(bins, 0);
      for (std::size_t j = c * n * body_t::K; j < (c + 1) * n * body_t::K; ++j) ++want[in[j]];
      for (unsigned b = 0; b < bins; ++b) log.expect(got[c * bins + b], want[b], "call " + std::to_string(c) + ", bin " + std::to_string(b));
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ---- 16-bit counters summed over the cluster (cluster_half_merge): each block counts its
// threads' samples in its own half_counters (every bin), then the cluster adds them into
// global, Vector words a read (16 bytes, or 1 word where the counters start off a 16-byte
// boundary: offset_words), Batch reads in flight, with or without the 64-bit pairs ----
template <unsigned Blocks, unsigned Threads, unsigned Vector, unsigned Batch>
struct cluster_half_body {
  static constexpr int K = 4;
  const unsigned* in;
  unsigned* global;  // bins, zeroed
  unsigned bins, offset_words, first;
  bool pairs;
  unsigned cx, cy, cz;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    const auto block = cluster.block();
    unsigned char* shared = ctx.template shared_array<unsigned char>(tilekit::half_counters_bytes(bins) + 4 * offset_words);
    const tilekit::half_counters<decltype(block)> half(block, shared + 4 * offset_words, bins);
    const unsigned long long i = cluster_slot(ctx, cluster, cx, cy, cz);
    for (int k = 0; k < K; ++k) half.add(in[i * K + k], global);  // fewer samples than spill_at per block: no spill
    tilekit::cluster_half_merge<Vector, Batch>(cluster, half, global, first, pairs);
  }
};

// got: bins counters, then one that nothing may touch; in: every sample.
inline void verify_bins(const std::vector<unsigned>& in, unsigned bins, const std::vector<unsigned>& got, const std::string& what) {
  BOOST_TEST_CONTEXT(::backend::name << " " << what << ", TILEKIT_TEST_SEED=" << base_seed()) {
    std::vector<unsigned> want(bins, 0);
    for (unsigned x : in) ++want[x];
    mismatch_log log;
    for (unsigned b = 0; b < bins; ++b) log.expect(got[b], want[b], "bin " + std::to_string(b));
    log.expect(got[bins], 0u, "past the last bin");
    BOOST_TEST(log.count == 0u);
  }
}

template <unsigned Blocks, unsigned Threads, unsigned Vector, unsigned Batch>
void check_cluster_half_merge(const cluster_layout& l, unsigned bins, unsigned offset_words, bool pairs, std::mt19937_64& g) {
  using body_t = cluster_half_body<Blocks, Threads, Vector, Batch>;
  const std::size_t n = std::size_t(Blocks) * Threads * l.clusters();
  std::vector<unsigned> in(n * body_t::K);
  for (auto& x : in) x = g() % 3 == 0 ? bins - 1 : unsigned(g() % bins);  // a third in the last bin (odd or even)
  cl_buf<unsigned> d_in(in), d_global(bins + 1, 0u);
  const unsigned first = unsigned(g() % 64);
  ::backend::run_cluster(l.grid(), cl_dim_t(Threads), l.cluster(),
                         body_t{d_in.data(), d_global.data(), bins, offset_words, first, pairs, l.cx, l.cy, l.cz},
                         tilekit::half_counters_bytes(bins) + 4 * offset_words);
  const std::string what = "cluster_half_merge<" + std::to_string(Vector) + ", " + std::to_string(Batch) + ">, " +
                           std::to_string(bins) + " bins, offset " + std::to_string(offset_words) + (pairs ? ", pairs, " : ", ") +
                           l.name() + " x " + std::to_string(Threads) + " threads, first " + std::to_string(first);
  verify_bins(in, bins, d_global.to_host(), what);
}

// ---- dedup: three calls per launch (cluster.sync() between), each over its own keys; call 0
// without valid_items, call 1 with every item valid, call 2 with a partial count. The first
// call comes before any cluster.sync() of the kernel: dedup needs none.
/// The keys of one dedup call.
enum class cluster_dedup_keys {
  small_range,   // a few values for many items: each key repeats, across blocks
  all_equal,     // one random value
  all_ones,      // every key -1: the key whose complement (the set's free mark) is 0
  all_distinct,  // no repeats
  reserved,      // values at the set's encodings (-1, 0, min, max and neighbours) mixed with random ones
  one_owner      // no repeats, every key hashed to block 0: its slice fills, the probes go on into the next
};

inline const char* cluster_dedup_name(cluster_dedup_keys kind) {
  switch (kind) {
    case cluster_dedup_keys::small_range: return "small range";
    case cluster_dedup_keys::all_equal: return "all equal";
    case cluster_dedup_keys::all_ones: return "all -1";
    case cluster_dedup_keys::all_distinct: return "all distinct";
    case cluster_dedup_keys::one_owner: return "all distinct, all owned by block 0";
    default: return "reserved encodings";
  }
}

template <class T>
std::vector<T> cluster_dedup_data(cluster_dedup_keys kind, std::size_t count, std::size_t cluster_items, unsigned blocks,
                                  std::mt19937_64& g) {
  std::vector<T> v(count);
  using U = std::make_unsigned_t<T>;
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  const T special[] = {T(-1), T(0), lo, hi, T(1), T(-2), T(lo + 1), T(hi - 1)};
  const std::size_t range = std::max<std::size_t>(3, cluster_items / 4);
  const T same = random_value<T>(g);
  const U stride = U(0x9E3779B97F4A7C15ull) | 1u, offset = U(g());  // an odd multiplier: a bijection
  U candidate = U(g());  // one_owner: the next keys whose hash picks block 0 (as dedup's step 3 does)
  auto next_owned_by_0 = [&] {
    while ((static_cast<unsigned long long>(tilekit::detail::key_hash(T(candidate))) * blocks) >> 32 != 0) ++candidate;
    return T(candidate++);
  };
  for (std::size_t j = 0; j < count; ++j) {
    switch (kind) {
      case cluster_dedup_keys::small_range: v[j] = T(T(g() % range) - T(range / 2)); break;
      case cluster_dedup_keys::all_equal: v[j] = same; break;
      case cluster_dedup_keys::all_ones: v[j] = T(-1); break;
      case cluster_dedup_keys::all_distinct: v[j] = T(U(j) * stride + offset); break;
      case cluster_dedup_keys::reserved: v[j] = g() % 4 == 0 ? T(g() % 16) : special[g() % 8]; break;
      case cluster_dedup_keys::one_owner: v[j] = next_owned_by_0(); break;
    }
  }
  if (kind == cluster_dedup_keys::all_distinct || kind == cluster_dedup_keys::one_owner) std::shuffle(v.begin(), v.end(), g);
  return v;
}

template <unsigned Blocks, unsigned Threads, class T, int K>
struct cluster_dedup_body {
  static constexpr unsigned calls = 3;
  const T* in;        // calls * n * K: thread i's item k of call c at (c * n + i) * K + k
  int* first;         // calls * n * K: 1 where first, else 0
  unsigned* counts;   // calls * n: what each thread's call returned
  unsigned valid[calls];  // valid_items per call (~0u: the form without it)
  unsigned cx, cy, cz;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    auto& sh = ctx.template shared<tilekit::cluster_dedup_storage<T, Blocks, Threads, K>>();
    const unsigned long long n = ctx.grid().num_threads(), i = cluster_slot(ctx, cluster, cx, cy, cz);
    for (unsigned c = 0; c < calls; ++c) {
      T keys[K];
      bool f[K];
      for (int k = 0; k < K; ++k) keys[k] = in[(c * n + i) * K + k];
      const unsigned count =
          valid[c] == ~0u ? tilekit::dedup(cluster, keys, f, sh) : tilekit::dedup(cluster, keys, f, sh, valid[c]);
      for (int k = 0; k < K; ++k) first[(c * n + i) * K + k] = f[k] ? 1 : 0;
      counts[c * n + i] = count;
      cluster.sync();  // storage reuse
    }
  }
};

// Three calls (cluster_dedup_body::calls) of items = m * K keys a cluster.
template <class T>
void verify_cluster_dedup(const cluster_layout& l, std::size_t m, unsigned threads, unsigned K, const cluster_dedup_keys (&kinds)[3],
                          const unsigned (&valid)[3], const std::vector<T>& in, const std::vector<int>& first,
                          const std::vector<unsigned>& counts, const std::string& what) {
  const std::size_t n = m * l.clusters(), items = m * K;
  BOOST_TEST_CONTEXT(::backend::name << " cluster dedup " << what << " (K = " << K << "; " << cluster_dedup_name(kinds[0])
                                     << ", " << cluster_dedup_name(kinds[1]) << ", " << cluster_dedup_name(kinds[2])
                                     << " of " << valid[2] << "), " << l.name() << " x " << threads
                                     << " threads, TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned c = 0; c < 3; ++c)
      for (std::size_t q = 0; q < l.clusters(); ++q) {
        const std::size_t base = (c * n + q * m) * K, v = std::min<std::size_t>(valid[c], items);
        std::set<T> seen;
        const std::string where = "call " + std::to_string(c) + ", cluster " + std::to_string(q);
        for (std::size_t j = 0; j < items; ++j) {
          const int want = j < v && seen.insert(in[base + j]).second ? 1 : 0;
          log.expect(first[base + j], want, "first, item " + std::to_string(j) + ", " + where);
        }
        for (std::size_t r = 0; r < m; ++r)
          log.expect(counts[c * n + q * m + r], unsigned(seen.size()), "count, rank " + std::to_string(r) + ", " + where);
      }
    BOOST_TEST(log.count == 0u);
  }
}

template <unsigned Blocks, unsigned Threads, class T, int K>
void check_cluster_dedup(const cluster_layout& l, const cluster_dedup_keys (&kinds)[3], std::mt19937_64& g,
                         const std::string& what) {
  using body_t = cluster_dedup_body<Blocks, Threads, T, K>;
  constexpr unsigned calls = body_t::calls;
  const std::size_t m = std::size_t(Blocks) * Threads, n = m * l.clusters(), items = m * K;
  std::vector<T> in;
  for (unsigned c = 0; c < calls; ++c) {
    const std::vector<T> part = cluster_dedup_data<T>(kinds[c], n * K, items, Blocks, g);
    in.insert(in.end(), part.begin(), part.end());
  }
  const unsigned valid[calls] = {~0u, unsigned(items), unsigned(1 + g() % (items - 1))};
  cl_buf<T> d_in(in);
  cl_buf<int> d_first(calls * n * K, poison<int>());
  cl_buf<unsigned> d_counts(calls * n, poison<unsigned>());
  ::backend::run_cluster(l.grid(), cl_dim_t(Threads), l.cluster(),
                         body_t{d_in.data(), d_first.data(), d_counts.data(), {valid[0], valid[1], valid[2]}, l.cx, l.cy, l.cz},
                         sizeof(tilekit::cluster_dedup_storage<T, Blocks, Threads, K>));
  verify_cluster_dedup(l, m, Threads, K, kinds, valid, in, d_first.to_host(), d_counts.to_host(), what);
}

template <unsigned Blocks, unsigned Threads>
void check_cluster_dedup_all(const cluster_layout& row, const cluster_layout& shaped, std::mt19937_64& g) {
  using kind = cluster_dedup_keys;
  check_cluster_dedup<Blocks, Threads, int, 1>(row, {kind::small_range, kind::one_owner, kind::reserved}, g, "int");
  check_cluster_dedup<Blocks, Threads, int, 2>(shaped, {kind::reserved, kind::all_distinct, kind::all_ones}, g, "int");
  check_cluster_dedup<Blocks, Threads, long long, 1>(row, {kind::all_distinct, kind::one_owner, kind::all_equal}, g, "long long");
  check_cluster_dedup<Blocks, Threads, long long, 2>(row, {kind::small_range, kind::reserved, kind::all_ones}, g, "long long");
}

// ---- placement: each block's rank in its cluster, each thread's rank in the cluster ----
template <unsigned Blocks, unsigned Threads>
struct cluster_placement_body {
  unsigned* block_rank;   // per block (grid linear rank)
  unsigned* thread_rank;  // per thread (grid linear rank)
  unsigned* sizes;        // per thread: num_blocks * 65536 + num_threads

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, Threads>();
    auto grid = ctx.grid();
    const auto block = cluster.block();
    const unsigned long long b = grid.block_rank(), t = b * Threads + block.thread_rank();
    if (block.thread_rank() == 0) block_rank[b] = cluster.block_rank();
    thread_rank[t] = cluster.thread_rank();
    sizes[t] = cluster.num_blocks() * 65536u + cluster.num_threads();
  }
};

template <unsigned Blocks, unsigned Threads>
void check_cluster_placement(const cluster_layout& l) {
  const cl_dim_t gd = l.grid();
  const std::size_t blocks = std::size_t(gd.x) * gd.y * gd.z;
  cl_buf<unsigned> d_block(blocks, poison<unsigned>()), d_thread(blocks * Threads, poison<unsigned>()),
      d_sizes(blocks * Threads, poison<unsigned>());
  ::backend::run_cluster(gd, cl_dim_t(Threads), l.cluster(),
                         cluster_placement_body<Blocks, Threads>{d_block.data(), d_thread.data(), d_sizes.data()});
  const auto br = d_block.to_host(), tr = d_thread.to_host(), sz = d_sizes.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " cluster placement, " << l.name() << " x " << Threads << " threads") {
    mismatch_log log;
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t x = b % gd.x, y = b / gd.x % gd.y, z = b / (std::size_t(gd.x) * gd.y);
      const unsigned want = unsigned(x % l.cx + l.cx * (y % l.cy + l.cy * (z % l.cz)));
      log.expect(br[b], want, "block rank of block " + std::to_string(b));
      for (unsigned t = 0; t < Threads; ++t) {
        log.expect(tr[b * Threads + t], want * Threads + t, "thread rank, block " + std::to_string(b) + " thread " + std::to_string(t));
        log.expect(sz[b * Threads + t], Blocks * 65536u + Blocks * Threads, "sizes, block " + std::to_string(b));
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

/// A 2-D or 3-D arrangement of Blocks blocks per cluster, with several clusters.
inline cluster_layout shaped_clusters(unsigned blocks) {
  cluster_layout l;
  switch (blocks) {
    case 1: l.nx = 2, l.ny = 2; break;
    case 2: l.cy = 2, l.nx = 3; break;                          // (1,2,1)
    case 4: l.cx = 2, l.cy = 2, l.nx = 2, l.ny = 2; break;      // (2,2,1)
    case 8: l.cx = 2, l.cy = 2, l.cz = 2, l.ny = 2; break;      // (2,2,2)
    default: l.cx = 4, l.cy = 2, l.cz = 2, l.nz = 2; break;     // (4,2,2)
  }
  return l;
}

template <unsigned Blocks, unsigned Threads>
void check_cluster_all() {
  auto g = rng_for(next_salt());
  const cluster_layout row = row_of_clusters(Blocks, ::backend::cluster_count(Blocks));
  const cluster_layout shaped = shaped_clusters(Blocks);
  check_cluster_placement<Blocks, Threads>(row);
  check_cluster_placement<Blocks, Threads>(shaped);
  check_cluster_scalar<Blocks, Threads>(row, tilekit::plus{}, 7, g, "int plus, init 7");
  check_cluster_scalar<Blocks, Threads>(shaped, tilekit::plus{}, -3, g, "int plus, init -3");
  check_cluster_scalar<Blocks, Threads>(row, mat_mul{}, mat2{1, 1, 0, 1}, g, "2x2 matrix product");
  check_cluster_items<Blocks, Threads>(row, tilekit::plus{}, 5, g, "int plus, init 5");
  check_cluster_items<Blocks, Threads>(row, mat_mul{}, mat2{1, 0, 2, 1}, g, "2x2 matrix product");
  check_cluster_compact<Blocks, Threads>(row, g);
  check_cluster_compact<Blocks, Threads>(shaped, g);
  check_cluster_histogram<Blocks, Threads>(row, 37, g);
  check_cluster_histogram<Blocks, Threads>(shaped, 1000, g);
  check_cluster_dedup_all<Blocks, Threads>(row, shaped, g);
  if constexpr (Blocks <= 4) {  // cluster_half_merge's bound
    check_cluster_half_merge<Blocks, Threads, 4, 1>(row, 1001, 0, true, g);      // an odd last bin, a slice's partial vector
    check_cluster_half_merge<Blocks, Threads, 4, 2>(shaped, 1000, 1, false, g);  // words off 16 bytes: one at a time
    check_cluster_half_merge<Blocks, Threads, 1, 1>(row, 38, 0, false, g);
  }
}

/// Every cluster size at this block size, where the backend runs blocks of this size.
template <unsigned Threads>
void check_cluster_sizes() {
  if constexpr (Threads >= ::backend::cluster_min_threads && Threads <= ::backend::cluster_max_threads) {
    check_cluster_all<1, Threads>();
    check_cluster_all<2, Threads>();
    check_cluster_all<4, Threads>();
    check_cluster_all<8, Threads>();
    check_cluster_all<16, Threads>();
  } else {
    BOOST_TEST_MESSAGE(::backend::name << ": blocks of " << Threads << " threads are not run by this backend's cluster cases");
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(cluster_level)

BOOST_AUTO_TEST_CASE(threads_32) { tk_test::check_cluster_sizes<32>(); }
BOOST_AUTO_TEST_CASE(threads_64) { tk_test::check_cluster_sizes<64>(); }
BOOST_AUTO_TEST_CASE(threads_96) { tk_test::check_cluster_sizes<96>(); }  // a partial last warp
BOOST_AUTO_TEST_CASE(threads_256) { tk_test::check_cluster_sizes<256>(); }
BOOST_AUTO_TEST_CASE(threads_1024) { tk_test::check_cluster_sizes<1024>(); }

BOOST_AUTO_TEST_SUITE_END()
