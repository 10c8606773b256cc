// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The memory model kernel bodies rely on across blocks, written once for both
// backends: atomics, acquire/release flags between blocks (the chain that
// decoupled look-back builds on), and grid.sync() under a cooperative launch.
// The including file defines `using backend = ...;`.
#pragma once
#include "tile_common.hpp"

#include <algorithm>

namespace tk_test {

template <class T>
using buffer_of = typename ::backend::template buffer<T>;

// Blocks take tickets in the order they start; block `ticket` waits for the
// flag of ticket-1, adds to its running value, and raises its own flag.
struct chain_body {
  unsigned* ticket;
  unsigned* flags;
  unsigned long long* values;
  unsigned* seen_ticket;  // per block: the ticket it drew

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    using be = typename decltype(block)::backend;
    unsigned& mine = ctx.template shared<unsigned>();
    if (block.thread_rank() == 0) mine = be::atomic_add(ticket, 1u);
    block.sync();
    const unsigned id = mine;
    if (block.thread_rank() == 0) {
      unsigned long long before = 0;
      if (id > 0) {
        while (be::load_acquire(flags + id - 1) == 0) {
        }
        before = be::load_acquire(values + id - 1);
      }
      be::store_release(values + id, before + id + 1);
      be::store_release(flags + id, 1u);
      seen_ticket[block.group_index().x] = id;
    }
  }
};

// Every thread increments one counter through a compare-and-swap loop and
// swaps its rank into a single slot (collecting what it displaced).
struct atomics_body {
  unsigned* counter;
  unsigned* slot;
  unsigned* displaced;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    using be = typename decltype(block)::backend;
    const unsigned rank = block.group_index().x * block.num_threads() + block.thread_rank();
    unsigned old = be::load_acquire(counter);
    for (;;) {
      const unsigned seen = be::atomic_cas(counter, old, old + 1);
      if (seen == old) break;
      old = seen;
    }
    displaced[rank] = be::atomic_exch(slot, rank);
  }
};

// Blocks publish partial sums, meet at grid.sync(), and every thread adds them up.
struct grid_sync_body {
  unsigned long long* partial;
  unsigned long long* total;

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.block();
    auto grid = ctx.grid();
    if (block.thread_rank() == 0) partial[grid.block_rank()] = 1000 + grid.block_rank();
    grid.sync();
    unsigned long long sum = 0;
    for (unsigned long long b = 0; b < grid.num_blocks(); ++b) sum += partial[b];
    total[grid.thread_rank()] = sum;
  }
};

}  // namespace tk_test

BOOST_AUTO_TEST_SUITE(grid_model)

BOOST_AUTO_TEST_CASE(flag_chain_between_blocks) {
  using namespace tk_test;
  const unsigned blocks = backend::chain_blocks();
  buffer_of<unsigned> ticket(1, 0u), flags(blocks, 0u), seen(blocks, poison<unsigned>());
  buffer_of<unsigned long long> values(blocks, poison<unsigned long long>());
  backend::run(blocks, 64, chain_body{ticket.data(), flags.data(), values.data(), seen.data()}, sizeof(unsigned));
  const auto v = values.to_host();
  const auto s = seen.to_host();
  std::vector<unsigned> tickets(s);
  std::sort(tickets.begin(), tickets.end());
  mismatch_log log;
  for (unsigned i = 0; i < blocks; ++i) {
    log.expect(v[i], (unsigned long long)(i + 1) * (i + 2) / 2, "running value of ticket " + std::to_string(i));
    log.expect(tickets[i], i, "tickets drawn");
  }
  BOOST_TEST(log.count == 0u);
}

BOOST_AUTO_TEST_CASE(compare_and_swap_and_exchange) {
  using namespace tk_test;
  const unsigned blocks = 8, threads = 64, n = blocks * threads;
  buffer_of<unsigned> counter(1, 5u), slot(1, n + 7), displaced(n, poison<unsigned>());
  backend::run(blocks, threads, atomics_body{counter.data(), slot.data(), displaced.data()});
  BOOST_TEST(counter.to_host()[0] == 5u + n);
  // The exchanges form one chain: every value (the initial one and each rank) is
  // displaced exactly once, except the one left in the slot.
  std::vector<unsigned> all = displaced.to_host();
  all.push_back(slot.to_host()[0]);
  std::sort(all.begin(), all.end());
  std::vector<unsigned> want(n);
  for (unsigned i = 0; i < n; ++i) want[i] = i;
  want.push_back(n + 7);
  BOOST_TEST(all == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(grid_sync_under_a_cooperative_launch) {
  using namespace tk_test;
  const unsigned blocks = backend::cooperative_blocks(), threads = 128;
  buffer_of<unsigned long long> partial(blocks, poison<unsigned long long>()), total(blocks * threads, 0ull);
  backend::run_cooperative(blocks, threads, grid_sync_body{partial.data(), total.data()});
  const unsigned long long want = 1000ull * blocks + (unsigned long long)blocks * (blocks - 1) / 2;
  const auto t = total.to_host();
  BOOST_TEST(std::count(t.begin(), t.end(), want) == std::ptrdiff_t(t.size()));
}

BOOST_AUTO_TEST_SUITE_END()
