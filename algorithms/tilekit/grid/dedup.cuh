// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/grid/dedup.cuh - dedup over the whole grid, inside the caller's kernel: each
// item learns whether it is the first occurrence of its key across the grid.
//
// Grid level, under a cooperative launch (see grid/reduce.cuh):
//   grid_dedup_storage<T> storage(memory, max_keys)   over grid_dedup_storage<T>::bytes(max_keys)
//                                                     bytes of global memory, ZEROED ONCE before the
//                                                     first launch that uses it (cudaMemset); every
//                                                     call leaves it zeroed again
//   dedup(grid, block, keys[K], first[K], block_storage, storage)
//       first[k]: item k of this thread is the first of its key in grid order (block
//       rank, then thread rank, then k: blocked items); keys are 4- or 8-byte integers,
//       compared bitwise; block_storage: the block level's distinct_storage<T, Threads, K>
// The block level first flags each key's first item in the block (its shared hash
// set); only those items go on to the grid's hash set in global memory (the device
// distinct's: open addressing, each slot keeping its key's lowest grid index by an
// atomic max of its complement). After a grid barrier each of them reads its slot:
// first where the slot holds its own index. After a second barrier each empties the
// slot it read. Calls alternate between two sets, so a set emptied by one call has
// met a barrier before the call after next fills it. Call block.sync() before reusing
// block_storage.
#pragma once
#include <tilekit/block/dedup.cuh>
#include <tilekit/core/iterator.hpp>  // count_t

#include <cstring>

namespace tilekit {

namespace detail {

template <class T>
using key_bits_t = stdx::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;

// The set, in slots that start zeroed (an empty set). A slot holds ~key (0: free;
// the key whose complement is 0 has the extra slot at `capacity`) and ~(the lowest
// index seen), so that the lowest index wins by atomic max.
//   Packed (4-byte keys, n < 2^32): both in one 64-bit word, ~key above ~index. One
//   CAS claims a free slot with its index; a later index of the same key is one
//   64-bit atomic max (the key halves being equal, the larger word has the lower index).
//   Otherwise: 16-byte slots {~key, ~index}, both in one 32-byte sector.
// key_set::insert_step's default: indices that are not their key's lowest go unreported.
struct ignore_index {
  TILEKIT_HD void operator()(count_t) const {}
};

template <class T, bool Packed>
struct key_set {
  using bits_t = key_bits_t<T>;
  static constexpr unsigned words = Packed ? 1 : 2;  // 64-bit words per slot
  unsigned long long* slots;                         // allocated(capacity) slots, 16-byte aligned
  unsigned long long mask;                           // capacity - 1
  bool slot_homes = false;                           // home(): a slot of its own, not its group's first

  TILEKIT_HD static bits_t stored(const T& key) {
    bits_t bits;
    std::memcpy(&bits, &key, sizeof(bits_t));
    return bits_t(~bits);
  }
  // The first slot of the key's home group (the extra slot for s == 0), so that a probe's first
  // read sees a whole group (a home inside one left the slots before it to a second read:
  // perf/results/2026-12-04-distinct-sketch/probe_model.cpp). With slot_homes, a slot of the
  // group: where many keys claim slots at once, those homed in one group no longer all race for
  // its first free slot, a read and a compare-and-swap a round for each loser. distinct's fused
  // launch on an H100, 50-100% distinct keys: 9-13% less a call at 2^16-2^18 keys, 2-5% at 2^20;
  // for every set, 2% more at 2^24 keys with 1% distinct (mostly reads), so there only
  // (perf/results/2026-12-06-21-slot-homes).
  TILEKIT_HD unsigned long long home(bits_t s) const {
    return s == 0 ? mask + 1 : mix64(s) & mask & ~static_cast<unsigned long long>(slot_homes ? 0 : group - 1);
  }
  // A set that fills up (its slots were not zeroed first, or it is too small) stops the
  // kernel (the simulator reports this) instead of probing forever.
  static constexpr const char* full =
      "tilekit: a hash set of keys is full: its slots were not zeroed before first use, or it has fewer than twice the keys";
  static constexpr const char* missing =
      "tilekit: a key is missing from its hash set: its slot was emptied before every thread had read it";

  /// Slots of 32 bytes (a sector) that a probe reads at once: insert probes linearly from
  /// a key's home group, a group at a time. @pre capacity >= group.
  static constexpr unsigned group = 4 / words;
  /// The slots to allocate for a capacity: the capacity, the extra slot and the rest of
  /// its group (read with it).
  TILEKIT_HD static constexpr unsigned long long allocated(unsigned long long capacity) { return capacity + 4; }

  /// Puts key with index i in the set (its slot keeps the lowest index). @pre the set
  /// cannot fill (else the kernel stops: Backend::require).
  template <class Backend>
  TILEKIT_HD void insert(const T& key, count_t i) const {
    unsigned long long at = start(key), w[4];
    for (unsigned long long probes = 1;; ++probes) {
      read_group(at, w);
      if (insert_step<Backend>(key, i, at, w) != step::next) return;
      Backend::require(probes * group <= mask, full);
    }
  }
  /// The slot where key's probe starts.
  TILEKIT_HD unsigned long long start(const T& key) const { return home(stored(key)); }
  /// The 32 bytes of the group of slot `at` (in two 16-byte loads).
  TILEKIT_HD void read_group(unsigned long long at, unsigned long long (&w)[4]) const {
    const unsigned long long* p = slots + words * (at & ~static_cast<unsigned long long>(group - 1));
    const vector_of<unsigned long long, 2> lo = load_vector<unsigned long long, 2>(p), hi = load_vector<unsigned long long, 2>(p + 2);
    w[0] = lo.item[0];
    w[1] = lo.item[1];
    w[2] = hi.item[0];
    w[3] = hi.item[1];
  }
  /// What insert_step did: took a free slot for the key, found the key's slot, or moved on.
  enum class step { claimed, found, next };
  /// One probe of inserting key with index i: the slots from `at` (start(key) first) to
  /// the end of its group, whose 32 bytes the caller has read as w (read_group; stale
  /// values cost an atomic at most). next: `at` has moved to the next group; read it and
  /// step again. So a thread can have the probes of several keys in flight at once.
  /// later(j) for an index j found not to be its key's lowest (i, or the one i displaced):
  /// each index that is not its key's lowest is reported once where all of them go through
  /// one set, and none that is.
  template <class Backend, class Later = ignore_index>
  TILEKIT_HD step insert_step(const T& key, count_t i, unsigned long long& at, const unsigned long long (&w)[4],
                              Later later = {}) const {
    const bits_t s = stored(key);  // 0: the extra slot (at == capacity, first of its group), the key's alone
    const unsigned long long g = at & ~static_cast<unsigned long long>(group - 1);
    const unsigned from = unsigned(at - g);
    // Of the slot's index word before (0: none yet) and ours, the lower word holds the higher
    // index of the key: the one that is not its lowest.
    auto report = [&](unsigned long long before, unsigned long long mine) {
      if (before != 0) later(index_of_word(before < mine ? before : mine));
    };
    if constexpr (Packed) {
      const unsigned long long mine = static_cast<unsigned long long>(s) << 32 | unsigned(~static_cast<unsigned long long>(i));
      if (s == 0) {
        report(w[0] < mine ? Backend::atomic_max(slots + at, mine) : w[0], mine);
        return step::found;
      }
      // The group's slots from `from` on that hold the key, or are free. Without deletions the
      // key's slot comes before every free one in probe order, so the first of either decides
      // (a stale free one is found out by its CAS).
      unsigned hit = 0, free = 0;
      TILEKIT_UNROLL
      for (unsigned j = 0; j < group; ++j) {
        hit |= unsigned(j >= from && (w[j] >> 32) == s) << j;
        free |= unsigned(j >= from && w[j] == 0) << j;
      }
      if ((hit | free) != 0) {
        const unsigned j = lowest_bit(hit | free);
        unsigned long long seen = j == 0 ? w[0] : j == 1 ? w[1] : j == 2 ? w[2] : w[3];
        if (seen == 0 && (seen = Backend::atomic_cas(slots + g + j, 0ull, mine)) == 0) return step::claimed;
        if ((seen >> 32) == s) {  // the key halves are equal: the lower index is the larger word
          report(seen < mine ? Backend::atomic_max(slots + g + j, mine) : seen, mine);
          return step::found;
        }
        at = g + j + 1;  // another key took the free slot: go on after it (rereading the rest of the group)
        if (at < g + group) return step::next;
      }
    } else {
      const unsigned long long mine = ~static_cast<unsigned long long>(i);
      // group == 2: slot g is w[0] (key word: its low bytes, the rest stay 0) and w[1] (index word), slot g + 1 is w[2], w[3]
      for (unsigned j = from; j < 2; ++j) {
        bits_t held = bits_t(j == 0 ? w[0] : w[2]);
        const unsigned long long index_word = j == 0 ? w[1] : w[3];
        const bool free = s != 0 && held == 0;
        if (free) held = Backend::atomic_cas(reinterpret_cast<bits_t*>(slots + 2 * (g + j)), bits_t(0), s);
        if (s == 0 || held == 0 || held == s) {
          const bool claimed = free && held == 0;
          const unsigned long long seen = claimed ? 0ull : index_word;  // (a stale read costs an atomic)
          report(seen < mine ? Backend::atomic_max(slots + 2 * (g + j) + 1, mine) : seen, mine);
          return claimed ? step::claimed : step::found;
        }
      }
    }
    at = (g + group) & mask;
    return step::next;
  }
  /// The slot that holds key. @pre key was inserted (else the kernel stops: Backend::require).
  template <class Backend>
  TILEKIT_HD unsigned long long find(const T& key) const {
    const bits_t s = stored(key);
    unsigned long long at = home(s);
    for (unsigned long long probes = 0; s != 0; at = (at + 1) & mask) {
      Backend::require(++probes <= mask + 1, missing);
      if constexpr (Packed) {
        if ((slots[at] >> 32) == s) break;
      } else {
        if (*reinterpret_cast<const bits_t*>(slots + 2 * at) == s) break;
      }
    }
    return at;
  }
  /// The index a slot's index word keeps (Packed: the slot's word, ~index in its low half).
  TILEKIT_HD static count_t index_of_word(unsigned long long word) {
    if constexpr (Packed) return static_cast<count_t>(unsigned(~word));
    else return static_cast<count_t>(~word);
  }
  /// The lowest index inserted for the key in slot `at` (from find).
  TILEKIT_HD count_t index_at(unsigned long long at) const { return index_of_word(slots[words * at + words - 1]); }
  /// Whether slot `at` (0 .. capacity) holds a key (its index word is never 0 then).
  TILEKIT_HD bool occupied(unsigned long long at) const { return slots[words * at + words - 1] != 0; }
  /// Empties slot `at` (from find).
  TILEKIT_HD void clear_at(unsigned long long at) const {
    for (unsigned w = 0; w < words; ++w) slots[words * at + w] = 0;
  }
};

}  // namespace detail

/// The global memory of a grid dedup of T keys: two hash sets (calls alternate between
/// them) of a power-of-two capacity of at least twice max_keys slots. Each thread builds
/// its own over the same memory (a kernel argument) and passes it to every grid dedup of
/// the launch, in the same order on every thread.
template <class T>
class grid_dedup_storage {
  static_assert(detail::stdx::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "tilekit::grid_dedup_storage: keys must be 4- or 8-byte integers (compared bitwise)");
  static constexpr bool packed = sizeof(T) == 4;  // key and index in one word (grids of < 2^32 items)
  using set_t = detail::key_set<T, packed>;

 public:
  /// Slots of each set for calls of up to max_keys keys in all (a power of two, at least 2 max_keys).
  TILEKIT_HD static constexpr unsigned long long capacity(unsigned long long max_keys) {
    unsigned long long c = 64;
    while (c < 2 * max_keys) c *= 2;
    return c;
  }
  /// Bytes of global memory for calls of up to max_keys keys in all (grid threads x K).
  TILEKIT_HD static constexpr std::size_t bytes(unsigned long long max_keys) {
    return 2 * set_t::allocated(capacity(max_keys)) * set_t::words * sizeof(unsigned long long);
  }

  /// Over `memory`: bytes(max_keys) bytes of global memory, 16-byte aligned, zeroed once before
  /// its first use (then every call leaves it zeroed). @pre grid threads x K <= max_keys in every call.
  TILEKIT_HD grid_dedup_storage(void* memory, unsigned long long max_keys)
      : slots_(static_cast<unsigned long long*>(memory)), max_keys_(max_keys) {}

  /// The most keys (grid threads x K) a call may bring.
  TILEKIT_HD unsigned long long max_keys() const { return max_keys_; }

  /// The set the next call uses; advances to the other set.
  TILEKIT_HD set_t next_set() {
    const unsigned long long c = capacity(max_keys_);
    set_t set{slots_ + (calls_ % 2) * set_t::allocated(c) * set_t::words, c - 1};
    ++calls_;
    return set;
  }

 private:
  unsigned long long* slots_;
  unsigned long long max_keys_;
  unsigned calls_ = 0;
};

/// Flags in first[k] whether item k of the calling thread is the first item with its key
/// in grid order (block rank, then thread rank, then k). Every thread of the grid calls.
/// @pre a cooperative launch; every thread of the grid calls with the same storage, in the
/// same order; grid threads x K <= storage.max_keys(); the storage was zeroed once before
/// its first use.
TILEKIT_EXEC_CHECK_DISABLE
template <class Grid, class Block, class T, int K, class BlockStorage,
          detail::stdx::enable_if_t<Grid::level == group_level::grid && is_block_v<Block>, int> = 0>
TILEKIT_HD void dedup(const Grid& grid, const Block& block, const T (&keys)[K], bool (&first)[K],
                      BlockStorage& block_storage, grid_dedup_storage<T>& storage) {
  detail::require_cooperative<Grid::launch>();
  using be = typename Block::backend;
  const unsigned long long threads = grid.num_blocks() * block.num_threads();
  be::require(threads * unsigned(K) <= storage.max_keys(),
              "tilekit::dedup(grid): the grid brings more keys than its grid_dedup_storage was sized for");
  be::require(sizeof(T) != 4 || threads * unsigned(K) <= 0xFFFFFFFFull,
              "tilekit::dedup(grid): 4-byte keys need fewer than 2^32 items in the grid");
  const auto set = storage.next_set();
  bool in_block[K];
  tilekit::dedup(block, keys, in_block, block_storage);
  const detail::count_t base = detail::count_t(grid.thread_rank()) * K;
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k)
    if (in_block[k]) set.template insert<be>(keys[k], base + k);
  grid.sync();  // every block's first items inserted
  unsigned long long at[K];
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) {
    at[k] = in_block[k] ? set.template find<be>(keys[k]) : 0;
    first[k] = in_block[k] && set.index_at(at[k]) == base + k;
  }
  grid.sync();  // every slot read
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k)
    if (in_block[k]) set.clear_at(at[k]);
}

}  // namespace tilekit
