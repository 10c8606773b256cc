// tilekit/detail/block_shape.hpp - what the block-level algorithms share: the
// warp layout of a block, uninitialised shared-memory slots, and the "maybe"
// wrapper that lets partial tiles (valid_items) reuse the full-tile code paths
// without needing an identity for the operator.
#pragma once
#include <tilekit/detail/std.hpp>
#include <tilekit/group_traits.hpp>

namespace tilekit {

namespace detail {

/// x < bound, written so that nvcc does not warn of a pointless comparison where
/// bound is 0 (block_shape<Threads>::full_warps of a block under 32 threads).
TILEKIT_HD constexpr bool below(unsigned x, unsigned bound) { return x < bound; }

/// The warps of a block of Threads threads: Full whole warps, then a last
/// warp of Rest lanes when Threads is not a multiple of 32.
template <unsigned Threads>
struct block_shape {
  static_assert(Threads >= 1 && Threads <= 1024,
                "tilekit block algorithms: Threads must be 1..1024 (use this_block<Threads>() / ctx.block<Threads>())");
  static constexpr unsigned full_warps = Threads / 32;
  static constexpr unsigned rest = Threads % 32;
  static constexpr unsigned warps = full_warps + (rest ? 1 : 0);
};

template <class Block>
constexpr unsigned static_threads() {
  static_assert(Block::static_size > 0,
                "tilekit block algorithms need the block size at compile time: use tilekit::this_block<Threads>() "
                "or ctx.block<Threads>()");
  return Block::static_size;
}

/// N slots of T, left unconstructed so storages can share a union and live in
/// __shared__ memory whatever T's constructors.
template <class T, unsigned N>
struct raw_slots {
  static_assert(N >= 1, "raw_slots: at least one slot");
  alignas(T) unsigned char bytes[N * sizeof(T)];
  TILEKIT_HD T& operator[](unsigned i) { return reinterpret_cast<T*>(bytes)[i]; }
  TILEKIT_HD const T& operator[](unsigned i) const { return reinterpret_cast<const T*>(bytes)[i]; }
};

/// A value that may be absent: partial tiles scan and reduce these, so absent
/// items need no identity element.
template <class T>
struct maybe {
  T value;
  bool present;
};

template <class Op>
struct maybe_op {
  Op op;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD maybe<T> operator()(const maybe<T>& a, const maybe<T>& b) const {
    if (a.present && b.present) return {op(a.value, b.value), true};
    return a.present ? a : b;
  }
};

/// How many of the K items of thread `rank` lie below valid_items (blocked arrangement).
TILEKIT_HD unsigned items_valid(unsigned rank, unsigned k, unsigned valid_items) {
  const unsigned first = rank * k;
  return valid_items <= first ? 0u : (valid_items - first < k ? valid_items - first : k);
}

}  // namespace detail
}  // namespace tilekit
