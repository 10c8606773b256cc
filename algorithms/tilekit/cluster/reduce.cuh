// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cluster/reduce.cuh - reduce over a thread-block cluster (sm_90): combine one
// value (or K items) per thread of every block of the cluster with an associative
// operator; every thread of the cluster gets the result.
//
// Cluster level (cluster<Blocks, Threads>, Blocks 1..16, Threads 1..1024 at compile time;
// launch with tilekit::launch_cluster / tilekit::sim::launch_cluster), the files of this folder:
//   reduce.cuh     reduce(cluster, v, op, storage), reduce(cluster, items[K], op, storage)
//   scan.cuh       inclusive_scan / exclusive_scan (+ _aggregate, K-items forms)
//   compact.cuh    compact(cluster, keep, storage), compact_store(...)
//   histogram.cuh  counters spread over the blocks' shared memory
//   dedup.cuh      dedup(cluster, keys[K], first[K], storage[, valid_items]): first occurrences
//                  across the cluster, a hash set spread over the blocks' shared memory
// Each block reduces its threads (the block level, storage.block), the block totals go
// to every block through distributed shared memory (block_totals.cuh: pushed, one
// remote store per pair of blocks), the cluster meets at cluster.sync(), and every
// thread folds the Blocks totals in rank order from its own block's shared memory. So op
// need only be associative, and the result is the same bit for bit in every thread.
// Thread order: cluster rank (block rank in the cluster, then thread rank in the block).
// storage: cluster_reduce_storage<T, Blocks, Threads>, in each block's shared memory
// (the same variable in every block). Call cluster.sync() before reusing it (as the
// block level asks for block.sync()).
#pragma once
#include <tilekit/block/reduce.cuh>
#include <tilekit/cluster/block_totals.cuh>
#include <tilekit/core/storage.hpp>
#include <tilekit/tile/scan.cuh>  // detail::thread_reduce

namespace tilekit {

/// Shared storage of a cluster reduce of T over clusters of Blocks blocks of Threads
/// threads, one per block (trivially constructible: it may share a union).
template <class T, unsigned Blocks, unsigned Threads>
struct cluster_reduce_storage {
  reduce_storage<T, Threads> block;     ///< the block reduce's storage
  detail::raw_slots<T, Blocks> totals;  ///< every block's total, at its rank in the cluster
};

namespace detail {

/// The block size of Cluster's blocks at compile time (a static_assert when it is 0).
template <class Cluster>
TILEKIT_HD constexpr unsigned cluster_threads() {
  return static_threads<typename Cluster::block_type>();
}

// op over every thread's v in cluster rank order, in every thread of the cluster.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class Op, class Storage>
TILEKIT_HD T cluster_reduce(const Cluster& cluster, const T& v, Op op, Storage& storage) {
  const T mine = tilekit::reduce(cluster.block(), v, op, storage.block);
  if constexpr (Cluster::static_blocks == 1) {
    return mine;
  } else {
    share_block_totals(cluster, mine, storage.totals);
    T r = storage.totals[0];
    TILEKIT_UNROLL
    for (unsigned i = 1; i < Cluster::static_blocks; ++i) r = op(r, T(storage.totals[i]));
    return r;
  }
}

}  // namespace detail

#define TILEKIT_CLUSTER_ONLY detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0
#define TILEKIT_CLUSTER_REDUCE_STORAGE \
  cluster_reduce_storage<T, Cluster::static_blocks, detail::cluster_threads<Cluster>()>

/// op over one value per thread of the cluster, in cluster rank order; the result in every
/// thread of the cluster, bit for bit the same. @pre every thread of the cluster calls;
/// every block of the cluster has passed one cluster.sync() since the kernel started
/// (a block may not have started otherwise); cluster.sync() since storage's last use.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class Op, TILEKIT_CLUSTER_ONLY>
TILEKIT_HD T reduce(const Cluster& cluster, const T& v, Op op, TILEKIT_CLUSTER_REDUCE_STORAGE& storage) {
  return detail::cluster_reduce(cluster, v, op, storage);
}

/// op over K items per thread of the cluster (blocked: thread i's items before thread
/// i + 1's, in cluster rank order); the result in every thread. @pre as for one value.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, int K, class Op, TILEKIT_CLUSTER_ONLY>
TILEKIT_HD T reduce(const Cluster& cluster, const T (&items)[K], Op op, TILEKIT_CLUSTER_REDUCE_STORAGE& storage) {
  return detail::cluster_reduce(cluster, detail::thread_reduce(items, op), op, storage);
}

#undef TILEKIT_CLUSTER_REDUCE_STORAGE
#undef TILEKIT_CLUSTER_ONLY
}  // namespace tilekit
