// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/block/exchange.cuh - the named arrangements of a block's items, and the
// moves between them through shared memory. Index arithmetic over these
// arrangements is spelled here and nowhere else.
//
//   blocked       thread t holds items t*K .. t*K+K-1 (what the block scans take)
//   warp rows     each warp owns a stretch of R rows of 32 lanes x V items: lane l
//                 holds items r*32*V + l*V .. + V-1 of row r. With V items to a
//                 16-byte vector, a row is one vector load per lane and every
//                 load of a warp is contiguous (select, run-length encode).
//   warp striped  lane l holds items j*32 + l (j = 0 .. K-1) of its warp's stretch:
//                 each load or store of a warp covers 32 consecutive items.
// warp_transpose moves a warp's stretch between blocked and warp-striped through
// the warp's share of shared memory, item by item; warp_vector_transpose does the
// same 16 bytes at a time (inputs of arithmetic items that divide 16 bytes).
#pragma once
#include <tilekit/core/config.hpp>
#include <tilekit/core/iterator.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/tile/scan.cuh>

namespace tilekit {

/// The warp-rows arrangement of a warp's stretch: R rows of 32 lanes x V items.
template <unsigned R, unsigned V>
struct warp_rows {
  static constexpr unsigned row_items = 32 * V;       ///< items in a row: 32 lanes x V
  static constexpr unsigned items = R * row_items;   ///< items in the stretch: R rows
  /// Bits that hold a count of up to row_items (row_ranks packs one per row).
  static constexpr unsigned field_bits = row_items < 64 ? 6 : row_items < 128 ? 7 : row_items < 256 ? 8 : row_items < 512 ? 9 : 10;
  static_assert(row_items < 1024, "tilekit::warp_rows: at most 31 items per lane in a row");
  /// Where item j of lane `lane` in row r lies in the stretch.
  TILEKIT_HD static constexpr unsigned offset(unsigned r, unsigned lane, unsigned j) { return r * row_items + lane * V + j; }
  /// The same item's index in the whole input, for a stretch starting at `stretch`. (64-bit
  /// arithmetic throughout: in the select kernel, adding a 32-bit offset instead cost spills.)
  TILEKIT_HD static constexpr detail::count_t index(detail::count_t stretch, unsigned r, unsigned lane, unsigned j) {
    return stretch + detail::count_t(r) * row_items + detail::count_t(lane) * V + j;
  }

  /// Lane `lane`'s items of the stretch at in[stretch ..]: items[r][j] = in[stretch + offset(r, lane, j)],
  /// T{} past n. With `vectors` (a whole stretch of an input aligned as vector_of<T, V>), one
  /// load of a lane's V items per row (16 bytes for the items; 4 for one-byte flags beside 4-byte items).
  template <class In, class T>
  TILEKIT_HD static void load(T (&items)[R][V], In in, detail::count_t n, detail::count_t stretch, unsigned lane,
                              bool vectors) {
    if constexpr (detail::vector_loadable_v<In>) {
      if (vectors) {
        TILEKIT_UNROLL
        for (unsigned r = 0; r < R; ++r) {
          const auto v = detail::load_vector<T, V>(in + index(stretch, r, lane, 0));
          TILEKIT_UNROLL
          for (unsigned j = 0; j < V; ++j) items[r][j] = v.item[j];
        }
        return;
      }
    }
    TILEKIT_UNROLL
    for (unsigned r = 0; r < R; ++r) {
      TILEKIT_UNROLL
      for (unsigned j = 0; j < V; ++j) {
        const detail::count_t i = index(stretch, r, lane, j);
        items[r][j] = i < n ? T(in[i]) : T{};
      }
    }
  }

  /// Stable ranks of the items a warp counts, in the stretch's order, from each lane's
  /// count in each row (counts[r] <= V): before[r] = the counted items of the rows above
  /// r plus those of the lower lanes in row r; returns the warp's total. One warp scan
  /// of the rows' counts packed into a word (a field of field_bits per row; one scan per
  /// 64 bits of fields) in place of a ballot and two popc per item.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Warp>
  TILEKIT_HD static unsigned row_ranks(const Warp& warp, const unsigned (&counts)[R], unsigned (&before)[R]) {
    constexpr unsigned group = R * field_bits <= 64 ? R : 64 / field_bits;  // rows per scan
    using word = detail::stdx::conditional_t<group * field_bits <= 32, unsigned, unsigned long long>;
    constexpr word field = (word(1) << field_bits) - 1;
    unsigned above = 0;
    TILEKIT_UNROLL
    for (unsigned first = 0; first < R; first += group) {
      word mine = 0;
      TILEKIT_UNROLL
      for (unsigned r = first; r < R && r < first + group; ++r) mine |= word(counts[r]) << ((r - first) * field_bits);
      const word inclusive = inclusive_scan(warp, mine, plus{});  // no field overflows: a row holds < 2^field_bits
      const word exclusive = inclusive - mine, totals = warp.shfl(inclusive, 31);
      TILEKIT_UNROLL
      for (unsigned r = first; r < R && r < first + group; ++r) {
        before[r] = above + unsigned((exclusive >> ((r - first) * field_bits)) & field);
        above += unsigned((totals >> ((r - first) * field_bits)) & field);
      }
    }
    return above;
  }
};

/// A warp's 32 x K items moved between blocked and warp-striped through `slots`
/// (the warp's own shared memory, slots T's): one pad slot every 32, so both
/// directions are free of bank conflicts for 4-byte items.
template <unsigned K>
struct warp_transpose {
  static constexpr unsigned slots = 32 * K + K;  ///< shared T's the warp needs (one pad per 32)
  /// Where item i of the stretch lives in `slots`.
  TILEKIT_HD static constexpr unsigned padded(unsigned i) { return i + i / 32; }

  /// Blocked items of the stretch at in[..], read as warp-striped 16-byte vectors of Vec items.
  /// @pre a whole, 16-byte aligned stretch; K a multiple of Vec.
  template <unsigned Vec, class Warp, class V, class T>
  TILEKIT_HD static void load_vectors_to_blocked(const Warp& warp, const V* in, T (&items)[K], T* slots) {
    const unsigned lane = warp.thread_rank();
    TILEKIT_UNROLL
    for (unsigned j = 0; j < K / Vec; ++j) {
      const unsigned at = (j * 32 + lane) * Vec;
      const detail::vector_of<V, Vec> v = detail::load_vector<V, Vec>(in + at);
      TILEKIT_UNROLL
      for (unsigned i = 0; i < Vec; ++i) slots[padded(at + i)] = T(v.item[i]);
    }
    warp.sync();
    TILEKIT_UNROLL
    for (unsigned k = 0; k < K; ++k) items[k] = slots[padded(lane * K + k)];
  }

  /// Stores blocked items to out[stretch + i] for stretch + i < end, warp-striped: each
  /// store instruction of the warp writes 32 consecutive items.
  template <class Warp, class T, class Out>
  TILEKIT_HD static void store_blocked(const Warp& warp, const T (&items)[K], T* slots, Out out,
                                       detail::count_t stretch, detail::count_t end) {
    const unsigned lane = warp.thread_rank();
    TILEKIT_UNROLL
    for (unsigned k = 0; k < K; ++k) slots[padded(lane * K + k)] = items[k];
    warp.sync();
    TILEKIT_UNROLL
    for (unsigned j = 0; j < K; ++j) {
      const detail::count_t i = stretch + j * 32 + lane;
      if (i < end) out[i] = slots[padded(j * 32 + lane)];
    }
  }
};

/// A warp's 32 x K items (Vec to a 16-byte granule, K / Vec granules per lane) moved
/// between blocked and warp-striped 16-byte vectors through `slots` (the warp's own
/// shared memory, 32 * K T's, 16-byte aligned): one 16-byte shared access per granule
/// each way, and none of them conflicts. Granule g of the stretch lives at swizzled(g).
template <unsigned K, unsigned Vec>
struct warp_vector_transpose {
  static_assert(K % Vec == 0, "warp_vector_transpose: K must be a multiple of the items per 16-byte vector");
  static constexpr unsigned per_lane = K / Vec;  ///< granules a lane holds, blocked
  static constexpr unsigned slots = 32 * K;       ///< shared T's the warp needs
  // A quarter warp's 8 lanes are served at once; they are free of conflicts when their
  // granules differ mod 8. Blocked, lane l reads granule l * per_lane + j: with
  // d = gcd(per_lane, 8) those fall on 8 / d residues, d lanes on each. The lanes of one
  // residue lie in different runs of 8 / d lanes (`period` granules); xoring the low
  // bits with the run's index mod d moves them apart. Striped, 8 lanes read 8 aligned
  // consecutive granules: the same xor for all (period is a multiple of 8), no conflict.
  static constexpr unsigned gcd8 = per_lane % 8 == 0 ? 8 : per_lane % 4 == 0 ? 4 : per_lane % 2 == 0 ? 2 : 1;  ///< gcd(per_lane, 8)
  static constexpr unsigned period = 8 * per_lane / gcd8;  ///< granules in a run of 8 / gcd8 lanes
  /// The granule slot that holds granule g of the stretch.
  TILEKIT_HD static constexpr unsigned swizzled(unsigned g) { return g ^ ((g / period) % gcd8); }
  /// The slot that holds item i of the stretch.
  TILEKIT_HD static constexpr unsigned item_slot(unsigned i) { return swizzled(i / Vec) * Vec + i % Vec; }

  /// Blocked items of the whole, 16-byte aligned stretch at in[..], read as striped vectors.
  template <class Warp, class T>
  TILEKIT_HD static void load_vectors_to_blocked(const Warp& warp, const T* in, T (&items)[K], T* slots) {
    const unsigned lane = warp.thread_rank();
    TILEKIT_UNROLL
    for (unsigned s = 0; s < per_lane; ++s) {
      const unsigned g = s * 32 + lane;
      detail::store_vector<T, Vec>(slots + swizzled(g) * Vec, detail::load_vector<T, Vec>(in + g * Vec));
    }
    warp.sync();
    read_blocked(warp, slots, items);
  }

  /// The calling lane's blocked items from slots holding the whole stretch.
  template <class Warp, class T>
  TILEKIT_HD static void read_blocked(const Warp& warp, const T* slots, T (&items)[K]) {
    const unsigned lane = warp.thread_rank();
    TILEKIT_UNROLL
    for (unsigned j = 0; j < per_lane; ++j) {
      const auto v = detail::load_vector<T, Vec>(slots + swizzled(lane * per_lane + j) * Vec);
      TILEKIT_UNROLL
      for (unsigned i = 0; i < Vec; ++i) items[j * Vec + i] = v.item[i];
    }
  }

  /// Stores blocked items to out[stretch + i] for stretch + i < end, warp-striped. With
  /// `vectors` (out a T*, the whole stretch, out + stretch 16-byte aligned) one 16-byte
  /// store per granule; else item by item, 32 consecutive items per store instruction.
  /// @pre the warp has finished reading slots (a warp.sync() or block barrier since).
  template <class Warp, class T, class Out>
  TILEKIT_HD static void store_blocked(const Warp& warp, const T (&items)[K], T* slots, Out out,
                                       detail::count_t stretch, detail::count_t end, bool vectors) {
    const unsigned lane = warp.thread_rank();
    TILEKIT_UNROLL
    for (unsigned j = 0; j < per_lane; ++j) {
      detail::vector_of<T, Vec> v;
      TILEKIT_UNROLL
      for (unsigned i = 0; i < Vec; ++i) v.item[i] = items[j * Vec + i];
      detail::store_vector<T, Vec>(slots + swizzled(lane * per_lane + j) * Vec, v);
    }
    warp.sync();
    if constexpr (detail::stdx::is_same<Out, T*>::value) {
      if (vectors) {
        TILEKIT_UNROLL
        for (unsigned s = 0; s < per_lane; ++s) {
          const unsigned g = s * 32 + lane;
          detail::store_vector<T, Vec>(out + stretch + g * Vec, detail::load_vector<T, Vec>(slots + swizzled(g) * Vec));
        }
        return;
      }
    }
    TILEKIT_UNROLL
    for (unsigned j = 0; j < K; ++j) {
      const unsigned at = j * 32 + lane;
      const detail::count_t i = stretch + at;
      if (i < end) out[i] = slots[swizzled(at / Vec) * Vec + at % Vec];
    }
  }
};

}  // namespace tilekit
