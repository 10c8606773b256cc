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
// @pre every thread of the block calls; warp striped: Threads is a multiple of 32.
#pragma once
#include <tilekit/core/config.hpp>

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

}  // namespace tilekit::cub::detail
