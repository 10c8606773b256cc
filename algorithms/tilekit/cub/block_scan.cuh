// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/block_scan.cuh - cub::BlockScan's interface over tilekit's block scans
// (tilekit/scan.cuh). The block is BLOCK_DIM_X x BLOCK_DIM_Y x BLOCK_DIM_Z threads
// ranked row-major (x fastest), as CUB's; arrays are in the blocked arrangement
// (thread r holds items r*K .. r*K+K-1) and may alias (input == output).
//
// Covered (CUB's signatures, CCCL 3.0), each for one item (T) and for K items (T (&)[K]):
//   InclusiveSum(in, out)   InclusiveSum(in, out, block_aggregate)   InclusiveSum(in, out, prefix_op)
//   ExclusiveSum(in, out)   ExclusiveSum(in, out, block_aggregate)   ExclusiveSum(in, out, prefix_op)
//   InclusiveScan(in, out, op)  InclusiveScan(in, out, op, block_aggregate)  InclusiveScan(in, out, op, prefix_op)
//   InclusiveScan(in[K], out[K], initial_value, op[, block_aggregate])        (arrays only, as CUB)
//   ExclusiveScan(in, out, initial_value, op[, block_aggregate])  ExclusiveScan(in, out, op, prefix_op)
//   ExclusiveScan(in, out, op[, block_aggregate])     no initial value: thread 0's (first) output undefined
// plus BlockScanAlgorithm, TempStorage, BlockScan() (a private __shared__ storage, as
// CUB) and BlockScan(TempStorage&). block_aggregate never includes initial_value or
// the callback's prefix (as CUB). prefix_op: CUB's BlockPrefixCallbackOp, T
// operator()(T block_aggregate), called by every thread of the first warp with the
// block aggregate; what thread 0's call returns seeds the whole block (tilekit's
// *_scan_prefix contract is the same).
//
// ALGORITHM: BLOCK_SCAN_RAKING and BLOCK_SCAN_RAKING_MEMOIZE run tilekit's raking
// scan (block_scan_algorithm::raking), BLOCK_SCAN_WARP_SCANS its warp_scans. Blocks
// of fewer than 32 threads scan as warp_scans either way (CUB turns WARP_SCANS into
// RAKING for blocks that are not whole warps; tilekit's warp_scans handles them).
//
// Differences from CUB:
// - Floating-point sums combine in tilekit's order and may round differently.
// - Where CUB leaves thread 0's first exclusive output undefined (no initial value),
//   it gets thread 0's first input.
// - TempStorage is tilekit::scan_storage<T, threads, variant>.
// The forms tilekit's public block scans lack (an exclusive scan with neither an
// initial value nor an identity, an inclusive scan of arrays with an initial value)
// are composed in detail/collectives.hpp on the block part of tilekit's scan; the
// single-item prefix-callback forms run tilekit's array form with K = 1.
// @pre every thread of the block calls; blockDim is (BLOCK_DIM_X, BLOCK_DIM_Y,
// BLOCK_DIM_Z); __syncthreads() before the TempStorage is reused (as CUB).
#pragma once
#include <tilekit/cub/block_reduce.cuh>
#include <tilekit/cub/detail/collectives.hpp>
#include <tilekit/gpu/groups.cuh>
#include <tilekit/block/scan.cuh>

namespace tilekit::cub {

/// CUB's block scan variants: the raking ones map to tilekit's raking, WARP_SCANS to warp_scans.
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

/// cub::BlockScan: CUB's block-wide prefix scans (CCCL 3.0 signatures) over tilekit's block scans,
/// one item (T) or ITEMS_PER_THREAD items per thread (blocked arrangement: thread r holds items
/// r*K .. r*K+K-1; input may alias output). The block is BLOCK_DIM_X x BLOCK_DIM_Y x BLOCK_DIM_Z
/// threads ranked row-major (x fastest), as CUB. block_aggregate never includes initial_value or the
/// callback's prefix. A BlockPrefixCallbackOp is `T operator()(T block_aggregate)`, called by every
/// thread of the first warp; what thread 0's call returns seeds the whole block.
/// Differences from CUB: floating-point sums combine in tilekit's order and may round differently;
/// where CUB leaves thread 0's first exclusive output undefined, it gets thread 0's first input;
/// blocks of fewer than 32 threads scan as warp_scans under every ALGORITHM.
/// @pre every thread of the block calls; blockDim is (BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z);
/// __syncthreads() before the TempStorage is reused (as CUB).
template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockScan {
  static_assert(detail::is_block_dims_v<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>,
                "tilekit::cub::BlockScan: BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z must be 1..1024 threads");
  static constexpr unsigned threads = unsigned(BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z);
  static constexpr ::tilekit::block_scan_algorithm variant = ALGORITHM == BLOCK_SCAN_WARP_SCANS
                                                                 ? ::tilekit::block_scan_algorithm::warp_scans
                                                                 : ::tilekit::block_scan_algorithm::raking;
  using storage_t = ::tilekit::scan_storage<T, threads, variant>;

 public:
  /// Shared memory of one call; a union member or `__shared__` variable, as CUB's.
  struct TempStorage : storage_t {};

  /// Uses a `__shared__` TempStorage private to this specialisation (as CUB).
  __device__ __forceinline__ BlockScan() : storage_(private_storage()) {}
  /// Uses temp_storage, the caller's shared memory (a `__shared__` variable or union member).
  __device__ __forceinline__ BlockScan(TempStorage& temp_storage) : storage_(temp_storage) {}

  // ================================================================ one item per thread

  // ---- exclusive sums (thread 0 gets T{}, or the callback's prefix)

  /// Exclusive prefix sum: output = the sum of the inputs of the lower ranks; thread 0 gets T{}.
  __device__ __forceinline__ void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T{}, sum()); }
  /// As above; block_aggregate = the sum of every input, in every thread.
  __device__ __forceinline__ void ExclusiveSum(T input, T& output, T& block_aggregate) {
    ExclusiveScan(input, output, T{}, sum(), block_aggregate);
  }
  /// Exclusive prefix sum seeded by the callback: thread r gets the callback's prefix plus the inputs
  /// of the ranks below r (thread 0: the prefix).
  template <class BlockPrefixCallbackOp>
  __device__ __forceinline__ void ExclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) {
    ExclusiveScan(input, output, sum(), block_prefix_callback_op);
  }

  // ---- exclusive scans

  /// output = initial_value op the inputs of the lower ranks, in rank order (thread 0: initial_value);
  /// scan_op need only be associative.
  template <class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op) {
    output = ::tilekit::exclusive_scan(block(), input, scan_op, initial_value, storage());
  }
  /// As above; block_aggregate = scan_op over every input (initial_value not included), in every thread.
  template <class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& output, T initial_value, ScanOp scan_op,
                                                T& block_aggregate) {
    const ::tilekit::scanned<T> s = ::tilekit::exclusive_scan_aggregate(block(), input, scan_op, initial_value, storage());
    output = s.value;
    block_aggregate = s.aggregate;
  }
  /// As ExclusiveScan(input, output, initial_value, scan_op), the callback's prefix as initial_value.
  template <class ScanOp, class BlockPrefixCallbackOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& output, ScanOp scan_op,
                                                BlockPrefixCallbackOp& block_prefix_callback_op) {
    T items[1] = {input};
    ::tilekit::exclusive_scan_prefix(block(), items, items, scan_op, storage(), block_prefix_callback_op);
    output = items[0];
  }
  /// output = scan_op over the inputs of the lower ranks, in rank order. No initial value: thread 0's
  /// output is undefined (here: its input).
  template <class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& output, ScanOp scan_op) {
    output = detail::exclusive_scan_no_init(block(), input, scan_op, storage()).value;
  }
  /// As above; block_aggregate = scan_op over every input, in every thread. No initial value: thread
  /// 0's output is undefined (here: its input).
  template <class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) {
    const ::tilekit::scanned<T> s = detail::exclusive_scan_no_init(block(), input, scan_op, storage());
    output = s.value;
    block_aggregate = s.aggregate;
  }

  // ---- inclusive sums and scans

  /// Inclusive prefix sum: output = the sum of the inputs of ranks 0 .. this thread's.
  __device__ __forceinline__ void InclusiveSum(T input, T& output) { InclusiveScan(input, output, sum()); }
  /// As above; block_aggregate = the sum of every input, in every thread.
  __device__ __forceinline__ void InclusiveSum(T input, T& output, T& block_aggregate) {
    InclusiveScan(input, output, sum(), block_aggregate);
  }
  /// Inclusive prefix sum seeded by the callback: its prefix plus the inputs of ranks 0 .. this thread's.
  template <class BlockPrefixCallbackOp>
  __device__ __forceinline__ void InclusiveSum(T input, T& output, BlockPrefixCallbackOp& block_prefix_callback_op) {
    InclusiveScan(input, output, sum(), block_prefix_callback_op);
  }

  /// output = scan_op over the inputs of ranks 0 .. this thread's, in rank order; scan_op need only
  /// be associative.
  template <class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& output, ScanOp scan_op) {
    output = ::tilekit::inclusive_scan(block(), input, scan_op, storage());
  }
  /// As above; block_aggregate = scan_op over every input, in every thread.
  template <class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& output, ScanOp scan_op, T& block_aggregate) {
    const ::tilekit::scanned<T> s = ::tilekit::inclusive_scan_aggregate(block(), input, scan_op, storage());
    output = s.value;
    block_aggregate = s.aggregate;
  }
  /// Inclusive scan seeded by the callback: its prefix op the inputs of ranks 0 .. this thread's.
  template <class ScanOp, class BlockPrefixCallbackOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& output, ScanOp scan_op,
                                                BlockPrefixCallbackOp& block_prefix_callback_op) {
    T items[1] = {input};
    ::tilekit::inclusive_scan_prefix(block(), items, items, scan_op, storage(), block_prefix_callback_op);
    output = items[0];
  }

  // ================================================================ K items per thread

  // ---- exclusive sums

  /// Exclusive prefix sum of the block's items: output[k] = the sum of the items before input[k];
  /// thread 0's first output is T{}.
  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) {
    ExclusiveScan(input, output, T{}, sum());
  }
  /// As above; block_aggregate = the sum of every item, in every thread.
  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                               T& block_aggregate) {
    ExclusiveScan(input, output, T{}, sum(), block_aggregate);
  }
  /// As ExclusiveSum(input, output), seeded by the callback: every output starts from its prefix
  /// (thread 0's first: the prefix).
  template <int ITEMS_PER_THREAD, class BlockPrefixCallbackOp>
  __device__ __forceinline__ void ExclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                               BlockPrefixCallbackOp& block_prefix_callback_op) {
    ExclusiveScan(input, output, sum(), block_prefix_callback_op);
  }

  // ---- exclusive scans

  /// output[k] = initial_value op the items before input[k], in order (thread 0's first:
  /// initial_value); scan_op need only be associative.
  template <int ITEMS_PER_THREAD, class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                T initial_value, ScanOp scan_op) {
    ::tilekit::exclusive_scan(block(), input, output, scan_op, initial_value, storage());
  }
  /// As above; block_aggregate = scan_op over every item (initial_value not included), in every thread.
  template <int ITEMS_PER_THREAD, class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                T initial_value, ScanOp scan_op, T& block_aggregate) {
    block_aggregate = ::tilekit::exclusive_scan(block(), input, output, scan_op, initial_value, storage());
  }
  /// As the array ExclusiveScan with initial_value, the callback's prefix as initial_value.
  template <int ITEMS_PER_THREAD, class ScanOp, class BlockPrefixCallbackOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) {
    ::tilekit::exclusive_scan_prefix(block(), input, output, scan_op, storage(), block_prefix_callback_op);
  }
  /// output[k] = scan_op over the items before input[k], in order. No initial value: thread 0's first
  /// output is undefined (here: its first input).
  template <int ITEMS_PER_THREAD, class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op) {
    detail::exclusive_scan_no_init(block(), input, output, scan_op, storage());
  }
  /// As above; block_aggregate = scan_op over every item, in every thread. No initial value: thread
  /// 0's first output is undefined (here: its first input).
  template <int ITEMS_PER_THREAD, class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op, T& block_aggregate) {
    block_aggregate = detail::exclusive_scan_no_init(block(), input, output, scan_op, storage());
  }

  // ---- inclusive sums and scans

  /// Inclusive prefix sum of the block's items: output[k] = the sum of the items up to input[k].
  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD]) {
    InclusiveScan(input, output, sum());
  }
  /// As above; block_aggregate = the sum of every item, in every thread.
  template <int ITEMS_PER_THREAD>
  __device__ __forceinline__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                               T& block_aggregate) {
    InclusiveScan(input, output, sum(), block_aggregate);
  }
  /// Inclusive prefix sum seeded by the callback: its prefix plus the items up to input[k].
  template <int ITEMS_PER_THREAD, class BlockPrefixCallbackOp>
  __device__ __forceinline__ void InclusiveSum(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                               BlockPrefixCallbackOp& block_prefix_callback_op) {
    InclusiveScan(input, output, sum(), block_prefix_callback_op);
  }

  /// output[k] = scan_op over the items up to input[k], in order; scan_op need only be associative.
  template <int ITEMS_PER_THREAD, class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op) {
    ::tilekit::inclusive_scan(block(), input, output, scan_op, storage());
  }
  /// As above; block_aggregate = scan_op over every item, in every thread.
  template <int ITEMS_PER_THREAD, class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op, T& block_aggregate) {
    block_aggregate = ::tilekit::inclusive_scan(block(), input, output, scan_op, storage());
  }
  /// output[k] = initial_value op the items up to input[k] (arrays only, as CUB).
  template <int ITEMS_PER_THREAD, class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                T initial_value, ScanOp scan_op) {
    detail::inclusive_scan_init(block(), input, output, scan_op, initial_value, storage());
  }
  /// As above; block_aggregate = scan_op over every item (initial_value not included), in every thread.
  template <int ITEMS_PER_THREAD, class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                T initial_value, ScanOp scan_op, T& block_aggregate) {
    block_aggregate = detail::inclusive_scan_init(block(), input, output, scan_op, initial_value, storage());
  }
  /// Inclusive scan seeded by the callback: its prefix op the items up to input[k].
  template <int ITEMS_PER_THREAD, class ScanOp, class BlockPrefixCallbackOp>
  __device__ __forceinline__ void InclusiveScan(T (&input)[ITEMS_PER_THREAD], T (&output)[ITEMS_PER_THREAD],
                                                ScanOp scan_op, BlockPrefixCallbackOp& block_prefix_callback_op) {
    ::tilekit::inclusive_scan_prefix(block(), input, output, scan_op, storage(), block_prefix_callback_op);
  }

 private:
  static __device__ __forceinline__ ::tilekit::plus sum() { return {}; }
  static __device__ __forceinline__ ::tilekit::block<threads> block() { return ::tilekit::this_block<threads>(); }
  static __device__ __forceinline__ TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }
  __device__ __forceinline__ storage_t& storage() { return storage_; }

  TempStorage& storage_;
};

}  // namespace tilekit::cub
