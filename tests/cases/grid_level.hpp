// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grid rung inside a kernel, written once for both backends: reduce, the scans,
// compact, histogram and dedup over every thread of a cooperative launch (grid/reduce.cuh,
// grid/scan.cuh, grid/histogram.cuh, grid/dedup.cuh), and the chained scans and compact
// under an ordinary launch of more blocks than are resident at once (grid/chain.cuh). Grids of 1 block up to the cooperative maximum, whole and partial
// last warps, three calls back to back in one kernel (the storage's halves
// alternate), two launches over the same uninitialised (poisoned) storage, a
// non-commutative operator (2x2 matrix product: the grid rank order). References:
// sequential CPU folds and scans in grid rank order.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/grid/chain.cuh>
#include <tilekit/grid/dedup.cuh>
#include <tilekit/grid/reduce.cuh>
#include <tilekit/grid/histogram.cuh>
#include <tilekit/grid/scan.cuh>

#include <algorithm>
#include <set>

namespace tk_test {

template <class T>
using grid_buf = typename ::backend::template buffer<T>;
using grid_dim_t = typename ::backend::dim3_t;

inline unsigned blocks_in(const grid_dim_t& d) { return unsigned(d.x * d.y * d.z); }

// Call c of `calls`: every thread reduces in[c * threads + its grid rank] and writes
// the result to out[c * threads + its grid rank].
template <unsigned Threads, class T, class Op>
struct grid_reduce_body {
  static constexpr unsigned calls = 3;
  const T* in;
  T* out;
  void* memory;  // grid_reduce_storage<T>::bytes(max_blocks), poisoned
  unsigned long long max_blocks;
  Op op;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<tilekit::reduce_storage<T, Threads>>();
    tilekit::grid_reduce_storage<T> storage(memory, max_blocks);
    const unsigned long long n = grid.num_threads(), i = grid.thread_rank();
    for (unsigned c = 0; c < calls; ++c) {
      out[c * n + i] = tilekit::reduce(grid, block, in[c * n + i], op, shared, storage);
      block.sync();  // before block_storage is reused
    }
  }
};

// The grid scans: call c writes thread i's inclusive scan to out[(2c) * n + i], its
// exclusive scan after `init` to out[(2c + 1) * n + i], and (thread 0 of the grid)
// both aggregates to totals[2c], totals[2c + 1]. Calls alternate the plain and the
// _aggregate forms.
template <unsigned Threads, class T, class Op>
struct grid_scan_body {
  static constexpr unsigned calls = 3;
  const T* in;
  T* out;
  T* totals;
  void* memory;
  unsigned long long max_blocks;
  Op op;
  T init;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<tilekit::scan_storage<T, Threads>>();
    tilekit::grid_scan_storage<T> storage(memory, max_blocks);
    const unsigned long long n = grid.num_threads(), i = grid.thread_rank();
    for (unsigned c = 0; c < calls; ++c) {
      const T v = in[c * n + i];
      if (c % 2 == 0) {
        out[2 * c * n + i] = tilekit::inclusive_scan(grid, block, v, op, shared, storage);
        block.sync();
        out[(2 * c + 1) * n + i] = tilekit::exclusive_scan(grid, block, v, op, init, shared, storage);
      } else {
        const tilekit::scanned<T> a = tilekit::inclusive_scan_aggregate(grid, block, v, op, shared, storage);
        block.sync();
        const tilekit::scanned<T> b = tilekit::exclusive_scan_aggregate(grid, block, v, op, init, shared, storage);
        out[2 * c * n + i] = a.value;
        out[(2 * c + 1) * n + i] = b.value;
        if (i == 0) totals[2 * c] = a.aggregate, totals[2 * c + 1] = b.aggregate;
      }
      block.sync();
    }
  }
};

// grid_dim: the blocks (1-D, or 2-D / 3-D extents); block_dim: Threads threads as 1-D or 2-D / 3-D extents.
template <unsigned Threads, class T, class Op>
void check_grid_scan(grid_dim_t grid_dim, Op op, T init, const std::vector<T>& values, const std::string& what,
                     grid_dim_t block_dim = grid_dim_t(Threads)) {
  using body_t = grid_scan_body<Threads, T, Op>;
  const unsigned blocks = blocks_in(grid_dim);
  const std::size_t n = std::size_t(blocks) * Threads;
  BOOST_REQUIRE(values.size() >= body_t::calls * n);
  grid_buf<unsigned char> memory(tilekit::grid_scan_storage<T>::bytes(blocks) + 16, 0xCD);
  std::vector<T> in(values.begin(), values.begin() + std::ptrdiff_t(body_t::calls * n));
  grid_buf<T> d_in(in), d_out(2 * body_t::calls * n, poison<T>()), d_totals(2 * body_t::calls, poison<T>());
  ::backend::run_cooperative(grid_dim, block_dim, body_t{d_in.data(), d_out.data(), d_totals.data(), memory.data(), blocks, op, init},
                             sizeof(tilekit::scan_storage<T, Threads>));
  const auto got = d_out.to_host();
  const auto totals = d_totals.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " grid scan " << what << ", " << blocks << " blocks x " << Threads
                                     << " threads, TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned c = 0; c < body_t::calls; ++c) {
      T inclusive = in[c * n], exclusive = init;
      for (std::size_t i = 0; i < n; ++i) {
        if (i > 0) inclusive = op(inclusive, in[c * n + i]);
        const std::string where = "call " + std::to_string(c) + ", thread " + std::to_string(i);
        if (!(got[2 * c * n + i] == inclusive)) log.expect(got[2 * c * n + i], inclusive, "inclusive, " + where);
        if (!(got[(2 * c + 1) * n + i] == exclusive)) log.expect(got[(2 * c + 1) * n + i], exclusive, "exclusive, " + where);
        exclusive = op(exclusive, in[c * n + i]);
      }
      if (c % 2 == 1) {
        log.expect(totals[2 * c], inclusive, "inclusive aggregate, call " + std::to_string(c));
        log.expect(totals[2 * c + 1], inclusive, "exclusive aggregate (without init), call " + std::to_string(c));
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// compact: thread i keeps where in[i] is odd, writes its value to out[rank]; thread 0
// writes the count.
template <unsigned Threads>
struct grid_compact_body {
  const int* in;
  int* out;                   // 2 n: compact's, then compact_store's
  unsigned long long* count;  // 2
  void* memory;
  unsigned long long max_blocks;
  unsigned long long n;       // threads of the grid

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<tilekit::scan_storage<unsigned long long, Threads>>();
    tilekit::grid_scan_storage<unsigned long long> storage(memory, max_blocks);
    const unsigned long long i = grid.thread_rank();
    const bool keep = in[i] % 2 != 0;
    const tilekit::grid_compact_result r = tilekit::compact(grid, block, keep, shared, storage);
    if (keep) out[r.rank] = in[i];
    if (i == 0) *count = r.count;
    // The same through compact_store, into the second half of out (the storage's other half).
    block.sync();
    const unsigned long long stored = tilekit::compact_store(grid, block, keep, in[i], out + n, shared, storage);
    if (i == 0) count[1] = stored;
  }
};

// histogram: call c counts samples in[(c * n + i) * 4 .. + 4) into `bins` counters;
// after each call every thread reads the total of bin i % bins into out[c * n + i].
template <unsigned Threads>
struct grid_histogram_body {
  static constexpr unsigned calls = 2, K = 4;
  const unsigned* in;
  unsigned* counters;  // global, poisoned
  unsigned* out;
  unsigned bins;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    unsigned* local = ctx.template shared_array<unsigned>(bins);
    const unsigned long long n = grid.num_threads(), i = grid.thread_rank();
    for (unsigned c = 0; c < calls; ++c) {
      unsigned items[K];
      for (unsigned k = 0; k < K; ++k) items[k] = in[(c * n + i) * K + k];
      tilekit::histogram(grid, block, items, local, counters, bins);
      out[c * n + i] = counters[i % bins];
    }
  }
};

template <unsigned Threads>
void check_grid_histogram(unsigned blocks, std::mt19937_64& g) {
  using body_t = grid_histogram_body<Threads>;
  const unsigned bins = 37;
  const std::size_t n = std::size_t(blocks) * Threads;
  std::vector<unsigned> in(body_t::calls * n * body_t::K);
  for (std::size_t j = 0; j < in.size(); ++j) in[j] = g() % 4 == 0 ? 5u : unsigned(g() % bins);  // skewed to bin 5
  grid_buf<unsigned> d_in(in), d_counters(bins, poison<unsigned>()), d_out(body_t::calls * n, poison<unsigned>());
  ::backend::run_cooperative(blocks, Threads, body_t{d_in.data(), d_counters.data(), d_out.data(), bins}, bins * sizeof(unsigned));
  const auto got = d_out.to_host();
  const auto final_counts = d_counters.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " grid histogram, " << blocks << " blocks x " << Threads
                                     << " threads, TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned c = 0; c < body_t::calls; ++c) {
      std::vector<unsigned> want(bins, 0);
      for (std::size_t j = c * n * body_t::K; j < (c + 1) * n * body_t::K; ++j) ++want[in[j]];
      for (std::size_t i = 0; i < n; ++i)
        if (got[c * n + i] != want[i % bins]) log.expect(got[c * n + i], want[i % bins], "call " + std::to_string(c) + ", thread " + std::to_string(i));
      if (c + 1 == body_t::calls)
        for (unsigned b = 0; b < bins; ++b) log.expect(final_counts[b], want[b], "final count of bin " + std::to_string(b));
    }
    BOOST_TEST(log.count == 0u);
  }
}

template <unsigned Threads, class T, class Op>
void check_grid_reduce(grid_dim_t grid_dim, Op op, const std::vector<T>& values, const std::string& what,
                       grid_dim_t block_dim = grid_dim_t(Threads)) {
  using body_t = grid_reduce_body<Threads, T, Op>;
  const unsigned blocks = blocks_in(grid_dim);
  const std::size_t n = std::size_t(blocks) * Threads;
  BOOST_REQUIRE(values.size() >= 2 * body_t::calls * n);
  // The same storage for two launches, never initialised.
  const std::size_t storage_bytes = tilekit::grid_reduce_storage<T>::bytes(blocks);
  grid_buf<unsigned char> memory(storage_bytes + 16, 0xCD);
  for (unsigned launch = 0; launch < 2; ++launch) {
    std::vector<T> in(values.begin() + std::ptrdiff_t(launch * body_t::calls * n),
                      values.begin() + std::ptrdiff_t((launch + 1) * body_t::calls * n));
    grid_buf<T> d_in(in), d_out(body_t::calls * n, poison<T>());
    ::backend::run_cooperative(grid_dim, block_dim, body_t{d_in.data(), d_out.data(), memory.data(), blocks, op},
                               sizeof(tilekit::reduce_storage<T, Threads>));
    const auto got = d_out.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " grid reduce " << what << ", " << blocks << " blocks x " << Threads
                                       << " threads, launch " << launch << ", TILEKIT_TEST_SEED=" << base_seed()) {
      mismatch_log log;
      for (unsigned c = 0; c < body_t::calls; ++c) {
        T want = in[c * n];
        for (std::size_t i = 1; i < n; ++i) want = op(want, in[c * n + i]);  // grid rank order
        for (std::size_t i = 0; i < n; ++i)
          if (!(got[c * n + i] == want)) log.expect(got[c * n + i], want, "call " + std::to_string(c) + ", thread " + std::to_string(i));
      }
      BOOST_TEST(log.count == 0u);
    }
  }
}

template <class T>
std::vector<T> grid_values(std::size_t count, std::mt19937_64& g);
template <>
inline std::vector<int> grid_values<int>(std::size_t count, std::mt19937_64& g) {
  std::vector<int> v(count);
  for (auto& x : v) x = int(g() % 2001) - 1000;
  return v;
}
template <>
inline std::vector<mat2> grid_values<mat2>(std::size_t count, std::mt19937_64& g) {
  std::vector<mat2> v(count);
  for (auto& m : v) m = random_value<mat2>(g);  // shears: long products still depend on the order
  return v;
}

// What the compact tests check: out holds n items from compact, then n from
// compact_store, each the odd values of in[0 .. n) in order and then poison;
// counts[0], counts[1] are the counts each reported.
inline void check_compacted_odds(const std::vector<int>& in, std::size_t n, const std::vector<int>& out,
                                 const std::vector<unsigned long long>& counts, const std::string& what) {
  std::vector<int> want;
  for (std::size_t i = 0; i < n; ++i)
    if (in[i] % 2 != 0) want.push_back(in[i]);
  for (int form = 0; form < 2; ++form) {  // compact, then compact_store
    const std::vector<int> got(out.begin() + std::ptrdiff_t(form * n), out.begin() + std::ptrdiff_t((form + 1) * n));
    BOOST_TEST_CONTEXT(::backend::name << " " << what << ", " << (form ? "compact_store" : "compact")
                                       << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(counts[std::size_t(form)] == want.size());
      BOOST_TEST(std::equal(want.begin(), want.end(), got.begin()));
      BOOST_TEST(std::all_of(got.begin() + std::ptrdiff_t(want.size()), got.end(), [](int x) { return is_poison(x); }));
    }
  }
}

template <unsigned Threads>
void check_grid_reduce_shapes() {
  auto g = rng_for(next_salt());
  for (unsigned blocks : {1u, 3u, ::backend::cooperative_blocks()}) {
    const std::size_t count = 2 * grid_reduce_body<Threads, int, tilekit::plus>::calls * std::size_t(blocks) * Threads;
    const auto ints = grid_values<int>(count, g);
    check_grid_reduce<Threads>(blocks, tilekit::plus{}, ints, "int plus");
    check_grid_reduce<Threads>(blocks, tilekit::minimum{}, ints, "int minimum");
    check_grid_reduce<Threads>(blocks, custom_max{}, ints, "int custom max");
    check_grid_reduce<Threads>(blocks, mat_mul{}, grid_values<mat2>(count, g), "2x2 matrix product");
    check_grid_scan<Threads>(blocks, tilekit::plus{}, 7, ints, "int plus, init 7");
    check_grid_histogram<Threads>(blocks, g);
    check_grid_scan<Threads>(blocks, custom_max{}, -5000, ints, "int custom max");
    check_grid_scan<Threads>(blocks, mat_mul{}, mat2{1, 1, 0, 1}, grid_values<mat2>(count, g), "2x2 matrix product");
    // compact: odd values kept, in grid order
    const std::size_t n = std::size_t(blocks) * Threads;
    grid_buf<int> d_in(std::vector<int>(ints.begin(), ints.begin() + std::ptrdiff_t(n))), d_out(2 * n, poison<int>());
    grid_buf<unsigned long long> d_count(2, poison<unsigned long long>());
    grid_buf<unsigned char> memory(tilekit::grid_scan_storage<unsigned long long>::bytes(blocks), 0xCD);
    ::backend::run_cooperative(blocks, Threads,
                               grid_compact_body<Threads>{d_in.data(), d_out.data(), d_count.data(), memory.data(), blocks, n},
                               sizeof(tilekit::scan_storage<unsigned long long, Threads>));
    check_compacted_odds(ints, n, d_out.to_host(), d_count.to_host(),
                         "grid, " + std::to_string(blocks) + " blocks x " + std::to_string(Threads) + " threads");
  }
}

}  // namespace tk_test

namespace tk_test {

// K = 3 items per thread, blocked: reduce, inclusive and exclusive array scans (in place).
template <unsigned Threads, class T, class Op>
struct grid_items_body {
  static constexpr int K = 3;
  const T* in;   // n * K items, thread i's at in[i * K ..]
  T* out;        // [0, nK): reduce result per item; [nK, 2nK): inclusive; [2nK, 3nK): exclusive
  T* totals;     // thread 0: the two scans' aggregates
  void* memory;
  unsigned long long max_blocks;
  Op op;
  T init;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    struct shared_t {
      union {
        tilekit::reduce_storage<T, Threads> reduce;
        tilekit::scan_storage<T, Threads> scan;
      };
    };
    auto& shared = ctx.template shared<shared_t>();
    tilekit::grid_reduce_storage<T> storage(memory, max_blocks);
    const unsigned long long n = grid.num_threads(), i = grid.thread_rank();
    T items[K];
    for (int k = 0; k < K; ++k) items[k] = in[i * K + k];
    const T total = tilekit::reduce(grid, block, items, op, shared.reduce, storage);
    block.sync();
    T inc[K];
    const T inc_total = tilekit::inclusive_scan(grid, block, items, inc, op, shared.scan, storage);
    block.sync();
    const T exc_total = tilekit::exclusive_scan(grid, block, items, items, op, init, shared.scan, storage);  // in place
    for (int k = 0; k < K; ++k) {
      out[i * K + k] = total;
      out[n * K + i * K + k] = inc[k];
      out[2 * n * K + i * K + k] = items[k];
    }
    if (i == 0) totals[0] = inc_total, totals[1] = exc_total;
  }
};

template <unsigned Threads, class T, class Op>
void check_grid_items(unsigned blocks, Op op, T init, const std::vector<T>& values, const std::string& what) {
  using body_t = grid_items_body<Threads, T, Op>;
  const std::size_t m = std::size_t(blocks) * Threads * body_t::K;
  std::vector<T> in(values.begin(), values.begin() + std::ptrdiff_t(m));
  grid_buf<unsigned char> memory(tilekit::grid_reduce_storage<T>::bytes(blocks), 0xCD);
  grid_buf<T> d_in(in), d_out(3 * m, poison<T>()), d_totals(2, poison<T>());
  ::backend::run_cooperative(blocks, Threads, body_t{d_in.data(), d_out.data(), d_totals.data(), memory.data(), blocks, op, init},
                             std::max(sizeof(tilekit::reduce_storage<T, Threads>), sizeof(tilekit::scan_storage<T, Threads>)));
  const auto got = d_out.to_host();
  const auto totals = d_totals.to_host();
  BOOST_TEST_CONTEXT(::backend::name << " grid items (K = 3) " << what << ", " << blocks << " blocks x " << Threads
                                     << " threads, TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    T all = in[0];
    for (std::size_t j = 1; j < m; ++j) all = op(all, in[j]);
    T inclusive = in[0], exclusive = init;
    for (std::size_t j = 0; j < m; ++j) {
      if (j > 0) inclusive = op(inclusive, in[j]);
      if (!(got[j] == all)) log.expect(got[j], all, "reduce, item " + std::to_string(j));
      if (!(got[m + j] == inclusive)) log.expect(got[m + j], inclusive, "inclusive, item " + std::to_string(j));
      if (!(got[2 * m + j] == exclusive)) log.expect(got[2 * m + j], exclusive, "exclusive, item " + std::to_string(j));
      exclusive = op(exclusive, in[j]);
    }
    log.expect(totals[0], all, "inclusive aggregate");
    log.expect(totals[1], all, "exclusive aggregate");
    BOOST_TEST(log.count == 0u);
  }
}

}  // namespace tk_test

namespace tk_test {

// dedup: call c flags, for the K keys in[(c * threads + grid rank) * K + k], whether each
// is the first of its key in grid order, into out[(c * threads + grid rank) * K + k].
template <unsigned Threads, class T, int K>
struct grid_dedup_body {
  static constexpr int calls = 3;
  const T* in;
  unsigned char* out;
  void* memory;
  unsigned long long max_keys;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<tilekit::distinct_storage<T, Threads, K>>();
    tilekit::grid_dedup_storage<T> storage(memory, max_keys);
    const unsigned long long threads = grid.num_blocks() * Threads;
    for (int c = 0; c < calls; ++c) {
      const unsigned long long at = (c * threads + grid.thread_rank()) * K;
      T keys[K];
      bool first[K];
      for (int k = 0; k < K; ++k) keys[k] = in[at + k];
      tilekit::dedup(grid, block, keys, first, shared, storage);
      for (int k = 0; k < K; ++k) out[at + k] = first[k] ? 1 : 0;
      block.sync();  // the block storage is reused by the next call
    }
  }
};

// Keys from a range of about a quarter of the items (repeats within and across blocks),
// with the key whose bits are all ones (the set's extra slot) among them; two launches
// over the same memory, zeroed once: each must leave it zeroed.
template <unsigned Threads, class T, int K>
void check_grid_dedup(unsigned blocks, std::mt19937_64& g, const char* what) {
  using body_t = grid_dedup_body<Threads, T, K>;
  const std::size_t per_call = std::size_t(blocks) * Threads * K, n = body_t::calls * per_call;
  const unsigned long long max_keys = per_call;
  grid_buf<unsigned char> memory(tilekit::grid_dedup_storage<T>::bytes(max_keys), 0);
  for (int launch = 0; launch < 2; ++launch) {
    std::vector<T> keys(n);
    const unsigned long long range = launch == 0 ? per_call / 4 + 1 : per_call;  // the second: fewer repeats
    for (auto& x : keys) x = T((g() % range) * 0x9E3779B1ull + unsigned(launch));  // spread bits, computed unsigned
    for (std::size_t i = 0; i < n; i += 97) keys[i] = T(~T(0));
    grid_buf<T> d_in(keys);
    grid_buf<unsigned char> d_out(n, 0xCD);
    ::backend::run_cooperative(blocks, Threads, body_t{d_in.data(), d_out.data(), memory.data(), max_keys},
                               sizeof(tilekit::distinct_storage<T, Threads, K>));
    const auto got = d_out.to_host();
    std::size_t wrong = 0, firsts = 0;
    for (int c = 0; c < body_t::calls; ++c) {
      std::set<T> seen;
      for (std::size_t i = c * per_call; i < (c + 1) * per_call; ++i) {
        const bool want = seen.insert(keys[i]).second;
        firsts += want;
        wrong += got[i] != (want ? 1 : 0);
      }
    }
    const auto left = memory.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " grid dedup of " << what << ", " << blocks << " blocks x " << Threads
                                       << " threads x " << K << " keys, launch " << launch
                                       << ", TILEKIT_TEST_SEED=" << base_seed()) {
      BOOST_TEST(wrong == 0u, wrong << " of " << n << " flags wrong (" << firsts << " first occurrences)");
      BOOST_TEST(std::all_of(left.begin(), left.end(), [](unsigned char b) { return b == 0; }),
                 "the storage is not left zeroed");
    }
  }
}

}  // namespace tk_test

namespace tk_test {

// The chained scans under an ordinary launch: four chains in one kernel, each with its
// own global storage (one scan per storage per launch) and the same shared storage:
// chain 0 the inclusive array scan, 1 the exclusive array scan in place (init), 2 and 3
// the one-value forms. The block with ticket c of chain s works on items
// in[s * n * K + (c * Threads + thread) * K + k] and writes its results there in out;
// thread 0 writes `through` to throughs[s * blocks + c].
template <unsigned Threads, class T, class Op>
struct grid_chain_body {
  static constexpr int K = 2, chains = 4;
  const T* in;
  T* out;
  T* throughs;
  void* memory;  // chains storages of storage_bytes
  std::size_t storage_bytes;
  unsigned long long max_blocks;
  Op op;
  T init;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<tilekit::chain_storage<T, Threads>>();
    const unsigned long long n = grid.num_threads(), t = block.thread_rank();
    for (int s = 0; s < chains; ++s) {
      tilekit::grid_chain_storage<T> storage(static_cast<unsigned char*>(memory) + s * storage_bytes, max_blocks);
      const unsigned long long c = tilekit::take_ticket(grid, block, shared, storage);
      const unsigned long long at = s * n * K + (c * Threads + t) * K;
      T items[K];
      for (int k = 0; k < K; ++k) items[k] = in[at + k];
      T through = items[0];
      if (s == 0) {
        T scanned[K];
        through = tilekit::inclusive_scan(grid, block, items, scanned, op, shared, storage);
        for (int k = 0; k < K; ++k) out[at + k] = scanned[k];
      } else if (s == 1) {
        through = tilekit::exclusive_scan(grid, block, items, items, op, init, shared, storage);
        for (int k = 0; k < K; ++k) out[at + k] = items[k];
      } else if (s == 2) {
        out[at] = tilekit::inclusive_scan(grid, block, items[0], op, shared, storage);
      } else {
        out[at] = tilekit::exclusive_scan(grid, block, items[0], op, init, shared, storage);
      }
      if (t == 0 && s < 2) throughs[s * grid.num_blocks() + c] = through;
      block.sync();  // the shared storage serves the next chain
    }
  }
};

// Several launches over the same storages, zeroed once: each launch must leave them ready.
template <unsigned Threads, class T, class Op>
void check_grid_chain(unsigned blocks, Op op, T init, std::mt19937_64& g, const std::string& what) {
  using body_t = grid_chain_body<Threads, T, Op>;
  constexpr int K = body_t::K, chains = body_t::chains;
  const std::size_t n = std::size_t(blocks) * Threads, m = n * K;
  const std::size_t storage_bytes = (tilekit::grid_chain_storage<T>::bytes(blocks) + 255) / 256 * 256;
  grid_buf<unsigned char> memory(chains * storage_bytes, 0);
  for (unsigned launch = 0; launch < 3; ++launch) {
    const std::vector<T> in = grid_values<T>(chains * m, g);
    grid_buf<T> d_in(in), d_out(chains * m, poison<T>()), d_throughs(2 * blocks, poison<T>());
    ::backend::run(blocks, Threads,
                   body_t{d_in.data(), d_out.data(), d_throughs.data(), memory.data(), storage_bytes, blocks, op, init},
                   sizeof(tilekit::chain_storage<T, Threads>));
    const auto got = d_out.to_host();
    const auto throughs = d_throughs.to_host();
    const auto words = memory.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " chained grid scan " << what << ", " << blocks << " blocks x " << Threads
                                       << " threads, launch " << launch << ", TILEKIT_TEST_SEED=" << base_seed()) {
      mismatch_log log;
      for (int s = 0; s < chains; ++s) {
        const T* x = in.data() + s * m;
        const T* y = got.data() + s * m;
        const std::size_t step = s < 2 ? 1 : K;  // the one-value forms: item 0 of each thread
        T inclusive = x[0], exclusive = init;
        for (std::size_t j = 0; j < m; j += step) {
          if (j > 0) inclusive = op(inclusive, x[j]);
          const T& want = s % 2 == 0 ? inclusive : exclusive;
          if (!(y[j] == want)) log.expect(y[j], want, "chain " + std::to_string(s) + ", item " + std::to_string(j));
          exclusive = op(exclusive, x[j]);
          if (s < 2 && (j + 1) % (Threads * K) == 0) {
            const std::size_t c = j / (Threads * K);
            log.expect(throughs[s * blocks + c], inclusive, "through, chain " + std::to_string(s) + ", block " + std::to_string(c));
          }
        }
      }
      // Every storage ready for the next launch: ticket and finished counters 0, the epoch advanced.
      for (int s = 0; s < chains; ++s) {
        unsigned long long header[3];
        std::memcpy(header, words.data() + s * storage_bytes, sizeof(header));
        log.expect(header[0], 0ull, "ticket counter left, chain " + std::to_string(s));
        log.expect(header[1], 0ull, "finished counter left, chain " + std::to_string(s));
        log.expect(header[2], launch + 1ull, "epoch, chain " + std::to_string(s));
      }
      BOOST_TEST(log.count == 0u);
    }
  }
}

// compact and compact_store in a chain: odd values kept, in chain order (ticket c's
// block takes in[c * Threads + thread]); through of the last block is the count.
template <unsigned Threads>
struct grid_chain_compact_body {
  const int* in;
  int* out;                   // 2 n: compact's, then compact_store's
  unsigned long long* count;  // 2
  void* memory;               // two storages of storage_bytes
  std::size_t storage_bytes;
  unsigned long long max_blocks;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<tilekit::chain_storage<unsigned long long, Threads>>();
    const unsigned long long n = grid.num_threads(), last = grid.num_blocks() - 1;
    for (int form = 0; form < 2; ++form) {
      tilekit::grid_chain_storage<unsigned long long> storage(static_cast<unsigned char*>(memory) + form * storage_bytes,
                                                              max_blocks);
      const unsigned long long c = tilekit::take_ticket(grid, block, shared, storage);
      const int x = in[c * Threads + block.thread_rank()];
      const bool keep = x % 2 != 0;
      unsigned long long through = 0;
      if (form == 0) {
        const tilekit::chain_compact_result r = tilekit::compact(grid, block, keep, shared, storage);
        if (keep) out[r.rank] = x;
        through = r.through;
      } else {
        through = tilekit::compact_store(grid, block, keep, x, out + n, shared, storage);
      }
      if (c == last && block.thread_rank() == 0) count[form] = through;
      block.sync();
    }
  }
};

template <unsigned Threads>
void check_grid_chain_compact(unsigned blocks, std::mt19937_64& g) {
  const std::size_t n = std::size_t(blocks) * Threads;
  const std::size_t storage_bytes = (tilekit::grid_chain_storage<unsigned long long>::bytes(blocks) + 255) / 256 * 256;
  grid_buf<unsigned char> memory(2 * storage_bytes, 0);
  const auto ints = grid_values<int>(n, g);
  grid_buf<int> d_in(ints), d_out(2 * n, poison<int>());
  grid_buf<unsigned long long> d_count(2, poison<unsigned long long>());
  ::backend::run(blocks, Threads,
                 grid_chain_compact_body<Threads>{d_in.data(), d_out.data(), d_count.data(), memory.data(), storage_bytes, blocks},
                 sizeof(tilekit::chain_storage<unsigned long long, Threads>));
  check_compacted_odds(ints, n, d_out.to_host(), d_count.to_host(),
                       "chained grid, " + std::to_string(blocks) + " blocks x " + std::to_string(Threads) + " threads");
}

// x -> a x + b (mod 2^32) as one word (a the low half, b the high half); f, then g.
struct affine_then {
  TILEKIT_HD unsigned long long operator()(unsigned long long f, unsigned long long g) const {
    const unsigned fa = unsigned(f), fb = unsigned(f >> 32), ga = unsigned(g), gb = unsigned(g >> 32);
    return (static_cast<unsigned long long>(ga * fb + gb) << 32) | static_cast<unsigned long long>(ga * fa);
  }
};

// The decoupled look-back alone (grid/detail/look_back.cuh), one chunk per block of 32
// threads: chunk c's aggregate is values[c], its prefix (op over the values before it,
// after init) goes to out[c]. With pauses (patient) or without; counts (T = count_t,
// plus, a bound on the aggregates) take the 32-bit window sum.
template <class T, class Op, class States, tilekit::detail::count_t MaxAggregate = 0>
struct look_back_body {
  const T* values;
  T* out;
  unsigned* words;  // the chunk states' words, zeroed
  Op op;
  T init;
  bool patient;
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<32>();
    const tilekit::detail::count_t chunk = ctx.grid().block_rank();
    States states{words, words + States::flag_words * ctx.grid().num_blocks()};
    tilekit::detail::look_back<decltype(block), T, Op, States, MaxAggregate> back{block, states, chunk, op, init, true, patient};
    const T prefix = back(values[chunk]);
    if (block.thread_rank() == 0) out[chunk] = prefix;
  }
};

template <class T, class Op, tilekit::detail::count_t MaxAggregate = 0>
void check_look_back(unsigned blocks, Op op, T init, const std::vector<T>& values, const std::string& what) {
  using states_t = tilekit::detail::chunk_states<T>;
  for (bool patient : {false, true}) {
    grid_buf<T> d_values(values), d_out(blocks, poison<T>());
    grid_buf<unsigned> words(std::size_t(blocks) * (states_t::flag_words + states_t::value_words), 0u);
    ::backend::run(blocks, 32,
                   look_back_body<T, Op, states_t, MaxAggregate>{d_values.data(), d_out.data(), words.data(), op, init, patient});
    const auto got = d_out.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " look-back " << what << ", " << blocks << " chunks"
                                       << (patient ? ", patient" : "") << ", TILEKIT_TEST_SEED=" << base_seed()) {
      mismatch_log log;
      T want = init;
      for (unsigned c = 0; c < blocks; ++c) {
        if (!(got[c] == want)) log.expect(got[c], want, "chunk " + std::to_string(c));
        want = op(want, values[c]);
      }
    }
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(grid_level)

// K items per thread, blocked (thread-major grid order); the exclusive scan in place.
BOOST_AUTO_TEST_CASE(items_per_thread) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  for (unsigned blocks : {1u, 3u, ::backend::cooperative_blocks()}) {
    const std::size_t m = std::size_t(blocks) * 128 * 3;
    tk_test::check_grid_items<128>(blocks, tilekit::plus{}, 11, tk_test::grid_values<int>(m, g), "int plus");
    tk_test::check_grid_items<80>(blocks, tk_test::mat_mul{}, tk_test::mat2{1, 0, 0, 1}, tk_test::grid_values<tk_test::mat2>(m, g),
                                  "2x2 matrix product");
  }
}

BOOST_AUTO_TEST_CASE(reduce_scan_compact_histogram_32) { tk_test::check_grid_reduce_shapes<32>(); }
BOOST_AUTO_TEST_CASE(reduce_scan_compact_histogram_80) { tk_test::check_grid_reduce_shapes<80>(); }  // a partial warp
BOOST_AUTO_TEST_CASE(reduce_scan_compact_histogram_128) { tk_test::check_grid_reduce_shapes<128>(); }

// More blocks than threads per block: a thread folds a run of several partials.
BOOST_AUTO_TEST_CASE(more_blocks_than_threads) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const unsigned blocks = 40;
  const auto ints = tk_test::grid_values<int>(2 * 3 * std::size_t(blocks) * 32, g);
  tk_test::check_grid_reduce<32>(blocks, tilekit::plus{}, ints, "int plus");
  const auto mats = tk_test::grid_values<tk_test::mat2>(2 * 3 * std::size_t(blocks) * 32, g);
  tk_test::check_grid_reduce<32>(blocks, tk_test::mat_mul{}, mats, "2x2 matrix product");
  tk_test::check_grid_scan<32>(blocks, tk_test::mat_mul{}, tk_test::mat2{1, 0, 1, 1}, mats, "2x2 matrix product");
}

// dedup: first occurrences across the grid (4- and 8-byte keys, 1 or 3 keys per thread).
BOOST_AUTO_TEST_CASE(dedup_first_occurrences) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  for (unsigned blocks : {1u, 3u, ::backend::cooperative_blocks()}) {
    tk_test::check_grid_dedup<128, int, 1>(blocks, g, "int");
    tk_test::check_grid_dedup<80, unsigned, 3>(blocks, g, "unsigned");
    tk_test::check_grid_dedup<64, long long, 2>(blocks, g, "long long");
  }
}

// 2-D grids of 2-D blocks: grid rank order is block rank (x fastest), then thread rank (x fastest).
BOOST_AUTO_TEST_CASE(two_dimensional_grids_and_blocks) {
  using tk_test::grid_dim_t;
  auto g = tk_test::rng_for(tk_test::next_salt());
  const grid_dim_t grid_dim(3, 2, 1), block_dim(32, 2, 1);  // 6 blocks of 64 threads
  const std::size_t count = 2 * 3 * 6 * 64;
  const auto ints = tk_test::grid_values<int>(count, g);
  const auto mats = tk_test::grid_values<tk_test::mat2>(count, g);
  tk_test::check_grid_reduce<64>(grid_dim, tk_test::mat_mul{}, mats, "2x2 matrix product, 2-D", block_dim);
  tk_test::check_grid_scan<64>(grid_dim, tk_test::mat_mul{}, tk_test::mat2{1, 0, 0, 1}, mats, "2x2 matrix product, 2-D", block_dim);
  tk_test::check_grid_scan<64>(grid_dim, tilekit::plus{}, 0, ints, "int plus, 2-D", block_dim);
}

// The chained scans and compact under an ordinary launch: one block, a few, more than
// are resident at once (40 in the simulator, which keeps 4 resident; 20000 on the GPU),
// a partial warp, a non-commutative operator.
BOOST_AUTO_TEST_CASE(chained_scans_and_compact) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  for (unsigned blocks : {1u, 3u, ::backend::chain_scan_blocks()}) {
    tk_test::check_grid_chain<128>(blocks, tilekit::plus{}, 7, g, "int plus, init 7");
    tk_test::check_grid_chain<80>(blocks, tk_test::mat_mul{}, tk_test::mat2{1, 1, 0, 1}, g, "2x2 matrix product");
    tk_test::check_grid_chain<32>(blocks, tk_test::custom_max{}, -5000, g, "int custom max");
    tk_test::check_grid_chain_compact<128>(blocks, g);
    tk_test::check_grid_chain_compact<80>(blocks, g);
  }
}

// The look-back's walk over one window and several (past chunk 0's), a non-commutative
// operator in the fenced (16-byte) and paired (8-byte) layouts, and counts in 32-bit
// window sums.
BOOST_AUTO_TEST_CASE(look_back_windows) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  for (unsigned blocks : {1u, 2u, 33u, 130u, 300u}) {
    tk_test::check_look_back(blocks, tk_test::mat_mul{}, tk_test::mat2{1, 2, 0, 1}, tk_test::grid_values<tk_test::mat2>(blocks, g),
                             "2x2 matrix product");
    std::vector<unsigned long long> words(blocks);
    for (auto& w : words) w = g();  // x -> a x + b mod 2^32, a and b the two halves
    tk_test::check_look_back(blocks, tk_test::affine_then{}, 1ull, words, "affine maps");
    std::vector<tilekit::detail::count_t> counts(blocks);
    for (auto& c : counts) c = tilekit::detail::count_t(g() % 4001);
    tk_test::check_look_back<tilekit::detail::count_t, tilekit::plus, 4000>(blocks, tilekit::plus{}, 5, counts, "counts");
  }
}

BOOST_AUTO_TEST_SUITE_END()
