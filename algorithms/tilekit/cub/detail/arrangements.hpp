// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/detail/arrangements.hpp - what cub::BlockLoad, BlockStore and
// BlockExchange do, over tilekit's group API (plain C++17, __host__ __device__, so the
// simulator runs it: tests/sim/cub_collectives.cpp). K items per thread of a block of
// Threads threads (ranks row-major, as CUB), in CUB's arrangements:
//   blocked       thread t holds items t*K .. t*K+K-1
//   striped       thread t holds items t, t + Threads, .., t + (K-1)*Threads
//   warp striped  warp w owns items w*32*K ..; its lane l holds items l, l + 32, .. of them
// Exchanges go through shared slots of Threads * K items: every thread writes, the block
// waits, every thread reads (so input and output may be the same array). The caller
// syncs the block before the slots are used again, as with CUB's TempStorage.
// flag_discontinuities is what cub::BlockDiscontinuity does over blocked items.
// @pre every thread of the block calls; warp striped: Threads is a multiple of 32.
#pragma once
#include <tilekit/core/config.hpp>
#include <tilekit/core/std.hpp>

namespace tilekit::cub::detail {

/// Where item k of thread t lies in the block's run of Threads * K items, per arrangement.
template <unsigned Threads, unsigned K>
struct arrangement {
  TILEKIT_HD static constexpr unsigned blocked(unsigned t, unsigned k) { return t * K + k; }
  TILEKIT_HD static constexpr unsigned striped(unsigned t, unsigned k) { return k * Threads + t; }
  TILEKIT_HD static constexpr unsigned warp_striped(unsigned t, unsigned k) { return t / 32 * 32 * K + k * 32 + t % 32; }
};
enum class layout { blocked, striped, warp_striped };

template <unsigned Threads, unsigned K>
TILEKIT_HD constexpr unsigned position(layout l, unsigned t, unsigned k) {
  using a = arrangement<Threads, K>;
  return l == layout::blocked ? a::blocked(t, k) : l == layout::striped ? a::striped(t, k) : a::warp_striped(t, k);
}

/// out (arranged as To) = in (arranged as From), through slots (Threads * K items).
TILEKIT_EXEC_CHECK_DISABLE
template <layout From, layout To, unsigned Threads, class Block, class T, unsigned K>
TILEKIT_HD void exchange(const Block& block, const T (&in)[K], T (&out)[K], T* slots) {
  static_assert(From != layout::warp_striped || Threads % 32 == 0,
                "tilekit::cub: warp-striped arrangements need a block of whole warps");
  static_assert(To != layout::warp_striped || Threads % 32 == 0,
                "tilekit::cub: warp-striped arrangements need a block of whole warps");
  const unsigned t = block.thread_rank();
  TILEKIT_UNROLL
  for (unsigned k = 0; k < K; ++k) slots[position<Threads, K>(From, t, k)] = in[k];
  block.sync();
  TILEKIT_UNROLL
  for (unsigned k = 0; k < K; ++k) out[k] = slots[position<Threads, K>(To, t, k)];
}

/// items[k] = in[position(L, t, k)] for the positions below valid_items (the others keep
/// their values), straight from memory (no exchange).
TILEKIT_EXEC_CHECK_DISABLE
template <layout L, unsigned Threads, class Block, class In, class T, unsigned K>
TILEKIT_HD void load_direct(const Block& block, In in, T (&items)[K], int valid_items) {
  const unsigned t = block.thread_rank();
  TILEKIT_UNROLL
  for (unsigned k = 0; k < K; ++k) {
    const unsigned p = position<Threads, K>(L, t, k);
    if (int(p) < valid_items) items[k] = in[p];
  }
}

/// out[position(L, t, k)] = items[k] for the positions below valid_items.
TILEKIT_EXEC_CHECK_DISABLE
template <layout L, unsigned Threads, class Block, class Out, class T, unsigned K>
TILEKIT_HD void store_direct(const Block& block, Out out, const T (&items)[K], int valid_items) {
  const unsigned t = block.thread_rank();
  TILEKIT_UNROLL
  for (unsigned k = 0; k < K; ++k) {
    const unsigned p = position<Threads, K>(L, t, k);
    if (int(p) < valid_items) out[p] = items[k];
  }
}

/// Blocked items loaded through a coalesced arrangement (striped or warp striped: each
/// load instruction of a warp reads consecutive items) and an exchange.
TILEKIT_EXEC_CHECK_DISABLE
template <layout Via, unsigned Threads, class Block, class In, class T, unsigned K>
TILEKIT_HD void load_blocked_via(const Block& block, In in, T (&items)[K], int valid_items, T* slots) {
  load_direct<Via, Threads>(block, in, items, valid_items);
  exchange<Via, layout::blocked, Threads>(block, items, items, slots);
}

/// Blocked items stored through an exchange to a coalesced arrangement.
TILEKIT_EXEC_CHECK_DISABLE
template <layout Via, unsigned Threads, class Block, class Out, class T, unsigned K>
TILEKIT_HD void store_blocked_via(const Block& block, Out out, const T (&items)[K], int valid_items, T* slots) {
  T moved[K];
  exchange<layout::blocked, Via, Threads>(block, items, moved, slots);
  store_direct<Via, Threads>(block, out, moved, valid_items);
}

template <class T>
struct not_deduced {  // (C++20's type_identity) so that a null pointer can stand for a T*
  using type = T;
};

/// CUB's discontinuity operator: flag_op(a, b, b_index) where it takes an index, else flag_op(a, b).
TILEKIT_EXEC_CHECK_DISABLE
template <class Op, class T>
TILEKIT_HD bool discontinuous(Op& op, const T& a, const T& b, int b_index) {
  if constexpr (::tilekit::detail::stdx::is_invocable<Op&, const T&, const T&, int>::value) return bool(op(a, b, b_index));
  else return bool(op(a, b));
}

/// Head and tail flags of blocked items (thread t holds items t*K .. t*K+K-1). heads[k]: 1 for
/// the block's first item (or flag_op(*predecessor, it) where predecessor is given), else
/// flag_op(the item before, the item); tails[k]: 1 for the block's last item (or
/// flag_op(it, *successor) where given), else flag_op(the item, the item after). Either flag
/// array may be null (not computed). slots: 2 * Threads items of shared memory.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned Threads, class Block, class Flag, class T, unsigned K, class Op>
TILEKIT_HD void flag_discontinuities(const Block& block, Flag (*heads)[K], Flag (*tails)[K], const T (&in)[K], Op op,
                                     const typename not_deduced<T>::type* predecessor,
                                     const typename not_deduced<T>::type* successor, T* slots) {
  const unsigned t = block.thread_rank();
  slots[t] = in[K - 1];            // each thread's last item, for the thread after
  slots[Threads + t] = in[0];      // and its first, for the thread before
  block.sync();
  const int base = int(t * K);
  if (heads != nullptr) {
    Flag(&h)[K] = *heads;
    if (t > 0) h[0] = Flag(discontinuous(op, slots[t - 1], in[0], base));
    else h[0] = predecessor ? Flag(discontinuous(op, *predecessor, in[0], base)) : Flag(1);
    TILEKIT_UNROLL
    for (unsigned k = 1; k < K; ++k) h[k] = Flag(discontinuous(op, in[k - 1], in[k], base + int(k)));
  }
  if (tails != nullptr) {
    Flag(&f)[K] = *tails;
    TILEKIT_UNROLL
    for (unsigned k = 0; k + 1 < K; ++k) f[k] = Flag(discontinuous(op, in[k], in[k + 1], base + int(k) + 1));
    if (t + 1 < Threads) f[K - 1] = Flag(discontinuous(op, in[K - 1], slots[Threads + t + 1], base + int(K)));
    else f[K - 1] = successor ? Flag(discontinuous(op, in[K - 1], *successor, base + int(K))) : Flag(1);
  }
}

}  // namespace tilekit::cub::detail
