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
//
// cluster_half_merge(cluster, half, global, first, pairs): each block counted its own
// samples in its own half_counters (block/histogram.cuh, every bin); the cluster adds
// them up through distributed shared memory, block r summing slice r of the words, so
// the global counters take one atomic per word per cluster, not per block (the merge's
// global atomics are what a 65536-bin histogram of 2^24 samples waits for).
//
// cluster_half_counters<Cluster>: 16-bit counters two to a word spread over the cluster's
// blocks (word w in block w % Blocks): the bins past what one block's half_counters hold.
#pragma once
#include <tilekit/block/histogram.cuh>
#include <tilekit/core/group.hpp>
#include <tilekit/core/iterator.hpp>

#include <cstddef>
#include <cstdint>

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

/// Shared bytes each block of a cluster of Blocks blocks gives cluster_half_counters for `bins` bins.
template <unsigned Blocks>
TILEKIT_HD constexpr std::size_t cluster_half_counters_bytes(unsigned bins) {
  return std::size_t(((bins + 1) / 2 + Blocks - 1) / Blocks) * sizeof(std::uint32_t);
}

/// 16-bit counters two to a 32-bit word (as half_counters) spread over the shared memory of
/// a cluster's blocks: twice the bins that 32-bit counters spread over the same cluster hold.
/// Word w (bins 2w and 2w + 1) lives in block w % Blocks, at index w / Blocks. A sample is one
/// 32-bit atomic add on its owner's word (the one width that is atomic on another block's
/// shared memory); a counter reaching a multiple of spill_at hands spill_at to the caller's spill. Every thread
/// of the cluster calls the constructor and merge; add_spilling is per thread.
template <class Cluster>
class cluster_half_counters {
  static constexpr unsigned Blocks = Cluster::static_blocks;
  static_assert((Blocks & (Blocks - 1)) == 0, "tilekit::cluster_half_counters: a power-of-two cluster size");
  using be = typename Cluster::backend;

 public:
  /// A counter that reaches a multiple of spill_at hands spill_at to spill (see add_spilling).
  static constexpr unsigned spill_at = 1u << 14;
  /// Words each block holds for `bins` bins.
  TILEKIT_HD static constexpr unsigned words_per_block(unsigned bins) { return ((bins + 1) / 2 + Blocks - 1) / Blocks; }

  /// Zeroes this block's words at `shared` (4-byte aligned, cluster_half_counters_bytes<Blocks>(bins) long, the same
  /// variable in every block), then cluster.sync(): every block has started, so add_spilling
  /// may address their words. @pre every thread of the cluster calls.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD cluster_half_counters(const Cluster& cluster, void* shared, unsigned bins)
      : cluster_(cluster), words_(static_cast<std::uint32_t*>(shared)), bins_(bins) {
    const unsigned stride = Cluster::static_size ? Cluster::static_size : cluster.block().num_threads();
    for (unsigned i = be::block_thread_rank(); i < words_per_block(bins); i += stride) words_[i] = 0;
    cluster.sync();
  }
  /// Counts one sample of bin `bin` (< bins) on its owner's word; where the count reaches a
  /// multiple of spill_at, takes spill_at off and calls spill(bin, spill_at) (the caller adds it to the bin's
  /// global counter). As half_counters: each multiple of spill_at reached takes spill_at off,
  /// so no counter passes 2^16 - 1 unless four threads are between their two atomics on it at once.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Spill>
  TILEKIT_HD void add_spilling(unsigned bin, Spill&& spill) const {
    const unsigned word = bin / 2, shift = (bin & 1u) * 16u;
    std::uint32_t* owner = cluster_.map_shared_rank(words_ + word / Blocks, word % Blocks);
    const std::uint32_t old = be::atomic_add(owner, std::uint32_t(1) << shift);
    if (((old >> shift) & (spill_at - 1)) == spill_at - 1) {  // a multiple of spill_at reached (see block/histogram.cuh)
      be::atomic_add(owner, std::uint32_t(0u - (spill_at << shift)));  // the counter is >= spill_at: no borrow
      spill(bin, spill_at);
    }
  }
  /// Waits for the cluster's samples (cluster.sync(): no block adds to this block's words
  /// after it), then adds this block's non-zero counters to global[0 .. bins), from its word
  /// `first` (< words_per_block(bins)) on, wrapping. @pre every thread of the cluster calls.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class GlobalCounter>
  TILEKIT_HD void merge(GlobalCounter* global, unsigned first = 0) const {
    cluster_.sync();
    const unsigned stride = Cluster::static_size ? Cluster::static_size : cluster_.block().num_threads();
    const unsigned count = words_per_block(bins_), rank = cluster_.block_rank();
    for (unsigned i = be::block_thread_rank(); i < count; i += stride) {
      const unsigned local = detail::wrapped_index(i, count, first), bin = 2 * (local * Blocks + rank);
      const std::uint32_t x = words_[local];
      if ((x & 0xFFFFu) != 0 && bin < bins_) be::atomic_add(global + bin, static_cast<GlobalCounter>(x & 0xFFFFu));
      if ((x >> 16) != 0 && bin + 1 < bins_) be::atomic_add(global + bin + 1, static_cast<GlobalCounter>(x >> 16));
    }
  }

 private:
  Cluster cluster_;
  std::uint32_t* words_;
  unsigned bins_;
};

namespace detail {
// Adds the sum of one counter word over the cluster (bins 2w and 2w + 1) to the global
// counters: one 64-bit atomic with `pairs`, else one per non-zero bin.
template <class Backend, class GlobalCounter>
TILEKIT_HD void add_half_word(GlobalCounter* global, unsigned w, std::uint32_t sum, unsigned bins, bool pairs) {
  if (sum == 0) return;
  const std::uint32_t low = sum & 0xFFFFu, high = sum >> 16;
  if constexpr (sizeof(GlobalCounter) == 4 && stdx::is_integral<GlobalCounter>::value) {
    if (pairs && 2 * w + 1 < bins) {
      Backend::atomic_add(reinterpret_cast<unsigned long long*>(global) + w, (static_cast<unsigned long long>(high) << 32) | low);
      return;
    }
  }
  if (low != 0) Backend::atomic_add(global + 2 * w, static_cast<GlobalCounter>(low));
  if (high != 0) Backend::atomic_add(global + 2 * w + 1, static_cast<GlobalCounter>(high));  // 0 past the last bin
}
}  // namespace detail

/// Waits for the cluster's samples (cluster.sync()), then adds the half_counters of all
/// its blocks to global[0 .. bins): block r sums slice r of the counter words over the
/// cluster's blocks and adds each sum to the global counters, from vector `first` of its
/// slice on (wrapping; where clusters start apart, their atomics do not queue on the same
/// lines), with one 64-bit atomic per word where `pairs`, one atomic per bin otherwise.
/// A thread reads Vector words (1, or 4: 16 bytes, where the words are 16-byte aligned) of each block at a time, Batch such reads
/// in flight. Ends with cluster.sync_relaxed(): the other blocks read this block's counters until then.
/// @pre every thread of the cluster calls, each block's `half` over the same shared
/// variable and bins; Blocks <= 4 (each counter below half_counters' spill_at, 2^14, so
/// four sum below 2^16: no carry into the word's other bin); with pairs, merge_pairs'
/// preconditions (GlobalCounter a 4-byte integer, global 8-byte aligned, no count reaching
/// 2^32, every other atomic on global[0 .. bins & ~1) 64-bit).
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Vector = 4, unsigned Batch = 1, class Cluster, class Block, class GlobalCounter,
          detail::stdx::enable_if_t<is_cluster_v<Cluster>, int> = 0>
TILEKIT_HD void cluster_half_merge(const Cluster& cluster, const half_counters<Block>& half, GlobalCounter* global,
                                   unsigned first = 0, bool pairs = false) {
  constexpr unsigned Blocks = Cluster::static_blocks;
  static_assert(Blocks <= 4, "tilekit::cluster_half_merge: at most 4 blocks (more 16-bit counters could sum past 2^16)");
  static_assert(Vector == 1 || Vector == 4, "tilekit::cluster_half_merge: Vector is 1 or 4 words (16 bytes)");
  static_assert(Batch >= 1, "tilekit::cluster_half_merge: Batch >= 1");
  using be = typename Cluster::backend;
  using vector_t = detail::vector_of<std::uint32_t, Vector>;
  cluster.sync();
  const unsigned bins = half.bins(), words = (bins + 1) / 2;
  const std::uint32_t* mine = half.words();
  // Slices of whole vectors (only the last may end in a part of one), where the words are aligned for them.
  const bool aligned = reinterpret_cast<std::uintptr_t>(mine) % sizeof(vector_t) == 0;
  const unsigned V = aligned ? Vector : 1u;
  const unsigned per = ((words + Blocks - 1) / Blocks + V - 1) / V * V;
  const unsigned lo = cluster.block_rank() * per < words ? cluster.block_rank() * per : words;
  const unsigned count = words - lo < per ? words - lo : per;
  const std::uint32_t* remote[Blocks];
  TILEKIT_UNROLL
  for (unsigned q = 0; q < Blocks; ++q) remote[q] = cluster.map_shared_rank(mine, q);
  const unsigned stride = Cluster::static_size ? Cluster::static_size : cluster.block().num_threads();
  const unsigned rank = be::block_thread_rank();
  bool vectorised = false;
  if constexpr (Vector > 1) {
    if (aligned) {
      vectorised = true;
      const unsigned vectors = count / Vector, start = vectors == 0 ? 0u : first % vectors;
      for (unsigned base = rank; base < vectors; base += Batch * stride) {
        vector_t sum[Batch];
        TILEKIT_UNROLL
        for (unsigned j = 0; j < Batch; ++j) {
          TILEKIT_UNROLL
          for (unsigned k = 0; k < Vector; ++k) sum[j].item[k] = 0;
          if (base + j * stride < vectors) {
            const unsigned w = lo + Vector * detail::wrapped_index(base + j * stride, vectors, start);
            TILEKIT_UNROLL
            for (unsigned q = 0; q < Blocks; ++q) {
              const vector_t x = detail::load_vector<std::uint32_t, Vector>(remote[q] + w);
              TILEKIT_UNROLL
              for (unsigned k = 0; k < Vector; ++k) sum[j].item[k] += x.item[k];  // no carry between the halves: see @pre
            }
          }
        }
        TILEKIT_UNROLL
        for (unsigned j = 0; j < Batch; ++j) {
          if (base + j * stride >= vectors) break;
          const unsigned w = lo + Vector * detail::wrapped_index(base + j * stride, vectors, start);
          TILEKIT_UNROLL
          for (unsigned k = 0; k < Vector; ++k) detail::add_half_word<be>(global, w + k, sum[j].item[k], bins, pairs);
        }
      }
      for (unsigned i = vectors * Vector + rank; i < count; i += stride) {  // the last slice's part of a vector
        std::uint32_t sum = 0;
        TILEKIT_UNROLL
        for (unsigned q = 0; q < Blocks; ++q) sum += remote[q][lo + i];
        detail::add_half_word<be>(global, lo + i, sum, bins, pairs);
      }
    }
  }
  if (!vectorised) {
    const unsigned start = count == 0 ? 0u : first % count;
    for (unsigned i = rank; i < count; i += stride) {
      const unsigned w = lo + detail::wrapped_index(i, count, start);
      std::uint32_t sum = 0;
      TILEKIT_UNROLL
      for (unsigned q = 0; q < Blocks; ++q) sum += remote[q][w];
      detail::add_half_word<be>(global, w, sum, bins, pairs);
    }
  }
  cluster.sync_relaxed();  // the reads above have returned: their sums were added
}

}  // namespace tilekit
