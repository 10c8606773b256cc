// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cluster/dedup.cuh - dedup over a thread-block cluster (sm_90): each item learns
// whether it is the first occurrence of its key in the cluster, without sorting.
//
// Cluster level (cluster<Blocks, Threads>; storage: cluster_dedup_storage<T, Blocks, Threads, K>):
//   dedup(cluster, keys[K], first[K], storage[, valid_items])   -> distinct keys in the cluster
//       (every thread); first[k]: item k of this thread is the first item with its key in
//       cluster order (cluster thread rank, then k: blocked items). Items at or past
//       valid_items (counted over the cluster in that order) are neither first nor counted.
// Keys are 4- or 8-byte integers, compared with == (bitwise, as the set stores them).
//
// Built on the block level (block/dedup.cuh), in five steps:
//   1. each block flags the first item of each key among its own items (its shared hash set);
//   2. each block empties its slice of the cluster's hash set; cluster.sync() (A);
//   3. each block-first item inserts (key, its cluster item index) in the slice of the block
//      its key's hash picks (map_shared_rank): linear probing from a home slot the hash
//      also picks, on into the next block's slice past the last slot of one; an atomic CAS
//      claims a free slot for the key, an atomic max keeps the complement of the lowest
//      index; cluster.sync() (B);
//   4. each block-first item reads its slot back: first where the slot holds its own index;
//   5. the count: a cluster reduce of each thread's firsts (cluster/reduce.cuh), whose
//      cluster.sync() (C) also ends step 4's remote reads, so a block may exit after the call.
// A slot holds ~key (0: free), as the grid's set does; the key whose complement is 0
// (all bits set: -1) has an extra slot of its own past the others in its owner's slice.
// Each slice has twice as many slots as the block has items (a power of two, at least 64):
// the cluster's set is twice its items, spread by the hash. The slices are one table: where
// more distinct keys hash to one block than its slice has slots (skewed or crafted keys),
// the probes go on into the next blocks' slices, so no keys fill the set.
// The slices are emptied at the start of each call, not after it as the grid's set is: a
// kernel's shared memory starts with garbage, and the table shares a union with the block
// level's storage, which step 1 has just used. That costs each thread about 2K local stores.
// A cluster of one block is the block level alone (no table, no cluster.sync()).
// Call cluster.sync() before reusing storage (as the block level asks for block.sync()). No
// cluster.sync() is needed before the first call: (A) comes before any remote access.
#pragma once
#include <tilekit/block/dedup.cuh>
#include <tilekit/cluster/reduce.cuh>

namespace tilekit {

namespace detail {

/// Slots of one block's slice of a cluster dedup's hash set for a block of `items` items:
/// a power of two, at least 64 and at least 2 items.
TILEKIT_HD constexpr unsigned cluster_dedup_slots(unsigned items) {
  unsigned p = 64;
  while (p < 2 * items) p *= 2;
  return p;
}

/// One block's slice of the cluster's hash set: Slots slots (a power of two) and, at
/// index Slots, the slot of the key whose complement is 0. A slot is ~key (claimed by one
/// CAS of the key's width) and ~(lowest index) (one 32-bit atomic max per later item).
/// 0 means free (no key, no index). Only 32-bit atomics and the CAS touch another block's
/// slice: nvcc 13.0 compiles a 64-bit atomic max / min / add on a generic address that
/// lands in another block's shared memory to a plain load and store (its fallback for
/// local memory), which lost index updates on the H200 (a packed 64-bit key-and-index
/// word, kept with atomicMax, did).
template <class T, unsigned Slots>
struct cluster_key_slice {
  using bits_t = stdx::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  bits_t key[Slots + 1];   ///< ~key; 0: free
  unsigned first[Slots + 1];  ///< ~(lowest index); 0: none yet
};

/// What the cluster dedup does with a slice (the same code for every owner: `slice`
/// may be another block's, through map_shared_rank).
template <class T, unsigned Slots>
struct cluster_key_set {
  using slice_t = cluster_key_slice<T, Slots>;
  using bits_t = typename slice_t::bits_t;
  static constexpr unsigned mask = Slots - 1;
  static constexpr const char* full =
      "tilekit::dedup(cluster): the cluster's hash set is full: more distinct keys than twice the cluster's items "
      "(cannot happen: the set is twice the items)";

  /// Where a key is: slot `slot` of block `block`'s slice.
  struct place {
    unsigned block, slot;
  };

  /// The complement of key's bits: what a slot holds (0 is free).
  TILEKIT_HD static bits_t stored(const T& key) {
    bits_t bits;
    std::memcpy(&bits, &key, sizeof(bits_t));
    return bits_t(~bits);
  }

  /// Empties the slots of `slice` with index rank, rank + stride, ... (the calling block's own).
  TILEKIT_HD static void clear(slice_t& slice, unsigned rank, unsigned stride) {
    for (unsigned i = rank; i < Slots + 1; i += stride) {
      slice.key[i] = 0;
      slice.first[i] = 0;
    }
  }

  /// Inserts key with cluster item index `index` from slot `home` of block `owner`'s slice,
  /// probing on into block owner + 1's slice (slice_of(b): block b's, of `blocks`) past the
  /// last slot of one; returns the key's place. Stale plain reads only cost an atomic: slots
  /// change from free to a key once, and their index words only grow.
  /// @pre index < 0xFFFFFFFF (its complement is not 0); the slices were emptied and a
  /// cluster.sync() passed since; fewer distinct keys than blocks x Slots.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Backend, class SliceOf>
  TILEKIT_HD static place insert(SliceOf slice_of, unsigned blocks, const T& key, unsigned owner, unsigned home,
                                 unsigned index) {
    const bits_t s = stored(key);
    place at{owner, s == 0 ? Slots : home};
    slice_t* slice = slice_of(owner);
    for (unsigned probes = 0; s != 0;) {
      Backend::require(++probes <= Slots * blocks, full);
      bits_t seen = slice->key[at.slot];
      if (seen == 0) seen = Backend::atomic_cas(&slice->key[at.slot], bits_t(0), s);
      if (seen == 0 || seen == s) break;
      if (++at.slot == Slots) {  // on into the next block's slice
        at.slot = 0;
        at.block = at.block + 1 == blocks ? 0 : at.block + 1;
        slice = slice_of(at.block);
      }
    }
    const unsigned mine = ~index;
    if (slice->first[at.slot] < mine) Backend::atomic_max(&slice->first[at.slot], mine);
    return at;
  }

  /// The lowest index inserted into slot `at` (from insert). @pre a cluster.sync() since the inserts.
  TILEKIT_HD static unsigned index_at(const slice_t* slice, unsigned at) {
    return ~slice->first[at];
  }
};

}  // namespace detail

/// Shared storage of a cluster dedup of K keys of type T per thread over clusters of
/// Blocks blocks of Threads threads, one per block (the same variable in every block;
/// trivially constructible: it may share a union).
template <class T, unsigned Blocks, unsigned Threads, int K>
struct cluster_dedup_storage {
  static_assert(detail::stdx::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "tilekit::dedup(cluster): keys must be 4- or 8-byte integers (the cluster's hash set compares them bitwise)");
  static_assert(K >= 1, "tilekit::dedup(cluster): K must be at least 1");
  static_assert(1ull * Blocks * Threads * unsigned(K) < 0xFFFFFFFFull,
                "tilekit::dedup(cluster): the cluster's items must number fewer than 2^32 - 1 (32-bit item indices)");
  /// Slots of this block's slice of the cluster's hash set: a power of two, at least 64 and
  /// at least twice the block's items (plus one for the key whose complement is 0).
  static constexpr unsigned slots = detail::cluster_dedup_slots(Threads * unsigned(K));
  /// The two uses of the same bytes, which never overlap in time (a block.sync() between).
  union phases {
    distinct_storage<T, Threads, K> block;      ///< step 1: the block dedup's hash set
    detail::cluster_key_slice<T, slots> table;  ///< steps 2-4: this block's slice of the cluster's set
  };
  phases phase;                                             ///< the block dedup's storage, then the slice
  cluster_reduce_storage<unsigned, Blocks, Threads> count;  ///< step 5: the cluster reduce of the first items
};

/// Flags in first[k] whether item k of the calling thread is the first item with its key
/// in cluster order (cluster thread rank, then k); returns the number of distinct keys among
/// the cluster's first valid_items items (every thread of the cluster).
/// @pre every thread of the cluster calls, with the same valid_items; cluster.sync() since
/// storage's last use (none is needed before the first call).
TILEKIT_EXEC_CHECK_DISABLE
template <class Cluster, class T, int K, detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0>
TILEKIT_HD unsigned dedup(const Cluster& cluster, const T (&keys)[K], bool (&first)[K],
                          cluster_dedup_storage<T, Cluster::static_blocks, detail::cluster_threads<Cluster>(), K>& storage,
                          unsigned valid_items = ~0u) {
  constexpr unsigned blocks = Cluster::static_blocks, threads = detail::cluster_threads<Cluster>();
  constexpr unsigned block_items = threads * unsigned(K);
  using be = typename Cluster::backend;
  using set = detail::cluster_key_set<T, cluster_dedup_storage<T, blocks, threads, K>::slots>;
  const auto block = cluster.block();
  const unsigned me = cluster.block_rank(), start = me * block_items;
  // Step 1: the block level, over this block's part of the valid items.
  bool in_block[K];
  const unsigned block_distinct =
      tilekit::dedup(block, keys, in_block, storage.phase.block, valid_items > start ? valid_items - start : 0u);
  if constexpr (blocks == 1) {
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k) first[k] = in_block[k];
    return block_distinct;
  } else {
    // Step 2: the block level's storage is done with (every thread has read its count),
    // so this block's slice, in the same bytes, may be emptied.
    block.sync();
    set::clear(storage.phase.table, block.thread_rank(), threads);
    cluster.sync();  // (A) every slice empty; every block of the cluster has started
    // Step 3: the block-first items go to their owners' slices.
    const unsigned base = cluster.thread_rank() * unsigned(K);
    auto slice_of = [&](unsigned b) { return cluster.map_shared_rank(&storage.phase.table, b); };
    typename set::place at[K] = {};  // read only where in_block
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k) {
      if (!in_block[k]) continue;
      const unsigned h = detail::key_hash(keys[k]);
      const unsigned owner = unsigned((static_cast<unsigned long long>(h) * blocks) >> 32);  // the high bits pick the block,
      at[k] = set::template insert<be>(slice_of, blocks, keys[k], owner, h & set::mask, base + unsigned(k));  // the low bits the home slot
    }
    cluster.sync();  // (B) every insert done
    // Step 4: first where the slot kept this item's index.
    unsigned mine = 0;
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k) {
      first[k] = in_block[k] && set::index_at(slice_of(at[k].block), at[k].slot) == base + unsigned(k);
      mine += first[k] ? 1u : 0u;
    }
    // Step 5: its cluster.sync() (C) also ends the remote reads of step 4.
    return tilekit::reduce(cluster, mine, plus{}, storage.count);
  }
}

}  // namespace tilekit
