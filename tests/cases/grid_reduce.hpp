// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grid rung inside a kernel, written once for both backends: reduce over every
// thread of a cooperative launch (grid/reduce.cuh). Grids of 1 block up to the
// cooperative maximum, whole and partial last warps, three calls back to back in
// one kernel (the storage's halves alternate), two launches over the same
// uninitialised (poisoned) storage, a non-commutative operator (2x2 matrix
// product: the grid rank order). References: sequential CPU folds in grid rank order.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <tilekit/grid/reduce.cuh>

namespace tk_test {

template <class T>
using grid_buf = typename ::backend::template buffer<T>;

// Call c of `calls`: every thread reduces in[c * threads + its grid rank] and writes
// the result to out[c * threads + its grid rank].
template <unsigned Threads, class T, class Op>
struct grid_reduce_body {
  static constexpr unsigned calls = 3;
  const T* in;
  T* out;
  void* memory;  // grid_reduce_storage<T>::bytes(max_blocks), poisoned
  unsigned long long max_blocks;
  Op op;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    auto grid = ctx.grid();
    auto& shared = ctx.template shared<tilekit::reduce_storage<T, Threads>>();
    tilekit::grid_reduce_storage<T> storage(memory, max_blocks);
    const unsigned long long n = grid.num_threads(), i = grid.thread_rank();
    for (unsigned c = 0; c < calls; ++c) {
      out[c * n + i] = tilekit::reduce(grid, block, in[c * n + i], op, shared, storage);
      block.sync();  // before block_storage is reused
    }
  }
};

template <unsigned Threads, class T, class Op>
void check_grid_reduce(unsigned blocks, Op op, const std::vector<T>& values, const std::string& what) {
  using body_t = grid_reduce_body<Threads, T, Op>;
  const std::size_t n = std::size_t(blocks) * Threads;
  BOOST_REQUIRE(values.size() >= 2 * body_t::calls * n);
  // The same storage for two launches, never initialised.
  const std::size_t storage_bytes = tilekit::grid_reduce_storage<T>::bytes(blocks);
  grid_buf<unsigned char> memory(storage_bytes + 16, 0xCD);
  for (unsigned launch = 0; launch < 2; ++launch) {
    std::vector<T> in(values.begin() + std::ptrdiff_t(launch * body_t::calls * n),
                      values.begin() + std::ptrdiff_t((launch + 1) * body_t::calls * n));
    grid_buf<T> d_in(in), d_out(body_t::calls * n, poison<T>());
    ::backend::run_cooperative(blocks, Threads, body_t{d_in.data(), d_out.data(), memory.data(), blocks, op},
                               sizeof(tilekit::reduce_storage<T, Threads>));
    const auto got = d_out.to_host();
    BOOST_TEST_CONTEXT(::backend::name << " grid reduce " << what << ", " << blocks << " blocks x " << Threads
                                       << " threads, launch " << launch << ", TILEKIT_TEST_SEED=" << base_seed()) {
      mismatch_log log;
      for (unsigned c = 0; c < body_t::calls; ++c) {
        T want = in[c * n];
        for (std::size_t i = 1; i < n; ++i) want = op(want, in[c * n + i]);  // grid rank order
        for (std::size_t i = 0; i < n; ++i)
          if (!(got[c * n + i] == want)) log.expect(got[c * n + i], want, "call " + std::to_string(c) + ", thread " + std::to_string(i));
      }
      BOOST_TEST(log.count == 0u);
    }
  }
}

template <class T>
std::vector<T> grid_values(std::size_t count, std::mt19937_64& g);
template <>
inline std::vector<int> grid_values<int>(std::size_t count, std::mt19937_64& g) {
  std::vector<int> v(count);
  for (auto& x : v) x = int(g() % 2001) - 1000;
  return v;
}
template <>
inline std::vector<mat2> grid_values<mat2>(std::size_t count, std::mt19937_64& g) {
  std::vector<mat2> v(count);
  for (auto& m : v) m = {std::uint32_t(g() % 3), std::uint32_t(g() % 3), std::uint32_t(g() % 3), std::uint32_t(g() % 3)};
  return v;
}

template <unsigned Threads>
void check_grid_reduce_shapes() {
  auto g = rng_for(next_salt());
  for (unsigned blocks : {1u, 3u, ::backend::cooperative_blocks()}) {
    const std::size_t count = 2 * grid_reduce_body<Threads, int, tilekit::plus>::calls * std::size_t(blocks) * Threads;
    const auto ints = grid_values<int>(count, g);
    check_grid_reduce<Threads>(blocks, tilekit::plus{}, ints, "int plus");
    check_grid_reduce<Threads>(blocks, tilekit::minimum{}, ints, "int minimum");
    check_grid_reduce<Threads>(blocks, custom_max{}, ints, "int custom max");
    check_grid_reduce<Threads>(blocks, mat_mul{}, grid_values<mat2>(count, g), "2x2 matrix product");
  }
}

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(grid_reduce)

BOOST_AUTO_TEST_CASE(every_thread_gets_the_grid_total_32) { tk_test::check_grid_reduce_shapes<32>(); }
BOOST_AUTO_TEST_CASE(every_thread_gets_the_grid_total_80) { tk_test::check_grid_reduce_shapes<80>(); }  // a partial warp
BOOST_AUTO_TEST_CASE(every_thread_gets_the_grid_total_128) { tk_test::check_grid_reduce_shapes<128>(); }

// More blocks than threads per block: a thread folds a run of several partials.
BOOST_AUTO_TEST_CASE(more_blocks_than_threads) {
  auto g = tk_test::rng_for(tk_test::next_salt());
  const unsigned blocks = 40;
  const auto ints = tk_test::grid_values<int>(2 * 3 * std::size_t(blocks) * 32, g);
  tk_test::check_grid_reduce<32>(blocks, tilekit::plus{}, ints, "int plus");
  tk_test::check_grid_reduce<32>(blocks, tk_test::mat_mul{}, tk_test::grid_values<tk_test::mat2>(2 * 3 * std::size_t(blocks) * 32, g),
                                 "2x2 matrix product");
}

BOOST_AUTO_TEST_SUITE_END()
