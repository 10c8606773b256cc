// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/grid/detail/look_back.cuh - the decoupled look-back that chains the
// chunks (one per block) of a single-pass algorithm: the grid rung's chained scans
// and, above it, the device scan, select / partition / unique and run-length
// encode. The states each chunk publishes (its aggregate, then its inclusive
// prefix), how they are stored and polled, and the window walk back.
#pragma once
#include <tilekit/core/iterator.hpp>
#include <tilekit/tile/reduce.cuh>

#include <cstring>

namespace tilekit {

/// The decoupled look-back's pauses. A chunk publishes its aggregate and pauses
/// first_poll_ns before it polls its predecessors (they are still loading, scanning
/// or looking back themselves), then retry_ns between polls while one of them has
/// published nothing. Grids of fewer than patient_grid chunks never pause: their
/// chunks are all resident at once, and a pause would be pure latency. (0 and 0 poll
/// at once and back to back.) -DTILEKIT_LOOK_BACK_FIRST_POLL_NS=.. with
/// -DTILEKIT_LOOK_BACK_RETRY_NS=.. override both (for measuring).
struct look_back_tuning {
#if defined(TILEKIT_LOOK_BACK_FIRST_POLL_NS)
  static constexpr unsigned first_poll_ns = TILEKIT_LOOK_BACK_FIRST_POLL_NS, retry_ns = TILEKIT_LOOK_BACK_RETRY_NS;
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // sm_90: CUB 3.x's first pause (1245 ns), then a shorter retry than its 648. H200, int32,
  // against the faster CUB, 650 / 300 ns (perf/results/2026-12-04-h200-7): select 2^24 1.22 /
  // 1.24x, partition 1.14 / 1.15, run-length encode 2^22 1.07 / 1.10; the same at 2^28 (grids
  // below patient_grid never pause: their differences there are run-to-run spread). A first
  // pause of 600 or 300 ns lost 2-5% at 2^24-2^28; 2000 changed nothing.
  static constexpr unsigned first_poll_ns = 1200, retry_ns = 300;
#else
  static constexpr unsigned first_poll_ns = 0, retry_ns = 0;  // sm_75 / sm_80 and the simulator: not measured
#endif
#if defined(TILEKIT_LOOK_BACK_PATIENT_GRID)  // for measuring
  static constexpr unsigned patient_grid = TILEKIT_LOOK_BACK_PATIENT_GRID;
#else
  // About the chunks resident at once on the H200 (132 SMs x 7-8 blocks). H200, against the
  // faster CUB, 1100 / 500 (perf/results/2026-12-04-h200-5): double scan 1.03 / 0.99 at 2^20,
  // int64 1.05 / 1.01; select, unique, partition, run-length encode and the int32 scan 4% ahead
  // at 2^21, the int32 scan 4% behind at 2^22 (1.22 / 1.28), select 4% ahead there.
  static constexpr unsigned patient_grid = 1100;
#endif
};

}  // namespace tilekit

namespace tilekit::detail {

// The published state of the chunks: a flag (0 nothing yet, 1 aggregate, 2
// inclusive prefix) and a value per chunk.
//   Values of up to 4 bytes share one 64-bit word with their flag: one relaxed
//   store publishes both, one relaxed load reads both; no fence anywhere.
//   8-byte values: the flag and the value in one 16-byte word, published by one
//   16-byte store and polled by one 16-byte load (see store_relaxed_pair).
//   Larger values: a flag word and the values as 32-bit words, written before the
//   flag is released and read after its acquire (an acquire also empties the L1,
//   so this path costs more).
// poll(chunk, v) reads the chunk's state once: its flag (0: nothing yet), and v where set.
enum class state_layout { packed, pair, fenced };
template <class T>
constexpr state_layout state_layout_of() {
  return sizeof(T) <= 4 ? state_layout::packed : sizeof(T) == 8 ? state_layout::pair : state_layout::fenced;
}
template <class T, state_layout Layout = state_layout_of<T>()>
struct chunk_states {
  static constexpr std::size_t flag_words = 0;   // 32-bit words of temp storage per chunk: flags
  static constexpr std::size_t value_words = 2;  // and values (here one 64-bit word, flag included)
  unsigned* flags;
  unsigned* values;  // as unsigned long long, one per chunk

  template <class Backend>
  TILEKIT_HD void publish(count_t chunk, unsigned flag, const T& v) const {
    unsigned bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    Backend::store_relaxed(word(chunk), (static_cast<unsigned long long>(flag) << 32) | bits);
  }
  template <class Backend>
  TILEKIT_HD unsigned poll(count_t chunk, T& v) const {
    const unsigned long long w = Backend::load_relaxed(word(chunk));
    const unsigned bits = static_cast<unsigned>(w);
    std::memcpy(static_cast<void*>(&v), &bits, sizeof(T));
    return static_cast<unsigned>(w >> 32);
  }
  TILEKIT_HD unsigned long long* word(count_t chunk) const { return reinterpret_cast<unsigned long long*>(values) + chunk; }
};

template <class T>
struct chunk_states<T, state_layout::pair> {
  static constexpr std::size_t flag_words = 0;
  static constexpr std::size_t value_words = 4;  // one 16-byte word: the flag, then the value
  unsigned* flags;
  unsigned* values;  // as pairs of unsigned long long, one pair per chunk (16-byte aligned)

  template <class Backend>
  TILEKIT_HD void publish(count_t chunk, unsigned flag, const T& v) const {
    unsigned long long bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    Backend::store_relaxed_pair(word(chunk), flag, bits);
  }
  template <class Backend>
  TILEKIT_HD unsigned poll(count_t chunk, T& v) const {
    unsigned long long flag = 0, bits = 0;
    Backend::load_relaxed_pair(word(chunk), flag, bits);
    std::memcpy(static_cast<void*>(&v), &bits, sizeof(T));
    return static_cast<unsigned>(flag);
  }
  TILEKIT_HD unsigned long long* word(count_t chunk) const { return reinterpret_cast<unsigned long long*>(values) + 2 * chunk; }
};

// The fenced layouts' values: v as 32-bit words at dst (stored plainly; the release of
// its flag follows), and read back from src word by word with relaxed loads after the
// flag's acquire (they bypass L1: never stale).
template <class T>
TILEKIT_HD void store_words(unsigned* dst, const T& v) {
  unsigned w[(sizeof(T) + 3) / 4] = {};
  std::memcpy(w, &v, sizeof(T));
  for (unsigned i = 0; i < (sizeof(T) + 3) / 4; ++i) dst[i] = w[i];
}
template <class Backend, class T>
TILEKIT_HD void load_words(const unsigned* src, T& v) {
  unsigned w[(sizeof(T) + 3) / 4];
  for (unsigned i = 0; i < (sizeof(T) + 3) / 4; ++i) w[i] = Backend::load_relaxed(src + i);
  std::memcpy(static_cast<void*>(&v), w, sizeof(T));
}

template <class T>
struct chunk_states<T, state_layout::fenced> {
  static constexpr std::size_t flag_words = 1;
  static constexpr std::size_t words = (sizeof(T) + 3) / 4;
  static constexpr std::size_t value_words = 2 * words;  // aggregate, inclusive
  unsigned* flags;
  unsigned* values;

  template <class Backend>
  TILEKIT_HD void publish(count_t chunk, unsigned flag, const T& v) const {
    store_words(values + (2 * chunk + (flag - 1)) * words, v);
    Backend::store_release(flags + chunk, flag);
  }
  template <class Backend>
  TILEKIT_HD unsigned poll(count_t chunk, T& v) const {
    const unsigned flag = Backend::load_acquire(flags + chunk);
    if (flag == 0) return 0;
    load_words<Backend>(values + (2 * chunk + (flag - 1)) * words, v);
    return flag;
  }
};

// Chunk states that need no zeroing between uses: each word carries the epoch it
// was published in (tag = epoch * 4 + flag), and a poll that finds another epoch's
// tag reads "nothing yet". The grid rung's chained scans use them (their storage is
// zeroed once, and each launch publishes under the epoch after the previous one), and
// so do the device level's single-pass kernels (launch_states: storage never zeroed).
//   Values of up to 8 bytes: the tag and the value in one 16-byte word (one store,
//   one load, as chunk_states' pair layout).
//   Larger values: values first, then the tag released; polled by an acquire of the
//   tag, then the values.
// Codec (the pair layout's): packs a value into the 64-bit word beside the tag
// (bits(v)) and back (unpack(bits, v)); by default its bytes as they are. A value that
// a Codec packs into 64 bits takes the pair layout whatever its size.
template <class T>
struct bit_copy {
  TILEKIT_HD static unsigned long long bits(const T& v) {
    unsigned long long b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
  }
  TILEKIT_HD static void unpack(unsigned long long b, T& v) { std::memcpy(static_cast<void*>(&v), &b, sizeof(T)); }
};
template <class T, bool Pair = (sizeof(T) <= 8), class Codec = bit_copy<T>>
struct epoch_states {
  static constexpr std::size_t words = (sizeof(T) + 3) / 4;
  // per chunk, as unsigned long long: the pair (tag, value), or the tag alone
  static constexpr std::size_t tag_words = Pair ? 2 : 1;
  // 32-bit words of values per chunk where they are apart from the tag: aggregate, inclusive
  static constexpr std::size_t value_words = Pair ? 0 : 2 * words;
  unsigned long long* tags;
  unsigned* values;
  unsigned long long epoch;

  template <class Backend>
  TILEKIT_HD void publish(count_t chunk, unsigned flag, const T& v) const {
    const unsigned long long tag = epoch * 4 + flag;
    if constexpr (Pair) {
      Backend::store_relaxed_pair(tags + 2 * chunk, tag, Codec::bits(v));
    } else {
      store_words(values + (2 * chunk + (flag - 1)) * words, v);
      Backend::store_release(tags + chunk, tag);
    }
  }
  template <class Backend>
  TILEKIT_HD unsigned poll(count_t chunk, T& v) const {
    if constexpr (Pair) {
      unsigned long long tag = 0, bits = 0;
      Backend::load_relaxed_pair(tags + 2 * chunk, tag, bits);
      if (tag / 4 != epoch) return 0;
      Codec::unpack(bits, v);
      return static_cast<unsigned>(tag % 4);
    } else {
      const unsigned long long tag = Backend::load_acquire(tags + chunk);
      const unsigned flag = static_cast<unsigned>(tag % 4);
      if (tag / 4 != epoch || flag == 0) return 0;
      load_words<Backend>(values + (2 * chunk + (flag - 1)) * words, v);
      return flag;
    }
  }
};

// The window walk's reduction: op over the values of lanes from .. 31 of the warp, in
// lane order, in lane 0 (every lane where the operator is a built-in one on 32-bit
// integers: one redux.sync). `from` is the same in every lane.
TILEKIT_EXEC_CHECK_DISABLE
template <class Warp, class T, class Op>
TILEKIT_HD T window_reduce(const Warp& warp, const T& value, unsigned from, Op op) {
  const unsigned lane = warp.thread_rank();
  if constexpr (hardware_reducible_v<T, Op> && Warp::has_hardware_reduce && has_identity_v<T, Op>) {
    return reduce_hardware(warp, lane >= from ? value : identity<T>(op), op);  // commutative: order is free
  } else {
    // Lane i takes lane from + i's value; then a tree over the first 32 - from lanes,
    // each step combining a lane with a higher one on its right: order is kept.
    T x = warp.shfl_down(value, from);
    const unsigned count = 32 - from;
    TILEKIT_UNROLL
    for (unsigned d = 1; d < 32; d *= 2) {
      const T right = warp.shfl_down(x, d);
      if (lane + d < count) x = op(x, right);
    }
    return x;
  }
}

// The block scan's prefix callback for chunk `chunk` (called by the first warp):
// publishes the aggregate, looks back, publishes the inclusive prefix and returns
// (in lane 0) the seed of this chunk ([init op] everything before it). The warp
// polls a window of the 32 chunks before the nearest one it has not yet folded,
// all lanes together, pausing between polls (look_back_tuning), until each of them
// has published; the window's values from its nearest inclusive prefix on are
// reduced (window_reduce) and the walk ends there, or goes on 32 chunks further back.
// MaxAggregate (0: none known): a bound on every chunk's aggregate; with 64-bit
// counts (plus), 31 aggregates below 2^32 add up in one 32-bit redux.sync. An Op with
// `static constexpr bool reduces_windows = true` reduces the windows itself:
// op.window(warp, value, from), as window_reduce (e.g. counts known to be small).
template <class Op, class = void>
inline constexpr bool reduces_windows_v = false;
template <class Op>
inline constexpr bool reduces_windows_v<Op, stdx::void_t<decltype(Op::reduces_windows)>> = Op::reduces_windows;

template <class Block, class T, class Op, class States = chunk_states<T>, count_t MaxAggregate = 0>
struct look_back {
  Block block;  // by value, as everything here: nothing needs an address (no local memory)
  States states;
  count_t chunk;
  Op op;
  T init;
  bool has_init;
  bool patient = false;  // pause before and between polls (look_back_tuning): the grid is large

  static constexpr bool narrow_counts = stdx::is_same<T, count_t>::value && builtin_kind_v<Op> == builtin_op::sum &&
                                        MaxAggregate > 0 && MaxAggregate * 31 < (count_t(1) << 32);

  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD T operator()(const T& aggregate) const {
    using be = typename Block::backend;
    auto warp = tilekit::tiled_partition<32>(block);
    const unsigned lane = warp.thread_rank();
    if (chunk == 0) {
      if (lane == 0) states.template publish<be>(0, 2, aggregate);
      return init;  // @pre chunk 0 calls back only with an init
    }
    if (lane == 0) states.template publish<be>(chunk, 1, aggregate);
    if (patient) be::pause(look_back_tuning::first_poll_ns);
    T prefix = aggregate;  // placeholder until the first window
    bool have = false;
    for (count_t end = chunk;; end -= 32) {
      const count_t j = end - 32 + count_t(lane);  // lane 31: the nearest chunk
      T value = aggregate;
      unsigned flag = 3;  // lanes before chunk 0: nothing to wait for (chunk 0 is inclusive)
      for (;;) {
        if (j >= 0) flag = states.template poll<be>(j, value);
        if (warp.all(flag != 0)) break;
        if (patient) be::pause(look_back_tuning::retry_ns);
      }
      const unsigned inclusive_lanes = warp.ballot(flag == 2);
      const unsigned from = inclusive_lanes ? detail::highest_bit(inclusive_lanes) : 0u;
      T window;
      if constexpr (narrow_counts) {
        const count_t first = warp.shfl(value, from);  // the inclusive prefix, or the window's first aggregate
        const unsigned later = lane > from ? static_cast<unsigned>(value) : 0u;
        window = first + count_t(tilekit::reduce_hardware(warp, later, plus{}));
      } else if constexpr (reduces_windows_v<Op>) {
        window = op.window(warp, value, from);
      } else {
        window = window_reduce(warp, value, from, op);
      }
      prefix = have ? op(window, prefix) : window;
      have = true;
      if (inclusive_lanes) break;  // chunk 0 always publishes an inclusive prefix
    }
    if (lane == 0) states.template publish<be>(chunk, 2, op(prefix, aggregate));
    return has_init ? op(init, prefix) : prefix;
  }
};

}  // namespace tilekit::detail
