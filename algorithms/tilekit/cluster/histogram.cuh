// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cluster/histogram.cuh - histogram over a thread-block cluster (sm_90): the
// counters spread over the shared memory of the cluster's blocks, so a cluster of
// Blocks blocks holds Blocks times the bins one block can.
//
// Bin b lives in block b / per_block, at index b % per_block of its `local` counters,
// per_block = ceil(bins / Blocks) (contiguous slices; the last blocks' slices may be
// short or empty). Cluster level (cluster<Blocks, Threads>):
//   cluster_histogram_init(cluster, local, bins)           zero this block's slice, cluster.sync()
//   histogram(cluster, items[K], local, bins)              add the cluster's samples: one atomic
//                                                          add each, on the owner's counter
//                                                          through map_shared_rank
//   cluster_histogram_merge(cluster, local, global, bins)  cluster.sync(), then each block adds
//                                                          its slice's non-zero counters to global ones
// local: cluster_histogram_storage_bytes<Counter, Blocks>(bins) bytes of each block's
// shared memory (the same variable in every block). The samples go to remote counters one
// by one (as the block level's go to shared counters); aggregating them first is not
// done yet. The counters are 4-byte integers: only 32-bit integer atomics are atomic on
// another block's shared memory through a generic address (nvcc 13.0, sm_90). init's cluster.sync() is also the one a remote access needs first (every
// block has started), and merge's the one that ends the remote accesses before a block exits.
#pragma once
#include <tilekit/core/group.hpp>

#include <cstddef>

namespace tilekit {

/// Counters each block of a cluster of Blocks blocks holds for `bins` bins: ceil(bins / Blocks).
template <unsigned Blocks>
TILEKIT_HD constexpr unsigned cluster_histogram_bins_per_block(unsigned bins) {
  return bins / Blocks + (bins % Blocks != 0 ? 1u : 0u);
}

/// Bytes of each block's shared memory for the counters of `bins` bins spread over a cluster of Blocks blocks.
template <class Counter, unsigned Blocks>
TILEKIT_HD constexpr std::size_t cluster_histogram_storage_bytes(unsigned bins) {
  return std::size_t(cluster_histogram_bins_per_block<Blocks>(bins)) * sizeof(Counter);
}

namespace detail {
// The bins of this block's slice: [first, first + count).
struct histogram_slice {
  unsigned per_block, first, count;
};
template <unsigned Blocks>
TILEKIT_HD histogram_slice slice_of(unsigned rank, unsigned bins) {
  const unsigned per = cluster_histogram_bins_per_block<Blocks>(bins), first = rank * per;
  return {per, first, first >= bins ? 0u : (bins - first < per ? bins - first : per)};
}
}  // namespace detail

/// Zeroes this block's slice of the cluster's counters, then cluster.sync() (after which
/// every block has started, so histogram may address their counters).
/// @pre every thread of the cluster calls; bins >= 1; local holds cluster_histogram_bins_per_block<Blocks>(bins) counters.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class Counter, detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0>
TILEKIT_HD void cluster_histogram_init(const Cluster& cluster, Counter* local, unsigned bins) {
  const auto block = cluster.block();
  const detail::histogram_slice s = detail::slice_of<Cluster::static_blocks>(cluster.block_rank(), bins);
  const unsigned stride = Cluster::static_size ? Cluster::static_size : block.num_threads();
  for (unsigned i = block.thread_rank(); i < s.count; i += stride) local[i] = Counter(0);
  cluster.sync();
}

/// Adds each thread's K samples to the cluster's counters: one atomic add each on the
/// counter of its bin, in the block that owns it. @pre cluster_histogram_init since the
/// last merge; every sample < bins; bins the same in every call.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class Bin, int K, class Counter, detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0>
TILEKIT_HD void histogram(const Cluster& cluster, const Bin (&items)[K], Counter* local, unsigned bins) {
  static_assert(detail::stdx::is_integral<Counter>::value && sizeof(Counter) == 4,
                "tilekit::histogram(cluster): the shared counters must be 4-byte integers (unsigned or int): nvcc "
                "compiles 64-bit and floating-point atomic adds on another block's shared memory to a plain load and "
                "store; merge them into 64-bit global counters with cluster_histogram_merge");
  const unsigned per = cluster_histogram_bins_per_block<Cluster::static_blocks>(bins);
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) {
    const unsigned bin = static_cast<unsigned>(items[k]), owner = bin / per;
    Cluster::backend::atomic_add(cluster.map_shared_rank(local + (bin - owner * per), owner), Counter(1));
  }
}

/// Waits for the cluster's samples (cluster.sync()), then adds this block's non-zero
/// counters to global[first bin of its slice ..]: global[0 .. bins) gets the cluster's counts.
/// @pre every thread of the cluster calls; global[0 .. bins) initialised by the caller.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class Counter, class GlobalCounter, detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0>
TILEKIT_HD void cluster_histogram_merge(const Cluster& cluster, const Counter* local, GlobalCounter* global, unsigned bins) {
  cluster.sync();
  const auto block = cluster.block();
  const detail::histogram_slice s = detail::slice_of<Cluster::static_blocks>(cluster.block_rank(), bins);
  const unsigned stride = Cluster::static_size ? Cluster::static_size : block.num_threads();
  for (unsigned i = block.thread_rank(); i < s.count; i += stride)
    if (local[i] != Counter(0)) Cluster::backend::atomic_add(global + s.first + i, static_cast<GlobalCounter>(local[i]));
}

}  // namespace tilekit
