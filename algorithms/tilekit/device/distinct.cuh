// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/distinct.cuh - what CUB lacks: order-preserving dedup of an unsorted
// sequence, and the number of runs, on the GPU (the kernels and their dispatch below).
//
//   distinct(temp, temp_bytes, in, n, out, num_out[, stream])  the distinct keys in order
//       of first occurrence, no sorting (hash sets, then a gather of the marked first
//       occurrences); keys: 4- or 8-byte integers; temp storage about 2 n x 8 bytes past
//       5.5 M keys (4-byte keys, n < 2^32; x 16 otherwise), of which a call with few distinct
//       keys touches only a 64 MB set
//   unique_count(temp, temp_bytes, in, n, out[, stream])       *out = the number of runs
//       of equal adjacent items (what unique keeps), without writing them
//   ... and each without (temp, temp_bytes): storage allocated in the stream.
// n is a 64-bit count; out must not overlap in. Errors: cudaErrorInvalidValue, with
// nothing written, for n < 0 or above 2^48, null pointers, a too small temp_bytes.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/grid/dedup.cuh>  // detail::key_set
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/scan.cuh>

#include <cmath>

namespace tilekit {

// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_distinct(launcher, temp, temp_bytes, in, n, out, num_out): the distinct keys
// of in[0 .. n) in order of first occurrence to out[0 .. count), *num_out = count;
// no sorting. Each key goes into a hash set (open addressing with linear probing), each
// slot keeping the lowest index of its key (with 4-byte keys and n < 2^32 key and index
// share one 64-bit word); each slot's lowest index is marked in a bitmap of n bits; then
// the marked counts of groups of 1024 items are scanned and each marked item copied to its
// place (a warp per group); up to distinct_tuning::fused_items keys those steps are phases of
// one cooperative launch (distinct_fused). The first set has at most distinct_tuning::small_set_bytes
// (mostly in L2; a thread reads several keys and their first slots before inserting any, an
// index already beaten is not sent); where it has 1.5 slots a key, it is the only one (and
// where every key claimed a slot of it, nothing is marked: all_distinct). Otherwise a
// HyperLogLog sketch of the first keys (distinct_estimate) sizes it to 8x their distinct keys,
// or gives it up at once where they alone are too many (or more than n / 5 are distinct:
// distinct_tuning::buckets_below_repeats); once its keys fill 3/8 of it, it is given up too.
// Then the keys are partitioned by hash into buckets and pieces (two passes), each piece
// deduplicated by a block in its shared memory (piece_dedup): no key takes a global atomic
// there; where a sample of the first pass
// finds more than half the keys distinct, the bitmap marks the other indices instead, as
// the pieces' sets meet them (marks_later). Keys: integers of 4 or 8 bytes,
// compared bitwise. Temporary storage: n / 8 bytes (the bitmap) plus the first set (1.5-3 n
// slots of 8 bytes up to 64 MB; 16-byte slots for 8-byte keys or n >= 2^32), and past its
// size the keys with their indices twice (2 n x 8 bytes; 2 n x 16 for 8-byte keys or n >= 2^32)
// and the sample's 128 KB.
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
// The 4 words at p (16-byte aligned), read evict-first as streamed does.
template <class V>
TILEKIT_HD vector_of<V, 4> streamed_vector(const V* p) {
  static_assert(sizeof(V) == 4, "streamed_vector: 4-byte words");
#if TILEKIT_DEVICE_PASS
  const uint4 w = __ldcs(reinterpret_cast<const uint4*>(p));
  vector_of<V, 4> v;
  std::memcpy(&v, &w, sizeof(v));
  return v;
#else
  return load_vector<V, 4>(p);
#endif
}

// How many keys are distinct, about: a HyperLogLog sketch (Flajolet et al., 2007) of the
// keys' hashes. Register r keeps the most leading zeros + 1 of the hashes whose top `bits`
// bits are r; 2^10 registers estimate within about 3% (one standard error). A call whose
// first set would be given up learns so from the sketch of its first keys, before it
// inserts any (distinct_estimate, then size_first_set).
struct distinct_sketch {
  static constexpr unsigned bits = 10, registers = 1u << bits;
  // Packed (4-byte keys): a 32-bit hash (mix32: a few 32-bit multiplies, where mix64 takes
  // 64-bit ones) in the top half, the low half all ones, so that rank() counts at most its 22
  // bits past the register's. Else mix64. Neither is the set's home hash (mix64(0) is 0).
  template <class T, bool Packed>
  TILEKIT_HD static unsigned long long hash(const T& key) {
    if constexpr (Packed)
      return static_cast<unsigned long long>(mix32(unsigned(key_set<T, Packed>::stored(key)) ^ 0x2545F491u)) << 32 | 0xFFFFFFFFull;
    return mix64(key_set<T, Packed>::stored(key) ^ 0x9E3779B97F4A7C15ull);
  }
  TILEKIT_HD static unsigned slot(unsigned long long h) { return unsigned(h >> (64 - bits)); }
  TILEKIT_HD static unsigned rank(unsigned long long h) { return leading_zeros((h << bits) | (1ull << (bits - 1))) + 1; }
  // 2^-value of a register in units of 2^-52: sums of them are exact in any order.
  TILEKIT_HD static unsigned long long term(unsigned value) { return 1ull << (52 - (value < 52 ? value : 52)); }
  // The estimate from the registers' terms summed and the registers still 0 (few keys:
  // linear counting, as HyperLogLog's small-range correction).
  TILEKIT_HD static double estimate(unsigned long long terms, unsigned zeros) {
    const double m = registers, alpha = 0.7213 / (1.0 + 1.079 / m);
    const double raw = alpha * m * m / (double(terms) / 4503599627370496.0);  // terms / 2^52
    return raw <= 2.5 * m && zeros != 0 ? m * ::log(m / double(zeros)) : raw;
  }
};

// The sketch of keys in[0 .. n): each block's registers in its shared memory, then their
// maxima into `sketch` (zeroed by the kernel before: zero_then_run).
template <class In, bool Packed>
struct distinct_estimate {
  // Two blocks a multiprocessor (each merges its registers with 2^10 global atomics), with
  // 32 KB of 4-byte keys in flight there.
  static constexpr unsigned Threads = 256, MinBlocksPerSM = 2, Items = 16;
  static constexpr std::size_t shared_bytes = distinct_sketch::registers * sizeof(unsigned);
  using T = value_of<In>;
  In in;
  count_t n;
  unsigned* sketch;  // [distinct_sketch::registers]

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    using sketch_t = distinct_sketch;
    unsigned* local = ctx.template shared_array<unsigned>(sketch_t::registers);
    const unsigned t = block.thread_rank();
    for (unsigned r = t; r < sketch_t::registers; r += Threads) local[r] = 0;
    block.sync();
    const count_t tile = count_t(Threads) * Items, stride = count_t(ctx.grid().num_blocks()) * tile;
    // The keys of the tile at `base` (past n: base's, not counted).
    auto load = [&](count_t base, T (&key)[Items]) {
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        const count_t i = base + count_t(k) * Threads + t;
        key[k] = in[i < n ? i : base];
      }
    };
    // The next tile's loads in flight while this one's keys are hashed. (H100, 2^24 int32 keys,
    // 2^23 sketched: 29.4 us; 26.2 with the 32-bit hash; 25.2 with the loads ahead too.)
    T key[Items];
    count_t base = count_t(ctx.grid().block_rank()) * tile;
    if (base < n) load(base, key);
    for (; base < n; base += stride) {
      T next[Items] = {};
      if (base + stride < n) load(base + stride, next);
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        const unsigned long long h = sketch_t::hash<T, Packed>(key[k]);
        const unsigned r = sketch_t::slot(h), rank = sketch_t::rank(h);
        if (base + count_t(k) * Threads + t < n && local[r] < rank) be::atomic_max(local + r, rank);  // mostly read only
      }
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) key[k] = next[k];
    }
    block.sync();
    be::wait_for_prior_grid();  // the zeroing of sketch
    for (unsigned r = t; r < sketch_t::registers; r += Threads)
      if (local[r] != 0) be::atomic_max(sketch + r, local[r]);
  }
};

// Between distinct_estimate and the insert: the sketch's estimate of the first keys'
// distinct keys, from the registers' terms (integer sums, so every block finds the same).
// Past give_up_above, flags[0] (the first set is given up before any key goes in); else the
// first set sized to 8x the estimate (the later keys may bring more), as its most: its mask
// to *sized_mask, and those slots zeroed (grid-stride). Less to zero, probe and mark.
template <class T, bool Packed>
struct size_first_set {
  static constexpr unsigned Threads = 256;
  struct sums_t {  // the registers' terms and zeros summed over the block
    reduce_storage<unsigned long long, Threads> terms;
    reduce_storage<unsigned, Threads> zeros;
  };
  static constexpr std::size_t shared_bytes = sizeof(sums_t);
  using set_t = key_set<T, Packed>;
  set_t set;  // the first set at its most
  unsigned* flags;
  const unsigned* sketch;
  double give_up_above;
  unsigned long long* sized_mask;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    using sketch_t = distinct_sketch;
    static_assert(sketch_t::registers % Threads == 0, "size_first_set: whole registers a thread");
    const unsigned t = block.thread_rank();
    sums_t& sums = ctx.template shared<sums_t>();
    unsigned long long terms = 0;
    unsigned zeros = 0;
    unsigned value[sketch_t::registers / Threads];
    TILEKIT_UNROLL
    for (unsigned k = 0; k < sketch_t::registers / Threads; ++k) value[k] = sketch[k * Threads + t];
    TILEKIT_UNROLL
    for (unsigned k = 0; k < sketch_t::registers / Threads; ++k) {
      terms += sketch_t::term(value[k]);
      zeros += value[k] == 0;
    }
    terms = tilekit::reduce(block, terms, plus{}, sums.terms);
    zeros = tilekit::reduce(block, zeros, plus{}, sums.zeros);
    const double estimate = sketch_t::estimate(terms, zeros);
    const bool first_block = ctx.grid().block_rank() == 0 && t == 0;
    if (estimate > give_up_above) {
      if (first_block) be::store_relaxed(flags, 1u);
      return;
    }
    unsigned long long slots = 64;
    while (slots <= set.mask && double(slots) < 8.0 * estimate) slots *= 2;
    if (first_block) *sized_mask = slots - 1;
    const count_t words = count_t(set_t::allocated(slots) * set_t::words);
    const count_t threads = count_t(ctx.grid().num_blocks()) * Threads;
    for (count_t w = count_t(ctx.grid().block_rank()) * Threads + t; w < words; w += threads) set.slots[w] = 0;
  }
};

// Pass 1: every key into `set`. The first set of a call with buckets may fill: where the
// keys it took pass 3/8 of its slots (distinct_tuning::first_set_load_eighths; of the slots
// size_first_set gave it), or a key finds no room within max_probes slots of its home, it
// sets flags[0], and every warp stops at its next trip (a grid's trip is about 400 000 keys
// on the H200, so the set stops filling soon after). Then the buckets below take every key.
// The only set of a call without buckets cannot fill.
enum class insert_pass { only_set, first_of_buckets };

// The probe rounds of a thread's Items keys: each round issues read(k) for every key still
// live (the reads of all keys in flight together), then step(k) for each (false: placed), until
// every key is placed. False where a key probed max_probes slots (`group` a round) without finding
// itself or room: the keys live then are not placed.
// (Rounds the warp runs together, meeting after each key's step, with masks of the deciding
// slots in piece_set::step: 0.6-1.5% slower, H100, perf/results/2026-12-05-h100-15-distinct.)
template <unsigned Items, class Read, class Step>
TILEKIT_HD bool probe_rounds(bool (&live)[Items], unsigned long long max_probes, unsigned group, Read read, Step step) {
  for (unsigned long long probes = 1;; ++probes) {
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k)
      if (live[k]) read(k);
    bool more = false;
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k)
      if (live[k]) {
        live[k] = step(k);
        more = more || live[k];
      }
    if (!more) return true;
    if (probes * group >= max_probes) return false;
  }
}

// One trip of a thread: Items keys (those live) with their indices into set (probe_rounds).
// Returns the slots it claimed; full: a key probed max_probes slots without finding itself or
// room (the keys live then are not in the set).
template <class Backend, unsigned Items, class T, bool Packed, class Later = ignore_index>
TILEKIT_HD unsigned insert_keys(const key_set<T, Packed>& set, const T (&key)[Items], const count_t (&index)[Items],
                                bool (&live)[Items], unsigned long long max_probes, bool& full, Later later = {}) {
  using set_t = key_set<T, Packed>;
  unsigned long long at[Items];
  TILEKIT_UNROLL
  for (unsigned k = 0; k < Items; ++k) at[k] = set.start(key[k]);
  unsigned claims = 0;
  unsigned long long seen[Items][4];
  const bool placed = probe_rounds(
      live, max_probes, set_t::group, [&](unsigned k) { set.read_group(at[k], seen[k]); },
      [&](unsigned k) {
        const auto done = set.template insert_step<Backend>(key[k], index[k], at[k], seen[k], later);
        claims += done == set_t::step::claimed;
        return done == set_t::step::next;
      });
  if (!placed) full = true;
  return claims;
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
  unsigned* flags;  // [0] the first set is full, [1] the keys it took (the only set's too); zeroed by the first launch
  unsigned long long max_probes;
  insert_pass pass;
  const unsigned long long* sized_mask;  // first_of_buckets: size_first_set's mask of the set (null: set.mask)

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    be::wait_for_prior_grid();  // launched by zero_then_run, or after size_first_set
    const bool may_fill = pass == insert_pass::first_of_buckets;
    auto warp = tilekit::tiled_partition<32>(block);
    if (may_fill && be::load_relaxed(flags) != 0u) return;  // given up by size_first_set
    set_t sized = set;
    if (may_fill && sized_mask != nullptr) sized.mask = *sized_mask;
    const unsigned long long limit = (sized.mask + 1) / 8 * distinct_tuning::first_set_load_eighths;  // keys taken, then given up
    // A warp's trip: Items rows of 32 consecutive items. Every lane of a warp runs the
    // same trips (the looks at flags are collective).
    constexpr count_t warp_items = 32 * count_t(Items);
    const count_t warps = count_t(ctx.grid().num_blocks()) * (Threads / 32);
    const count_t warp_rank = count_t(ctx.grid().block_rank()) * (Threads / 32) + block.thread_rank() / 32;
    unsigned only_set_claims = 0;  // the only set's: added to flags[1] once, after the warp's trips
    for (count_t base = warp_rank * warp_items; base < n; base += warps * warp_items) {
      // flags[0], looked at once the trip's keys are in: its load in flight with theirs. (Loaded
      // and waited for alone before them, it had 15% of the stall samples at 2^24 int32 keys, 1%
      // distinct; the insert 188 -> 178 us there, 2^26 keys 1066 -> 1049 us, H100.)
      const unsigned stop = may_fill ? be::load_relaxed(flags) : 0u;
      T key[Items];
      count_t index[Items];
      bool live[Items];
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        index[k] = base + 32 * count_t(k) + warp.thread_rank();
        live[k] = index[k] < n;
        key[k] = streamed(in, live[k] ? index[k] : base);  // past n: a key of the trip's, read but not inserted
      }
      if (may_fill && warp.any(stop != 0u)) return;
      bool full = false;
      const unsigned claims = insert_keys<be>(sized, key, index, live, max_probes, full);
      warp.sync();  // (as in piece_dedup: the next trip's loads by the whole warp)
      if (!may_fill) {
        be::require(!full, set_t::full);
        only_set_claims += claims;
        continue;
      }
      if (warp.any(claims != 0 || full)) {
        const unsigned taken = tilekit::reduce(warp, claims, plus{});
        if (warp.thread_rank() == 0 && be::atomic_add(flags + 1, taken) + taken > limit) be::store_relaxed(flags, 1u);
        if (full) be::store_relaxed(flags, 1u);
      }
    }
    if (!may_fill) {
      const unsigned taken = tilekit::reduce(warp, only_set_claims, plus{});
      if (warp.thread_rank() == 0 && taken != 0) be::atomic_add(flags + 1, taken);
    }
  }
};

// Where the first set is given up (flags[0]: more keys are distinct than it takes), the keys
// are partitioned by hash, in two passes (partition_count, a scan, partition_scatter), into
// `buckets` (a power of two, at most distinct_tuning::max_buckets), and each bucket into
// `pieces` whose keys fit a set in a block's shared memory; piece_dedup gives each piece to a
// block and marks its lowest indices in the bitmap. The keys move with their indices in no
// particular order (a slot keeps its key's lowest index however the keys come). So no key
// takes a global atomic, and the keys are read 5 times and written twice, each time in order.
//
// The bits of a key's hash from bit `from` (the top is 0) on, `bits` of them (0: none), at most
// hash_bits_in_all<Packed> together. Packed (4-byte keys): a 32-bit hash and a bijection (so 32
// bits leave one key a part), mix32 of the stored key xor a constant, whose bits are not those of
// piece_set::home's mix32 of the stored key. It takes fewer instructions than mix64 on 32-bit
// ALUs (the first count at 2^28 keys: 360 -> 284 M warp instructions, 572 -> 431 us, H100,
// perf/results/2026-12-05-h100-15-distinct). Else mix64.
template <bool Packed>
constexpr unsigned hash_bits_in_all = Packed ? 32 : 48;
// The whole hash (Packed: 32 bits).
template <class T, bool Packed>
TILEKIT_HD unsigned long long key_hash(const T& key) {
  if constexpr (Packed) return mix32(unsigned(key_set<T, Packed>::stored(key)) ^ 0x9E3779B9u);
  return mix64(key_set<T, Packed>::stored(key));
}
// hash_bits of the whole hash h.
template <bool Packed>
TILEKIT_HD unsigned bits_of_hash(unsigned long long h, unsigned from, unsigned bits) {
  if (bits == 0) return 0u;
  if constexpr (Packed) return (unsigned(h) << from) >> (32 - bits);
  return unsigned((h << from) >> (64 - bits));
}
template <class T, bool Packed>
TILEKIT_HD unsigned hash_bits(const T& key, unsigned from, unsigned bits) {
  return bits == 0 ? 0u : bits_of_hash<Packed>(key_hash<T, Packed>(key), from, bits);
}

// Which indices the bitmap marks on the buckets' path: each key's lowest, or where more than
// half the keys are distinct, the others (the fewer; a key's later indices are known during its
// insert). At 2^28 int32 keys, all distinct, piece_dedup took 2.93 ms against 3.79 with an or a
// key, and the call 8.7% less; at 50% the sample costs 1-2% (H100,
// perf/results/2026-12-05-18-dup-marks). The share is a sample's, taken by the first
// count: the keys whose hash has its low sample_shift bits 0 (about 2^16 of them; every
// occurrence of a key or none), sample[0] of them; each sets a bit of sample_bits (by 20 bits
// of another mix of its hash), and sample[1] are those that found theirs unset: its distinct
// keys, less the few whose bits others set first. Null (the only set's path): the lowest indices.
constexpr unsigned sample_bits_log = 20;
TILEKIT_HD bool marks_later(const unsigned long long* sample) { return sample != nullptr && 2 * sample[1] > sample[0]; }
// Whether every key claimed a slot of the only set (*taken, its insert's count; null: the buckets'
// path): then every item is its key's first occurrence, no pass marks anything, and the bitmap,
// left zeroed, is read as marks_later's (no later index). At 2^20 int32 keys, all distinct, the
// mark pass was 19 of 87 us (H200, perf/results/2026-12-05-18-dup-marks/run1-h200/ncu.log).
// (Marking the later indices during the insert while a block finds few, so that 99% distinct
// keys skip it too, cost 5-18% at 1-90% distinct: perf/results/2026-12-06-19-all-distinct.)
TILEKIT_HD bool all_distinct(const unsigned* taken, count_t n) { return taken != nullptr && count_t(*taken) == n; }
// Word w of the kept items (bit j: item 32 w + j is its key's first occurrence): bits[w], or
// where the bitmap marks the later indices, its other bits up to item n.
TILEKIT_HD unsigned kept_word(const unsigned* bits, count_t w, count_t n, bool later) {
  const unsigned marks = bits[w];
  if (!later) return marks;
  const count_t left = n - 32 * w;
  return ~marks & (left >= 32 ? ~0u : (1u << left) - 1u);
}
// Asks L2 for items [from, to) of p, a 128-byte line a thread (of `threads`, this one
// `thread`), so that the next tile's loads find their lines there (measured with a block per
// bucket, f859a0e: 4% at 2^24 keys with 50-100% distinct, nothing at 2^28; the first scatter at
// 2^28 keys, 100% distinct, without it: 2.58 ms against 2.31, H100, 2026-12-05; partition_count
// goes without).
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
// A partition pass: the keys of each segment (level 1: in[0 .. n), one segment; level 2:
// each bucket of level 1's output) to `parts` parts by `part_bits` bits of their hash from
// bit `from`. Each segment has blocks_per_segment blocks, each for an equal slice of whole
// tiles; partition_count counts block k's keys of part q of segment s at
// counts[(s x parts + q) x blocks_per_segment + k], and an exclusive scan of counts in place
// makes each the place of those keys' first (so the parts of a segment follow each other).
template <class Keys, bool Packed>
struct partition_pass {
  using T = value_of<Keys>;
  using index_t = stdx::conditional_t<Packed, unsigned, count_t>;
  static constexpr unsigned Threads = 256, MinBlocksPerSM = distinct_tuning::scatter_blocks_per_sm,
                            Items = sizeof(T) + sizeof(index_t) <= 8 ? distinct_tuning::scatter_items : distinct_tuning::scatter_items_wide,
                            Tile = Threads * Items;
  static_assert(distinct_tuning::max_buckets <= Threads && distinct_tuning::max_buckets <= 256,
                "partition_pass: a thread per part, a part in 8 bits");
  Keys keys;                // level 1: the input; level 2: the keys by bucket
  const index_t* index;     // their indices (null: the key's position)
  count_t n;                // keys in all
  const count_t* segments;  // segment s starts at segments[s x segment_stride] (null: one segment)
  count_t segment_stride, segment_count, blocks_per_segment;
  unsigned from, part_bits;
  const unsigned* flags;  // [0]: the first set was given up (else the pass does nothing)

  // The slice [first, end) of block `block`, in segment `segment`, its rank there `rank`.
  TILEKIT_HD void slice(count_t block, count_t& segment, count_t& rank, count_t& first, count_t& end) const {
    segment = block / blocks_per_segment;
    rank = block % blocks_per_segment;
    const count_t start = segments != nullptr ? segments[segment * segment_stride] : 0;
    const count_t stop = segments != nullptr && segment + 1 < segment_count ? segments[(segment + 1) * segment_stride] : n;
    const count_t tiles = (stop - start + Tile - 1) / Tile;
    const count_t length = (tiles + blocks_per_segment - 1) / blocks_per_segment * Tile;
    first = start + rank * length < stop ? start + rank * length : stop;
    end = stop - first < length ? stop : first + length;
  }
  TILEKIT_HD unsigned part_of(const T& key) const { return hash_bits<T, Packed>(key, from, part_bits); }
};

template <class Keys, bool Packed>
struct partition_count : partition_pass<Keys, Packed> {
  using pass = partition_pass<Keys, Packed>;
  using T = typename pass::T;
  static constexpr unsigned Threads = 2 * pass::Threads, MinBlocksPerSM = pass::MinBlocksPerSM, Items = 8;  // the scatter's slices, twice its threads
  static constexpr std::size_t shared_bytes = (distinct_tuning::max_buckets + 2) * sizeof(unsigned);
  count_t* counts;
  // Level 1: the sample of marks_later (null: none): the keys whose hash's low sample_shift bits are 0.
  unsigned* sample_bits;  // 2^sample_bits_log bits, zeroed
  unsigned long long* sample;  // [2], zeroed
  unsigned sample_shift;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(this->flags) == 0) return;
    unsigned* local = ctx.template shared_array<unsigned>(distinct_tuning::max_buckets + 2);
    unsigned* sampled = local + distinct_tuning::max_buckets;  // the block's sampled keys; those that set their bit
    const unsigned t = block.thread_rank(), parts = 1u << this->part_bits;
    if (t < parts) local[t] = 0;
    if (t < 2) sampled[t] = 0;
    block.sync();
    const unsigned long long sample_mask = (1ull << sample_shift) - 1;
    count_t segment, rank, first, end;
    this->slice(count_t(ctx.grid().block_rank()), segment, rank, first, end);
    // The keys of the tile at `base` (past end: base's, not counted).
    auto load = [&](count_t base, T (&key)[Items]) {
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        const count_t i = base + count_t(k) * Threads + t;
        key[k] = streamed(this->keys, i < end ? i : base);
      }
    };
    // The next tile's loads in flight, in registers, while this one's keys are counted. (No
    // next-tile prefetch_items into L2 here, unlike the scatter: at 2^28 keys, 100% distinct,
    // the second count read 1.60 GB for 1.07 with it and ran 574 us, 442 without; H100,
    // perf/results/2026-12-05-h100-15-distinct.)
    T key[Items];
    if (first < end) load(first, key);
    for (count_t base = first; base < end; base += Threads * Items) {
      T next[Items] = {};
      if (base + Threads * Items < end) load(base + Threads * Items, next);
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k)
        if (base + count_t(k) * Threads + t < end) {
          const unsigned long long h = key_hash<T, Packed>(key[k]);
          be::atomic_add(local + bits_of_hash<Packed>(h, this->from, this->part_bits), 1u);
          if (sample_bits != nullptr && (h & sample_mask) == 0) {
            const unsigned b = mix32(unsigned(h ^ (h >> 32))) >> (32 - sample_bits_log), bit = 1u << (b & 31);
            const bool fresh = (be::atomic_or(sample_bits + (b >> 5), bit) & bit) == 0;
            be::atomic_add(sampled, 1u);
            if (fresh) be::atomic_add(sampled + 1, 1u);
          }
        }
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) key[k] = next[k];
    }
    block.sync();
    if (t < parts) counts[(segment * parts + t) * this->blocks_per_segment + rank] = count_t(local[t]);
    if (sample_bits != nullptr && t < 2 && sampled[t] != 0) be::atomic_add(sample + t, static_cast<unsigned long long>(sampled[t]));
  }
};

// A partition scatter block's shared memory. Each part's keys go out in whole 32-byte sectors
// (`granule` items: a sector of the narrower of key and index, one or two of the other) but for
// the first and last of the block's run in the part; the rest of a tile's keys of the part wait
// in its carry for the next tile. A part's run of a tile (at 256 parts, 16 keys, 64 bytes) would
// otherwise end inside a sector, which the next tile's run fills only some 20 us later: at 2^28
// keys L2 had written the half-filled line back and read it again by then (Nsight Compute, H100,
// 100% distinct: the first pass read 2.2 GB and wrote 2.96 for 1.07 and 2.15 of keys and pairs).
template <class T, class Index, unsigned Threads, unsigned Tile>
struct scatter_shared {
  static constexpr unsigned parts = distinct_tuning::max_buckets;
  static constexpr unsigned granule = 32 / (sizeof(T) < sizeof(Index) ? sizeof(T) : sizeof(Index));
  static constexpr unsigned staged = Tile + parts * (granule - 1);  // a tile's keys and every part's carry
  // Places in the output: 32-bit where the indices have 4 bytes (fewer than 2^32 keys), so that
  // a staged item's address is one multiply-add (the first scatter at 2^24 keys: ~8 instructions
  // of 64-bit address arithmetic an item before).
  using place_t = stdx::conditional_t<sizeof(Index) == 4, unsigned, unsigned long long>;
  place_t cursor[parts];  // the part's next place in the output: its carry's first
  place_t to[parts];      // the output place of staged item `at` of the part: to + at (modulo place_t)
  unsigned long long warp_sums[Threads / 32];
  T staged_keys[staged];
  Index staged_index[staged];
  T carry_keys[parts * granule];
  Index carry_index[parts * granule];
  unsigned counts[parts];      // the tile's keys of the part, then where they are staged
  unsigned part_first[parts];  // the part's first staged place (its carry's)
  unsigned flushed[parts];     // of its staged keys, those written now (the rest: its carry)
  unsigned carried[parts];     // keys in its carry
  unsigned char staged_part[staged];
};

// A scatter tile's keys (key_at(i)) and their indices (index_at(i)): items base + k x Threads
// + thread (before `end`; past it, base's again).
template <unsigned Threads, unsigned Items, class KeyAt, class IndexAt, class T, class Index>
TILEKIT_HD void load_tile(count_t base, count_t end, unsigned thread, KeyAt key_at, IndexAt index_at, T (&key)[Items],
                          Index (&item)[Items]) {
  TILEKIT_UNROLL
  for (unsigned k = 0; k < Items; ++k) {
    const count_t i = base + count_t(k) * Threads + thread, at = i < end ? i : base;
    key[k] = key_at(at);
    item[k] = static_cast<Index>(index_at(at));
  }
}

// Items base .. base + Threads x Items (before `end`; key, item: load_tile's) to the parts
// given by part_of(key) of out_keys / out_index: each part's carry and then the tile's keys of
// the part are staged in shared memory, part by part, then written in order at cursor[part] up
// to the last whole granule (scatter_shared); what is left is the part's carry. scatter_flush
// writes the carries after the block's last tile. Once staged, key and item take the next
// tile's (base + Threads x Items, if before `end`): their loads are in flight while this tile
// goes out (the tile's first use of its keys waited on their loads for 11% of the stall samples,
// with the next tile asked of L2 ahead: Nsight Compute, H100, 2^24 keys, 100% distinct).
template <class Backend, unsigned Threads, unsigned Items, class Block, class KeyAt, class IndexAt, class PartOf, class Shared, class T,
          class Index>
TILEKIT_HD void scatter_tile(const Block& block, count_t base, count_t end, unsigned parts, KeyAt key_at, IndexAt index_at,
                             PartOf part_of, Shared& sh, T* out_keys, Index* out_index, T (&key)[Items], Index (&item)[Items]) {
  constexpr unsigned granule = Shared::granule;
  auto warp = tilekit::tiled_partition<32>(block);
  const unsigned t = block.thread_rank();
  unsigned where[Items] = {};  // the key's part (low 8 bits), then its rank among the tile's keys of the part
  // (sh.counts zero: by the caller before the first tile, by the last phase of the one before)
  TILEKIT_UNROLL
  for (unsigned k = 0; k < Items; ++k) {
    const unsigned part = part_of(key[k]);
    if (base + count_t(k) * Threads + t < end) where[k] = part | Backend::atomic_add(sh.counts + part, 1u) << 8;
  }
  block.sync();
  const unsigned carried = t < parts ? sh.carried[t] : 0u;
  const unsigned mine = t < parts ? carried + sh.counts[t] : 0u;  // the part's staged keys
  const unsigned inclusive = tilekit::inclusive_scan(warp, mine, plus{});
  if (warp.thread_rank() == 31) sh.warp_sums[t / 32] = inclusive;
  block.sync();
  unsigned before = 0, staged = 0;
  for (unsigned w = 0; w < Threads / 32; ++w) {
    before += w < t / 32 ? unsigned(sh.warp_sums[w]) : 0u;
    staged += unsigned(sh.warp_sums[w]);
  }
  if (t < parts) {
    const unsigned first = before + inclusive - mine;  // the part's first staged place
    using place_t = typename Shared::place_t;
    const place_t at = sh.cursor[t], upto = (at + mine) / granule * granule;
    const unsigned flushed = upto > at ? unsigned(upto - at) : 0u;
    for (unsigned j = 0; j < carried; ++j) {
      sh.staged_keys[first + j] = sh.carry_keys[t * granule + j];
      sh.staged_index[first + j] = sh.carry_index[t * granule + j];
      sh.staged_part[first + j] = static_cast<unsigned char>(t);
    }
    sh.part_first[t] = first;
    sh.counts[t] = first + carried;
    sh.to[t] = at - first;
    sh.flushed[t] = flushed;
    sh.cursor[t] = at + flushed;
    sh.carried[t] = mine - flushed;
  }
  block.sync();
  TILEKIT_UNROLL
  for (unsigned k = 0; k < Items; ++k) {
    const count_t i = base + count_t(k) * Threads + t;
    if (i < end) {
      const unsigned at = sh.counts[where[k] & 0xFFu] + (where[k] >> 8);
      sh.staged_keys[at] = key[k];
      sh.staged_index[at] = item[k];
      sh.staged_part[at] = static_cast<unsigned char>(where[k]);
    }
  }
  const count_t next = base + count_t(Threads) * Items;
  if (next < end) load_tile<Threads, Items>(next, end, t, key_at, index_at, key, item);
  block.sync();
  if (t < parts) sh.counts[t] = 0;  // (for the next tile; read no more in this one)
  for (unsigned at = t; at < staged; at += Threads) {
    const unsigned part = sh.staged_part[at], r = at - sh.part_first[part];
    if (r < sh.flushed[part]) {
      const typename Shared::place_t p = sh.to[part] + at;
      out_keys[p] = sh.staged_keys[at];
      out_index[p] = sh.staged_index[at];
    } else {
      sh.carry_keys[part * granule + r - sh.flushed[part]] = sh.staged_keys[at];
      sh.carry_index[part * granule + r - sh.flushed[part]] = sh.staged_index[at];
    }
  }
  block.sync();
}

// After a block's last scatter_tile: each part's carry to its place.
template <class Block, class Shared, class T, class Index>
TILEKIT_HD void scatter_flush(const Block& block, unsigned parts, const Shared& sh, T* out_keys, Index* out_index) {
  const unsigned t = block.thread_rank();
  if (t >= parts) return;
  for (unsigned j = 0; j < sh.carried[t]; ++j) {
    out_keys[sh.cursor[t] + j] = sh.carry_keys[t * Shared::granule + j];
    out_index[sh.cursor[t] + j] = sh.carry_index[t * Shared::granule + j];
  }
}

template <class Keys, bool Packed>
struct partition_scatter : partition_pass<Keys, Packed> {  // partition_count's grid
  using pass = partition_pass<Keys, Packed>;
  using T = typename pass::T;
  using index_t = typename pass::index_t;
  static constexpr unsigned Threads = pass::Threads, MinBlocksPerSM = pass::MinBlocksPerSM, Items = pass::Items, Tile = pass::Tile;
  using shared_t = scatter_shared<T, index_t, Threads, Tile>;
  static constexpr std::size_t shared_bytes = sizeof(shared_t);
  const count_t* places;  // partition_count's counts, scanned
  T* out_keys;
  index_t* out_index;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(this->flags) == 0) return;
    shared_t& sh = ctx.template shared<shared_t>();
    const unsigned t = block.thread_rank(), parts = 1u << this->part_bits;
    count_t segment, rank, first, end;
    this->slice(count_t(ctx.grid().block_rank()), segment, rank, first, end);
    if (t < parts) {
      sh.cursor[t] = static_cast<typename shared_t::place_t>(places[(segment * parts + t) * this->blocks_per_segment + rank]);
      sh.carried[t] = 0;
      sh.counts[t] = 0;
    }
    const Keys keys = this->keys;
    const index_t* index = this->index;
    const auto key_at = [&](count_t i) { return streamed(keys, i); };
    const auto index_at = [&](count_t i) { return index != nullptr ? count_t(streamed(index, i)) : i; };
    T key[Items];
    index_t item[Items];  // the key's index, loaded with it (level 2 reads them)
    if (first < end) load_tile<Threads, Items>(first, end, t, key_at, index_at, key, item);
    block.sync();
    for (count_t base = first; base < end; base += Tile) {
      // The next tile asked of L2 now; scatter_tile loads it once this one is staged. (Asking for
      // the tile after it instead: 1-5% slower at 2^24-2^28 keys and more DRAM reads, H100,
      // perf/results/2026-12-05-h100-15-distinct.)
      if constexpr (stdx::is_pointer<Keys>::value) {
        const count_t next = base + Tile, next_end = end - next < count_t(Tile) ? end : next + Tile;
        prefetch_items<be>(keys, next, next_end, t, Threads);
        if (index != nullptr) prefetch_items<be>(index, next, next_end, t, Threads);
      }
      scatter_tile<be, Threads, Items>(block, base, end, parts, key_at, index_at, [&](const T& k) { return this->part_of(k); }, sh,
                                       out_keys, out_index, key, item);
    }
    scatter_flush(block, parts, sh, out_keys, out_index);
  }
};

// piece_dedup's set where keys have 4 bytes and indices fewer (Packed), in shared memory: each
// slot's stored key (key_set's ~bits; 0: free) and the ~lowest index of its key (0 until taken;
// an index below 2^32 - 1 makes it nonzero) in two arrays of 32-bit words. A probe reads a group
// of 4 keys in one 16-byte load; the claim and the lowest index take native 32-bit shared atomics,
// the home a 32-bit hash.
// (key_set's 64-bit slots took a compare-and-swap loop for the index's maximum, and ptxas's probe
// step was ~144 instructions: piece_dedup ran at ~10 warp instructions a key, Nsight Compute,
// 2^24 int32 keys, 50% distinct, 2026-12-05. Measured and not kept, H100, 2026-12-05: groups of 8
// (two loads), or a lost claim moving on to the group's next free slot in the same step: more
// instructions for the masks of deciding slots than the rounds they saved, 3-12% slower;
// perf/results/2026-12-05-h100-15-distinct.)
struct piece_set {
  static constexpr unsigned group = 4;  // keys a probe reads (16 bytes)
  using keys_of_group = vector_of<unsigned, group>;
  unsigned* keys;    // allocated(capacity): keys[capacity] is the slot of the key stored as 0, alone
  unsigned* lowest;  // as many
  unsigned mask;     // capacity - 1 (a power of two, at least group)
  TILEKIT_HD static constexpr unsigned long long allocated(unsigned long long capacity) { return capacity + group; }
  // (mix32 of the stored key; hash_bits hashes it xor a constant)
  TILEKIT_HD unsigned home(unsigned s) const { return s == 0 ? mask + 1 : mix32(s) & mask & ~(group - 1); }
  // The keys of group `at` (group-aligned; one 16-byte load).
  TILEKIT_HD keys_of_group read_group(unsigned at) const { return load_vector<unsigned, group>(keys + at); }
  // One probe of stored key s (index word mine = ~index) in the group `at` (group-aligned),
  // whose keys the caller read as v (read_group). True once the key has its slot: the first
  // slot of the group that holds s or is free decides (no deletions), a free one claimed by a
  // compare-and-swap. Else `at` is the group to read next: the next one, or the same where
  // another key took the free slot first (it now holds that key, so a new read moves on).
  // s == 0 needs no case of its own: its group (mask + 1, past the probed slots) stays 0, so its
  // first slot decides, and the compare-and-swap of 0 for 0 there changes nothing.
  // later(j) as key_set::insert_step's: for an index j (here its word ~j) that is not its key's lowest.
  template <class Backend, class Later>
  TILEKIT_HD bool step(unsigned s, unsigned mine, unsigned& at, const keys_of_group& v, Later later) const {
    bool decides[group];  // the slot holds s or is free
    TILEKIT_UNROLL
    for (unsigned j = 0; j < group; ++j) decides[j] = v.item[j] == s || v.item[j] == 0;
    if (!(decides[0] || decides[1] || decides[2] || decides[3])) {
      at = (at + group) & mask;
      return false;
    }
    static_assert(group == 4, "piece_set::step: the first deciding slot of 4");
    const unsigned j = decides[0] ? 0u : decides[1] ? 1u : decides[2] ? 2u : 3u, slot = at + j;
    const unsigned seen = decides[0] ? v.item[0] : decides[1] ? v.item[1] : decides[2] ? v.item[2] : v.item[3];
    if (seen == 0) {
      const unsigned was = Backend::atomic_cas(keys + slot, 0u, s);
      if (was != 0 && was != s) return false;
    }
    const unsigned before = Backend::atomic_max(lowest + slot, mine);
    if (before != 0) later(before < mine ? before : mine);  // the higher index: the lower word
    return true;
  }
};

// Each block takes pieces (grid-stride: distinct_tuning::dedup_waves waves of blocks): the
// piece's keys into a set in shared memory, its slots' indices marked in the bitmap. A piece
// with more keys than the set holds is done again in 2, 4, ... parts, by more bits of the hash.
// The keys and indices stream past (evict-first loads); the bitmap's lines are kept in L2
// ahead of them (atomic_or_kept_in_l2; gather_marked gives them their normal priority back).
// H100, 2^28 int32 keys, 100% distinct (Nsight Compute): with plain loads and ors, and the next
// piece asked of L2 first, half-marked bitmap lines went back to DRAM and were read again:
// 4.96 GB read and 5.49 GB written by this kernel, 7.2 ms; with these, 2.41 and 0.83 GB, 4.8 ms
// (perf/results/2026-12-05-h100-14-distinct).
template <class T, bool Packed>
struct piece_dedup {
  // (512 threads, 2 blocks a multiprocessor: 1.5-3.5% slower at 2^24-2^28, H100,
  // perf/results/2026-12-05-h100-15-distinct.)
  static constexpr unsigned Threads = 256, MinBlocksPerSM = 3, Items = 4;
  using index_t = stdx::conditional_t<Packed, unsigned, count_t>;
  using set_t = key_set<T, Packed>;
  static constexpr unsigned long long max_set_slots = distinct_tuning::bucket_set_bytes / (8 * set_t::words);
  static constexpr std::size_t set_bytes = std::size_t(set_t::allocated(max_set_slots) * set_t::words * 8);
  static_assert(!Packed || piece_set::allocated(max_set_slots) * 8 == set_bytes, "piece_dedup: piece_set takes key_set's bytes");
  static constexpr std::size_t shared_bytes = set_bytes + sizeof(unsigned long long);
  const unsigned* flags;  // as partition_pass's
  const count_t* places;  // level 2's scanned counts: piece q starts at places[q x blocks_per_piece]
  count_t blocks_per_piece, piece_count, n;  // piece_count: of every bucket together
  unsigned used_bits;  // the hash bits of the bucket and the piece
  const T* keys;
  const index_t* index;
  unsigned* bits;
  unsigned long long set_slots;  // <= max_set_slots (tests take fewer)
  const unsigned long long* sample;  // partition_count's: marks_later(sample) says which indices to mark

  // The set of a piece: piece_set where it applies (Packed: 4-byte keys, 4-byte indices), else
  // key_set; either in the same bytes (2 words of 32 bits, or one of 64, a slot).
  using piece_set_t = stdx::conditional_t<Packed, piece_set, set_t>;
  static_assert(!Packed || sizeof(T) == 4, "piece_dedup: packed keys have 4 bytes");

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(flags) == 0) return;
    unsigned char* shared = ctx.template shared_array<unsigned char>(shared_bytes);
    unsigned long long* slots = reinterpret_cast<unsigned long long*>(shared);
    unsigned long long* full = reinterpret_cast<unsigned long long*>(shared + set_bytes);  // a key found no room
    const unsigned t = block.thread_rank();
    const count_t set_words = count_t(set_t::allocated(set_slots) * set_t::words);
    for (count_t w = t; w < set_words; w += Threads) slots[w] = 0;
    if (t == 0) *full = 0;
    block.sync();
    piece_set_t set;
    if constexpr (Packed) {
      unsigned* piece_keys = reinterpret_cast<unsigned*>(slots);
      set = piece_set{piece_keys, piece_keys + piece_set::allocated(set_slots), unsigned(set_slots - 1)};
    } else {
      set = set_t{slots, set_slots - 1};
    }
    // (Two instantiations: with the lowest indices marked, the atomic max's old value goes unused:
    // 2-3% of the call at 2^24-2^28 keys, 50% distinct, H100, when it was taken in both.)
    if (marks_later(sample))
      dedup_pieces<be, true>(ctx, block, set, full);
    else
      dedup_pieces<be, false>(ctx, block, set, full);
  }
  template <class be, bool Later, class Ctx, class Block>
  TILEKIT_HD void dedup_pieces(Ctx& ctx, const Block& block, const piece_set_t& set, unsigned long long* full) const {
    const count_t blocks = count_t(ctx.grid().num_blocks());
    for (count_t q = count_t(ctx.grid().block_rank()); q < piece_count; q += blocks)
      dedup_piece<be, Later>(block, set, full, places[q * blocks_per_piece], (q + 1 < piece_count ? places[(q + 1) * blocks_per_piece] : n));
  }
  // Bit j of the bitmap (kept in L2: see above); an index of a part done before a split may be
  // marked again, so an or.
  template <class be>
  TILEKIT_HD void mark(count_t j) const { be::atomic_or_kept_in_l2(bits + (j >> 5), 1u << (j & 31)); }
  // Packed: the keys and indices at a .. a + 3 (a a multiple of 4): one 16-byte load each, but
  // none past n.
  TILEKIT_HD void load_quad(count_t a, vector_of<unsigned, 4>& kv, vector_of<unsigned, 4>& iv) const {
    const unsigned* key_words = reinterpret_cast<const unsigned*>(keys);
    if (a + 4 <= n) {
      kv = streamed_vector(key_words + a);
      iv = streamed_vector(index + a);
    } else {
      TILEKIT_UNROLL
      for (unsigned k = 0; k < 4; ++k) {
        const count_t at = a + k < n ? a + k : n - 1;
        kv.item[k] = streamed(key_words, at);
        iv.item[k] = streamed(index, at);
      }
    }
  }
  // Packed: those of the keys kv at a .. a + 3 (indices iv; load_quad) that lie in [first, end)
  // and have `part` (split_bits of their hash past used_bits) into the set; no_room where a key
  // probed every slot without finding itself or room.
  // Later: the indices that are not their key's lowest marked as the probes find them.
  template <class be, bool Later>
  TILEKIT_HD void packed_trip(const piece_set& set, count_t a, const vector_of<unsigned, 4>& kv, const vector_of<unsigned, 4>& iv,
                              count_t first, count_t end, unsigned split_bits, unsigned part, bool& no_room) const {
    unsigned s[Items], mine[Items], at[Items];
    bool live[Items];
    TILEKIT_UNROLL
    for (unsigned k = 0; k < Items; ++k) {
      live[k] = a + k >= first && a + k < end;
      if (split_bits != 0) {
        T key;
        std::memcpy(&key, &kv.item[k], sizeof(T));
        live[k] = live[k] && hash_bits<T, Packed>(key, used_bits, split_bits) == part;
      }
      s[k] = ~kv.item[k];    // key_set's stored form
      mine[k] = ~iv.item[k];  // (an index below 2^32 - 1: never 0)
      at[k] = set.home(s[k]);
    }
    piece_set::keys_of_group seen[Items];
    if (!probe_rounds(
            live, set_slots, piece_set::group, [&](unsigned k) { seen[k] = set.read_group(at[k]); },
            [&](unsigned k) {
              return !set.template step<be>(s[k], mine[k], at[k], seen[k], [&](unsigned word) {
                if constexpr (Later) mark<be>(count_t(~word));
              });
            }))
      no_room = true;
  }

  // Group w of the set's slots (one 16-byte load of their indices): each taken slot's lowest
  // index marked in the bitmap unless `skip` (the part is done again; or the bitmap marks the
  // later indices), and the slots emptied.
  template <class be>
  TILEKIT_HD void mark_and_clear(const piece_set& set, count_t w, bool skip) const {
    constexpr unsigned group = piece_set::group;
    if (!skip) {
      const auto lowest = load_vector<unsigned, group>(set.lowest + group * w);
      TILEKIT_UNROLL
      for (unsigned j = 0; j < group; ++j)
        if (lowest.item[j] != 0) mark<be>(count_t(~lowest.item[j]));
    }
    store_vector(set.keys + group * w, vector_of<unsigned, group>{});
    store_vector(set.lowest + group * w, vector_of<unsigned, group>{});
  }
  template <class be>
  TILEKIT_HD void mark_and_clear(const set_t& set, count_t w, bool skip) const {  // w: a word of the slots
    const unsigned long long word = set.slots[w];
    if (word == 0) return;
    if (!skip && w % set_t::words == set_t::words - 1)  // a taken slot's index word: ~index, never 0
      mark<be>(set_t::index_of_word(word));
    set.slots[w] = 0;
  }

  // Keys [first, end) into set (empty; left empty), their lowest indices marked (Later: the
  // others; those found in a part that is done again are marked again).
  template <class be, bool Later, class Block>
  TILEKIT_HD void dedup_piece(const Block& block, const piece_set_t& set, unsigned long long* full, count_t first,
                              count_t end) const {
    const unsigned t = block.thread_rank();
    auto warp = tilekit::tiled_partition<32>(block);
    const count_t items = end - first;
    // mark_and_clear's units: piece_set: groups of its slots; key_set: the 64-bit words of its slots
    const count_t set_words = Packed ? count_t(piece_set::allocated(set_slots) / piece_set::group)
                                     : count_t(set_t::allocated(set_slots) * set_t::words);
    for (unsigned split_bits = 0; items > 0; ++split_bits) {
      be::require(used_bits + split_bits <= hash_bits_in_all<Packed>, set_t::full);  // (the hash's bits that choose pieces)
      bool over = false;
      for (unsigned part = 0; part < (1u << split_bits) && !over; ++part) {
        if constexpr (Packed) {
          static_assert(Items == 4, "piece_dedup: a thread's keys of a trip are one 16-byte load");
          // (The next trip's keys read before this trip's probes: no faster, H100,
          // perf/results/2026-12-05-h100-15-distinct.)
          for (count_t base = first & ~count_t(Items - 1); base < end; base += Threads * count_t(Items)) {
            const count_t a = base + count_t(Items) * t;
            vector_of<unsigned, Items> kv, iv;
            load_quad(a, kv, iv);
            bool no_room = false;
            packed_trip<be, Later>(set, a, kv, iv, first, end, split_bits, part, no_room);
            if (no_room) *full = 1;
            warp.sync();  // (below)
          }
        } else {
          for (count_t base = 0; base < items; base += Threads * count_t(Items)) {
            T key[Items];
            count_t item[Items];  // the key's index in the input
            bool live[Items];
            TILEKIT_UNROLL
            for (unsigned k = 0; k < Items; ++k) {
              const count_t j = base + count_t(k) * Threads + t;
              const count_t at = first + (j < items ? j : base);
              key[k] = streamed(keys, at);
              item[k] = count_t(streamed(index, at));
              live[k] = j < items && hash_bits<T, Packed>(key[k], used_bits, split_bits) == part;
            }
            bool no_room = false;
            detail::insert_keys<be>(set, key, item, live, set_slots, no_room, [&](count_t j) {
              if constexpr (Later) mark<be>(j);
            });
            if (no_room) *full = 1;
            // The warp together again before its next loads: lanes whose keys were placed in fewer
            // rounds ran ahead into the next trip, and the warp ran every trip twice at half width
            // (Nsight Compute, H100, 2^24 keys, 50% distinct: 8.8 trips a piece of 4 at 16 lanes).
            warp.sync();
          }
        }
        block.sync();
        over = *full != 0;
        for (count_t w = t; w < set_words; w += Threads) mark_and_clear<be>(set, w, over || Later);
        block.sync();
      }
      if (!over) return;
      if (t == 0) *full = 0;
      block.sync();
    }
  }
};

// Bit i of `bits` (zeroed) for every index i a slot of the set keeps, unless flags[0] is
// set (the set was given up: piece_dedup marks them) or all_distinct(taken, n). Each index
// is kept by one slot at most, so adding the bit sets it.
template <class T, bool Packed>
struct mark_first_occurrences {
  static constexpr unsigned Threads = 256;
  const unsigned* flags;
  key_set<T, Packed> set;
  unsigned* bits;
  const unsigned long long* sized_mask;  // the set's mask as the insert sized it (null: set.mask)
  const unsigned* taken;                 // all_distinct's
  count_t n;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(flags) != 0 || all_distinct(taken, n)) return;
    key_set<T, Packed> sized = set;
    if (sized_mask != nullptr) sized.mask = *sized_mask;
    const count_t threads = count_t(ctx.grid().num_blocks()) * Threads;
    for (count_t at = count_t(ctx.grid().block_rank()) * Threads + block.thread_rank(); at <= count_t(sized.mask + 1); at += threads)
      if (sized.occupied(at)) {
        const count_t i = sized.index_at(at);
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
// A group of few marked items is copied lane by lane instead (each lane its own row's).
struct count_marked {
  static constexpr unsigned Threads = 256;
  const unsigned* bits;
  count_t words;
  count_t* counts;  // per group of 32 words
  count_t n;
  const unsigned long long* sample;  // marks_later's (null: the marks are the kept items)
  const unsigned* taken;             // all_distinct's

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto warp = tilekit::tiled_partition<32>(block);
    const count_t groups = (words + 31) / 32;
    const count_t warps = count_t(ctx.grid().num_blocks()) * (Threads / 32);
    const bool later = marks_later(sample) || all_distinct(taken, n);
    for (count_t g = count_t(ctx.grid().block_rank()) * (Threads / 32) + block.thread_rank() / 32; g < groups; g += warps) {
      const count_t w = 32 * g + warp.thread_rank();
      const unsigned total = tilekit::reduce(warp, w < words ? popc(kept_word(bits, w, n, later)) : 0u, plus{});
      if (warp.thread_rank() == 0) counts[g] = count_t(total);
    }
  }
};

template <class In, class Out, class NumOut>
struct gather_marked {
  static constexpr unsigned Threads = 256, MinBlocksPerSM = 4;
  using T = value_of<In>;
  static constexpr unsigned Rows = sizeof(T) <= 4 ? 32 : 16;  // rows whose loads are in flight at once (registers)
  // A group of at most this many marked items is copied lane by lane (each lane its row's
  // marked items, Few loads in flight): the row by row copy costs ~15 instructions a row however
  // few of its items are marked (at 1% distinct, ~10 items a group of 1024).
  static constexpr unsigned SparseMost = 64, Few = 4;
  In in;
  count_t words;
  const unsigned* bits;
  const count_t* ends;  // the inclusively scanned counts of count_marked (or unscanned: below)
  Out out;
  NumOut num_out;
  bool ends_scanned;  // false: ends holds count_marked's counts, and each warp sums those up to its group
  count_t n;
  const unsigned long long* sample;  // as count_marked's
  const unsigned* taken;             // as count_marked's

  // The marked items up to the end of group g (warp-collective).
  template <class Warp>
  TILEKIT_HD count_t marked_to_end_of(const Warp& warp, count_t g) const {
    if (ends_scanned) return ends[g];
    count_t sum = 0;
    for (count_t b = 0; b <= g; b += 32)
      if (b + warp.thread_rank() <= g) sum += ends[b + warp.thread_rank()];
    return tilekit::reduce(warp, sum, plus{});
  }

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    auto warp = tilekit::tiled_partition<32>(block);
    const unsigned lane = warp.thread_rank();
    const count_t groups = (words + 31) / 32;
    const count_t warps = count_t(ctx.grid().num_blocks()) * (Threads / 32);
    const count_t first = count_t(ctx.grid().block_rank()) * (Threads / 32) + block.thread_rank() / 32;
    if (first == 0) {
      const count_t all = groups > 0 ? marked_to_end_of(warp, groups - 1) : 0;
      if (lane == 0) *num_out = all;
    }
    const bool later = marks_later(sample) || all_distinct(taken, n);
    for (count_t g = first; g < groups; g += warps) {
      const unsigned word = 32 * g + lane < words ? kept_word(bits, 32 * g + lane, n, later) : 0u;
      // The last read of the bitmap: lines piece_dedup kept in L2 get their normal priority back
      // (the group's 128 bytes are one line or two: its first and last words')
      if ((lane == 0 || lane == 31) && 32 * g + lane < words) be::keep_in_l2_no_more(bits + 32 * g + lane);
      const unsigned before = tilekit::exclusive_scan(warp, popc(word));  // marked items of the rows above
      const unsigned total = warp.shfl(before + popc(word), 31);
      const count_t start = marked_to_end_of(warp, g) - count_t(total);
      if (total <= SparseMost) {  // the whole warp alike
        unsigned left = word;
        count_t to = start + before;
        while (left != 0) {
          T item[Few];
          unsigned got = 0;
          TILEKIT_UNROLL
          for (unsigned k = 0; k < Few; ++k)
            if (left != 0) {
              item[k] = in[1024 * g + 32 * count_t(lane) + lowest_bit(left)];
              left &= left - 1u;
              got = k + 1;
            }
          TILEKIT_UNROLL
          for (unsigned k = 0; k < Few; ++k)
            if (k < got) out[to + k] = item[k];
          to += got;
        }
        continue;
      }
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

// Calls of up to distinct_tuning::fused_items keys (the only set's path): that path's kernels as
// phases of one cooperative launch, a grid barrier between them, where each launch of their own
// cost more than its work: the flags, bitmap and set zeroed; the keys inserted; the lowest indices
// marked; the marks of each 1024 items counted; the marked items gathered, each warp summing the
// counts up to its group (at most 64 of them at 2^16 keys; a scan by block 0 cost a phase and a
// grid barrier more, 3-6% of the call at 2^10-2^16 on an H100; past a few thousand groups the
// sums would cost more than that). (On an H100 the six launches took 33 us for 2^10 keys, all
// distinct; 41 us for 2^16.)
template <class In, class Out, class NumOut, bool Packed>
struct distinct_fused {
  // Three blocks a multiprocessor, as the insert's own launch: more probes in flight (one block:
  // slower than the separate launches past 2^16 keys; distinct_tuning::fused_items).
  static constexpr unsigned Threads = 256, MinBlocksPerSM = 3;
  using T = value_of<In>;
  distinct_insert_body<In, Packed> insert;
  mark_first_occurrences<T, Packed> mark;
  count_marked count;
  gather_marked<In, Out, NumOut> gather;
  unsigned* zeroed;     // the flags, the bitmap and the set, contiguous
  count_t zero_words;   // 4-byte words of them

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto grid = ctx.grid();
    auto block = ctx.template block<Threads>();
    static_assert(decltype(insert)::Threads == Threads && decltype(mark)::Threads == Threads && count_marked::Threads == Threads &&
                      decltype(gather)::Threads == Threads,
                  "distinct_fused: the phases' bodies run on its blocks");
    const count_t threads = count_t(grid.num_blocks()) * Threads, rank = count_t(grid.block_rank()) * Threads + block.thread_rank();
    for (count_t w = rank; w < zero_words; w += threads) zeroed[w] = 0;
    grid.sync();
    insert(ctx);
    grid.sync();
    mark(ctx);
    grid.sync();
    count(ctx);
    grid.sync();
    gather(ctx);
  }
};

template <class In>
struct run_heads {  // 1 where a run of equal items begins
  In in;
  using value_type = count_t;
  static constexpr bool counts_items = true;
  TILEKIT_HD count_t operator[](count_t i) const { return i == 0 || !(in[i] == in[i - 1]) ? 1 : 0; }
};

}  // namespace detail

namespace detail {
// small_set_bytes: the first set's most bytes (distinct_tuning::small_set_bytes), past which
// the keys go to buckets where too many are distinct; bucket_items, bucket_set_slots: the
// keys of a bucket, about, and the slots of a bucket's sets (distinct_tuning's). Tests pass
// fewer of all three, and fused_items 0 for the only set's kernels one launch each.
template <bool Packed, class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type distinct_with(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            count_t n, Out out, NumOut num_out,
                                            unsigned long long small_set_bytes = distinct_tuning::small_set_bytes,
                                            unsigned long long bucket_items = distinct_tuning::bucket_items,
                                            unsigned long long bucket_set_slots = piece_dedup<value_of<In>, Packed>::max_set_slots,
                                            unsigned long long estimate_items = distinct_tuning::estimate_items,
                                            long long fused_items = distinct_tuning::fused_items) {
  using T = value_of<In>;
  using set_t = key_set<T, Packed>;
  using dedup_t = piece_dedup<T, Packed>;
  using index_t = typename dedup_t::index_t;
  using count1_t = partition_count<In, Packed>;
  using scatter1_t = partition_scatter<In, Packed>;
  using count2_t = partition_count<const T*, Packed>;
  using scatter2_t = partition_scatter<const T*, Packed>;
  const count_t items = n > 0 ? n : 0;
  const unsigned long long capacity = set_capacity(items);  // a set for every key
  unsigned long long small = 64;                            // the first set's slots
  while (small * 2 * set_t::words * 8 <= small_set_bytes && small < capacity) small *= 2;
  // else the first set is the only one, and cannot fill
  const bool by_buckets = small < capacity || capacity * set_t::words * 8 > distinct_tuning::only_set_bytes;
  const unsigned long long set_slots = bucket_set_slots < dedup_t::max_set_slots ? bucket_set_slots : dedup_t::max_set_slots;
  // Buckets of about bucket_items keys, pieces of about half a set's slots (a bucket of more
  // keys than expected, or a piece past its set, is split further in piece_dedup). With
  // balanced_buckets, no more buckets than pieces a bucket where the pieces allow: the first
  // pass's scatter runs are longer (distinct_tuning).
  const unsigned long long half_set = set_slots / 2, most = distinct_tuning::max_buckets;
  unsigned buckets = 1, pieces = 1;
  while (buckets < distinct_tuning::first_level_buckets && static_cast<unsigned long long>(items) > buckets * bucket_items) buckets *= 2;
  if (distinct_tuning::balanced_buckets) {
    unsigned long long all_pieces = 1, balanced = 1;
    while (all_pieces < most * most && static_cast<unsigned long long>(items) > all_pieces * half_set) all_pieces *= 2;
    while (balanced * balanced < all_pieces) balanced *= 2;  // (at most `most`: all_pieces <= most^2)
    if (balanced < buckets) buckets = unsigned(balanced);
  }
  while (pieces < most && static_cast<unsigned long long>(items) > buckets * pieces * half_set) pieces *= 2;
  const unsigned sms = launcher.sm_count() > 0 ? launcher.sm_count() : 1;
  const count_t resident = count_t(sms) * scatter1_t::MinBlocksPerSM;  // a wave of the partition's blocks
  const count_t per_bucket = resident / buckets > 1 ? resident / buckets : 1;  // level 2's blocks a bucket
  const count_t words = (items + 31) / 32, groups = (words + 31) / 32;  // of the bitmap; of 1024 items
  const count_t places1_count = by_buckets ? count_t(buckets) * resident : 0;
  const count_t places2_count = by_buckets ? count_t(buckets) * pieces * per_bucket : 0;
  // What the first launch zeroes comes first: the flags, the sketch, the bitmap, the places, and
  // the first set (where there is no sketch; else size_first_set zeroes what it sizes).
  temp_carver carve(temp);
  unsigned* flags = carve.take<unsigned>(2);  // the first set is full; the keys it took
  const bool sketched = by_buckets && estimate_items > 0;
  unsigned* sketch = carve.take<unsigned>(sketched ? distinct_sketch::registers : 0);
  unsigned long long* sized_mask = carve.take<unsigned long long>(sketched ? 1 : 0);
  unsigned* bits = carve.take<unsigned>(std::size_t(words));
  unsigned long long* sample = carve.take<unsigned long long>(by_buckets ? 2 : 0);  // marks_later's
  unsigned* sample_bits = carve.take<unsigned>(by_buckets ? std::size_t(1) << (sample_bits_log - 5) : 0);
  count_t* places1 = carve.take<count_t>(std::size_t(places1_count));
  count_t* places2 = carve.take<count_t>(std::size_t(places2_count));
  const bool fused = n > 0 && !by_buckets && n <= fused_items;  // one cooperative launch (below)
  // Slot homes where every key is inserted at once (the fused launch: a trip or three a thread);
  // group homes elsewhere (key_set::home).
  const set_t first{carve.take<unsigned long long>(set_t::allocated(small) * set_t::words), small - 1, fused};
  count_t* ends = carve.take<count_t>(std::size_t(groups));
  std::size_t scan_bytes = 0, scan1_bytes = 0, scan2_bytes = 0;
  device_scan<true>(launcher, nullptr, scan_bytes, ends, groups, ends, plus{}, count_t(0), false);
  void* scan_temp = carve.take<unsigned char>(scan_bytes);
  device_scan<false>(launcher, nullptr, scan1_bytes, places1, places1_count, places1, plus{}, count_t(0), true);
  void* scan1_temp = carve.take<unsigned char>(by_buckets ? scan1_bytes : 0);
  device_scan<false>(launcher, nullptr, scan2_bytes, places2, places2_count, places2, plus{}, count_t(0), true);
  void* scan2_temp = carve.take<unsigned char>(by_buckets ? scan2_bytes : 0);
  const std::size_t by_bucket = by_buckets ? std::size_t(items) : 0;  // the keys with their indices, by bucket, then by piece
  T* keys1 = carve.take<T>(by_bucket);
  index_t* index1 = carve.take<index_t>(by_bucket);
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
  // The kernels' bodies (the fused launch runs the same ones as phases); what the first launch
  // zeroes: the flags up to the first set (before_set), or with the set (with_set).
  using insert_t = distinct_insert_body<In, Packed>;
  using mark_t = mark_first_occurrences<T, Packed>;
  using gather_t = gather_marked<In, Out, NumOut>;  // n == 0 too: it writes *num_out
  const unsigned long long first_probes = by_buckets && distinct_tuning::max_probes < small ? distinct_tuning::max_probes : small;
  const insert_pass kind = by_buckets ? insert_pass::first_of_buckets : insert_pass::only_set;
  const insert_t insert{in, n, first, flags, first_probes, kind, sketched ? sized_mask : nullptr};
  const unsigned* taken = !by_buckets && items > 0 && items < count_t(1) << 32 ? flags + 1 : nullptr;  // the only set's claims
  const mark_t mark{flags, first, bits, sketched ? sized_mask : nullptr, taken, n};
  const unsigned long long* later_sample = by_buckets ? sample : nullptr;
  const count_marked count{bits, words, ends, n, later_sample, taken};
  const gather_t gather{in, words, bits, ends, out, num_out, true, n, later_sample, taken};
  const std::size_t before_set = std::size_t(reinterpret_cast<unsigned char*>(first.slots) - reinterpret_cast<unsigned char*>(flags)),
                    with_set = before_set + std::size_t(set_t::allocated(small) * set_t::words * 8);
  if (fused) {  // one cooperative launch
    using fused_t = distinct_fused<In, Out, NumOut, Packed>;
    gather_t summing = gather;
    summing.ends_scanned = false;
    const fused_t fused{insert, mark, count, summing, flags, count_t(with_set / 4)};  // summing: count's counts unscanned
    const count_t wanted = (n + 1023) / 1024, most = count_t(sms) * fused_t::MinBlocksPerSM;  // blocks of at least 1024 keys
    return launcher.run_cooperative(unsigned(wanted < most ? wanted : most), fused_t::Threads, fused, 0);
  }
  if (n > 0) {
    using estimate_t = distinct_estimate<In, Packed>;
    const unsigned insert_grid = grid_for(n / insert_t::Items + 1, insert_t::MinBlocksPerSM);
    if (sketched) {  // the flags to the places zeroed; the sketch; the set sized and zeroed; the insert
      using sizer_t = size_first_set<T, Packed>;
      const count_t sketched_items = static_cast<unsigned long long>(n) < estimate_items ? n : count_t(estimate_items);
      const estimate_t estimate{in, sketched_items, sketch};
      // Given up where the first keys alone are 5% more than the set takes before it is given up
      // (the sketch's error is about 3%). A set that fills costs its whole insert: on an H100,
      // 2^23 int32 keys with 50% distinct (3.6 M, the sketch's margin was a quarter) took 776 us
      // against 405 for 100% distinct, given up at once (perf/results/2026-12-05-h100-ab).
      // Or where more than n / buckets_below_repeats keys are distinct (distinct_tuning).
      const double takes = 1.05 * double(small / 8 * distinct_tuning::first_set_load_eighths),
                   few_repeats = distinct_tuning::buckets_below_repeats > 0 ? double(n) / distinct_tuning::buckets_below_repeats : takes,
                   give_up_above = few_repeats < takes ? few_repeats : takes;
      if (auto e = launcher.zero_then_run(flags, before_set, true, grid_for(sketched_items / estimate_t::Items + 1, estimate_t::MinBlocksPerSM),
                                          estimate_t::Threads, estimate, estimate_t::shared_bytes);
          e != launcher.success)
        return e;
      if (auto e = launcher.run(grid_for(count_t(set_t::allocated(small) * set_t::words) / 4, 8), sizer_t::Threads,
                                sizer_t{first, flags, sketch, give_up_above, sized_mask}, sizer_t::shared_bytes);
          e != launcher.success)
        return e;
      if (auto e = launcher.run(insert_grid, insert_t::Threads, insert); e != launcher.success) return e;
    } else if (auto e = launcher.zero_then_run(flags, with_set, true, insert_grid, insert_t::Threads, insert); e != launcher.success) {
      return e;
    }
  }
  if (n > 0 && by_buckets) {  // launched always; each kernel returns at once where the first set held every key
    const unsigned bucket_bits = highest_bit(buckets), piece_bits = highest_bit(pieces);
    const partition_pass<In, Packed> level1{in, nullptr, n, nullptr, 0, 1, resident, 0, bucket_bits, flags};
    unsigned sample_shift = 0;  // about 2^16 keys sampled
    while (sample_shift < 48 && (static_cast<unsigned long long>(n) >> sample_shift) > (1ull << 16)) ++sample_shift;
    if (auto e = launcher.run(unsigned(resident), count1_t::Threads, count1_t{level1, places1, sample_bits, sample, sample_shift},
                              count1_t::shared_bytes);
        e != launcher.success)
      return e;
    if (auto e = device_scan<false>(launcher, scan1_temp, scan1_bytes, places1, places1_count, places1, plus{}, count_t(0), true);
        e != launcher.success)
      return e;
    if (auto e = launcher.run(unsigned(resident), scatter1_t::Threads, scatter1_t{level1, places1, keys1, index1}, scatter1_t::shared_bytes);
        e != launcher.success)
      return e;
    // Level 2: bucket b (places1[b x resident] on) to its pieces.
    const partition_pass<const T*, Packed> level2{keys1, index1, n, places1, resident, count_t(buckets), per_bucket,
                                                   bucket_bits, piece_bits, flags};
    const unsigned grid2 = unsigned(count_t(buckets) * per_bucket);
    if (auto e = launcher.run(grid2, count2_t::Threads, count2_t{level2, places2, nullptr, nullptr, 0}, count2_t::shared_bytes);
        e != launcher.success)
      return e;
    if (auto e = device_scan<false>(launcher, scan2_temp, scan2_bytes, places2, places2_count, places2, plus{}, count_t(0), true);
        e != launcher.success)
      return e;
    if (auto e = launcher.run(grid2, scatter2_t::Threads, scatter2_t{level2, places2, keys2, index2}, scatter2_t::shared_bytes);
        e != launcher.success)
      return e;
    const dedup_t dedup{flags, places2, per_bucket, count_t(buckets) * pieces, n, bucket_bits + piece_bits, keys2, index2, bits, set_slots,
                        sample};
    const count_t waves = count_t(distinct_tuning::dedup_waves) * count_t(sms) * dedup_t::MinBlocksPerSM;
    const count_t dedup_grid = waves < count_t(buckets) * pieces ? waves : count_t(buckets) * pieces;
    if (auto e = launcher.run(unsigned(dedup_grid), dedup_t::Threads, dedup, dedup_t::shared_bytes);
        e != launcher.success)
      return e;
  }
  if (n > 0) {
    if (auto e = launcher.run(grid_for(count_t(small + 1), 8), mark_t::Threads, mark); e != launcher.success) return e;
    if (auto e = launcher.run(grid_for(groups * 32, 8), count_marked::Threads, count); e != launcher.success)
      return e;
    if (auto e = device_scan<true>(launcher, scan_temp, scan_bytes, ends, groups, ends, plus{}, count_t(0), false);
        e != launcher.success)
      return e;
  }
  return launcher.run(grid_for(groups * 32, 8), gather_t::Threads, gather);
}
}  // namespace detail

/// The device-wide distinct's dispatch, for any launcher. With temp == nullptr it
/// only sets temp_bytes (for this n), or answers invalid_value for n < 0 as the call
/// does. Returns launcher.invalid_value, writing nothing, for n < 0 or above
/// distinct_tuning::max_items (2^48; the size query too), null pointers (num_out always, in
/// and out with n > 0), or a too small temp_bytes.
template <class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type device_distinct(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                              detail::count_t n, Out out, NumOut num_out) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out> || detail::wraps_pointer_v<NumOut>)  // thrust::device_ptr: as its pointer
    return device_distinct(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(out), detail::unwrap(num_out));
  using T = detail::value_of<In>;
  static_assert(detail::stdx::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                "tilekit distinct: keys must be 4- or 8-byte integers (the hash set compares and claims keys bitwise "
                "with one atomic compare-and-swap); map other keys to such an integer first");
  if (n > distinct_tuning::max_items) return launcher.invalid_value;  // the size query too (its sizes would overflow)
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
