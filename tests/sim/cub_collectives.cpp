// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the CUB facade's collectives add to tilekit's tile and block algorithms
// (tilekit/cub/detail/collectives.hpp), run in the CPU simulator against sequential
// references: the tile reduce over valid_items lanes, the head- and tail-segmented
// reduces, the block exclusive scan without an initial value and the block inclusive
// scan of arrays with one. The facade classes themselves are GPU-only (their groups
// come from the CUDA launch) and are checked against CUB on the GPU, in
// tests/gpu/cub_collectives.cu. Operators: a custom max (no identity: the general
// paths), the sum (identity: the padded path), and the 2x2 matrix product
// (associative, not commutative: the order of every combination shows).
#include "../common/sim_backend.hpp"
#include "../cases/tile_common.hpp"

#include <tilekit/cub/detail/arrangements.hpp>
#include <tilekit/cub/detail/collectives.hpp>

#include <string>
#include <vector>

namespace {

using tk_test::base_seed;
using tk_test::show;
namespace fx = tilekit::cub::detail;

template <class T>
T small_value(std::mt19937_64& g) {
  if constexpr (std::is_same_v<T, tk_test::mat2>) return tk_test::random_value<T>(g);
  else return T(int(g() % 2001) - 1000);
}

// ---------------------------------------------------------------- tiles

enum tile_slot { t_sum_valid, t_op_valid, t_head_sum, t_tail_sum, t_head_op, t_tail_op, tile_slots };

template <unsigned N, class T, class Op>
struct tile_body {
  const T* x;
  const int* valid;  // per tile
  const unsigned char* head;
  const unsigned char* tail;
  T* out;  // tile_slots per thread

  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<N>(block);
    const std::size_t i = std::size_t(block.group_index().x) * block.num_threads() + block.thread_rank();
    const Op op{};
    T* o = out + i * tile_slots;
    const int v = valid[i / N];
    if constexpr (std::is_arithmetic_v<T>) o[t_sum_valid] = fx::reduce_valid(tile, x[i], tilekit::plus{}, v);
    o[t_op_valid] = fx::reduce_valid(tile, x[i], op, v);
    if constexpr (std::is_arithmetic_v<T>) {
      o[t_head_sum] = fx::head_segmented_reduce(tile, x[i], head[i] != 0, tilekit::plus{});
      o[t_tail_sum] = fx::tail_segmented_reduce(tile, x[i], tail[i] != 0, tilekit::plus{});
    }
    o[t_head_op] = fx::head_segmented_reduce(tile, x[i], head[i] != 0, op);
    o[t_tail_op] = fx::tail_segmented_reduce(tile, x[i], tail[i] != 0, op);
  }
};

template <unsigned N, class T, class Op>
void check_tiles() {
  constexpr unsigned threads = 64, blocks = 2;
  const std::size_t n = std::size_t(threads) * blocks, tiles = n / N;
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<T> x(n);
  for (auto& v : x) v = small_value<T>(g);
  std::vector<int> valid(tiles);
  std::vector<unsigned char> head(n), tail(n);
  for (std::size_t t = 0; t < tiles; ++t) {
    const int edges[] = {1, int(N), int(N) + 3};
    valid[t] = t < 3 ? std::max(1, edges[t]) : 1 + int(g() % N);
    for (unsigned l = 0; l < N; ++l) {
      head[t * N + l] = t % 4 == 0 ? 0 : t % 4 == 1 ? 1 : g() % 3 == 0;
      tail[t * N + l] = t % 4 == 0 ? 0 : t % 4 == 1 ? 1 : g() % 3 == 0;
    }
  }
  tk_test::host_buffer<T> d_out(n * tile_slots, tk_test::poison<T>());
  tk_test::sim_backend::run(blocks, threads,
                            tile_body<N, T, Op>{x.data(), valid.data(), head.data(), tail.data(), d_out.data()});
  const std::vector<T> out = d_out.to_host();
  BOOST_TEST_CONTEXT("tile<" << N << "> " << tk_test::type_name<T>() << " " << tk_test::op_name<Op>()
                             << ": the facade's valid_items and segmented reduces, TILEKIT_TEST_SEED=" << base_seed()) {
    tk_test::mismatch_log log;
    const Op op{};
    for (std::size_t t = 0; t < tiles; ++t) {
      const T* xs = x.data() + t * N;
      const unsigned vc = unsigned(std::min(valid[t], int(N)));
      T op_valid = xs[0];
      for (unsigned l = 1; l < vc; ++l) op_valid = op(op_valid, xs[l]);
      // Segment totals in every lane, from heads or from tails.
      const auto segments = [&](bool from_tails, auto f) {
        std::vector<T> r(N);
        for (unsigned l = 0; l < N;) {
          unsigned e = l + 1;
          while (e < N && !(from_tails ? tail[t * N + e - 1] : head[t * N + e])) ++e;
          T s = xs[l];
          for (unsigned j = l + 1; j < e; ++j) s = f(s, xs[j]);
          for (unsigned j = l; j < e; ++j) r[j] = s;
          l = e;
        }
        return r;
      };
      const std::vector<T> head_op = segments(false, op), tail_op = segments(true, op);
      for (unsigned l = 0; l < N; ++l) {
        const T* o = out.data() + (t * N + l) * tile_slots;
        const std::string at = "tile " + std::to_string(t) + " lane " + std::to_string(l);
        log.expect(o[t_op_valid], op_valid, "reduce_valid(valid_items " + std::to_string(valid[t]) + ") at " + at);
        log.expect(o[t_head_op], head_op[l], "head_segmented_reduce at " + at);
        log.expect(o[t_tail_op], tail_op[l], "tail_segmented_reduce at " + at);
        if constexpr (std::is_arithmetic_v<T>) {
          T sum_valid = xs[0];
          for (unsigned j = 1; j < vc; ++j) sum_valid = T(sum_valid + xs[j]);
          const auto plus = [](const T& a, const T& b) { return T(a + b); };
          log.expect(o[t_sum_valid], sum_valid, "reduce_valid(plus) at " + at);
          log.expect(o[t_head_sum], segments(false, plus)[l], "head_segmented_reduce(plus) at " + at);
          log.expect(o[t_tail_sum], segments(true, plus)[l], "tail_segmented_reduce(plus) at " + at);
        }
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- blocks

// Per thread: the no-init exclusive scan of its first item and its aggregate; then K
// items each of: no-init exclusive, the same in place, init inclusive, the same in
// place; and the three array aggregates.
template <int K>
constexpr int block_slots = 2 + 4 * K + 3;

template <unsigned Threads, int K, class T, class Op, tilekit::block_scan_algorithm A>
struct block_body {
  const T* x;
  T init;
  T* out;

  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto& storage = ctx.template shared<tilekit::scan_storage<T, Threads, A>>();
    const std::size_t t = std::size_t(block.group_index().x) * Threads + block.thread_rank();
    const Op op{};
    T items[K], o[K];
    for (int k = 0; k < K; ++k) items[k] = x[t * K + k];
    T* w = out + t * block_slots<K>;
    const tilekit::scanned<T> s = fx::exclusive_scan_no_init(block, items[0], op, storage);
    w[0] = s.value;
    w[1] = s.aggregate;
    block.sync();
    w[2 + 4 * K] = fx::exclusive_scan_no_init(block, items, o, op, storage);
    for (int k = 0; k < K; ++k) w[2 + k] = o[k];
    block.sync();
    for (int k = 0; k < K; ++k) o[k] = items[k];
    fx::exclusive_scan_no_init(block, o, o, op, storage);
    for (int k = 0; k < K; ++k) w[2 + K + k] = o[k];
    block.sync();
    w[3 + 4 * K] = fx::inclusive_scan_init(block, items, o, op, init, storage);
    for (int k = 0; k < K; ++k) w[2 + 2 * K + k] = o[k];
    block.sync();
    for (int k = 0; k < K; ++k) o[k] = items[k];
    w[4 + 4 * K] = fx::inclusive_scan_init(block, o, o, op, init, storage);
    for (int k = 0; k < K; ++k) w[2 + 3 * K + k] = o[k];
  }
};

template <unsigned Threads, int K, class T, class Op, tilekit::block_scan_algorithm A>
void check_block(tilekit::sim::dim3 shape = {Threads}) {
  constexpr unsigned blocks = 2, items = Threads * unsigned(K);
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<T> x(std::size_t(blocks) * items);
  for (auto& v : x) v = small_value<T>(g);
  const T init = small_value<T>(g);
  tk_test::host_buffer<T> d_out(std::size_t(blocks) * Threads * block_slots<K>, tk_test::poison<T>());
  tk_test::sim_backend::run(blocks, shape, block_body<Threads, K, T, Op, A>{x.data(), init, d_out.data()},
                            sizeof(tilekit::scan_storage<T, Threads, A>));
  const std::vector<T> out = d_out.to_host();
  BOOST_TEST_CONTEXT("block<" << Threads << "> (" << shape.x << "x" << shape.y << ") "
                              << (A == tilekit::block_scan_algorithm::raking ? "raking" : "warp_scans") << " "
                              << tk_test::type_name<T>() << " " << tk_test::op_name<Op>() << " x" << K
                              << ": the facade's no-init exclusive and init inclusive block scans, TILEKIT_TEST_SEED="
                              << base_seed()) {
    tk_test::mismatch_log log;
    const Op op{};
    for (unsigned b = 0; b < blocks; ++b) {
      const T* xs = x.data() + std::size_t(b) * items;
      std::vector<T> inc(items), first_inc(Threads);
      for (unsigned i = 0; i < items; ++i) inc[i] = i ? op(inc[i - 1], xs[i]) : xs[0];
      for (unsigned r = 0; r < Threads; ++r) first_inc[r] = r ? op(first_inc[r - 1], xs[r * K]) : xs[0];
      for (unsigned r = 0; r < Threads; ++r) {
        const T* w = out.data() + (std::size_t(b) * Threads + r) * block_slots<K>;
        const std::string at = "block " + std::to_string(b) + " thread " + std::to_string(r);
        // Thread 0's (first) exclusive output: undefined in CUB, documented as its (first) input here.
        log.expect(w[0], r ? first_inc[r - 1] : xs[0], "exclusive_scan_no_init(one item) at " + at);
        log.expect(w[1], first_inc[Threads - 1], "exclusive_scan_no_init(one item) aggregate at " + at);
        for (int k = 0; k < K; ++k) {
          const unsigned i = r * unsigned(K) + unsigned(k);
          const T excl = i ? inc[i - 1] : xs[0];
          const T incl_init = op(init, inc[i]);
          const std::string item = at + " item " + std::to_string(k);
          log.expect(w[2 + k], excl, "exclusive_scan_no_init(items) at " + item);
          log.expect(w[2 + K + k], excl, "exclusive_scan_no_init(items, in place) at " + item);
          log.expect(w[2 + 2 * K + k], incl_init, "inclusive_scan_init(items) at " + item);
          log.expect(w[2 + 3 * K + k], incl_init, "inclusive_scan_init(items, in place) at " + item);
        }
        for (int a = 0; a < 3; ++a)
          log.expect(w[2 + 4 * K + a], inc[items - 1], "array aggregate " + std::to_string(a) + " at " + at);
      }
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- arrangements

// BlockLoad / BlockStore / BlockExchange's work: each thread writes, per case, its K
// items (loads, exchanges) to out; the stores write to their own runs of store_out.
enum arrangement_case { a_load_blocked, a_load_striped, a_load_via_striped, a_load_via_warp, a_to_striped,
                        a_to_warp_striped, a_striped_to_blocked, a_warp_striped_to_blocked, arrangement_cases };
enum store_case { s_blocked, s_striped, s_via_striped, s_via_warp, store_cases };
constexpr int sentinel = -1;

template <unsigned Threads, unsigned K>
struct arrangement_body {
  const int* in;  // Threads * K items: in[p] = p * 7 + 1
  int valid;
  int* out;        // arrangement_cases * Threads * K
  int* store_out;  // store_cases runs of Threads * K

  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    int* slots = &ctx.template shared<tilekit::detail::raw_slots<int, Threads * K>>()[0];
    using L = fx::layout;
    const unsigned t = block.thread_rank();
    auto put = [&](int c, const int (&items)[K]) {
      for (unsigned k = 0; k < K; ++k) out[(std::size_t(c) * Threads + t) * K + k] = items[k];
    };
    int items[K];
    auto reset = [&] { for (unsigned k = 0; k < K; ++k) items[k] = sentinel; };
    reset(); fx::load_direct<L::blocked, Threads>(block, in, items, valid); put(a_load_blocked, items);
    reset(); fx::load_direct<L::striped, Threads>(block, in, items, valid); put(a_load_striped, items);
    reset(); fx::load_blocked_via<L::striped, Threads>(block, in, items, valid, slots); put(a_load_via_striped, items);
    block.sync();
    reset(); fx::load_blocked_via<L::warp_striped, Threads>(block, in, items, valid, slots); put(a_load_via_warp, items);
    block.sync();
    int blocked[K], moved[K];  // the full run, blocked: item p is in[p]
    for (unsigned k = 0; k < K; ++k) blocked[k] = in[t * K + k];
    fx::exchange<L::blocked, L::striped, Threads>(block, blocked, moved, slots); put(a_to_striped, moved);
    block.sync();
    fx::exchange<L::blocked, L::warp_striped, Threads>(block, blocked, moved, slots); put(a_to_warp_striped, moved);
    block.sync();
    int striped[K];
    for (unsigned k = 0; k < K; ++k) striped[k] = in[k * Threads + t];
    fx::exchange<L::striped, L::blocked, Threads>(block, striped, striped, slots); put(a_striped_to_blocked, striped);  // in place
    block.sync();
    int warp_striped[K];
    for (unsigned k = 0; k < K; ++k) warp_striped[k] = in[t / 32 * 32 * K + k * 32 + t % 32];
    fx::exchange<L::warp_striped, L::blocked, Threads>(block, warp_striped, moved, slots); put(a_warp_striped_to_blocked, moved);
    block.sync();
    const std::size_t run = std::size_t(Threads) * K;
    fx::store_direct<L::blocked, Threads>(block, store_out + s_blocked * run, blocked, valid);
    for (unsigned k = 0; k < K; ++k) striped[k] = in[k * Threads + t];  // (the exchange above made it blocked)
    fx::store_direct<L::striped, Threads>(block, store_out + s_striped * run, striped, valid);
    fx::store_blocked_via<L::striped, Threads>(block, store_out + s_via_striped * run, blocked, valid, slots);
    block.sync();
    fx::store_blocked_via<L::warp_striped, Threads>(block, store_out + s_via_warp * run, blocked, valid, slots);
  }
};

template <unsigned Threads, unsigned K>
void check_arrangements(int valid) {
  constexpr unsigned n = Threads * K;
  std::vector<int> in(n);
  for (unsigned p = 0; p < n; ++p) in[p] = int(p) * 7 + 1;
  tk_test::host_buffer<int> d_in(in), d_out(std::size_t(arrangement_cases) * n, tk_test::poison<int>()),
      d_store(std::size_t(store_cases) * n, tk_test::poison<int>());
  tk_test::sim_backend::run(1, Threads, arrangement_body<Threads, K>{d_in.data(), valid, d_out.data(), d_store.data()},
                            sizeof(tilekit::detail::raw_slots<int, Threads * K>));
  const auto out = d_out.to_host();
  const auto stored = d_store.to_host();
  struct A {  // CUB's arrangements, spelled out independently of fx::arrangement
    static unsigned blocked(unsigned t, unsigned k) { return t * K + k; }
    static unsigned striped(unsigned t, unsigned k) { return k * Threads + t; }
    static unsigned warp_striped(unsigned t, unsigned k) { return t / 32 * 32 * K + k * 32 + t % 32; }
  };
  auto loaded = [&](unsigned p) { return int(p) < valid ? in[p] : sentinel; };
  BOOST_TEST_CONTEXT("arrangements of " << Threads << " threads x " << K << " items, valid " << valid) {
    tk_test::mismatch_log log;
    for (unsigned t = 0; t < Threads; ++t) {
      for (unsigned k = 0; k < K; ++k) {
        auto got = [&](int c) { return out[(std::size_t(c) * Threads + t) * K + k]; };
        const std::string at = " thread " + std::to_string(t) + " item " + std::to_string(k);
        log.expect(got(a_load_blocked), loaded(A::blocked(t, k)), "load blocked" + at);
        log.expect(got(a_load_striped), loaded(A::striped(t, k)), "load striped" + at);
        log.expect(got(a_load_via_striped), loaded(A::blocked(t, k)), "load blocked via striped" + at);
        log.expect(got(a_load_via_warp), loaded(A::blocked(t, k)), "load blocked via warp striped" + at);
        log.expect(got(a_to_striped), in[A::striped(t, k)], "blocked to striped" + at);
        log.expect(got(a_to_warp_striped), in[A::warp_striped(t, k)], "blocked to warp striped" + at);
        log.expect(got(a_striped_to_blocked), in[A::blocked(t, k)], "striped to blocked, in place" + at);
        log.expect(got(a_warp_striped_to_blocked), in[A::blocked(t, k)], "warp striped to blocked" + at);
      }
    }
    for (int c = 0; c < store_cases; ++c)
      for (unsigned p = 0; p < n; ++p) {
        const int want = int(p) < valid ? in[p] : tk_test::poison<int>();
        log.expect(stored[std::size_t(c) * n + p], want, "store case " + std::to_string(c) + " position " + std::to_string(p));
      }
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- discontinuities

// BlockDiscontinuity's work: head and tail flags of blocked items with a plain operator
// (inequality) and one that also takes the index (flags only where the index is odd and
// the items differ); with and without tile predecessor / successor items.
struct differ {
  bool operator()(int a, int b) const { return a != b; }
};
struct differ_at_odd {
  bool operator()(int a, int b, int b_index) const { return a != b && b_index % 2 == 1; }
};
enum flag_case { f_heads, f_tails, f_both_heads, f_both_tails, f_heads_pred, f_tails_succ, f_odd_heads, f_odd_tails, flag_cases };

template <unsigned Threads, unsigned K>
struct discontinuity_body {
  const int* in;
  int predecessor, successor;
  int* out;  // flag_cases * Threads * K
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    int* slots = &ctx.template shared<tilekit::detail::raw_slots<int, 2 * Threads>>()[0];
    const unsigned t = block.thread_rank();
    int items[K];
    for (unsigned k = 0; k < K; ++k) items[k] = in[t * K + k];
    int a[K], b[K];
    auto put = [&](int c, const int (&f)[K]) {
      for (unsigned k = 0; k < K; ++k) out[(std::size_t(c) * Threads + t) * K + k] = f[k];
    };
    int (*none)[K] = nullptr;
    fx::flag_discontinuities<Threads>(block, &a, none, items, differ{}, nullptr, nullptr, slots); put(f_heads, a);
    block.sync();
    fx::flag_discontinuities<Threads>(block, none, &a, items, differ{}, nullptr, nullptr, slots); put(f_tails, a);
    block.sync();
    fx::flag_discontinuities<Threads>(block, &a, &b, items, differ{}, nullptr, nullptr, slots); put(f_both_heads, a); put(f_both_tails, b);
    block.sync();
    fx::flag_discontinuities<Threads>(block, &a, none, items, differ{}, &predecessor, nullptr, slots); put(f_heads_pred, a);
    block.sync();
    fx::flag_discontinuities<Threads>(block, none, &a, items, differ{}, nullptr, &successor, slots); put(f_tails_succ, a);
    block.sync();
    fx::flag_discontinuities<Threads>(block, &a, &b, items, differ_at_odd{}, nullptr, nullptr, slots); put(f_odd_heads, a); put(f_odd_tails, b);
  }
};

template <unsigned Threads, unsigned K>
void check_discontinuities(std::mt19937_64& g) {
  constexpr unsigned n = Threads * K;
  std::vector<int> in(n);
  for (unsigned i = 0; i < n; ++i) in[i] = i > 0 && g() % 3 != 0 ? in[i - 1] : int(g() % 4);
  const int predecessor = in[0], successor = in[n - 1] + 1;  // continuous before; discontinuous after
  tk_test::host_buffer<int> d_in(in), d_out(std::size_t(flag_cases) * n, tk_test::poison<int>());
  tk_test::sim_backend::run(1, Threads, discontinuity_body<Threads, K>{d_in.data(), predecessor, successor, d_out.data()},
                            sizeof(tilekit::detail::raw_slots<int, 2 * Threads>));
  const auto out = d_out.to_host();
  BOOST_TEST_CONTEXT("discontinuities of " << Threads << " threads x " << K << " items, TILEKIT_TEST_SEED=" << base_seed()) {
    tk_test::mismatch_log log;
    for (unsigned i = 0; i < n; ++i) {
      const int head = i == 0 ? 1 : in[i - 1] != in[i];
      const int tail = i + 1 == n ? 1 : in[i] != in[i + 1];
      const int head_pred = i == 0 ? predecessor != in[0] : head;
      const int tail_succ = i + 1 == n ? in[i] != successor : tail;
      const int odd_head = i == 0 ? 1 : (in[i - 1] != in[i] && i % 2 == 1);
      const int odd_tail = i + 1 == n ? 1 : (in[i] != in[i + 1] && (i + 1) % 2 == 1);
      auto got = [&](int c) { return out[std::size_t(c) * n + i]; };  // thread i / K, item i % K: blocked order
      const std::string at = " at item " + std::to_string(i);
      log.expect(got(f_heads), head, "heads" + at);
      log.expect(got(f_tails), tail, "tails" + at);
      log.expect(got(f_both_heads), head, "heads (with tails)" + at);
      log.expect(got(f_both_tails), tail, "tails (with heads)" + at);
      log.expect(got(f_heads_pred), head_pred, "heads after a predecessor" + at);
      log.expect(got(f_tails_succ), tail_succ, "tails before a successor" + at);
      log.expect(got(f_odd_heads), odd_head, "heads, indexed operator" + at);
      log.expect(got(f_odd_tails), odd_tail, "tails, indexed operator" + at);
    }
    BOOST_TEST(log.count == 0u);
  }
}

// ---------------------------------------------------------------- logical warps of any size

// WarpReduce's shared-memory path for sizes that are not powers of two: logical warp i is
// thread ranks [i * W, (i + 1) * W), spanning two hardware warps where W does not divide
// 32. Per thread: the full reduce, the reduce of the first (i % W) + 1 lanes, the head- and
// tail-segmented reduces, the scans with the aggregate, and a broadcast (WarpScan's path).
enum odd_case { o_full, o_valid, o_head, o_tail, o_inclusive, o_exclusive, o_aggregate, o_broadcast, odd_cases };

template <unsigned Threads, unsigned W, class T, class Op>
struct odd_warp_body {
  const T* x;
  const unsigned char* flag;
  T* out;  // odd_cases per thread
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    struct storage_t {
      tilekit::detail::raw_slots<T, W> values;
      unsigned char flags[W];
    };
    storage_t* storage = &ctx.template shared<storage_t>() + block.thread_rank() / W;  // each logical warp its own
    const unsigned t = block.thread_rank(), warp = t / W;
    const Op op{};
    T* o = out + std::size_t(t) * odd_cases;
    T* values = &storage->values[0];
    o[o_full] = fx::smem_warp_reduce<W>(block, x[t], op, int(W), values);
    o[o_valid] = fx::smem_warp_reduce<W>(block, x[t], op, int(warp % W) + 1, values);
    o[o_head] = fx::smem_warp_segmented_reduce<W, false>(block, x[t], flag[t] != 0, op, values, storage->flags);
    o[o_tail] = fx::smem_warp_segmented_reduce<W, true>(block, x[t], flag[t] != 0, op, values, storage->flags);
    const fx::warp_scanned<T> scanned = fx::smem_warp_scan<W>(block, x[t], op, values);
    o[o_inclusive] = scanned.inclusive;
    o[o_exclusive] = scanned.exclusive;
    o[o_aggregate] = scanned.aggregate;
    o[o_broadcast] = fx::smem_warp_broadcast<W>(block, x[t], (warp * 5) % W, values);
  }
};

template <unsigned Threads, unsigned W, class T, class Op>
void check_odd_warps() {
  static_assert(Threads % W == 0, "whole logical warps");
  auto g = tk_test::rng_for(tk_test::next_salt());
  std::vector<T> x(Threads);
  std::vector<unsigned char> flag(Threads);
  for (unsigned i = 0; i < Threads; ++i) {
    x[i] = small_value<T>(g);
    flag[i] = g() % 3 == 0;
  }
  tk_test::host_buffer<T> d_x(x), d_out(static_cast<std::size_t>(Threads) * odd_cases, tk_test::poison<T>());
  tk_test::host_buffer<unsigned char> d_flag(flag);
  struct storage_t {
    tilekit::detail::raw_slots<T, W> values;
    unsigned char flags[W];
  };
  tk_test::sim_backend::run(1, Threads, odd_warp_body<Threads, W, T, Op>{d_x.data(), d_flag.data(), d_out.data()},
                            sizeof(storage_t) * (Threads / W));
  const auto out = d_out.to_host();
  const Op op{};
  auto fold = [&](unsigned first, unsigned last) {  // op over x[first .. last]
    T r = x[first];
    for (unsigned i = first + 1; i <= last; ++i) r = op(r, x[i]);
    return r;
  };
  BOOST_TEST_CONTEXT("logical warps of " << W << " in a block of " << Threads << ", " << tk_test::type_name<T>() << " "
                                         << tk_test::op_name<Op>() << ", TILEKIT_TEST_SEED=" << base_seed()) {
    tk_test::mismatch_log log;
    for (unsigned t = 0; t < Threads; ++t) {
      const unsigned warp = t / W, w0 = warp * W, w1 = w0 + W - 1;
      unsigned hf = t, hl = t, tf = t, tl = t;
      while (hf > w0 && !flag[hf]) --hf;
      while (hl < w1 && !flag[hl + 1]) ++hl;
      while (tf > w0 && !flag[tf - 1]) --tf;
      while (tl < w1 && !flag[tl]) ++tl;
      const T* o = out.data() + std::size_t(t) * odd_cases;
      const std::string at = " at thread " + std::to_string(t);
      log.expect(o[o_full], fold(w0, w1), "reduce" + at);
      log.expect(o[o_valid], fold(w0, w0 + warp % W), "reduce of valid lanes" + at);
      log.expect(o[o_head], fold(hf, hl), "head-segmented reduce" + at);
      log.expect(o[o_tail], fold(tf, tl), "tail-segmented reduce" + at);
      log.expect(o[o_inclusive], fold(w0, t), "inclusive scan" + at);
      log.expect(o[o_exclusive], t == w0 ? x[t] : fold(w0, t - 1), "exclusive scan (lane 0: its input)" + at);
      log.expect(o[o_aggregate], fold(w0, w1), "scan aggregate" + at);
      log.expect(o[o_broadcast], x[w0 + (warp * 5) % W], "broadcast" + at);
    }
    BOOST_TEST(log.count == 0u);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(facade_tile_compositions) {
  tk_test::for_each_size<32, 16, 8, 1>([](auto n) {
    constexpr unsigned N = decltype(n)::value;
    check_tiles<N, int, tk_test::custom_max>();
    check_tiles<N, tk_test::mat2, tk_test::mat_mul>();
  });
}

BOOST_AUTO_TEST_CASE(facade_block_scan_compositions) {
  using tilekit::block_scan_algorithm;
  tk_test::for_each_size<1, 4>([](auto k) {
    constexpr int K = int(decltype(k)::value);
    check_block<32, K, int, tk_test::custom_max, block_scan_algorithm::raking>();
    check_block<100, K, int, tk_test::custom_max, block_scan_algorithm::raking>();
    check_block<100, K, int, tk_test::custom_max, block_scan_algorithm::warp_scans>();
    check_block<128, K, tk_test::mat2, tk_test::mat_mul, block_scan_algorithm::raking>();
    check_block<128, K, tk_test::mat2, tk_test::mat_mul, block_scan_algorithm::warp_scans>();
    check_block<20, K, tk_test::mat2, tk_test::mat_mul, block_scan_algorithm::raking>();
    check_block<128, K, int, tk_test::custom_max, block_scan_algorithm::warp_scans>({16, 8});
  });
}

BOOST_AUTO_TEST_CASE(facade_block_load_store_exchange) {
  for (int valid : {0, 1, 100, 191, 192, 1000}) {
    check_arrangements<64, 3>(valid);
    check_arrangements<96, 2>(valid);
    check_arrangements<32, 1>(valid);
  }
}

BOOST_AUTO_TEST_CASE(facade_block_discontinuity) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  check_discontinuities<64, 3>(g);
  check_discontinuities<96, 1>(g);
  check_discontinuities<1, 5>(g);
  check_discontinuities<128, 4>(g);
}

BOOST_AUTO_TEST_CASE(facade_logical_warps_of_any_size) {
  check_odd_warps<84, 12, int, tk_test::custom_max>();
  check_odd_warps<84, 12, tk_test::mat2, tk_test::mat_mul>();
  check_odd_warps<63, 7, tk_test::mat2, tk_test::mat_mul>();
  check_odd_warps<100, 20, int, tk_test::custom_max>();
  check_odd_warps<93, 31, tk_test::mat2, tk_test::mat_mul>();
  check_odd_warps<96, 3, tk_test::mat2, tk_test::mat_mul>();
}
