// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/sim/runtime.hpp - the simulator's engine: simulated threads as fibers,
// a deterministic scheduler, warp collectives with CUDA's lane semantics, block
// barriers, and the checks that turn misuse into tilekit::sim::error.
//
// Every simulated thread is a Boost.Context fiber on the calling OS thread.
// The scheduler resumes runnable threads round-robin (blocks in index order,
// threads in rank order); a thread runs until it reaches a warp collective, a
// block barrier, an atomic or a spin-wait. A collective completes when the last
// lane named in its mask arrives: that lane computes every lane's result.
// A launch in thread-block clusters (launch_cluster) makes the blocks of a cluster
// resident together, keeps each block's shared memory alive until its whole cluster
// has finished, and checks distributed shared-memory accesses (map_shared_rank) and
// cluster barriers.
// Plain C++17: no CUDA toolkit needed.
#pragma once
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>
#include <tilekit/core/std.hpp>
#include <tilekit/sim/trace_svg.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iomanip>
#include <type_traits>
#include <utility>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#  define TILEKIT_SIM_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define TILEKIT_SIM_ASAN 1
#  endif
#endif
#if defined(TILEKIT_SIM_ASAN)
#  include <sanitizer/asan_interface.h>
#  include <sanitizer/common_interface_defs.h>
#endif

namespace tilekit::sim {

/// Misuse found by the simulator (divergent collective, barrier not reached by
/// every thread, read from an inactive lane, shared memory overrun, ...).
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Grid and block extents, written as in CUDA: a plain integer (x = n, y = z = 1),
/// dim3(x, y[, z]) or {x, y[, z]} from integers of any type, or anything with x, y and z
/// members (CUDA's own `dim3` and `uint3` where they exist).
struct dim3 {
  /// Extent (or index) along x; 1 unless given.
  unsigned x = 1, y = 1, z = 1;
  /// @var y
  /// Extent (or index) along y; 1 unless given.
  /// @var z
  /// Extent (or index) along z; 1 unless given.
  constexpr dim3() = default;
  /// (x_, y_, z_), each converted to unsigned; implicit, so a plain integer n means (n, 1, 1).
  template <class X, class Y = unsigned, class Z = unsigned,
            class = std::enable_if_t<std::is_integral_v<X> && std::is_integral_v<Y> && std::is_integral_v<Z>>>
  constexpr dim3(X x_, Y y_ = 1, Z z_ = 1) : x(unsigned(x_)), y(unsigned(y_)), z(unsigned(z_)) {}
  /// The x, y and z members of d, each converted to unsigned (for CUDA's own `dim3` and `uint3`).
  template <class D, class = decltype(unsigned(std::declval<const D&>().x) + unsigned(std::declval<const D&>().y) +
                                      unsigned(std::declval<const D&>().z))>
  constexpr dim3(const D& d) : x(unsigned(d.x)), y(unsigned(d.y)), z(unsigned(d.z)) {}
  /// x * y * z, as a 64-bit product: the number of blocks or threads these extents hold.
  constexpr std::uint64_t count() const { return std::uint64_t(x) * y * z; }
};

/// How a launch runs.
struct options {
  std::size_t shared_bytes = 0;          ///< dynamic shared memory per block
  bool trace = false;                    ///< print every collective step (also: TILEKIT_SIM_TRACE=1)
  std::ostream* trace_stream = nullptr;  ///< where the trace goes (default std::cout)
  /// Also draw the collective steps and barriers as one SVG file at this path, written when the launch
  /// ends (also when it fails); empty: the path in TILEKIT_SIM_TRACE_SVG, if set. Independent of trace.
  std::string trace_svg;
  std::size_t trace_svg_max_steps = 64;  ///< rows the SVG draws at most; a note counts the rest
  unsigned resident_blocks = 4;          ///< blocks in flight at once, like blocks resident on SMs
  /// Each scheduling round runs the resident blocks from the last to the first, so later
  /// blocks run ahead of earlier ones: exposes a block that reads what an earlier block
  /// has not written yet (by default earlier blocks run ahead).
  bool later_blocks_first = false;
  /// Not 0: each scheduling round runs the resident blocks in an order drawn from this seed
  /// (later_blocks_first is then ignored), so between two of a block's yields any other block
  /// may step, or not: exposes a block that expects the others' steps to land in the order of its own.
  std::uint64_t shuffle_seed = 0;
  /// Not 0: block 0 sits out the first this many scheduling rounds in which another block
  /// runs (it is resident, and runs at once where no other block can): exposes a block that
  /// expects block 0, which the GPU starts first, to be ahead of it.
  unsigned first_block_late_rounds = 0;
  std::size_t stack_bytes = 256 * 1024;  ///< stack of each simulated thread
};

namespace detail {

enum class op : unsigned char {
  shfl_idx, shfl_up, shfl_down, shfl_bfly, ballot, any, all, match_any, match_all,
  redux_add, redux_min, redux_max, redux_and, redux_or, redux_xor, syncwarp, bit_mma
};

inline const char* op_name(op k) {
  switch (k) {
    case op::shfl_idx: return "shfl";
    case op::shfl_up: return "shfl_up";
    case op::shfl_down: return "shfl_down";
    case op::shfl_bfly: return "shfl_xor";
    case op::ballot: return "ballot";
    case op::any: return "any";
    case op::all: return "all";
    case op::match_any: return "match_any";
    case op::match_all: return "match_all";
    case op::redux_add: return "reduce_add (redux.sync)";
    case op::redux_min: return "reduce_min (redux.sync)";
    case op::redux_max: return "reduce_max (redux.sync)";
    case op::redux_and: return "reduce_and (redux.sync)";
    case op::redux_or: return "reduce_or (redux.sync)";
    case op::redux_xor: return "reduce_xor (redux.sync)";
    case op::syncwarp: return "syncwarp";
    case op::bit_mma: return "mma.m16n8k256 .b1 .and.popc";
  }
  return "?";
}

// Tells AddressSanitizer about each switch between fiber stacks (no-ops otherwise).
inline void asan_start_switch(void** fake_stack_save, const void* bottom, std::size_t size) {
#if defined(TILEKIT_SIM_ASAN)
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
  (void)fake_stack_save, (void)bottom, (void)size;
#endif
}
inline void asan_finish_switch(void* fake_stack, const void** bottom_old, std::size_t* size_old) {
#if defined(TILEKIT_SIM_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack, bottom_old, size_old);
#else
  (void)fake_stack, (void)bottom_old, (void)size_old;
#endif
}

/// Thrown inside the simulated threads to unwind them when a launch is abandoned.
struct abandon_launch {};

inline bool is_shuffle(op k) { return k == op::shfl_idx || k == op::shfl_up || k == op::shfl_down || k == op::shfl_bfly; }
inline bool is_redux(op k) { return k >= op::redux_add && k <= op::redux_xor; }

/// Writes one value of the collective's type (bytes of a T) for the trace.
using printer = void (*)(std::ostream&, const unsigned char*);

/// One lane's operands and results in a warp collective.
struct lane_io {
  std::vector<unsigned char> in, out;
  unsigned b = 0;        // source lane, delta or lane mask; the predicate for votes
  unsigned src = 0;      // the lane a shuffle read from (for the trace)
  unsigned result = 0;   // vote / match mask
  bool pred = false;     // match_all's predicate
};

struct collective {
  op kind;
  unsigned mask;
  unsigned width;
  std::size_t bytes;
  bool is_signed;
  printer print;
  unsigned arrived = 0;
};

struct block_state;
struct cluster_state;

struct sim_thread {
  enum class state { runnable, collective, barrier, grid_barrier, cluster_barrier, done };
  block_state* blk = nullptr;
  unsigned rank = 0;  // linear rank in the block
  dim3 index;         // threadIdx
  unsigned warp = 0, lane = 0;
  state st = state::runnable;
  const char* waits_in = nullptr;  // description of the wait, for deadlock reports
  boost::context::fiber self;          // this thread, while suspended
  boost::context::fiber to_scheduler;  // the scheduler, while this thread runs
  boost::context::stack_context stack; // the fiber's stack (for AddressSanitizer)
  void* fake_stack = nullptr;          // AddressSanitizer's fake stack while switched out
  bool spinning = false;               // last yielded from a load that may be a spin-wait
  bool cluster_arrived = false;        // arrived at a cluster barrier it has not yet waited for
  std::uint64_t arrived_in = 0;        // which one: the cluster's completed barriers then
  lane_io io;
};

struct warp_state {
  std::vector<collective> pending;
};

struct block_state {
  dim3 index;
  std::uint64_t linear = 0;
  std::shared_ptr<cluster_state> cluster;  // the blocks resident with it (itself alone outside launch_cluster)
  unsigned cluster_rank = 0;               // its rank in the cluster
  std::vector<sim_thread> threads;
  std::vector<warp_state> warps;
  std::vector<unsigned char> shared;
  unsigned at_barrier = 0;
  unsigned finished = 0;
  bool started = false;
};

/// The blocks of one cluster, resident together; each block's state stays alive
/// (so its shared memory stays addressable) until every block of the cluster has finished.
struct cluster_state {
  dim3 index;                        // the cluster's index in the grid, in clusters
  std::vector<block_state*> blocks;  // by rank in the cluster
  std::uint64_t threads = 0;         // threads of every block
  std::uint64_t at_barrier = 0;      // threads arrived at the current cluster barrier
  std::uint64_t exited = 0;          // threads that have exited
  std::uint64_t syncs = 0;           // completed cluster barriers
  unsigned finished_blocks = 0;      // blocks whose every thread has exited
  // mapped[r]: bit q set when block q mapped block r's shared memory (r != q) since the
  // last completed cluster barrier.
  std::vector<unsigned> mapped;
};

inline std::string hex(unsigned m) {
  std::ostringstream s;
  s << "0x" << std::hex << std::setw(8) << std::setfill('0') << m;
  return s.str();
}

// "0-15,17,20-21"
inline std::string lane_list(unsigned m) {
  std::ostringstream s;
  bool first = true;
  for (unsigned l = 0; l < 32;) {
    if (!((m >> l) & 1)) { ++l; continue; }
    unsigned e = l;
    while (e + 1 < 32 && ((m >> (e + 1)) & 1)) ++e;
    s << (first ? "" : ",") << l;
    if (e > l) s << "-" << e;
    first = false;
    l = e + 1;
  }
  return first ? std::string("none") : s.str();
}

inline std::string describe(op k, unsigned mask, unsigned width) {
  std::ostringstream s;
  s << op_name(k) << " (mask " << hex(mask);
  if (is_shuffle(k)) s << ", width " << width;
  // A mask of 2^k consecutive lanes starting at a multiple of 2^k is a tile<2^k>.
  const unsigned count = static_cast<unsigned>(__builtin_popcount(mask));
  const unsigned first = mask ? static_cast<unsigned>(__builtin_ctz(mask)) : 0;
  if (count > 0 && (count & (count - 1)) == 0 && first % count == 0 &&
      mask == (count == 32 ? ~0u : ((1u << count) - 1u) << first))
    s << ": tile<" << count << "> of lanes " << first << "-" << first + count - 1;
  s << ")";
  return s.str();
}

inline std::string block_name(const block_state& b) {
  std::ostringstream s;
  s << "block (" << b.index.x << "," << b.index.y << "," << b.index.z << ")";
  return s.str();
}

inline std::string cluster_name(const cluster_state& c) {
  std::ostringstream s;
  s << "cluster (" << c.index.x << "," << c.index.y << "," << c.index.z << ")";
  return s.str();
}

/// Stacks for the fibers: guard-paged, recycled between threads and launches.
class stack_pool {
 public:
  explicit stack_pool(std::size_t bytes) : alloc_(bytes) {}
  stack_pool(const stack_pool&) = delete;
  ~stack_pool() {
    for (auto& s : free_) alloc_.deallocate(s);
  }
  boost::context::stack_context allocate() {
    boost::context::stack_context s;
    if (!free_.empty()) {
      s = free_.back();
      free_.pop_back();
    } else {
      s = alloc_.allocate();
    }
#if defined(TILEKIT_SIM_ASAN)
    // A fiber's last frames never return, so their redzones stay poisoned: clear them. They are
    // its first frames, at the top of the stack (sp); frames below them returned (or were unwound
    // by a throw, which clears the whole stack). Clearing the whole stack (256 KB by default) for
    // each simulated thread took 13% of sim_device_reduce's cluster_slices (perf record).
    const std::size_t top = s.size < unpoisoned_top ? s.size : unpoisoned_top;
    ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(s.sp) - top, top);
#endif
    return s;
  }
  void deallocate(boost::context::stack_context& s) noexcept { free_.push_back(s); }
  static stack_pool& of_size(std::size_t bytes) {
    static std::map<std::size_t, std::unique_ptr<stack_pool>> pools;
    auto& p = pools[bytes];
    if (!p) p = std::make_unique<stack_pool>(bytes);
    return *p;
  }

 private:
  boost::context::protected_fixedsize_stack alloc_;
  std::vector<boost::context::stack_context> free_;
  static constexpr std::size_t unpoisoned_top = 16 * 1024;
};

struct pooled_stack {
  stack_pool* pool;
  boost::context::stack_context* record;  // where the thread keeps its stack's bounds
  boost::context::stack_context allocate() { return *record = pool->allocate(); }
  void deallocate(boost::context::stack_context& s) noexcept { pool->deallocate(s); }
};

class runtime {
 public:
  /// The kernel body, type-erased: run(body) runs it on the calling simulated thread. A function
  /// pointer, not std::function: one small function per kernel type (std::function's machinery
  /// was a fifth of a sanitized tile test's compile time).
  struct entry_fn {
    void (*run)(void* body);
    void* body;
  };

  /// cluster: the extents of a thread-block cluster in blocks (launch_cluster); 1x1x1 otherwise.
  runtime(dim3 grid, dim3 block, const options& opt, entry_fn entry, dim3 cluster = dim3())
      : grid_(grid), block_(block), cluster_(cluster), opt_(opt), entry_(entry) {
    if (grid.count() == 0) throw error("tilekit::sim::launch: the grid is empty (a dimension is 0)");
    if (cluster.count() == 0)
      throw error("tilekit::sim::launch_cluster: a cluster extent is 0; give each of x, y and z at least 1 block");
    if (grid.x % cluster.x != 0 || grid.y % cluster.y != 0 || grid.z % cluster.z != 0)
      throw error("tilekit::sim::launch_cluster: the cluster (" + std::to_string(cluster.x) + "," + std::to_string(cluster.y) +
                  "," + std::to_string(cluster.z) + ") does not divide the grid (" + std::to_string(grid.x) + "," +
                  std::to_string(grid.y) + "," + std::to_string(grid.z) +
                  ") in every dimension; make each grid extent a multiple of the cluster's");
    if (cluster.count() > 16)
      throw error("tilekit::sim::launch_cluster: a cluster of " + std::to_string(cluster.count()) +
                  " blocks; sm_90 allows at most 16 (8 portably; tilekit::launch_cluster asks for the non-portable size "
                  "above 8)");
    if (block.count() == 0 || block.count() > 1024)
      throw error("tilekit::sim::launch: a block needs 1 to 1024 threads, got " + std::to_string(block.count()));
    if (opt.resident_blocks == 0) throw error("tilekit::sim::launch: options.resident_blocks must be at least 1");
    const char* env = std::getenv("TILEKIT_SIM_TRACE");
    trace_ = opt.trace || (env && *env && std::string(env) != "0");
    trace_out_ = opt.trace_stream ? opt.trace_stream : &std::cout;
    const char* svg_env = std::getenv("TILEKIT_SIM_TRACE_SVG");
    const std::string svg_path = !opt.trace_svg.empty() ? opt.trace_svg : svg_env ? svg_env : "";
    if (!svg_path.empty()) {
      std::ostringstream title;
      title << "tilekit::sim launch: grid (" << grid.x << "," << grid.y << "," << grid.z << "), block (" << block.x
            << "," << block.y << "," << block.z << ")";
      svg_ = std::make_unique<svg_trace>(svg_path, title.str(), opt.trace_svg_max_steps);
    }
  }

  /// The runtime of the launch in progress on this OS thread.
  static runtime*& current() {
    static thread_local runtime* rt = nullptr;
    return rt;
  }
  static runtime& get() {
    runtime* rt = current();
    if (!rt) throw error("tilekit::sim: a simulated primitive was called outside tilekit::sim::launch");
    return *rt;
  }
  sim_thread& self() { return *running_; }
  unsigned block_threads() const { return static_cast<unsigned>(block_.count()); }
  /// Blocks per cluster (1 outside launch_cluster).
  unsigned cluster_blocks() const { return static_cast<unsigned>(cluster_.count()); }
  const dim3& grid_dim() const { return grid_; }
  const dim3& block_dim() const { return block_; }
  std::size_t shared_bytes() const { return opt_.shared_bytes; }
  bool tracing() const { return trace_; }
  std::ostream& trace_out() { return *trace_out_; }

  /// Runs every block to completion; rethrows the first error.
  /// Blocks become resident in index order, at most options.resident_blocks at
  /// once, so a block may wait for an earlier block (never for a later one,
  /// unless every block is resident).
  void run() {
    struct scope {
      runtime* prev;
      explicit scope(runtime* rt) : prev(current()) { current() = rt; }
      ~scope() { current() = prev; }
    } in_launch(this);
    const std::uint64_t clusters = grid_.count() / cluster_.count(), per_cluster = cluster_.count();
    unsigned idle_rounds = 0;
    std::uint64_t shuffle = opt_.shuffle_seed;  // (a splitmix64 state)
    std::vector<std::size_t> order;
    try {
      for (;;) {
        // Whole clusters in cluster order (blocks in index order when clusters are of one block);
        // one cluster is admitted even if it has more blocks than options.resident_blocks.
        while (next_cluster_ < clusters && (resident_.empty() || resident_.size() + per_cluster <= opt_.resident_blocks))
          admit_cluster(next_cluster_++);
        if (resident_.empty()) break;
        bool ran = false, only_spins = true;
        const std::uint64_t epoch = epoch_;
        order.resize(resident_.size());
        const bool backward = opt_.later_blocks_first && opt_.shuffle_seed == 0;
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = backward ? order.size() - 1 - k : k;
        if (opt_.shuffle_seed != 0)
          for (std::size_t k = order.size(); k > 1; --k)  // Fisher-Yates
            std::swap(order[k - 1], order[tilekit::detail::mix64(shuffle += 0x9E3779B97F4A7C15ull) % k]);
        // Block 0 held back (first_block_late_rounds) runs after the others, and only where none of them ran;
        // held: it sat this round out.
        const bool hold_first = late_rounds_ < opt_.first_block_late_rounds;
        block_state* held = nullptr;
        auto run_block = [&](block_state& b) {
          for (auto& t : b.threads) {
            if (t.st != sim_thread::state::runnable) continue;
            ran = true;
            resume(t);
            if (failure_) std::rethrow_exception(failure_);
            only_spins = only_spins && t.spinning && t.st == sim_thread::state::runnable;
          }
        };
        for (std::size_t k = 0; k < order.size(); ++k) {
          auto& b = resident_[order[k]];
          if (hold_first && b->linear == 0) {
            held = b.get();
            continue;
          }
          run_block(*b);
        }
        if (held != nullptr) {
          if (ran) {
            ++late_rounds_;
          } else {  // alone: an ordinary round (its spins count towards a livelock)
            run_block(*held);
            held = nullptr;
          }
        }
        const auto before = resident_.size();
        resident_.erase(std::remove_if(resident_.begin(), resident_.end(),
                                       [](const auto& b) { return b->cluster->finished_blocks == b->cluster->blocks.size(); }),
                        resident_.end());
        if (!ran && resident_.size() == before) throw error(deadlock_report());
        // Every thread that ran only re-read memory nothing wrote: a spin-wait that cannot end.
        idle_rounds = (ran && only_spins && epoch_ == epoch && resident_.size() == before && held == nullptr) ? idle_rounds + 1 : 0;
        if (idle_rounds > spin_round_limit) throw error(livelock_report());
      }
    } catch (...) {
      abandon();
      if (svg_) {  // best effort: draw what was collected, with the error's message
        std::string why = "unknown exception";
        try {
          throw;
        } catch (const std::exception& e) {
          why = e.what();
        } catch (...) {
        }
        svg_->write(why);
      }
      throw;
    }
    if (svg_ && !svg_->write(""))
      throw error("tilekit::sim: cannot write the trace SVG to " + svg_->path());
  }

  /// Rounds in which every running thread only spins before the launch is declared stuck.
  static constexpr unsigned spin_round_limit = 1000;
  unsigned late_rounds_ = 0;  // rounds block 0 has sat out (options.first_block_late_rounds)

  // ---- called from inside a simulated thread ----

  /// Lets the other threads run; this one stays runnable.
  void yield() { switch_to_scheduler(); }

  /// Before a load that may be part of a spin-wait: lets the others run first.
  void spin_point() {
    self().spinning = true;
    switch_to_scheduler();
    self().spinning = false;
  }

  /// A store or atomic changed memory other threads may be waiting on.
  void note_write() { ++epoch_; }

  /// Grid-wide barrier (grid.sync()): every thread of every block.
  void grid_barrier() {
    sim_thread& t = self();
    if (opt_.resident_blocks < grid_.count())
      throw error("tilekit::sim: grid.sync() needs every block of the grid resident at once (a cooperative launch): "
                  "the grid has " + std::to_string(grid_.count()) + " blocks, options.resident_blocks is " +
                  std::to_string(opt_.resident_blocks));
    for (const auto& b : resident_)
      if (b->finished > 0)
        throw error("tilekit::sim: " + block_name(*t.blk) + ": thread " + std::to_string(t.rank) +
                    " reaches grid.sync(), but in " + block_name(*b) + " threads " + finished_threads(*b) +
                    " have exited without reaching it");
    const std::uint64_t all = grid_.count() * block_threads();
    if (++grid_at_barrier_ == all) {
      grid_at_barrier_ = 0;
      ++epoch_;
      for (auto& b : resident_)
        for (auto& o : b->threads)
          if (o.st == sim_thread::state::grid_barrier) o.st = sim_thread::state::runnable;
      if (trace_) trace_out() << "[sim] grid barrier, " << all << " threads\n";
      if (svg_) svg_->barrier("grid barrier, " + std::to_string(all) + " threads", true);
      return;
    }
    t.st = sim_thread::state::grid_barrier;
    t.waits_in = "grid.sync()";
    switch_to_scheduler();
  }

  /// A warp collective. The caller has filled self().io.in / .b; on return
  /// self().io.out / .result / .pred hold this lane's results.
  void warp_collective(op kind, unsigned mask, unsigned width, std::size_t bytes, bool is_signed, printer print) {
    sim_thread& t = self();
    block_state& b = *t.blk;
    // Built only when an error is reported: every lane passes here on every collective.
    auto where = [&] { return block_name(b) + ", warp " + std::to_string(t.warp); };
    if (!((mask >> t.lane) & 1))
      throw error("tilekit::sim: " + where() + ": lane " + std::to_string(t.lane) + " calls " + describe(kind, mask, width) +
                  ", whose mask does not include the calling lane");
    if (is_shuffle(kind) && (width == 0 || width > 32 || (width & (width - 1)) != 0))
      throw error("tilekit::sim: " + where() + ": " + describe(kind, mask, width) + " from lane " + std::to_string(t.lane) +
                  ": width must be a power of two from 1 to 32");

    warp_state& w = b.warps[t.warp];
    collective* c = nullptr;
    for (auto& p : w.pending) {
      if (!(p.mask & mask)) continue;
      if (p.mask != mask || p.kind != kind || p.width != width || p.bytes != bytes)
        throw error("tilekit::sim: " + where() + ": divergent collective: lanes " + lane_list(p.arrived) + " wait in " +
                    describe(p.kind, p.mask, p.width) + " while lane " + std::to_string(t.lane) + " calls " +
                    describe(kind, mask, width));
      c = &p;
    }
    if (!c) {
      // Checked when the collective opens; a lane that exits while it is open fails in finish().
      check_lanes_alive(b, t.warp, mask, kind, width, where);
      w.pending.push_back(collective{kind, mask, width, bytes, is_signed, print, 0});
      c = &w.pending.back();
    }
    c->arrived |= 1u << t.lane;
    if (c->arrived == mask) {
      const collective done = *c;
      w.pending.erase(w.pending.begin() + (c - w.pending.data()));
      complete(b, t.warp, done);
      return;
    }
    t.st = sim_thread::state::collective;
    t.waits_in = op_name(kind);
    switch_to_scheduler();
  }

  /// Block-wide barrier (__syncthreads).
  void barrier() {
    sim_thread& t = self();
    block_state& b = *t.blk;
    if (b.finished > 0)
      throw error("tilekit::sim: " + block_name(b) + ": thread " + std::to_string(t.rank) +
                  " reaches the block barrier, but threads " + finished_threads(b) +
                  " have exited without reaching it; a barrier must be reached by every thread of the block");
    if (++b.at_barrier == b.threads.size()) {
      b.at_barrier = 0;
      ++epoch_;
      for (auto& o : b.threads)
        if (o.st == sim_thread::state::barrier) o.st = sim_thread::state::runnable;
      if (trace_) trace_out() << "[sim] " << block_name(b) << ": barrier, " << b.threads.size() << " threads\n";
      if (svg_) svg_->barrier(block_name(b) + ": barrier, " + std::to_string(b.threads.size()) + " threads", false);
      return;
    }
    t.st = sim_thread::state::barrier;
    t.waits_in = "the block barrier";
    switch_to_scheduler();
  }

  /// Cluster-wide barrier (cluster.sync()): every thread of every block of the cluster.
  void cluster_barrier() {
    cluster_arrive("cluster.sync()");
    cluster_wait("cluster.sync()");
  }

  /// The first half of a cluster barrier (cluster.arrive_relaxed(), or cluster.sync()'s):
  /// counts the caller; the last thread of the cluster to arrive completes the barrier.
  void cluster_arrive(const char* what = "cluster.arrive_relaxed()") {
    sim_thread& t = self();
    cluster_state& c = *t.blk->cluster;
    if (t.cluster_arrived)
      throw error("tilekit::sim: " + block_name(*t.blk) + ": thread " + std::to_string(t.rank) + " reaches " + what +
                  " but has not waited for its previous cluster.arrive_relaxed(): call cluster.wait() between them");
    if (c.exited > 0)
      throw error("tilekit::sim: " + block_name(*t.blk) + ": thread " + std::to_string(t.rank) + " reaches " + what + ", but " +
                  exited_in(c) + " exited without reaching it; a cluster barrier must be reached by every thread of every "
                  "block of the cluster");
    t.cluster_arrived = true;
    t.arrived_in = c.syncs;
    if (++c.at_barrier == c.threads) {
      c.at_barrier = 0;
      ++c.syncs;
      std::fill(c.mapped.begin(), c.mapped.end(), 0u);  // remote accesses before the barrier are finished
      ++epoch_;
      for (block_state* b : c.blocks)
        for (auto& o : b->threads)
          if (o.st == sim_thread::state::cluster_barrier) o.st = sim_thread::state::runnable;
      if (trace_) trace_out() << "[sim] " << cluster_name(c) << ": cluster barrier, " << c.threads << " threads\n";
      if (svg_) svg_->barrier(cluster_name(c) + ": cluster barrier, " + std::to_string(c.threads) + " threads", false, true);
    }
  }

  /// The second half (cluster.wait(), or cluster.sync()'s): returns once the barrier the
  /// caller arrived at is complete.
  void cluster_wait(const char* what = "cluster.wait()") {
    sim_thread& t = self();
    cluster_state& c = *t.blk->cluster;
    if (!t.cluster_arrived)
      throw error("tilekit::sim: " + block_name(*t.blk) + ": thread " + std::to_string(t.rank) + " reaches " + what +
                  " without a cluster.arrive_relaxed() before it");
    t.cluster_arrived = false;
    while (c.syncs == t.arrived_in) {
      t.st = sim_thread::state::cluster_barrier;
      t.waits_in = what;
      switch_to_scheduler();
    }
  }

  /// map_shared_rank: the address in block `rank` of the calling thread's cluster of what p
  /// addresses in the calling block's shared memory. Checks the CUDA programming guide's
  /// rules for distributed shared memory.
  unsigned char* map_shared_rank(const void* p, unsigned rank) {
    sim_thread& t = self();
    block_state& own = *t.blk;
    cluster_state& c = *own.cluster;
    const auto* q = static_cast<const unsigned char*>(p);
    const std::string who = "tilekit::sim: " + block_name(own) + ", thread " + std::to_string(t.rank) + ": map_shared_rank(";
    if (rank >= c.blocks.size())
      throw error(who + "p, " + std::to_string(rank) + "): the cluster has " + std::to_string(c.blocks.size()) +
                  " blocks (ranks 0.." + std::to_string(c.blocks.size() - 1) + ")");
    if (own.shared.empty() || q < own.shared.data() || q >= own.shared.data() + own.shared.size())
      throw error(who + "p, " + std::to_string(rank) + "): p is not in the calling block's shared memory (" +
                  std::to_string(own.shared.size()) +
                  " bytes from ctx.shared); map the address of a variable in its own block's shared memory");
    block_state& target = *c.blocks[rank];
    if (t.cluster_arrived)
      throw error(who + "p, " + std::to_string(rank) + ") between cluster.arrive_relaxed() and cluster.wait(): the "
                  "barrier orders no such access; map after the wait");
    if (rank != own.cluster_rank) {
      if (target.finished == target.threads.size())
        throw error(who + "p, " + std::to_string(rank) + "): " + block_name(target) + " (rank " + std::to_string(rank) +
                    " of " + cluster_name(c) + ") has exited; its shared memory is gone");
      if (c.syncs == 0)
        throw error(who + "p, " + std::to_string(rank) + ") before the first cluster.sync() of " + cluster_name(c) +
                    ": block " + std::to_string(rank) + " may not have started: call cluster.sync() once before the first "
                    "remote access");
      c.mapped[rank] |= 1u << own.cluster_rank;
    }
    return target.shared.data() + (q - own.shared.data());
  }

  bool is_shared(const void* p) {
    const auto& s = self().blk->shared;
    const auto* c = static_cast<const unsigned char*>(p);
    return !s.empty() && c >= s.data() && c < s.data() + s.size();
  }

  /// The block's dynamic shared memory, checked against the launch's size.
  unsigned char* shared(std::size_t bytes_needed) {
    block_state& b = *self().blk;
    if (bytes_needed > b.shared.size())
      throw error("tilekit::sim: " + block_name(b) + ": shared storage of " + std::to_string(bytes_needed) +
                  " bytes used, but the launch gave " + std::to_string(b.shared.size()) + " bytes of shared memory");
    return b.shared.data();
  }

 private:
  // Makes the blocks of cluster number n (x fastest over the grid's clusters) resident, in
  // rank order: rank r is the block at x = r % cx, y = r / cx % cy, z = r / (cx * cy) in the cluster.
  void admit_cluster(std::uint64_t n) {
    auto c = std::make_shared<cluster_state>();
    const std::uint64_t cx = grid_.x / cluster_.x, cy = grid_.y / cluster_.y;
    c->index = dim3(static_cast<unsigned>(n % cx), static_cast<unsigned>(n / cx % cy), static_cast<unsigned>(n / (cx * cy)));
    const unsigned count = cluster_blocks();
    c->mapped.assign(count, 0u);
    for (unsigned r = 0; r < count; ++r) {
      const std::uint64_t x = std::uint64_t(c->index.x) * cluster_.x + r % cluster_.x;
      const std::uint64_t y = std::uint64_t(c->index.y) * cluster_.y + r / cluster_.x % cluster_.y;
      const std::uint64_t z = std::uint64_t(c->index.z) * cluster_.z + r / (cluster_.x * cluster_.y);
      auto b = make_block(x + grid_.x * (y + std::uint64_t(grid_.y) * z));
      b->cluster = c;
      b->cluster_rank = r;
      c->blocks.push_back(b.get());
      c->threads += b->threads.size();
      resident_.push_back(std::move(b));
    }
  }

  std::unique_ptr<block_state> make_block(std::uint64_t linear) {
    auto b = std::make_unique<block_state>();
    b->linear = linear;
    b->index = dim3(static_cast<unsigned>(linear % grid_.x), static_cast<unsigned>(linear / grid_.x % grid_.y),
                    static_cast<unsigned>(linear / (std::uint64_t(grid_.x) * grid_.y)));
    const unsigned n = block_threads();
    b->warps.resize((n + 31) / 32);
    // Shared memory starts with garbage on a GPU; a fixed pattern makes reads of
    // unwritten storage show up in results (and stay deterministic).
    b->shared.assign(opt_.shared_bytes, 0xA5);
    b->threads = std::vector<sim_thread>(n);
    for (unsigned r = 0; r < n; ++r) {
      sim_thread& t = b->threads[r];
      t.blk = b.get();
      t.rank = r;
      t.index = dim3(r % block_.x, r / block_.x % block_.y, r / (block_.x * block_.y));
      t.warp = r / 32;
      t.lane = r % 32;
      t.self = boost::context::fiber(std::allocator_arg, pooled_stack{&stack_pool::of_size(opt_.stack_bytes), &t.stack},
                                     [this, &t](boost::context::fiber&& scheduler) { return thread_main(t, std::move(scheduler)); });
    }
    return b;
  }

  // Scheduler side of a switch into thread t and back.
  void resume(sim_thread& t) {
    running_ = &t;
    void* fake = nullptr;
    asan_start_switch(&fake, static_cast<char*>(t.stack.sp) - t.stack.size, t.stack.size);
    t.self = std::move(t.self).resume();
    asan_finish_switch(fake, nullptr, nullptr);
    running_ = nullptr;
  }

  // After a failure: unwinds every thread still inside its body (abandon_launch
  // is thrown at its suspension point), so no fiber is left suspended.
  void abandon() {
    abandoning_ = true;
    for (auto& b : resident_)
      for (auto& t : b->threads)
        if (t.self) resume(t);
    resident_.clear();
  }

  boost::context::fiber thread_main(sim_thread& t, boost::context::fiber&& scheduler) {
    asan_finish_switch(nullptr, &scheduler_stack_bottom_, &scheduler_stack_size_);
    t.to_scheduler = std::move(scheduler);
    try {
      if (!abandoning_) {
        entry_.run(entry_.body);
        finish(t);
      }
    } catch (const abandon_launch&) {
    } catch (const boost::context::detail::forced_unwind&) {
      throw;  // the fiber is being destroyed: let Boost unwind it
    } catch (...) {
      if (!failure_) failure_ = std::current_exception();
    }
    t.st = sim_thread::state::done;
    asan_start_switch(nullptr, scheduler_stack_bottom_, scheduler_stack_size_);  // this fiber ends
    return std::move(t.to_scheduler);
  }

  void switch_to_scheduler() {
    sim_thread& t = self();
    asan_start_switch(&t.fake_stack, scheduler_stack_bottom_, scheduler_stack_size_);
    t.to_scheduler = std::move(t.to_scheduler).resume();
    asan_finish_switch(t.fake_stack, &scheduler_stack_bottom_, &scheduler_stack_size_);
    if (abandoning_) throw abandon_launch{};
  }

  void finish(sim_thread& t) {
    block_state& b = *t.blk;
    for (const auto& p : b.warps[t.warp].pending)
      if ((p.mask >> t.lane) & 1)
        throw error("tilekit::sim: " + block_name(b) + ", warp " + std::to_string(t.warp) + ": lane " +
                    std::to_string(t.lane) + " exited while lanes " + lane_list(p.arrived) + " wait for it in " +
                    describe(p.kind, p.mask, p.width));
    if (b.at_barrier > 0)
      throw error("tilekit::sim: " + block_name(b) + ": thread " + std::to_string(t.rank) +
                  " exited without reaching the block barrier where " + std::to_string(b.at_barrier) + " of " +
                  std::to_string(b.threads.size()) + " threads wait");
    if (grid_at_barrier_ > 0)
      throw error("tilekit::sim: " + block_name(b) + ": thread " + std::to_string(t.rank) +
                  " exited without reaching grid.sync(), where " + std::to_string(grid_at_barrier_) + " threads wait");
    cluster_state& c = *b.cluster;
    if (t.cluster_arrived)
      throw error("tilekit::sim: " + block_name(b) + ": thread " + std::to_string(t.rank) +
                  " exited after cluster.arrive_relaxed() without cluster.wait()");
    if (c.at_barrier > 0)
      throw error("tilekit::sim: " + block_name(b) + ": thread " + std::to_string(t.rank) +
                  " exited without reaching cluster.sync(), where " + std::to_string(c.at_barrier) + " of " +
                  std::to_string(c.threads) + " threads of " + cluster_name(c) + " have arrived");
    t.st = sim_thread::state::done;
    ++b.finished;
    ++c.exited;
    ++epoch_;
    if (b.finished == b.threads.size()) block_exits(b);
  }

  // The last thread of block b has exited. Its shared memory stays allocated until the
  // whole cluster has finished, but holds garbage from now on (a remote read after the
  // exit shows in results); a block of the cluster still running that mapped it since
  // the last cluster barrier may still access it: an error.
  void block_exits(block_state& b) {
    cluster_state& c = *b.cluster;
    const unsigned users = c.mapped[b.cluster_rank];
    for (unsigned q = 0; q < c.blocks.size(); ++q) {
      const block_state& o = *c.blocks[q];
      if (((users >> q) & 1) && o.finished < o.threads.size())
        throw error("tilekit::sim: " + block_name(b) + " (rank " + std::to_string(b.cluster_rank) + " of " + cluster_name(c) +
                    ") exits while " + block_name(o) + " (rank " + std::to_string(q) +
                    "), still running, has mapped its shared memory since the last cluster.sync(): finish remote "
                    "accesses with cluster.sync() before a block exits");
    }
    if (c.blocks.size() > 1) std::fill(b.shared.begin(), b.shared.end(), static_cast<unsigned char>(0xA5));
    ++c.finished_blocks;
  }

  // "threads 3,4 of block (1,0,0)" for each block of the cluster with exited threads.
  static std::string exited_in(const cluster_state& c) {
    std::string s;
    for (const block_state* b : c.blocks)
      if (b->finished > 0) s += (s.empty() ? "" : "; ") + std::string("in ") + block_name(*b) + " threads " + finished_threads(*b);
    return s + (s.empty() ? "" : " have");
  }

  template <class Where>
  void check_lanes_alive(const block_state& b, unsigned warp, unsigned mask, op kind, unsigned width,
                         const Where& where) const {
    for (unsigned l = 0; l < 32; ++l) {
      if (!((mask >> l) & 1)) continue;
      const unsigned r = warp * 32 + l;
      if (r >= b.threads.size())
        throw error("tilekit::sim: " + where() + ": " + describe(kind, mask, width) + " names lane " + std::to_string(l) +
                    ", which does not exist (the block has " + std::to_string(b.threads.size()) + " threads)");
      if (b.threads[r].st == sim_thread::state::done)
        throw error("tilekit::sim: " + where() + ": " + describe(kind, mask, width) + " names lane " + std::to_string(l) +
                    ", which has exited");
    }
  }

  static std::string finished_threads(const block_state& b) {
    std::ostringstream s;
    unsigned shown = 0;
    for (const auto& t : b.threads)
      if (t.st == sim_thread::state::done && shown++ < 16) s << (shown > 1 ? "," : "") << t.rank;
    if (shown > 16) s << ",...";
    return s.str();
  }

  std::string livelock_report() const {
    std::ostringstream s;
    s << "tilekit::sim: livelock: for " << spin_round_limit
      << " rounds every running thread only re-read memory that no store, atomic, collective or barrier changed "
         "(a spin-wait that cannot end).";
    const std::uint64_t clusters = grid_.count() / cluster_.count();
    if (next_cluster_ < clusters)
      s << (cluster_.count() == 1 ? " Blocks " : " Clusters ") << next_cluster_ << ".." << clusters - 1
        << " are not resident yet (options.resident_blocks = "
        << opt_.resident_blocks << "): a block may wait for an earlier block, not for a later one.";
    return s.str() + where_threads_are();
  }

  std::string deadlock_report() const {
    return "tilekit::sim: deadlock: no simulated thread can run." + where_threads_are();
  }

  // Per resident block: where each run of threads waits, and the warp collectives still open.
  std::string where_threads_are() const {
    std::ostringstream s;
    for (const auto& b : resident_) {
      s << "\n  " << block_name(*b) << ":";
      // Group consecutive threads that wait in the same place.
      for (std::size_t i = 0; i < b->threads.size();) {
        const auto& t = b->threads[i];
        std::size_t j = i;
        auto same = [&](const sim_thread& o) { return o.st == t.st && o.waits_in == t.waits_in && o.spinning == t.spinning; };
        while (j + 1 < b->threads.size() && same(b->threads[j + 1])) ++j;
        s << "\n    threads " << i << "-" << j << ": ";
        switch (t.st) {
          case sim_thread::state::done: s << "exited"; break;
          case sim_thread::state::barrier: s << "wait at the block barrier"; break;
          case sim_thread::state::grid_barrier: s << "wait in grid.sync()"; break;
          case sim_thread::state::cluster_barrier: s << "wait in " << (t.waits_in ? t.waits_in : "cluster.sync()") << " of " << cluster_name(*b->cluster); break;
          case sim_thread::state::collective: s << "wait in warp collective " << t.waits_in; break;
          case sim_thread::state::runnable: s << (t.spinning ? "spin on a load" : "runnable"); break;
        }
        i = j + 1;
      }
      for (std::size_t w = 0; w < b->warps.size(); ++w)
        for (const auto& p : b->warps[w].pending)
          s << "\n    warp " << w << ": " << describe(p.kind, p.mask, p.width) << " has lanes " << lane_list(p.arrived)
            << ", still waits for lanes " << lane_list(p.mask & ~p.arrived);
    }
    return s.str();
  }

  // Computes every lane's result of a collective whose lanes have all arrived.
  void complete(block_state& b, unsigned warp, const collective& c) {
    auto lane_thread = [&](unsigned l) -> sim_thread& { return b.threads[warp * 32 + l]; };
    auto where = [&] { return block_name(b) + ", warp " + std::to_string(warp); };
    if (is_shuffle(c.kind)) {
      // PTX shfl.sync: c = ((32 - width) << 8) | clamp, clamp = 0 for up, 31 otherwise.
      // The lane / delta / lane-mask operand counts modulo 32 (seen on the H200:
      // shfl_up by 33 acts as shfl_up by 1).
      const unsigned segmask = (32u - c.width) & 31u;
      const unsigned clamp = c.kind == op::shfl_up ? 0u : 31u;
      for (unsigned l = 0; l < 32; ++l) {
        if (!((c.mask >> l) & 1)) continue;
        lane_io& io = lane_thread(l).io;
        const std::int64_t max_lane = (l & segmask) | (clamp & ~segmask);
        const std::int64_t min_lane = l & segmask;
        std::int64_t j = 0;
        bool in_range = false;
        const unsigned b5 = io.b & 31u;
        switch (c.kind) {
          case op::shfl_up: j = std::int64_t(l) - b5; in_range = j >= max_lane; break;
          case op::shfl_down: j = std::int64_t(l) + b5; in_range = j <= max_lane; break;
          case op::shfl_bfly: j = std::int64_t(l ^ b5); in_range = j <= max_lane; break;
          default: j = min_lane | (b5 & ~segmask); in_range = j <= max_lane; break;
        }
        if (!in_range) j = l;
        const unsigned src = static_cast<unsigned>(j);
        if (!((c.mask >> src) & 1))
          throw error("tilekit::sim: " + where() + ": lane " + std::to_string(l) + " reads lane " + std::to_string(src) +
                      " in " + describe(c.kind, c.mask, c.width) +
                      ", but that lane is not in the mask (inactive): the value would be undefined");
        io.src = src;
        io.out = lane_thread(src).io.in;
      }
    } else if (c.kind == op::ballot || c.kind == op::any || c.kind == op::all) {
      unsigned votes = 0;
      for (unsigned l = 0; l < 32; ++l)
        if (((c.mask >> l) & 1) && lane_thread(l).io.b) votes |= 1u << l;
      const unsigned r = c.kind == op::ballot ? votes : c.kind == op::any ? unsigned(votes != 0) : unsigned(votes == c.mask);
      for (unsigned l = 0; l < 32; ++l)
        if ((c.mask >> l) & 1) lane_thread(l).io.result = r;
    } else if (c.kind == op::match_any || c.kind == op::match_all) {
      bool all_equal = true;
      const unsigned first = c.mask ? static_cast<unsigned>(__builtin_ctz(c.mask)) : 0;
      for (unsigned l = 0; l < 32; ++l) {
        if (!((c.mask >> l) & 1)) continue;
        unsigned same = 0;
        for (unsigned k = 0; k < 32; ++k)
          if (((c.mask >> k) & 1) && lane_thread(k).io.in == lane_thread(l).io.in) same |= 1u << k;
        lane_thread(l).io.result = same;
        if (lane_thread(l).io.in != lane_thread(first).io.in) all_equal = false;
      }
      if (c.kind == op::match_all)
        for (unsigned l = 0; l < 32; ++l)
          if ((c.mask >> l) & 1) {
            lane_thread(l).io.result = all_equal ? c.mask : 0u;
            lane_thread(l).io.pred = all_equal;
          }
    } else if (is_redux(c.kind)) {
      std::uint32_t acc = 0;
      bool started = false;
      for (unsigned l = 0; l < 32; ++l) {
        if (!((c.mask >> l) & 1)) continue;
        std::uint32_t v;
        std::memcpy(&v, lane_thread(l).io.in.data(), 4);
        if (!started) { acc = v; started = true; continue; }
        const auto sv = static_cast<std::int32_t>(v), sa = static_cast<std::int32_t>(acc);
        switch (c.kind) {
          case op::redux_add: acc += v; break;
          case op::redux_min: acc = c.is_signed ? (sv < sa ? v : acc) : std::min(acc, v); break;
          case op::redux_max: acc = c.is_signed ? (sv > sa ? v : acc) : std::max(acc, v); break;
          case op::redux_and: acc &= v; break;
          case op::redux_or: acc |= v; break;
          default: acc ^= v; break;
        }
      }
      for (unsigned l = 0; l < 32; ++l)
        if ((c.mask >> l) & 1) {
          auto& out = lane_thread(l).io.out;
          out.resize(4);
          std::memcpy(out.data(), &acc, 4);
        }
    } else if (c.kind == op::bit_mma) {
      // PTX's fragments of m16n8k256 .b1 (as detail::bit_mma_by_shuffles reads them): lane
      // 4 g + t holds A's rows g (words 0, 2) and g + 8 (1, 3) over columns 32 t .. and
      // 128 + 32 t .. (words 0, 1 and 2, 3), B's column g over rows 32 t .. (word 4) and
      // 128 + 32 t .. (word 5); its out holds the products of D's rows g, g + 8 by columns 2 t, 2 t + 1.
      std::uint32_t f[32][6];
      for (unsigned l = 0; l < 32; ++l) std::memcpy(f[l], lane_thread(l).io.in.data(), sizeof f[l]);
      for (unsigned l = 0; l < 32; ++l) {
        const unsigned g = l / 4, t = l % 4;
        std::int32_t d[4];
        for (unsigned k = 0; k < 4; ++k) {
          const unsigned row_word = k / 2, col = 2 * t + k % 2;
          int sum = 0;
          for (unsigned from = 0; from < 4; ++from)
            for (unsigned h = 0; h < 2; ++h)
              sum += __builtin_popcount(f[4 * g + from][row_word + 2 * h] & f[4 * col + from][4 + h]);
          d[k] = sum;
        }
        auto& out = lane_thread(l).io.out;
        out.resize(sizeof d);
        std::memcpy(out.data(), d, sizeof d);
      }
    }
    for (unsigned l = 0; l < 32; ++l)
      if ((c.mask >> l) & 1) {
        sim_thread& t = lane_thread(l);
        if (t.st == sim_thread::state::collective) t.st = sim_thread::state::runnable;
        t.waits_in = nullptr;
      }
    ++epoch_;
    if (trace_ || svg_) trace_collective(b, warp, c);
  }

  // One table per collective step: what each lane put in and got out (text), and one row of the SVG.
  void trace_collective(block_state& b, unsigned warp, const collective& c) {
    if (!trace_ && svg_->full()) return svg_->omit(b.linear, warp);  // only counted: skip the strings
    auto lane_thread = [&](unsigned l) -> sim_thread& { return b.threads[warp * 32 + l]; };
    trace_step step;
    step.where = block_name(b) + ", warp " + std::to_string(warp);
    step.block = b.linear;
    step.warp = warp;
    step.kind = op_name(c.kind);
    step.mask = c.mask;
    step.width = c.width;
    step.shuffle = is_shuffle(c.kind);
    if (step.shuffle) {
      const unsigned lead = static_cast<unsigned>(__builtin_ctz(c.mask));
      step.operand = std::string(c.kind == op::shfl_idx ? "src lane " : c.kind == op::shfl_bfly ? "lane mask " : "delta ") +
                     std::to_string(lane_thread(lead).io.b);
    }
    for (unsigned l = 0; l < 32; ++l) {
      if (!((c.mask >> l) & 1)) continue;
      const lane_io& io = lane_thread(l).io;
      std::ostringstream in, out;
      if (c.kind == op::syncwarp) {
      } else if (c.print) {
        c.print(in, io.in.data());
      } else {
        in << (io.b ? 1 : 0);
      }
      if (is_shuffle(c.kind) || is_redux(c.kind)) c.print(out, io.out.data());
      else if (c.kind == op::bit_mma) {
        std::int32_t p[4];
        std::memcpy(p, io.out.data(), sizeof p);
        out << "+" << p[0] << " +" << p[1] << " +" << p[2] << " +" << p[3];
      } else if (c.kind == op::any || c.kind == op::all) out << io.result;
      else if (c.kind != op::syncwarp) out << hex(io.result);
      step.lanes.push_back(l);
      step.in.push_back(in.str());
      step.from.push_back(io.src);
      step.out.push_back(out.str());
    }
    if (trace_) print_step(step, describe(c.kind, c.mask, c.width));
    if (svg_) svg_->step(std::move(step));
  }

  // The text trace of one step: a header line, then rows lane, in, (for shuffles) the lane read from, out.
  void print_step(const trace_step& step, const std::string& description) {
    auto& os = trace_out();
    os << "[sim] " << step.where << ": " << description;
    if (step.shuffle) os << ", " << step.operand;
    os << "\n";
    std::vector<std::string> rows[4];
    const char* names[4] = {"lane", "in", "from", "out"};
    for (std::size_t i = 0; i < step.lanes.size(); ++i) {
      rows[0].push_back(std::to_string(step.lanes[i]));
      rows[1].push_back(step.in[i]);
      rows[2].push_back(std::to_string(step.from[i]));
      rows[3].push_back(step.out[i]);
    }
    std::size_t width = 1;
    for (auto& r : rows)
      for (auto& s : r) width = std::max(width, s.size());
    const std::size_t n = step.lanes.size();
    for (std::size_t start = 0; start < n; start += 16) {
      for (int r = 0; r < 4; ++r) {
        if (r == 2 && !step.shuffle) continue;
        os << "  " << std::setw(5) << std::left << names[r] << std::right;
        for (std::size_t i = start; i < std::min(n, start + 16); ++i) os << " " << std::setw(int(width)) << rows[r][i];
        os << "\n";
      }
    }
  }

  dim3 grid_, block_, cluster_;
  options opt_;
  entry_fn entry_;
  bool trace_ = false;
  std::ostream* trace_out_ = nullptr;
  std::unique_ptr<svg_trace> svg_;  // set when the launch draws an SVG trace
  sim_thread* running_ = nullptr;
  std::vector<std::unique_ptr<block_state>> resident_;
  std::uint64_t next_cluster_ = 0;  // clusters admitted so far (blocks, outside launch_cluster)
  std::uint64_t epoch_ = 0;  // counts events that can end a wait
  std::uint64_t grid_at_barrier_ = 0;
  std::exception_ptr failure_;
  bool abandoning_ = false;
  const void* scheduler_stack_bottom_ = nullptr;
  std::size_t scheduler_stack_size_ = 0;
};

}  // namespace detail
}  // namespace tilekit::sim
