// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cluster/scan.cuh - prefix scans over a thread-block cluster (sm_90): thread i
// of the cluster (cluster rank order: block rank in the cluster, then thread rank) gets
// op over the values of threads 0..i (inclusive) or 0..i-1 (exclusive, after init).
//
// Cluster level (cluster<Blocks, Threads>; storage: cluster_scan_storage<T, Blocks, Threads[, A]>):
//   inclusive_scan(cluster, v, op, storage)           exclusive_scan(cluster, v, op, init, storage)
//   exclusive_scan(cluster, v, op, storage)           (init = identity(op))
//   inclusive_scan_aggregate / exclusive_scan_aggregate      {value, cluster aggregate}
//   inclusive_scan(cluster, in[K], out[K], op, storage)          K items per thread, blocked;
//   exclusive_scan(cluster, in[K], out[K], op[, init], storage)  both return the cluster aggregate
// Each block scans its threads once (the block level's aggregate form, variant A), the
// block aggregates go to the blocks that need them through distributed shared memory
// (block_totals.cuh: to the later blocks only, or to every block where the cluster
// aggregate is returned), the cluster meets at cluster.sync(), and every thread folds the
// aggregates of the blocks before its own, in rank order, from its own block's shared
// memory. So op need only be associative. Call cluster.sync() before reusing storage.
// @pre for every call: every block of the cluster has passed one cluster.sync() since the
// kernel started (a block may not have started otherwise).
#pragma once
#include <tilekit/block/scan.cuh>
#include <tilekit/cluster/reduce.cuh>

namespace tilekit {

/// Shared storage of a cluster scan of T over clusters of Blocks blocks of Threads
/// threads with block scan variant A, one per block.
template <class T, unsigned Blocks, unsigned Threads, block_scan_algorithm A = default_block_scan_algorithm>
struct cluster_scan_storage {
  scan_storage<T, Threads, A> block;    ///< the block scan's storage
  detail::raw_slots<T, Blocks> totals;  ///< block aggregates, at their blocks' ranks
};

namespace detail {

// What a thread of the cluster knows after the cluster part of a scan.
template <class T>
struct cluster_scan_parts {
  block_scan_parts<T> block;  // the scan within the block
  maybe<T> before;            // op over the aggregates of the blocks before this one (absent in block 0)
  T total;                    // op over every block's aggregate (only where Total)
};

TILEKIT_EXEC_CHECK_DISABLE
template <bool Total, class Cluster, class T, class Op, unsigned Blocks, unsigned Threads, block_scan_algorithm A>
TILEKIT_HD cluster_scan_parts<T> cluster_scan(const Cluster& cluster, const T& v, Op op,
                                              cluster_scan_storage<T, Blocks, Threads, A>& storage) {
  cluster_scan_parts<T> p{block_scan<Threads, A>(cluster.block(), v, op, storage.block.full, static_cast<no_prefix<T>*>(nullptr)),
                          {v, false}, v};
  p.total = p.block.aggregate;
  if constexpr (Blocks > 1) {
    const unsigned me = cluster.block_rank();
    // Without the total only later blocks read this block's aggregate.
    share_block_totals(cluster, p.block.aggregate, storage.totals, Total ? 0u : me + 1);
    auto& totals = storage.totals;
    if constexpr (Total) {
      T running = totals[0];
      TILEKIT_UNROLL
      for (unsigned i = 1; i < Blocks; ++i) {
        if (i == me) p.before = {running, true};
        running = op(running, T(totals[i]));
      }
      p.total = running;
    } else if (me > 0) {
      T running = totals[0];
      for (unsigned i = 1; i < me; ++i) running = op(running, T(totals[i]));
      p.before = {running, true};
    }
  }
  return p;
}

// op over the values of the threads before this one in the cluster (absent for thread 0).
TILEKIT_EXEC_CHECK_DISABLE
template <class T, class Op>
TILEKIT_HD maybe<T> cluster_thread_prefix(const cluster_scan_parts<T>& p, Op op) {
  return prefix_before(p.before, p.block, op);
}

TILEKIT_EXEC_CHECK_DISABLE
template <class T, class Op>
TILEKIT_HD T cluster_inclusive(const cluster_scan_parts<T>& p, Op op) {
  return p.before.present ? op(p.before.value, p.block.inclusive) : p.block.inclusive;
}

}  // namespace detail

// Scalar forms also require op(T, T), so an array argument never selects them.
#define TILEKIT_CLUSTER_ONLY detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0
#define TILEKIT_CLUSTER_SCALAR \
  detail::stdx::enable_if_t<is_cluster_v<Cluster> && detail::stdx::is_invocable<Op&, const T&, const T&>::value, int> = 0
#define TILEKIT_CLUSTER_SCAN_STORAGE \
  cluster_scan_storage<T, Cluster::static_blocks, detail::cluster_threads<Cluster>(), A>

/// Thread i of the cluster gets op over the values of threads 0..i, in cluster rank order.
/// @pre every thread of the cluster calls; every block has passed one cluster.sync()
/// since the kernel started; cluster.sync() since storage's last use.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class Op, block_scan_algorithm A, TILEKIT_CLUSTER_SCALAR>
TILEKIT_HD T inclusive_scan(const Cluster& cluster, const T& v, Op op, TILEKIT_CLUSTER_SCAN_STORAGE& storage) {
  return detail::cluster_inclusive(detail::cluster_scan<false>(cluster, v, op, storage), op);
}

/// As inclusive_scan, with the cluster aggregate (op over every value) in every thread.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class Op, block_scan_algorithm A, TILEKIT_CLUSTER_SCALAR>
TILEKIT_HD scanned<T> inclusive_scan_aggregate(const Cluster& cluster, const T& v, Op op,
                                               TILEKIT_CLUSTER_SCAN_STORAGE& storage) {
  const auto p = detail::cluster_scan<true>(cluster, v, op, storage);
  return {detail::cluster_inclusive(p, op), p.total};
}

/// Thread i of the cluster gets init op the values of threads 0..i-1 (thread 0: init).
/// @pre as inclusive_scan.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class Op, block_scan_algorithm A, TILEKIT_CLUSTER_SCALAR>
TILEKIT_HD T exclusive_scan(const Cluster& cluster, const T& v, Op op, const T& init, TILEKIT_CLUSTER_SCAN_STORAGE& storage) {
  const detail::maybe<T> before = detail::cluster_thread_prefix(detail::cluster_scan<false>(cluster, v, op, storage), op);
  return before.present ? op(init, before.value) : init;
}

/// As exclusive_scan with init = the identity of op (thread 0 gets it).
/// @pre as inclusive_scan; op has a known identity for T.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class Op, block_scan_algorithm A, TILEKIT_CLUSTER_SCALAR>
TILEKIT_HD T exclusive_scan(const Cluster& cluster, const T& v, Op op, TILEKIT_CLUSTER_SCAN_STORAGE& storage) {
  static_assert(has_identity_v<T, Op>, "tilekit::exclusive_scan: this operator has no known identity; pass an init value");
  const detail::maybe<T> before = detail::cluster_thread_prefix(detail::cluster_scan<false>(cluster, v, op, storage), op);
  return before.present ? before.value : identity<T>(op);
}

/// As exclusive_scan, with the cluster aggregate (op over every value, without init) in every thread.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class Op, block_scan_algorithm A, TILEKIT_CLUSTER_SCALAR>
TILEKIT_HD scanned<T> exclusive_scan_aggregate(const Cluster& cluster, const T& v, Op op, const T& init,
                                               TILEKIT_CLUSTER_SCAN_STORAGE& storage) {
  const auto p = detail::cluster_scan<true>(cluster, v, op, storage);
  const detail::maybe<T> before = detail::cluster_thread_prefix(p, op);
  return {before.present ? op(init, before.value) : init, p.total};
}

/// K items per thread (blocked, in cluster rank order): out[k] = op over every item of the
/// cluster up to in[k]; returns the cluster aggregate. in and out may be one array.
/// @pre as inclusive_scan of one value.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, int K, class Op, block_scan_algorithm A, TILEKIT_CLUSTER_ONLY>
TILEKIT_HD T inclusive_scan(const Cluster& cluster, const T (&in)[K], T (&out)[K], Op op,
                            TILEKIT_CLUSTER_SCAN_STORAGE& storage) {
  const auto p = detail::cluster_scan<true>(cluster, detail::thread_reduce(in, op), op, storage);
  const detail::maybe<T> seed = detail::cluster_thread_prefix(p, op);
  detail::thread_inclusive_scan(in, out, op, seed.value, seed.present);
  return p.total;
}

/// K items per thread (blocked): out[k] = init op every item of the cluster before in[k];
/// returns the cluster aggregate (without init). in and out may be one array.
/// @pre as inclusive_scan of one value.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, int K, class Op, block_scan_algorithm A, TILEKIT_CLUSTER_ONLY>
TILEKIT_HD T exclusive_scan(const Cluster& cluster, const T (&in)[K], T (&out)[K], Op op, const T& init,
                            TILEKIT_CLUSTER_SCAN_STORAGE& storage) {
  const auto p = detail::cluster_scan<true>(cluster, detail::thread_reduce(in, op), op, storage);
  const detail::maybe<T> before = detail::cluster_thread_prefix(p, op);
  detail::thread_exclusive_scan(in, out, op, before.present ? op(init, before.value) : init);
  return p.total;
}

/// As above with init = the identity of op. @pre op has a known identity for T.
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, int K, class Op, block_scan_algorithm A, TILEKIT_CLUSTER_ONLY>
TILEKIT_HD T exclusive_scan(const Cluster& cluster, const T (&in)[K], T (&out)[K], Op op,
                            TILEKIT_CLUSTER_SCAN_STORAGE& storage) {
  static_assert(has_identity_v<T, Op>, "tilekit::exclusive_scan: this operator has no known identity; pass an init value");
  return exclusive_scan(cluster, in, out, op, identity<T>(op), storage);
}

#undef TILEKIT_CLUSTER_SCAN_STORAGE
#undef TILEKIT_CLUSTER_SCALAR
#undef TILEKIT_CLUSTER_ONLY
}  // namespace tilekit
