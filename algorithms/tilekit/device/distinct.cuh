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
// no sorting. Pass 1 puts every key into a hash set in the temporary storage (open
// addressing with linear probing), each slot keeping the lowest index of its key (with
// 4-byte keys and n < 2^32 key and index share one 64-bit word); a thread reads several
// keys and their first slots before inserting any, and an index already beaten is not
// sent. The set is first a small one (distinct_tuning::small_set_bytes, mostly in L2);
// once the keys it took pass 3/8 of its slots it is flagged full, the pass stops, and a
// second pass (launched always, idle unless flagged) zeroes and fills a set of 1.5-3 n slots.
// Where 1.5 n slots fit in the small set, there is only that one. Pass 2 marks each
// slot's lowest index in a bitmap of n bits; pass 3 scans the marked counts of groups of
// 1024 items and copies each marked item to its place (a warp per group). So the input is
// read once, and again only where marked; the hash set is probed once per item (a 32-byte
// group of slots at a time); past the small set's size, the slots a call zeroes and reads
// grow with the distinct keys, not with n. Keys: integers of 4 or 8 bytes, compared bitwise.
// Temporary storage: about 1.5 to 3 n x 8 bytes (4-byte keys, n < 2^32), 16 bytes
// otherwise, plus n / 8 bytes (the bitmap) and the small set.
//
// device_unique_count(launcher, temp, temp_bytes, in, n, out): *out = the number of
// runs of equal (==) adjacent items (what unique would keep), as a device reduce.

namespace detail {

// Pass 1: every key into `set`. The first of two sets may fill: where the keys it took
// pass claim_limit, or a key finds no room within max_probes slots of its home, it sets
// flags[0], and every warp stops at its next trip (a grid's trip is about 400 000 keys on
// the H200, so the set stops filling soon after claim_limit). The second runs only where
// flags[0] is set, into a set that cannot fill; so does the only set of a call that has one.
enum class insert_pass { only_set, first_of_two, second_of_two };

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
  unsigned* flags;  // [0] the first set is full, [1] the keys it took; zeroed with the first set
  unsigned long long max_probes, claim_limit;
  insert_pass pass;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    be::wait_for_prior_grid();  // the first pass is launched by zero_then_run
    if (pass == insert_pass::second_of_two && be::load_relaxed(flags) == 0) return;  // the first set held every key
    const bool may_fill = pass == insert_pass::first_of_two;
    auto warp = tilekit::tiled_partition<32>(block);
    // A warp's trip: Items rows of 32 consecutive items. Every lane of a warp runs the
    // same trips (the looks at flags are collective).
    constexpr count_t warp_items = 32 * count_t(Items);
    const count_t warps = count_t(ctx.grid().num_blocks()) * (Threads / 32);
    const count_t warp_rank = count_t(ctx.grid().block_rank()) * (Threads / 32) + block.thread_rank() / 32;
    for (count_t base = warp_rank * warp_items; base < n; base += warps * warp_items) {
      if (may_fill && warp.any(be::load_relaxed(flags) != 0u)) return;
      T key[Items];
      unsigned long long at[Items];
      bool live[Items];
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) {
        const count_t i = base + 32 * count_t(k) + warp.thread_rank();
        live[k] = i < n;
        key[k] = streamed(in, live[k] ? i : base);  // past n: a key of the trip's, read but not inserted
      }
      TILEKIT_UNROLL
      for (unsigned k = 0; k < Items; ++k) at[k] = set.start(key[k]);
      unsigned claims = 0;
      bool full = false;
      for (unsigned long long probes = 1;; ++probes) {
        unsigned long long seen[Items][4];
        TILEKIT_UNROLL
        for (unsigned k = 0; k < Items; ++k)
          if (live[k]) set.read_group(at[k], seen[k]);
        bool more = false;
        TILEKIT_UNROLL
        for (unsigned k = 0; k < Items; ++k)
          if (live[k]) {
            const auto done = set.template insert_step<be>(key[k], base + 32 * count_t(k) + warp.thread_rank(), at[k], seen[k]);
            claims += done == set_t::step::claimed;
            live[k] = done == set_t::step::next;
            more = more || live[k];
          }
        if (!more) break;
        if (probes * set_t::group >= max_probes) {
          full = true;
          break;
        }
      }
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

// Zeroes words 64-bit words at p where *full is set (the second set, before it is filled).
struct zero_if_flagged {
  static constexpr unsigned Threads = 256;
  const unsigned* full;
  unsigned long long* p;
  count_t words;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    if (be::load_relaxed(full) == 0) return;
    const count_t threads = count_t(ctx.grid().num_blocks()) * Threads;
    for (count_t w = count_t(ctx.grid().block_rank()) * Threads + block.thread_rank(); w < words; w += threads) p[w] = 0;
  }
};

// Pass 2: bit i of `bits` (zeroed) for every index i a slot of the filled set keeps
// (`second` where *full is set, else `first`). Each index is kept by one slot at
// most, so adding the bit sets it.
template <class T, bool Packed>
struct mark_first_occurrences {
  static constexpr unsigned Threads = 256;
  const unsigned* full;
  key_set<T, Packed> first, second;
  unsigned* bits;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    using be = typename decltype(block)::backend;
    const key_set<T, Packed> set = second.slots != first.slots && be::load_relaxed(full) != 0 ? second : first;
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
// small_slots: the first set's most slots (distinct_tuning::small_set_bytes; tests pass
// fewer to exercise the second set).
template <bool Packed, class Launcher, class In, class Out, class NumOut>
typename Launcher::error_type distinct_with(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                            count_t n, Out out, NumOut num_out,
                                            unsigned long long small_slots = distinct_tuning::small_set_bytes /
                                                                             (8 * key_set<value_of<In>, Packed>::words)) {
  using T = value_of<In>;
  using set_t = key_set<T, Packed>;
  const count_t items = n > 0 ? n : 0;
  unsigned long long capacity = 64, small = 64;  // powers of two
  while (capacity < static_cast<unsigned long long>(items) + static_cast<unsigned long long>(items) / 2) capacity *= 2;
  while (small * 2 <= small_slots && small < capacity) small *= 2;
  const bool two_sets = small < capacity;
  // The first set follows the flag and the bitmap, so that one zeroing clears all three.
  const count_t words = (items + 31) / 32, groups = (words + 31) / 32;  // of the bitmap; of 1024 items
  temp_carver carve(temp);
  unsigned* flags = carve.take<unsigned>(2);  // the first set is full; the keys it took
  unsigned* bits = carve.take<unsigned>(std::size_t(words));
  const set_t first{carve.take<unsigned long long>(set_t::allocated(small) * set_t::words), small - 1};
  const set_t second =
      two_sets ? set_t{carve.take<unsigned long long>(set_t::allocated(capacity) * set_t::words), capacity - 1} : first;
  count_t* ends = carve.take<count_t>(std::size_t(groups));
  std::size_t scan_bytes = 0;
  device_scan<true>(launcher, nullptr, scan_bytes, ends, groups, ends, plus{}, count_t(0), false);
  void* scan_temp = carve.take<unsigned char>(scan_bytes);
  if (n < 0) return launcher.invalid_value;  // the size query too
  if (temp == nullptr) {
    temp_bytes = carve.bytes();
    return launcher.success;
  }
  if (temp_bytes < carve.bytes()) return launcher.invalid_value;
  if (is_null(num_out) || (n > 0 && (is_null(in) || is_null(out)))) return launcher.invalid_value;
  const unsigned sms = launcher.sm_count() > 0 ? launcher.sm_count() : 1;
  // Blocks of 256 threads (every kernel here has 256) for `threads` threads, at most
  // blocks_per_sm a multiprocessor (one wave: every kernel here strides its grid).
  auto grid_for = [&](count_t threads, unsigned blocks_per_sm) {
    const count_t wanted = (threads + 255) / 256;
    return unsigned(wanted < 1 ? 1 : wanted < count_t(sms) * blocks_per_sm ? wanted : count_t(sms) * blocks_per_sm);
  };
  if (n > 0) {
    using insert_t = distinct_insert_body<In, Packed>;
    const unsigned insert_grid = grid_for(n / insert_t::Items + 1, insert_t::MinBlocksPerSM);
    const unsigned long long first_probes =
        two_sets && distinct_tuning::max_probes < small ? distinct_tuning::max_probes : small;
    const insert_pass kind = two_sets ? insert_pass::first_of_two : insert_pass::only_set;
    const insert_t first_pass{in, n, first, flags, first_probes, small / 8 * distinct_tuning::first_set_load_eighths, kind};
    const std::size_t zeroed = std::size_t(reinterpret_cast<unsigned char*>(first.slots + set_t::allocated(small) * set_t::words) -
                                           reinterpret_cast<unsigned char*>(flags));
    if (auto e = launcher.zero_then_run(flags, zeroed, true, insert_grid, insert_t::Threads, first_pass); e != launcher.success)
      return e;
    if (two_sets) {
      const count_t set_words = count_t(set_t::allocated(capacity) * set_t::words);
      if (auto e = launcher.run(grid_for(set_words / 4, 8), zero_if_flagged::Threads, zero_if_flagged{flags, second.slots, set_words});
          e != launcher.success)
        return e;
      const insert_t second_pass{in, n, second, flags, capacity, 0, insert_pass::second_of_two};
      if (auto e = launcher.run(insert_grid, insert_t::Threads, second_pass); e != launcher.success) return e;
    }
    using mark_t = mark_first_occurrences<T, Packed>;
    if (auto e = launcher.run(grid_for(count_t(capacity + 1), 8), mark_t::Threads, mark_t{flags, first, second, bits});
        e != launcher.success)
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
