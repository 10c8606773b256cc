// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Block level against CUB on the GPU, same data, same kernel:
//   tilekit::reduce (full, valid_items)       cub::BlockReduce Sum / Reduce (num_valid)
//   tilekit::inclusive_scan / exclusive_scan  cub::BlockScan InclusiveSum / InclusiveScan /
//     (arrays, init, block aggregate)           ExclusiveScan (arrays, init, block_aggregate)
//   tilekit::histogram_init / histogram /     cub::BlockHistogram<uint8, Threads, K, 256>,
//     histogram_merge (shared counters)         BLOCK_HISTO_SORT and BLOCK_HISTO_ATOMIC
//   tilekit::flag_heads / flag_heads_after    cub::BlockDiscontinuity::FlagHeads (with and
//                                               without tile_predecessor_item)
// over blocks of 32, 64, 96, 128, 256, 512, 1024 threads and two sizes that are not a
// multiple of 32 (100, 1000), 1, 4 and 7 items per thread, int / unsigned / float,
// several blocks per launch. CUB's reduce result is valid in thread 0 only; tilekit's
// must equal it in every thread (documented: results in all threads). CUB's scan
// block_aggregate is documented valid in every thread, so it is compared per thread.
// Integers must agree exactly; float sums within rounding (the libraries combine in
// other orders); minimum / maximum exactly. CUB is also checked against a sequential
// CPU reference, so a failure says which side disagrees with the arithmetic.
#include "../common/gpu_backend.cuh"
#include "../cases/tile_common.hpp"

#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <tuple>
#include <type_traits>

namespace {

using tk_test::base_seed;
using tk_test::show;

constexpr unsigned blocks = 24;

// Counts mismatches; the message is built (and reported) only for the first few.
struct lazy_log {
  unsigned count = 0;
  template <class Describe>
  void check(bool ok, Describe&& describe) {
    if (!ok && ++count <= 5) BOOST_ERROR(describe());
  }
};

template <class T>
constexpr std::uint64_t type_salt() {
  return sizeof(T) + (std::is_floating_point_v<T> ? 16 : 0) + (std::is_signed_v<T> ? 32 : 0);
}

/// valid_items of each block: edges first (one item, warp edges, one thread short of
/// the block, exactly full, past the end), then random counts in [1, items].
std::vector<unsigned> valid_counts(unsigned threads, unsigned items, std::mt19937_64& g) {
  const unsigned edges[] = {1, 2, 31, 32, 33, threads - 1, threads, threads + 1, items / 2, items - 1, items, items + 7};
  std::vector<unsigned> v;
  for (unsigned b = 0; b < blocks; ++b) {
    const unsigned e = b < std::size(edges) ? edges[b] : 1 + unsigned(g() % items);
    v.push_back(std::max(1u, e));
  }
  return v;
}

// ================================================================ reduce and scan

enum op_index { op_plus, op_max, op_min, op_count };
const char* const op_names[op_count] = {"plus", "maximum", "minimum"};

/// Output slots of one thread for one operator (K items per thread).
struct rs_layout {
  static constexpr int tk_reduce = 0;     // tilekit::reduce, every thread
  static constexpr int cub_reduce = 1;    // cub::BlockReduce, thread 0
  static constexpr int tk_partial = 2;    // tilekit::reduce(valid_items), every thread
  static constexpr int cub_partial = 3;   // cub::BlockReduce num_valid (K = 1) or identity-padded (K > 1), thread 0
  static constexpr int tk_incl_agg = 4;   // inclusive_scan's returned block aggregate
  static constexpr int cub_incl_agg = 5;  // InclusiveSum / InclusiveScan block_aggregate
  static constexpr int tk_excl_agg = 6;
  static constexpr int cub_excl_agg = 7;
  static constexpr int tk_incl = 8;  // K items each from here
  int cub_incl, tk_excl, cub_excl;
  int per_op;  // slots of one operator
  int slots;   // per thread
  __host__ __device__ constexpr explicit rs_layout(int K)
      : cub_incl(8 + K), tk_excl(8 + 2 * K), cub_excl(8 + 3 * K), per_op(8 + 4 * K), slots(op_count * (8 + 4 * K)) {}
};

template <class T>
struct rs_params {
  T init[op_count];  // exclusive scan seed of each operator
  T poison;          // register arrays start as this before each call
};

template <class T, unsigned Threads>
union rs_storage {
  tilekit::reduce_storage<T, Threads> tk_reduce;
  tilekit::scan_storage<T, Threads> tk_scan;
  typename cub::BlockReduce<T, Threads>::TempStorage cub_reduce;
  typename cub::BlockScan<T, Threads>::TempStorage cub_scan;
};

// One operator: every collective of both libraries, the shared storage reused back to
// back (one __syncthreads between calls).
template <unsigned Threads, int K, class T, class Block, class TkOp, class CubOp>
__device__ void reduce_scan_one_op(const Block& block, T (&items)[K], TkOp tk_op, CubOp cub_op, const T& init,
                                   unsigned valid, const T& poison, rs_storage<T, Threads>& s, T* o) {
  constexpr rs_layout L(K);
  using cub_reduce = cub::BlockReduce<T, Threads>;
  using cub_scan = cub::BlockScan<T, Threads>;
  constexpr bool is_sum = std::is_same_v<TkOp, tilekit::plus>;
  const unsigned rank = threadIdx.x;

  // ---- reduce, every item
  o[L.tk_reduce] = tilekit::reduce(block, items, tk_op, s.tk_reduce);  // array form (K = 1 too)
  __syncthreads();
  T cub_total;
  if constexpr (is_sum) cub_total = cub_reduce(s.cub_reduce).Sum(items);
  else cub_total = cub_reduce(s.cub_reduce).Reduce(items, cub_op);
  if (rank == 0) o[L.cub_reduce] = cub_total;
  __syncthreads();

  // ---- reduce, the first `valid` items
  T cub_part;
  if constexpr (K == 1) {
    // CUB's num_valid form takes one item per thread: compare with tilekit's scalar form.
    o[L.tk_partial] = tilekit::reduce(block, items[0], tk_op, s.tk_reduce, valid);
    __syncthreads();
    // CUB's contract: num_valid <= Threads (past it, a partial last warp reads lanes that
    // do not exist); tilekit's valid_items may run past the block (= every item).
    const int num_valid = int(valid < Threads ? valid : Threads);
    if constexpr (is_sum) cub_part = cub_reduce(s.cub_reduce).Sum(items[0], num_valid);
    else cub_part = cub_reduce(s.cub_reduce).Reduce(items[0], cub_op, num_valid);
  } else {
    // K items per thread: CUB has no num_valid form; give it the items past valid as the identity.
    o[L.tk_partial] = tilekit::reduce(block, items, tk_op, s.tk_reduce, valid);
    __syncthreads();
    T padded[K];
    for (int k = 0; k < K; ++k) padded[k] = rank * unsigned(K) + unsigned(k) < valid ? items[k] : tilekit::identity<T>(tk_op);
    if constexpr (is_sum) cub_part = cub_reduce(s.cub_reduce).Sum(padded);
    else cub_part = cub_reduce(s.cub_reduce).Reduce(padded, cub_op);
  }
  if (rank == 0) o[L.cub_partial] = cub_part;
  __syncthreads();

  // ---- inclusive scan (separate output array)
  T out[K];
  for (int k = 0; k < K; ++k) out[k] = poison;
  o[L.tk_incl_agg] = tilekit::inclusive_scan(block, items, out, tk_op, s.tk_scan);
  for (int k = 0; k < K; ++k) o[L.tk_incl + k] = out[k];
  __syncthreads();
  for (int k = 0; k < K; ++k) out[k] = poison;
  T aggregate = poison;
  if constexpr (is_sum) cub_scan(s.cub_scan).InclusiveSum(items, out, aggregate);
  else cub_scan(s.cub_scan).InclusiveScan(items, out, cub_op, aggregate);
  o[L.cub_incl_agg] = aggregate;
  for (int k = 0; k < K; ++k) o[L.cub_incl + k] = out[k];
  __syncthreads();

  // ---- exclusive scan with init (tilekit in place: in and out the same array)
  for (int k = 0; k < K; ++k) out[k] = items[k];
  o[L.tk_excl_agg] = tilekit::exclusive_scan(block, out, out, tk_op, init, s.tk_scan);
  for (int k = 0; k < K; ++k) o[L.tk_excl + k] = out[k];
  __syncthreads();
  for (int k = 0; k < K; ++k) out[k] = poison;
  aggregate = poison;
  cub_scan(s.cub_scan).ExclusiveScan(items, out, init, cub_op, aggregate);
  o[L.cub_excl_agg] = aggregate;
  for (int k = 0; k < K; ++k) o[L.cub_excl + k] = out[k];
}

template <unsigned Threads, int K, class T>
__global__ void __launch_bounds__(Threads)
    reduce_scan_kernel(const T* in, const unsigned* valid, rs_params<T> p, T* out) {
  constexpr rs_layout L(K);
  __shared__ rs_storage<T, Threads> storage;
  auto block = tilekit::this_block<Threads>();
  const std::size_t t = std::size_t(blockIdx.x) * Threads + threadIdx.x;
  T items[K];
  for (int k = 0; k < K; ++k) items[k] = in[t * K + k];
  T* o = out + t * L.slots;
  const unsigned v = valid[blockIdx.x];
  reduce_scan_one_op<Threads>(block, items, tilekit::plus{}, ::cuda::std::plus<>{}, p.init[op_plus], v, p.poison,
                              storage, o + op_plus * L.per_op);
  __syncthreads();
  reduce_scan_one_op<Threads>(block, items, tilekit::maximum{}, ::cuda::maximum<>{}, p.init[op_max], v, p.poison,
                              storage, o + op_max * L.per_op);
  __syncthreads();
  reduce_scan_one_op<Threads>(block, items, tilekit::minimum{}, ::cuda::minimum<>{}, p.init[op_min], v, p.poison,
                              storage, o + op_min * L.per_op);
}

/// Host arithmetic: the type itself for integers (unsigned wraps, int data stays far
/// from overflow), double for float.
template <class T>
using ref_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <class R>
R host_op(int op, R a, R b) {
  switch (op) {
    case op_plus: return static_cast<R>(a + b);
    case op_max: return a < b ? b : a;
    default: return b < a ? b : a;
  }
}

/// Integers exactly; floats exactly (exact) or within rounding of a sum of magnitude `scale`.
template <class A, class B>
bool agree(const A& got, const B& want, double scale, bool exact) {
  if constexpr (std::is_floating_point_v<A>) {
    const double x = double(got), y = double(want);
    if (exact) return x == y;
    return std::fabs(x - y) <= 2e-5 * scale + 1e-3;
  } else {
    return got == static_cast<A>(want);
  }
}

template <class T>
std::vector<T> reduce_scan_data(std::size_t n, std::mt19937_64& g) {
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_floating_point_v<T>) x = tk_test::random_value<T>(g);                     // [-1000, 1000]
    else if constexpr (std::is_signed_v<T>) x = static_cast<T>(std::int64_t(g() % 200001) - 100000);  // sums < 2^31
    else x = static_cast<T>(g());                                                                    // sums wrap
  }
  return v;
}

template <unsigned Threads, int K, class T>
void launch_reduce_scan(const T* in, const unsigned* valid, rs_params<T> p, T* out) {
  reduce_scan_kernel<Threads, K, T><<<blocks, Threads>>>(in, valid, p, out);
}

// The host side takes the shape at run time: one instantiation per type, not per shape.
template <class T>
void check_reduce_scan(unsigned threads, int K, void (*launch)(const T*, const unsigned*, rs_params<T>, T*)) {
  using R = ref_t<T>;
  const rs_layout L(K);
  const unsigned n = threads * unsigned(K);  // items per block
  auto g = tk_test::rng_for(0xB10C'0000ull + threads * 64 + K * 8 + type_salt<T>());
  const std::vector<T> in = reduce_scan_data<T>(std::size_t(blocks) * n, g);
  const std::vector<unsigned> valid = valid_counts(threads, n, g);
  rs_params<T> p;
  const std::vector<T> inits = reduce_scan_data<T>(op_count, g);
  for (int op = 0; op < op_count; ++op) p.init[op] = inits[op];
  p.poison = tk_test::poison<T>();

  tk_test::device_buffer<T> d_in(in), d_out(std::size_t(blocks) * threads * L.slots, tk_test::poison<T>());
  tk_test::device_buffer<unsigned> d_valid(valid);
  launch(d_in.data(), d_valid.data(), p, d_out.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> out = d_out.to_host();

  BOOST_TEST_CONTEXT("block<" << threads << "> K=" << K << " " << tk_test::type_name<T>()
                              << " reduce/scan vs cub::BlockReduce/BlockScan, TILEKIT_TEST_SEED=" << base_seed()) {
    lazy_log log;
    std::vector<R> inc(n), exc(n);
    std::vector<double> inc_scale(n), exc_scale(n);
    for (unsigned b = 0; b < blocks; ++b) {
      const T* x = in.data() + std::size_t(b) * n;
      const unsigned nv = std::min(valid[b], n);
      for (int op = 0; op < op_count; ++op) {
        const bool exact = op != op_plus;
        const char* name = op_names[op];
        // Sequential references.
        const R init = R(p.init[op]);
        R run_inc = R(x[0]), run_exc = init;
        double abs_inc = 0, abs_exc = std::fabs(double(init));
        R partial = R(x[0]);
        double partial_scale = 0;
        for (unsigned i = 0; i < n; ++i) {
          if (i > 0) run_inc = host_op(op, run_inc, R(x[i]));
          abs_inc += std::fabs(double(x[i]));
          inc[i] = run_inc;
          inc_scale[i] = abs_inc;
          exc[i] = run_exc;
          exc_scale[i] = abs_exc;
          run_exc = host_op(op, run_exc, R(x[i]));
          abs_exc += std::fabs(double(x[i]));
          if (i < nv) {
            if (i > 0) partial = host_op(op, partial, R(x[i]));
            partial_scale += std::fabs(double(x[i]));
          }
        }
        const R total = inc[n - 1];
        const double total_scale = inc_scale[n - 1];

        const T* o0 = out.data() + (std::size_t(b) * threads) * L.slots + op * L.per_op;  // thread 0
        log.check(agree(o0[L.cub_reduce], total, total_scale, exact), [&] {
          return "block " + std::to_string(b) + ": cub::BlockReduce(" + name + ") = " + show(o0[L.cub_reduce]) +
                 ", sequential reference = " + show(total) + " (CUB or the test is off)";
        });
        log.check(agree(o0[L.cub_partial], partial, partial_scale, exact), [&] {
          return "block " + std::to_string(b) + " valid_items " + std::to_string(valid[b]) + ": cub::BlockReduce(" +
                 name + ", num_valid) = " + show(o0[L.cub_partial]) + ", sequential reference = " + show(partial);
        });
        for (unsigned r = 0; r < threads; ++r) {
          const T* o = out.data() + (std::size_t(b) * threads + r) * L.slots + op * L.per_op;
          const auto at = [&](int k = -1) {
            return std::string("block ") + std::to_string(b) + " thread " + std::to_string(r) +
                   (k >= 0 ? " item " + std::to_string(k) : std::string()) + " (" + name + ")";
          };
          log.check(agree(o[L.tk_reduce], o0[L.cub_reduce], 2 * total_scale, exact), [&] {
            return at() + ": tilekit::reduce = " + show(o[L.tk_reduce]) + ", cub::BlockReduce (thread 0) = " +
                   show(o0[L.cub_reduce]);
          });
          log.check(agree(o[L.tk_partial], o0[L.cub_partial], 2 * partial_scale, exact), [&] {
            return at() + " valid_items " + std::to_string(valid[b]) + ": tilekit::reduce = " +
                   show(o[L.tk_partial]) + ", cub::BlockReduce (thread 0) = " + show(o0[L.cub_partial]);
          });
          log.check(agree(o[L.tk_incl_agg], o[L.cub_incl_agg], 2 * total_scale, exact), [&] {
            return at() + ": tilekit::inclusive_scan aggregate = " + show(o[L.tk_incl_agg]) +
                   ", cub block_aggregate = " + show(o[L.cub_incl_agg]);
          });
          log.check(agree(o[L.cub_incl_agg], total, total_scale, exact), [&] {
            return at() + ": cub inclusive block_aggregate = " + show(o[L.cub_incl_agg]) +
                   ", sequential reference = " + show(total);
          });
          log.check(agree(o[L.tk_excl_agg], o[L.cub_excl_agg], 2 * total_scale, exact), [&] {
            return at() + ": tilekit::exclusive_scan aggregate = " + show(o[L.tk_excl_agg]) +
                   ", cub block_aggregate = " + show(o[L.cub_excl_agg]);
          });
          log.check(agree(o[L.cub_excl_agg], total, total_scale, exact), [&] {
            return at() + ": cub exclusive block_aggregate = " + show(o[L.cub_excl_agg]) +
                   ", sequential reference = " + show(total);
          });
          for (int k = 0; k < K; ++k) {
            const unsigned i = r * unsigned(K) + unsigned(k);
            log.check(agree(o[L.tk_incl + k], o[L.cub_incl + k], 2 * inc_scale[i], exact), [&] {
              return at(k) + ": tilekit::inclusive_scan = " + show(o[L.tk_incl + k]) + ", cub = " +
                     show(o[L.cub_incl + k]);
            });
            log.check(agree(o[L.cub_incl + k], inc[i], inc_scale[i], exact), [&] {
              return at(k) + ": cub inclusive scan = " + show(o[L.cub_incl + k]) + ", sequential reference = " +
                     show(inc[i]);
            });
            log.check(agree(o[L.tk_excl + k], o[L.cub_excl + k], 2 * exc_scale[i], exact), [&] {
              return at(k) + ": tilekit::exclusive_scan(init " + show(p.init[op]) + ") = " + show(o[L.tk_excl + k]) +
                     ", cub = " + show(o[L.cub_excl + k]);
            });
            log.check(agree(o[L.cub_excl + k], exc[i], exc_scale[i], exact), [&] {
              return at(k) + ": cub exclusive scan = " + show(o[L.cub_excl + k]) + ", sequential reference = " +
                     show(exc[i]);
            });
          }
        }
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ================================================================ histogram

constexpr unsigned bins = 256;

// Per block: tilekit counters, CUB sort counters, CUB atomic counters (bins each).
template <unsigned Threads, int K>
__global__ void __launch_bounds__(Threads) histogram_kernel(const unsigned char* in, unsigned* out, unsigned* merged) {
  using sort_histogram = cub::BlockHistogram<unsigned char, Threads, K, bins, cub::BLOCK_HISTO_SORT>;
  using atomic_histogram = cub::BlockHistogram<unsigned char, Threads, K, bins, cub::BLOCK_HISTO_ATOMIC>;
  __shared__ tilekit::histogram_storage<unsigned, bins> tk;
  __shared__ unsigned cub_sort_counts[bins];
  __shared__ unsigned cub_atomic_counts[bins];
  __shared__ union {
    typename sort_histogram::TempStorage sort;
    typename atomic_histogram::TempStorage atomic;
  } temp;
  auto block = tilekit::this_block<Threads>();
  const std::size_t t = std::size_t(blockIdx.x) * Threads + threadIdx.x;
  unsigned char items[K];
  for (int k = 0; k < K; ++k) items[k] = in[t * K + k];

  tilekit::histogram_init(block, tk.counters, bins);
  tilekit::histogram(block, items, tk.counters);
  sort_histogram(temp.sort).Histogram(items, cub_sort_counts);
  __syncthreads();
  atomic_histogram(temp.atomic).Histogram(items, cub_atomic_counts);
  __syncthreads();
  unsigned* o = out + std::size_t(blockIdx.x) * 3 * bins;
  for (unsigned i = threadIdx.x; i < bins; i += Threads) {
    o[i] = tk.counters[i];
    o[bins + i] = cub_sort_counts[i];
    o[2 * bins + i] = cub_atomic_counts[i];
  }
  tilekit::histogram_merge(block, tk.counters, merged, bins);  // every block into one global histogram
}

template <unsigned Threads, int K>
void launch_histogram(const unsigned char* in, unsigned* out, unsigned* merged) {
  histogram_kernel<Threads, K><<<blocks, Threads>>>(in, out, merged);
}

void check_histogram(unsigned threads, int K, void (*launch)(const unsigned char*, unsigned*, unsigned*),
                     tk_test::bin_pattern pattern) {
  const unsigned n = threads * unsigned(K);
  auto g = tk_test::rng_for(0x4157'0000ull + threads * 64 + K * 8 + unsigned(pattern));
  const std::vector<unsigned char> in = tk_test::block_histogram_samples(blocks, n, pattern, g);
  tk_test::device_buffer<unsigned char> d_in(in);
  tk_test::device_buffer<unsigned> d_out(std::size_t(blocks) * 3 * bins, tk_test::poison<unsigned>());
  tk_test::device_buffer<unsigned> d_merged(bins, 0u);  // histogram_merge adds: starts at zero, not poison
  launch(d_in.data(), d_out.data(), d_merged.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned> out = d_out.to_host(), merged = d_merged.to_host();

  BOOST_TEST_CONTEXT("block<" << threads << "> K=" << K << " histogram " << tk_test::name(pattern)
                              << " vs cub::BlockHistogram, TILEKIT_TEST_SEED=" << base_seed()) {
    lazy_log log;
    std::vector<unsigned> total(bins, 0);
    for (unsigned b = 0; b < blocks; ++b) {
      std::vector<unsigned> ref(bins, 0);
      for (unsigned i = 0; i < n; ++i) ++ref[in[std::size_t(b) * n + i]];
      const unsigned* o = out.data() + std::size_t(b) * 3 * bins;
      for (unsigned i = 0; i < bins; ++i) {
        total[i] += ref[i];
        const auto at = [&] { return "block " + std::to_string(b) + " bin " + std::to_string(i); };
        log.check(o[i] == o[bins + i], [&] {
          return at() + ": tilekit::histogram = " + show(o[i]) + ", BLOCK_HISTO_SORT = " + show(o[bins + i]);
        });
        log.check(o[i] == o[2 * bins + i], [&] {
          return at() + ": tilekit::histogram = " + show(o[i]) + ", BLOCK_HISTO_ATOMIC = " + show(o[2 * bins + i]);
        });
        log.check(o[bins + i] == ref[i], [&] {
          return at() + ": BLOCK_HISTO_SORT = " + show(o[bins + i]) + ", sequential count = " + show(ref[i]);
        });
      }
    }
    for (unsigned i = 0; i < bins; ++i)
      log.check(merged[i] == total[i], [&] {
        return "bin " + std::to_string(i) + ": tilekit::histogram_merge over " + std::to_string(blocks) +
               " blocks = " + show(merged[i]) + ", sum of the blocks' counts = " + show(total[i]);
      });
    BOOST_TEST(log.count == 0u);
  }
}

// ================================================================ flag_heads

// Per thread, K flags each: tilekit flag_heads, flag_heads_after(predecessor),
// flag_heads(valid_items), CUB FlagHeads, CUB FlagHeads(tile_predecessor_item).
constexpr int head_outputs = 5;

template <class T, unsigned Threads>
union heads_storage {
  tilekit::flag_heads_storage<T, Threads> tk;
  typename cub::BlockDiscontinuity<T, Threads>::TempStorage cub;
};

template <unsigned Threads, int K, class T>
__global__ void __launch_bounds__(Threads)
    flag_heads_kernel(const T* keys, const T* predecessors, const unsigned* valid, unsigned char* out) {
  using discontinuity = cub::BlockDiscontinuity<T, Threads>;
  __shared__ heads_storage<T, Threads> storage;
  auto block = tilekit::this_block<Threads>();
  const std::size_t t = std::size_t(blockIdx.x) * Threads + threadIdx.x;
  T items[K];
  for (int k = 0; k < K; ++k) items[k] = keys[t * K + k];
  const T predecessor = predecessors[blockIdx.x];
  unsigned char* o = out + t * head_outputs * K;
  bool heads[K];
  int cub_heads[K];

  tilekit::flag_heads(block, items, heads, storage.tk);
  for (int k = 0; k < K; ++k) o[0 * K + k] = heads[k] ? 1 : 0;
  __syncthreads();
  tilekit::flag_heads_after(block, predecessor, items, heads, storage.tk);
  for (int k = 0; k < K; ++k) o[1 * K + k] = heads[k] ? 1 : 0;
  __syncthreads();
  tilekit::flag_heads(block, items, heads, storage.tk, tilekit::equal_to{}, valid[blockIdx.x]);
  for (int k = 0; k < K; ++k) o[2 * K + k] = heads[k] ? 1 : 0;
  __syncthreads();
  for (int k = 0; k < K; ++k) cub_heads[k] = 7;
  discontinuity(storage.cub).FlagHeads(cub_heads, items, ::cuda::std::not_equal_to<>{});
  for (int k = 0; k < K; ++k) o[3 * K + k] = static_cast<unsigned char>(cub_heads[k]);
  __syncthreads();
  for (int k = 0; k < K; ++k) cub_heads[k] = 7;
  discontinuity(storage.cub).FlagHeads(cub_heads, items, ::cuda::std::not_equal_to<>{}, predecessor);
  for (int k = 0; k < K; ++k) o[4 * K + k] = static_cast<unsigned char>(cub_heads[k]);
}

enum class run_pattern { all_equal, all_distinct, random_runs, across_threads, across_warps, few_values, count };
const char* name(run_pattern p) {
  const char* names[] = {"all equal",
                         "all distinct",
                         "random runs (1 .. 3 warps of items)",
                         "runs of K+1 items (every run crosses a thread boundary)",
                         "runs of 32K+1 items from mid-warp (every run crosses a warp boundary)",
                         "two values at random (float: +0.0, -0.0, NaN, 1)"};
  return names[int(p)];
}

template <class T>
std::vector<T> run_keys(run_pattern p, int K, std::size_t n, std::mt19937_64& g) {
  std::vector<T> v(n);
  const std::size_t warp_items = 32 * std::size_t(K);
  std::size_t left = 0;
  long long value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    switch (p) {
      case run_pattern::all_equal: v[i] = T(5); break;
      case run_pattern::all_distinct: v[i] = T(i); break;
      case run_pattern::random_runs:
        if (left == 0) {
          left = g() % 2 ? 1 + g() % (2 * K) : 1 + g() % (3 * warp_items);
          value += 1 + static_cast<long long>(g() % 3);
        }
        --left;
        v[i] = T(value);
        break;
      case run_pattern::across_threads: v[i] = T((i + 1) / (K + 1)); break;
      case run_pattern::across_warps: v[i] = T((i + warp_items / 2 + 1) / (warp_items + 1)); break;
      case run_pattern::few_values:
        if constexpr (std::is_floating_point_v<T>) {
          const T specials[] = {T(0), -T(0), std::numeric_limits<T>::quiet_NaN(), T(1)};
          v[i] = specials[g() % 4];
        } else {
          v[i] = T(g() % 2);
        }
        break;
      case run_pattern::count: break;
    }
  }
  return v;
}

template <unsigned Threads, int K, class T>
void launch_flag_heads(const T* keys, const T* predecessors, const unsigned* valid, unsigned char* out) {
  flag_heads_kernel<Threads, K, T><<<blocks, Threads>>>(keys, predecessors, valid, out);
}

template <class T>
void check_flag_heads(unsigned threads, int K, void (*launch)(const T*, const T*, const unsigned*, unsigned char*),
                      run_pattern pattern) {
  const unsigned n = threads * unsigned(K);
  auto g = tk_test::rng_for(0x4EAD'0000ull + threads * 64 + K * 8 + type_salt<T>() * 1024 + unsigned(pattern));
  const std::vector<T> keys = run_keys<T>(pattern, K, std::size_t(blocks) * n, g);
  // The previous tile's last key; block 0 gets its own first key (equal: no head there, unless NaN).
  std::vector<T> predecessors(blocks);
  for (unsigned b = 0; b < blocks; ++b) predecessors[b] = b == 0 ? keys[0] : keys[std::size_t(b) * n - 1];
  const std::vector<unsigned> valid = valid_counts(threads, n, g);

  tk_test::device_buffer<T> d_keys(keys), d_predecessors(predecessors);
  tk_test::device_buffer<unsigned> d_valid(valid);
  tk_test::device_buffer<unsigned char> d_out(std::size_t(blocks) * n * head_outputs, tk_test::poison<unsigned char>());
  launch(d_keys.data(), d_predecessors.data(), d_valid.data(), d_out.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned char> out = d_out.to_host();

  BOOST_TEST_CONTEXT("block<" << threads << "> K=" << K << " " << tk_test::type_name<T>() << " flag_heads, keys "
                              << name(pattern) << ", vs cub::BlockDiscontinuity, TILEKIT_TEST_SEED=" << base_seed()) {
    lazy_log log;
    for (unsigned b = 0; b < blocks; ++b) {
      const T* x = keys.data() + std::size_t(b) * n;
      for (unsigned r = 0; r < threads; ++r) {
        const unsigned char* o = out.data() + (std::size_t(b) * threads + r) * head_outputs * K;
        for (int k = 0; k < K; ++k) {
          const unsigned i = r * unsigned(K) + unsigned(k);
          // CUB's flag_op is not_equal_to; tilekit's default is !(a == b): the same for NaN too.
          const int ref = i == 0 ? 1 : x[i - 1] != x[i];
          const int ref_after = i == 0 ? predecessors[b] != x[0] : ref;
          const int tk = o[0 * K + k], tk_after = o[1 * K + k], tk_valid = o[2 * K + k];
          const int cub = o[3 * K + k], cub_after = o[4 * K + k];
          const auto at = [&] {
            return "block " + std::to_string(b) + " thread " + std::to_string(r) + " item " + std::to_string(k) +
                   " (keys " + show(i > 0 ? x[i - 1] : predecessors[b]) + ", " + show(x[i]) + ")";
          };
          log.check(tk == cub, [&] {
            return at() + ": tilekit::flag_heads = " + std::to_string(tk) + ", cub FlagHeads = " + std::to_string(cub);
          });
          log.check(tk_after == cub_after, [&] {
            return at() + ": tilekit::flag_heads_after = " + std::to_string(tk_after) +
                   ", cub FlagHeads(tile_predecessor_item) = " + std::to_string(cub_after);
          });
          const int want_valid = i < valid[b] ? cub : 0;
          log.check(tk_valid == want_valid, [&] {
            return at() + " valid_items " + std::to_string(valid[b]) + ": tilekit::flag_heads = " +
                   std::to_string(tk_valid) + ", want " + std::to_string(want_valid) + " (cub's flag, 0 past valid_items)";
          });
          log.check(cub == ref && cub_after == ref_after, [&] {
            return at() + ": cub FlagHeads = " + std::to_string(cub) + " / " + std::to_string(cub_after) +
                   " (with predecessor), sequential reference = " + std::to_string(ref) + " / " + std::to_string(ref_after);
          });
        }
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// Block sizes: powers of two, 96, and two that are not a multiple of 32.
template <class F>
void for_each_block_shape(F&& f) {
  tk_test::for_each_size<32, 64, 96, 128, 256, 512, 1024, 100, 1000>([&](auto threads) {
    tk_test::for_each_size<1, 4, 7>([&](auto k) { f(threads, k); });
  });
}

}  // namespace

using block_cub_types = std::tuple<std::int32_t, std::uint32_t, float>;

BOOST_AUTO_TEST_CASE_TEMPLATE(block_reduce_and_scan_match_cub, T, block_cub_types) {
  for_each_block_shape([](auto threads, auto k) {
    constexpr unsigned Threads = decltype(threads)::value;
    constexpr int K = int(decltype(k)::value);
    check_reduce_scan<T>(Threads, K, &launch_reduce_scan<Threads, K, T>);
  });
}

BOOST_AUTO_TEST_CASE(block_histogram_matches_cub) {
  for_each_block_shape([](auto threads, auto k) {
    constexpr unsigned Threads = decltype(threads)::value;
    constexpr int K = int(decltype(k)::value);
    for (auto p : {tk_test::bin_pattern::uniform, tk_test::bin_pattern::one_bin, tk_test::bin_pattern::skewed})
      check_histogram(Threads, K, &launch_histogram<Threads, K>, p);
  });
}

BOOST_AUTO_TEST_CASE_TEMPLATE(block_flag_heads_match_cub, T, block_cub_types) {
  for_each_block_shape([](auto threads, auto k) {
    constexpr unsigned Threads = decltype(threads)::value;
    constexpr int K = int(decltype(k)::value);
    for (int p = 0; p < int(run_pattern::count); ++p)
      check_flag_heads<T>(Threads, K, &launch_flag_heads<Threads, K, T>, run_pattern(p));
  });
}
