// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/warp_scan.cuh - cub::WarpScan's interface over tilekit's tile scans
// (tilekit/scan.cuh): logical warp i of a block is the tile<LOGICAL_WARP_THREADS>
// of thread ranks [i * N, (i + 1) * N), as in CUB.
//
// Covered (CUB's signatures, CCCL 3.0): TempStorage, WarpScan(TempStorage&),
//   InclusiveSum(in, out[, warp_aggregate])
//   ExclusiveSum(in, out[, warp_aggregate])            lane 0 gets T{}
//   InclusiveScan(in, out, op[, warp_aggregate])
//   InclusiveScan(in, out, initial_value, op[, warp_aggregate])
//   ExclusiveScan(in, out, op[, warp_aggregate])       lane 0's output undefined (as CUB)
//   ExclusiveScan(in, out, initial_value, op[, warp_aggregate])
//   Scan(in, inclusive_out, exclusive_out, op)          lane 0's exclusive undefined (as CUB)
//   Scan(in, inclusive_out, exclusive_out, initial_value, op)
//   Broadcast(x, src_lane)
// warp_aggregate never includes initial_value (as CUB).
//
// Differences from CUB:
// - LOGICAL_WARP_THREADS must be a power of two, 1..32 (CUB also takes other sizes
//   through shared memory): a static_assert says so.
// - TempStorage is empty: the tile scans work in registers.
// - Floating-point sums combine in tilekit's Kogge-Stone order; results may round
//   differently from CUB's.
// - Where CUB leaves lane 0's exclusive output undefined (no initial value),
//   tilekit gives it lane 0's input.
// @pre as CUB: every lane of the logical warp calls; src_lane < LOGICAL_WARP_THREADS.
#pragma once
#include <tilekit/cub/warp_reduce.cuh>

namespace tilekit::cub {

/// cub::WarpScan: CUB's warp scans (CCCL 3.0 signatures) over tilekit's tile scans. Logical warp i of
/// a block is thread ranks [i * N, (i + 1) * N), as in CUB. N a power of two: the tile<N> (registers,
/// shuffles; TempStorage is empty). Other N of 1..32: through TempStorage (shared memory) between
/// block barriers, so every thread of the block calls and the block is whole logical warps (CUB 3.0 is
/// wrong for logical warps that span two hardware warps). warp_aggregate never includes initial_value
/// (as CUB) and reaches every lane. Differences from CUB: floating-point sums may round differently;
/// where CUB leaves lane 0's exclusive output undefined (no initial value), it gets lane 0's input.
/// @pre every lane of the logical warp calls (N not a power of two: every thread of the block).
template <class T, int LOGICAL_WARP_THREADS = 32>
class WarpScan {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32,
                "tilekit::cub::WarpScan: LOGICAL_WARP_THREADS must be 1..32");
  static constexpr bool is_tile = detail::is_tile_size_v<LOGICAL_WARP_THREADS>;
  static constexpr unsigned W = unsigned(LOGICAL_WARP_THREADS);
  static __device__ __forceinline__ auto tile() { return detail::logical_warp<is_tile ? LOGICAL_WARP_THREADS : 32>(); }
  struct smem_t {
    ::tilekit::detail::raw_slots<T, W> values;
  };
  struct none_t {};

 public:
  /// Shared memory of one call for the sizes that are not powers of two; empty for the others (the
  /// tile scans work in registers), kept so CUB code that declares it compiles.
  struct TempStorage : ::tilekit::detail::stdx::conditional_t<is_tile, none_t, smem_t> {};

  /// Uses temp_storage where N is not a power of two.
  __device__ __forceinline__ WarpScan(TempStorage& temp_storage) : storage_(temp_storage) {}

  // ---- sums

  /// inclusive_output = the sum of the inputs of lanes 0 .. this lane.
  __device__ __forceinline__ void InclusiveSum(T input, T& inclusive_output) {
    InclusiveScan(input, inclusive_output, ::tilekit::plus{});
  }
  /// As above; warp_aggregate = the sum over the logical warp.
  __device__ __forceinline__ void InclusiveSum(T input, T& inclusive_output, T& warp_aggregate) {
    InclusiveScan(input, inclusive_output, ::tilekit::plus{}, warp_aggregate);
  }
  /// exclusive_output = the sum of the inputs of the lanes below this one; lane 0 gets T{}.
  __device__ __forceinline__ void ExclusiveSum(T input, T& exclusive_output) {
    ExclusiveScan(input, exclusive_output, T{}, ::tilekit::plus{});
  }
  /// As above; warp_aggregate = the sum over the logical warp.
  __device__ __forceinline__ void ExclusiveSum(T input, T& exclusive_output, T& warp_aggregate) {
    ExclusiveScan(input, exclusive_output, T{}, ::tilekit::plus{}, warp_aggregate);
  }

  // ---- inclusive scans

  /// inclusive_output = scan_op over the inputs of lanes 0 .. this lane, in lane order; scan_op need
  /// only be associative.
  template <class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& inclusive_output, ScanOp scan_op) {
    if constexpr (is_tile) inclusive_output = ::tilekit::inclusive_scan(tile(), input, scan_op);
    else inclusive_output = smem_scan(input, scan_op).inclusive;
  }
  /// As above, seeded: inclusive_output = initial_value op (scan_op over lanes 0 .. this lane).
  template <class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& inclusive_output, T initial_value, ScanOp scan_op) {
    T inclusive;
    InclusiveScan(input, inclusive, scan_op);
    inclusive_output = T(scan_op(initial_value, inclusive));
  }
  /// As InclusiveScan(input, inclusive_output, scan_op); warp_aggregate = scan_op over the logical warp.
  template <class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& inclusive_output, ScanOp scan_op, T& warp_aggregate) {
    if constexpr (is_tile) {
      const ::tilekit::scanned<T> s = ::tilekit::inclusive_scan_aggregate(tile(), input, scan_op);
      inclusive_output = s.value;
      warp_aggregate = s.aggregate;
    } else {
      const auto s = smem_scan(input, scan_op);
      inclusive_output = s.inclusive;
      warp_aggregate = s.aggregate;
    }
  }
  /// As the seeded InclusiveScan; warp_aggregate = scan_op over the logical warp (without initial_value).
  template <class ScanOp>
  __device__ __forceinline__ void InclusiveScan(T input, T& inclusive_output, T initial_value, ScanOp scan_op,
                                                T& warp_aggregate) {
    T inclusive;
    InclusiveScan(input, inclusive, scan_op, warp_aggregate);
    inclusive_output = T(scan_op(initial_value, inclusive));
  }

  // ---- exclusive scans

  /// exclusive_output = scan_op over the inputs of the lanes below this one, in lane order. Without an
  /// initial value: lane 0's output is undefined (here: its input).
  template <class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& exclusive_output, ScanOp scan_op) {
    if constexpr (is_tile) {
      const auto t = tile();
      exclusive_output = t.shfl_up(::tilekit::inclusive_scan(t, input, scan_op), 1);
    } else {
      exclusive_output = smem_scan(input, scan_op).exclusive;
    }
  }
  /// exclusive_output = initial_value op the inputs of the lanes below this one, in lane order (lane 0:
  /// initial_value); scan_op need only be associative.
  template <class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& exclusive_output, T initial_value, ScanOp scan_op) {
    if constexpr (is_tile) {
      exclusive_output = ::tilekit::exclusive_scan(tile(), input, scan_op, initial_value);
    } else {
      const auto s = smem_scan(input, scan_op);
      exclusive_output = s.lane == 0 ? initial_value : T(scan_op(initial_value, s.exclusive));
    }
  }
  /// As ExclusiveScan(input, exclusive_output, scan_op); warp_aggregate = scan_op over the logical
  /// warp. Without an initial value: lane 0's output is undefined (here: its input).
  template <class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& exclusive_output, ScanOp scan_op, T& warp_aggregate) {
    if constexpr (is_tile) {
      const auto t = tile();
      const ::tilekit::scanned<T> s = ::tilekit::inclusive_scan_aggregate(t, input, scan_op);
      exclusive_output = t.shfl_up(s.value, 1);
      warp_aggregate = s.aggregate;
    } else {
      const auto s = smem_scan(input, scan_op);
      exclusive_output = s.exclusive;
      warp_aggregate = s.aggregate;
    }
  }
  /// As ExclusiveScan(input, exclusive_output, initial_value, scan_op); warp_aggregate = scan_op over
  /// the logical warp (without initial_value).
  template <class ScanOp>
  __device__ __forceinline__ void ExclusiveScan(T input, T& exclusive_output, T initial_value, ScanOp scan_op,
                                                T& warp_aggregate) {
    if constexpr (is_tile) {
      const ::tilekit::scanned<T> s = ::tilekit::exclusive_scan_aggregate(tile(), input, scan_op, initial_value);
      exclusive_output = s.value;
      warp_aggregate = s.aggregate;
    } else {
      const auto s = smem_scan(input, scan_op);
      exclusive_output = s.lane == 0 ? initial_value : T(scan_op(initial_value, s.exclusive));
      warp_aggregate = s.aggregate;
    }
  }

  // ---- both at once

  /// Both scans at once, as InclusiveScan and ExclusiveScan without an initial value: lane 0's
  /// exclusive_output is undefined (here: its input).
  template <class ScanOp>
  __device__ __forceinline__ void Scan(T input, T& inclusive_output, T& exclusive_output, ScanOp scan_op) {
    if constexpr (is_tile) {
      const auto t = tile();
      const T inclusive = ::tilekit::inclusive_scan(t, input, scan_op);
      exclusive_output = t.shfl_up(inclusive, 1);
      inclusive_output = inclusive;
    } else {
      const auto s = smem_scan(input, scan_op);
      exclusive_output = s.exclusive;
      inclusive_output = s.inclusive;
    }
  }
  /// Both seeded scans at once: inclusive_output and exclusive_output as InclusiveScan and
  /// ExclusiveScan with initial_value (lane 0's exclusive_output: initial_value).
  template <class ScanOp>
  __device__ __forceinline__ void Scan(T input, T& inclusive_output, T& exclusive_output, T initial_value,
                                       ScanOp scan_op) {
    if constexpr (is_tile) {
      const auto t = tile();
      const T inclusive = T(scan_op(initial_value, ::tilekit::inclusive_scan(t, input, scan_op)));
      const T lower = t.shfl_up(inclusive, 1);
      exclusive_output = t.thread_rank() == 0 ? initial_value : lower;
      inclusive_output = inclusive;
    } else {
      const auto s = smem_scan(input, scan_op);
      exclusive_output = s.lane == 0 ? initial_value : T(scan_op(initial_value, s.exclusive));
      inclusive_output = T(scan_op(initial_value, s.inclusive));
    }
  }

  /// Lane src_lane's input, in every lane. @pre src_lane < LOGICAL_WARP_THREADS.
  __device__ __forceinline__ T Broadcast(T input, unsigned int src_lane) {
    if constexpr (is_tile) return tile().shfl(input, src_lane);
    else return detail::smem_warp_broadcast<W>(::tilekit::this_block<>(), input, src_lane, &storage_.values[0]);
  }

 private:
  template <class ScanOp>
  __device__ __forceinline__ detail::warp_scanned<T> smem_scan(T input, ScanOp scan_op) {
    return detail::smem_warp_scan<W>(::tilekit::this_block<>(), input, scan_op, &storage_.values[0]);
  }
  TempStorage& storage_;
};

}  // namespace tilekit::cub
