// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cluster/compact.cuh - ballot-compact over a thread-block cluster (sm_90): kept
// threads get consecutive slots in cluster rank order (stable).
//
// Cluster level (cluster<Blocks, Threads>; storage: cluster_compact_storage<Blocks, Threads>):
//   compact(cluster, keep, storage)                      -> {rank among the kept threads of
//       the cluster, kept count}: what a compaction writes out[rank] with
//   compact_store(cluster, keep, value, out, storage)    the kept values to out[0 .. count)
//       in cluster rank order; returns count (every thread)
// Each block compacts its threads (the block level: one ballot per warp, one barrier),
// the block counts go to every block through distributed shared memory
// (block_totals.cuh), the cluster meets at cluster.sync(), and each thread adds up the
// counts of the blocks before its own. Call cluster.sync() before reusing storage.
// @pre for every call: every block of the cluster has passed one cluster.sync() since the
// kernel started (a block may not have started otherwise).
#pragma once
#include <tilekit/block/compact.cuh>
#include <tilekit/cluster/reduce.cuh>

namespace tilekit {

/// Shared storage of a cluster compact over clusters of Blocks blocks of Threads threads, one per block.
template <unsigned Blocks, unsigned Threads>
struct cluster_compact_storage {
  compact_storage<Threads> block;  ///< the block compact's storage
  unsigned totals[Blocks];         ///< kept threads of every block, at its rank in the cluster
};

/// Each thread's rank among the threads of the cluster that keep (in cluster rank order)
/// and the kept count. @pre every thread of the cluster calls; every block has passed one
/// cluster.sync() since the kernel started; cluster.sync() since storage's last use.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0>
TILEKIT_HD compact_result compact(const Cluster& cluster, bool keep,
                                  cluster_compact_storage<Cluster::static_blocks, detail::cluster_threads<Cluster>()>& storage) {
  const compact_result r = compact(cluster.block(), keep, storage.block);
  if constexpr (Cluster::static_blocks == 1) {
    return r;
  } else {
    detail::share_block_totals(cluster, r.count, storage.totals);
    const unsigned me = cluster.block_rank();
    unsigned before = 0, total = 0;
    TILEKIT_UNROLL
    for (unsigned i = 0; i < Cluster::static_blocks; ++i) {
      if (i == me) before = total;
      total += storage.totals[i];
    }
    return {before + r.rank, total};
  }
}

/// Stores the kept threads' values at out[0 .. count) in cluster rank order; returns count
/// (every thread). @pre as compact; out holds as many items as the cluster keeps.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class OutputIt, detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0>
TILEKIT_HD unsigned compact_store(const Cluster& cluster, bool keep, const T& value, OutputIt out,
                                  cluster_compact_storage<Cluster::static_blocks, detail::cluster_threads<Cluster>()>& storage) {
  const compact_result r = compact(cluster, keep, storage);
  if (keep) out[r.rank] = value;
  return r.count;
}

}  // namespace tilekit
