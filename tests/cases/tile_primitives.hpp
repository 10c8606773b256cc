// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The members of tile<N>: ranks, shuffles, votes, matches, against a CPU model
// of their documented (tile-relative) semantics. Written once for both backends.
#pragma once
#include "tile_common.hpp"

namespace tk_test {

enum class prim { shfl, shfl_up, shfl_down, shfl_xor };
inline const char* name(prim p) {
  const char* names[] = {"shfl", "shfl_up", "shfl_down", "shfl_xor"};
  return names[int(p)];
}

// Every delta / source / lane mask of one shuffle kind, one output per lane per argument.
template <unsigned N, class T, prim P>
struct shuffle_body {
  const T* in;
  T* out;  // (args) results per thread
  unsigned args;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    // The size is a constant expression in device code too.
    static_assert(decltype(tile)::size() == N && decltype(tile)::num_threads() == N, "tile<N>::size()");
    if (tile_inactive(tile.meta_group_rank(), block.group_index().x)) return;
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    for (unsigned a = 0; a < args; ++a) {
      T r;
      if constexpr (P == prim::shfl) r = tile.shfl(in[i], a);
      else if constexpr (P == prim::shfl_up) r = tile.shfl_up(in[i], a);
      else if constexpr (P == prim::shfl_down) r = tile.shfl_down(in[i], a);
      else r = tile.shfl_xor(in[i], a);
      out[i * args + a] = r;
    }
  }
};

// What lane `lane` of a tile<N> reads (P with argument a). The hardware takes
// the argument modulo 32.
template <unsigned N, prim P>
unsigned expected_source(unsigned lane, unsigned a) {
  a %= 32;
  switch (P) {
    case prim::shfl: return a % N;
    case prim::shfl_up: return lane >= a ? lane - a : lane;
    case prim::shfl_down: return lane + a < N ? lane + a : lane;
    default: return lane ^ a;  // a < N
  }
}

template <class B, unsigned N, class T, prim P>
void check_shuffle() {
  auto g = rng_for(next_salt());
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  // shfl takes any source (modulo N); up/down any delta (past the end: own value); xor masks below N.
  const unsigned args = P == prim::shfl_xor ? N : P == prim::shfl ? 2 * N + 1 : N + 2;
  const std::vector<T> in = random_vector<T>(n, g);
  typename B::template buffer<T> d_in(in), d_out(n * args, poison<T>());
  B::run(blocks, threads, shuffle_body<N, T, P>{d_in.data(), d_out.data(), args});
  const auto out = d_out.to_host();
  BOOST_TEST_CONTEXT(B::name << " tile<" << N << ">::" << name(P) << " " << type_name<T>() << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < threads / N; ++t) {
        const std::size_t base = std::size_t(b) * threads + std::size_t(t) * N;
        for (unsigned l = 0; l < N; ++l)
          for (unsigned a = 0; a < args; ++a) {
            const T& got = out[(base + l) * args + a];
            if (tile_inactive(t, b)) log.expect_true(is_poison(got), "inactive tile written");
            else log.expect(got, in[base + expected_source<N, P>(l, a)], at(b, t, l) + " argument " + std::to_string(a));
          }
      }
    BOOST_TEST(log.count == 0u);
  }
}

// Ranks, votes and matches in one kernel.
template <unsigned N, class T>
struct vote_body {
  const unsigned char* pred;
  const T* values;
  unsigned* out;  // 9 per thread

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    if (tile_inactive(tile.meta_group_rank(), block.group_index().x)) return;
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    unsigned* o = out + 9 * i;
    o[0] = tile.thread_rank();
    o[1] = tile.meta_group_rank();
    o[2] = tile.meta_group_size();
    o[3] = tile.ballot(pred[i] != 0);
    o[4] = tile.any(pred[i] != 0);
    o[5] = tile.all(pred[i] != 0);
    o[6] = tile.match_any(values[i]);
    bool same = false;
    o[7] = tile.match_all(values[i], same);
    o[8] = same;
    tile.sync();
  }
};

enum class vote_pattern { random, all_true, all_false };

template <class B, unsigned N, class T>
void check_votes(vote_pattern pattern) {
  auto g = rng_for(next_salt());
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  std::vector<unsigned char> pred(n);
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    pred[i] = pattern == vote_pattern::all_true ? 1 : pattern == vote_pattern::all_false ? 0 : g() % 2;
    // Few distinct values; every third tile holds one value everywhere (match_all true).
    values[i] = static_cast<T>((i / N) % 3 == 0 ? T(5) : static_cast<T>(g() % 3) * T(1000000007));
  }
  typename B::template buffer<unsigned char> d_pred(pred);
  typename B::template buffer<T> d_values(values);
  typename B::template buffer<unsigned> d_out(9 * n, poison<unsigned>());
  B::run(blocks, threads, vote_body<N, T>{d_pred.data(), d_values.data(), d_out.data()});
  const auto out = d_out.to_host();
  BOOST_TEST_CONTEXT(B::name << " tile<" << N << "> ranks, votes, matches " << type_name<T>() << ", TILEKIT_TEST_SEED=" << base_seed()) {
    mismatch_log log;
    const unsigned full = N == 32 ? ~0u : (1u << N) - 1;
    for (unsigned b = 0; b < blocks; ++b)
      for (unsigned t = 0; t < threads / N; ++t) {
        const std::size_t base = std::size_t(b) * threads + std::size_t(t) * N;
        if (tile_inactive(t, b)) {
          for (unsigned l = 0; l < 9 * N; ++l) log.expect_true(is_poison(out[9 * base + l]), "inactive tile written");
          continue;
        }
        unsigned ballot = 0;
        bool all_same = true;
        for (unsigned l = 0; l < N; ++l) {
          ballot |= unsigned(pred[base + l] != 0) << l;
          all_same = all_same && values[base + l] == values[base];
        }
        for (unsigned l = 0; l < N; ++l) {
          const unsigned* o = &out[9 * (base + l)];
          const std::string where = at(b, t, l);
          unsigned matches = 0;
          for (unsigned k = 0; k < N; ++k) matches |= unsigned(values[base + k] == values[base + l]) << k;
          log.expect(o[0], l, "thread_rank at " + where);
          log.expect(o[1], t, "meta_group_rank at " + where);
          log.expect(o[2], threads / N, "meta_group_size at " + where);
          log.expect(o[3], ballot, "ballot at " + where);
          log.expect(o[4], unsigned(ballot != 0), "any at " + where);
          log.expect(o[5], unsigned(ballot == full), "all at " + where);
          log.expect(o[6], matches, "match_any at " + where);
          log.expect(o[7], all_same ? full : 0u, "match_all at " + where);
          log.expect(o[8], unsigned(all_same), "match_all predicate at " + where);
        }
      }
    BOOST_TEST(log.count == 0u);
  }
}

// The backend's bit_mma (mma.m16n8k256 .b1 .and.popc on the GPU from sm_80, one collective in
// the simulator), or with Shuffles its emulation for GPUs below sm_80
// (detail::bit_mma_by_shuffles): each warp multiplies its lanes' fragments once.
template <bool Shuffles>
struct bit_mma_body {
  const unsigned* a;  // 4 a lane
  const unsigned* b;  // 2 a lane
  const int* c;       // 4 a lane
  int* d;             // 4 a lane

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    using be = typename decltype(block)::backend;
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    const unsigned fa[4] = {a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]}, fb[2] = {b[2 * i], b[2 * i + 1]};
    int fd[4] = {c[4 * i], c[4 * i + 1], c[4 * i + 2], c[4 * i + 3]};
    if constexpr (Shuffles) tilekit::detail::bit_mma_by_shuffles<be>(fa, fb, fd);
    else be::bit_mma(fa, fb, fd);
    for (unsigned k = 0; k < 4; ++k) d[4 * i + k] = fd[k];
  }
};

// The product from PTX's fragment layouts for m16n8k256 .b1, written out here: lane 4 g + t
// holds A's rows g (a[0], a[2]) and g + 8 (a[1], a[3]) over columns 32 t .. 32 t + 31
// (a[0], a[1]) and 128 + 32 t .. (a[2], a[3]), bit i the column's i-th; B's column g over
// rows 32 t .. (b[0]) and 128 + 32 t .. (b[1]); D's rows g (d[0], d[1]) and g + 8 (d[2],
// d[3]), columns 2 t and 2 t + 1. Bit patterns: random, dense (3/4 ones), all ones, all zeros.
template <class B, bool Shuffles>
void check_bit_mma() {
  auto g = rng_for(next_salt());
  const unsigned blocks = B::tile_blocks, threads = B::tile_threads;
  const std::size_t n = std::size_t(blocks) * threads;
  for (int pattern = 0; pattern < 4; ++pattern) {
    std::vector<unsigned> a(4 * n), b(2 * n);
    std::vector<int> c(4 * n);
    auto bits = [&]() -> unsigned {
      const unsigned x = unsigned(g());
      return pattern == 0 ? x : pattern == 1 ? x | unsigned(g()) : pattern == 2 ? ~0u : 0u;
    };
    for (auto& x : a) x = bits();
    for (auto& x : b) x = bits();
    for (auto& x : c) x = int(g() % 100000) - 50000;
    typename B::template buffer<unsigned> d_a(a), d_b(b);
    typename B::template buffer<int> d_c(c), d_d(4 * n, poison<int>());
    B::run(blocks, threads, bit_mma_body<Shuffles>{d_a.data(), d_b.data(), d_c.data(), d_d.data()});
    const auto got = d_d.to_host();
    mismatch_log log;
    for (std::size_t w = 0; w < n / 32; ++w) {
      bool A[16][256] = {}, Bm[256][8] = {};
      for (unsigned l = 0; l < 32; ++l) {
        const std::size_t i = 32 * w + l;
        const unsigned gr = l / 4, t = l % 4;
        for (unsigned bit = 0; bit < 32; ++bit) {
          A[gr][32 * t + bit] = (a[4 * i] >> bit) & 1;
          A[gr + 8][32 * t + bit] = (a[4 * i + 1] >> bit) & 1;
          A[gr][128 + 32 * t + bit] = (a[4 * i + 2] >> bit) & 1;
          A[gr + 8][128 + 32 * t + bit] = (a[4 * i + 3] >> bit) & 1;
          Bm[32 * t + bit][gr] = (b[2 * i] >> bit) & 1;
          Bm[128 + 32 * t + bit][gr] = (b[2 * i + 1] >> bit) & 1;
        }
      }
      for (unsigned l = 0; l < 32; ++l) {
        const std::size_t i = 32 * w + l;
        const unsigned gr = l / 4, t = l % 4;
        for (unsigned k = 0; k < 4; ++k) {
          const unsigned row = gr + 8 * (k / 2), col = 2 * t + k % 2;
          int want = c[4 * i + k];
          for (unsigned x = 0; x < 256; ++x) want += int(A[row][x] && Bm[x][col]);
          log.expect(got[4 * i + k], want, "warp " + std::to_string(w) + " lane " + std::to_string(l) + " d[" + std::to_string(k) + "]");
        }
      }
    }
    BOOST_TEST_CONTEXT(B::name << (Shuffles ? " bit_mma_by_shuffles" : " bit_mma") << ", pattern " << pattern << ", TILEKIT_TEST_SEED=" << base_seed()) { BOOST_TEST(log.count == 0u); }
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(tile_primitives)

BOOST_AUTO_TEST_CASE(bit_matrix_product) {
  tk_test::check_bit_mma<backend, false>();
  tk_test::check_bit_mma<backend, true>();
}

using shuffle_types = std::tuple<std::int8_t, std::int32_t, std::int64_t, double, tk_test::mat2, tk_test::tracked>;

BOOST_AUTO_TEST_CASE_TEMPLATE(shuffles, T, shuffle_types) {
  using namespace tk_test;
  for_each_size<1, 2, 4, 8, 16, 32>([&](auto size) {
    constexpr unsigned N = decltype(size)::value;
    check_shuffle<backend, N, T, prim::shfl>();
    check_shuffle<backend, N, T, prim::shfl_up>();
    check_shuffle<backend, N, T, prim::shfl_down>();
    check_shuffle<backend, N, T, prim::shfl_xor>();
  });
}

BOOST_AUTO_TEST_CASE(ranks_votes_matches) {
  using namespace tk_test;
  for (vote_pattern p : {vote_pattern::random, vote_pattern::all_true, vote_pattern::all_false}) {
    for_each_size<1, 2, 4, 8, 16, 32>([&](auto size) {
      constexpr unsigned N = decltype(size)::value;
      check_votes<backend, N, std::int32_t>(p);
      check_votes<backend, N, std::uint64_t>(p);
      check_votes<backend, N, float>(p);
    });
  }
}

BOOST_AUTO_TEST_SUITE_END()
