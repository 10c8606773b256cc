// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/sim/intrinsics.hpp - CUDA's warp intrinsics on simulated lanes, with
// the semantics the CUDA Programming Guide and the PTX ISA give them:
//
//   shfl_sync, shfl_up_sync, shfl_down_sync, shfl_xor_sync   (__shfl_*_sync)
//   ballot_sync, any_sync, all_sync                           (__ballot_sync, ...)
//   match_any_sync, match_all_sync                            (__match_*_sync)
//   reduce_{add,min,max,and,or,xor}_sync                      (__reduce_*_sync, redux.sync)
//   syncwarp                                                  (__syncwarp)
//   bit_mma_sync                                              (mma.m16n8k256 .b1 .and.popc)
//
// Shuffles follow PTX shfl.sync exactly: width splits the warp into segments; a
// source outside the lane's segment (or, for up/down, outside the warp) gives
// the lane its own value; shfl_xor may read a lower segment (lane ^ mask below
// the segment's end). Where CUDA leaves a result undefined the simulator raises
// tilekit::sim::error instead: a lane not in its own mask, a mask naming an
// exited lane, lanes of one mask at different collectives, a read from a lane
// outside the mask.
#pragma once
#include <tilekit/sim/runtime.hpp>

#include <type_traits>

namespace tilekit::sim {

namespace detail {

template <class T, class = void>
struct is_streamable : std::false_type {};
template <class T>
struct is_streamable<T, decltype(void(std::declval<std::ostream&>() << std::declval<const T&>()))> : std::true_type {};

// How the trace prints a value of type T.
template <class T>
void print_value(std::ostream& os, const unsigned char* bytes) {
  if constexpr (std::is_same_v<T, bool>) {
    bool v;
    std::memcpy(&v, bytes, sizeof v);
    os << (v ? 1 : 0);
  } else if constexpr (std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char> || std::is_same_v<T, char>) {
    T v;
    std::memcpy(&v, bytes, sizeof v);
    os << static_cast<int>(v);
  } else if constexpr (std::is_arithmetic_v<T> || (is_streamable<T>::value && std::is_default_constructible_v<T>)) {
    T v;
    std::memcpy(static_cast<void*>(&v), bytes, sizeof v);
    os << v;
  } else {
    os << "0x";
    for (std::size_t i = sizeof(T); i-- > 0;)
      os << std::hex << std::setw(2) << std::setfill('0') << unsigned(bytes[i]) << std::dec << std::setfill(' ');
  }
}

template <class T>
T shuffle(op kind, unsigned mask, const T& v, unsigned b, int width) {
  static_assert(std::is_trivially_copyable_v<T>, "tilekit::sim shuffles need a trivially copyable T");
  runtime& rt = runtime::get();
  lane_io& io = rt.self().io;
  io.in.resize(sizeof(T));
  std::memcpy(io.in.data(), static_cast<const void*>(&v), sizeof(T));
  io.b = b;
  rt.warp_collective(kind, mask, static_cast<unsigned>(width), sizeof(T), false, &print_value<T>);
  T out = v;  // T need not be default constructible
  std::memcpy(static_cast<void*>(&out), rt.self().io.out.data(), sizeof(T));
  return out;
}

// The 32-bit words of a value, in place, as a tile moves them on the GPU (every word
// with the same pattern); one collective for all of them.
inline void shuffle_words(op kind, unsigned mask, unsigned* words, unsigned count, unsigned b, int width, printer print) {
  runtime& rt = runtime::get();
  lane_io& io = rt.self().io;
  io.in.resize(4 * count);
  std::memcpy(io.in.data(), words, 4 * count);
  io.b = b;
  rt.warp_collective(kind, mask, static_cast<unsigned>(width), 4 * count, false, print);
  std::memcpy(words, rt.self().io.out.data(), 4 * count);
}

inline unsigned vote(op kind, unsigned mask, bool pred) {
  runtime& rt = runtime::get();
  rt.self().io.b = pred ? 1u : 0u;
  rt.warp_collective(kind, mask, 32, 0, false, nullptr);
  return rt.self().io.result;
}

template <class T>
unsigned match(op kind, unsigned mask, const T& v, bool* pred) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "match_any_sync / match_all_sync take 32- or 64-bit values");
  runtime& rt = runtime::get();
  lane_io& io = rt.self().io;
  io.in.resize(sizeof(T));
  std::memcpy(io.in.data(), &v, sizeof(T));
  rt.warp_collective(kind, mask, 32, sizeof(T), false, &print_value<T>);
  if (pred) *pred = io.pred;
  return io.result;
}

template <class T>
T redux(op kind, unsigned mask, T v) {
  static_assert(std::is_integral_v<T> && sizeof(T) == 4, "reduce_*_sync take 32-bit integers");
  runtime& rt = runtime::get();
  lane_io& io = rt.self().io;
  io.in.resize(4);
  std::memcpy(io.in.data(), &v, 4);
  rt.warp_collective(kind, mask, 32, 4, std::is_signed_v<T>, &print_value<T>);
  T out;
  std::memcpy(&out, io.out.data(), 4);
  return out;
}

}  // namespace detail

/// This thread's lane in its warp (%laneid), and its warp in the block.
inline unsigned lane_id() { return detail::runtime::get().self().lane; }
inline unsigned warp_id() { return detail::runtime::get().self().warp; }

template <class T>
T shfl_sync(unsigned mask, const T& v, int src_lane, int width = 32) {
  return detail::shuffle(detail::op::shfl_idx, mask, v, static_cast<unsigned>(src_lane), width);
}
template <class T>
T shfl_up_sync(unsigned mask, const T& v, unsigned delta, int width = 32) {
  return detail::shuffle(detail::op::shfl_up, mask, v, delta, width);
}
template <class T>
T shfl_down_sync(unsigned mask, const T& v, unsigned delta, int width = 32) {
  return detail::shuffle(detail::op::shfl_down, mask, v, delta, width);
}
template <class T>
T shfl_xor_sync(unsigned mask, const T& v, int lane_mask, int width = 32) {
  return detail::shuffle(detail::op::shfl_bfly, mask, v, static_cast<unsigned>(lane_mask), width);
}

inline unsigned ballot_sync(unsigned mask, int pred) { return detail::vote(detail::op::ballot, mask, pred != 0); }
inline int any_sync(unsigned mask, int pred) { return static_cast<int>(detail::vote(detail::op::any, mask, pred != 0)); }
inline int all_sync(unsigned mask, int pred) { return static_cast<int>(detail::vote(detail::op::all, mask, pred != 0)); }

template <class T>
unsigned match_any_sync(unsigned mask, const T& v) {
  return detail::match(detail::op::match_any, mask, v, nullptr);
}
template <class T>
unsigned match_all_sync(unsigned mask, const T& v, int* pred) {
  bool p = false;
  const unsigned r = detail::match(detail::op::match_all, mask, v, &p);
  *pred = p ? 1 : 0;
  return r;
}

inline int reduce_add_sync(unsigned mask, int v) { return detail::redux(detail::op::redux_add, mask, v); }
inline unsigned reduce_add_sync(unsigned mask, unsigned v) { return detail::redux(detail::op::redux_add, mask, v); }
inline int reduce_min_sync(unsigned mask, int v) { return detail::redux(detail::op::redux_min, mask, v); }
inline unsigned reduce_min_sync(unsigned mask, unsigned v) { return detail::redux(detail::op::redux_min, mask, v); }
inline int reduce_max_sync(unsigned mask, int v) { return detail::redux(detail::op::redux_max, mask, v); }
inline unsigned reduce_max_sync(unsigned mask, unsigned v) { return detail::redux(detail::op::redux_max, mask, v); }
inline unsigned reduce_and_sync(unsigned mask, unsigned v) { return detail::redux(detail::op::redux_and, mask, v); }
inline unsigned reduce_or_sync(unsigned mask, unsigned v) { return detail::redux(detail::op::redux_or, mask, v); }
inline unsigned reduce_xor_sync(unsigned mask, unsigned v) { return detail::redux(detail::op::redux_xor, mask, v); }

namespace detail {
// The trace's view of a lane's mma fragments: a[0..3], b[0..1] in hex.
inline void print_fragments(std::ostream& os, const unsigned char* bytes) {
  std::uint32_t w[6];
  std::memcpy(w, bytes, sizeof w);
  os << "a " << hex(w[0]) << ' ' << hex(w[1]) << ' ' << hex(w[2]) << ' ' << hex(w[3]) << " b " << hex(w[4]) << ' ' << hex(w[5]);
}
}  // namespace detail

/// mma.m16n8k256.row.col.s32.b1.b1.s32.and.popc over the whole warp: d += A x B, the
/// fragments laid out as PTX gives them (see detail::bit_mma_by_shuffles). One collective
/// (the shuffles' emulation took twelve).
inline void bit_mma_sync(const unsigned (&a)[4], const unsigned (&b)[2], int (&d)[4]) {
  auto& rt = detail::runtime::get();
  detail::lane_io& io = rt.self().io;
  const std::uint32_t f[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
  io.in.resize(sizeof f);
  std::memcpy(io.in.data(), f, sizeof f);
  rt.warp_collective(detail::op::bit_mma, ~0u, 32, sizeof f, false, &detail::print_fragments);
  std::int32_t p[4];
  std::memcpy(p, io.out.data(), sizeof p);
  for (unsigned k = 0; k < 4; ++k) d[k] += p[k];
}

inline void syncwarp(unsigned mask = 0xffffffffu) {
  detail::runtime::get().warp_collective(detail::op::syncwarp, mask, 32, 0, false, nullptr);
}

}  // namespace tilekit::sim
