// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/block/dedup.cuh - dedup over a block: heads of runs of adjacent equal
// items, and the first occurrence of each distinct key without sorting.
//
// Block level, adjacent duplicates (what unique and run-length encoding need;
// storage: flag_heads_storage<T, Threads>):
//   flag_heads(block, items[K], heads[K], storage[, eq[, valid_items]])   the block's first item is a head
//   flag_heads_after(block, predecessor, items[K], heads[K], storage[, eq[, valid_items]])
//                                          the first item is compared with the previous tile's last one
//   items at or past valid_items are not heads
// heads[k] = item k differs (!eq) from the item before it in blocked order.
//
// Block level, distinct keys without sorting (storage: distinct_storage<T, Threads, K>):
//   dedup(block, keys[K], first[K], storage[, valid_items])    -> distinct keys in the block;
//       first[k]: item k is the first occurrence of its key in blocked order
//   dedup_store(block, keys[K], out, storage[, valid_items])   the distinct keys, in order of
//       first occurrence, to out[0 .. count); returns count
// A shared-memory hash set (open addressing, twice as many slots as items),
// probed in rounds separated by barriers; the lowest item index wins a slot.
// Keys compare with ==; floating-point -0.0 and +0.0 are one key, every NaN its own.
// Call block.sync() before reusing storage.
#pragma once
#include <tilekit/block/shape.cuh>
#include <tilekit/core/storage.hpp>
#include <tilekit/block/compact.cuh>
#include <tilekit/block/reduce.cuh>
#include <tilekit/block/scan.cuh>
#include <tilekit/tile/dedup.cuh>

namespace tilekit {

/// Shared storage of flag_heads over Threads threads: each thread's last item.
template <class T, unsigned Threads>
struct flag_heads_storage {
  detail::raw_slots<T, Threads> last;  ///< each thread's last item, compared with the next thread's first
};

namespace detail {
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Eq, class Storage>
TILEKIT_HD void flag_heads(const Block& block, const T (&items)[K], bool (&heads)[K], Storage& storage,
                           const T* predecessor, Eq eq, unsigned valid_items) {
  const unsigned rank = block.thread_rank();
  storage.last[rank] = items[K - 1];
  block.sync();
  const unsigned n = items_valid(rank, K, valid_items);
  if (rank > 0) heads[0] = !eq(storage.last[rank - 1], items[0]);
  else heads[0] = predecessor ? !eq(*predecessor, items[0]) : true;
  TILEKIT_UNROLL
  for (int k = 1; k < K; ++k) heads[k] = !eq(items[k - 1], items[k]);
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k)
    if (unsigned(k) >= n) heads[k] = false;
}
}  // namespace detail

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Eq = equal_to, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void flag_heads(const Block& block, const T (&items)[K], bool (&heads)[K],
                           flag_heads_storage<T, detail::static_threads<Block>()>& storage, Eq eq = {},
                           unsigned valid_items = ~0u) {
  detail::flag_heads(block, items, heads, storage, static_cast<const T*>(nullptr), eq, valid_items);
}

/// As flag_heads, the block's first item compared with `predecessor` (the previous tile's last item).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Eq = equal_to, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void flag_heads_after(const Block& block, const T& predecessor, const T (&items)[K], bool (&heads)[K],
                                 flag_heads_storage<T, detail::static_threads<Block>()>& storage, Eq eq = {},
                                 unsigned valid_items = ~0u) {
  detail::flag_heads(block, items, heads, storage, &predecessor, eq, valid_items);
}

// ---------------------------------------------------------------- distinct keys in a block

namespace detail {
constexpr unsigned pow2_at_least(unsigned n) {
  unsigned p = 1;
  while (p < n) p *= 2;
  return p;
}

// 32-bit hash of a key's bytes; +0.0 and -0.0 hash alike (they compare equal).
template <class T>
TILEKIT_HD unsigned key_hash(const T& key) {
  constexpr unsigned words = (sizeof(T) + 3) / 4;
  unsigned w[words] = {};
  if constexpr (stdx::is_floating_point<T>::value) {
    const T k = key == T(0) ? T(0) : key;
    std::memcpy(w, &k, sizeof(T));
  } else {
    std::memcpy(w, &key, sizeof(T));
  }
  unsigned h = 0x9E3779B9u;
  for (unsigned i = 0; i < words; ++i) {
    h ^= w[i] * 0x85EBCA6Bu;
    h = (h << 13 | h >> 19) * 5u + 0xE6546B64u;
  }
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  return h;
}
}  // namespace detail

/// Shared storage of block dedup of K keys per thread over Threads threads.
template <class T, unsigned Threads, int K>
struct distinct_storage {
  /// Slots of the block's hash set: a power of two of at least twice the block's keys.
  static constexpr unsigned capacity = detail::pow2_at_least(2 * Threads * K);
  detail::raw_slots<T, capacity> keys;  ///< the key held by each slot
  unsigned owner[capacity];             ///< lowest item index that claimed the slot (~0u: free)
  unsigned char taken[capacity];        ///< whether the slot holds a key
  unsigned distinct;                    ///< distinct keys found in the block
  unsigned pending;                     ///< items still probing (per round)
  scan_storage<unsigned, Threads> scan; ///< the block scan that ranks the first copies
};

namespace detail {
// Linear probing in rounds separated by barriers, so no thread ever reads a slot
// another thread is writing: each round, every unresolved item bids for its
// current slot if it is free (the lowest item index wins), the winners write
// their keys, and every unresolved item compares the slot's key with its own:
// equal ends its probe (first occurrence: it won the slot), else it moves on.
// Items with equal keys probe the same slots in the same rounds, so the lowest
// index among them is the one that wins.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Storage, class Eq>
TILEKIT_HD unsigned block_dedup(const Block& block, const T (&keys)[K], bool (&first)[K], Storage& s, Eq eq,
                                unsigned valid_items) {
  using be = typename Block::backend;
  constexpr unsigned mask = Storage::capacity - 1;
  const unsigned rank = block.thread_rank();
  for (unsigned i = rank; i < Storage::capacity; i += block.num_threads()) {
    s.owner[i] = ~0u;
    s.taken[i] = 0;
  }
  if (rank == 0) s.distinct = 0;
  const unsigned n = items_valid(rank, K, valid_items);
  unsigned slot[K];
  bool open[K];
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) {
    slot[k] = key_hash(keys[k]) & mask;
    open[k] = unsigned(k) < n;
    first[k] = false;
  }
  for (;;) {
    if (rank == 0) s.pending = 0;
    block.sync();
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k)
      if (open[k] && !s.taken[slot[k]]) be::atomic_min(&s.owner[slot[k]], rank * unsigned(K) + k);
    block.sync();
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k)
      if (open[k] && !s.taken[slot[k]] && s.owner[slot[k]] == rank * unsigned(K) + k) {
        s.keys[slot[k]] = keys[k];
        first[k] = true;
        be::atomic_add(&s.distinct, 1u);
      }
    block.sync();
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k) {
      if (!open[k]) continue;
      if (first[k] || eq(s.keys[slot[k]], keys[k])) {  // a winner always stops (a NaN equals not even itself)
        open[k] = false;
      } else {
        slot[k] = (slot[k] + 1) & mask;
        be::atomic_add(&s.pending, 1u);
      }
    }
    // The winners' slots are taken from now on (set after the comparisons read them).
    block.sync();
    TILEKIT_UNROLL
    for (int k = 0; k < K; ++k)
      if (first[k]) s.taken[slot[k]] = 1;
    const unsigned pending = s.pending;
    block.sync();
    if (pending == 0) break;
  }
  return s.distinct;
}
}  // namespace detail

/// Flags the first occurrence of each key among the block's items (blocked order);
/// returns the number of distinct keys (every thread).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class Eq = equal_to, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned dedup(const Block& block, const T (&keys)[K], bool (&first)[K],
                          distinct_storage<T, detail::static_threads<Block>(), K>& storage,
                          unsigned valid_items = ~0u, Eq eq = {}) {
  return detail::block_dedup(block, keys, first, storage, eq, valid_items);
}

/// Writes the block's distinct keys, in order of first occurrence, to out[0 .. count); returns count.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class T, int K, class OutputIt, class Eq = equal_to,
          detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD unsigned dedup_store(const Block& block, const T (&keys)[K], OutputIt out,
                                distinct_storage<T, detail::static_threads<Block>(), K>& storage,
                                unsigned valid_items = ~0u, Eq eq = {}) {
  bool first[K];
  const unsigned count = detail::block_dedup(block, keys, first, storage, eq, valid_items);
  unsigned mine[1] = {0}, offset[1];
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) mine[0] += first[k] ? 1u : 0u;
  exclusive_scan(block, mine, offset, plus{}, 0u, storage.scan);
  unsigned at = offset[0];
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k)
    if (first[k]) out[at++] = keys[k];
  return count;
}

}  // namespace tilekit
