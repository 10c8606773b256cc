// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/block_discontinuity.cuh - cub::BlockDiscontinuity's interface over
// detail/arrangements.hpp's flag_discontinuities.
//
// Covered (CUB's signatures, CCCL 3.0), over ITEMS_PER_THREAD blocked items per thread:
//   FlagHeads(head_flags, input, flag_op[, tile_predecessor_item])
//   FlagTails(tail_flags, input, flag_op[, tile_successor_item])
//   FlagHeadsAndTails(head_flags, [tile_predecessor_item,] tail_flags, [tile_successor_item,] input, flag_op)
// with TempStorage and both constructors. flag_op(a, b) says whether b starts a new run
// after a (discontinuous: flag 1); a flag_op(a, b, b_index) gets b's rank in the block's
// items as well, as CUB's. The block's first head and last tail are 1 unless a tile
// predecessor / successor item is given. Not covered: the deprecated form with a
// predecessor array output.
// @pre every thread of the block calls; blockDim is (X, Y, Z); __syncthreads() before the
// TempStorage is reused (as CUB).
#pragma once
#include <tilekit/cub/block_reduce.cuh>
#include <tilekit/cub/detail/arrangements.hpp>
#include <tilekit/core/storage.hpp>
#include <tilekit/gpu/groups.cuh>

namespace tilekit::cub {

/// cub::BlockDiscontinuity: flags the items of a block (blocked arrangement) that start or end a run of
/// items flag_op calls continuous.
template <class T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockDiscontinuity {
  static_assert(detail::is_block_dims_v<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>,
                "tilekit::cub::BlockDiscontinuity: BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z must be 1..1024 threads");
  static constexpr unsigned threads = unsigned(BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z);

 public:
  /// Shared memory of one call: each thread's first and last item.
  struct TempStorage {
    ::tilekit::detail::raw_slots<T, 2 * threads> slots;  ///< each thread's last item, then each thread's first
  };

  /// Uses a `__shared__` TempStorage private to this specialisation (as CUB).
  __device__ __forceinline__ BlockDiscontinuity() : storage_(private_storage()) {}
  /// Uses temp_storage, the caller's shared memory.
  __device__ __forceinline__ BlockDiscontinuity(TempStorage& temp_storage) : storage_(temp_storage) {}

  /// head_flags[k] = 1 where item k starts a run (the block's first item always).
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  __device__ __forceinline__ void FlagHeads(FlagT (&head_flags)[ITEMS_PER_THREAD], T (&input)[ITEMS_PER_THREAD],
                                            FlagOp flag_op) {
    flags(&head_flags, no_flags<FlagT, ITEMS_PER_THREAD>(), input, flag_op, nullptr, nullptr);
  }
  /// As above; the block's first item is compared with tile_predecessor_item.
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  __device__ __forceinline__ void FlagHeads(FlagT (&head_flags)[ITEMS_PER_THREAD], T (&input)[ITEMS_PER_THREAD],
                                            FlagOp flag_op, T tile_predecessor_item) {
    flags(&head_flags, no_flags<FlagT, ITEMS_PER_THREAD>(), input, flag_op, &tile_predecessor_item, nullptr);
  }
  /// tail_flags[k] = 1 where item k ends a run (the block's last item always).
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  __device__ __forceinline__ void FlagTails(FlagT (&tail_flags)[ITEMS_PER_THREAD], T (&input)[ITEMS_PER_THREAD],
                                            FlagOp flag_op) {
    flags(no_flags<FlagT, ITEMS_PER_THREAD>(), &tail_flags, input, flag_op, nullptr, nullptr);
  }
  /// As above; the block's last item is compared with tile_successor_item.
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  __device__ __forceinline__ void FlagTails(FlagT (&tail_flags)[ITEMS_PER_THREAD], T (&input)[ITEMS_PER_THREAD],
                                            FlagOp flag_op, T tile_successor_item) {
    flags(no_flags<FlagT, ITEMS_PER_THREAD>(), &tail_flags, input, flag_op, nullptr, &tile_successor_item);
  }
  /// FlagHeads and FlagTails in one call.
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  __device__ __forceinline__ void FlagHeadsAndTails(FlagT (&head_flags)[ITEMS_PER_THREAD],
                                                    FlagT (&tail_flags)[ITEMS_PER_THREAD], T (&input)[ITEMS_PER_THREAD],
                                                    FlagOp flag_op) {
    flags(&head_flags, &tail_flags, input, flag_op, nullptr, nullptr);
  }
  /// As above, the last item compared with tile_successor_item.
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  __device__ __forceinline__ void FlagHeadsAndTails(FlagT (&head_flags)[ITEMS_PER_THREAD],
                                                    FlagT (&tail_flags)[ITEMS_PER_THREAD], T tile_successor_item,
                                                    T (&input)[ITEMS_PER_THREAD], FlagOp flag_op) {
    flags(&head_flags, &tail_flags, input, flag_op, nullptr, &tile_successor_item);
  }
  /// As above, the first item compared with tile_predecessor_item.
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  __device__ __forceinline__ void FlagHeadsAndTails(FlagT (&head_flags)[ITEMS_PER_THREAD], T tile_predecessor_item,
                                                    FlagT (&tail_flags)[ITEMS_PER_THREAD], T (&input)[ITEMS_PER_THREAD],
                                                    FlagOp flag_op) {
    flags(&head_flags, &tail_flags, input, flag_op, &tile_predecessor_item, nullptr);
  }
  /// As above, with both tile_predecessor_item and tile_successor_item.
  template <int ITEMS_PER_THREAD, class FlagT, class FlagOp>
  __device__ __forceinline__ void FlagHeadsAndTails(FlagT (&head_flags)[ITEMS_PER_THREAD], T tile_predecessor_item,
                                                    FlagT (&tail_flags)[ITEMS_PER_THREAD], T tile_successor_item,
                                                    T (&input)[ITEMS_PER_THREAD], FlagOp flag_op) {
    flags(&head_flags, &tail_flags, input, flag_op, &tile_predecessor_item, &tile_successor_item);
  }

 private:
  template <class FlagT, int K>
  static __device__ __forceinline__ FlagT (*no_flags())[K] { return nullptr; }
  template <int K, class FlagT, class FlagOp>
  __device__ __forceinline__ void flags(FlagT (*heads)[K], FlagT (*tails)[K], const T (&input)[K], FlagOp flag_op,
                                        const T* predecessor, const T* successor) {
    detail::flag_discontinuities<threads>(::tilekit::this_block<threads>(), heads, tails, input, flag_op, predecessor,
                                          successor, &storage_.slots[0]);
  }
  static __device__ __forceinline__ TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }
  TempStorage& storage_;
};

}  // namespace tilekit::cub
