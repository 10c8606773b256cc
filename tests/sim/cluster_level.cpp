// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cluster rung (reduce, scans, compact, histogram, dedup across a thread-block cluster through
// distributed shared memory) in the CPU simulator, and the misuse of clusters it reports:
// launch extents, a cluster<Blocks> that does not match the launch, cluster.sync() not
// reached by every thread, a split barrier (arrive_relaxed / wait) misused, remote shared
// memory mapped before the first cluster.sync(), of a block that has exited, or still mapped
// when its block exits.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/cluster_level.hpp"

#include <sstream>

namespace {

bool says(const tilekit::sim::error& e, const char* what) {
  const bool found = std::string(e.what()).find(what) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("message was: " << e.what());
  return found;
}

// Does nothing but name a cluster of Blocks blocks of 32 threads.
template <unsigned Blocks>
struct name_cluster_body {
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<Blocks, 32>();
    cluster.sync();
  }
};

// How a body misuses distributed shared memory.
enum class misuse { map_before_sync, map_stack_address, map_rank_past_cluster, exit_while_mapped, map_exited_block };

struct misuse_body {
  misuse how;
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<2, 32>();
    int* mine = ctx.template shared_array<int>(32);
    const unsigned me = cluster.block_rank(), other = 1 - me, t = cluster.block().thread_rank();
    switch (how) {
      case misuse::map_before_sync:
        *cluster.map_shared_rank(mine + t, other) = 1;  // block `other` may not have started
        break;
      case misuse::map_stack_address: {
        cluster.sync();
        int local = 0;
        *cluster.map_shared_rank(&local, other) = 1;
        break;
      }
      case misuse::map_rank_past_cluster:
        cluster.sync();
        *cluster.map_shared_rank(mine + t, 2) = 1;
        break;
      case misuse::exit_while_mapped:
        // Block 1 writes into block 0's shared memory; block 0 exits without a cluster.sync() after it.
        cluster.sync();
        if (me == 1 && t == 0) tilekit::sim::backend::atomic_add(cluster.map_shared_rank(mine, 0), 1);
        break;
      case misuse::map_exited_block:
        // Block 0 exits at once; block 1 maps it afterwards.
        cluster.sync();
        if (me == 1) {
          cluster.block().sync();  // block 0 runs (and exits) meanwhile
          *cluster.map_shared_rank(mine + t, 0) = 1;
        }
        break;
    }
  }
};

void run_misuse(misuse how, bool later_blocks_first = false) {
  tilekit::sim::options opt;
  opt.shared_bytes = 32 * sizeof(int);
  opt.later_blocks_first = later_blocks_first;
  tilekit::sim::launch_cluster(2, 32, 2, misuse_body{how}, opt);
}

// Threads of block `leaver` return before cluster.sync(); the others call it.
struct leave_before_sync_body {
  unsigned leaver;
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<2, 32>();
    if (cluster.block_rank() == leaver) return;
    cluster.sync();
  }
};

// Block 1 maps block 0's shared memory, the cluster meets at cluster.sync() (which ends the
// mapping as far as the simulator can tell), block 0 exits, and block 1 reads through the
// pointer it kept: the read shows the 0xA5 garbage pattern an exited block's shared
// memory holds, so the mistake shows in results.
struct read_after_exit_body {
  unsigned* seen;
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<2, 32>();
    unsigned* mine = ctx.template shared_array<unsigned>(32);
    const unsigned t = cluster.block().thread_rank();
    mine[t] = 7;
    cluster.sync();
    unsigned* theirs = cluster.map_shared_rank(mine, 1 - cluster.block_rank());
    cluster.sync();
    if (cluster.block_rank() == 1) {
      cluster.block().sync();  // block 0 runs to its exit meanwhile
      seen[t] = theirs[t];
    }
  }
};

// A split cluster barrier: arrive, work, wait, then write the other block's shared memory;
// or (how) a misuse of it.
enum class split { ok, wait_first, arrive_twice, exit_arrived, map_between };

struct split_barrier_body {
  split how;
  int* seen;
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<2, 32>();
    int* mine = ctx.template shared_array<int>(32);
    const unsigned me = cluster.block_rank(), other = 1 - me, t = cluster.block().thread_rank();
    if (how == split::wait_first) cluster.wait();
    cluster.arrive_relaxed();
    if (how == split::arrive_twice) cluster.arrive_relaxed();
    if (how == split::exit_arrived && me == 1) return;
    if (how == split::map_between) *cluster.map_shared_rank(mine + t, other) = 1;
    cluster.block().sync();  // the block's own work between the two halves
    cluster.wait();
    *cluster.map_shared_rank(mine + t, other) = int(100 * me + t);
    cluster.sync();
    seen[me * 32 + t] = mine[t];
  }
};

void run_split(split how, int* seen) {
  tilekit::sim::options opt;
  opt.shared_bytes = 32 * sizeof(int);
  tilekit::sim::launch_cluster(2, 32, 2, split_barrier_body{how, seen}, opt);
}

// Thread 0 of block 1 waits at a block barrier the rest of the cluster never reaches: they wait in cluster.sync().
struct split_barriers_body {
  template <class Ctx>
  void operator()(Ctx& ctx) const {
    auto cluster = ctx.template cluster<2, 32>();
    if (cluster.block_rank() == 1 && cluster.block().thread_rank() == 0) cluster.block().sync();
    else cluster.sync();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(cluster_level_sim)

BOOST_AUTO_TEST_CASE(deadlock_report_names_cluster_sync) {
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(2, 32, 2, split_barriers_body{}), tilekit::sim::error,
                        [](const tilekit::sim::error& e) {
                          return says(e, "deadlock") && says(e, "wait in cluster.sync() of cluster (0,0,0)") &&
                                 says(e, "wait at the block barrier");
                        });
}

BOOST_AUTO_TEST_CASE(cluster_extents_the_launch_rejects) {
  auto body = name_cluster_body<1>{};
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(4, 32, tilekit::sim::dim3(0, 1, 1), body), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "a cluster extent is 0"); });
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(3, 32, 2, body), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "does not divide the grid"); });
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(tilekit::sim::dim3(4, 3), 32, tilekit::sim::dim3(2, 2), body),
                        tilekit::sim::error, [](const tilekit::sim::error& e) { return says(e, "does not divide the grid"); });
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(34, 32, 17, body), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "sm_90 allows at most 16"); });
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(tilekit::sim::dim3(4, 4, 2), 32, tilekit::sim::dim3(4, 4, 2), body),
                        tilekit::sim::error, [](const tilekit::sim::error& e) { return says(e, "sm_90 allows at most 16"); });
}

BOOST_AUTO_TEST_CASE(cluster_size_that_does_not_match_the_launch) {
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(4, 32, 2, name_cluster_body<4>{}), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "cluster<4> used in a launch whose clusters have 2 blocks"); });
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch(4, 32, name_cluster_body<2>{}), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "cluster<2> used in a launch whose clusters have 1 block"); });
  // A cluster of one is what every other launch has.
  tilekit::sim::launch(4, 32, name_cluster_body<1>{});
}

BOOST_AUTO_TEST_CASE(cluster_sync_not_reached_by_every_thread) {
  // Block 0 waits in cluster.sync() when block 1's threads exit.
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(2, 32, 2, leave_before_sync_body{1}), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "exited without reaching cluster.sync()"); });
  // Block 0's threads have exited when block 1 reaches cluster.sync().
  BOOST_CHECK_EXCEPTION(tilekit::sim::launch_cluster(2, 32, 2, leave_before_sync_body{0}), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "reaches cluster.sync(), but in block (0,0,0)"); });
}

BOOST_AUTO_TEST_CASE(split_cluster_barrier) {
  std::vector<int> seen(64, -1);
  run_split(split::ok, seen.data());  // each block reads what the other wrote after the wait
  for (unsigned t = 0; t < 32; ++t) {
    BOOST_TEST(seen[t] == int(100 + t));
    BOOST_TEST(seen[32 + t] == int(t));
  }
  BOOST_CHECK_EXCEPTION(run_split(split::wait_first, seen.data()), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "cluster.wait() without a cluster.arrive_relaxed() before it"); });
  BOOST_CHECK_EXCEPTION(run_split(split::arrive_twice, seen.data()), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "has not waited for its previous cluster.arrive_relaxed()"); });
  BOOST_CHECK_EXCEPTION(run_split(split::exit_arrived, seen.data()), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "exited after cluster.arrive_relaxed() without cluster.wait()"); });
  BOOST_CHECK_EXCEPTION(run_split(split::map_between, seen.data()), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "between cluster.arrive_relaxed() and cluster.wait()"); });
}

BOOST_AUTO_TEST_CASE(remote_access_before_the_first_cluster_sync) {
  BOOST_CHECK_EXCEPTION(run_misuse(misuse::map_before_sync), tilekit::sim::error, [](const tilekit::sim::error& e) {
    return says(e, "may not have started: call cluster.sync() once before the first remote access");
  });
}

BOOST_AUTO_TEST_CASE(map_shared_rank_arguments) {
  BOOST_CHECK_EXCEPTION(run_misuse(misuse::map_stack_address), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "is not in the calling block's shared memory"); });
  BOOST_CHECK_EXCEPTION(run_misuse(misuse::map_rank_past_cluster), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "the cluster has 2 blocks"); });
}

BOOST_AUTO_TEST_CASE(block_exits_while_another_maps_its_shared_memory) {
  // Later blocks first: block 1 maps block 0's memory before block 0's threads run and exit.
  BOOST_CHECK_EXCEPTION(run_misuse(misuse::exit_while_mapped, true), tilekit::sim::error, [](const tilekit::sim::error& e) {
    return says(e, "finish remote accesses with cluster.sync() before a block exits");
  });
  BOOST_CHECK_EXCEPTION(run_misuse(misuse::map_exited_block), tilekit::sim::error,
                        [](const tilekit::sim::error& e) { return says(e, "has exited; its shared memory is gone"); });
}

BOOST_AUTO_TEST_CASE(shared_memory_of_an_exited_block_reads_as_garbage) {
  std::vector<unsigned> seen(32, 0);
  tilekit::sim::launch_cluster(2, 32, 2, read_after_exit_body{seen.data()}, 32 * sizeof(unsigned));
  for (unsigned t = 0; t < 32; ++t) BOOST_TEST(seen[t] == 0xA5A5A5A5u);
}

BOOST_AUTO_TEST_CASE(cluster_barrier_in_the_trace) {
  std::ostringstream trace;
  tilekit::sim::options opt;
  opt.trace = true;
  opt.trace_stream = &trace;
  tilekit::sim::launch_cluster(tilekit::sim::dim3(2, 2), 32, tilekit::sim::dim3(1, 2), name_cluster_body<2>{}, opt);
  BOOST_TEST(trace.str().find("[sim] cluster (0,0,0): cluster barrier, 64 threads") != std::string::npos);
  BOOST_TEST(trace.str().find("[sim] cluster (1,0,0): cluster barrier, 64 threads") != std::string::npos);
}

// A cluster of more blocks than options.resident_blocks is still resident as a whole.
BOOST_AUTO_TEST_CASE(a_cluster_larger_than_resident_blocks) {
  tilekit::sim::options opt;
  opt.resident_blocks = 2;
  tilekit::sim::launch_cluster(16, 32, 8, name_cluster_body<8>{}, opt);
}

BOOST_AUTO_TEST_SUITE_END()
