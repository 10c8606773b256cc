// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tile reduce and scan against the anchors on the GPU: cooperative_groups
// (cg::reduce, cg::inclusive_scan, cg::exclusive_scan) and CUB (WarpReduce,
// WarpScan), same data, same launch. Integers must agree exactly; floats within
// rounding (the anchors combine in other orders).
#include "../common/gpu_backend.cuh"
#include "../cases/tile_common.hpp"

#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>

#include <cmath>
#include <tuple>

namespace {

namespace cg = cooperative_groups;
using tk_test::base_seed;

constexpr unsigned threads = 256;
constexpr unsigned blocks = 64;
constexpr int outputs = 13;

template <unsigned N, class T>
__global__ void anchors_kernel(const T* in, T* out) {
  using warp_reduce = cub::WarpReduce<T, N>;
  using warp_scan = cub::WarpScan<T, N>;
  __shared__ typename warp_reduce::TempStorage reduce_storage[threads / N];
  __shared__ typename warp_scan::TempStorage scan_storage[threads / N];

  auto block = tilekit::this_block<threads>();
  auto tile = tilekit::tiled_partition<N>(block);
  auto cg_tile = cg::tiled_partition<N>(cg::this_thread_block());
  const unsigned t = tile.meta_group_rank();
  const std::size_t i = std::size_t(blockIdx.x) * threads + threadIdx.x;
  const std::size_t n = std::size_t(blocks) * threads;
  const T v = in[i];
  T* o = out + i;

  o[0 * n] = tilekit::reduce(tile, v, tilekit::plus{});
  o[1 * n] = cg::reduce(cg_tile, v, cg::plus<T>());
  o[2 * n] = warp_reduce(reduce_storage[t]).Sum(v);  // valid in lane 0
  o[3 * n] = tilekit::reduce(tile, v, tilekit::minimum{});
  o[4 * n] = cg::reduce(cg_tile, v, cg::less<T>());
  o[5 * n] = tilekit::reduce(tile, v, tilekit::maximum{});
  o[6 * n] = cg::reduce(cg_tile, v, cg::greater<T>());
  o[7 * n] = tilekit::inclusive_scan(tile, v);
  o[8 * n] = cg::inclusive_scan(cg_tile, v);
  T cub_inclusive;
  warp_scan(scan_storage[t]).InclusiveSum(v, cub_inclusive);
  o[9 * n] = cub_inclusive;
  o[10 * n] = tilekit::exclusive_scan(tile, v, tilekit::plus{}, T(0));
  o[11 * n] = cg::exclusive_scan(cg_tile, v);
  __syncwarp();
  T cub_exclusive;
  warp_scan(scan_storage[t]).ExclusiveScan(v, cub_exclusive, T(0), cuda::std::plus<>{});
  o[12 * n] = cub_exclusive;
}

template <class T>
bool close(T got, T want, T scale) {
  if constexpr (std::is_floating_point_v<T>) {
    const T eps = std::is_same_v<T, float> ? T(2e-5) : T(1e-12);
    return std::fabs(double(got) - double(want)) <= double(eps * (scale + T(1)));
  } else {
    return got == want;
  }
}

template <unsigned N, class T>
void check_against_anchors() {
  auto g = tk_test::rng_for(1000 + N * 7 + sizeof(T));
  const std::size_t n = std::size_t(blocks) * threads;
  const std::vector<T> in = tk_test::random_vector<T>(n, g);
  tk_test::device_buffer<T> d_in(in), d_out(outputs * n, tk_test::poison<T>());
  anchors_kernel<N, T><<<blocks, threads>>>(d_in.data(), d_out.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<T> out = d_out.to_host();

  BOOST_TEST_CONTEXT("tile<" << N << "> " << tk_test::type_name<T>() << ", TILEKIT_TEST_SEED=" << base_seed()) {
    tk_test::mismatch_log log;
    auto o = [&](int k, std::size_t i) { return out[k * n + i]; };
    for (std::size_t base = 0; base < n; base += N) {
      T scale = 0;
      for (unsigned l = 0; l < N; ++l) scale += std::is_floating_point_v<T> ? T(std::fabs(double(in[base + l]))) : T(0);
      for (unsigned l = 0; l < N; ++l) {
        const std::size_t i = base + l;
        const std::string where = "element " + std::to_string(i);
        log.expect_true(close(o(0, i), o(1, i), scale), "reduce(plus) vs cg::reduce at " + where);
        if (l == 0) log.expect_true(close(o(0, i), o(2, base), scale), "reduce(plus) vs cub::WarpReduce::Sum at " + where);
        log.expect(o(3, i), o(4, i), "reduce(minimum) vs cg::reduce(less) at " + where);
        log.expect(o(5, i), o(6, i), "reduce(maximum) vs cg::reduce(greater) at " + where);
        log.expect_true(close(o(7, i), o(8, i), scale), "inclusive_scan vs cg::inclusive_scan at " + where);
        log.expect_true(close(o(7, i), o(9, i), scale), "inclusive_scan vs cub::WarpScan::InclusiveSum at " + where);
        log.expect_true(close(o(10, i), o(11, i), scale), "exclusive_scan vs cg::exclusive_scan at " + where);
        log.expect_true(close(o(10, i), o(12, i), scale), "exclusive_scan vs cub::WarpScan::ExclusiveScan at " + where);
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

}  // namespace

using anchor_types = std::tuple<std::int32_t, std::uint32_t, std::int64_t, float, double>;

BOOST_AUTO_TEST_CASE_TEMPLATE(tile_reduce_and_scan_match_cg_and_cub, T, anchor_types) {
  tk_test::for_each_size<2, 4, 8, 16, 32>([](auto size) { check_against_anchors<decltype(size)::value, T>(); });
}
