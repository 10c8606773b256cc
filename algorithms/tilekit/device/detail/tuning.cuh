// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/detail/tuning.cuh - the shapes of the device-level kernels:
// threads per block, items per thread, blocks per multiprocessor. Chosen by
// measurement (perf/device_bench.cu; the numbers are in perf/results).
#pragma once

namespace tilekit {

/// The device-wide reduce.
/// -DTILEKIT_REDUCE_VECTORS / _BLOCKS_PER_SM / _POLL_NS / _CLUSTER_THREADS /
/// _CLUSTER_VECTORS / _CLUSTER_ITEM_BYTES / _PACK_HALVES override (for measuring).
struct reduce_tuning {
  static constexpr unsigned threads = 256;  // the grid's blocks, and the one block of inputs up to their chunk
  // Inputs of up to one chunk of wide_threads threads: one such block; up to what a cluster of
  // cluster_blocks blocks of cluster_threads reads with cluster_vectors 16-byte loads a thread
  // (GPUs with thread-block clusters, sums into accumulators of cluster_item_bytes): one cluster.
  // H100, int32 sums at 2^15-2^17 in one process (perf/results/2026-12-06-22-reduce-cluster):
  // 512 threads and 8 vectors 5.02-5.44 us, 1024 and 8 5.38-5.63, 512 and 16 6.75-7.42 (and 2^18).
  // 8-byte accumulators: at 1024 threads no faster (ArgMin's keys 1.0-1.3 us slower); at 512,
  // int64 / double sums at 2^14-2^16 and ArgMin at 2^15-2^16 5-12% faster than the grid of then.
  static constexpr unsigned wide_threads = 1024;
  static constexpr unsigned cluster_blocks = 8;
  // (No cluster of 16, sm_90's non-portable size, past 8 blocks' reach: since the grid's last
  // block got faster (01b923f) the grid was 8-9% faster there, H100, int64 / double 2^17 and
  // float 2^18; perf/results/2026-12-07-31-cluster-or-grid.)
#if defined(TILEKIT_REDUCE_CLUSTER_THREADS)
  static constexpr unsigned cluster_threads = TILEKIT_REDUCE_CLUSTER_THREADS;
#else
  static constexpr unsigned cluster_threads = 512;
#endif
#if defined(TILEKIT_REDUCE_CLUSTER_VECTORS)
  static constexpr unsigned cluster_vectors = TILEKIT_REDUCE_CLUSTER_VECTORS;
#else
  static constexpr unsigned cluster_vectors = 8;
#endif
  // The cluster takes sums into accumulators of exactly cluster_item_bytes (0: none) that do not
  // pack (double's). H100, one process (perf/results/2026-12-07-31-cluster-or-grid): int64 /
  // double sums at 2^14-2^16 2-4% faster than the grid of then; float sums at 2^15-2^17 0.4-2%
  // and ArgMin keys at 2^15-2^17 2-4% slower.
#if defined(TILEKIT_REDUCE_CLUSTER_ITEM_BYTES)
  static constexpr unsigned cluster_item_bytes = TILEKIT_REDUCE_CLUSTER_ITEM_BYTES;
#else
  static constexpr unsigned cluster_item_bytes = 8;
#endif
  // Integer sums into 8 bytes (not counts) hand over packed, in two 64-bit atomics, one for
  // each 32-bit half of the totals (reduce_kernel::packs_halves), and take the grid, not the
  // cluster: 1. 0: as double's (tagged slots; the cluster where it reads everything). H100, one
  // process (perf/results/2026-12-07-35-int64-halves): int64 sums 8-10% faster at 2^14-2^16
  // (the grid packed against the cluster; the cluster with the grid packed past it was no
  // faster), 3-6% at 2^17-2^22.
#if defined(TILEKIT_REDUCE_PACK_HALVES)
  static constexpr unsigned pack_halves = TILEKIT_REDUCE_PACK_HALVES;
#else
  static constexpr unsigned pack_halves = 1;
#endif
#if defined(TILEKIT_REDUCE_VECTORS)
  static constexpr unsigned vectors = TILEKIT_REDUCE_VECTORS;
#else
  static constexpr unsigned vectors = 4;        // 16-byte loads per thread per chunk
#endif
  static constexpr unsigned scalar_items = 16;  // items per thread per chunk for other inputs
#if defined(TILEKIT_REDUCE_BLOCKS_PER_SM)
  static constexpr unsigned blocks_per_sm = TILEKIT_REDUCE_BLOCKS_PER_SM;
#else
  static constexpr unsigned blocks_per_sm = 4;  // one wave (the kernel's 36-48 registers allow 5-6 blocks of 256):
                                                // on the H200 0.98 -> 1.00x CUB at 2^28 against 8 (two waves)
#endif
#if defined(TILEKIT_REDUCE_POLL_NS)
  static constexpr unsigned poll_ns = TILEKIT_REDUCE_POLL_NS;
#else
  static constexpr unsigned poll_ns = 0;  // the last block's pause between polls of a total not yet published
#endif
};

/// The device-wide scan. -DTILEKIT_SCAN_VECTORS overrides (for measuring).
struct scan_tuning {
  static constexpr unsigned threads = 128;
#if defined(TILEKIT_SCAN_VECTORS)
  static constexpr unsigned vectors = TILEKIT_SCAN_VECTORS;
#else
  // 16-byte loads per thread. H200, inclusive scans against the faster CUB, 4 / 6 / 8 vectors
  // (perf/results/2026-12-04-h200-tuning): int32 2^24 1.10 / 1.13 / 1.15, 2^28 1.08 / 1.13 / 1.15;
  // int64 2^20 1.00 / 0.98 / 1.01, 2^28 0.95 / 1.02 / 1.04; double 2^28 0.99 / 1.06 / 1.09.
  // 10 spill at 64 registers.
  static constexpr unsigned vectors = 8;
#endif
  // Inputs of 8-byte items (loaded as vectors) from large_from items: large_vectors vectors a
  // thread at large_blocks_per_sm blocks (the registers' bound). H200, against the faster CUB,
  // int64 / double at 2^16, 2^20, 2^24, 2^28 (perf/results/2026-12-04-h200-7): 8 vectors at 8
  // blocks 1.19 / 1.06 / 1.08 / 1.07, double 1.15 / 1.03 / 1.10 / 1.12; 16 at 4 (128 registers)
  // 1.07 / 1.08 / 1.09 / 1.08, double 1.07 / 1.07 / 1.12 / 1.14; 12 at 6 1.00 / 0.99 / 1.09 / 1.10,
  // double 1.00 / 0.98 / 1.13 / 1.15; 10 at 7 1.05 / 1.00 / 1.08 / 1.09. From 2^18 instead of 2^20:
  // int64 at 2^18 1.15 -> 1.05.
#if defined(TILEKIT_SCAN_LARGE_VECTORS)  // for measuring
  static constexpr unsigned large_vectors = TILEKIT_SCAN_LARGE_VECTORS, large_blocks_per_sm = TILEKIT_SCAN_LARGE_BLOCKS;
  static constexpr long long large_from = TILEKIT_SCAN_LARGE_FROM;
#else
  static constexpr unsigned large_vectors = 16, large_blocks_per_sm = 4;
  static constexpr long long large_from = 1ll << 20;
#endif
  static constexpr unsigned max_items = 32;  // items per thread at most (1- and 2-byte items: fewer vectors)
  static constexpr unsigned scalar_items = 8;  // items per thread for other inputs
};

/// The segmented reduce: a block per segment, or a warp per segment when there are many.
struct segmented_reduce_tuning {
  static constexpr unsigned threads = 256;
  static constexpr unsigned batch = 8;  // loads in flight per thread before they are combined
#if defined(TILEKIT_SEGMENTED_VECTOR_BATCH)  // for measuring
  static constexpr unsigned vector_batch = TILEKIT_SEGMENTED_VECTOR_BATCH;
#else
  static constexpr unsigned vector_batch = 4;  // 16-byte loads in flight per lane (a warp per segment; 8 spill)
#endif
#if defined(TILEKIT_SEGMENTED_MIN_BLOCKS)  // for measuring
  static constexpr unsigned min_blocks_per_sm = TILEKIT_SEGMENTED_MIN_BLOCKS;
#else
  static constexpr unsigned min_blocks_per_sm = 4;  // the register bound: 64 a thread
#endif
  // ArgMin / ArgMax: all 8 vectors of a lane's share of a 1024-item segment in flight at once,
  // 128 registers (8 at 64 spill). H200, segments of 1024 int32 against CUB 3.0.1: 2^20 0.89 ->
  // 0.95x, 2^28 1.61 -> 1.98x (perf/results/2026-12-04-h200-multi-channel). The sums keep 4 and
  // 64: at 128 registers segments of 64 drop from 2.7x to 1.95x CUB at 2^20 (occupancy).
  static constexpr unsigned arg_vector_batch = 8, arg_min_blocks_per_sm = 2;
};

/// Reduce by key: one chunk of threads x items (blocked) per block.
/// -DTILEKIT_REDUCE_BY_KEY_THREADS / _ITEMS / _BLOCKS_PER_SM override (for measuring).
struct reduce_by_key_tuning {
#if defined(TILEKIT_REDUCE_BY_KEY_THREADS)  // for measuring
  static constexpr unsigned threads = TILEKIT_REDUCE_BY_KEY_THREADS;
#else
  static constexpr unsigned threads = 128;
#endif
#if defined(TILEKIT_REDUCE_BY_KEY_ITEMS)
  static constexpr unsigned items = TILEKIT_REDUCE_BY_KEY_ITEMS;
#else
  static constexpr unsigned items = 16;  // on the H200 (int32 keys and values, 2^24 / 2^28): ReduceByKey
#endif                                   // 0.82 / 0.77x CUB at 8 items, 0.94 / 0.91 at 12, 0.99 / 0.96 at 16
#if defined(TILEKIT_REDUCE_BY_KEY_BLOCKS_PER_SM)
  static constexpr unsigned blocks_per_sm = TILEKIT_REDUCE_BY_KEY_BLOCKS_PER_SM;
#else
  static constexpr unsigned blocks_per_sm = 6;  // registers for 16 items (72; 4 blocks: 0.91 / 0.88)
#endif
  // The by-key scans: 256 threads, 3 blocks per SM (H200, int32, same call as 128 threads:
  // InclusiveSumByKey 1.17 / 1.14 / 1.14x CUB at 2^20 / 2^24 / 2^28, against 1.03 / 1.09 / 1.07;
  // ReduceByKey itself 1.00 / 0.94 / 0.91 that way, against 0.88 / 0.98 / 0.96, so it keeps 128
  // from narrow_from (below);
  // perf/results/2026-12-03-h200-histogram-merge-prefetch/).
  // The scans of values up to 4 bytes are bound to 64 registers (4 blocks per SM): with
  // 3, InclusiveScanByKey with a maximum took 72 and ran at 3 blocks (0.97x CUB at 2^28
  // int32; 1.05x at 4 blocks, where the sums already were, at 64 registers without a
  // bound). ReduceByKey's wide blocks keep 3 (at 4 they spill 72 bytes).
#if !defined(TILEKIT_REDUCE_BY_KEY_THREADS)
  static constexpr unsigned scan_threads = 256, scan_blocks_per_sm = 3, narrow_scan_blocks_per_sm = 4;
#else
  static constexpr unsigned scan_threads = threads, scan_blocks_per_sm = blocks_per_sm, narrow_scan_blocks_per_sm = blocks_per_sm;
#endif
  // ReduceByKey below narrow_from items runs the scans' blocks (fewer, larger chunks, where
  // the whole grid is resident at once) and from it blocks of `threads`. H200, int32, the
  // chunks' runs stored through shared memory, 256 / 128 threads: 1.09 / 1.12x CUB at 2^16,
  // 1.02 / 0.89 at 2^20, 0.89 / 0.92 at 2^21, 0.99 / 1.03 at 2^22 - 2^24, 0.97 / 1.01 at 2^28
  // (perf/results/2026-12-04-h200-by-key-shapes).
  // Values of at most 4 bytes below tagged_below items (ReduceByKey) or scan_tagged_below
  // (the scans): chunk states tagged by the launch (never zeroed: one launch, no memset).
#if defined(TILEKIT_REDUCE_BY_KEY_TAGGED_BELOW)  // for measuring
  static constexpr long long tagged_below = TILEKIT_REDUCE_BY_KEY_TAGGED_BELOW, scan_tagged_below = TILEKIT_SCAN_BY_KEY_TAGGED_BELOW;
#else
  // H200, int32, against the faster CUB at 2^16 / 2^20 / 2^21 / 2^24 / 2^28, zeroed -> tagged
  // (perf/results/2026-12-04-h200-7): ReduceByKey 1.08 / 1.01 / 0.99 / 1.03 / 1.01 -> 1.19 / 1.07 /
  // 1.05 / 1.03 / 1.00; InclusiveSumByKey 1.26 / 1.14 / 1.29 / 1.12 / 1.12 -> 1.38 / 1.22 / 1.38 /
  // 1.13 / 1.11. The other by-key scans alike.
  static constexpr long long tagged_below = 1ll << 25, scan_tagged_below = 1ll << 25;
#endif
  static_assert(tagged_below <= (1ll << 32) && scan_tagged_below <= (1ll << 32), "tagged by-key states hold 32-bit head counts");
#if defined(TILEKIT_REDUCE_BY_KEY_NARROW_FROM)
  static constexpr long long narrow_from = TILEKIT_REDUCE_BY_KEY_NARROW_FROM;
#else
  static constexpr long long narrow_from = 1ll << 21;
#endif
};

struct select_tuning {
  static constexpr unsigned threads = 128;
#if defined(TILEKIT_SELECT_VECTOR_ROWS)  // for measuring
  static constexpr unsigned vector_rows = TILEKIT_SELECT_VECTOR_ROWS;
#else
  static constexpr unsigned vector_rows = 6;  // rows per warp when rows are 16-byte vectors (6 ahead of 4 on the H200)
#endif
  static constexpr unsigned scalar_rows = 8;  // and for inputs read item by item
  // Selects and unique that read no flags and carry no values (not the partitions): 8 rows
  // at 7 blocks per SM (72 registers; the if form spills 4 bytes). H200, int32, against the
  // faster CUB at 2^24 / 2^28 (perf/results/2026-12-04-h200-5): none kept 1.11 / 1.11 ->
  // 1.16 / 1.23x, half 1.18 / 1.19 -> 1.22 / 1.27, all 1.14 / 1.14 -> 1.17 / 1.17; 2^16 -
  // 2^18 3-5% behind 6 rows (still 1.34x and more). With flags, 8 rows spill (1.42 -> 1.01x).
#if defined(TILEKIT_SELECT_LEAN_ROWS)  // for measuring
  static constexpr unsigned lean_vector_rows = TILEKIT_SELECT_LEAN_ROWS, lean_blocks_per_sm = TILEKIT_SELECT_LEAN_BLOCKS;
#else
  static constexpr unsigned lean_vector_rows = 8, lean_blocks_per_sm = 7;
#endif
#if defined(TILEKIT_SELECT_PARTITION_ROWS)  // for measuring: partitions that read no flags and carry no values
  static constexpr unsigned partition_vector_rows = TILEKIT_SELECT_PARTITION_ROWS, partition_blocks_per_sm = TILEKIT_SELECT_PARTITION_BLOCKS;
#else
  static constexpr unsigned partition_vector_rows = vector_rows, partition_blocks_per_sm = 8;
#endif
#if defined(TILEKIT_PARTITION3_BLOCKS)  // for measuring
  static constexpr unsigned partition3_blocks_per_sm = TILEKIT_PARTITION3_BLOCKS;
#else
  // The three-way partition: 72 registers, 7 blocks per SM. On the H200 (int32): 8 blocks
  // (64 registers, 24 bytes of spills) 0.87 / 0.94 / 1.11x CUB at 2^20 / 2^24 / 2^28; 7 blocks
  // 0.96 / 1.10 / 1.15; 6 blocks (also 72 registers) 0.96 / 1.11 / 1.16.
  static constexpr unsigned partition3_blocks_per_sm = 7;
#endif
  // The three-way partition's states below partition3_tagged_below items: tagged (one
  // launch, nothing zeroed), else zeroed before the launch. On the H200 (int32, against the
  // faster CUB): tagged 1.12 / 1.06 / 1.09 / 1.10x at 2^16 / 2^20 / 2^24 / 2^28, zeroed
  // 1.05 / 0.98 / 1.13 / 1.19 (perf/results/2026-12-04-h200), and zeroed against CUB 3.0.1
  // 1.12 / 1.04 / 1.11x at 2^21 / 2^22 / 2^23 (perf/results/2026-12-04-h200-by-key-shapes).
  // The tagged kernel spills 36 bytes at 72 registers (ptxas; the zeroed one none), likely
  // why it trails from 2^24 (reading the launch counter only in warp 0 still spills 28).
#if defined(TILEKIT_PARTITION3_TAGGED_BELOW)
  static constexpr long long partition3_tagged_below = TILEKIT_PARTITION3_TAGGED_BELOW;
#else
  static constexpr long long partition3_tagged_below = 1ll << 21;
#endif
  static_assert(partition3_tagged_below <= (1ll << 32), "tagged three-way partition states hold 32-bit counts");
};

struct run_length_encode_tuning {
  static constexpr unsigned threads = 128;
#if defined(TILEKIT_RLE_BLOCKS_PER_SM)  // for measuring
  static constexpr unsigned blocks_per_sm = TILEKIT_RLE_BLOCKS_PER_SM;
#else
  // Items of up to 4 bytes: 72 registers, no spills (with items_per_lane 24). On the H200, int32,
  // against the faster CUB at 2^20 / 2^24 / 2^28 (perf/results/2026-12-04-h200-5): 16 items at 8
  // blocks 1.10 / 1.08 / 1.10, 20 at 7 1.12 / 1.13 / 1.15, 24 at 7 1.11 / 1.14 / 1.17 (2^16: 1.23,
  // 1.21, 1.18). (8 blocks had been 3-7% ahead of 5 at 2^24-2^28 with 16 items.)
  static constexpr unsigned blocks_per_sm = 7;
#endif
  static constexpr unsigned blocks_per_sm_wide = 5;  // wider items: up to 102 registers (at 8, 64-bit keys spill)
  static constexpr unsigned items_per_lane_wide = 16;  // and 16 items a lane (at 24, 8-byte keys spill 44 bytes)
#if defined(TILEKIT_RLE_ITEMS_PER_LANE)  // for measuring
  static constexpr unsigned items_per_lane = TILEKIT_RLE_ITEMS_PER_LANE;
#else
  static constexpr unsigned items_per_lane = 24;     // rows of 16-byte vectors: 24 / (items per vector) rows
#endif
  static constexpr unsigned scalar_rows = 8;         // for inputs read item by item
};

// The decoupled look-back's pauses (look_back_tuning) live with it, in grid/detail/look_back.cuh.

/// The single-pass kernels (scan, select / partition / unique, run-length encode): as a block
/// starts, its thread 0 asks L2 (one bulk prefetch, sm_90 on) for the input (flags, values) of
/// the chunk `ahead` chunks on, where ahead is a percentage of the blocks resident at once (SMs
/// x blocks per SM). That chunk's block starts about a block's life later and finds its input in
/// L2, not DRAM. 0: no prefetch. Measured on an H100 (2026-12-05, rbench8 in one process with CUB
/// 3.0.1; 0 / 50 / 100%, us): select half kept 2^24 47.9 / 44.7 / 54.2, 2^28 587.7 / 535.9 / 684.6;
/// none kept 2^28 425.7 / 393.8 / 397.6; all kept 2^28 773.2 / 779.6 / 1042.9; unique 2^28 485.9 /
/// 431.7 / 452.9; partition 2^28 791.6 / 735.9 / 1000.3; run-length encode 2^24 51.5 / 49.7 / 53.6,
/// 2^28 644.9 / 581.6 / 586.0; but the int32 scan 2^28 759.2 / 823.2 / 1050.0 and the int64 one
/// 1497.2 / 1656.2 / 2094.4 (a read and a write stream each; likely the prefetched lines leave L2 before
/// they are read: not profiled).
/// A second run (same card, same day; 25 / 35 / 50 / 75%, us at 2^28): the int32 scan 714.5 / 738.8 /
/// 760.6 / 999.7 (0%: 759.2 before), int64 1424.3 / 1475.6 / 1500.0 / 2004.1, select all kept 713.6 /
/// 722.6 / 777.7 / 937.4, half 530.5 / 530.4 / 536.2 / 626.2, partition 716.2 / 718.5 / 735.3 / 853.9,
/// run-length encode 581.1 / 581.0 / 582.5 / 584.0; 2^24 alike (scan int32 49.7 / 50.8 / 53.5 / 62.2).
/// So a quarter of a wave, for all three. -DTILEKIT_PREFETCH_AHEAD_PERCENT=.. overrides (for measuring).
struct prefetch_tuning {
#if defined(TILEKIT_PREFETCH_AHEAD_PERCENT)
  static constexpr unsigned ahead_percent = TILEKIT_PREFETCH_AHEAD_PERCENT;
#else
  static constexpr unsigned ahead_percent = 25;
#endif
};

/// When a kernel that follows the zeroing of its storage starts early (a dependent
/// launch, gpu_launcher::zero_then_run's overlap): the single-pass kernels that still
/// zero their states (reduce / scan by key, the three-way partition) of at least
/// overlap_chunks blocks; on the H200 smaller grids start sooner after a memset, larger
/// ones gain 3-9% at 2^20-2^24 items (perf/results/2026-12-02-h200-dependent-launch).
/// -DTILEKIT_OVERLAP_CHUNKS overrides (for measuring).
struct launch_tuning {
#if defined(TILEKIT_OVERLAP_CHUNKS)
  static constexpr long long overlap_chunks = TILEKIT_OVERLAP_CHUNKS;
#else
  static constexpr long long overlap_chunks = 256;
#endif
};

struct histogram_tuning {
  static constexpr unsigned threads = 256;
  static constexpr unsigned items = 8;    // samples per thread per pass, striped (item by item)
  static constexpr unsigned vectors = 4;  // 16-byte vectors in flight per thread
  static constexpr unsigned blocks_per_sm = 4;
};

/// Bins in 16-bit shared counters (half_counters): a block of 1024 threads per SM
/// (65536 bins take 128 KB), 2 vectors in flight per thread, and a block per min_samples
/// samples at most (smaller inputs take fewer blocks: each zeroes and merges every bin).
struct half_histogram_tuning {
  static constexpr unsigned threads = 1024;
#if defined(TILEKIT_HALF_HISTOGRAM_VECTORS)  // for measuring
  static constexpr unsigned vectors = TILEKIT_HALF_HISTOGRAM_VECTORS;
#else
  static constexpr unsigned vectors = 4;  // 16-byte loads in flight per thread (65536 bins, 2^28, H200: 354 us, 369 at 2,
                                          // 443 at 1, measured with batched adds since reverted; 306 us as committed)
#endif
#if defined(TILEKIT_HALF_HISTOGRAM_CLUSTER)  // for measuring
  static constexpr unsigned cluster_blocks = TILEKIT_HALF_HISTOGRAM_CLUSTER;
#else
  static constexpr unsigned cluster_blocks = 2;  // blocks whose counters add up before the global atomics (1: none)
#endif
#if defined(TILEKIT_SPREAD_HISTOGRAM_CLUSTER)  // for measuring
  static constexpr unsigned spread_blocks = TILEKIT_SPREAD_HISTOGRAM_CLUSTER;
#else
  static constexpr unsigned spread_blocks = 2;  // bins past one block's 16-bit counters: counters spread over this many blocks (1: none)
#endif
#if defined(TILEKIT_HALF_HISTOGRAM_MERGE_VECTOR)  // for measuring
  static constexpr unsigned merge_vector = TILEKIT_HALF_HISTOGRAM_MERGE_VECTOR, merge_batch = TILEKIT_HALF_HISTOGRAM_MERGE_BATCH;
#else
  // The cluster's merge: words per load, loads in flight per thread (H200, 65536 bins, 2^24:
  // 36.6 us with 1 and 1, 38.1 with 1 and 16, 44.5 with 4 and 1 (the 64-bit atomics of a warp
  // 16 bytes apart), 45.8 with 4 and 4; perf/results/2026-12-03-h200-histogram-cluster).
  static constexpr unsigned merge_vector = 1, merge_batch = 1;
#endif
#if defined(TILEKIT_HALF_HISTOGRAM_PAIRS)  // for measuring
  static constexpr bool pairs = TILEKIT_HALF_HISTOGRAM_PAIRS;
#else
  static constexpr bool pairs = true;  // the merge adds two bins per 64-bit atomic where it can
#endif
#if defined(TILEKIT_HALF_HISTOGRAM_MIN_SAMPLES)  // for measuring
  static constexpr long long min_samples = TILEKIT_HALF_HISTOGRAM_MIN_SAMPLES;
#else
  static constexpr long long min_samples = 32768;
#endif
};

/// 1-byte samples (byte_counters: 1 KB histograms of 32-bit counters). Each block adds
/// 256 totals to the global counters at the end, which contend in L2 when many
/// blocks do: few large blocks, one wave of them (1024 threads per SM, what the
/// kernel's 56 registers allow), and at least min_vectors 16-byte vectors per thread
/// (measured: perf/results/2026-12-02-h200-histogram-u8).
/// -DTILEKIT_BYTE_HISTOGRAM_THREADS / _BLOCKS_PER_SM / _MIN_VECTORS override (for measuring).
struct byte_histogram_tuning {
#if defined(TILEKIT_BYTE_HISTOGRAM_THREADS)
  static constexpr unsigned threads = TILEKIT_BYTE_HISTOGRAM_THREADS, blocks_per_sm = TILEKIT_BYTE_HISTOGRAM_BLOCKS_PER_SM;
#else
  static constexpr unsigned threads = 512, blocks_per_sm = 2;
#endif
#if defined(TILEKIT_BYTE_HISTOGRAM_MIN_VECTORS)
  static constexpr unsigned min_vectors = TILEKIT_BYTE_HISTOGRAM_MIN_VECTORS;
#else
  static constexpr unsigned min_vectors = 1;
#endif
  static constexpr unsigned vectors = 4;  // in flight per thread
  // Warps that count in one shared histogram (byte_counters' WarpsPer; at most a block's).
  // H200, against one histogram per warp (perf/results/2026-12-04-h200-5): one per block of 16 warps
  // zeroes and sums a sixteenth of the counters, and the same atomics contend no more:
  // MultiHistogramEven RGBA padded rows 0.93 -> 0.97x the faster CUB at 2^20, one row 0.99 -> 1.04x,
  // uint8 uniform 0.99 -> 1.01x; at 2^28 the same on uniform, skewed and all-equal samples (+-0.5%).
#if defined(TILEKIT_BYTE_HISTOGRAM_WARPS_PER_HISTOGRAM)  // for measuring
  static constexpr unsigned warps_per_histogram = TILEKIT_BYTE_HISTOGRAM_WARPS_PER_HISTOGRAM;
#else
  static constexpr unsigned warps_per_histogram = 16;
#endif
  // Shared memory a block reserves, per warp and channel: what a histogram per warp took. H200,
  // one histogram per block (same run, same binary otherwise): 2-3% faster at 2^28 than reserving
  // only the counters (uint8 uniform 1.05 -> 1.08x the faster CUB, RGBA 1.17 -> 1.20), the same
  // at 2^16 - 2^24. Not explained: likely the shared / L1 split the driver picks by the request.
  static constexpr unsigned reserved_bytes = 1024;
#if defined(TILEKIT_BYTE_HISTOGRAM_OVERLAP)  // for measuring
  static constexpr bool overlap = TILEKIT_BYTE_HISTOGRAM_OVERLAP;
#else
  // After a memset: the zeroing kernel run alongside the counting (the kernel waits for
  // it only before its global adds) measured the same on the H200 (2^20-2^28 uniform,
  // skewed and all equal, within 1%; 2026-12-03).
  static constexpr bool overlap = false;
#endif
  // One-byte samples of one channel counted by the tensor cores (byte_tensor_counters, sm_80 on)
  // in place of shared atomics. Off: on the H200 1.25-1.31x CUB on uniform bytes at 2^28-2^30 but
  // 0.79-0.91x on skewed / all-equal ones, bound by its shared staging (perf/results/2026-12-05-histogram-tensor).
#if defined(TILEKIT_BYTE_HISTOGRAM_TENSOR)  // for measuring
  static constexpr bool tensor_cores = TILEKIT_BYTE_HISTOGRAM_TENSOR;
#else
  static constexpr bool tensor_cores = false;
#endif
  // The hybrid (byte_histogram_kernel's Hybrid, from hybrid_from samples): each warp trip (64
  // samples a lane) counted by the tensor cores only where 32 of its samples (a lane's byte
  // lane % 16 of its first vector) hold at least hybrid_distinct values, else by shared atomics
  // (the tensor path's cost is the same on any data; the atomics' is lowest on skewed data).
  // -DTILEKIT_BYTE_HISTOGRAM_HYBRID_DISTINCT=.. overrides (for measuring).
#if defined(TILEKIT_BYTE_HISTOGRAM_HYBRID_DISTINCT)
  static constexpr unsigned hybrid_distinct = TILEKIT_BYTE_HISTOGRAM_HYBRID_DISTINCT;
#else
  // Uniform bytes: ~30 of 32; 75% in one bin: ~9; the bytes of int32 values in [-1000, 1000]: 18 at most.
  static constexpr unsigned hybrid_distinct = 20;
#endif
  // One channel of 1-byte samples (the 1D histograms) from hybrid_from samples on: the hybrid,
  // whatever tensor_cores says. H100 (2026-12-05, rbench9; CUB 3.0.1 in the same run),
  // atomics -> hybrid (hybrid_distinct 20), uniform / skewed / all equal: 2^28 121.2 / 104.6 /
  // 103.5 -> 114.1 / 106.8 / 105.1 us, 2^30 456.3 / 365.7 / 366.3 -> 406.6 / 372.1 / 367.4;
  // 2^24 13.9-14.5 -> 14.6-15.7 (2^16-2^22: 5.6-9.3 -> 7.4-10.9, the tensor path's fixed cost);
  // 2^25 / 2^26 / 2^27: 21.6-22.5 -> 22.5-23.7, 36.0-37.4 -> 37.6-38.8, 60.0-65.4 -> 62.7-66.0 us.
  // The H200 perf/run at 2108ab7 (uniform 1.08 -> 1.16x the faster CUB at 2^28, 1.09 -> 1.23x at
  // 2^30) chose by the lanes' first samples alone, all at byte 0 of 16: device_bench's
  // histogram256_u8 (the bytes of int32 values in [-1000, 1000]: random low bytes, few values in
  // the others) went to the tensor cores, 77.3 -> 109.0 us, 0.82x CUB. Choosing by the passes an
  // atomic takes (distinct values in one bank) made every spread slower (H100 at da621f0, uniform
  // 2^28 120.8 -> 156.7 us; perf/results/2026-12-05-h100-perf).
  // -DTILEKIT_BYTE_HISTOGRAM_HYBRID_FROM=.. overrides (for measuring).
#if defined(TILEKIT_BYTE_HISTOGRAM_HYBRID_FROM)
  static constexpr long long hybrid_from = TILEKIT_BYTE_HISTOGRAM_HYBRID_FROM;
#else
  static constexpr long long hybrid_from = 1ll << 28;
#endif
  // Counters zeroed by block 0 in the counting launch (detail::zero_gate) from gate_channels_from
  // samples on for several channels; one channel always. H100, this code against 6cd2684 in one
  // device call (perf/results/2026-12-06-25-histogram-one-launch): one channel, where the counters
  // were zeroed by a memset before the launch, 5.55 / 5.84 / 6.63 / 9.33 / 14.38 -> 5.40 / 5.51 /
  // 6.09 / 8.56 / 14.06 us at 2^16 / 2^18 / 2^20 / 2^22 / 2^24 uniform bytes; RGBA 3 of 4 channels,
  // zeroed by a kernel the counting launch overlaps (a dependent launch), one row 6.13 / 6.39 /
  // 7.18 / 10.04 -> 6.53 / 6.52 / 6.85 / 9.54 us at 2^16 / 2^18 / 2^20 / 2^22 (rows with padding
  // the same): the gate's two round trips a block (its acquire poll, then the count) cost more
  // than the overlapped kernel below 2^20 samples.
  static constexpr long long gate_channels_from = 1ll << 20;
};

/// The device-wide distinct. -DTILEKIT_DISTINCT_SMALL_SET_BYTES overrides (for measuring).
struct distinct_tuning {
  // The most keys a call takes (more: cudaErrorInvalidValue): its storage, 2 n x 16 bytes, and
  // its sets' sizes stay far from overflowing 64 bits (and from any GPU's memory).
  static constexpr long long max_items = 1ll << 48;
  // Up to fused_items keys (and where the first set is the only one) the kernels are phases of
  // one cooperative launch, grid barriers between (distinct_fused). On an H100 against the six
  // launches, 1% / 50% / 100% distinct keys (perf/results/2026-12-05-h100-13-distinct-fused):
  // 2^10 -8 / -3 / -2%, 2^14 -13 / -11 / -7%, 2^16 -12 / -11 / -7%, 2^18 -10 / +1 / +10%, 2^20
  // +24 / +17 / +9%: the grid barriers cost about what the launches did, and past 2^16 a block a
  // multiprocessor keeps fewer probes in flight than the separate kernels' grids. With three
  // blocks a multiprocessor, against the launches (H200, 2026-12-05, 1% / 50% / 100% distinct,
  // perf/results/2026-12-05-18-dup-marks/run1-h200/fused.log): 2^16 +0.5 / - / -0.6%, 2^18 -16 /
  // -13 / -8%, 2^20 -3 / -5 / -4%.
#if defined(TILEKIT_DISTINCT_FUSED_ITEMS)
  static constexpr long long fused_items = TILEKIT_DISTINCT_FUSED_ITEMS;
#else
  static constexpr long long fused_items = 1ll << 20;
#endif
  // The first hash set: at most this many bytes however many items there are (mostly in
  // L2), and full once its keys fill first_set_load_eighths / 8 of it (or a key finds
  // neither itself nor a free slot within max_probes slots of its home); then the keys go
  // to buckets. Measured on the H200, 2^28 int32 keys, 1% distinct (2.7 M keys): 32 MB filled
  // up to 3/4: 6.07 ms; 64 MB: 4.58 ms (a half-full 32 MB set probes more rounds, and a warp
  // waits for its slowest lane's); a first set filled to 3/4 of 64 MB before it is given up
  // cost 18% at 2^24 with 50% distinct, hence the lower fill.
#if defined(TILEKIT_DISTINCT_SMALL_SET_BYTES)
  static constexpr unsigned long long small_set_bytes = TILEKIT_DISTINCT_SMALL_SET_BYTES;
#else
  static constexpr unsigned long long small_set_bytes = 64ull << 20;
#endif
  // The first set is the only one (no sketch, no buckets) where a set for every key (1.5-3 slots a
  // key) has at most only_set_bytes; past that the sketch decides. H100 (2026-12-07, int32 keys,
  // perf/results/2026-12-07-39-distinct-paths): at 32 MB, 2^22 keys (a 64 MB set) went through
  // the sketch: 33% / 50% / 100% distinct 214 / 248 / 288 -> 197 / 207 / 213 us (the buckets), 1%
  // 120.5 -> 118.6, but 10% 145 -> 188 (a sketched set pays a claim count, one atomic add to one
  // word, a warp trip; adding a warp's claims every few trips instead, 161 us there, took the
  // packed insert to 80 registers and a spill, and 2^28 keys with 1% distinct 5.34 -> 5.54 ms).
  // So the same as small_set_bytes for now. -DTILEKIT_DISTINCT_ONLY_SET_BYTES overrides.
#if defined(TILEKIT_DISTINCT_ONLY_SET_BYTES)
  static constexpr unsigned long long only_set_bytes = TILEKIT_DISTINCT_ONLY_SET_BYTES;
#else
  static constexpr unsigned long long only_set_bytes = small_set_bytes;
#endif
  // The sketch gives the first set up also where more than n / buckets_below_repeats of the n
  // keys are distinct (few repeats a key: the buckets cost less than the set's claims), though
  // the set would take them (0: never). H100 (2026-12-07, as above), 2^23 int32 keys, 10% / 25% /
  // 33% distinct: 357 / 501 / 551 -> 351 / 324 / 331 us, 1% 179 -> 173 (the sketch's hash);
  // 2^22 through the sketch (only_set_bytes 32 MB), 25%: 192 us, against 258-291 with 3 for 5.
  // -DTILEKIT_DISTINCT_BUCKETS_BELOW_REPEATS overrides.
#if defined(TILEKIT_DISTINCT_BUCKETS_BELOW_REPEATS)
  static constexpr unsigned buckets_below_repeats = TILEKIT_DISTINCT_BUCKETS_BELOW_REPEATS;
#else
  static constexpr unsigned buckets_below_repeats = 5;
#endif
  // -DTILEKIT_DISTINCT_FIRST_SET_LOAD_EIGHTHS overrides (for measuring). H100 (2026-12-05), 2^28
  // int32 keys, 1% distinct: a 32 MB set filled to 6/8 5.70 ms against 5.39 for 64 MB at 3/8.
#if defined(TILEKIT_DISTINCT_FIRST_SET_LOAD_EIGHTHS)
  static constexpr unsigned first_set_load_eighths = TILEKIT_DISTINCT_FIRST_SET_LOAD_EIGHTHS;
#else
  static constexpr unsigned first_set_load_eighths = 3;
#endif
  // Where the keys may outgrow the first set, the sketch of the first estimate_items keys
  // (distinct_estimate: 32 MB of int32 keys, read while the flags, bitmap and places are
  // zeroed) gives it up before any key goes in if they alone are too many, else sizes it. At 2^24 int32 keys with 50% distinct,
  // 2^23 keys hold ~5 M distinct, past the 3.1 M the set takes; the inserts before the set
  // was given up took 259 us of 1059 there (Nsight Compute, 2026-12-04, before the sketch).
  // Not yet measured with the sketch.
  static constexpr unsigned long long estimate_items = 1ull << 23;
  static constexpr unsigned long long max_probes = 512;  // linear probing at load 0.75 in 2^22 slots: at most ~175 (CPU model)
  // Past the first set: the keys partitioned by hash into buckets of about bucket_items (at
  // most max_buckets of them), each into at most max_buckets pieces of about half a set of
  // bucket_set_bytes in a block's shared memory (three blocks fit a multiprocessor). Past
  // 2^28 4-byte keys (2^27 8-byte ones) the pieces outgrow their sets and are done in 2, 4, ...
  // passes each.
  static constexpr unsigned long long bucket_items = 4096;
  static constexpr unsigned max_buckets = 256;
  // The first pass's buckets at most (a power of two, at most max_buckets). A tile of the
  // scatter (4096 pairs) goes to 256 buckets in runs of 16 keys (64 bytes, and 64 of indices:
  // partial sectors); fewer buckets make longer runs, and more pieces a bucket in the second
  // pass (at most max_buckets: with 64 buckets, pieces outgrow their sets past 2^26 keys). A cap
  // of 32 was 1-13% slower than balanced_buckets at 2^23-2^26 on an H100 (perf/results/2026-12-05-
  // h100-ab/round2). -DTILEKIT_DISTINCT_FIRST_LEVEL_BUCKETS overrides (for measuring).
#if defined(TILEKIT_DISTINCT_FIRST_LEVEL_BUCKETS)
  static constexpr unsigned first_level_buckets = TILEKIT_DISTINCT_FIRST_LEVEL_BUCKETS;
#else
  static constexpr unsigned first_level_buckets = max_buckets;
#endif
  static_assert(first_level_buckets >= 1 && first_level_buckets <= max_buckets && (first_level_buckets & (first_level_buckets - 1)) == 0,
                "distinct_tuning: first_level_buckets is a power of two, at most max_buckets");
  // No more buckets than pieces a bucket (about the square root of the pieces in all) where
  // that is fewer. H100 (2026-12-05, rbench4), 2^24 int32 keys, 64 buckets of 64 pieces against
  // 256 of 16: 50% distinct 784.5 -> 698.8 us, 100% 815.9 -> 728.3 (1% takes no buckets). At 2^28
  // it is 256 of 256 either way. -DTILEKIT_DISTINCT_BALANCED_BUCKETS=0 overrides (for measuring).
#if defined(TILEKIT_DISTINCT_BALANCED_BUCKETS)
  static constexpr bool balanced_buckets = TILEKIT_DISTINCT_BALANCED_BUCKETS;
#else
  static constexpr bool balanced_buckets = true;
#endif
  static constexpr unsigned long long bucket_set_bytes = 64 << 10;
  // The partition passes' scatter: items a thread a tile (of 4-byte keys with 4-byte indices;
  // scatter_items_wide for wider pairs) and blocks a multiprocessor (256 threads each). Nsight
  // Compute had the scatters at 1-1.7 TB/s (2026-12-03/04); 8 items and 3 blocks, to overlap one
  // block's barriers with another's loads, ran 14-24% slower at 50-100% distinct (H200, 2026-12-05,
  // perf/results/2026-12-04-distinct-sketch); 32 items (2 blocks, 128 registers, spills) ran 20% slower
  // at 2^24 and 2% at 2^28 (H100, 2026-12-05). With the next tile's loads in flight while a
  // tile goes out (scatter_tile), 3 blocks (80 registers, no spills) ran the first scatter at
  // 2^28 keys, 100% distinct, in 2.29 ms against 2.05, and distinct 1-5% slower at 2^24-2^28
  // (H100, perf/results/2026-12-05-h100-15-distinct). 24 items (128 registers, no spills) against
  // 16: 2^28 keys, 50% / 100% distinct, 1.3-1.5% faster; 2^24 within 0.7% either way (H100, two
  // calls, perf/results/2026-12-05-h100-16-distinct).
  // -DTILEKIT_DISTINCT_SCATTER_ITEMS / -DTILEKIT_DISTINCT_SCATTER_BLOCKS override (for measuring).
#if defined(TILEKIT_DISTINCT_SCATTER_ITEMS)
  static constexpr unsigned scatter_items = TILEKIT_DISTINCT_SCATTER_ITEMS;
#else
  static constexpr unsigned scatter_items = 24;
#endif
  static constexpr unsigned scatter_items_wide = 8;  // (half of 16, as measured; 12 was not)
#if defined(TILEKIT_DISTINCT_SCATTER_BLOCKS)
  static constexpr unsigned scatter_blocks_per_sm = TILEKIT_DISTINCT_SCATTER_BLOCKS;
#else
  static constexpr unsigned scatter_blocks_per_sm = 2;
#endif
  // piece_dedup's grid: this many waves of blocks at most, each block taking pieces grid-stride
  // (with 1, each block does several).
  // -DTILEKIT_DISTINCT_DEDUP_WAVES overrides (for measuring). H200 (2026-12-05): 1 or 2 waves within
  // 1% of 8 at 2^20-2^28, slower at 2^28 with 50-100% distinct (perf/results/2026-12-04-distinct-sketch).
#if defined(TILEKIT_DISTINCT_DEDUP_WAVES)
  static constexpr unsigned dedup_waves = TILEKIT_DISTINCT_DEDUP_WAVES;
#else
  static constexpr unsigned dedup_waves = 8;
#endif
};

}  // namespace tilekit
