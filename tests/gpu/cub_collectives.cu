// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The CUB facade's collectives (tilekit/cub/{warp,block}_*.cuh) against CUB itself
// on the GPU. Each kernel runs the same code, templated on the class, once through
// ::cub::X and once through tilekit::cub::X, on the same inputs in the same threads;
// the host compares both with a sequential reference (so a failure says which side
// is off, and where CUB defines a result the two must agree):
//   WarpReduce<int | float, 32 | 16 | 8>   Sum, Sum(valid_items), Reduce(op[, valid_items])
//       with a custom max functor and cuda::maximum<>, Head/TailSegmentedSum/Reduce
//   WarpScan<int | float, 32 | 16 | 8>     every InclusiveSum / ExclusiveSum / InclusiveScan /
//       ExclusiveScan form (aggregates, initial values, none), Scan, Broadcast
//   BlockReduce, BlockScan<int | float; 32, 128, 100 (a partial warp), 16 x 8 threads;
//       1 and 4 items per thread>: every form (num_valid partial tiles, arrays in place,
//       the default constructor's private storage); the scan variants raking (ints),
//       warp_scans (floats) and raking_memoize; the prefix-callback forms chained over
//       several tiles per block
//   BlockHistogram<uchar, same shapes, 256 bins>: Histogram, InitHistogram + Composite
//       twice, Composite into global counters, under BLOCK_HISTO_SORT and _ATOMIC;
//       uniform, one-bin and skewed samples
// and two programs written for CUB (cub_collectives_program.cuh: collectives in kernels;
// cub_device_program.cuh: BlockLoad / BlockScan / BlockStore, UniqueByKey, ReduceByKey,
// DeviceSegmentedReduce::Sum, an in-place InclusiveSum, MultiHistogramEven) compiled once
// against ::cub and once against tilekit::cub, run on the same data, outputs compared.
//
// Data are exact in both types (ints in [-1000, 1000], floats in quarter steps in
// [-100, 100]: every partial sum is representable), so results agree exactly whatever
// order a library combines in; floats compare by value. Where CUB leaves a result
// undefined (reduce results outside lane / thread 0, segmented results outside
// segment heads, lane / thread 0's exclusive output without an initial value), CUB is
// not checked; tilekit is, against what it documents (every lane / thread gets the
// reduction and its segment's total; lane / thread 0 gets its input).
// Outputs start poisoned (buffers and registers), so an output never written fails.
#include "../common/gpu_backend.cuh"
#include "../cases/tile_common.hpp"

#include <tilekit/cub.cuh>

#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_reduce.cuh>
#include <cub/device/device_select.cuh>
#include <cuda/std/array>
#include <cuda/functional>
#include <cuda/std/functional>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

// ---- the same CUB program twice: `cub` is ::cub, then tilekit::cub
namespace with_cub {
namespace cub = ::cub;
#include "cub_collectives_program.cuh"
#include "cub_device_program.cuh"
}  // namespace with_cub
namespace with_tilekit {
namespace cub = ::tilekit::cub;
#include "cub_collectives_program.cuh"
#include "cub_device_program.cuh"
}  // namespace with_tilekit

namespace {

using tk_test::base_seed;
using tk_test::custom_max;
using tk_test::show;

// Counts mismatches; the message is built (and reported) only for the first few.
struct lazy_log {
  unsigned count = 0;
  template <class Describe>
  void check(bool ok, Describe&& describe) {
    if (!ok && ++count <= 5) BOOST_ERROR(describe());
  }
};

/// Values whose sums stay exact in T: ints in [-1000, 1000], floats k / 4 in [-100, 100].
template <class T>
T exact_value(std::mt19937_64& g) {
  if constexpr (std::is_floating_point_v<T>) return T(int(g() % 801) - 400) / T(4);
  else return T(int(g() % 2001) - 1000);
}
template <class T>
std::vector<T> exact_values(std::size_t n, std::mt19937_64& g) {
  std::vector<T> v(n);
  for (auto& x : v) x = exact_value<T>(g);
  return v;
}

template <class T>
T host_max(const T& a, const T& b) { return a < b ? b : a; }

 // One output of each library against the reference; CUB's only where it defines one.
// `what` names the call and the place (a callable: built only for a reported mismatch).
template <class T, class What>
void expect_pair(lazy_log& log, const T& cub, const T& tk, const T& want, bool cub_defined, What&& what) {
  log.check(tk == want && (!cub_defined || cub == want), [&] {
    return what() + ": tilekit::cub = " + show(tk) + ", cub = " + (cub_defined ? show(cub) : std::string("(undefined)")) +
           ", reference = " + show(want);
  });
}

template <class T>
std::string type_label() { return std::is_floating_point_v<T> ? "float" : "int"; }

// ================================================================ WarpReduce, WarpScan

constexpr unsigned warp_block = 128;  // threads per block in the warp tests
constexpr unsigned warp_blocks = 6;

enum warp_reduce_slot {
  wr_sum, wr_sum_valid, wr_max, wr_max_valid, wr_builtin_max, wr_builtin_max_valid,
  wr_head_sum, wr_tail_sum, wr_head_max, wr_tail_max, wr_slots
};
enum warp_scan_slot {
  ws_incl_sum, ws_incl_sum2, ws_incl_sum_agg, ws_excl_sum, ws_excl_sum2, ws_excl_sum_agg,
  ws_incl, ws_incl_init, ws_incl2, ws_incl_agg, ws_incl_init2, ws_incl_init_agg,
  ws_excl, ws_excl_init, ws_excl2, ws_excl_agg, ws_excl_init2, ws_excl_init_agg,
  ws_scan_incl, ws_scan_excl, ws_scan_init_incl, ws_scan_init_excl, ws_broadcast, ws_slots
};
constexpr int warp_slots = int(wr_slots) + int(ws_slots);

// Per thread (equal across a logical warp: valid, src, init).
template <class T>
struct warp_inputs {
  const T* x;
  const int* valid;
  const int* head;
  const unsigned char* tail;
  const unsigned* src;
  const T* init;
  T poison;
};

// Every WarpReduce and WarpScan call of one library; o[slot * n] is this thread's output.
template <class WarpReduceT, class WarpScanT, class T>
__device__ void warp_calls(typename WarpReduceT::TempStorage& rs, typename WarpScanT::TempStorage& ss, T x, int valid,
                           int head, bool tail, unsigned src, T init, T poison, T* o, std::size_t n) {
  const custom_max op{};
  o[wr_sum * n] = WarpReduceT(rs).Sum(x);
  __syncwarp();
  o[wr_sum_valid * n] = WarpReduceT(rs).Sum(x, valid);
  __syncwarp();
  o[wr_max * n] = WarpReduceT(rs).Reduce(x, op);
  __syncwarp();
  o[wr_max_valid * n] = WarpReduceT(rs).Reduce(x, op, valid);
  __syncwarp();
  o[wr_builtin_max * n] = WarpReduceT(rs).Reduce(x, ::cuda::maximum<>{});
  __syncwarp();
  o[wr_builtin_max_valid * n] = WarpReduceT(rs).Reduce(x, ::cuda::maximum<>{}, valid);
  __syncwarp();
  o[wr_head_sum * n] = WarpReduceT(rs).HeadSegmentedSum(x, head);
  __syncwarp();
  o[wr_tail_sum * n] = WarpReduceT(rs).TailSegmentedSum(x, tail);
  __syncwarp();
  o[wr_head_max * n] = WarpReduceT(rs).HeadSegmentedReduce(x, head, op);
  __syncwarp();
  o[wr_tail_max * n] = WarpReduceT(rs).TailSegmentedReduce(x, tail, op);
  __syncwarp();

  T* s = o + wr_slots * n;
  T v = poison, a = poison, e = poison;
  WarpScanT(ss).InclusiveSum(x, v);
  s[ws_incl_sum * n] = v;
  __syncwarp();
  v = a = poison;
  WarpScanT(ss).InclusiveSum(x, v, a);
  s[ws_incl_sum2 * n] = v;
  s[ws_incl_sum_agg * n] = a;
  __syncwarp();
  v = poison;
  WarpScanT(ss).ExclusiveSum(x, v);
  s[ws_excl_sum * n] = v;
  __syncwarp();
  v = a = poison;
  WarpScanT(ss).ExclusiveSum(x, v, a);
  s[ws_excl_sum2 * n] = v;
  s[ws_excl_sum_agg * n] = a;
  __syncwarp();
  v = poison;
  WarpScanT(ss).InclusiveScan(x, v, op);
  s[ws_incl * n] = v;
  __syncwarp();
  v = poison;
  WarpScanT(ss).InclusiveScan(x, v, init, op);
  s[ws_incl_init * n] = v;
  __syncwarp();
  v = a = poison;
  WarpScanT(ss).InclusiveScan(x, v, op, a);
  s[ws_incl2 * n] = v;
  s[ws_incl_agg * n] = a;
  __syncwarp();
  v = a = poison;
  WarpScanT(ss).InclusiveScan(x, v, init, op, a);
  s[ws_incl_init2 * n] = v;
  s[ws_incl_init_agg * n] = a;
  __syncwarp();
  v = poison;
  WarpScanT(ss).ExclusiveScan(x, v, op);
  s[ws_excl * n] = v;
  __syncwarp();
  v = poison;
  WarpScanT(ss).ExclusiveScan(x, v, init, op);
  s[ws_excl_init * n] = v;
  __syncwarp();
  v = a = poison;
  WarpScanT(ss).ExclusiveScan(x, v, op, a);
  s[ws_excl2 * n] = v;
  s[ws_excl_agg * n] = a;
  __syncwarp();
  v = a = poison;
  WarpScanT(ss).ExclusiveScan(x, v, init, op, a);
  s[ws_excl_init2 * n] = v;
  s[ws_excl_init_agg * n] = a;
  __syncwarp();
  v = e = poison;
  WarpScanT(ss).Scan(x, v, e, op);
  s[ws_scan_incl * n] = v;
  s[ws_scan_excl * n] = e;
  __syncwarp();
  v = e = poison;
  WarpScanT(ss).Scan(x, v, e, init, op);
  s[ws_scan_init_incl * n] = v;
  s[ws_scan_init_excl * n] = e;
  __syncwarp();
  s[ws_broadcast * n] = WarpScanT(ss).Broadcast(x, src);
}

template <int N, class T>
__global__ void __launch_bounds__(warp_block) warp_kernel(warp_inputs<T> in, T* out) {
  using cub_reduce = ::cub::WarpReduce<T, N>;
  using cub_scan = ::cub::WarpScan<T, N>;
  using tk_reduce = tilekit::cub::WarpReduce<T, N>;
  using tk_scan = tilekit::cub::WarpScan<T, N>;
  __shared__ typename cub_reduce::TempStorage cub_rs[warp_block / N];
  __shared__ typename cub_scan::TempStorage cub_ss[warp_block / N];
  __shared__ typename tk_reduce::TempStorage tk_rs[warp_block / N];
  __shared__ typename tk_scan::TempStorage tk_ss[warp_block / N];
  const std::size_t n = std::size_t(gridDim.x) * warp_block;
  const std::size_t i = std::size_t(blockIdx.x) * warp_block + threadIdx.x;
  const unsigned w = threadIdx.x / N;
  const int valid = in.valid[i];
  // CUB's valid_items is at most the warp size; tilekit's may run past it (= every lane).
  const int cub_valid = valid < N ? valid : N;
  warp_calls<cub_reduce, cub_scan>(cub_rs[w], cub_ss[w], in.x[i], cub_valid, in.head[i], in.tail[i] != 0, in.src[i],
                                   in.init[i], in.poison, out + i, n);
  warp_calls<tk_reduce, tk_scan>(tk_rs[w], tk_ss[w], in.x[i], valid, in.head[i], in.tail[i] != 0, in.src[i], in.init[i],
                                 in.poison, out + warp_slots * n + i, n);
}

template <unsigned N, class T>
void check_warp() {
  const std::size_t n = std::size_t(warp_blocks) * warp_block, warps = n / N;
  auto g = tk_test::rng_for(0xC0B'0000ull + N * 8 + sizeof(T) + (std::is_floating_point_v<T> ? 4 : 0));
  const std::vector<T> x = exact_values<T>(n, g);
  std::vector<int> valid(n), head(n);
  std::vector<unsigned char> tail(n);
  std::vector<unsigned> src(n);
  std::vector<T> init(n);
  for (std::size_t w = 0; w < warps; ++w) {
    // valid_items: edges first (1, N - 1, N, past N), then random in [1, N].
    const int edges[] = {1, int(N) - 1, int(N), int(N) + 5};
    const int v = w < std::size(edges) ? std::max(1, edges[w]) : 1 + int(g() % N);
    // Segment flags: none, every lane, then random with 1 in 4.
    const unsigned pattern = w % 5;
    const unsigned s = unsigned(g() % N);
    const T in0 = exact_value<T>(g);
    for (unsigned l = 0; l < N; ++l) {
      const std::size_t i = w * N + l;
      valid[i] = v;
      head[i] = pattern == 0 ? 0 : pattern == 1 ? 1 : (g() % 4 == 0 ? int(1 + g() % 3) : 0);  // non-zero: a head
      tail[i] = pattern == 0 ? 0 : pattern == 1 ? 1 : (g() % 4 == 0);
      src[i] = s;
      init[i] = in0;
    }
  }
  const T poison = tk_test::poison<T>();
  tk_test::device_buffer<T> d_x(x), d_init(init), d_out(2 * warp_slots * n, poison);
  tk_test::device_buffer<int> d_valid(valid), d_head(head);
  tk_test::device_buffer<unsigned char> d_tail(tail);
  tk_test::device_buffer<unsigned> d_src(src);
  warp_kernel<int(N), T><<<warp_blocks, warp_block>>>(
      warp_inputs<T>{d_x.data(), d_valid.data(), d_head.data(), d_tail.data(), d_src.data(), d_init.data(), poison},
      d_out.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> out = d_out.to_host();

  BOOST_TEST_CONTEXT("WarpReduce / WarpScan<" << type_label<T>() << ", " << N
                                               << ">: tilekit::cub against cub, TILEKIT_TEST_SEED=" << base_seed()) {
    lazy_log log;
    const auto cub_at = [&](int slot, std::size_t i) { return out[slot * n + i]; };
    const auto tk_at = [&](int slot, std::size_t i) { return out[(warp_slots + slot) * n + i]; };
    std::vector<T> incl_sum(N), incl_max(N), head_sum(N), head_max(N), tail_sum(N), tail_max(N);
    for (std::size_t w = 0; w < warps; ++w) {
      const T* xs = x.data() + w * N;
      const std::size_t i0 = w * N;
      const unsigned vc = unsigned(std::min(valid[i0], int(N)));
      const T in0 = init[i0];
      // Sequential references.
      T sum_valid = xs[0], max_valid = xs[0];
      for (unsigned l = 0; l < N; ++l) {
        incl_sum[l] = l ? T(incl_sum[l - 1] + xs[l]) : xs[0];
        incl_max[l] = l ? host_max(incl_max[l - 1], xs[l]) : xs[0];
        if (l > 0 && l < vc) {
          sum_valid = T(sum_valid + xs[l]);
          max_valid = host_max(max_valid, xs[l]);
        }
      }
      // Segment totals: heads from head flags, or after tail flags; lane 0 always starts one.
      const auto segments = [&](bool from_tails, std::vector<T>& sums, std::vector<T>& maxes) {
        std::vector<bool> starts(N);
        for (unsigned l = 0; l < N; ++l)
          starts[l] = l == 0 || (from_tails ? tail[i0 + l - 1] != 0 : head[i0 + l] != 0);
        for (unsigned l = 0; l < N;) {
          unsigned e = l + 1;
          while (e < N && !starts[e]) ++e;
          T s = xs[l], m = xs[l];
          for (unsigned j = l + 1; j < e; ++j) {
            s = T(s + xs[j]);
            m = host_max(m, xs[j]);
          }
          for (unsigned j = l; j < e; ++j) {
            sums[j] = s;
            maxes[j] = m;
          }
          l = e;
        }
        return starts;
      };
      const std::vector<bool> head_starts = segments(false, head_sum, head_max);
      const std::vector<bool> tail_starts = segments(true, tail_sum, tail_max);

      for (unsigned l = 0; l < N; ++l) {
        const std::size_t i = i0 + l;
        const auto at = [&](const char* call) {
          return std::string(call) + " at warp " + std::to_string(w) + " lane " + std::to_string(l) +
                 " (valid_items " + std::to_string(valid[i0]) + ")";
        };
        // Reductions: CUB's result in lane 0, tilekit's in every lane.
        const auto reduced = [&](int slot, const T& want, const char* call) {
          expect_pair(log, cub_at(slot, i0), tk_at(slot, i), want, true, [&] { return at(call); });
        };
        reduced(wr_sum, incl_sum[N - 1], "WarpReduce::Sum");
        reduced(wr_sum_valid, sum_valid, "WarpReduce::Sum(valid_items)");
        reduced(wr_max, incl_max[N - 1], "WarpReduce::Reduce(custom max)");
        reduced(wr_max_valid, max_valid, "WarpReduce::Reduce(custom max, valid_items)");
        reduced(wr_builtin_max, incl_max[N - 1], "WarpReduce::Reduce(cuda::maximum)");
        reduced(wr_builtin_max_valid, max_valid, "WarpReduce::Reduce(cuda::maximum, valid_items)");
        // Segmented: CUB's result in each segment's first lane, tilekit's in every lane.
        const auto segmented = [&](int slot, const T& want, bool head_lane, const char* call) {
          expect_pair(log, cub_at(slot, i), tk_at(slot, i), want, head_lane, [&] { return at(call); });
        };
        segmented(wr_head_sum, head_sum[l], head_starts[l], "HeadSegmentedSum");
        segmented(wr_tail_sum, tail_sum[l], tail_starts[l], "TailSegmentedSum");
        segmented(wr_head_max, head_max[l], head_starts[l], "HeadSegmentedReduce(custom max)");
        segmented(wr_tail_max, tail_max[l], tail_starts[l], "TailSegmentedReduce(custom max)");

        // Scans, lane by lane.
        const int base = wr_slots;
        const auto scanned = [&](int slot, const T& want, bool cub_defined, const char* call) {
          expect_pair(log, cub_at(base + slot, i), tk_at(base + slot, i), want, cub_defined, [&] { return at(call); });
        };
        const T excl_sum = l ? incl_sum[l - 1] : T{};
        const T excl_max = l ? incl_max[l - 1] : xs[0];  // lane 0: undefined in CUB, its input in tilekit
        const T excl_init = l ? host_max(in0, incl_max[l - 1]) : in0;
        const T incl_init = host_max(in0, incl_max[l]);
        scanned(ws_incl_sum, incl_sum[l], true, "WarpScan::InclusiveSum");
        scanned(ws_incl_sum2, incl_sum[l], true, "WarpScan::InclusiveSum(aggregate)");
        scanned(ws_incl_sum_agg, incl_sum[N - 1], true, "WarpScan::InclusiveSum's warp_aggregate");
        scanned(ws_excl_sum, excl_sum, true, "WarpScan::ExclusiveSum");
        scanned(ws_excl_sum2, excl_sum, true, "WarpScan::ExclusiveSum(aggregate)");
        scanned(ws_excl_sum_agg, incl_sum[N - 1], true, "WarpScan::ExclusiveSum's warp_aggregate");
        scanned(ws_incl, incl_max[l], true, "WarpScan::InclusiveScan(op)");
        scanned(ws_incl_init, incl_init, true, "WarpScan::InclusiveScan(initial_value, op)");
        scanned(ws_incl2, incl_max[l], true, "WarpScan::InclusiveScan(op, aggregate)");
        scanned(ws_incl_agg, incl_max[N - 1], true, "WarpScan::InclusiveScan(op)'s warp_aggregate");
        scanned(ws_incl_init2, incl_init, true, "WarpScan::InclusiveScan(initial_value, op, aggregate)");
        scanned(ws_incl_init_agg, incl_max[N - 1], true,
                "WarpScan::InclusiveScan(initial_value, op)'s warp_aggregate (no initial value in it)");
        scanned(ws_excl, excl_max, l > 0, "WarpScan::ExclusiveScan(op)");
        scanned(ws_excl_init, excl_init, true, "WarpScan::ExclusiveScan(initial_value, op)");
        scanned(ws_excl2, excl_max, l > 0, "WarpScan::ExclusiveScan(op, aggregate)");
        scanned(ws_excl_agg, incl_max[N - 1], true, "WarpScan::ExclusiveScan(op)'s warp_aggregate");
        scanned(ws_excl_init2, excl_init, true, "WarpScan::ExclusiveScan(initial_value, op, aggregate)");
        scanned(ws_excl_init_agg, incl_max[N - 1], true, "WarpScan::ExclusiveScan(initial_value, op)'s warp_aggregate");
        scanned(ws_scan_incl, incl_max[l], true, "WarpScan::Scan(op) inclusive");
        scanned(ws_scan_excl, excl_max, l > 0, "WarpScan::Scan(op) exclusive");
        scanned(ws_scan_init_incl, incl_init, true, "WarpScan::Scan(initial_value, op) inclusive");
        scanned(ws_scan_init_excl, excl_init, true, "WarpScan::Scan(initial_value, op) exclusive");
        scanned(ws_broadcast, xs[src[i]], true, "WarpScan::Broadcast");
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ================================================================ BlockReduce, BlockScan

constexpr unsigned block_blocks = 12;

// The scan variant of a block configuration; the reduce enumerator follows it (all
// of tilekit's reduce enumerators run one algorithm; CUB runs three).
enum scan_variant { raking, raking_memoize, warp_scans };
__host__ __device__ constexpr ::cub::BlockScanAlgorithm cub_scan_algorithm(scan_variant a) {
  return a == raking ? ::cub::BLOCK_SCAN_RAKING : a == raking_memoize ? ::cub::BLOCK_SCAN_RAKING_MEMOIZE
                                                                      : ::cub::BLOCK_SCAN_WARP_SCANS;
}
__host__ __device__ constexpr tilekit::cub::BlockScanAlgorithm tk_scan_algorithm(scan_variant a) {
  return a == raking ? tilekit::cub::BLOCK_SCAN_RAKING : a == raking_memoize ? tilekit::cub::BLOCK_SCAN_RAKING_MEMOIZE
                                                                             : tilekit::cub::BLOCK_SCAN_WARP_SCANS;
}
__host__ __device__ constexpr ::cub::BlockReduceAlgorithm cub_reduce_algorithm(scan_variant a) {
  return a == raking ? ::cub::BLOCK_REDUCE_RAKING : a == raking_memoize ? ::cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY
                                                                        : ::cub::BLOCK_REDUCE_WARP_REDUCTIONS;
}
__host__ __device__ constexpr tilekit::cub::BlockReduceAlgorithm tk_reduce_algorithm(scan_variant a) {
  return a == raking           ? tilekit::cub::BLOCK_REDUCE_RAKING
         : a == raking_memoize ? tilekit::cub::BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY
                               : tilekit::cub::BLOCK_REDUCE_WARP_REDUCTIONS;
}
const char* name(scan_variant a) { return a == raking ? "RAKING" : a == raking_memoize ? "RAKING_MEMOIZE" : "WARP_SCANS"; }

// Output slots of one thread for one library: first one value each, then K each.
enum block_scalar_slot {
  // BlockReduce (CUB: thread 0 only)
  br_sum, br_sum_valid, br_sum_items, br_max, br_max_valid, br_max_items, br_builtin_max_items, br_private_sum,
  // BlockScan, one item per thread (the thread's first item)
  bs_excl_sum, bs_excl_sum2, bs_excl_sum_agg, bs_excl_init, bs_excl_init2, bs_excl_init_agg, bs_excl, bs_excl2,
  bs_excl_agg, bs_incl_sum, bs_incl_sum2, bs_incl_sum_agg, bs_incl, bs_incl2, bs_incl_agg, bs_private_incl_sum,
  // BlockScan over K items: the block aggregates
  ba_excl_sum_agg, ba_excl_init_agg, ba_excl_agg, ba_incl_sum_agg, ba_incl_agg, ba_incl_init_agg,
  block_scalar_slots
};
enum block_array_slot {
  ba_excl_sum, ba_excl_sum2, ba_excl_init, ba_excl_init2, ba_excl, ba_excl2, ba_incl_sum, ba_incl_sum2, ba_incl,
  ba_incl2, ba_incl_init, ba_incl_init2, ba_inplace_excl_init, ba_inplace_excl, ba_inplace_incl_init, block_array_slots
};
__host__ __device__ constexpr int block_slots(int K) { return block_scalar_slots + block_array_slots * K; }

template <class T>
struct block_inputs {
  const T* x;        // K per thread, blocked
  const int* valid;  // per block
  const T* init;     // per block
  T poison;
};

template <int K, class T>
struct slot_writer {
  T* o;
  std::size_t n;
  __device__ void put(int slot, const T& v) const { o[slot * n] = v; }
  __device__ void put(int array_slot, const T (&v)[K]) const {
    for (int k = 0; k < K; ++k) o[(block_scalar_slots + array_slot * K + k) * n] = v[k];
  }
};

template <class BlockReduceT, int K, class T>
__device__ void block_reduce_calls(typename BlockReduceT::TempStorage& s, T (&items)[K], int num_valid,
                                   const slot_writer<K, T>& w) {
  const custom_max op{};
  w.put(br_sum, BlockReduceT(s).Sum(items[0]));
  __syncthreads();
  w.put(br_sum_valid, BlockReduceT(s).Sum(items[0], num_valid));
  __syncthreads();
  w.put(br_sum_items, BlockReduceT(s).Sum(items));
  __syncthreads();
  w.put(br_max, BlockReduceT(s).Reduce(items[0], op));
  __syncthreads();
  w.put(br_max_valid, BlockReduceT(s).Reduce(items[0], op, num_valid));
  __syncthreads();
  w.put(br_max_items, BlockReduceT(s).Reduce(items, op));
  __syncthreads();
  w.put(br_builtin_max_items, BlockReduceT(s).Reduce(items, ::cuda::maximum<>{}));
  __syncthreads();
  w.put(br_private_sum, BlockReduceT().Sum(items[0]));  // the constructor with private storage
  __syncthreads();
}

template <class BlockScanT, int K, class T>
__device__ void block_scan_calls(typename BlockScanT::TempStorage& s, T (&items)[K], T init, T poison,
                                 const slot_writer<K, T>& w) {
  const custom_max op{};
  const T x = items[0];
  T v = poison, a = poison;
  // ---- one item per thread
  BlockScanT(s).ExclusiveSum(x, v);
  w.put(bs_excl_sum, v);
  __syncthreads();
  v = a = poison;
  BlockScanT(s).ExclusiveSum(x, v, a);
  w.put(bs_excl_sum2, v);
  w.put(bs_excl_sum_agg, a);
  __syncthreads();
  v = poison;
  BlockScanT(s).ExclusiveScan(x, v, init, op);
  w.put(bs_excl_init, v);
  __syncthreads();
  v = a = poison;
  BlockScanT(s).ExclusiveScan(x, v, init, op, a);
  w.put(bs_excl_init2, v);
  w.put(bs_excl_init_agg, a);
  __syncthreads();
  v = poison;
  BlockScanT(s).ExclusiveScan(x, v, op);
  w.put(bs_excl, v);
  __syncthreads();
  v = a = poison;
  BlockScanT(s).ExclusiveScan(x, v, op, a);
  w.put(bs_excl2, v);
  w.put(bs_excl_agg, a);
  __syncthreads();
  v = poison;
  BlockScanT(s).InclusiveSum(x, v);
  w.put(bs_incl_sum, v);
  __syncthreads();
  v = a = poison;
  BlockScanT(s).InclusiveSum(x, v, a);
  w.put(bs_incl_sum2, v);
  w.put(bs_incl_sum_agg, a);
  __syncthreads();
  v = poison;
  BlockScanT(s).InclusiveScan(x, v, op);
  w.put(bs_incl, v);
  __syncthreads();
  v = a = poison;
  BlockScanT(s).InclusiveScan(x, v, op, a);
  w.put(bs_incl2, v);
  w.put(bs_incl_agg, a);
  __syncthreads();
  v = poison;
  BlockScanT().InclusiveSum(x, v);  // the constructor with private storage
  w.put(bs_private_incl_sum, v);
  __syncthreads();

  // ---- K items per thread
  T out[K];
  const auto fresh = [&] {
    for (int k = 0; k < K; ++k) out[k] = poison;
    a = poison;
  };
  fresh();
  BlockScanT(s).ExclusiveSum(items, out);
  w.put(ba_excl_sum, out);
  __syncthreads();
  fresh();
  BlockScanT(s).ExclusiveSum(items, out, a);
  w.put(ba_excl_sum2, out);
  w.put(ba_excl_sum_agg, a);
  __syncthreads();
  fresh();
  BlockScanT(s).ExclusiveScan(items, out, init, op);
  w.put(ba_excl_init, out);
  __syncthreads();
  fresh();
  BlockScanT(s).ExclusiveScan(items, out, init, op, a);
  w.put(ba_excl_init2, out);
  w.put(ba_excl_init_agg, a);
  __syncthreads();
  fresh();
  BlockScanT(s).ExclusiveScan(items, out, op);
  w.put(ba_excl, out);
  __syncthreads();
  fresh();
  BlockScanT(s).ExclusiveScan(items, out, op, a);
  w.put(ba_excl2, out);
  w.put(ba_excl_agg, a);
  __syncthreads();
  fresh();
  BlockScanT(s).InclusiveSum(items, out);
  w.put(ba_incl_sum, out);
  __syncthreads();
  fresh();
  BlockScanT(s).InclusiveSum(items, out, a);
  w.put(ba_incl_sum2, out);
  w.put(ba_incl_sum_agg, a);
  __syncthreads();
  fresh();
  BlockScanT(s).InclusiveScan(items, out, op);
  w.put(ba_incl, out);
  __syncthreads();
  fresh();
  BlockScanT(s).InclusiveScan(items, out, op, a);
  w.put(ba_incl2, out);
  w.put(ba_incl_agg, a);
  __syncthreads();
  fresh();
  BlockScanT(s).InclusiveScan(items, out, init, op);
  w.put(ba_incl_init, out);
  __syncthreads();
  fresh();
  BlockScanT(s).InclusiveScan(items, out, init, op, a);
  w.put(ba_incl_init2, out);
  w.put(ba_incl_init_agg, a);
  __syncthreads();
  // In place: input and output the same array.
  for (int k = 0; k < K; ++k) out[k] = items[k];
  BlockScanT(s).ExclusiveScan(out, out, init, op);
  w.put(ba_inplace_excl_init, out);
  __syncthreads();
  for (int k = 0; k < K; ++k) out[k] = items[k];
  BlockScanT(s).ExclusiveScan(out, out, op);
  w.put(ba_inplace_excl, out);
  __syncthreads();
  for (int k = 0; k < K; ++k) out[k] = items[k];
  BlockScanT(s).InclusiveScan(out, out, init, op);
  w.put(ba_inplace_incl_init, out);
}

template <int X, int Y, int K, class T, scan_variant A>
__global__ void __launch_bounds__(X * Y) block_kernel(block_inputs<T> in, T* out) {
  constexpr int threads = X * Y;
  using cub_reduce = ::cub::BlockReduce<T, X, cub_reduce_algorithm(A), Y>;
  using cub_scan = ::cub::BlockScan<T, X, cub_scan_algorithm(A), Y>;
  using tk_reduce = tilekit::cub::BlockReduce<T, X, tk_reduce_algorithm(A), Y>;
  using tk_scan = tilekit::cub::BlockScan<T, X, tk_scan_algorithm(A), Y>;
  __shared__ union {
    typename cub_reduce::TempStorage cub_reduce;
    typename cub_scan::TempStorage cub_scan;
    typename tk_reduce::TempStorage tk_reduce;
    typename tk_scan::TempStorage tk_scan;
  } storage;
  const unsigned rank = threadIdx.y * X + threadIdx.x;  // CUB's row-major rank
  const std::size_t n = std::size_t(gridDim.x) * threads;
  const std::size_t t = std::size_t(blockIdx.x) * threads + rank;
  T items[K];
  for (int k = 0; k < K; ++k) items[k] = in.x[t * K + k];
  const int valid = in.valid[blockIdx.x];
  const T init = in.init[blockIdx.x];
  const slot_writer<K, T> cub_out{out + t, n}, tk_out{out + block_slots(K) * n + t, n};
  // CUB's num_valid is at most the block size; tilekit's may run past it (= every thread).
  block_reduce_calls<cub_reduce>(storage.cub_reduce, items, valid < threads ? valid : threads, cub_out);
  block_reduce_calls<tk_reduce>(storage.tk_reduce, items, valid, tk_out);
  block_scan_calls<cub_scan>(storage.cub_scan, items, init, in.poison, cub_out);
  __syncthreads();
  block_scan_calls<tk_scan>(storage.tk_scan, items, init, in.poison, tk_out);
}

template <int X, int Y, int K, class T, scan_variant A>
void launch_block(block_inputs<T> in, T* out) {
  block_kernel<X, Y, K, T, A><<<block_blocks, dim3(X, Y)>>>(in, out);
}

/// num_valid of each block: edges (1, warp edges, one short, full, past the end), then random.
std::vector<int> block_valid_counts(unsigned threads, std::mt19937_64& g) {
  const unsigned edges[] = {1, 31, 32, 33, threads - 1, threads, threads + 3};
  std::vector<int> v;
  for (unsigned b = 0; b < block_blocks; ++b)
    v.push_back(int(std::max(1u, b < std::size(edges) ? edges[b] : 1 + unsigned(g() % threads))));
  return v;
}

template <class T>
void check_block(unsigned X, unsigned Y, int K, scan_variant A, void (*launch)(block_inputs<T>, T*)) {
  const unsigned threads = X * Y;
  const unsigned items_per_block = threads * unsigned(K);
  const std::size_t n = std::size_t(block_blocks) * threads;
  const int slots = block_slots(K);
  auto g = tk_test::rng_for(0xB10C'C0B0'0000ull + X * 4096 + Y * 256 + unsigned(K) * 8 + unsigned(A) * 2 +
                            (std::is_floating_point_v<T> ? 1 : 0));
  const std::vector<T> x = exact_values<T>(n * unsigned(K), g);
  const std::vector<int> valid = block_valid_counts(threads, g);
  const std::vector<T> init = exact_values<T>(block_blocks, g);
  const T poison = tk_test::poison<T>();
  tk_test::device_buffer<T> d_x(x), d_init(init), d_out(2 * std::size_t(slots) * n, poison);
  tk_test::device_buffer<int> d_valid(valid);
  launch(block_inputs<T>{d_x.data(), d_valid.data(), d_init.data(), poison}, d_out.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> out = d_out.to_host();

  BOOST_TEST_CONTEXT("BlockReduce / BlockScan<" << type_label<T>() << ", " << X << (Y > 1 ? " x " + std::to_string(Y) : "")
                                                 << ", " << name(A) << ">, " << K
                                                 << " items per thread: tilekit::cub against cub, TILEKIT_TEST_SEED="
                                                 << base_seed()) {
    lazy_log log;
    const auto cub_at = [&](int slot, std::size_t t) { return out[std::size_t(slot) * n + t]; };
    const auto tk_at = [&](int slot, std::size_t t) { return out[std::size_t(slots + slot) * n + t]; };
    const auto array_slot = [&](int s, int k) { return block_scalar_slots + s * K + k; };
    std::vector<T> inc_sum(items_per_block), inc_max(items_per_block), first_inc_sum(threads), first_inc_max(threads);
    for (unsigned b = 0; b < block_blocks; ++b) {
      const T* xs = x.data() + std::size_t(b) * items_per_block;
      const unsigned vc = unsigned(std::min(valid[b], int(threads)));
      const T in0 = init[b];
      // Sequential references: over every item, and over each thread's first item.
      for (unsigned i = 0; i < items_per_block; ++i) {
        inc_sum[i] = i ? T(inc_sum[i - 1] + xs[i]) : xs[0];
        inc_max[i] = i ? host_max(inc_max[i - 1], xs[i]) : xs[0];
      }
      T sum_valid = xs[0], max_valid = xs[0];
      for (unsigned r = 0; r < threads; ++r) {
        const T f = xs[r * unsigned(K)];
        first_inc_sum[r] = r ? T(first_inc_sum[r - 1] + f) : f;
        first_inc_max[r] = r ? host_max(first_inc_max[r - 1], f) : f;
        if (r > 0 && r < vc) {
          sum_valid = T(sum_valid + f);
          max_valid = host_max(max_valid, f);
        }
      }
      const T all_sum = inc_sum[items_per_block - 1], all_max = inc_max[items_per_block - 1];
      const T first_sum = first_inc_sum[threads - 1], first_max = first_inc_max[threads - 1];
      const std::size_t t0 = std::size_t(b) * threads;

      for (unsigned r = 0; r < threads; ++r) {
        const std::size_t t = t0 + r;
        const auto at = [&](const char* call, int k = -1) {
          return std::string(call) + " at block " + std::to_string(b) + " thread " + std::to_string(r) +
                 (k >= 0 ? " item " + std::to_string(k) : std::string()) + " (num_valid " + std::to_string(valid[b]) +
                 ")";
        };
        // Reductions: CUB's result in thread 0, tilekit's in every thread.
        const auto reduced = [&](int slot, const T& want, const char* call) {
          expect_pair(log, cub_at(slot, t0), tk_at(slot, t), want, true, [&] { return at(call); });
        };
        reduced(br_sum, first_sum, "BlockReduce::Sum");
        reduced(br_sum_valid, sum_valid, "BlockReduce::Sum(num_valid)");
        reduced(br_sum_items, all_sum, "BlockReduce::Sum(items[K])");
        reduced(br_max, first_max, "BlockReduce::Reduce(custom max)");
        reduced(br_max_valid, max_valid, "BlockReduce::Reduce(custom max, num_valid)");
        reduced(br_max_items, all_max, "BlockReduce::Reduce(items[K], custom max)");
        reduced(br_builtin_max_items, all_max, "BlockReduce::Reduce(items[K], cuda::maximum)");
        reduced(br_private_sum, first_sum, "BlockReduce().Sum (private storage)");

        // Scans of each thread's first item.
        const auto scanned = [&](int slot, const T& want, bool cub_defined, const char* call) {
          expect_pair(log, cub_at(slot, t), tk_at(slot, t), want, cub_defined, [&] { return at(call); });
        };
        const T f_excl_sum = r ? first_inc_sum[r - 1] : T{};
        const T f_excl_max = r ? first_inc_max[r - 1] : xs[0];  // thread 0: undefined in CUB, its input in tilekit
        const T f_excl_init = r ? host_max(in0, first_inc_max[r - 1]) : in0;
        scanned(bs_excl_sum, f_excl_sum, true, "BlockScan::ExclusiveSum");
        scanned(bs_excl_sum2, f_excl_sum, true, "BlockScan::ExclusiveSum(aggregate)");
        scanned(bs_excl_sum_agg, first_sum, true, "BlockScan::ExclusiveSum's block_aggregate");
        scanned(bs_excl_init, f_excl_init, true, "BlockScan::ExclusiveScan(initial_value, op)");
        scanned(bs_excl_init2, f_excl_init, true, "BlockScan::ExclusiveScan(initial_value, op, aggregate)");
        scanned(bs_excl_init_agg, first_max, true, "BlockScan::ExclusiveScan(initial_value, op)'s block_aggregate");
        scanned(bs_excl, f_excl_max, r > 0, "BlockScan::ExclusiveScan(op)");
        scanned(bs_excl2, f_excl_max, r > 0, "BlockScan::ExclusiveScan(op, aggregate)");
        scanned(bs_excl_agg, first_max, true, "BlockScan::ExclusiveScan(op)'s block_aggregate");
        scanned(bs_incl_sum, first_inc_sum[r], true, "BlockScan::InclusiveSum");
        scanned(bs_incl_sum2, first_inc_sum[r], true, "BlockScan::InclusiveSum(aggregate)");
        scanned(bs_incl_sum_agg, first_sum, true, "BlockScan::InclusiveSum's block_aggregate");
        scanned(bs_incl, first_inc_max[r], true, "BlockScan::InclusiveScan(op)");
        scanned(bs_incl2, first_inc_max[r], true, "BlockScan::InclusiveScan(op, aggregate)");
        scanned(bs_incl_agg, first_max, true, "BlockScan::InclusiveScan(op)'s block_aggregate");
        scanned(bs_private_incl_sum, first_inc_sum[r], true, "BlockScan().InclusiveSum (private storage)");

        // Scans of K items per thread.
        scanned(ba_excl_sum_agg, all_sum, true, "BlockScan::ExclusiveSum(items[K])'s block_aggregate");
        scanned(ba_excl_init_agg, all_max, true, "BlockScan::ExclusiveScan(items[K], initial_value, op)'s block_aggregate");
        scanned(ba_excl_agg, all_max, true, "BlockScan::ExclusiveScan(items[K], op)'s block_aggregate");
        scanned(ba_incl_sum_agg, all_sum, true, "BlockScan::InclusiveSum(items[K])'s block_aggregate");
        scanned(ba_incl_agg, all_max, true, "BlockScan::InclusiveScan(items[K], op)'s block_aggregate");
        scanned(ba_incl_init_agg, all_max, true, "BlockScan::InclusiveScan(items[K], initial_value, op)'s block_aggregate");
        for (int k = 0; k < K; ++k) {
          const unsigned i = r * unsigned(K) + unsigned(k);
          const auto item = [&](int s, const T& want, bool cub_defined, const char* call) {
            expect_pair(log, cub_at(array_slot(s, k), t), tk_at(array_slot(s, k), t), want, cub_defined,
                        [&] { return at(call, k); });
          };
          const T excl_sum = i ? inc_sum[i - 1] : T{};
          const T excl_max = i ? inc_max[i - 1] : xs[0];  // item 0: undefined in CUB, its input in tilekit
          const T excl_init = i ? host_max(in0, inc_max[i - 1]) : in0;
          const T incl_init = host_max(in0, inc_max[i]);
          item(ba_excl_sum, excl_sum, true, "BlockScan::ExclusiveSum(items[K])");
          item(ba_excl_sum2, excl_sum, true, "BlockScan::ExclusiveSum(items[K], aggregate)");
          item(ba_excl_init, excl_init, true, "BlockScan::ExclusiveScan(items[K], initial_value, op)");
          item(ba_excl_init2, excl_init, true, "BlockScan::ExclusiveScan(items[K], initial_value, op, aggregate)");
          item(ba_excl, excl_max, i > 0, "BlockScan::ExclusiveScan(items[K], op)");
          item(ba_excl2, excl_max, i > 0, "BlockScan::ExclusiveScan(items[K], op, aggregate)");
          item(ba_incl_sum, inc_sum[i], true, "BlockScan::InclusiveSum(items[K])");
          item(ba_incl_sum2, inc_sum[i], true, "BlockScan::InclusiveSum(items[K], aggregate)");
          item(ba_incl, inc_max[i], true, "BlockScan::InclusiveScan(items[K], op)");
          item(ba_incl2, inc_max[i], true, "BlockScan::InclusiveScan(items[K], op, aggregate)");
          item(ba_incl_init, incl_init, true, "BlockScan::InclusiveScan(items[K], initial_value, op)");
          item(ba_incl_init2, incl_init, true, "BlockScan::InclusiveScan(items[K], initial_value, op, aggregate)");
          item(ba_inplace_excl_init, excl_init, true, "BlockScan::ExclusiveScan(items, items, initial_value, op) in place");
          item(ba_inplace_excl, excl_max, i > 0, "BlockScan::ExclusiveScan(items, items, op) in place");
          item(ba_inplace_incl_init, incl_init, true, "BlockScan::InclusiveScan(items, items, initial_value, op) in place");
        }
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ================================================================ BlockScan with a prefix callback

constexpr unsigned prefix_blocks = 6;
constexpr unsigned prefix_tiles = 5;  // tiles each block scans in turn, chained by its callbacks

/// CUB's BlockPrefixCallbackOp: returns the running value before this tile, then adds the tile's aggregate.
template <class T, class Op>
struct running_prefix {
  T total;
  __device__ T operator()(T block_aggregate) {
    const T before = total;
    total = Op{}(total, block_aggregate);
    return before;
  }
};

// The callback forms, one item (the thread's first) and K items per thread.
enum prefix_form { pf_excl_sum, pf_excl_max, pf_incl_sum, pf_incl_max, prefix_forms };

template <class BlockScanT, int K, class T>
__device__ void prefix_calls(typename BlockScanT::TempStorage& s, const T* in, T init, T poison, T* scalar_out,
                             T* array_out, T* finals, unsigned rank, unsigned threads) {
  using sum_prefix = running_prefix<T, tilekit::plus>;
  using max_prefix = running_prefix<T, custom_max>;
  const custom_max op{};
  sum_prefix one_excl_sum{init}, one_incl_sum{init}, items_excl_sum{init}, items_incl_sum{init};
  max_prefix one_excl_max{init}, one_incl_max{init}, items_excl_max{init}, items_incl_max{init};
  for (unsigned tile = 0; tile < prefix_tiles; ++tile) {
    const std::size_t t = std::size_t(tile) * threads + rank;  // this thread's place in the block's sequence
    T items[K], out[K];
    for (int k = 0; k < K; ++k) items[k] = in[t * K + k];
    const auto one = [&](prefix_form f, const T& v) { scalar_out[std::size_t(f) * prefix_tiles * threads + t] = v; };
    const auto many = [&](prefix_form f) {
      for (int k = 0; k < K; ++k) array_out[(std::size_t(f) * prefix_tiles * threads + t) * K + k] = out[k];
      for (int k = 0; k < K; ++k) out[k] = poison;
    };
    T v = poison;
    BlockScanT(s).ExclusiveSum(items[0], v, one_excl_sum);
    one(pf_excl_sum, v);
    __syncthreads();
    v = poison;
    BlockScanT(s).ExclusiveScan(items[0], v, op, one_excl_max);
    one(pf_excl_max, v);
    __syncthreads();
    v = poison;
    BlockScanT(s).InclusiveSum(items[0], v, one_incl_sum);
    one(pf_incl_sum, v);
    __syncthreads();
    v = poison;
    BlockScanT(s).InclusiveScan(items[0], v, op, one_incl_max);
    one(pf_incl_max, v);
    __syncthreads();
    for (int k = 0; k < K; ++k) out[k] = poison;
    BlockScanT(s).ExclusiveSum(items, out, items_excl_sum);
    many(pf_excl_sum);
    __syncthreads();
    BlockScanT(s).ExclusiveScan(items, out, op, items_excl_max);
    many(pf_excl_max);
    __syncthreads();
    BlockScanT(s).InclusiveSum(items, out, items_incl_sum);
    many(pf_incl_sum);
    __syncthreads();
    BlockScanT(s).InclusiveScan(items, out, op, items_incl_max);
    many(pf_incl_max);
    __syncthreads();
  }
  if (rank == 0) {  // the first warp's callbacks hold the running totals
    const T f[2 * prefix_forms] = {one_excl_sum.total,   one_excl_max.total,   one_incl_sum.total,   one_incl_max.total,
                                   items_excl_sum.total, items_excl_max.total, items_incl_sum.total, items_incl_max.total};
    for (int i = 0; i < 2 * prefix_forms; ++i) finals[i] = f[i];
  }
}

template <int X, int Y, int K, class T, scan_variant A>
__global__ void __launch_bounds__(X * Y) prefix_kernel(const T* in, const T* init, T poison, T* out) {
  constexpr unsigned threads = X * Y;
  using cub_scan = ::cub::BlockScan<T, X, cub_scan_algorithm(A), Y>;
  using tk_scan = tilekit::cub::BlockScan<T, X, tk_scan_algorithm(A), Y>;
  __shared__ union {
    typename cub_scan::TempStorage cub;
    typename tk_scan::TempStorage tk;
  } storage;
  const unsigned rank = threadIdx.y * X + threadIdx.x;
  const std::size_t per_block = std::size_t(prefix_tiles) * threads;   // first items in one block's sequence
  const std::size_t scalars = prefix_forms * gridDim.x * per_block;     // one library's one-item outputs
  const std::size_t arrays = scalars * K;                               // and K-item outputs
  const std::size_t finals = 2 * prefix_forms * gridDim.x;
  const std::size_t lib = scalars + arrays + finals;
  const T* block_in = in + blockIdx.x * per_block * K;
  for (int l = 0; l < 2; ++l) {
    T* o = out + l * lib;
    T* scalar_out = o + blockIdx.x * prefix_forms * per_block;
    T* array_out = o + scalars + blockIdx.x * prefix_forms * per_block * K;
    T* final_out = o + scalars + arrays + blockIdx.x * 2 * prefix_forms;
    if (l == 0)
      prefix_calls<cub_scan, K>(storage.cub, block_in, init[blockIdx.x], poison, scalar_out, array_out, final_out, rank,
                                threads);
    else
      prefix_calls<tk_scan, K>(storage.tk, block_in, init[blockIdx.x], poison, scalar_out, array_out, final_out, rank,
                               threads);
    __syncthreads();
  }
}

template <int X, int Y, int K, class T, scan_variant A>
void launch_prefix(const T* in, const T* init, T poison, T* out) {
  prefix_kernel<X, Y, K, T, A><<<prefix_blocks, dim3(X, Y)>>>(in, init, poison, out);
}

template <class T>
void check_prefix(unsigned X, unsigned Y, int K, scan_variant A, void (*launch)(const T*, const T*, T, T*)) {
  const unsigned threads = X * Y;
  const std::size_t per_block = std::size_t(prefix_tiles) * threads;
  const std::size_t scalars = prefix_forms * prefix_blocks * per_block, arrays = scalars * unsigned(K);
  const std::size_t finals = 2 * prefix_forms * prefix_blocks, lib = scalars + arrays + finals;
  auto g = tk_test::rng_for(0x9BEF'1C00'0000ull + X * 4096 + Y * 256 + unsigned(K) * 8 + unsigned(A) * 2 +
                            (std::is_floating_point_v<T> ? 1 : 0));
  const std::vector<T> x = exact_values<T>(prefix_blocks * per_block * unsigned(K), g);
  const std::vector<T> init = exact_values<T>(prefix_blocks, g);
  const T poison = tk_test::poison<T>();
  tk_test::device_buffer<T> d_x(x), d_init(init), d_out(2 * lib, poison);
  launch(d_x.data(), d_init.data(), poison, d_out.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> out = d_out.to_host();

  BOOST_TEST_CONTEXT("BlockScan<" << type_label<T>() << ", " << X << (Y > 1 ? " x " + std::to_string(Y) : "") << ", "
                                  << name(A) << ">, " << K << " items per thread, prefix callbacks over " << prefix_tiles
                                  << " tiles: tilekit::cub against cub, TILEKIT_TEST_SEED=" << base_seed()) {
    lazy_log log;
    const char* form_names[prefix_forms] = {"ExclusiveSum", "ExclusiveScan(custom max)", "InclusiveSum",
                                            "InclusiveScan(custom max)"};
    for (unsigned b = 0; b < prefix_blocks; ++b) {
      const T* xs = x.data() + b * per_block * unsigned(K);
      for (int f = 0; f < prefix_forms; ++f) {
        const bool sum = f == pf_excl_sum || f == pf_incl_sum, inclusive = f >= pf_incl_sum;
        const auto op = [&](const T& a, const T& c) { return sum ? T(a + c) : host_max(a, c); };
        // One item per thread: the sequence of each thread's first item, tile after tile.
        T run = init[b];
        for (std::size_t j = 0; j < per_block; ++j) {
          const T next = op(run, xs[j * unsigned(K)]);
          const std::size_t o = (std::size_t(b) * prefix_forms + unsigned(f)) * per_block + j;
          expect_pair(log, out[o], out[lib + o], inclusive ? next : run, true, [&] {
            return std::string("BlockScan::") + form_names[f] + "(prefix_op) of one item, block " + std::to_string(b) +
                   " tile " + std::to_string(j / threads) + " thread " + std::to_string(j % threads);
          });
          run = next;
        }
        const std::size_t fo = scalars + arrays + std::size_t(b) * 2 * prefix_forms + unsigned(f);
        expect_pair(log, out[fo], out[lib + fo], run, true, [&] {
          return std::string("the callback's running total after ") + form_names[f] + " of one item, block " +
                 std::to_string(b);
        });
        // K items per thread: the block's items in order.
        run = init[b];
        for (std::size_t j = 0; j < per_block * unsigned(K); ++j) {
          const T next = op(run, xs[j]);
          const std::size_t o = scalars + (std::size_t(b) * prefix_forms + unsigned(f)) * per_block * unsigned(K) + j;
          expect_pair(log, out[o], out[lib + o], inclusive ? next : run, true, [&] {
            const std::size_t slot = j / unsigned(K);
            return std::string("BlockScan::") + form_names[f] + "(items[K], prefix_op), block " + std::to_string(b) +
                   " tile " + std::to_string(slot / threads) + " thread " + std::to_string(slot % threads) + " item " +
                   std::to_string(j % unsigned(K));
          });
          run = next;
        }
        expect_pair(log, out[fo + prefix_forms], out[lib + fo + prefix_forms], run, true, [&] {
          return std::string("the callback's running total after ") + form_names[f] + " of K items, block " +
                 std::to_string(b);
        });
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ================================================================ BlockHistogram

constexpr unsigned bins = 256;
constexpr unsigned histogram_blocks = 12;
// Per block: per variant (CUB sort, CUB atomic, tilekit sort, tilekit atomic) the
// counters of Histogram() and of InitHistogram + Composite twice.
constexpr unsigned histogram_variants = 4;

template <class H, int K>
__device__ void histogram_calls(typename H::TempStorage& s, const unsigned char (&samples)[K], unsigned* once,
                                unsigned* twice) {
  unsigned char items[K];  // a fresh copy each time: CUB's sort variant sorts them in place
  for (int k = 0; k < K; ++k) items[k] = samples[k];
  H(s).Histogram(items, once);
  __syncthreads();
  for (int k = 0; k < K; ++k) items[k] = samples[k];
  H(s).InitHistogram(twice);
  __syncthreads();
  H(s).Composite(items, twice);
  __syncthreads();
  for (int k = 0; k < K; ++k) items[k] = samples[k];
  H(s).Composite(items, twice);
  __syncthreads();
}

template <int X, int Y, int K>
__global__ void __launch_bounds__(X * Y) histogram_kernel(const unsigned char* in, unsigned* out, unsigned* global) {
  constexpr unsigned threads = X * Y;
  using cub_sort = ::cub::BlockHistogram<unsigned char, X, K, bins, ::cub::BLOCK_HISTO_SORT, Y>;
  using cub_atomic = ::cub::BlockHistogram<unsigned char, X, K, bins, ::cub::BLOCK_HISTO_ATOMIC, Y>;
  using tk_sort = tilekit::cub::BlockHistogram<unsigned char, X, K, bins, tilekit::cub::BLOCK_HISTO_SORT, Y>;
  using tk_atomic = tilekit::cub::BlockHistogram<unsigned char, X, K, bins, tilekit::cub::BLOCK_HISTO_ATOMIC, Y>;
  __shared__ unsigned counters[histogram_variants][2][bins];
  __shared__ union {
    typename cub_sort::TempStorage cub_sort;
    typename cub_atomic::TempStorage cub_atomic;
    typename tk_sort::TempStorage tk_sort;
    typename tk_atomic::TempStorage tk_atomic;
  } temp;
  const unsigned rank = threadIdx.y * X + threadIdx.x;
  const std::size_t t = std::size_t(blockIdx.x) * threads + rank;
  unsigned char samples[K];
  for (int k = 0; k < K; ++k) samples[k] = in[t * K + k];
  histogram_calls<cub_sort>(temp.cub_sort, samples, counters[0][0], counters[0][1]);
  histogram_calls<cub_atomic>(temp.cub_atomic, samples, counters[1][0], counters[1][1]);
  histogram_calls<tk_sort>(temp.tk_sort, samples, counters[2][0], counters[2][1]);
  histogram_calls<tk_atomic>(temp.tk_atomic, samples, counters[3][0], counters[3][1]);
  // Every block into global counters: the atomic variants of both, and tilekit's sort
  // variant (atomics too; CUB's sort variant adds without atomics, so it is left out).
  cub_atomic(temp.cub_atomic).Composite(samples, global);
  tk_atomic(temp.tk_atomic).Composite(samples, global + bins);
  tk_sort(temp.tk_sort).Composite(samples, global + 2 * bins);
  __syncthreads();
  unsigned* o = out + std::size_t(blockIdx.x) * histogram_variants * 2 * bins;
  for (unsigned i = rank; i < histogram_variants * 2 * bins; i += threads) o[i] = (&counters[0][0][0])[i];
}

template <int X, int Y, int K>
void launch_histogram(const unsigned char* in, unsigned* out, unsigned* global) {
  histogram_kernel<X, Y, K><<<histogram_blocks, dim3(X, Y)>>>(in, out, global);
}

void check_histogram(unsigned X, unsigned Y, int K, void (*launch)(const unsigned char*, unsigned*, unsigned*),
                     tk_test::bin_pattern pattern) {
  const unsigned threads = X * Y, n = threads * unsigned(K);
  auto g = tk_test::rng_for(0x4157'C0B0'0000ull + X * 4096 + Y * 256 + unsigned(K) * 8 + unsigned(pattern));
  const std::vector<unsigned char> in = tk_test::block_histogram_samples(histogram_blocks, n, pattern, g);
  tk_test::device_buffer<unsigned char> d_in(in);
  tk_test::device_buffer<unsigned> d_out(std::size_t(histogram_blocks) * histogram_variants * 2 * bins,
                                         tk_test::poison<unsigned>());
  tk_test::device_buffer<unsigned> d_global(3 * bins, 0u);  // Composite adds: starts at zero
  launch(d_in.data(), d_out.data(), d_global.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned> out = d_out.to_host(), global = d_global.to_host();

  BOOST_TEST_CONTEXT("BlockHistogram<uchar, " << X << (Y > 1 ? " x " + std::to_string(Y) : "") << ", " << K
                                              << " items, 256 bins>, " << tk_test::name(pattern)
                                              << " samples: tilekit::cub against cub, TILEKIT_TEST_SEED=" << base_seed()) {
    lazy_log log;
    const char* variants[histogram_variants] = {"cub BLOCK_HISTO_SORT", "cub BLOCK_HISTO_ATOMIC",
                                                "tilekit::cub BLOCK_HISTO_SORT", "tilekit::cub BLOCK_HISTO_ATOMIC"};
    std::vector<unsigned> total(bins, 0);
    for (unsigned b = 0; b < histogram_blocks; ++b) {
      std::vector<unsigned> ref(bins, 0);
      for (unsigned i = 0; i < n; ++i) ++ref[in[std::size_t(b) * n + i]];
      const unsigned* o = out.data() + std::size_t(b) * histogram_variants * 2 * bins;
      for (unsigned i = 0; i < bins; ++i) {
        total[i] += ref[i];
        for (unsigned v = 0; v < histogram_variants; ++v) {
          const unsigned once = o[(v * 2) * bins + i], twice = o[(v * 2 + 1) * bins + i];
          log.check(once == ref[i] && twice == 2 * ref[i], [&] {
            return std::string(variants[v]) + ", block " + std::to_string(b) + " bin " + std::to_string(i) +
                   ": Histogram = " + show(once) + ", InitHistogram + Composite twice = " + show(twice) +
                   "; want " + show(ref[i]) + " and " + show(2 * ref[i]) + " (cub sort variant: " + show(o[i]) +
                   ", tilekit::cub: " + show(o[(2 * 2) * bins + i]) + ")";
          });
        }
      }
    }
    const char* global_names[3] = {"cub BLOCK_HISTO_ATOMIC", "tilekit::cub BLOCK_HISTO_ATOMIC",
                                    "tilekit::cub BLOCK_HISTO_SORT"};
    for (unsigned v = 0; v < 3; ++v)
      for (unsigned i = 0; i < bins; ++i)
        log.check(global[v * bins + i] == total[i], [&] {
          return std::string(global_names[v]) + " Composite into global counters from " +
                 std::to_string(histogram_blocks) + " blocks, bin " + std::to_string(i) + ": " +
                 show(global[v * bins + i]) + ", want " + show(total[i]);
        });
    BOOST_TEST(log.count == 0u);
  }
}

// ================================================================ the CUB program, twice

template <class F>
void run_both(F&& launch_one) {
  launch_one(0);
  TK_CUDA_CHECK(cudaGetLastError());
  launch_one(1);
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

using warp_types = std::tuple<int, float>;

BOOST_AUTO_TEST_CASE_TEMPLATE(warp_reduce_and_scan_match_cub, T, warp_types) {
  check_warp<32, T>();
  check_warp<16, T>();
  check_warp<8, T>();
}

// Block shapes: 32, 128, 100 (a partial last warp), 16 x 8 (2D); 1 and 4 items per
// thread. Ints scan with the raking variant, floats with warp_scans; one more shape
// runs raking_memoize.
template <class F>
void for_each_block_config(F&& f) {
  tk_test::for_each_size<1, 4>([&](auto k) {
    constexpr int K = int(decltype(k)::value);
    f.template operator()<32, 1, K, int, raking>();
    f.template operator()<32, 1, K, float, warp_scans>();
    f.template operator()<128, 1, K, int, raking>();
    f.template operator()<128, 1, K, float, warp_scans>();
    f.template operator()<100, 1, K, int, raking>();
    f.template operator()<100, 1, K, float, warp_scans>();
    f.template operator()<16, 8, K, int, raking>();
    f.template operator()<16, 8, K, float, warp_scans>();
  });
  f.template operator()<128, 1, 4, int, raking_memoize>();
  f.template operator()<100, 1, 4, int, warp_scans>();
}

struct run_block_check {
  template <int X, int Y, int K, class T, scan_variant A>
  void operator()() const {
    check_block<T>(X, Y, K, A, &launch_block<X, Y, K, T, A>);
  }
};
struct run_prefix_check {
  template <int X, int Y, int K, class T, scan_variant A>
  void operator()() const {
    check_prefix<T>(X, Y, K, A, &launch_prefix<X, Y, K, T, A>);
  }
};

// Logical warps that are not powers of two (12 and 7 lanes: they span hardware warps),
// against the CPU (CUB 3.0 is wrong for those that span two): each thread's sum, the max over
// the first 5 lanes, the head-segmented sum (WarpReduce); the inclusive sum, the exclusive
// max seeded with -5000, and lane 3's input (WarpScan).
template <int W>
__global__ void odd_warp_sums(const int* in, const unsigned char* heads, int* out) {
  using WarpReduce = tilekit::cub::WarpReduce<int, W>;
  using WarpScan = tilekit::cub::WarpScan<int, W>;
  __shared__ typename WarpReduce::TempStorage storage[96 / W];
  __shared__ typename WarpScan::TempStorage scan_storage[96 / W];
  const int t = threadIdx.x, warp = t / W;
  const int x = in[t];
  int* o = out + 6 * t;
  o[0] = WarpReduce(storage[warp]).Sum(x);
  o[1] = WarpReduce(storage[warp]).Reduce(x, cuda::maximum<>{}, 5);
  o[2] = WarpReduce(storage[warp]).HeadSegmentedSum(x, heads[t]);
  WarpScan(scan_storage[warp]).InclusiveSum(x, o[3]);
  WarpScan(scan_storage[warp]).ExclusiveScan(x, o[4], -5000, cuda::maximum<>{});
  o[5] = WarpScan(scan_storage[warp]).Broadcast(x, 3);
}

template <int W>
void check_odd_warp_sums(std::mt19937_64& g) {
  constexpr int n = 96 / W * W;
  std::vector<int> in(n);
  std::vector<unsigned char> heads(n);
  for (int i = 0; i < n; ++i) {
    in[i] = int(g() % 2001) - 1000;
    heads[i] = g() % 4 == 0;
  }
  tk_test::device_buffer<int> d_in(in), d_out(6 * n, tk_test::poison<int>());
  tk_test::device_buffer<unsigned char> d_heads(heads);
  odd_warp_sums<W><<<1, n>>>(d_in.data(), d_heads.data(), d_out.data());
  BOOST_REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  const std::vector<int> out = d_out.to_host();
  for (int t = 0; t < n; ++t) {
    const int w0 = t / W * W;
    int sum = 0, max5 = in[w0];
    for (int i = w0; i < w0 + W; ++i) sum += in[i];
    for (int i = w0; i < w0 + 5 && i < w0 + W; ++i) max5 = std::max(max5, in[i]);
    int first = t, last = t;
    while (first > w0 && !heads[first]) --first;
    while (last + 1 < w0 + W && !heads[last + 1]) ++last;
    int segment = 0;
    for (int i = first; i <= last; ++i) segment += in[i];
    int inclusive = 0, exclusive_max = -5000;
    for (int i = w0; i <= t; ++i) inclusive += in[i];
    for (int i = w0; i < t; ++i) exclusive_max = std::max(exclusive_max, in[i]);
    BOOST_TEST(out[6 * t] == sum, "W=" << W << " sum at thread " << t);
    BOOST_TEST(out[6 * t + 1] == max5, "W=" << W << " max of 5 lanes at thread " << t);
    BOOST_TEST(out[6 * t + 2] == segment, "W=" << W << " head-segmented sum at thread " << t);
    BOOST_TEST(out[6 * t + 3] == inclusive, "W=" << W << " inclusive sum at thread " << t);
    BOOST_TEST(out[6 * t + 4] == exclusive_max, "W=" << W << " seeded exclusive max at thread " << t);
    BOOST_TEST(out[6 * t + 5] == in[w0 + 3], "W=" << W << " broadcast of lane 3 at thread " << t);
  }
}

BOOST_AUTO_TEST_CASE(warp_reduce_and_scan_of_logical_warps_of_any_size) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  BOOST_TEST_CONTEXT("TILEKIT_TEST_SEED=" << base_seed()) {
    check_odd_warp_sums<12>(g);
    check_odd_warp_sums<7>(g);
  }
}

BOOST_AUTO_TEST_CASE(block_reduce_and_scan_match_cub) { for_each_block_config(run_block_check{}); }

BOOST_AUTO_TEST_CASE(block_scan_prefix_callbacks_chain_tiles_like_cub) { for_each_block_config(run_prefix_check{}); }

BOOST_AUTO_TEST_CASE(block_histogram_matches_cub) {
  for (auto p : {tk_test::bin_pattern::uniform, tk_test::bin_pattern::one_bin, tk_test::bin_pattern::skewed}) {
    check_histogram(32, 1, 1, &launch_histogram<32, 1, 1>, p);
    check_histogram(32, 1, 4, &launch_histogram<32, 1, 4>, p);
    check_histogram(128, 1, 1, &launch_histogram<128, 1, 1>, p);
    check_histogram(128, 1, 4, &launch_histogram<128, 1, 4>, p);
    check_histogram(100, 1, 1, &launch_histogram<100, 1, 1>, p);
    check_histogram(100, 1, 4, &launch_histogram<100, 1, 4>, p);
    check_histogram(16, 8, 1, &launch_histogram<16, 8, 1>, p);
    check_histogram(16, 8, 4, &launch_histogram<16, 8, 4>, p);
  }
}

// The program of cub_collectives_program.cuh, compiled with `cub` = ::cub and with
// `cub` = tilekit::cub, on the same data: the same outputs.
BOOST_AUTO_TEST_CASE(a_program_written_for_cub_compiles_and_agrees_with_the_facade) {
  auto g = tk_test::rng_for(0xC0B'9A09);
  BOOST_TEST_CONTEXT("cub_collectives_program.cuh with cub = ::cub and cub = tilekit::cub, TILEKIT_TEST_SEED="
                     << base_seed()) {
    // scan_tiles: one block, 7 tiles of 512.
    {
      const int n = 7 * 512;
      const std::vector<int> in = exact_values<int>(n, g);
      tk_test::device_buffer<int> d_in(in), a(n, tk_test::poison<int>()), b(n, tk_test::poison<int>());
      run_both([&](int lib) {
        if (lib == 0) with_cub::scan_tiles<<<1, 128>>>(d_in.data(), a.data(), n);
        else with_tilekit::scan_tiles<<<1, 128>>>(d_in.data(), b.data(), n);
      });
      const std::vector<int> ha = a.to_host(), hb = b.to_host();
      int run = 0;
      for (int i = 0; i < n; ++i) {
        BOOST_TEST_REQUIRE(ha[i] == run, "scan_tiles with ::cub at " << i);
        BOOST_TEST_REQUIRE(hb[i] == run, "scan_tiles with tilekit::cub at " << i);
        run += in[i];
      }
    }
    // block_and_warp_totals: 5 blocks of 16 x 8.
    {
      const int blocks = 5;
      const std::vector<int> in = exact_values<int>(blocks * 128, g);
      tk_test::device_buffer<int> d_in(in);
      tk_test::device_buffer<int> ba(2 * blocks, tk_test::poison<int>()), bb(2 * blocks, tk_test::poison<int>());
      tk_test::device_buffer<int> wa(8 * blocks, tk_test::poison<int>()), wb(8 * blocks, tk_test::poison<int>());
      run_both([&](int lib) {
        if (lib == 0) with_cub::block_and_warp_totals<<<blocks, dim3(16, 8)>>>(d_in.data(), ba.data(), wa.data());
        else with_tilekit::block_and_warp_totals<<<blocks, dim3(16, 8)>>>(d_in.data(), bb.data(), wb.data());
      });
      const std::vector<int> hba = ba.to_host(), hbb = bb.to_host(), hwa = wa.to_host(), hwb = wb.to_host();
      for (int blk = 0; blk < blocks; ++blk) {
        const int* x = in.data() + blk * 128;
        int sum = 0, max = x[0];
        for (int i = 0; i < 128; ++i) {
          sum += x[i];
          max = std::max(max, x[i]);
        }
        BOOST_TEST(hba[2 * blk] == sum);
        BOOST_TEST(hbb[2 * blk] == sum);
        BOOST_TEST(hba[2 * blk + 1] == max);
        BOOST_TEST(hbb[2 * blk + 1] == max);
        for (int w = 0; w < 8; ++w) {
          const int wmax = *std::max_element(x + 16 * w, x + 16 * w + 16);
          BOOST_TEST(hwa[8 * blk + w] == wmax);
          BOOST_TEST(hwb[8 * blk + w] == wmax);
        }
      }
    }
    // warp_and_block_scans: 3 blocks of 64.
    {
      const int blocks = 3, n = blocks * 64;
      const std::vector<int> in = exact_values<int>(n, g);
      tk_test::device_buffer<int> d_in(in), a(4 * n, tk_test::poison<int>()), b(4 * n, tk_test::poison<int>());
      run_both([&](int lib) {
        if (lib == 0) with_cub::warp_and_block_scans<<<blocks, 64>>>(d_in.data(), a.data());
        else with_tilekit::warp_and_block_scans<<<blocks, 64>>>(d_in.data(), b.data());
      });
      const std::vector<int> ha = a.to_host(), hb = b.to_host();
      for (int i = 0; i < n; ++i) {
        const int w0 = i / 8 * 8, b0 = i / 64 * 64;
        int inc_max = in[w0], exc_sum = 0, total = 0, block_max = in[b0];
        for (int j = w0; j < w0 + 8; ++j) {
          if (j <= i) inc_max = std::max(inc_max, in[j]);
          if (j < i) exc_sum += in[j];
          total += in[j];
        }
        for (int j = b0; j <= i; ++j) block_max = std::max(block_max, in[j]);
        const int want[4] = {inc_max, exc_sum, total, block_max};
        for (int k = 0; k < 4; ++k) {
          BOOST_TEST(ha[4 * i + k] == want[k], "::cub output " << k << " of thread " << i);
          BOOST_TEST(hb[4 * i + k] == want[k], "tilekit::cub output " << k << " of thread " << i);
        }
      }
    }
    // load_scan_store: 5 tiles of 512, the last 100 short.
    {
      const int blocks = 5, n = blocks * 512 - 100;
      const std::vector<int> in = exact_values<int>(n, g);
      tk_test::device_buffer<int> d_in(in);
      tk_test::device_buffer<int> aa(blocks * 512, tk_test::poison<int>()), ab(blocks * 512, tk_test::poison<int>());
      tk_test::device_buffer<int> ba(blocks * 512, tk_test::poison<int>()), bb(blocks * 512, tk_test::poison<int>());
      run_both([&](int lib) {
        if (lib == 0) with_cub::load_scan_store<<<blocks, 128>>>(d_in.data(), aa.data(), ab.data(), n);
        else with_tilekit::load_scan_store<<<blocks, 128>>>(d_in.data(), ba.data(), bb.data(), n);
      });
      const std::vector<int> haa = aa.to_host(), hab = ab.to_host(), hba = ba.to_host(), hbb = bb.to_host();
      for (int i = 0; i < blocks * 512; ++i) {
        int inclusive = 0, exclusive = 0;
        for (int j = i / 512 * 512; j <= i && j < n; ++j) {
          exclusive = inclusive;
          inclusive += in[j];
        }
        const int want_a = i < n ? inclusive : tk_test::poison<int>(), want_b = i < n ? exclusive : tk_test::poison<int>();
        BOOST_TEST(haa[i] == want_a, "load_scan_store inclusive with ::cub at " << i);
        BOOST_TEST(hba[i] == want_a, "load_scan_store inclusive with tilekit::cub at " << i);
        BOOST_TEST(hab[i] == want_b, "load_scan_store exclusive with ::cub at " << i);
        BOOST_TEST(hbb[i] == want_b, "load_scan_store exclusive with tilekit::cub at " << i);
      }
    }
    // run_flags: 4 blocks of 64 x 3.
    {
      const int blocks = 4, n = blocks * 192;
      std::vector<int> in(n);
      for (int i = 0; i < n; ++i) in[i] = i > 0 && g() % 3 != 0 ? in[i - 1] : int(g() % 5);
      tk_test::device_buffer<int> d_in(in), ha_(n, tk_test::poison<int>()), ta_(n, tk_test::poison<int>()),
          hb_(n, tk_test::poison<int>()), tb_(n, tk_test::poison<int>());
      run_both([&](int lib) {
        if (lib == 0) with_cub::run_flags<<<blocks, 64>>>(d_in.data(), ha_.data(), ta_.data());
        else with_tilekit::run_flags<<<blocks, 64>>>(d_in.data(), hb_.data(), tb_.data());
      });
      const std::vector<int> ha = ha_.to_host(), ta = ta_.to_host(), hb = hb_.to_host(), tb = tb_.to_host();
      for (int i = 0; i < n; ++i) {
        const int head = i == 0 ? 1 : in[i - 1] != in[i];
        const int tail = i % 192 == 191 ? 1 : in[i] != in[i + 1];
        BOOST_TEST(ha[i] == head, "run_flags head with ::cub at " << i);
        BOOST_TEST(hb[i] == head, "run_flags head with tilekit::cub at " << i);
        BOOST_TEST(ta[i] == tail, "run_flags tail with ::cub at " << i);
        BOOST_TEST(tb[i] == tail, "run_flags tail with tilekit::cub at " << i);
      }
    }
    // byte_histogram: 9 blocks.
    {
      const int blocks = 9, n = blocks * 512;
      std::vector<unsigned char> in(n);
      for (auto& s : in) s = static_cast<unsigned char>(g() % 7 == 0 ? 42 : g());
      tk_test::device_buffer<unsigned char> d_in(in);
      tk_test::device_buffer<unsigned> a(256, 0u), b(256, 0u);
      run_both([&](int lib) {
        if (lib == 0) with_cub::byte_histogram<<<blocks, 128>>>(d_in.data(), a.data());
        else with_tilekit::byte_histogram<<<blocks, 128>>>(d_in.data(), b.data());
      });
      std::vector<unsigned> want(256, 0);
      for (unsigned char s : in) ++want[s];
      const std::vector<unsigned> ha = a.to_host(), hb = b.to_host();
      for (int i = 0; i < 256; ++i) {
        BOOST_TEST(ha[i] == want[i], "::cub bin " << i);
        BOOST_TEST(hb[i] == want[i], "tilekit::cub bin " << i);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_device_program_written_for_cub_writes_the_same_bytes) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const int n = 1000003, segments = 2001, pixel_count = 300007;
  std::vector<int> keys(n), in(n);
  std::vector<long long> values(n), offsets(segments + 1);
  for (int i = 0; i < n; ++i) {
    keys[i] = i > 0 && g() % 4 != 0 ? keys[i - 1] : int(g() % 100);
    values[i] = (long long)(g() % 100000);
    in[i] = int(g() % 2001) - 1000;
  }
  for (int s = 0; s <= segments; ++s) offsets[s] = (long long)(s) * n / segments;
  std::vector<unsigned char> pixels(std::size_t(pixel_count) * 4);
  for (auto& x : pixels) x = static_cast<unsigned char>(g() % 5 == 0 ? 9 : g());
  tk_test::device_buffer<int> d_keys(keys), d_in(in);
  tk_test::device_buffer<long long> d_values(values), d_offsets(offsets);
  tk_test::device_buffer<unsigned char> d_pixels(pixels);
  struct side {
    tk_test::device_buffer<int> data, tiles, unique_keys, num_unique, run_keys, run_sums, num_runs, segment_sums;
    tk_test::device_buffer<long long> unique_values;
    tk_test::device_buffer<unsigned> histograms;
    side(const std::vector<int>& in, int n, int segments)
        : data(in), tiles(std::size_t(n), -1), unique_keys(std::size_t(n), -1), num_unique(1, -1), run_keys(std::size_t(n), -1),
          run_sums(std::size_t(n), -1), num_runs(1, -1), segment_sums(std::size_t(segments), -1),
          unique_values(std::size_t(n), -1ll), histograms(3 * 256, 0xFFFFFFFFu) {}
  };
  side a(in, n, segments), b(in, n, segments);
  auto io = [&](side& s) {
    return with_cub::device_program_io{d_keys.data(), d_values.data(), d_in.data(), s.data.data(), d_pixels.data(),
                                       d_offsets.data(), n, segments, pixel_count, s.tiles.data(), s.unique_keys.data(),
                                       s.unique_values.data(), s.num_unique.data(), s.run_keys.data(), s.run_sums.data(),
                                       s.num_runs.data(), s.segment_sums.data(), s.histograms.data()};
  };
  const auto ia = io(a);
  const auto ib = io(b);
  BOOST_TEST(with_cub::run_device_program(ia) == cudaSuccess);
  const with_tilekit::device_program_io tb{ib.keys, ib.values, ib.in, ib.data, ib.pixels, ib.offsets, ib.n, ib.segments,
                                           ib.pixel_count, ib.tiles, ib.unique_keys, ib.unique_values, ib.num_unique,
                                           ib.run_keys, ib.run_sums, ib.num_runs, ib.segment_sums, ib.histograms};
  BOOST_TEST(with_tilekit::run_device_program(tb) == cudaSuccess);
  auto same = [](const char* what, const auto& x, const auto& y) {
    const auto hx = x.to_host(), hy = y.to_host();
    BOOST_TEST(hx.size() == hy.size());
    const bool equal = hx.size() == hy.size() && std::memcmp(hx.data(), hy.data(), hx.size() * sizeof(hx[0])) == 0;
    BOOST_TEST(equal, what << ": the bytes written through ::cub and tilekit::cub differ, TILEKIT_TEST_SEED=" << base_seed());
  };
  // Everything both write, whole buffers (what neither writes keeps the same fill on both sides).
  same("BlockLoad / BlockScan / BlockStore", a.tiles, b.tiles);
  same("UniqueByKey keys", a.unique_keys, b.unique_keys);
  same("UniqueByKey values", a.unique_values, b.unique_values);
  same("UniqueByKey count", a.num_unique, b.num_unique);
  same("ReduceByKey keys", a.run_keys, b.run_keys);
  same("ReduceByKey sums", a.run_sums, b.run_sums);
  same("ReduceByKey count", a.num_runs, b.num_runs);
  same("DeviceSegmentedReduce::Sum", a.segment_sums, b.segment_sums);
  same("in-place InclusiveSum", a.data, b.data);
  same("MultiHistogramEven", a.histograms, b.histograms);
  BOOST_TEST(b.num_runs.to_host()[0] > 1000);  // the data has runs: the checks above are not vacuous
}
