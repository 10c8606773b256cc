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

// A backend stand-in for find whose precondition is not checked (the device distinct's
// predicate, which has no backend at hand).
struct unchecked {
  TILEKIT_HD static void require(bool, const char*) {}
};

// The set, in slots that start zeroed (an empty set). A slot holds ~key (0: free;
// the key whose complement is 0 has the extra slot at `capacity`) and ~(the lowest
// index seen), so that the lowest index wins by atomic max.
//   Packed (4-byte keys, n < 2^32): both in one 64-bit word, ~key above ~index. One
//   CAS claims a free slot with its index; a later index of the same key is one
//   64-bit atomic max (the key halves being equal, the larger word has the lower index).
//   Otherwise: 16-byte slots {~key, ~index}, both in one 32-byte sector.
template <class T, bool Packed>
struct key_set {
  using bits_t = key_bits_t<T>;
  static constexpr unsigned words = Packed ? 1 : 2;  // 64-bit words per slot
  unsigned long long* slots;                         // capacity + 1 slots
  unsigned long long mask;                           // capacity - 1

  TILEKIT_HD static bits_t stored(const T& key) {
    bits_t bits;
    std::memcpy(&bits, &key, sizeof(bits_t));
    return bits_t(~bits);
  }
  TILEKIT_HD unsigned long long home(bits_t s) const { return s == 0 ? mask + 1 : mix64(s) & mask; }
  // A set that fills up (its slots were not zeroed first, or it is too small) stops the
  // kernel (the simulator reports this) instead of probing forever.
  static constexpr const char* full =
      "tilekit: a hash set of keys is full: its slots were not zeroed before first use, or it has fewer than twice the keys";
  static constexpr const char* missing =
      "tilekit: a key is missing from its hash set: its slot was emptied before every thread had read it";

  template <class Backend>
  TILEKIT_HD void insert(const T& key, count_t i) const {
    const bits_t s = stored(key);
    unsigned long long at = home(s);
    if constexpr (Packed) {
      const unsigned long long mine = static_cast<unsigned long long>(s) << 32 | unsigned(~static_cast<unsigned long long>(i));
      for (unsigned long long probes = 0; s != 0; at = (at + 1) & mask) {
        Backend::require(++probes <= mask + 1, full);
        unsigned long long seen = slots[at];  // a stale read only costs a CAS
        if (seen == 0 && (seen = Backend::atomic_cas(slots + at, 0ull, mine)) == 0) return;
        if ((seen >> 32) == s) break;
      }
      if (slots[at] < mine) Backend::atomic_max(slots + at, mine);  // a stale read only costs the atomic
    } else {
      for (unsigned long long probes = 0; s != 0; at = (at + 1) & mask) {
        Backend::require(++probes <= mask + 1, full);
        bits_t* k = reinterpret_cast<bits_t*>(slots + 2 * at);
        bits_t seen = *k;
        if (seen == 0) seen = Backend::atomic_cas(k, bits_t(0), s);
        if (seen == 0 || seen == s) break;
      }
      const unsigned long long mine = ~static_cast<unsigned long long>(i);
      unsigned long long* first = slots + 2 * at + 1;
      if (*first < mine) Backend::atomic_max(first, mine);
    }
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
  /// The lowest index inserted for the key in slot `at` (from find).
  TILEKIT_HD count_t index_at(unsigned long long at) const {
    if constexpr (Packed) return static_cast<count_t>(unsigned(~slots[at]));
    else return static_cast<count_t>(~slots[2 * at + 1]);
  }
  /// Empties slot `at` (from find).
  TILEKIT_HD void clear_at(unsigned long long at) const {
    for (unsigned w = 0; w < words; ++w) slots[words * at + w] = 0;
  }
  /// The lowest index of key. @pre key was inserted (not checked: find's probe, unbounded).
  TILEKIT_HD count_t first_index(const T& key) const { return index_at(find<unchecked>(key)); }

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
    return 2 * (capacity(max_keys) + 1) * set_t::words * sizeof(unsigned long long);
  }

  /// Over `memory`: bytes(max_keys) bytes of global memory, 8-byte aligned, zeroed once before
  /// its first use (then every call leaves it zeroed). @pre grid threads x K <= max_keys in every call.
  TILEKIT_HD grid_dedup_storage(void* memory, unsigned long long max_keys)
      : slots_(static_cast<unsigned long long*>(memory)), max_keys_(max_keys) {}

  /// The most keys (grid threads x K) a call may bring.
  TILEKIT_HD unsigned long long max_keys() const { return max_keys_; }

  /// The set the next call uses; advances to the other set.
  TILEKIT_HD set_t next_set() {
    const unsigned long long c = capacity(max_keys_);
    set_t set{slots_ + (calls_ % 2) * (c + 1) * set_t::words, c - 1};
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
