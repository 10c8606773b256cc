// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/distinct.cuh - what CUB lacks: order-preserving dedup of an unsorted
// sequence, and the number of runs, on the GPU (the kernels and their dispatch below).
//
//   distinct(temp, temp_bytes, in, n, out, num_out[, stream])  the distinct keys in order
//       of first occurrence, no sorting (a hash set, then a gather of the marked first
//       occurrences); keys: 4- or 8-byte integers; temp storage about 1.5-3 n x 8 bytes
//       (4-byte keys, n < 2^32), else x 16, of which a call touches a set sized by its distinct keys
//   unique_count(temp, temp_bytes, in, n, out[, stream])       *out = the number of runs
//       of equal adjacent items (what unique keeps), without writing them
//   ... and each without (temp, temp_bytes): storage allocated in the stream.
// n is a 64-bit count; out must not overlap in. Errors: cudaErrorInvalidValue, with
// nothing written, for n < 0, null pointers, a too small temp_bytes.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/grid/dedup.cuh>  // detail::key_set
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/scan.cuh>

namespace tilekit {

// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_distinct(launcher, temp, temp_bytes, in, n, out, num_out): the distinct keys
// of in[0 .. n) in order of first occurrence to out[0 .. count), *num_out = count;
// no sorting. Each key goes into a hash set (open addressing with linear probing), each
// slot keeping the lowest index of its key (with 4-byte keys and n < 2^32 key and index
// share one 64-bit word); each slot's lowest index is marked in a bitmap of n bits; then
// the marked counts of groups of 1024 items are scanned and each marked item copied to its
// place (a warp per group). Where a set of 1.5-3 n slots fits distinct_tuning::small_set_bytes
// (mostly in L2), there is one set for all keys (a thread reads several keys and their first
// slots before inserting any; an index already beaten is not sent). Past that, the keys are
// partitioned by hash into buckets, and each bucket deduplicated by a block in its shared
// memory (bucket_dedup): no key takes a global atomic. Keys: integers of 4 or 8 bytes,
// compared bitwise. Temporary storage: n / 8 bytes (the bitmap) plus the one set, 1.5-3 n x
// 8 bytes (4-byte keys, n < 2^32; 16 otherwise), or the keys with their indices twice
// (2 n x 8 bytes, 4-byte keys and n < 2^32; 2 n x 16 otherwise).
//
// device_unique_count(launcher, temp, temp_bytes, in, n, out): *out = the number of
// runs of equal (==) adjacent items (what unique would keep), as a device reduce.

namespace detail {

// in[i], read evict-first where in is a pointer (the keys stream past once: the set keeps L2);
// as its bits, so that any 4- or 8-byte integer key has a load.
template <class In>
TILEKIT_HD value_of<In> streamed(const In& in, count_t i) {
#if TILEKIT_DEVICE_PASS
  if constexpr (stdx::is_pointer<In>::value) {
    using T = value_of<In>;
    const key_bits_t<T> bits = __ldcs(reinterpret_cast<const key_bits_t<T>*>(in + i));
    T key;
    std::memcpy(&key, &bits, sizeof(T));
    return key;
  }
#endif
  return in[i];
}

// Pass 1: every key into `set`. The first set of a call with buckets may fill: where the
// keys it took pass claim_limit, or a key finds no room within max_probes slots of its
// home, it sets flags[0], and every warp stops at its next trip (a grid's trip is about
// 400 000 keys on the H200, so the set stops filling soon after claim_limit). Then the
// buckets below take every key. The only set of a call without buckets cannot fill.
enum class insert_pass { only_set, first_of_buckets };

// One trip of a thread: Items keys (those live) with their indices into set, the group of
// every key read before any step, round after round until each is placed. Returns the
// slots it claimed; full: a key probed max_probes slots without finding itself or room (the
// keys live then are not in the set).
template <class Backend, unsigned Items, class T, bool Packed>
TILEKIT_HD unsigned insert_keys(const key_set<T, Packed>& set, const T (&key)[Items], const count_t (&index)[Items],
                                bool (&live)[Items], unsigned long long max_probes, bool& full) {
  using set_t = key_set<T, Packed>;
  unsigned long long at[Items];
  TILEKIT_UNROLL
  for (unsigned k = 0; k < Items; ++k) at[k] = set.start(key[k]);
  unsigned claims = 0;
  for (unsigned long long probes = 1;; ++probes) {
    unsigned long long seen[Items][4];
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k)
      if (live[k]) set.read_group(at[k], seen[k]);
    bool more = false;
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k)
      if (live[k]) {
        const auto done = set.template insert_step<Backend>(key[k], index[k], at[k], seen[k]);
        claims += done == set_t::step::claimed;
        live[k] = done == set_t::step::next;
        more = more || live[k];
      }
    if (!more) return claims;
    if (probes * set_t::group >= max_probes) {
      full = true;
      return claims;
    }
  }
}

template <class In, bool Packed>
struct distinct_insert_body {
  static constexpr unsigned Threads = 256, MinBlocksPerSM = 3;
  using T = value_of<In>;
  using set_t = key_set<T, Packed>;
  // Keys a thread takes a trip: their loads, and then their probes, are in flight together
  // (a probe round reads the next 32-byte group of slots of every key not yet placed).
  static constexpr unsigned Items = 4;
  In in;
  count_t n;
  set_t set;
  unsigned* flags;  // [0] the first set is full, [1] the keys it took; zeroed with the set
  unsigned long long max_probes, claim_limit;
  insert_pass pass;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    be::wait_for_prior_grid();  // launched by zero_then_run
    const bool may_fill = pass == insert_pass::first_of_buckets;
    auto warp = tilekit::tiled_partition<32>(block);
    // A warp's trip: Items rows of 32 consecutive items. Every lane of a warp runs the
    // same trips (the looks at flags are collective).
    constexpr count_t warp_items = 32 * count_t(Items);
    const count_t warps = count_t(ctx.grid().num_blocks()) * (Threads / 32);
    const count_t warp_rank = count_t(ctx.grid().block_rank()) * (Threads / 32) + block.thread_rank() / 32;
    for (count_t base = warp_rank * warp_items; base < n; base += warps * warp_items) {
      if (may_fill && warp.any(be::load_relaxed(flags) != 0u)) return;
      T key[Items];
      count_t index[Items];
      bool live[Items];
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        index[k] = base + 32 * count_t(k) + warp.thread_rank();
        live[k] = index[k] < n;
        key[k] = streamed(in, live[k] ? index[k] : base);  // past n: a key of the trip's, read but not inserted
      }
      bool full = false;
      const unsigned claims = insert_keys<be>(set, key, index, live, max_probes, full);
      if (!may_fill) {
        be::require(!full, set_t::full);
        continue;
      }
      if (warp.any(claims != 0 || full)) {
        const unsigned taken = tilekit::reduce(warp, claims, plus{});
        if (warp.thread_rank() == 0 && be::atomic_add(flags + 1, taken) + taken > claim_limit) be::store_relaxed(flags, 1u);
        if (full) be::store_relaxed(flags, 1u);
      }
    }
  }
};

// Where the first set is given up (flags[0]: more keys are distinct than it takes), the keys
// are partitioned by hash into `buckets` (a power of two, at most distinct_tuning::max_buckets).
// bucket_count counts each bucket's keys; bucket_scatter copies every key with its index to
// its bucket's part of keys/index (in no particular order: a slot keeps its key's lowest
// index however the keys come); bucket_dedup gives each bucket to a block, which splits it
// by the next bits of the hash into pieces whose keys fit a set in its shared memory, and
// marks each piece's lowest indices in the bitmap. So no key takes a global atomic, and the
// keys are read 4 times and written twice, each time in order.
//
// The bits of a key's hash from bit `from` (the top is 0) on, `bits` of them (0: none).
template <class T, bool Packed>
TILEKIT_HD unsigned hash_bits(const T& key, unsigned from, unsigned bits) {
  return bits == 0 ? 0u : unsigned((mix64(key_set<T, Packed>::stored(key)) << from) >> (64 - bits));
}
// Asks L2 for items [from, to) of p, a 128-byte line a thread (of `threads`, this one
// `thread`), so that the next tile's loads find their lines there (measured: 4% at 2^24 keys
// with 50-100% distinct, nothing at 2^28).
template <class Backend, class T>
TILEKIT_HD void prefetch_items(const T* p, count_t from, count_t to, unsigned thread, unsigned threads) {
  constexpr count_t line = 128 / sizeof(T);
  for (count_t i = from + count_t(thread) * line; i < to; i += count_t(threads) * line) Backend::prefetch_l2(p + i);
}
// The slots of a set for `items` keys: a power of two of at least 1.5 items.
TILEKIT_HD unsigned long long set_capacity(count_t items) {
  unsigned long long c = 64;
  while (c < static_cast<unsigned long long>(items) + static_cast<unsigned long long>(items) / 2) c *= 2;
  return c;
}
// start[i] = the sum of counts[0 .. i), start[count] = the sum of all, for count <= the
// block's threads (each takes one count).
template <class Block, class Count>
TILEKIT_HD void block_starts(const Block& block, const Count* counts, unsigned count, unsigned long long* start,
                             unsigned long long* warp_sums) {
  auto warp = tilekit::tiled_partition<32>(block);
  const unsigned t = block.thread_rank();
  const unsigned long long mine = t < count ? static_cast<unsigned long long>(counts[t]) : 0ull;
  const unsigned long long inclusive = tilekit::inclusive_scan(warp, mine, plus{});
  if (warp.thread_rank() == 31) warp_sums[t / 32] = inclusive;
  block.sync();
  unsigned long long before = 0;
  for (unsigned w = 0; w < t / 32; ++w) before += warp_sums[w];
  if (t < count) start[t] = before + inclusive - mine;
  if (t == count - 1) start[count] = before + inclusive;
  block.sync();
}

// The partition's blocks each take `range` consecutive items (a multiple of the scatter's
// tile), block j's keys of bucket b counted at counts[b x blocks + j]; an exclusive scan of
// counts in place makes each the place of block j's first key of bucket b.
template <class In, bool Packed>
struct bucket_count {
  using T = value_of<In>;
  static constexpr unsigned Threads = 256, MinBlocksPerSM = 4, Items = 8;
  static constexpr std::size_t shared_bytes = distinct_tuning::max_buckets * sizeof(unsigned);
  In in;
  count_t n, range;
  unsigned buckets;
  const unsigned* flags;  // [0]: the first set was given up (else this kernel does nothing)
  count_t* counts;        // [buckets x blocks]

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(flags) == 0) return;
    unsigned* local = ctx.template shared_array<unsigned>(distinct_tuning::max_buckets);
    const unsigned t = block.thread_rank(), bucket_bits = highest_bit(buckets);
    if (t < buckets) local[t] = 0;
    block.sync();
    const count_t j = count_t(ctx.grid().block_rank()), first = j * range;
    const count_t end = n - first < range ? n : first + range;
    for (count_t base = first; base < end; base += Threads * Items) {
      if constexpr (stdx::is_pointer<In>::value) {
        const count_t next = base + Threads * Items;
        prefetch_items<be>(in, next, end - next < count_t(Threads * Items) ? end : next + Threads * Items, t, Threads);
      }
      T key[Items];
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        const count_t i = base + count_t(k) * Threads + t;
        key[k] = streamed(in, i < end ? i : base);
      }
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k)
        if (base + count_t(k) * Threads + t < end) be::atomic_add(local + hash_bits<T, Packed>(key[k], 0, bucket_bits), 1u);
    }
    block.sync();
    if (t < buckets) counts[count_t(t) * count_t(ctx.grid().num_blocks()) + j] = count_t(local[t]);
  }
};

// Items base .. base + Threads x Items (before `end`; key_at(i), index_at(i)) to the parts
// given by part_of(key) of out_keys / out_index: the tile's keys are staged part by part in
// shared memory, then written in order, each part's run at cursor[part], which advances by
// the run. cursor, counts, to: [parts] in shared memory.
template <class Backend, unsigned Threads, unsigned Items, class Block, class KeyAt, class IndexAt, class PartOf, class T, class Index>
TILEKIT_HD void scatter_tile(const Block& block, count_t base, count_t end, unsigned parts, KeyAt key_at, IndexAt index_at,
                             PartOf part_of, unsigned long long* cursor, unsigned* counts, unsigned long long* to,
                             unsigned long long* warp_sums, T* staged_keys, Index* staged_index, unsigned char* staged_part,
                             T* out_keys, Index* out_index) {
  auto warp = tilekit::tiled_partition<32>(block);
  const unsigned t = block.thread_rank();
  if (t < parts) counts[t] = 0;
  T key[Items];
  unsigned where[Items] = {};  // the key's part (low 8 bits), then its rank among the tile's keys of the part
  TILEKIT_UNROLL
  for (unsigned k = 0; k < Items; ++k) {
    const count_t i = base + count_t(k) * Threads + t;
    key[k] = key_at(i < end ? i : base);
  }
  block.sync();
  TILEKIT_UNROLL
  for (unsigned k = 0; k < Items; ++k) {
    const unsigned part = part_of(key[k]);
    if (base + count_t(k) * Threads + t < end) where[k] = part | Backend::atomic_add(counts + part, 1u) << 8;
  }
  block.sync();
  const unsigned mine = t < parts ? counts[t] : 0u;
  const unsigned inclusive = tilekit::inclusive_scan(warp, mine, plus{});
  unsigned long long taken = 0;
  if (t < parts) {
    taken = cursor[t];
    cursor[t] = taken + mine;
  }
  if (warp.thread_rank() == 31) warp_sums[t / 32] = inclusive;
  block.sync();
  unsigned before = 0;
  for (unsigned w = 0; w < t / 32; ++w) before += unsigned(warp_sums[w]);
  const unsigned first = before + inclusive - mine;  // the part's first staged place
  if (t < parts) {
    counts[t] = first;
    to[t] = taken - first;
  }
  block.sync();
  TILEKIT_UNROLL
  for (unsigned k = 0; k < Items; ++k) {
    const count_t i = base + count_t(k) * Threads + t;
    if (i < end) {
      const unsigned at = counts[where[k] & 0xFFu] + (where[k] >> 8);
      staged_keys[at] = key[k];
      staged_index[at] = static_cast<Index>(index_at(i));
      staged_part[at] = static_cast<unsigned char>(where[k]);
    }
  }
  block.sync();
  const unsigned tile = end - base < count_t(Threads * Items) ? unsigned(end - base) : Threads * Items;
  for (unsigned at = t; at < tile; at += Threads) {
    const unsigned long long p = to[staged_part[at]] + at;
    out_keys[p] = staged_keys[at];
    out_index[p] = staged_index[at];
  }
  block.sync();
}

template <class In, bool Packed>
struct bucket_scatter {  // the grid and ranges of bucket_count
  static constexpr unsigned Threads = 256, MinBlocksPerSM = 2;
  using T = value_of<In>;
  using index_t = stdx::conditional_t<Packed, unsigned, count_t>;
  static constexpr unsigned Items = sizeof(T) + sizeof(index_t) <= 8 ? 16 : 8, Tile = Threads * Items;
  static constexpr unsigned B = distinct_tuning::max_buckets;
  static_assert(B <= Threads && B <= 256, "bucket_scatter: a thread per bucket, a bucket in 8 bits");
  static constexpr std::size_t shared_bytes =
      (2 * B + Threads / 32) * sizeof(unsigned long long) + Tile * (sizeof(T) + sizeof(index_t)) + B * sizeof(unsigned) + Tile;
  In in;
  count_t n, range;
  unsigned buckets;
  const unsigned* flags;  // as bucket_count's
  const count_t* places;  // bucket_count's counts, scanned
  T* keys;
  index_t* index;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(flags) == 0) return;
    unsigned long long* cursor = ctx.template shared_array<unsigned long long>(std::size_t(shared_bytes / sizeof(unsigned long long)));
    unsigned long long* to = cursor + B;
    unsigned long long* warp_sums = to + B;
    T* staged_keys = reinterpret_cast<T*>(warp_sums + Threads / 32);
    index_t* staged_index = reinterpret_cast<index_t*>(staged_keys + Tile);
    unsigned* counts = reinterpret_cast<unsigned*>(staged_index + Tile);
    unsigned char* staged_part = reinterpret_cast<unsigned char*>(counts + B);
    const unsigned t = block.thread_rank(), bucket_bits = highest_bit(buckets);
    const count_t j = count_t(ctx.grid().block_rank()), first = j * range;
    const count_t end = n - first < range ? n : first + range;
    if (t < buckets) cursor[t] = static_cast<unsigned long long>(places[count_t(t) * count_t(ctx.grid().num_blocks()) + j]);
    block.sync();
    const In keys_in = in;
    for (count_t base = first; base < end; base += Tile) {
      if constexpr (stdx::is_pointer<In>::value) {
        const count_t next = base + Tile;
        prefetch_items<be>(in, next, end - next < count_t(Tile) ? end : next + Tile, t, Threads);
      }
      scatter_tile<be, Threads, Items>(
          block, base, end, buckets, [&](count_t i) { return streamed(keys_in, i); }, [](count_t i) { return i; },
          [&](const T& key) { return hash_bits<T, Packed>(key, 0, bucket_bits); }, cursor, counts, to, warp_sums,
          staged_keys, staged_index, staged_part, keys, index);
    }
  }
};

template <class T, bool Packed>
struct bucket_dedup {  // block b takes bucket b
  static constexpr unsigned Threads = 384, MinBlocksPerSM = 2, Items = 4, LoadItems = sizeof(T) <= 4 ? 8 : 4;
  using index_t = stdx::conditional_t<Packed, unsigned, count_t>;
  using set_t = key_set<T, Packed>;
  static constexpr unsigned Parts = 256, Tile = Threads * LoadItems;
  static_assert(Parts <= Threads, "bucket_dedup: a thread per piece");
  // The most slots of a block's set (a power of two), and its shared memory: the set (the
  // staging of a tile's keys while the bucket is split), then the starts and counts.
  static constexpr unsigned long long max_set_slots = distinct_tuning::bucket_set_bytes / (8 * set_t::words);
  static constexpr std::size_t set_bytes = std::size_t(set_t::allocated(max_set_slots) * set_t::words * 8);
  static_assert(set_bytes >= Tile * (sizeof(T) + sizeof(index_t)), "bucket_dedup: a tile's staging fits in the set");
  static constexpr std::size_t shared_bytes =
      set_bytes + ((Parts + 1) + 2 * Parts + Threads / 32 + 1) * sizeof(unsigned long long) + Parts * sizeof(unsigned) + Tile;
  unsigned buckets;
  const unsigned* flags;  // as bucket_count's
  const count_t* places;  // bucket_scatter's: bucket b starts at places[b x partition_blocks]
  count_t partition_blocks, n;
  T* keys;  // by bucket (bucket_scatter's), then each bucket's keys by piece in keys2
  index_t* index;
  T* keys2;
  index_t* index2;
  unsigned* bits;
  unsigned long long set_slots;  // <= max_set_slots (tests take fewer)

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(flags) == 0) return;
    unsigned char* shared = ctx.template shared_array<unsigned char>(shared_bytes);
    unsigned long long* slots = reinterpret_cast<unsigned long long*>(shared);
    unsigned long long* piece_start = reinterpret_cast<unsigned long long*>(shared + set_bytes);  // [Parts + 1]
    unsigned long long* cursor = piece_start + (Parts + 1);                                 // [Parts]
    unsigned long long* to = cursor + Parts;                                                // [Parts]
    unsigned long long* warp_sums = to + Parts;                                             // [Threads / 32]
    unsigned long long* full = warp_sums + Threads / 32;                                    // a key found no room
    unsigned* counts = reinterpret_cast<unsigned*>(full + 1);
    unsigned char* staged_part = reinterpret_cast<unsigned char*>(counts + Parts);
    const unsigned t = block.thread_rank();
    const unsigned b = unsigned(ctx.grid().block_rank());
    const count_t first = places[count_t(b) * partition_blocks];
    const count_t items = (b + 1 < buckets ? places[count_t(b + 1) * partition_blocks] : n) - first;
    if (items == 0) return;
    // Pieces of about a half set of keys each, by the hash bits after the bucket's.
    const unsigned bucket_bits = highest_bit(buckets);
    unsigned pieces = 1;
    while (pieces < Parts && static_cast<unsigned long long>(items) > pieces * (set_slots / 2)) pieces *= 2;
    const unsigned piece_bits = highest_bit(pieces);
    const T* from_keys = keys + first;
    const index_t* from_index = index + first;
    if (pieces == 1) {
      if (t == 0) piece_start[0] = 0, piece_start[1] = static_cast<unsigned long long>(items);
    } else {
      if (t < pieces) counts[t] = 0;
      block.sync();
      for (count_t base = 0; base < items; base += Tile) {
        prefetch_items<be>(from_keys, base + Tile, items - base < 2 * count_t(Tile) ? items : base + 2 * Tile, t, Threads);
        T key[LoadItems];
        TILEKIT_UNROLL
        for (unsigned k = 0; k < LoadItems; ++k) {
          const count_t i = base + count_t(k) * Threads + t;
          key[k] = streamed(from_keys, i < items ? i : base);
        }
        TILEKIT_UNROLL
        for (unsigned k = 0; k < LoadItems; ++k)
          if (base + count_t(k) * Threads + t < items) be::atomic_add(counts + hash_bits<T, Packed>(key[k], bucket_bits, piece_bits), 1u);
      }
      block.sync();
      block_starts(block, counts, pieces, piece_start, warp_sums);
      if (t < pieces) cursor[t] = piece_start[t];
      block.sync();
      T* staged_keys = reinterpret_cast<T*>(slots);
      index_t* staged_index = reinterpret_cast<index_t*>(staged_keys + Tile);
      for (count_t base = 0; base < items; base += Tile) {
        const count_t next_end = items - base < 2 * count_t(Tile) ? items : base + 2 * Tile;
        prefetch_items<be>(from_keys, base + Tile, next_end, t, Threads);
        prefetch_items<be>(from_index, base + Tile, next_end, t, Threads);
        scatter_tile<be, Threads, LoadItems>(
            block, base, items, pieces, [&](count_t i) { return streamed(from_keys, i); }, [&](count_t i) { return from_index[i]; },
            [&](const T& key) { return hash_bits<T, Packed>(key, bucket_bits, piece_bits); }, cursor, counts, to,
            warp_sums, staged_keys, staged_index, staged_part, keys2 + first, index2 + first);
      }
      from_keys = keys2 + first;
      from_index = index2 + first;
    }
    const count_t set_words = count_t(set_t::allocated(set_slots) * set_t::words);
    for (count_t w = t; w < set_words; w += Threads) slots[w] = 0;
    if (t == 0) *full = 0;
    block.sync();
    const set_t set{slots, set_slots - 1};
    const unsigned used_bits = bucket_bits + piece_bits;
    for (unsigned p = 0; p < pieces; ++p) {
      const count_t piece_first = count_t(piece_start[p]), piece_items = count_t(piece_start[p + 1] - piece_start[p]);
      if (p + 1 < pieces) {  // the next piece's keys to L2 while this one is done
        prefetch_items<be>(from_keys, count_t(piece_start[p + 1]), count_t(piece_start[p + 2]), t, Threads);
        prefetch_items<be>(from_index, count_t(piece_start[p + 1]), count_t(piece_start[p + 2]), t, Threads);
      }
      // A piece with more keys than the set holds is done again in 2, 4, ... parts, by more hash bits.
      for (unsigned split_bits = 0;; ++split_bits) {
        be::require(used_bits + split_bits <= 48, set_t::full);
        bool over = false;
        for (unsigned part = 0; part < (1u << split_bits) && !over; ++part) {
          for (count_t base = 0; base < piece_items; base += Threads * count_t(Items)) {
            T key[Items];
            count_t item[Items];
            bool live[Items];
            TILEKIT_UNROLL
            for (unsigned k = 0; k < Items; ++k) {
              const count_t j = base + count_t(k) * Threads + t;
              const count_t at = piece_first + (j < piece_items ? j : base);
              key[k] = streamed(from_keys, at);
              item[k] = count_t(from_index[at]);
              live[k] = j < piece_items && hash_bits<T, Packed>(key[k], used_bits, split_bits) == part;
            }
            bool no_room = false;
            insert_keys<be>(set, key, item, live, set_slots, no_room);
            if (no_room) *full = 1;
          }
          block.sync();
          over = *full != 0;
          for (count_t w = t; w < set_words; w += Threads) {
            const unsigned long long word = slots[w];
            if (word == 0) continue;
            if (!over && w % set_t::words == set_t::words - 1) {  // a taken slot's index word: ~index, never 0
              const count_t i = Packed ? count_t(unsigned(~word)) : count_t(~word);
              be::atomic_or(bits + (i >> 5), 1u << (i & 31));  // or: a part done before a split is marked again
            }
            slots[w] = 0;
          }
          block.sync();
        }
        if (!over) break;
        if (t == 0) *full = 0;
        block.sync();
      }
    }
  }
};

// Bit i of `bits` (zeroed) for every index i a slot of the set keeps, unless flags[0] is
// set (the set was given up: bucket_dedup marks them). Each index is kept by one slot at
// most, so adding the bit sets it.
template <class T, bool Packed>
struct mark_first_occurrences {
  static constexpr unsigned Threads = 256;
  const unsigned* flags;
  key_set<T, Packed> set;
  unsigned* bits;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(flags) != 0) return;
    const count_t threads = count_t(ctx.grid().num_blocks()) * Threads;
    for (count_t at = count_t(ctx.grid().block_rank()) * Threads + block.thread_rank(); at <= count_t(set.mask + 1); at += threads)
      if (set.occupied(at)) {
        const count_t i = set.index_at(at);
        be::atomic_add(bits + (i >> 5), 1u << (i & 31));
      }
  }
};

// Pass 3: the marked items in order, 1024 items (32 bitmap words) a group. count_marked
// writes the number of marked items of each group (a warp per group); an inclusive scan in
// place makes them the marked items up to each group's end; gather_marked gives each group
// to a warp. Lane l takes word l of the group, and for each row (word) r the lanes whose
// bit is set load item 1024 g + 32 r + lane, the loads of all 32 rows (16 for items of 8
// bytes) in flight before any store; each goes to its row's place plus the set bits below it.
struct count_marked {
  static constexpr unsigned Threads = 256;
  const unsigned* bits;
  count_t words;
  count_t* counts;  // per group of 32 words

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto warp = tilekit::tiled_partition<32>(block);
    const count_t groups = (words + 31) / 32;
    const count_t warps = count_t(ctx.grid().num_blocks()) * (Threads / 32);
    for (count_t g = count_t(ctx.grid().block_rank()) * (Threads / 32) + block.thread_rank() / 32; g < groups; g += warps) {
      const count_t w = 32 * g + warp.thread_rank();
      const unsigned total = tilekit::reduce(warp, w < words ? popc(bits[w]) : 0u, plus{});
      if (warp.thread_rank() == 0) counts[g] = count_t(total);
    }
  }
};

template <class In, class Out, class NumOut>
struct gather_marked {
  static constexpr unsigned Threads = 256, MinBlocksPerSM = 4;
  using T = value_of<In>;
  static constexpr unsigned Rows = sizeof(T) <= 4 ? 32 : 16;  // rows whose loads are in flight at once (registers)
  In in;
  count_t words;
  const unsigned* bits;
  const count_t* ends;  // the inclusively scanned counts of count_marked
  Out out;
  NumOut num_out;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto warp = tilekit::tiled_partition<32>(block);
    const unsigned lane = warp.thread_rank();
    const count_t groups = (words + 31) / 32;
    const count_t warps = count_t(ctx.grid().num_blocks()) * (Threads / 32);
    const count_t first = count_t(ctx.grid().block_rank()) * (Threads / 32) + block.thread_rank() / 32;
    if (first == 0 && lane == 0) *num_out = groups > 0 ? ends[groups - 1] : 0;
    for (count_t g = first; g < groups; g += warps) {
      const unsigned word = 32 * g + lane < words ? bits[32 * g + lane] : 0u;
      const unsigned before = tilekit::exclusive_scan(warp, popc(word));  // marked items of the rows above
      const unsigned total = warp.shfl(before + popc(word), 31);
      const count_t start = ends[g] - count_t(total);
      TILEKIT_UNROLL
      for (unsigned half = 0; half < 32; half += Rows) {
        T item[Rows];
        TILEKIT_UNROLL
        for (unsigned r = 0; r < Rows; ++r)
          if ((warp.shfl(word, half + r) >> lane) & 1u) item[r] = in[1024 * g + 32 * (half + r) + lane];
        TILEKIT_UNROLL
        for (unsigned r = 0; r < Rows; ++r) {
          const unsigned row = warp.shfl(word, half + r), row_before = warp.shfl(before, half + r);
          if ((row >> lane) & 1u) out[start + count_t(row_before + popc(row & ((1u << lane) - 1u)))] = item[r];
        }
      }
    }
  }
};

template <class In>
struct run_heads {  // 1 where a run of equal items begins
  In in;
  using value_type = count_t;
  TILEKIT_HD count_t operator[](count_t i) const { return i == 0 || !(in[i] == in[i - 1]) ? 1 : 0; }
};

}  // namespace detail

namespace detail {
// small_set_bytes: the first set's most bytes (distinct_tuning::small_set_bytes), past which
// the keys go to buckets where too many are distinct; bucket_items, bucket_set_slots: the
// keys of a bucket, about, and the slots of a bucket's sets (distinct_tuning's). Tests pass
// fewer of all three.
template <bool Packed, class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type distinct_with(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            count_t n, Out out, NumOut num_out,
                                            unsigned long long small_set_bytes = distinct_tuning::small_set_bytes,
                                            unsigned long long bucket_items = distinct_tuning::bucket_items,
                                            unsigned long long bucket_set_slots = bucket_dedup<value_of<In>, Packed>::max_set_slots) {
  using T = value_of<In>;
  using set_t = key_set<T, Packed>;
  using dedup_t = bucket_dedup<T, Packed>;
  using index_t = typename dedup_t::index_t;
  using scatter_t = bucket_scatter<In, Packed>;
  const count_t items = n > 0 ? n : 0;
  const unsigned long long capacity = set_capacity(items);  // a set for every key
  unsigned long long small = 64;                            // the first set's slots
  while (small * 2 * set_t::words * 8 <= small_set_bytes && small < capacity) small *= 2;
  const bool by_buckets = small < capacity;  // else the first set is the only one, and cannot fill
  unsigned buckets = 1;
  while (buckets < distinct_tuning::max_buckets && static_cast<unsigned long long>(items) > buckets * bucket_items) buckets *= 2;
  const count_t words = (items + 31) / 32, groups = (words + 31) / 32;  // of the bitmap; of 1024 items
  // The partition's blocks, each for `range` items (whole tiles of bucket_scatter's).
  const unsigned sms = launcher.sm_count() > 0 ? launcher.sm_count() : 1;
  const count_t tiles = (items + scatter_t::Tile - 1) / scatter_t::Tile;
  const count_t wanted_blocks = count_t(sms) * scatter_t::MinBlocksPerSM;
  const count_t range = ((tiles + wanted_blocks - 1) / wanted_blocks) * scatter_t::Tile;
  const count_t partition_blocks = range > 0 ? (items + range - 1) / range : 1;
  const count_t place_count = by_buckets ? count_t(buckets) * partition_blocks : 0;
  // What the first launch zeroes comes first: the flags, the bitmap, the places, the first set.
  temp_carver carve(temp);
  unsigned* flags = carve.take<unsigned>(2);  // the first set is full; the keys it took
  unsigned* bits = carve.take<unsigned>(std::size_t(words));
  count_t* places = carve.take<count_t>(std::size_t(place_count));
  const set_t first{carve.take<unsigned long long>(set_t::allocated(small) * set_t::words), small - 1};
  count_t* ends = carve.take<count_t>(std::size_t(groups));
  std::size_t scan_bytes = 0, place_scan_bytes = 0;
  device_scan<true>(launcher, nullptr, scan_bytes, ends, groups, ends, plus{}, count_t(0), false);
  void* scan_temp = carve.take<unsigned char>(scan_bytes);
  device_scan<false>(launcher, nullptr, place_scan_bytes, places, place_count, places, plus{}, count_t(0), true);
  void* place_scan_temp = carve.take<unsigned char>(by_buckets ? place_scan_bytes : 0);
  const std::size_t by_bucket = by_buckets ? std::size_t(items) : 0;  // the keys with their indices, by bucket, then by piece
  T* keys = carve.take<T>(by_bucket);
  index_t* index = carve.take<index_t>(by_bucket);
  T* keys2 = carve.take<T>(by_bucket);
  index_t* index2 = carve.take<index_t>(by_bucket);
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = carve.bytes();
    return launcher.success;
  }
  if (temp_bytes < carve.bytes()) return launcher.invalid_value;
  if (is_null(num_out) || (n > 0 && (is_null(in) || is_null(out)))) return launcher.invalid_value;
  // Blocks of 256 threads for `threads` threads, at most blocks_per_sm a multiprocessor (one
  // wave: the kernels here stride their grid).
  auto grid_for = [&](count_t threads, unsigned blocks_per_sm) {
    const count_t wanted = (threads + 255) / 256;
    return unsigned(wanted < 1 ? 1 : wanted < count_t(sms) * blocks_per_sm ? wanted : count_t(sms) * blocks_per_sm);
  };
  if (n > 0) {
    using insert_t = distinct_insert_body<In, Packed>;
    const unsigned long long first_probes = by_buckets && distinct_tuning::max_probes < small ? distinct_tuning::max_probes : small;
    const insert_pass kind = by_buckets ? insert_pass::first_of_buckets : insert_pass::only_set;
    const insert_t insert{in, n, first, flags, first_probes, small / 8 * distinct_tuning::first_set_load_eighths, kind};
    const std::size_t zeroed = std::size_t(reinterpret_cast<unsigned char*>(first.slots + set_t::allocated(small) * set_t::words) -
                                           reinterpret_cast<unsigned char*>(flags));
    if (auto e = launcher.zero_then_run(flags, zeroed, true, grid_for(n / insert_t::Items + 1, insert_t::MinBlocksPerSM),
                                        insert_t::Threads, insert);
        e != launcher.success)
      return e;
  }
  if (n > 0 && by_buckets) {  // launched always; each returns at once where the first set held every key
    using counter_t = bucket_count<In, Packed>;
    if (auto e = launcher.run(unsigned(partition_blocks), counter_t::Threads, counter_t{in, n, range, buckets, flags, places},
                              counter_t::shared_bytes);
        e != launcher.success)
      return e;
    if (auto e = device_scan<false>(launcher, place_scan_temp, place_scan_bytes, places, place_count, places, plus{}, count_t(0), true);
        e != launcher.success)
      return e;
    if (auto e = launcher.run(unsigned(partition_blocks), scatter_t::Threads, scatter_t{in, n, range, buckets, flags, places, keys, index},
                              scatter_t::shared_bytes);
        e != launcher.success)
      return e;
    const unsigned long long slots = bucket_set_slots < dedup_t::max_set_slots ? bucket_set_slots : dedup_t::max_set_slots;
    const dedup_t dedup{buckets, flags, places, partition_blocks, n, keys, index, keys2, index2, bits, slots};
    if (auto e = launcher.run(buckets, dedup_t::Threads, dedup, dedup_t::shared_bytes); e != launcher.success) return e;
  }
  if (n > 0) {
    using mark_t = mark_first_occurrences<T, Packed>;
    if (auto e = launcher.run(grid_for(count_t(small + 1), 8), mark_t::Threads, mark_t{flags, first, bits}); e != launcher.success)
      return e;
    if (auto e = launcher.run(grid_for(groups * 32, 8), count_marked::Threads, count_marked{bits, words, ends});
        e != launcher.success)
      return e;
    if (auto e = device_scan<true>(launcher, scan_temp, scan_bytes, ends, groups, ends, plus{}, count_t(0), false);
        e != launcher.success)
      return e;
  }
  using gather_t = gather_marked<In, Out, NumOut>;  // n == 0 too: it writes *num_out
  return launcher.run(grid_for(groups * 32, 8), gather_t::Threads, gather_t{in, words, bits, ends, out, num_out});
}
}  // namespace detail

/// The device-wide distinct's dispatch, for any launcher. With temp == nullptr it
/// only sets temp_bytes (for this n), or answers invalid_value for n < 0 as the call
/// does. Returns launcher.invalid_value, writing nothing, for n < 0, null pointers (num_out always, in and out with n > 0), or a
/// too small temp_bytes.
template <class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type device_distinct(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                              detail::count_t n, Out out, NumOut num_out) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out> || detail::wraps_pointer_v<NumOut>)  // thrust::device_ptr: as its pointer
    return device_distinct(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(out), detail::unwrap(num_out));
  using T = detail::value_of<In>;
  static_assert(detail::stdx::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "tilekit distinct: keys must be 4- or 8-byte integers (the hash set compares and claims keys bitwise "
                "with one atomic compare-and-swap); map other keys to such an integer first");
  if constexpr (sizeof(T) == 4)
    if (n < (detail::count_t(1) << 32)) return detail::distinct_with<true>(launcher, temp, temp_bytes, in, n, out, num_out);
  return detail::distinct_with<false>(launcher, temp, temp_bytes, in, n, out, num_out);
}

/// The device-wide unique count's dispatch (a device reduce; its temp_bytes and errors).
template <class Launcher, class In, class Out>
typename Launcher::error_type device_unique_count(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                  detail::count_t n, Out out) {
  if constexpr (detail::wraps_pointer_v<In>)  // thrust::device_ptr: read it as its pointer
    return device_unique_count(launcher, temp, temp_bytes, detail::unwrap(in), n, out);
  if (temp != nullptr && n > 0 && detail::is_null(in)) return launcher.invalid_value;
  return device_reduce(launcher, temp, temp_bytes, detail::run_heads<In>{in}, n, out, plus{}, detail::count_t(0));
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::device {

template <class In, class Out, class NumOut>
cudaError_t distinct(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, NumOut num_out,
                     cudaStream_t stream = 0) {
  return device_distinct(gpu_launcher{stream}, temp, temp_bytes, in, n, out, num_out);
}

template <class In, class Out>
cudaError_t unique_count(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  return device_unique_count(gpu_launcher{stream}, temp, temp_bytes, in, n, out);
}

template <class In, class Out, class NumOut>
cudaError_t distinct(In in, std::int64_t n, Out out, NumOut num_out, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::distinct(t, b, in, n, out, num_out, stream); });
}

template <class In, class Out>
cudaError_t unique_count(In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::unique_count(t, b, in, n, out, stream); });
}

}  // namespace tilekit::device
#endif  // __CUDACC__
