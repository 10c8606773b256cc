// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/block_reduce.cuh - cub::BlockReduce's interface over tilekit's block
// reduce (tilekit/block/reduce.cuh). The block is BLOCK_DIM_X x BLOCK_DIM_Y x BLOCK_DIM_Z
// threads ranked row-major (x fastest), as CUB's.
//
// Covered (CUB's signatures, CCCL 3.0): BlockReduceAlgorithm and its three enumerators,
// TempStorage, BlockReduce() (a private __shared__ storage, as CUB), BlockReduce(TempStorage&),
// Sum(x), Sum(x, num_valid), Sum(T (&)[K]), Reduce(x, op), Reduce(x, op, num_valid),
// Reduce(T (&)[K], op).
//
// Differences from CUB:
// - Every thread gets the aggregate (CUB: thread 0 only; its other threads' values
//   are undefined, so this is a superset).
// - ALGORITHM is accepted and ignored: every enumerator runs tilekit's one block
//   reduce (whole warps reduce as tile<32>, redux.sync for 32-bit integers with a
//   built-in operator, then one barrier; perf/block_bench.cu compares it with
//   CUB's default). It combines in rank order, so non-commutative operators work with every
//   enumerator (CUB's BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY requires commutativity).
// - Floating-point sums combine in tilekit's order and may round differently.
// - TempStorage is tilekit::reduce_storage<T, threads> (one slot per warp, plus one per
//   lane of a partial last warp).
// @pre every thread of the block calls; blockDim is (BLOCK_DIM_X, BLOCK_DIM_Y,
// BLOCK_DIM_Z); 1 <= num_valid (at or above the block size: every thread counts);
// __syncthreads() before the TempStorage is reused (as CUB).
#pragma once
#include <tilekit/gpu/groups.cuh>
#include <tilekit/block/reduce.cuh>

namespace tilekit::cub {

/// CUB's block reduce variants; tilekit runs its one block reduce for each.
enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };

namespace detail {
template <int X, int Y, int Z>
inline constexpr bool is_block_dims_v = X >= 1 && Y >= 1 && Z >= 1 && X * Y * Z <= 1024;
}  // namespace detail

/// cub::BlockReduce: CUB's block-wide reductions (CCCL 3.0 signatures) over tilekit's block reduce.
/// The block is BLOCK_DIM_X x BLOCK_DIM_Y x BLOCK_DIM_Z threads ranked row-major (x fastest), as CUB.
/// Differences from CUB: every thread gets the aggregate (CUB: thread 0 only); ALGORITHM is accepted
/// and ignored, every enumerator combining in rank order, so non-commutative operators work with
/// each; floating-point sums combine in tilekit's order and may round differently.
/// @pre every thread of the block calls; blockDim is (BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z);
/// __syncthreads() before the TempStorage is reused (as CUB).
template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockReduce {
  static_assert(detail::is_block_dims_v<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>,
                "tilekit::cub::BlockReduce: BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z must be 1..1024 threads");
  static constexpr unsigned threads = unsigned(BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z);
  using storage_t = ::tilekit::reduce_storage<T, threads>;

 public:
  /// Shared memory of one call; a union member or `__shared__` variable, as CUB's.
  struct TempStorage : storage_t {};

  /// Uses a `__shared__` TempStorage private to this specialisation (as CUB).
  __device__ __forceinline__ BlockReduce() : storage_(private_storage()) {}
  /// Uses temp_storage, the caller's shared memory (a `__shared__` variable or union member).
  __device__ __forceinline__ BlockReduce(TempStorage& temp_storage) : storage_(temp_storage) {}

  /// The sum over the block, in every thread.
  __device__ __forceinline__ T Sum(T input) { return Reduce(input, ::tilekit::plus{}); }

  /// The sum over threads 0 .. num_valid - 1, in every thread. @pre num_valid >= 1.
  __device__ __forceinline__ T Sum(T input, int num_valid) { return Reduce(input, ::tilekit::plus{}, num_valid); }

  /// The sum over every item of the block (K per thread), in every thread.
  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ T Sum(T (&inputs)[ITEMS_PER_THREAD]) {
    return Reduce(inputs, ::tilekit::plus{});
  }

  /// op over the block in rank order (op associative), in every thread.
  template <class ReductionOp>
  __device__ __forceinline__ T Reduce(T input, ReductionOp reduction_op) {
    return ::tilekit::reduce(::tilekit::this_block<threads>(), input, reduction_op, storage());
  }

  /// op over the items of the block (K per thread, blocked arrangement), in every thread.
  template <int ITEMS_PER_THREAD, class ReductionOp>
  __device__ __forceinline__ T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op) {
    return ::tilekit::reduce(::tilekit::this_block<threads>(), inputs, reduction_op, storage());
  }

  /// op over threads 0 .. num_valid - 1, in every thread. @pre num_valid >= 1.
  template <class ReductionOp>
  __device__ __forceinline__ T Reduce(T input, ReductionOp reduction_op, int num_valid) {
    if (num_valid >= int(threads)) return Reduce(input, reduction_op);
    return ::tilekit::reduce(::tilekit::this_block<threads>(), input, reduction_op, storage(), unsigned(num_valid));
  }

 private:
  static __device__ __forceinline__ TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }
  __device__ __forceinline__ storage_t& storage() { return storage_; }

  TempStorage& storage_;
};

}  // namespace tilekit::cub
