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
// - LOGICAL_WARP_THREADS of 1..32. Powers of two are tiles (registers and shuffles;
//   TempStorage is empty). Other sizes go through the TempStorage (shared memory):
//   logical warp i is thread ranks [i * N, (i + 1) * N) even where it spans two hardware
//   warps, so the lanes meet between block barriers, and every thread of the block calls
//   (CUB 3.0 syncs only the hardware warp there and gives wrong results for logical warps
//   that cross one, NVIDIA/cccl#858).
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
/// Logical warp i of a block is thread ranks [i * N, (i + 1) * N), as in CUB. N a power of two: the
/// tile<N> (registers, shuffles; TempStorage is empty). Other N of 1..32: through TempStorage (shared
/// memory) between block barriers, so every thread of the block calls and the block is whole logical
/// warps. Differences from CUB: every lane gets the result (CUB: lane 0; the segmented forms: each
/// segment's first lane); floating-point sums may round differently from CUB's.
/// @pre every lane of the logical warp calls (N not a power of two: every thread of the block), with
/// the same valid_items (1 <= valid_items) where given.
template <class T, int LOGICAL_WARP_THREADS = 32>
class WarpReduce {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32,
                "tilekit::cub::WarpReduce: LOGICAL_WARP_THREADS must be 1..32");
  static constexpr bool tile = detail::is_tile_size_v<LOGICAL_WARP_THREADS>;
  static constexpr unsigned W = unsigned(LOGICAL_WARP_THREADS);
  struct smem_t {
    ::tilekit::detail::raw_slots<T, W> values;
    unsigned char flags[W];
  };
  struct none_t {};

 public:
  /// Shared memory of one call for the sizes that are not powers of two; empty for the others (the
  /// tile algorithms work in registers), kept so CUB code that declares it compiles.
  struct TempStorage : ::tilekit::detail::stdx::conditional_t<tile, none_t, smem_t> {};

  /// Uses temp_storage where N is not a power of two.
  __device__ __forceinline__ WarpReduce(TempStorage& temp_storage) : storage_(temp_storage) {}

  /// The sum over the logical warp, in every lane.
  __device__ __forceinline__ T Sum(T input) { return Reduce(input, ::tilekit::plus{}); }

  /// The sum over the first valid_items lanes, in every lane. @pre valid_items >= 1.
  __device__ __forceinline__ T Sum(T input, int valid_items) { return Reduce(input, ::tilekit::plus{}, valid_items); }

  /// op over the logical warp (op associative; commutativity not needed), in every lane.
  template <class ReductionOp>
  __device__ __forceinline__ T Reduce(T input, ReductionOp reduction_op) {
    if constexpr (tile) return ::tilekit::reduce(detail::logical_warp<LOGICAL_WARP_THREADS>(), input, reduction_op);
    else return detail::smem_warp_reduce<W>(::tilekit::this_block<>(), input, reduction_op, LOGICAL_WARP_THREADS, values());
  }

  /// op over the first valid_items lanes, in every lane. @pre valid_items >= 1.
  template <class ReductionOp>
  __device__ __forceinline__ T Reduce(T input, ReductionOp reduction_op, int valid_items) {
    if constexpr (tile) {
      if (valid_items >= LOGICAL_WARP_THREADS) return Reduce(input, reduction_op);
      return detail::reduce_valid(detail::logical_warp<LOGICAL_WARP_THREADS>(), input, reduction_op, valid_items);
    } else {
      return detail::smem_warp_reduce<W>(::tilekit::this_block<>(), input, reduction_op, valid_items, values());
    }
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
    if constexpr (tile)
      return detail::head_segmented_reduce(detail::logical_warp<LOGICAL_WARP_THREADS>(), input, bool(head_flag),
                                           reduction_op);
    else
      return detail::smem_warp_segmented_reduce<W, false>(::tilekit::this_block<>(), input, bool(head_flag), reduction_op,
                                                          values(), flags());
  }

  /// reduction_op over each segment that tail_flag ends (the lane after a tail starts the next); every
  /// lane gets its segment's result (CUB: the segment's first lane). reduction_op need only be associative.
  template <class ReductionOp, class FlagT>
  __device__ __forceinline__ T TailSegmentedReduce(T input, FlagT tail_flag, ReductionOp reduction_op) {
    if constexpr (tile)
      return detail::tail_segmented_reduce(detail::logical_warp<LOGICAL_WARP_THREADS>(), input, bool(tail_flag),
                                           reduction_op);
    else
      return detail::smem_warp_segmented_reduce<W, true>(::tilekit::this_block<>(), input, bool(tail_flag), reduction_op,
                                                         values(), flags());
  }

 private:
  __device__ __forceinline__ T* values() {
    if constexpr (tile) return nullptr;
    else return &storage_.values[0];
  }
  __device__ __forceinline__ unsigned char* flags() {
    if constexpr (tile) return nullptr;
    else return storage_.flags;
  }
  TempStorage& storage_;
};

}  // namespace tilekit::cub
