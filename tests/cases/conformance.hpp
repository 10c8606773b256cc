// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Simulator conformance: one generated set of warp-intrinsic calls, run on the
// GPU and in the simulator, compared bit for bit. This header holds what both
// sides share: the case description, the generator, and the kernel body,
// written against an `Ops` adapter (CUDA intrinsics or tilekit::sim's).
#pragma once
#include <tilekit/core/config.hpp>

#include <cstdint>
#include <vector>

namespace tk_conf {

enum prim : std::uint32_t {
  shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all, match_any, match_all,
  redux_add_s, redux_add_u, redux_min_s, redux_min_u, redux_max_s, redux_max_u, redux_and, redux_or, redux_xor,
  prim_count
};

inline const char* prim_name(std::uint32_t p) {
  const char* names[] = {"shfl", "shfl_up", "shfl_down", "shfl_xor", "ballot", "any", "all", "match_any", "match_all",
                         "reduce_add(int)", "reduce_add(unsigned)", "reduce_min(int)", "reduce_min(unsigned)",
                         "reduce_max(int)", "reduce_max(unsigned)", "reduce_and", "reduce_or", "reduce_xor"};
  return p < prim_count ? names[p] : "?";
}

/// One warp's worth of calls: lanes in mask_a call with mask_a, lanes in
/// mask_b (disjoint; 0 for none) with mask_b, the others sit out.
struct call {
  std::uint32_t prim;
  std::uint32_t mask_a, mask_b;
  std::uint32_t width;      // shuffles
  std::uint32_t b;          // source lane, delta or lane mask (shuffles)
  std::uint32_t wide;       // 64-bit values (shuffles, matches)
  std::uint32_t value_mod;  // values taken modulo this (0: all bits random)
  std::uint32_t seed;
};

constexpr std::uint64_t not_written = 0xDEADBEEFDEADBEEFull;

TILEKIT_HD std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

TILEKIT_HD std::uint64_t lane_value(const call& c, unsigned lane) {
  std::uint64_t v = mix((std::uint64_t(c.seed) << 32) ^ lane);
  if (c.value_mod) v %= c.value_mod;
  return c.wide ? v : (v & 0xffffffffull);
}

/// The kernel body: one block of 32 threads per call.
template <class Ops>
struct body {
  const call* calls;
  std::uint64_t* out;  // 32 per call
  std::uint64_t first;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    const std::uint64_t k = first + block.group_index().x;
    const call c = calls[k];
    const unsigned lane = block.thread_rank();
    const std::uint64_t v = lane_value(c, lane);
    std::uint64_t r;
    if ((c.mask_a >> lane) & 1u) r = Ops::run(c, c.mask_a, v, lane);
    else if ((c.mask_b >> lane) & 1u) r = Ops::run(c, c.mask_b, v, lane);
    else return;
    out[32 * k + lane] = r;
  }
};

/// Runs call c for the calling lane; shared by both adapters, which supply the intrinsics.
template <class I>
struct dispatch {
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD static std::uint64_t run(const call& c, unsigned mask, std::uint64_t v, unsigned lane) {
    const unsigned v32 = static_cast<unsigned>(v);
    const int w = static_cast<int>(c.width);
    switch (c.prim) {
      case shfl: return c.wide ? I::shfl(mask, v, c.b, w) : I::shfl(mask, v32, c.b, w);
      case shfl_up: return c.wide ? I::shfl_up(mask, v, c.b, w) : I::shfl_up(mask, v32, c.b, w);
      case shfl_down: return c.wide ? I::shfl_down(mask, v, c.b, w) : I::shfl_down(mask, v32, c.b, w);
      case shfl_xor: return c.wide ? I::shfl_xor(mask, v, c.b, w) : I::shfl_xor(mask, v32, c.b, w);
      case ballot: return I::ballot(mask, (v >> 7) & 1u);
      case any: return static_cast<std::uint64_t>(I::any(mask, (v & 7u) == 0));
      case all: return static_cast<std::uint64_t>(I::all(mask, (v & 7u) != 0));
      case match_any: return c.wide ? I::match_any(mask, v) : I::match_any(mask, v32);
      case match_all: {
        int pred = 0;
        const unsigned m = c.wide ? I::match_all(mask, v, &pred) : I::match_all(mask, v32, &pred);
        return m | (std::uint64_t(pred) << 32);
      }
      case redux_add_s: return static_cast<unsigned>(I::reduce_add(mask, static_cast<int>(v32)));
      case redux_add_u: return I::reduce_add(mask, v32);
      case redux_min_s: return static_cast<unsigned>(I::reduce_min(mask, static_cast<int>(v32)));
      case redux_min_u: return I::reduce_min(mask, v32);
      case redux_max_s: return static_cast<unsigned>(I::reduce_max(mask, static_cast<int>(v32)));
      case redux_max_u: return I::reduce_max(mask, v32);
      case redux_and: return I::reduce_and(mask, v32);
      case redux_or: return I::reduce_or(mask, v32);
      case redux_xor: return I::reduce_xor(mask, v32);
      default: return lane;
    }
  }
};

/// Every shuffle x width x argument 0..63 x mask set x 32/64-bit, and every
/// vote / match / redux x mask set x value pattern.
inline std::vector<call> generate(std::uint32_t seed) {
  struct masks {
    std::uint32_t a, b;
  };
  const masks sets[] = {
      {0xffffffffu, 0},           {0x0000ffffu, 0},           {0xff00ff00u, 0},           {0x55555555u, 0},
      {0x8421c3a5u, 0},           {0x0000ffffu, 0xffff0000u}, {0x55555555u, 0xaaaaaaaau}, {0x0f0f0f0fu, 0xf0f0f0f0u},
      {0x00000001u, 0x80000000u}, {0x7fffffffu, 0}};
  std::vector<call> calls;
  std::uint32_t n = 0;
  for (std::uint32_t p : {shfl, shfl_up, shfl_down, shfl_xor})
    for (std::uint32_t width = 1; width <= 32; width *= 2)
      for (std::uint32_t b = 0; b < 64; ++b)
        for (const masks& m : sets)
          for (std::uint32_t wide = 0; wide < 2; ++wide) calls.push_back({p, m.a, m.b, width, b, wide, 0, seed + n++});
  for (std::uint32_t p = ballot; p < prim_count; ++p)
    for (const masks& m : sets)
      for (std::uint32_t mod : {0u, 1u, 2u, 3u, 1000u})
        for (std::uint32_t wide = 0; wide < 2; ++wide) {
          if (wide && p != match_any && p != match_all) continue;
          calls.push_back({p, m.a, m.b, 32, 0, wide, mod, seed + n++});
        }
  return calls;
}

}  // namespace tk_conf
