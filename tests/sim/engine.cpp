// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The simulator itself: CUDA's lane semantics in the corners, planted bugs that
// must raise tilekit::sim::error with a clear message, the trace, scheduling.
#include <tilekit/sim.cuh>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace sim = tilekit::sim;

namespace {

// Runs a launch that must fail; returns the error's message.
template <class Body>
std::string failure_of(sim::dim3 grid, sim::dim3 block, Body body, std::size_t shared = 0) {
  try {
    sim::launch(grid, block, body, shared);
  } catch (const sim::error& e) {
    BOOST_TEST_MESSAGE("sim::error: " << e.what());
    return e.what();
  }
  BOOST_ERROR("the launch should have raised tilekit::sim::error");
  return {};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A launch of `blocks` one-thread blocks, each taking `steps` tickets (one a scheduling round)
// from one atomic counter; ticket[s x blocks + b] is block b's s-th.
std::vector<unsigned> atomic_tickets(unsigned blocks, unsigned steps, const sim::options& opt) {
  unsigned counter = 0;
  std::vector<unsigned> ticket(blocks * steps);
  sim::launch(blocks, 1, [&](auto& ctx) {
    const unsigned b = ctx.block().group_index().x;
    for (unsigned s = 0; s < steps; ++s) ticket[s * blocks + b] = sim::backend::atomic_add(&counter, 1u);
  }, opt);
  BOOST_TEST(counter == blocks * steps);
  return ticket;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(lane_semantics)

// width 16, lane mask 16: lanes 16..31 read the lower segment (lane ^ 16 is
// below their segment's end); lanes 0..15 would leave theirs and keep their own value.
BOOST_AUTO_TEST_CASE(shfl_xor_reads_a_lower_segment) {
  std::vector<int> out(32);
  sim::launch(1, 32, [&](auto&) {
    const unsigned l = sim::lane_id();
    out[l] = sim::shfl_xor_sync(0xffffffffu, int(100 + l), 16, 16);
  });
  for (unsigned l = 0; l < 32; ++l) BOOST_TEST(out[l] == int(100 + (l < 16 ? l : l - 16)));
}

BOOST_AUTO_TEST_CASE(shfl_up_down_stay_in_their_segment) {
  std::vector<int> up(32), down(32), idx(32);
  sim::launch(1, 32, [&](auto&) {
    const unsigned l = sim::lane_id();
    up[l] = sim::shfl_up_sync(~0u, int(l), 3, 8);
    down[l] = sim::shfl_down_sync(~0u, int(l), 3, 8);
    idx[l] = sim::shfl_sync(~0u, int(l), 11, 8);  // source taken modulo the width
  });
  for (unsigned l = 0; l < 32; ++l) {
    BOOST_TEST(up[l] == int(l % 8 >= 3 ? l - 3 : l));
    BOOST_TEST(down[l] == int(l % 8 + 3 < 8 ? l + 3 : l));
    BOOST_TEST(idx[l] == int(l / 8 * 8 + 3));
  }
}

BOOST_AUTO_TEST_CASE(partial_and_divergent_masks) {
  std::vector<unsigned> ballots(32);
  std::vector<int> sums(32);
  sim::launch(1, 32, [&](auto&) {
    const unsigned l = sim::lane_id();
    const unsigned mask = (l % 2) ? 0xAAAAAAAAu : 0x55555555u;  // two groups at once
    ballots[l] = sim::ballot_sync(mask, l % 4 < 2);
    sums[l] = sim::reduce_add_sync(mask, int(l));
  });
  for (unsigned l = 0; l < 32; ++l) {
    BOOST_TEST(ballots[l] == ((l % 2) ? 0x22222222u : 0x11111111u));
    BOOST_TEST(sums[l] == ((l % 2) ? 256 : 240));
  }
}

BOOST_AUTO_TEST_CASE(match_and_redux_signedness) {
  std::vector<unsigned> any(32), all(32);
  std::vector<int> pred(32), smin(32);
  std::vector<unsigned> umin(32);
  sim::launch(1, 32, [&](auto&) {
    const unsigned l = sim::lane_id();
    any[l] = sim::match_any_sync(~0u, std::uint64_t(l % 3) << 40);
    all[l] = sim::match_all_sync(~0u, 7, &pred[l]);
    smin[l] = sim::reduce_min_sync(~0u, int(l) - 16);
    umin[l] = sim::reduce_min_sync(~0u, unsigned(int(l) - 16));
  });
  for (unsigned l = 0; l < 32; ++l) {
    unsigned want = 0;
    for (unsigned k = 0; k < 32; ++k) want |= unsigned(k % 3 == l % 3) << k;
    BOOST_TEST(any[l] == want);
    BOOST_TEST(all[l] == ~0u);
    BOOST_TEST(pred[l] == 1);
    BOOST_TEST(smin[l] == -16);
    BOOST_TEST(umin[l] == 0u);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(planted_bugs)

BOOST_AUTO_TEST_CASE(divergent_shuffle) {
  const std::string m = failure_of(1, 32, [](auto& ctx) {
    auto tile = tilekit::tiled_partition<32>(ctx.block());
    if (tile.thread_rank() < 16) tile.shfl_xor(1, 1);
    else tile.ballot(true);
  });
  BOOST_TEST(contains(m, "divergent collective"));
  BOOST_TEST(contains(m, "shfl_xor"));
  BOOST_TEST(contains(m, "ballot"));
  BOOST_TEST(contains(m, "block (0,0,0), warp 0"));
}

BOOST_AUTO_TEST_CASE(barrier_skipped_by_one_thread) {
  const std::string m = failure_of(1, 64, [](auto& ctx) {
    auto block = ctx.block();
    if (block.thread_rank() != 37) block.sync();
  });
  BOOST_TEST(contains(m, "barrier"));
  BOOST_TEST(contains(m, "thread 37"));
}

BOOST_AUTO_TEST_CASE(read_from_inactive_lane) {
  const std::string m = failure_of(1, 32, [](auto&) {
    const unsigned l = sim::lane_id();
    if (l < 16) sim::shfl_sync(0x0000ffffu, 1, 20);  // lane 20 is not in the mask
  });
  BOOST_TEST(contains(m, "reads lane 20"));
  BOOST_TEST(contains(m, "inactive"));
}

BOOST_AUTO_TEST_CASE(lane_exits_while_its_tile_waits) {
  const std::string m = failure_of(1, 32, [](auto& ctx) {
    auto tile = tilekit::tiled_partition<8>(ctx.block());
    if (tile.thread_rank() == 3) return;
    tilekit::reduce(tile, 1, tilekit::plus{});
  });
  BOOST_TEST(contains(m, "lane 3"));
  BOOST_TEST((contains(m, "exited") || contains(m, "has exited")));
}

BOOST_AUTO_TEST_CASE(mask_without_the_caller) {
  const std::string m = failure_of(1, 32, [](auto&) { sim::ballot_sync(0x1u << ((sim::lane_id() + 1) % 32), true); });
  BOOST_TEST(contains(m, "does not include the calling lane"));
}

BOOST_AUTO_TEST_CASE(bad_width) {
  const std::string m = failure_of(1, 32, [](auto&) { sim::shfl_sync(~0u, 1, 0, 12); });
  BOOST_TEST(contains(m, "width must be a power of two"));
}

BOOST_AUTO_TEST_CASE(tile_past_the_end_of_a_partial_warp) {
  const std::string m = failure_of(1, 40, [](auto& ctx) {
    auto tile = tilekit::tiled_partition<16>(ctx.block());  // lanes 8..15 of warp 1 do not exist
    tile.sync();
  });
  BOOST_TEST(contains(m, "does not exist"));
}

BOOST_AUTO_TEST_CASE(shared_storage_past_its_size) {
  const std::string m = failure_of(
      1, 32, [](auto& ctx) { ctx.template shared<int[64]>()[0] = 1; }, 128);
  BOOST_TEST(contains(m, "256 bytes"));
  BOOST_TEST(contains(m, "gave 128"));
}

BOOST_AUTO_TEST_CASE(deadlock_is_reported_with_every_thread) {
  const std::string m = failure_of(1, 2, [](auto& ctx) {
    auto block = ctx.block();
    if (block.thread_rank() == 0) sim::shfl_sync(0x3u, 1, 1);  // waits for lane 1
    else block.sync();                                         // waits for thread 0
  });
  BOOST_TEST(contains(m, "deadlock"));
  BOOST_TEST(contains(m, "block barrier"));
  BOOST_TEST(contains(m, "still waits for lanes 1"));
}

// Also with block 0 to be held back (first_block_late_rounds): alone, it runs, and its spins count.
BOOST_AUTO_TEST_CASE(spin_wait_on_a_later_block_is_a_livelock) {
  for (unsigned late : {0u, 5u}) {
    sim::options opt;
    opt.resident_blocks = 1;  // block 1 never becomes resident while block 0 spins
    opt.first_block_late_rounds = late;
    unsigned flag = 0;
    std::string m;
    try {
      sim::launch(
          2, 32,
          [&](auto& ctx) {
            auto b = ctx.block();
            if (b.group_index().x == 0) {
              while (sim::backend::load_acquire(&flag) == 0) {
              }
            } else {
              sim::backend::store_release(&flag, 1u);
            }
          },
          opt);
    } catch (const sim::error& e) {
      m = e.what();
    }
    BOOST_TEST_CONTEXT("first_block_late_rounds " << late) {
      BOOST_TEST_MESSAGE(m);
      BOOST_TEST(contains(m, "livelock"));
      BOOST_TEST(contains(m, "not resident yet"));
      BOOST_TEST(contains(m, "spin on a load"));
    }
  }
}

BOOST_AUTO_TEST_CASE(spin_wait_on_an_earlier_block_makes_progress) {
  for (unsigned resident : {1u, 2u, 5u}) {
    sim::options opt;
    opt.resident_blocks = resident;
    std::vector<unsigned> flags(5, 0);
    std::vector<unsigned> order;
    sim::launch(
        5, 32,
        [&](auto& ctx) {
          auto b = ctx.block();
          const unsigned i = b.group_index().x;
          if (b.thread_rank() != 0) return;
          if (i > 0)
            while (sim::backend::load_acquire(&flags[i - 1]) == 0) {
            }
          order.push_back(i);
          sim::backend::store_release(&flags[i], 1u);
        },
        opt);
    BOOST_TEST(order == (std::vector<unsigned>{0, 1, 2, 3, 4}), boost::test_tools::per_element());
  }
}

// A cooperative launch makes every block resident, whatever options.resident_blocks says
// (a grid.sync() under an ordinary launch does not compile: host_static_asserts).
BOOST_AUTO_TEST_CASE(a_cooperative_launch_has_every_block_resident) {
  sim::options opt;
  opt.resident_blocks = 2;
  std::vector<int> seen(3 * 32, -1);
  unsigned arrived = 0;
  sim::launch_cooperative(
      3, 32,
      [&](auto& ctx) {
        if (ctx.block().thread_rank() == 0) sim::backend::atomic_add(&arrived, 1u);
        ctx.grid().sync();
        seen[ctx.grid().thread_rank()] = int(sim::backend::load_acquire(&arrived));
      },
      opt);
  for (int x : seen) BOOST_TEST(x == 3);
}

BOOST_AUTO_TEST_CASE(grid_sync_skipped_by_one_thread) {
  sim::options opt;
  opt.resident_blocks = 3;
  std::string m;
  try {
    sim::launch_cooperative(
        3, 32,
        [](auto& ctx) {
          if (ctx.grid().thread_rank() != 70) ctx.grid().sync();
        },
        opt);
  } catch (const sim::error& e) {
    m = e.what();
  }
  BOOST_TEST_MESSAGE(m);
  BOOST_TEST(contains(m, "grid.sync()"));
  BOOST_TEST(contains(m, "thread 6"));  // thread 70 of the grid is thread 6 of block 2
}

BOOST_AUTO_TEST_CASE(static_block_size_must_match) {
  const std::string m = failure_of(1, 64, [](auto& ctx) { ctx.template block<128>(); });
  BOOST_TEST(contains(m, "block<128>"));
}

BOOST_AUTO_TEST_CASE(invalid_launches) {
  auto nothing = [](auto&) {};
  BOOST_CHECK_THROW(sim::launch(1, 0, nothing), sim::error);
  BOOST_CHECK_THROW(sim::launch(1, 1025, nothing), sim::error);
  BOOST_CHECK_THROW(sim::launch(sim::dim3(2, 0), 32, nothing), sim::error);
  BOOST_CHECK_THROW(sim::lane_id(), sim::error);  // outside any launch
}

BOOST_AUTO_TEST_CASE(exceptions_from_the_body_propagate) {
  BOOST_CHECK_THROW(sim::launch(2, 64, [](auto& ctx) {
    if (ctx.block().thread_rank() == 5) throw std::logic_error("boom");
    ctx.block().sync();
  }),
                    std::logic_error);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(launch_model)

BOOST_AUTO_TEST_CASE(ranks_and_indices_in_3d) {
  const sim::dim3 grid(3, 2, 2), block(4, 3, 2);
  std::vector<std::uint64_t> seen(grid.count() * block.count(), ~0ull);
  sim::launch(grid, block, [&](auto& ctx) {
    auto b = ctx.block();
    auto g = ctx.grid();
    const sim::dim3 t = b.thread_index(), bi = b.group_index();
    const unsigned rank = t.x + 4 * (t.y + 3 * t.z);
    BOOST_TEST(b.thread_rank() == rank);
    BOOST_TEST(g.block_rank() == bi.x + 3 * (bi.y + 2 * bi.z));
    seen[g.thread_rank()] = g.block_rank() * 24 + rank;
    BOOST_TEST(g.num_threads() == 12u * 24u);
  });
  for (std::size_t i = 0; i < seen.size(); ++i) BOOST_TEST(seen[i] == i);
}

// Extents as CUDA code writes them: integers of any type, braces, a struct with x, y, z.
BOOST_AUTO_TEST_CASE(extents_written_the_cuda_way) {
  struct triple {
    unsigned x, y, z;
  };
  const int gx = 3;
  const std::size_t by = 2;
  std::atomic<unsigned> threads{0};
  const auto count = [&](auto&) { ++threads; };
  sim::launch({gx, 2}, {4, by}, count);
  BOOST_TEST(threads.load() == 3u * 2u * 4u * 2u);
  threads = 0;
  sim::launch(triple{2, 1, 2}, sim::dim3(gx, by), count);
  BOOST_TEST(threads.load() == 2u * 2u * 3u * 2u);
  threads = 0;
  sim::launch(5, 32, count);
  BOOST_TEST(threads.load() == 5u * 32u);
  constexpr sim::dim3 d(2, 3);
  static_assert(d.x == 2 && d.y == 3 && d.z == 1 && d.count() == 6);
}

BOOST_AUTO_TEST_CASE(shared_memory_is_per_block_and_barriers_order_it) {
  const unsigned blocks = 6, threads = 96;
  std::vector<int> out(blocks * threads);
  for (unsigned resident : {1u, 3u, 8u}) {
    sim::options opt;
    opt.shared_bytes = threads * sizeof(int);
    opt.resident_blocks = resident;
    sim::launch(
        blocks, threads,
        [&](auto& ctx) {
          auto b = ctx.block();
          int* s = ctx.template shared_array<int>(threads);
          s[b.thread_rank()] = int(b.thread_rank() + 1000 * b.group_index().x);
          b.sync();
          out[b.group_index().x * threads + b.thread_rank()] = s[threads - 1 - b.thread_rank()];
        },
        opt);
    for (unsigned bk = 0; bk < blocks; ++bk)
      for (unsigned r = 0; r < threads; ++r) BOOST_TEST(out[bk * threads + r] == int(threads - 1 - r + 1000 * bk));
  }
}

BOOST_AUTO_TEST_CASE(trace_prints_every_lane_before_and_after) {
  std::ostringstream trace;
  sim::options opt;
  opt.trace = true;
  opt.trace_stream = &trace;
  sim::launch(
      1, 8, [](auto& ctx) { tilekit::reduce_butterfly(tilekit::tiled_partition<8>(ctx.block()), int(ctx.block().thread_rank()), tilekit::plus{}); },
      opt);
  const std::string t = trace.str();
  BOOST_TEST_MESSAGE(t);
  BOOST_TEST(contains(t, "shfl_xor (mask 0x000000ff, width 8: tile<8> of lanes 0-7), lane mask 1"));
  BOOST_TEST(contains(t, "shfl_xor (mask 0x000000ff, width 8: tile<8> of lanes 0-7), lane mask 4"));
  BOOST_TEST(contains(t, "  lane  0 1 2 3 4 5 6 7"));
  BOOST_TEST(contains(t, "  in    0 1 2 3 4 5 6 7"));
  BOOST_TEST(contains(t, "  from  1 0 3 2 5 4 7 6"));
  BOOST_TEST(contains(t, "  out   1 0 3 2 5 4 7 6"));
}

BOOST_AUTO_TEST_CASE(atomics_interleave_deterministically) {
  unsigned counter = 0;
  std::vector<unsigned> order(128);
  for (int run = 0; run < 2; ++run) {
    counter = 0;
    std::vector<unsigned> got(128);
    sim::launch(2, 64, [&](auto& ctx) {
      auto b = ctx.block();
      got[b.group_index().x * 64 + b.thread_rank()] = sim::backend::atomic_add(&counter, 1u);
    });
    BOOST_TEST(counter == 128u);
    if (run == 0) order = got;
    else BOOST_TEST(got == order, "two runs schedule the same way");
  }
}

// options.shuffle_seed: each round runs the resident blocks in an order drawn from the seed,
// so the blocks' three atomics (one a round) come in a different order each time; the same
// seed draws the same orders, and every block still runs to its end.
BOOST_AUTO_TEST_CASE(shuffled_rounds_draw_the_block_order) {
  constexpr unsigned blocks = 8, steps = 3;
  auto orders = [&](std::uint64_t seed, bool later_first) {
    sim::options opt;
    opt.resident_blocks = blocks;
    opt.later_blocks_first = later_first;
    opt.shuffle_seed = seed;
    return atomic_tickets(blocks, steps, opt);
  };
  const std::vector<unsigned> fixed = orders(0, false), backward = orders(0, true);
  for (unsigned s = 0; s < steps; ++s)
    for (unsigned b = 0; b < blocks; ++b) {
      BOOST_TEST(fixed[s * blocks + b] == s * blocks + b);
      BOOST_TEST(backward[s * blocks + b] == s * blocks + (blocks - 1 - b));
    }
  const std::vector<unsigned> a = orders(12345, false), again = orders(12345, true), other = orders(678, false);
  BOOST_TEST(a == again, "a seed draws the same orders (later_blocks_first ignored)");
  BOOST_TEST(a != other);
  bool steps_differ = false;
  for (unsigned s = 0; s < steps; ++s) {
    std::vector<unsigned> step(a.begin() + s * blocks, a.begin() + (s + 1) * blocks), sorted = step;
    std::sort(sorted.begin(), sorted.end());
    for (unsigned b = 0; b < blocks; ++b) BOOST_TEST(sorted[b] == s * blocks + b);  // every block once a round
    if (s > 0) {
      std::vector<unsigned> first(a.begin(), a.begin() + blocks);
      for (unsigned b = 0; b < blocks; ++b) steps_differ = steps_differ || step[b] - s * blocks != first[b];
    }
  }
  BOOST_TEST(steps_differ, "the rounds ran the blocks in one order");
}

// options.first_block_late_rounds: block 0 sits out that many rounds in which another block
// runs, so the others' atomics (one a round) all come before its own; where every other block
// waits at a barrier only block 0 can open (a grid.sync), it runs at once.
BOOST_AUTO_TEST_CASE(first_block_late_runs_after_the_others) {
  constexpr unsigned blocks = 4, steps = 3;
  sim::options opt;
  opt.resident_blocks = blocks;
  opt.first_block_late_rounds = steps;
  const std::vector<unsigned> ticket = atomic_tickets(blocks, steps, opt);
  for (unsigned s = 0; s < steps; ++s) BOOST_TEST(ticket[s * blocks] >= (blocks - 1) * steps, "block 0's atomic " << s);
  unsigned arrived = 0;
  std::vector<unsigned> seen(blocks, 0);
  opt.first_block_late_rounds = 1000000;  // more rounds than the launch takes: released by the barrier
  sim::launch_cooperative(blocks, 1, [&](auto& ctx) {
    sim::backend::atomic_add(&arrived, 1u);
    ctx.grid().sync();
    seen[ctx.block().group_index().x] = sim::backend::load_acquire(&arrived);
  }, opt);
  for (unsigned x : seen) BOOST_TEST(x == blocks);
}

BOOST_AUTO_TEST_SUITE_END()
