// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/warp_reduce.cuh - cub::WarpReduce's interface over tilekit's tile
// reduce and scan (tilekit/tile/reduce.cuh, tilekit/tile/scan.cuh): logical warp i of a block
// is the tile<LOGICAL_WARP_THREADS> of thread ranks [i * N, (i + 1) * N), as in CUB.
//
// Covered (CUB's signatures, CCCL 3.0): TempStorage, WarpReduce(TempStorage&),
// Sum(x), Sum(x, valid_items), Reduce(x, op), Reduce(x, op, valid_items),
// HeadSegmentedSum / HeadSegmentedReduce(x, head_flag[, op]),
// TailSegmentedSum / TailSegmentedReduce(x, tail_flag[, op]).
//
// Differences from CUB:
// - Every lane gets the result (CUB: lane 0; the segmented forms: each segment's
//   first lane). The segmented forms give every lane its own segment's total.
// - LOGICAL_WARP_THREADS must be a power of two, 1..32 (CUB also takes other sizes
//   through shared memory): a static_assert says so.
// - TempStorage is empty: the tile algorithms need no shared memory.
// - Floating-point sums combine in tilekit's order (a balanced tree over the lanes,
//   bitwise the same in every lane); CUB's lane 0 result may round differently.
// - Whole warps of 32-bit integers with a built-in operator (cuda::std::plus<>,
//   cuda::minimum<>, cuda::maximum<>, the bitwise ones) use redux.sync (sm_80+).
// - valid_items: lanes past it bring the operator's identity where tilekit knows one
//   (the hardware path stays open), else they are left out through tilekit's maybe<T>.
// - The segmented forms are an inclusive tile scan of (value, head) pairs with the
//   segmented operator, then a shuffle from each segment's last lane
//   (detail/collectives.hpp): about twice CUB's shuffles for 4-byte T.
// @pre as CUB: every lane of the logical warp calls, with the same valid_items,
// and 1 <= valid_items (at or above LOGICAL_WARP_THREADS: every lane counts).
#pragma once
#include <tilekit/cub/detail/collectives.hpp>
#include <tilekit/gpu/groups.cuh>
#include <tilekit/tile/reduce.cuh>
#include <tilekit/tile/scan.cuh>

namespace tilekit::cub {

namespace detail {

template <int N>
inline constexpr bool is_tile_size_v = N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32;

/// The calling thread's logical warp of N lanes: consecutive thread ranks of its block.
template <int N>
__device__ __forceinline__ ::tilekit::tile<unsigned(N)> logical_warp() {
  return ::tilekit::tiled_partition<unsigned(N)>(::tilekit::this_block<>());
}

}  // namespace detail

/// cub::WarpReduce: CUB's warp reductions (CCCL 3.0 signatures) over tilekit's tile reduce and scan.
/// Logical warp i of a block is the tile<LOGICAL_WARP_THREADS> of thread ranks [i * N, (i + 1) * N),
/// as in CUB. Differences from CUB: every lane gets the result (CUB: lane 0; the segmented forms: each
/// segment's first lane); LOGICAL_WARP_THREADS must be a power of two, 1..32 (a static_assert says so);
/// TempStorage is empty; floating-point sums combine as a balanced tree over the lanes and may round
/// differently from CUB's.
/// @pre every lane of the logical warp calls, with the same valid_items (1 <= valid_items) where given.
template <class T, int LOGICAL_WARP_THREADS = 32>
class WarpReduce {
  static_assert(detail::is_tile_size_v<LOGICAL_WARP_THREADS>,
                "tilekit::cub::WarpReduce: LOGICAL_WARP_THREADS must be 1, 2, 4, 8, 16 or 32 (tilekit's logical "
                "warps are power-of-two tiles; CUB's shared-memory path for other sizes is not provided)");

 public:
  /// Nothing: the tile algorithms work in registers. Kept so CUB code that declares it compiles.
  struct TempStorage {};

  /// Does nothing: temp_storage is not used (the tile algorithms work in registers).
  __device__ __forceinline__ WarpReduce(TempStorage& /*temp_storage*/) {}

  /// The sum over the logical warp, in every lane.
  __device__ __forceinline__ T Sum(T input) { return Reduce(input, ::tilekit::plus{}); }

  /// The sum over the first valid_items lanes, in every lane. @pre valid_items >= 1.
  __device__ __forceinline__ T Sum(T input, int valid_items) { return Reduce(input, ::tilekit::plus{}, valid_items); }

  /// op over the logical warp (op associative; commutativity not needed), in every lane.
  template <class ReductionOp>
  __device__ __forceinline__ T Reduce(T input, ReductionOp reduction_op) {
    return ::tilekit::reduce(detail::logical_warp<LOGICAL_WARP_THREADS>(), input, reduction_op);
  }

  /// op over the first valid_items lanes, in every lane. @pre valid_items >= 1.
  template <class ReductionOp>
  __device__ __forceinline__ T Reduce(T input, ReductionOp reduction_op, int valid_items) {
    if (valid_items >= LOGICAL_WARP_THREADS) return Reduce(input, reduction_op);
    return detail::reduce_valid(detail::logical_warp<LOGICAL_WARP_THREADS>(), input, reduction_op, valid_items);
  }

  /// Sums of the segments that head_flag starts (lane 0 always starts one); every
  /// lane gets its segment's sum (CUB: the segment's first lane).
  template <class FlagT>
  __device__ __forceinline__ T HeadSegmentedSum(T input, FlagT head_flag) {
    return HeadSegmentedReduce(input, head_flag, ::tilekit::plus{});
  }

  /// Sums of the segments that tail_flag ends; every lane gets its segment's sum
  /// (CUB: the segment's first lane).
  template <class FlagT>
  __device__ __forceinline__ T TailSegmentedSum(T input, FlagT tail_flag) {
    return TailSegmentedReduce(input, tail_flag, ::tilekit::plus{});
  }

  /// reduction_op over each segment that head_flag starts (lane 0 always starts one); every lane gets
  /// its segment's result (CUB: the segment's first lane). reduction_op need only be associative.
  template <class ReductionOp, class FlagT>
  __device__ __forceinline__ T HeadSegmentedReduce(T input, FlagT head_flag, ReductionOp reduction_op) {
    return detail::head_segmented_reduce(detail::logical_warp<LOGICAL_WARP_THREADS>(), input, bool(head_flag),
                                         reduction_op);
  }

  /// reduction_op over each segment that tail_flag ends (the lane after a tail starts the next); every
  /// lane gets its segment's result (CUB: the segment's first lane). reduction_op need only be associative.
  template <class ReductionOp, class FlagT>
  __device__ __forceinline__ T TailSegmentedReduce(T input, FlagT tail_flag, ReductionOp reduction_op) {
    return detail::tail_segmented_reduce(detail::logical_warp<LOGICAL_WARP_THREADS>(), input, bool(tail_flag),
                                         reduction_op);
  }
};

}  // namespace tilekit::cub
