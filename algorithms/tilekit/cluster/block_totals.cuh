// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cluster/block_totals.cuh - what the cluster algorithms share: every block's
// total (a block reduce's result, a block scan's aggregate, a block compact's count)
// handed to the blocks of the cluster through distributed shared memory.
//
// Push, not pull: block q's threads of rank t (t < Blocks) each store q's total into
// slot q of block t's storage (one remote store per pair of blocks, spread over the
// threads of the block), then the cluster meets at cluster.sync(). Afterwards every block
// reads the totals from its own shared memory, so nothing is read remotely and no
// block's shared memory is touched after the barrier that ends the exchange.
#pragma once
#include <tilekit/core/group.hpp>

namespace tilekit::detail {

/// Stores `total` into slots[this block's rank] of every block of the cluster whose rank
/// is at least `first`, then cluster.sync(): afterwards slots[q] of such a block holds
/// block q's total (q < Blocks). Slots of the blocks below `first` are left alone.
/// @pre slots lies in the calling block's shared memory (the same variable in every
/// block); every block has passed one cluster.sync() since the kernel started; nobody
/// reads slots from an earlier call any more (a cluster.sync() since).
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, class Slots>
TILEKIT_HD void share_block_totals(const Cluster& cluster, const T& total, Slots& slots, unsigned first = 0) {
  constexpr unsigned blocks = Cluster::static_blocks;
  const auto block = cluster.block();
  const unsigned me = cluster.block_rank();
  // Blocks of fewer threads than the cluster has blocks loop; otherwise one store at most.
  const unsigned stride = Cluster::static_size ? Cluster::static_size : block.num_threads();
  for (unsigned t = first + block.thread_rank(); t < blocks; t += stride) *cluster.map_shared_rank(&slots[me], t) = total;
  cluster.sync();
}

}  // namespace tilekit::detail
