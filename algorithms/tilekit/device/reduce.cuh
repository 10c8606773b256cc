// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/reduce.cuh - device-wide reduce on the GPU, one kernel launch.
//
//   cudaError_t tilekit::device::reduce(temp, temp_bytes, in, n, out, op, init[, stream])
//       CUB's two-phase protocol: temp == nullptr sets temp_bytes and returns.
//   cudaError_t tilekit::device::reduce(in, n, out, op, init[, stream])
//       takes its temporary storage from tilekit's pool in the stream (none where one block suffices).
//   sum(in, n, out[, stream]), min(...), max(...)  with the operator's identity as init.
//   arg_min / arg_max(temp, temp_bytes, in, n, value_out, index_out[, stream])  as CUB's ArgMin / ArgMax
//   count_if(..., in, n, out, pred), count(..., in, n, value, out)  how many items match (64-bit)
//
// *out = init op in[0] op ... op in[n-1]; n is a 64-bit count; in is a pointer or a
// random-access iterator, out a pointer or output iterator. op must be associative
// and commutative; results are bitwise repeatable on a given device and n (see the device
// level below). Errors: cudaErrorInvalidValue, with nothing
// written, for n < 0, a null in with n > 0, a null out, a too small temp_bytes.
//
// The kernel and its dispatch, for any launcher (the GPU's, the simulator's):
//
// device_reduce(launcher, temp, temp_bytes, in, n, out, op, init): *out = init op
// (op over in[0 .. n)), in ONE kernel launch and nothing else (no memset; CUB takes
// two kernels). Each block folds its chunks (16-byte vector loads where the input is
// an aligned pointer) and reduces them as a block; every block but the last writes
// its total to the temporary storage, each 8 bytes of it in one 16-byte store beside a
// tag drawn for the call (a per-process counter mixed with a random salt, never 0);
// the last block polls each slot until it holds the tag, combines the totals in block
// order, writes *out, and clears the slots it read. So the temporary storage needs no
// initialisation and no fence orders anything; calls on several streams (each with its
// own storage) need nothing either, nor do replays of a CUDA graph (they repeat the
// call's tag, but each finds the slots its predecessor cleared).
// Integer sums into 4 bytes, and counts (count_if, count, unique_count), hand over in one
// 64-bit atomic instead once the storage has served such a call (which leaves marked zero
// counters at its start: reduce_kernel::packed_words): each block adds its total and a count
// of blocks to the counter, and the block that completes the count writes *out. Other integer
// sums into 8 bytes do so in two counters, one for each 32-bit half of the totals. Their inputs
// past one block take the grid, not a cluster. (Other sums counting their blocks there with an
// acquire-release atomic, then the last to count taking the totals, measured 5-10% slower than
// the tagged polls at 2^18-2^22 on the H100: perf/results/2026-12-06-24-packed-hand-off.)
// An input of at most one chunk is one block's (reduce_one_block_kernel: its loads, a block
// reduce, the write), and so is one of a 1024-thread block (the same kernel at that size). Sums
// into 8-byte accumulators that do not pack (double's; not ArgMin / ArgMax keys) that a cluster of 8 blocks reads
// in one pass are one cluster's on GPUs with clusters, which meets in block 0's shared memory
// (reduce_cluster_kernel); neither needs temporary storage.
// op must be associative and commutative: items meet in an order set by the grid.
// For a given n and device that order is fixed, so results (floats included) are
// bitwise the same run after run. The entry points are tilekit::device::reduce
// (GPU) and this function with a tilekit::sim::launcher (simulator).

#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/block/reduce.cuh>

#include <cstring>

namespace tilekit {

// ---- arg_min / arg_max: a reduce over (index, value) pairs ----

/// An item with its index. The arg operations' identity is {no_index, +infinity or the type's
/// max (ArgMax: -infinity or lowest)}: any item beats it, or ties its value and wins on the
/// lower index (a NaN ties everything).
template <class T>
struct arg_item {
  std::int64_t index;  ///< the item's position in the input (no_index: no item)
  T value;             ///< the item
  /// The index of the identity (no item): above every real index.
  static constexpr std::int64_t no_index = detail::stdx::numeric_limits<std::int64_t>::max();
};

namespace detail {

/// in[i] as arg_item{i, in[i]}.
template <class In>
struct indexed_input {
  using T = value_of<In>;
  In in;
  TILEKIT_HD arg_item<T> operator[](count_t i) const { return {i, T(in[i])}; }
};

// Where the grid reduce reads 16-byte vectors: In itself where it is an aligned
// pointer, or the pointer an indexed_input wraps (ArgMin / ArgMax read at memory
// speed too), each item made from its index and its value.
template <class In>
struct vector_source {
  using pointer = In;
  TILEKIT_HD static In base(const In& in) { return in; }
  template <class V>
  TILEKIT_HD static V item(count_t, const V& x) { return x; }
};
template <class P>
struct vector_source<indexed_input<P>> {
  using pointer = P;
  TILEKIT_HD static P base(const indexed_input<P>& in) { return in.in; }
  template <class V>
  TILEKIT_HD static arg_item<V> item(count_t i, const V& x) { return {i, x}; }
};

template <class In>
inline constexpr bool is_indexed_input_v = false;
template <class P>
inline constexpr bool is_indexed_input_v<indexed_input<P>> = true;

template <bool Max>
struct arg_extremum;
template <class Op>
inline constexpr bool is_arg_extremum_v = false;
template <bool Max>
inline constexpr bool is_arg_extremum_v<arg_extremum<Max>> = true;
template <class Op>
inline constexpr bool is_arg_max_op_v = false;  // arg_extremum<true> (ArgMax)
template <>
inline constexpr bool is_arg_max_op_v<arg_extremum<true>> = true;

/// ArgMin / ArgMax (Max) of 4-byte integers and floats over fewer than 2^31 items as a
/// minimum of 64-bit keys: block totals of one word, reduced as integers. Above: the
/// value's bits as an unsigned that orders as `<` orders the values (ArgMax: its
/// complement), -0 as +0; below: twice the index, plus 1 for a -0, so the value comes
/// back bit for bit. The least key is the first extreme item, arg_extremum's answer
/// wherever `<` is a total order (NaNs: above +inf if positive, below -inf if negative).
template <bool Max, class T>
struct arg_key {
  static constexpr bool applies = sizeof(T) == 4 && !stdx::is_same<T, bool>::value &&
                                  (stdx::is_integral<T>::value || is_float_v<T>);
  static constexpr count_t max_items = (count_t(1) << 31) - 1;  ///< the most items: indices fit 31 bits, no key is `none`
  static constexpr unsigned long long none = ~0ull;              ///< no item (the minimum's identity)
  TILEKIT_HD static std::uint32_t order(T v) {
    std::uint32_t b = bit_cast<std::uint32_t>(v);
    if constexpr (is_float_v<T>) {
      if (b == 0x80000000u) b = 0;  // -0 orders as +0
      b ^= (b >> 31) != 0 ? 0xFFFFFFFFu : 0x80000000u;
    } else if constexpr (stdx::is_signed<T>::value) {
      b ^= 0x80000000u;
    }
    return Max ? ~b : b;
  }
  TILEKIT_HD static unsigned long long make(T v, count_t i) {
    const bool negative_zero = is_float_v<T> && bit_cast<std::uint32_t>(v) == 0x80000000u;
    return (static_cast<unsigned long long>(order(v)) << 32) | (static_cast<unsigned long long>(i) << 1) |
           (negative_zero ? 1u : 0u);
  }
  TILEKIT_HD static T value(unsigned long long k) {
    std::uint32_t b = static_cast<std::uint32_t>(k >> 32);
    if constexpr (Max) b = ~b;
    if constexpr (is_float_v<T>) b = (k & 1u) != 0 ? 0x80000000u : (b >> 31) != 0 ? b ^ 0x80000000u : ~b;
    else if constexpr (stdx::is_signed<T>::value) b ^= 0x80000000u;
    return bit_cast<T>(b);
  }
  TILEKIT_HD static std::int64_t index(unsigned long long k) { return std::int64_t((k & 0xFFFFFFFFull) >> 1); }
};

/// in[i] as arg_key<Max, T>::make(in[i], i).
template <bool Max, class In>
struct keyed_input {
  using T = value_of<In>;
  using value_type = unsigned long long;
  In in;
  TILEKIT_HD unsigned long long operator[](count_t i) const { return arg_key<Max, T>::make(T(in[i]), i); }
};
template <bool Max, class P>
struct vector_source<keyed_input<Max, P>> {
  using pointer = P;
  TILEKIT_HD static P base(const keyed_input<Max, P>& in) { return in.in; }
  template <class V>
  TILEKIT_HD static unsigned long long item(count_t i, const V& x) { return arg_key<Max, V>::make(x, i); }
};
template <class In>
inline constexpr bool is_keyed_input_v = false;
template <bool Max, class P>
inline constexpr bool is_keyed_input_v<keyed_input<Max, P>> = true;
template <class In>
inline constexpr bool arg_max_v = false;  // keyed_input's Max (ArgMax)
template <bool Max, class P>
inline constexpr bool arg_max_v<keyed_input<Max, P>> = Max;
/// Whether the vector folds of input In under Op are ArgMin / ArgMax ones (arg_of_vectors).
template <class In, class Op>
inline constexpr bool folds_arg_v = (is_indexed_input_v<In> && is_arg_extremum_v<Op>) || is_keyed_input_v<In>;
/// Whether that fold is ArgMax's.
template <class In, class Op>
inline constexpr bool folds_arg_max_v = is_keyed_input_v<In> ? arg_max_v<In> : is_arg_max_op_v<Op>;

/// Whether each item of In is 0 or 1 (count_if's and unique_count's inputs say so with a
/// `counts_items` member): their sum is a count, at most n.
template <class In, class = void>
inline constexpr bool counts_items_v = false;
template <class In>
inline constexpr bool counts_items_v<In, stdx::void_t<decltype(In::counts_items)>> = In::counts_items;
/// Whether the grid's blocks hand a sum into T over to the last of them in 64-bit atomics
/// (reduce_kernel's packed hand-off), exact modulo 2^(8 x sizeof(T)) as the additions
/// themselves: integer sums into 4 bytes and counts (exact below 2^48 items, what the dispatch
/// allows) in one atomic, other integer sums into 8 bytes in two (reduce_tuning::pack_halves).
template <class In, class T, class Op>
inline constexpr bool reduce_packs_v =
    builtin_kind_v<Op> == builtin_op::sum && stdx::is_integral<T>::value &&
    stdx::is_same<decltype(stdx::declval<const Op&>()(stdx::declval<const T&>(), stdx::declval<const T&>())), T>::value &&
    (sizeof(T) == 4 || (sizeof(T) == 8 && (counts_items_v<In> || reduce_tuning::pack_halves != 0)));
/// Whether that hand-off takes two atomics, one for each 32-bit half of the totals.
template <class In, class T, class Op>
inline constexpr bool reduce_packs_halves_v = reduce_packs_v<In, T, Op> && sizeof(T) == 8 && !counts_items_v<In>;

/// ArgMin / ArgMax (Max) over a thread's vectors x[u] with u x Stride < left (a prefix, vector
/// 0 among them), item j of vector u at offset u x Stride x Vec + j from the thread's first:
/// the items come in index order, so a later one wins only by a better value (arg_extremum's
/// rule for a higher index, arg_key's order): one compare and two selects an item, the
/// position 32-bit, the index or key made once by the caller. Sets best and its offset pos.
template <bool Max, unsigned Stride, class V, unsigned Vec, unsigned Count>
TILEKIT_HD void arg_of_vectors(const vector_of<V, Vec> (&x)[Count], unsigned left, V& best, unsigned& pos) {
  best = x[0].item[0];
  pos = 0;
  TILEKIT_UNROLL
  for (unsigned u = 0; u < Count; ++u)
    TILEKIT_UNROLL
    for (unsigned j = u == 0 ? 1 : 0; j < Vec; ++j) {
      const V y = x[u].item[j];
      const bool take = u * Stride < left && (Max ? best < y : y < best);
      best = take ? y : best;
      pos = take ? u * Stride * Vec + j : pos;
    }
}

}  // namespace detail

namespace detail {

template <class In, unsigned Threads, class Tuning = reduce_tuning>
struct reduce_shape {
  using source = vector_source<In>;
  static constexpr bool vectors = vector_loadable_v<typename source::pointer>;
  static constexpr unsigned vec = vector_items<typename source::pointer>();
  static constexpr unsigned items = vectors ? Tuning::vectors * vec : Tuning::scalar_items;
  static constexpr count_t chunk = count_t(Threads) * items;
};

template <unsigned Threads, class In, class Out, class T, class Op>
struct reduce_kernel {
  static_assert(Threads >= 32 && Threads % 32 == 0, "reduce_kernel: whole warps (the last block's first warp combines)");
  static_assert(stdx::is_trivially_copyable<T>::value,
                "tilekit::device::reduce: the accumulator type (init's) must be trivially copyable: block totals pass "
                "through global memory");
  using shape = reduce_shape<In, Threads>;
  using value_type = T;
  using op_type = Op;
  static constexpr unsigned threads = Threads;
  // Inputs not read as vectors (and ArgMin / ArgMax): the tail's loads a thread issues before it
  // combines them (vector inputs: fold_rest_vectors). 16 took 2^18 + 4000 int32 from 6.27 to
  // 6.08 us on the H200 but floats from 7.04 to 9.18: ptxas put each float load right before
  // its add, so the loads went one round trip at a time (perf/results/2026-12-05-reduce-shapes).
  static constexpr unsigned tail_batch = 4;  // (item(0..3) below)
  In in;
  count_t n, head, whole_chunks;  // head: items before the first 16-byte boundary
  Out out;
  Op op;
  T init;
  // Block b's total as `words` 8-byte words, each stored with the call's tag in one
  // 16-byte access (slots + 2 * (b * words + k) holds {tag, word k}): a reader that sees
  // the tag sees the word stored with it, with no fence on either side.
  static constexpr unsigned words = unsigned((sizeof(T) + 7) / 8);
  unsigned long long* slots;
  unsigned long long tag;  // this call's (never 0; the last block leaves 0 in every slot it read)
  // Sums that pack (reduce_packs_v): the first 32 bytes of the temporary storage; null where
  // the call may not pack (counts of 2^48 items or more). packed_words[0] == clean_mark says
  // that packed_words[1 .. 3], the hand-off's counters, are 0: the call before on this storage
  // left them so. Such a call packs: each block adds 2^48 + its total (as unsigned) to the
  // counter packed_words[1] in one relaxed atomic; the block that finds blocks - 1 in the count
  // bits (48-63) is the last, the low bits holding the sum of every total (below 2^48: fewer
  // than 2^16 blocks of 32-bit totals, or a count); it writes that and zeroes the counter.
  // 8-byte sums that are not counts (packs_halves) add the low 32 bits of their total to
  // packed_words[1] so and the high 32 to packed_words[2], both atomics in flight at once; the
  // block that completes the first counter polls the second until its count bits say every
  // block's add is in (as a rule its own atomic's answer does), and both sums make the result
  // modulo 2^64. Otherwise (the storage's first use) the call takes the tagged slots and its
  // last block leaves the words so. (H100, int32 sums, 256 blocks: the packed hand-off 0.25 us
  // over a grid that only writes its totals, the tagged one 1.6; perf/results/2026-12-06-24-
  // packed-hand-off.) Change clean_mark with the layout.
  static constexpr bool packs = reduce_packs_v<In, T, Op>;
  static constexpr bool packs_halves = reduce_packs_halves_v<In, T, Op>;
  static constexpr unsigned long long clean_mark = 0x3b8e61d2c47a95f3ull;
  unsigned long long* packed_words;

  // op over the items of full chunk t held by this thread.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD T chunk_part(count_t t, unsigned rank) const {
    const count_t base = head + t * shape::chunk;
    if constexpr (shape::vectors) {
      using source = typename shape::source;
      using V = value_of<typename source::pointer>;
      vector_of<V, shape::vec> v[reduce_tuning::vectors];
      const count_t at = base + count_t(rank) * shape::vec;  // index of this thread's first item
      TILEKIT_UNROLL
      for (unsigned j = 0; j < reduce_tuning::vectors; ++j)
        v[j] = load_vector<V, shape::vec>(source::base(in) + at + count_t(j) * Threads * shape::vec);
      if constexpr (folds_arg_v<In, Op>) {
        constexpr bool max = folds_arg_max_v<In, Op>;
        V best;
        unsigned pos;
        arg_of_vectors<max, Threads>(v, reduce_tuning::vectors * Threads, best, pos);  // (every vector)
        if constexpr (is_keyed_input_v<In>) return arg_key<max, V>::make(best, at + count_t(pos));
        else return T{at + count_t(pos), best};
      } else {
        T part = T(source::item(at, v[0].item[0]));
        TILEKIT_UNROLL
        for (unsigned j = 0; j < reduce_tuning::vectors; ++j)
          TILEKIT_UNROLL
          for (unsigned i = 0; i < shape::vec; ++i)
            if (j + i > 0) part = op(part, T(source::item(at + count_t(j) * Threads * shape::vec + i, v[j].item[i])));
        return part;
      }
    } else {
      T part = T(in[base + rank]);
      TILEKIT_UNROLL
      for (unsigned k = 1; k < shape::items; ++k) part = op(part, T(in[base + count_t(k) * Threads + rank]));
      return part;
    }
  }

  // The i-th item past the full chunks: the head first, then what follows the last full chunk.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD T rest_item(count_t i) const {
    return T(in[i < head ? i : head + whole_chunks * shape::chunk + (i - head)]);
  }

  // Inputs read as vectors: the `rest` items past the full chunks folded into acc, as the
  // one-block kernel reads its chunk: the tail's whole 16-byte vectors (fewer than a chunk's:
  // up to reduce_tuning::vectors a thread) all loaded before any is combined, then the head and
  // the tail's last items (fewer than 2 x vec; every item where the input is not item-aligned)
  // one a thread. Returns how many threads took items (a prefix of the block). Item by item in
  // batches of tail_batch, float tails took 0.6-0.8 us more than int32 ones on the H200
  // (ptxas put each float load just before its add; perf/results/2026-12-05-reduce-shapes).
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned fold_rest_vectors(unsigned rank, count_t rest, T& acc, bool& have) const {
    using source = typename shape::source;
    using V = value_of<typename source::pointer>;
    constexpr unsigned vec = shape::vec;
    const count_t tail_first = head + whole_chunks * shape::chunk;  // 16-byte aligned
    const count_t tail = rest - head;                                // fewer than a chunk
    const unsigned whole = unsigned(tail / vec);
    const count_t extra = head + tail % vec;
    auto extra_at = [&](count_t r) { return r < head ? r : tail_first + count_t(whole) * vec + (r - head); };
    vector_of<V, vec> v[reduce_tuning::vectors];
    TILEKIT_UNROLL
    for (unsigned j = 0; j < reduce_tuning::vectors; ++j)
      if (rank + j * Threads < whole) v[j] = load_vector<V, vec>(source::base(in) + tail_first + count_t(rank + j * Threads) * vec);
    const count_t at = extra_at(count_t(rank) < extra ? count_t(rank) : 0);
    V e{};
    if (count_t(rank) < extra) e = source::base(in)[at];
    TILEKIT_UNROLL
    for (unsigned j = 0; j < reduce_tuning::vectors; ++j)
      if (rank + j * Threads < whole) {
        const count_t first = tail_first + count_t(rank + j * Threads) * vec;
        T part = T(source::item(first, v[j].item[0]));
        TILEKIT_UNROLL
        for (unsigned i = 1; i < vec; ++i) part = T(op(part, T(source::item(first + i, v[j].item[i]))));
        acc = have ? T(op(acc, part)) : part;
        have = true;
      }
    if (count_t(rank) < extra) {
      const T x = T(source::item(at, e));
      acc = have ? T(op(acc, x)) : x;
      have = true;
    }
    for (count_t r = count_t(rank) + Threads; r < extra; r += Threads) {  // (an input that is not item-aligned only)
      const count_t at2 = extra_at(r);
      const T x = T(source::item(at2, source::base(in)[at2]));
      acc = have ? T(op(acc, x)) : x;
      have = true;
    }
    const count_t with_items = count_t(whole) > extra ? count_t(whole) : extra;
    return with_items >= count_t(Threads) ? Threads : unsigned(with_items);
  }

  // Block b of `blocks` folds its chunks (and the head and tail past them, if it is the
  // block next in line) and reduces them as a block: the total in every thread, and in
  // `valid` how many threads had items (a prefix of the block; 0 for a block without any).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Block>
  TILEKIT_HD T block_total(const Block& block, reduce_storage<T, Threads>& s, count_t b, count_t blocks,
                           unsigned& valid) const {
    const unsigned rank = block.thread_rank();
    T acc = init;
    bool have = false;
    for (count_t t = b; t < whole_chunks; t += blocks) {
      const T part = chunk_part(t, rank);
      acc = have ? op(acc, part) : part;
      have = true;
    }
    // The head and the tail past the full chunks go to the block next in line; each
    // thread loads a batch of its items before combining any (independent loads).
    const count_t rest = n - whole_chunks * shape::chunk;
    const bool takes_rest = rest > 0 && b == whole_chunks % blocks;
    unsigned rest_threads = rest >= count_t(Threads) ? Threads : unsigned(rest);  // threads with items of the rest (a prefix)
    if constexpr (shape::vectors && !folds_arg_v<In, Op>) {
      if (takes_rest) rest_threads = fold_rest_vectors(rank, rest, acc, have);
    } else if (takes_rest) {
      for (count_t first = rank; first < rest; first += count_t(tail_batch) * Threads) {
        auto item = [&](unsigned k) {  // past rest: the last item again, loaded but not used
          return rest_item(first + count_t(k) * Threads < rest ? first + count_t(k) * Threads : rest - 1);
        };
        const T x[tail_batch] = {item(0), item(1), item(2), item(3)};
        TILEKIT_UNROLL
        for (unsigned k = 0; k < tail_batch; ++k)
          if (first + count_t(k) * Threads < rest) {
            acc = have ? op(acc, x[k]) : x[k];
            have = true;
          }
      }
    }
    // Threads with items are a prefix of the block: all of them, those of the rest, or none.
    valid = b < whole_chunks ? Threads : takes_rest ? rest_threads : 0u;
    if (valid == 0) return acc;
    return valid == Threads ? tilekit::reduce(block, acc, op, s) : tilekit::reduce(block, acc, op, s, valid);
  }

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    reduce_storage<T, Threads>& s = ctx.template shared<reduce_storage<T, Threads>>();
    const unsigned rank = block.thread_rank();
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    unsigned valid = 0;  // (n > 0, an empty input being reduce_one_block_kernel's; every block of this grid has items: the dispatch gives it at most `units` blocks)
    [[maybe_unused]] unsigned long long mark = 0;  // (read before the loads: its round trip overlaps theirs)
    if constexpr (packs)
      if (packed_words != nullptr && blocks > 1) mark = be::load_relaxed(packed_words);
    // The tagged hand-off's parameters (slots, tag) lie in the parameters' second 64 bytes, which
    // ptxas reads from the constant bank where first used: after the block's reduce, on the way to
    // the store and the last block's polls. Touching them here takes that constant-cache miss
    // beside the loads' (packed sums: the mark's read does). H100, float / double / int64 sums and
    // ArgMin 0.7-3.3% faster at 2^18-2^21, 0.2-1.9% at 2^22, where rows it leaves alone moved about
    // 1% between the two builds (perf/results/2026-12-06-29-param-line).
    if constexpr (!packs)
      if (blocks > 1 && rank == 0) be::prefetch_l2(slots + 2 * count_t(b) * words);
    const T total = block_total(block, s, b, blocks, valid);
    T acc = total;
    bool have = false;
    if (blocks == 1) {
      if (rank == 0) *out = op(init, total);
      return;
    }
    if constexpr (packs) {
      if (mark == clean_mark) {
        using U = stdx::make_unsigned_t<T>;
        if (rank == 0) {
          constexpr unsigned long long one = 1ull << 48, low = one - 1;
          const unsigned long long bits = static_cast<unsigned long long>(U(total));
          if constexpr (packs_halves) {
            const unsigned long long add_low = one | (bits & 0xFFFFFFFFull), add_high = one | (bits >> 32);
            const unsigned long long lows = be::atomic_add(packed_words + 1, add_low) + add_low;
            unsigned long long highs = be::atomic_add(packed_words + 2, add_high) + add_high;
            if (count_t(lows >> 48) == blocks) {
              while (count_t(highs >> 48) != blocks) {  // (the others' adds are in flight: each block issues both at once)
                be::pause(reduce_tuning::poll_ns);
                highs = be::load_relaxed(packed_words + 2);
              }
              *out = op(init, T(U(((highs & low) << 32) + (lows & low))));
              be::store_relaxed(packed_words + 1, 0ull);
              be::store_relaxed(packed_words + 2, 0ull);
            }
          } else {
            const unsigned long long add = one | (bits & low);
            const unsigned long long old = be::atomic_add(packed_words + 1, add);
            if (count_t(old >> 48) == blocks - 1) {
              *out = op(init, T(U((old + add) & low)));
              be::store_relaxed(packed_words + 1, 0ull);
            }
          }
        }
        return;
      }
    }
    auto leave_clean = [&] {  // (the tagged path's last block, rank 0)
      if constexpr (packs)
        if (packed_words != nullptr) {
          be::store_relaxed(packed_words + 1, 0ull);
          be::store_relaxed(packed_words + 2, 0ull);
          be::store_relaxed(packed_words + 3, 0ull);
          be::store_relaxed(packed_words, clean_mark);
        }
    };
    // Every block but the last publishes its total under the call's tag; the last block
    // (the last to start, so it waits only for blocks already running) takes them in
    // block order, then its own, and clears each slot it read. The tag makes the slots
    // valid whatever the storage held before (no memset, no ticket); the clearing makes
    // a graph replay, which repeats the tag, start from slots without it.
    const count_t last = blocks - 1;
    if (b < last) {
      if (rank == 0) {
        unsigned long long w[words] = {};
        std::memcpy(w, &total, sizeof(T));
        TILEKIT_UNROLL
        for (unsigned k = 0; k < words; ++k) be::store_relaxed_pair(slots + 2 * (count_t(b) * words + k), tag, w[k]);
      }
      return;
    }
    // The last block takes block i's total: polls its slot until every word holds the
    // tag (all words loaded before any is checked), then clears it.
    auto take = [&](count_t i) {
      unsigned long long* slot = slots + 2 * i * words;
      unsigned long long w[words], seen[words];
      for (;;) {
        bool all = true;
        TILEKIT_UNROLL
        for (unsigned k = 0; k < words; ++k) be::load_relaxed_pair(slot + 2 * k, seen[k], w[k]);
        TILEKIT_UNROLL
        for (unsigned k = 0; k < words; ++k) all = all && seen[k] == tag;
        if (all) break;
        be::pause(reduce_tuning::poll_ns);
      }
      TILEKIT_UNROLL
      for (unsigned k = 0; k < words; ++k) be::store_relaxed_pair(slot + 2 * k, 0ull, 0ull);
      T x = total;  // T need not be default constructible
      std::memcpy(static_cast<void*>(&x), w, sizeof(T));
      return x;
    };
    acc = total;  // overwritten before use
    have = false;
    if (last <= 32) {  // few blocks: the first warp alone, no barrier (the other warps are done)
      if (rank >= 32) return;
      if (count_t(rank) < last) acc = take(rank);
      // The lanes below `last`, without presence flags: the same tree as over maybe-values. With
      // this and the block reduce's valid_items form alike, float / double / int64 sums and ArgMin
      // took 7-15% less at 2^18-2^21 on the H100 (perf/results/2026-12-06-30-lanes-below).
      const T others = reduce_lanes_below(tilekit::tiled_partition<32>(block), acc, op, unsigned(last));
      if (rank == 0) {
        *out = op(init, op(others, total));
        leave_clean();
      }
      return;
    }
    // Many blocks: every thread polls a few (one round trip each, in parallel), then a block reduce.
    for (count_t i = rank; i < last; i += Threads) {
      const T x = take(i);
      acc = have ? op(acc, x) : x;
      have = true;
    }
    const unsigned count = last < count_t(Threads) ? unsigned(last) : Threads;
    block.sync();  // every thread has read the first reduce's result from s before s is reused
    const T others = tilekit::reduce(block, acc, op, s, count);
    if (rank == 0) {
      *out = op(init, op(others, total));
      leave_clean();
    }
  }
};

// Part of an input of fewer than 2^32 items that one block reads in one pass: each thread
// issues all its loads before it combines any. Items past the head go in 16-byte vectors
// where the input loads as such: the slice is whole vectors [first, first + count) past the
// head, thread rank taking vectors first + rank + j x Threads (j < Units); the extras (the
// fewer than 2 x vec items before the head and after the last whole vector, or every item
// where the input is not even item-aligned) one to a thread. Other inputs: items
// [first, first + count), Units a thread. (The grid kernel, which did this for one-block
// inputs before, ran 933 warp instructions at 2^12 int32 against CUB's single-tile 490.)
template <unsigned Threads, unsigned Units, class In, class T, class Op>
struct reduce_slice {
  using shape = reduce_shape<In, Threads>;
  using source = typename shape::source;
  static constexpr unsigned vec = shape::vec;
  In in;
  unsigned n, head;  // head: items before the first 16-byte boundary (vector inputs)
  Op op;

  /// Whole 16-byte vectors past the head (vector inputs), else items: what slices count.
  TILEKIT_HD unsigned units() const { return shape::vectors ? (n - head) / vec : n; }

  /// Folds thread rank's items of the slice (and, with extras, of the head and tail) into acc,
  /// setting have; returns how many threads of the block have items (a prefix of the block).
  /// @pre count <= Units x Threads
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned fold(unsigned rank, unsigned first, unsigned count, bool extras, T& acc, bool& have) const {
    // The thread's units: first + rank + j x Threads for j < mine.
    const unsigned mine = rank < count ? (count - rank + Threads - 1) / Threads : 0u;
    if constexpr (shape::vectors) {
      using V = value_of<typename source::pointer>;
      const unsigned whole = units(), rest = extras ? head + (n - head) % vec : 0u;
      // The vectors at p + j x Threads x vec: one pointer, constant offsets (a 1024-thread
      // block's 8 warps a scheduler issue every instruction a thread runs 8 times: indices
      // recomputed a vector took the cluster 0.6 us over a bare kernel on the H100).
      const V* const p = source::base(in) + head + count_t(first + (rank < count ? rank : 0u)) * vec;
      vector_of<V, vec> v[Units];
      TILEKIT_UNROLL
      for (unsigned j = 0; j < Units; ++j)
        if (j < mine) v[j] = load_vector<V, vec>(p + j * Threads * vec);
      // One item of the head and the tail: item r < head, else the r - head-th after the whole vectors.
      const unsigned r = rank < rest ? rank : 0;
      const unsigned at = r < head ? r : head + whole * vec + (r - head);
      V extra{};
      if (rank < rest) extra = source::base(in)[at];
      if constexpr (folds_arg_v<In, Op>) {
        // ArgMin / ArgMax: arg_of_vectors, the key (or arg_item) made once. (A key an item:
        // 2,242 warp instructions at 2^12 int32, 3.4 us in Nsight Compute against CUB's 2.9.)
        constexpr bool max = folds_arg_max_v<In, Op>;
        if (mine > 0) {
          V best;
          unsigned pos;
          arg_of_vectors<max, Threads>(v, count - rank, best, pos);
          const count_t index = count_t(head) + count_t(first + rank) * vec + pos;
          if constexpr (is_keyed_input_v<In>) acc = arg_key<max, V>::make(best, index);
          else acc = T{index, best};
          have = true;
        }
      } else if (mine > 0) {
        const count_t at0 = count_t(head) + count_t(first + rank) * vec;  // the index of v[0]'s first item
        auto vector_total = [&](unsigned j) {
          const count_t at_item = at0 + count_t(j) * Threads * vec;
          T part = T(source::item(at_item, v[j].item[0]));
          TILEKIT_UNROLL
          for (unsigned i = 1; i < vec; ++i) part = T(op(part, T(source::item(at_item + i, v[j].item[i]))));
          return part;
        };
        T part = vector_total(0);
        TILEKIT_UNROLL
        for (unsigned j = 1; j < Units; ++j)
          if (j < mine) part = T(op(part, vector_total(j)));
        acc = have ? T(op(acc, part)) : part;
        have = true;
      }
      if (rank < rest) {
        const T x = T(source::item(count_t(at), extra));
        acc = have ? T(op(acc, x)) : x;
        have = true;
      }
      for (unsigned r2 = rank + Threads; r2 < rest; r2 += Threads) {  // (an input that is not item-aligned only)
        const unsigned at2 = r2 < head ? r2 : head + whole * vec + (r2 - head);
        const T x = T(source::item(count_t(at2), source::base(in)[at2]));
        acc = have ? T(op(acc, x)) : x;
        have = true;
      }
      const unsigned with_items = count > rest ? count : rest;
      return with_items < Threads ? with_items : Threads;
    } else {
      using X = value_of<In>;
      X x[Units];
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Units; ++k)
        if (k < mine) x[k] = in[count_t(first + rank + k * Threads)];
      if (mine > 0) {
        T part = T(x[0]);
        TILEKIT_UNROLL
        for (unsigned k = 1; k < Units; ++k)
          if (k < mine) part = T(op(part, T(x[k])));
        acc = have ? T(op(acc, part)) : part;
        have = true;
      }
      return count < Threads ? count : Threads;
    }
  }
};

// Inputs of at most one chunk (n <= shape::chunk): one block, one pass, nothing but the
// loads (reduce_slice), the block reduce and the write; no chunk loop, no hand-off.
template <unsigned Threads, class In, class Out, class T, class Op>
struct reduce_one_block_kernel {
  using shape = reduce_shape<In, Threads>;
  static_assert(shape::chunk <= 0xffffffffll, "reduce_one_block_kernel: 32-bit positions");
  static constexpr unsigned units = shape::vectors ? reduce_tuning::vectors : reduce_tuning::scalar_items;
  reduce_slice<Threads, units, In, T, Op> slice;
  Out out;
  T init;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    reduce_storage<T, Threads>& s = ctx.template shared<reduce_storage<T, Threads>>();
    const unsigned rank = block.thread_rank();
    T acc = init;  // overwritten before use where have
    bool have = false;
    const unsigned valid = slice.fold(rank, 0, slice.units(), true, acc, have);
    if (valid == 0) {  // n == 0
      if (rank == 0) *out = init;
      return;
    }
    const T total = valid >= Threads ? tilekit::reduce(block, acc, slice.op, s) : tilekit::reduce(block, acc, slice.op, s, valid);
    if (rank == 0) *out = slice.op(init, total);
  }
};

// Inputs that a cluster of ClusterBlocks blocks reads in one pass, on GPUs with thread-block
// clusters: block b folds slice b of per_block units (every block busy where the input
// allows: per_block is the fewest whole multiples of Threads that cover it), block 0 also
// the extras, and stores its total in block 0's shared memory (distributed shared memory);
// after one cluster barrier block 0 combines them in block order. One launch, no temporary
// storage, no polling. The barrier that lets block 0's shared memory be written (every
// block has started) is split around the loads, so it costs nothing: 0.65 us less than a
// whole one at 2^14-2^19 int32 on the H100 (perf/results/2026-12-06-22-reduce-cluster).
template <unsigned ClusterBlocks, unsigned Threads, class In, class Out, class T, class Op>
struct reduce_cluster_kernel {
  using shape = reduce_shape<In, Threads>;
  static constexpr unsigned units = shape::vectors ? reduce_tuning::cluster_vectors : reduce_tuning::scalar_items;
  /// The most items it reads: units a thread of every block.
  static constexpr count_t max_items = count_t(ClusterBlocks) * Threads * units * (shape::vectors ? shape::vec : 1);
  struct shared_t {
    reduce_storage<T, Threads> block;
    raw_slots<T, ClusterBlocks> totals;  // block 0's: the totals of the blocks with items, by rank
  };
  using slice_t = reduce_slice<Threads, units, In, T, Op>;
  slice_t slice;
  unsigned per_block;  // units of a block's slice: a multiple of Threads, at most units x Threads
  Out out;
  T init;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<ClusterBlocks, Threads>();
    auto block = cluster.block();
    shared_t& sh = ctx.template shared<shared_t>();
    cluster.arrive_relaxed();  // every block has started once it completes; waited for after the loads
    const unsigned b = cluster.block_rank(), rank = block.thread_rank();
    const unsigned all = slice.units(), first = b * per_block;
    const unsigned count = first >= all ? 0u : all - first < per_block ? all - first : per_block;
    T acc = init;  // overwritten before use where have
    bool have = false;
    const unsigned valid = slice.fold(rank, first, count, b == 0, acc, have);
    if (valid > 0)
      acc = valid == Threads ? tilekit::reduce(block, acc, slice.op, sh.block) : tilekit::reduce(block, acc, slice.op, sh.block, valid);
    cluster.wait();  // block 0's shared memory may be written now
    if (rank == 0 && valid > 0) *cluster.map_shared_rank(&sh.totals[b], 0u) = acc;
    cluster.sync();  // every total is in block 0, and no block touches another's shared memory after this
    if (b == 0 && rank == 0) {
      // The blocks with items are a prefix: those whose slice starts below `all` (block 0 at
      // least: the dispatch sends no input of one block's chunk or less here, so all > 0).
      const unsigned with_items = (all + per_block - 1) / per_block;
      T r = sh.totals[0];
      TILEKIT_UNROLL
      for (unsigned i = 1; i < ClusterBlocks; ++i)
        if (i < with_items) r = T(slice.op(r, T(sh.totals[i])));
      *out = T(slice.op(init, r));
    }
  }
};

/// Whether device_reduce of In into T under Op takes the cluster (reduce_cluster_kernel) where it
/// fits: accumulators of reduce_tuning::cluster_item_bytes (8), not arg_items, not ArgMin /
/// ArgMax keys (keyed_input), and not sums that pack, whose grid was faster from 2 blocks on (H100,
/// int32: 2^15 4.3-4.4 us against the cluster's 5.1, 2^16 4.5 against 5.3, 2^18 4.8 against 6.1;
/// perf/results/2026-12-06-24-packed-hand-off; int64 in halves, 2^14-2^16 8-10% faster:
/// perf/results/2026-12-07-35-int64-halves). The others' grids were faster too: reduce_tuning.
template <class In, class T, class Op>
inline constexpr bool reduce_takes_cluster_v = !is_arg_extremum_v<Op> && !is_keyed_input_v<In> &&
                                               sizeof(T) == reduce_tuning::cluster_item_bytes && !reduce_packs_v<In, T, Op>;

/// The blocks of the cluster device_reduce of In into T under Op takes on launcher's device:
/// reduce_tuning::cluster_blocks (8, a size every GPU with clusters runs), or 0 where none (no
/// clusters, or sums that take none: reduce_takes_cluster_v).
template <class In, class T, class Op, class Launcher>
unsigned reduce_cluster_blocks(const Launcher& launcher) {
  if constexpr (!reduce_takes_cluster_v<In, T, Op>) return 0;
  else return launcher.has_clusters() ? reduce_tuning::cluster_blocks : 0u;
}

/// The most items device_reduce of In into T under Op reads without temporary storage: one
/// block's chunk, or where the device runs clusters (cluster_blocks: reduce_cluster_blocks;
/// 0: none) and such a sum takes them (reduce_takes_cluster_v), one cluster's.
template <class In, class T, class Op>
constexpr count_t reduce_storage_free_items(unsigned cluster_blocks) {
  constexpr unsigned wide = reduce_tuning::wide_threads, threads = reduce_tuning::cluster_threads;
  if (!is_arg_extremum_v<Op>) {  // (arg_items: one block of reduce_tuning::threads at most)
    if constexpr (reduce_takes_cluster_v<In, T, Op>)
      if (cluster_blocks == reduce_tuning::cluster_blocks)
        return reduce_cluster_kernel<reduce_tuning::cluster_blocks, threads, In, T*, T, Op>::max_items;
    return reduce_shape<In, wide>::chunk;
  }
  return reduce_shape<In, reduce_tuning::threads>::chunk;
}

/// The smaller (Max: larger) value by `<`, the lower index among equals: a total
/// order on (value, index) where `<` is one on values, so any combination order
/// gives the same result. Branch-free: two compares and a select.
template <bool Max>
struct arg_extremum {
  static constexpr bool max = Max;  ///< ArgMax (true) or ArgMin
  template <class T>
  TILEKIT_HD arg_item<T> operator()(const arg_item<T>& a, const arg_item<T>& b) const {
    const bool b_better = Max ? a.value < b.value : b.value < a.value;
    const bool a_better = Max ? b.value < a.value : a.value < b.value;
    return b_better || (!a_better && b.index < a.index) ? b : a;
  }
};

/// The identity of arg_extremum<Max> over T (T has numeric_limits).
template <bool Max, class T>
TILEKIT_HD arg_item<T> arg_identity() {
  using limits = stdx::numeric_limits<T>;
  if constexpr (limits::has_infinity) return {arg_item<T>::no_index, Max ? -limits::infinity() : limits::infinity()};
  else return {arg_item<T>::no_index, Max ? limits::lowest() : limits::max()};
}

/// Writes an arg_item, or a minimum of arg_key<Max, T> keys, to two outputs, CUB's way: an
/// empty input (the identity, or arg_key's none) gives the type's max (Max: lowest) and the index 1.
template <bool Max, class T, class ValueOut, class IndexOut>
struct arg_output {
  ValueOut value_out;
  IndexOut index_out;
  struct proxy {
    const arg_output& o;
    TILEKIT_HD void operator=(const arg_item<T>& r) const { write(r.index == arg_item<T>::no_index, r.value, r.index); }
    TILEKIT_HD void operator=(unsigned long long k) const {
      using key = arg_key<Max, T>;
      write(k == key::none, key::value(k), key::index(k));
    }
    TILEKIT_HD void write(bool none, const T& value, std::int64_t index) const {
      *o.value_out = none ? (Max ? stdx::numeric_limits<T>::lowest() : stdx::numeric_limits<T>::max()) : value;
      *o.index_out = none ? 1 : index;
    }
  };
  TILEKIT_HD proxy operator*() const { return proxy{*this}; }
};

}  // namespace detail

/// The device-wide reduce's dispatch, for any launcher (tilekit::gpu_launcher,
/// tilekit::sim::launcher). With temp == nullptr it only sets temp_bytes, or answers
/// invalid_value for n < 0 as the call does. Returns
/// launcher.invalid_value, writing nothing, for n < 0, a null input with n > 0, a
/// null output pointer, or temp_bytes too small.
template <class Launcher, class In, class Out, class T, class Op>
typename Launcher::error_type device_reduce(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            detail::count_t n, Out out, Op op, T init) {
  if constexpr (detail::wraps_pointer_v<In> || detail::wraps_pointer_v<Out>)  // thrust::device_ptr: read and write it as its pointer
    return device_reduce(launcher, temp, temp_bytes, detail::unwrap(in), n, detail::unwrap(out), op, init);
  constexpr unsigned threads = reduce_tuning::threads;
  using body_t = detail::reduce_kernel<threads, In, Out, T, Op>;
  using shape = typename body_t::shape;
  const unsigned sms = launcher.sm_count();
  const unsigned max_blocks = (sms > 0 ? sms : 1) * reduce_tuning::blocks_per_sm;
  if (n < 0) return launcher.invalid_value;  // the size query too
  // Inputs that one block or one cluster reads in one pass need no temporary storage: up to
  // a chunk of `threads` (or of wide_threads) threads, one block; up to what the cluster reads
  // (reduce_storage_free_items: GPUs with clusters, sums that take one: reduce_takes_cluster_v),
  // one cluster. H100, int32 sums at 2^15-2^17 (perf/results/2026-12-06-22-reduce-cluster):
  // 5.0-5.4 us against 6.0-6.3 for the cluster before (one block's loads at a time, a whole
  // barrier before them), where an empty launch takes 3.1.
  using one_t = detail::reduce_one_block_kernel<threads, In, Out, T, Op>;
  using wide_one_t = detail::reduce_one_block_kernel<reduce_tuning::wide_threads, In, Out, T, Op>;
  constexpr unsigned cluster_threads = reduce_tuning::cluster_threads;
  using cluster_t = detail::reduce_cluster_kernel<reduce_tuning::cluster_blocks, cluster_threads, In, Out, T, Op>;
  constexpr bool widens = !detail::is_arg_extremum_v<Op>, clusters_fit = detail::reduce_takes_cluster_v<In, T, Op>;
  const detail::count_t one_block = widens ? wide_one_t::shape::chunk : one_t::shape::chunk;
  // (The device is asked only where a cluster could read it all: not on the way to the grid.)
  const bool fits_a_cluster = n > one_block && n <= detail::reduce_storage_free_items<In, T, Op>(reduce_tuning::cluster_blocks);
  const unsigned cluster_blocks = fits_a_cluster ? detail::reduce_cluster_blocks<In, T, Op>(launcher) : 0u;
  const detail::count_t storage_free = detail::reduce_storage_free_items<In, T, Op>(cluster_blocks);
  const bool cluster = n > one_block && n <= storage_free;  // (storage_free is one block's where no cluster applies)
  // Storage for the totals of at most n / chunk + 2 blocks (whatever the alignment), none
  // where one block or cluster reads everything: then the call needs no temporary storage
  // at all (and the allocating form allocates none).
  const detail::count_t most = n / shape::chunk + 2;
  const detail::count_t bound = n <= storage_free ? 1 : most < detail::count_t(max_blocks) ? most : detail::count_t(max_blocks);
  detail::temp_carver carve(temp);
  unsigned long long* packed_words = bound > 1 ? carve.take<unsigned long long>(4) : nullptr;  // (every type's: one layout)
  unsigned long long* slots = bound > 1 ? carve.take<unsigned long long>(std::size_t(bound) * body_t::words * 2) : nullptr;
  if (temp == nullptr) {
    temp_bytes = carve.bytes();
    return launcher.success;
  }
  if (temp_bytes < carve.bytes()) return launcher.invalid_value;
  if ((n > 0 && detail::is_null(in)) || detail::is_null(out)) return launcher.invalid_value;
  const detail::count_t head = detail::misaligned_head(shape::source::base(in), n);
  if (n <= one_t::shape::chunk)
    return launcher.run(1, threads, one_t{{in, unsigned(n), unsigned(head), op}, out, init}, sizeof(reduce_storage<T, threads>));
  if constexpr (widens) {
    constexpr unsigned wide = reduce_tuning::wide_threads;
    if (n <= one_block)  // up to one chunk of the wide block: every load issued at once, as above (the same head: 16-byte vectors)
      return launcher.run(1, wide, wide_one_t{{in, unsigned(n), unsigned(head), op}, out, init}, sizeof(reduce_storage<T, wide>));
    if constexpr (clusters_fit) {
      if (cluster) {
        const typename cluster_t::slice_t slice{in, unsigned(n), unsigned(head), op};
        // Units of a block's slice: the fewest whole multiples of cluster_threads that cover the
        // input with every block (units a round of every thread: blocks x cluster_threads).
        constexpr unsigned blocks = reduce_tuning::cluster_blocks, per_cluster = blocks * cluster_threads;
        const unsigned units = (slice.units() + per_cluster - 1) / per_cluster * cluster_threads;
        return launcher.run_cluster(blocks, blocks, cluster_threads, cluster_t{slice, units > 0 ? units : cluster_threads, out, init},
                                    sizeof(typename cluster_t::shared_t));
      }
    }
  }
  const detail::count_t whole_chunks = (n - head) / shape::chunk;
  const detail::count_t units = whole_chunks + (n - whole_chunks * shape::chunk > 0 ? 1 : 0);
  const unsigned grid = units < bound ? unsigned(units > 0 ? units : 1) : unsigned(bound);  // bound: max_blocks, or above units
  // The slots may hold anything (any content is valid: a tag other than the call's means
  // "not yet written"); tell a memory checker so (compute-sanitizer initcheck, through NVTX).
  if (grid > 1) {
    launcher.assume_initialized(slots, std::size_t(grid) * body_t::words * 16);
    launcher.assume_initialized(packed_words, 32);
  }
  constexpr bool counts = sizeof(T) == 8 && !detail::reduce_packs_halves_v<In, T, Op>;  // (exact below 2^48)
  const bool packs = body_t::packs && grid < (1u << 16) && (!counts || n < (detail::count_t(1) << 48));
  return launcher.run(grid, threads,
                      body_t{in, n, head, whole_chunks, out, op, init, slots, detail::next_call_tag(), packs ? packed_words : nullptr},
                      sizeof(reduce_storage<T, threads>));
}

/// ArgMin's (Max: ArgMax's) dispatch, for any launcher: the first smallest (largest) item by `<`
/// to *value_out and its index to *index_out, as cub::DeviceReduce::ArgMin; an empty input
/// gives the type's max (lowest) and the index 1. 4-byte integers and floats below 2^31 items
/// reduce arg_key's 64-bit keys, other inputs arg_items. temp_bytes and errors as device_reduce's,
/// and invalid_value for a null value_out or index_out.
template <bool Max, class Launcher, class In, class ValueOut, class IndexOut>
typename Launcher::error_type device_arg_extremum(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                                  detail::count_t n, ValueOut value_out, IndexOut index_out) {
  using T = detail::value_of<In>;
  using detail::is_null;
  if (temp != nullptr && (is_null(value_out) || is_null(index_out) || (n > 0 && is_null(in))))
    return launcher.invalid_value;
  auto items = detail::unwrap(in);  // a thrust::device_ptr as its pointer: vector loads
  using items_t = decltype(items);
  using key = detail::arg_key<Max, T>;
  if constexpr (key::applies)
    if (n <= key::max_items)
      return device_reduce(launcher, temp, temp_bytes, detail::keyed_input<Max, items_t>{items}, n,
                           detail::arg_output<Max, T, ValueOut, IndexOut>{value_out, index_out}, minimum{}, key::none);
  return device_reduce(launcher, temp, temp_bytes, detail::indexed_input<items_t>{items}, n,
                       detail::arg_output<Max, T, ValueOut, IndexOut>{value_out, index_out}, detail::arg_extremum<Max>{},
                       detail::arg_identity<Max, T>());
}

namespace detail {
template <class In, class Pred>
struct counted {  // 1 where pred(in[i]), 0 elsewhere: count_if as a sum
  In in;
  Pred pred;
  using value_type = count_t;
  static constexpr bool counts_items = true;
  TILEKIT_HD count_t operator[](count_t i) const { return pred(in[i]) ? 1 : 0; }
};
template <class T>
struct equal_to_value {
  T value;
  template <class U>
  TILEKIT_HD bool operator()(const U& x) const { return x == value; }
};
}  // namespace detail

/// The device-wide count_if's dispatch: *out = the number of items with pred(in[i]),
/// as a device reduce of 64-bit counts (its temp_bytes and errors).
template <class Launcher, class In, class Out, class Pred>
typename Launcher::error_type device_count_if(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                              detail::count_t n, Out out, Pred pred) {
  if constexpr (detail::wraps_pointer_v<In>)  // thrust::device_ptr: read it as its pointer
    return device_count_if(launcher, temp, temp_bytes, detail::unwrap(in), n, out, pred);
  if (temp != nullptr && n > 0 && detail::is_null(in)) return launcher.invalid_value;
  return device_reduce(launcher, temp, temp_bytes, detail::counted<In, Pred>{in, pred}, n, out, plus{},
                       detail::count_t(0));
}

}  // namespace tilekit

// ---------------------------------------------------------------- GPU entry points
#if defined(__CUDACC__)
namespace tilekit::device {

template <class In, class Out, class T, class Op>
cudaError_t reduce(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Op op, T init,
                   cudaStream_t stream = 0) {
  return device_reduce(gpu_launcher{stream}, temp, temp_bytes, in, n, out, op, init);
}

template <class In, class Out, class T, class Op>
cudaError_t reduce(In in, std::int64_t n, Out out, Op op, T init, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* temp, std::size_t& bytes) {
    return device::reduce(temp, bytes, in, n, out, op, init, stream);
  });
}

/// The sum, accumulated in out's value type where it has one (int items into a long
/// long output add as long long), else in the items' type, as cub::DeviceReduce::Sum.
template <class In, class Out>
cudaError_t sum(In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::output_value<Out, tilekit::detail::value_of<In>>;
  return device::reduce(in, n, out, plus{}, identity<T>(plus{}), stream);
}

template <class In, class Out>
cudaError_t min(In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device::reduce(in, n, out, minimum{}, identity<T>(minimum{}), stream);
}

template <class In, class Out>
cudaError_t max(In in, std::int64_t n, Out out, cudaStream_t stream = 0) {
  using T = tilekit::detail::value_of<In>;
  return device::reduce(in, n, out, maximum{}, identity<T>(maximum{}), stream);
}

/// The first smallest item by `<` and its index (Max: the first largest), as
/// cub::DeviceReduce::ArgMin / ArgMax: an empty input gives the type's max
/// (lowest) and index 1. `<` must be a strict weak order on the values present
/// (with NaNs the result is some item's, the same run after run for a given n, as
/// CUB's depends on its combination order). One launch, as reduce; 4-byte integers and
/// floats below 2^31 items reduce 8-byte keys (device_arg_extremum).
template <bool Max, class In, class ValueOut, class IndexOut>
cudaError_t arg_extremum(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, ValueOut value_out,
                         IndexOut index_out, cudaStream_t stream = 0) {
  return device_arg_extremum<Max>(gpu_launcher{stream}, temp, temp_bytes, in, n, value_out, index_out);
}

template <class In, class ValueOut, class IndexOut>
cudaError_t arg_min(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, ValueOut value_out, IndexOut index_out,
                    cudaStream_t stream = 0) {
  return arg_extremum<false>(temp, temp_bytes, in, n, value_out, index_out, stream);
}

template <class In, class ValueOut, class IndexOut>
cudaError_t arg_max(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, ValueOut value_out, IndexOut index_out,
                    cudaStream_t stream = 0) {
  return arg_extremum<true>(temp, temp_bytes, in, n, value_out, index_out, stream);
}

/// *out = the number of items with pred(in[i]) (a 64-bit count; out may point to a
/// narrower integer); count: the items == value. As reduce: temp_bytes, errors.
template <class In, class Out, class Pred>
cudaError_t count_if(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, Out out, Pred pred,
                     cudaStream_t stream = 0) {
  return device_count_if(gpu_launcher{stream}, temp, temp_bytes, in, n, out, pred);
}

template <class In, class Out, class T>
cudaError_t count(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, const T& value, Out out,
                  cudaStream_t stream = 0) {
  return device_count_if(gpu_launcher{stream}, temp, temp_bytes, in, n, out, tilekit::detail::equal_to_value<T>{value});
}

template <class In, class Out, class Pred>
cudaError_t count_if(In in, std::int64_t n, Out out, Pred pred, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::count_if(t, b, in, n, out, pred, stream); });
}

template <class In, class Out, class T>
cudaError_t count(In in, std::int64_t n, const T& value, Out out, cudaStream_t stream = 0) {
  return detail::with_temp(stream, [&](void* t, std::size_t& b) { return device::count(t, b, in, n, value, out, stream); });
}

}  // namespace tilekit::device
#endif  // __CUDACC__
