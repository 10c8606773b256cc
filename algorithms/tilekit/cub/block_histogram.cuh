// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/block_histogram.cuh - cub::BlockHistogram's interface over tilekit's
// block histogram (tilekit/histogram.cuh). The block is BLOCK_DIM_X x BLOCK_DIM_Y x
// BLOCK_DIM_Z threads ranked row-major (x fastest), as CUB's; each thread holds
// ITEMS_PER_THREAD samples, every one a bin index in [0, BINS).
//
// Covered (CUB's signatures, CCCL 3.0): BlockHistogramAlgorithm and its two
// enumerators, TempStorage, BlockHistogram() and BlockHistogram(TempStorage&),
// InitHistogram(counters), Histogram(items, counters), Composite(items, counters).
//
// Differences from CUB:
// - ALGORITHM is accepted and ignored: both enumerators add one atomic per sample to
//   the counters (tilekit's histogram; CUB's default sorts the samples first;
//   perf/block_bench.cu compares the two). So Composite works on counters
//   in shared or global memory, under either enumerator (CUB's BLOCK_HISTO_SORT adds
//   to each counter without atomics), and it leaves `items` as they were (CUB's
//   BLOCK_HISTO_SORT sorts them in place).
// - InitHistogram ends with a barrier (CUB's does not; Histogram has one there in both).
// - TempStorage is empty.
// As with CUB's BLOCK_HISTO_ATOMIC, Histogram / Composite end without a barrier:
// __syncthreads() before reading counters another thread may have added to.
// @pre every thread of the block calls; blockDim is (BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z);
// every sample < BINS.
#pragma once
#include <tilekit/cub/block_reduce.cuh>
#include <tilekit/gpu/groups.cuh>
#include <tilekit/block/histogram.cuh>

namespace tilekit::cub {

/// CUB's block histogram variants; tilekit adds one atomic per sample to the counters for both.
enum BlockHistogramAlgorithm { BLOCK_HISTO_SORT, BLOCK_HISTO_ATOMIC };

/// cub::BlockHistogram: CUB's block histogram (CCCL 3.0 signatures) over tilekit's. The block is
/// BLOCK_DIM_X x BLOCK_DIM_Y x BLOCK_DIM_Z threads ranked row-major (x fastest), as CUB; each holds
/// ITEMS_PER_THREAD samples, every one a bin index in [0, BINS).
/// Differences from CUB: ALGORITHM is accepted and ignored: both enumerators add one atomic per
/// sample to the counters, so Composite works on counters in shared or global memory and leaves
/// `items` as they were (CUB's BLOCK_HISTO_SORT sorts them); InitHistogram ends with a barrier.
/// As CUB's BLOCK_HISTO_ATOMIC, Histogram and Composite end without one: __syncthreads() before
/// reading counters another thread may have added to.
/// @pre every thread of the block calls; blockDim is (BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z);
/// every sample < BINS.
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int BINS, BlockHistogramAlgorithm ALGORITHM = BLOCK_HISTO_SORT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockHistogram {
  static_assert(detail::is_block_dims_v<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>,
                "tilekit::cub::BlockHistogram: BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z must be 1..1024 threads");
  static_assert(ITEMS_PER_THREAD >= 1 && BINS >= 1,
                "tilekit::cub::BlockHistogram: ITEMS_PER_THREAD and BINS must be at least 1");
  static constexpr unsigned threads = unsigned(BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z);

 public:
  /// Nothing: the samples go straight to the counters. Kept so CUB code that declares it compiles.
  struct TempStorage {};

  /// Does nothing: TempStorage is empty.
  __device__ __forceinline__ BlockHistogram() {}
  /// Does nothing: temp_storage is not used.
  __device__ __forceinline__ BlockHistogram(TempStorage& /*temp_storage*/) {}

  /// Zeroes counters[0 .. BINS), then waits for the block (a barrier; CUB has none here).
  template <class CounterT>
  __device__ __forceinline__ void InitHistogram(CounterT histogram[BINS]) {
    ::tilekit::histogram_init(::tilekit::this_block<threads>(), histogram, unsigned(BINS));
  }

  /// Zeroes the counters, then counts the block's samples into them.
  template <class CounterT>
  __device__ __forceinline__ void Histogram(T (&items)[ITEMS_PER_THREAD], CounterT histogram[BINS]) {
    InitHistogram(histogram);
    Composite(items, histogram);
  }

  /// Adds the block's samples to the counters (shared or global memory; atomics).
  template <class CounterT>
  __device__ __forceinline__ void Composite(T (&items)[ITEMS_PER_THREAD], CounterT histogram[BINS]) {
    ::tilekit::histogram(::tilekit::this_block<threads>(), items, histogram);
  }
};

}  // namespace tilekit::cub
