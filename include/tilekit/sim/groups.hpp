// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/sim/groups.hpp - the simulator's backend, the group types over it
// (core/group.hpp's classes, the same as the GPU's), and launch: algorithm code
// runs unchanged on the CPU.
#pragma once
#include <tilekit/core/group.hpp>
#include <tilekit/sim/intrinsics.hpp>

#include <cstdint>
#include <string>

namespace tilekit::sim {

/// The simulator's backend: raw intrinsics on simulated lanes (intrinsics.hpp) and
/// memory operations of simulated threads. One OS thread runs every simulated
/// thread, so each memory operation is atomic and sequentially consistent. Each lets the other
/// threads run: after a write (atomics, store_release), after a read
/// (load_acquire), so a spin-wait on a flag makes progress; a spin-wait that
/// can never end is reported as a livelock.
struct backend {
  /// atomicAdd: adds value to *address; returns the old value.
  template <class T>
  static T atomic_add(T* address, T value) {
    check_aligned(address, alignof(T), "atomic_add");
    const T old = *address;
    *address = static_cast<T>(old + value);
    written();
    return old;
  }
  /// atomicCAS: stores value if *address == compare; returns the old value.
  template <class T>
  static T atomic_cas(T* address, T compare, T value) {
    check_aligned(address, alignof(T), "atomic_cas");
    const T old = *address;
    if (old == compare) *address = value;
    written();
    return old;
  }
  /// atomicExch: stores value; returns the old value.
  template <class T>
  static T atomic_exch(T* address, T value) {
    check_aligned(address, alignof(T), "atomic_exch");
    const T old = *address;
    *address = value;
    written();
    return old;
  }
  /// atomicMin: stores value if it is less than *address; returns the old value.
  template <class T>
  static T atomic_min(T* address, T value) {
    check_aligned(address, alignof(T), "atomic_min");
    const T old = *address;
    if (value < old) *address = value;
    written();
    return old;
  }
  /// atomicMax: stores value if *address is less than it; returns the old value.
  template <class T>
  static T atomic_max(T* address, T value) {
    check_aligned(address, alignof(T), "atomic_max");
    const T old = *address;
    if (old < value) *address = value;
    written();
    return old;
  }
  /// atomicOr: sets the bits of value in *address; returns the old value.
  template <class T>
  static T atomic_or(T* address, T value) {
    check_aligned(address, alignof(T), "atomic_or");
    const T old = *address;
    *address = static_cast<T>(old | value);
    written();
    return old;
  }
  /// A device-scope acquire load: what a spin-wait polls. It reads, then lets the others
  /// run: a reader that does not wait for a writer reads before the writer has run.
  template <class T>
  static T load_acquire(const T* address) {
    check_aligned(address, alignof(T), "load_acquire");
    const T value = *address;
    detail::runtime::get().spin_point();
    return value;
  }
  /// A device-scope relaxed load (polled like load_acquire).
  template <class T>
  static T load_relaxed(const T* address) {
    check_aligned(address, alignof(T), "load_relaxed");
    const T value = *address;
    detail::runtime::get().spin_point();
    return value;
  }
  /// The GPU's acquire add: atomic_add here (every operation is sequentially consistent).
  template <class T>
  static T atomic_add_acquire(T* address, T value) { return atomic_add(address, value); }
  /// The GPU's release exchange: atomic_exch here.
  template <class T>
  static T atomic_exch_release(T* address, T value) { return atomic_exch(address, value); }
  /// A device-scope relaxed store.
  template <class T>
  static void store_relaxed(T* address, T value) {
    check_aligned(address, alignof(T), "store_relaxed");
    *address = value;
    written();
  }
  /// The GPU's atomic_or with its line kept in L2: atomic_or here.
  static void atomic_or_kept_in_l2(unsigned* address, unsigned value) { atomic_or(address, value); }
  /// The GPU's L2 priority reset: nothing to do here.
  static void keep_in_l2_no_more(const void*) {}
  /// The GPU's L2 prefetch hint: nothing to do here.
  static void prefetch_l2(const void*) {}
  /// The GPU's bulk L2 prefetch: nothing to fetch, its preconditions checked.
  static void prefetch_l2_bytes(const void* address, unsigned bytes) {
    check_aligned(address, 16, "prefetch_l2_bytes");
    if (bytes % 16 != 0) throw error("tilekit::sim: prefetch_l2_bytes of " + std::to_string(bytes) + " bytes, not a multiple of 16");
  }
  /// Two 64-bit words stored / loaded as one access (a fiber switches only between them).
  static void store_relaxed_pair(unsigned long long* address, unsigned long long first, unsigned long long second) {
    check_aligned(address, 16, "store_relaxed_pair");
    address[0] = first;
    address[1] = second;
    written();
  }
  /// Reads address[0] into first and address[1] into second as one access (polled like load_acquire).
  static void load_relaxed_pair(const unsigned long long* address, unsigned long long& first, unsigned long long& second) {
    check_aligned(address, 16, "load_relaxed_pair");
    first = address[0];
    second = address[1];
    detail::runtime::get().spin_point();
  }
  /// A device-scope release store.
  template <class T>
  static void store_release(T* address, T value) {
    check_aligned(address, alignof(T), "store_release");
    *address = value;
    written();
  }
  /// A poller's back-off: the other simulated threads run meanwhile.
  static void pause(unsigned) { detail::runtime::get().yield(); }
  /// A device-scope fence (__threadfence).
  static void fence() { detail::runtime::get().yield(); }
  /// The GPU's wait for the kernel before (dependent launch): launches here run one after another.
  static void wait_for_prior_grid() {}
  /// The GPU's early start of the next kernel (dependent launch): nothing to do here.
  static void allow_next_grid() {}
  /// Whether p points into the calling block's shared memory.
  static bool is_shared(const void* p) { return detail::runtime::get().is_shared(p); }

 private:
  // A global memory access of `bytes` bytes at an address not aligned to them faults on the GPU.
  static void check_aligned(const void* address, std::size_t bytes, const char* what) {
    if (reinterpret_cast<std::uintptr_t>(address) % bytes != 0)
      throw error(std::string("tilekit::sim: ") + what + " at an address that is not " + std::to_string(bytes) +
                  "-byte aligned (the GPU faults)");
  }
  static void written() {
    detail::runtime& rt = detail::runtime::get();
    rt.note_write();
    rt.yield();
  }
  static detail::runtime& rt() { return detail::runtime::get(); }

 public:
  // ---- placement
  /// This thread's lane in its warp, 0 to 31 (%laneid).
  static unsigned lane_id() { return sim::lane_id(); }
  /// This thread's linear rank in its block (x fastest, then y, then z).
  static unsigned block_thread_rank() { return rt().self().rank; }
  /// Threads per block of the launch.
  static unsigned block_threads() { return rt().block_threads(); }
  /// The index of the calling thread's block in the grid (`blockIdx`).
  static sim::dim3 block_index() { return rt().self().blk->index; }
  /// This thread's index in its block (`threadIdx`).
  static sim::dim3 thread_index() { return rt().self().index; }
  /// The launch's block extents (`blockDim`).
  static sim::dim3 block_dim() { return rt().block_dim(); }
  /// Block barrier (`__syncthreads`); a thread of the block that exits without reaching it is an error.
  static void block_sync() { rt().barrier(); }
  /// A precondition an algorithm checks: throws tilekit::sim::error(what) when ok is false.
  static void require(bool ok, const char* what) {
    if (!ok) throw error(what);
  }
  /// Throws tilekit::sim::error if threads is not 0 and the launch's blocks do not have that many threads.
  static void check_block_size(unsigned threads) {
    const unsigned n = rt().block_threads();
    if (threads != 0 && n != threads)
      throw error("tilekit::sim: block<" + std::to_string(threads) + "> used in a launch of " + std::to_string(n) +
                  " threads per block");
  }
  /// Blocks in the grid.
  static unsigned long long num_blocks() { return rt().grid_dim().count(); }
  /// The linear rank of the calling thread's block in the grid (x fastest, then y, then z).
  static unsigned long long block_rank() { return rt().self().blk->linear; }
  /// The grid's extents in blocks (`gridDim`).
  static sim::dim3 grid_dim() { return rt().grid_dim(); }
  /// Grid-wide barrier (grid.sync()); an error unless options.resident_blocks >= blocks, or if a
  /// thread exits without reaching it.
  static void grid_sync() { rt().grid_barrier(); }

  // ---- cluster (launch_cluster; any other launch: clusters of one block)
  /// The calling block's rank in its cluster (x fastest over its position in the cluster, then y, then z).
  static unsigned cluster_block_rank() { return rt().self().blk->cluster_rank; }
  /// Blocks per cluster of the launch (1 outside launch_cluster).
  static unsigned cluster_blocks() { return rt().cluster_blocks(); }
  /// Cluster barrier (cluster.sync()); an error if a thread of the cluster exits without reaching it.
  static void cluster_sync() { rt().cluster_barrier(); }
  /// As cluster_sync (the simulator's memory is ordered anyway).
  static void cluster_sync_relaxed() { rt().cluster_barrier(); }
  /// The first half of a split cluster barrier (cluster.arrive_relaxed()); checks the pairing.
  static void cluster_arrive_relaxed() { rt().cluster_arrive(); }
  /// Its second half (cluster.wait()): waits until every thread of the cluster has arrived.
  static void cluster_wait() { rt().cluster_wait(); }
  /// The address of p's variable in block `rank` of the cluster; misuse (a rank past the
  /// cluster, p outside the caller's shared memory, a block that exited, a remote block
  /// before the first cluster.sync()) throws tilekit::sim::error.
  template <class T>
  static T* map_shared_rank(T* p, unsigned rank) {
    return reinterpret_cast<T*>(rt().map_shared_rank(static_cast<const void*>(p), rank));
  }
  /// Throws tilekit::sim::error if the launch's clusters do not have `blocks` blocks.
  static void check_cluster_size(unsigned blocks) {
    const unsigned n = rt().cluster_blocks();
    if (n != blocks)
      throw error("tilekit::sim: cluster<" + std::to_string(blocks) + "> used in a launch whose clusters have " +
                  std::to_string(n) + " block" + (n == 1 ? "" : "s") +
                  "; launch with tilekit::sim::launch_cluster(grid, block, cluster, body, ...) and a cluster of " +
                  std::to_string(blocks) + " blocks");
  }

  // ---- warp: a T's 32-bit words, as the GPU's tile shuffles them; one simulated
  // collective moves them all (the trace shows them as the T they hold).
  /// PTX shfl.sync of Kind on each of the W words in place, among the lanes of mask, with
  /// operand arg (lane, delta or lane mask) and segment width; T, the type they hold, is for the trace.
  template <shfl_kind Kind, class T, unsigned W>
  static void shfl(unsigned mask, unsigned (&words)[W], unsigned arg, int width) {
    constexpr detail::op kind = Kind == shfl_kind::idx    ? detail::op::shfl_idx
                                : Kind == shfl_kind::up   ? detail::op::shfl_up
                                : Kind == shfl_kind::down ? detail::op::shfl_down
                                                          : detail::op::shfl_bfly;
    detail::shuffle_words(kind, mask, words, W, arg, width, &detail::print_value<T>);
  }
  /// `__ballot_sync`: the lanes of mask whose p is true (bits are warp lanes).
  static unsigned ballot(unsigned mask, bool p) { return ballot_sync(mask, p); }
  /// `__any_sync`: whether p is true on any lane of mask.
  static bool any(unsigned mask, bool p) { return any_sync(mask, p) != 0; }
  /// `__all_sync`: whether p is true on every lane of mask.
  static bool all(unsigned mask, bool p) { return all_sync(mask, p) != 0; }
  /// `__match_any_sync`: the lanes of mask whose word equals this lane's (W of 4 or 8 bytes).
  template <class W>
  static unsigned match_any(unsigned mask, W word) { return match_any_sync(mask, word); }
  /// `__match_all_sync`: mask and pred = true if every lane of mask has the same word, else 0 and pred = false.
  template <class W>
  static unsigned match_all(unsigned mask, W word, bool& pred) {
    int p = 0;
    const unsigned m = match_all_sync(mask, word, &p);
    pred = p != 0;
    return m;
  }
  /// `__syncwarp`: waits until every lane of mask arrives.
  static void syncwarp(unsigned mask) { sim::syncwarp(mask); }
  /// True: redux() is always available in the simulator (on the GPU it needs sm_80).
  static constexpr bool has_redux = true;
  /// redux.sync: Op over v of every lane of m, the result in each; T a 32-bit integer.
  /// @pre Op is not builtin_op::none.
  template <builtin_op Op, class T>
  static T redux(unsigned m, T v) {
    if constexpr (Op == builtin_op::sum) return reduce_add_sync(m, v);
    else if constexpr (Op == builtin_op::min) return reduce_min_sync(m, v);
    else if constexpr (Op == builtin_op::max) return reduce_max_sync(m, v);
    else if constexpr (Op == builtin_op::bit_and) return static_cast<T>(reduce_and_sync(m, static_cast<unsigned>(v)));
    else if constexpr (Op == builtin_op::bit_or) return static_cast<T>(reduce_or_sync(m, static_cast<unsigned>(v)));
    else return static_cast<T>(reduce_xor_sync(m, static_cast<unsigned>(v)));
  }
  /// True: the simulator takes the paths built on bit_mma, as the GPU does from sm_80.
  static constexpr bool has_bit_mma = true;
  /// mma .b1 m16n8k256 .and.popc: d += A x B over the warp's fragments, one simulated collective
  /// (sim::bit_mma_sync; the GPU below sm_80 takes detail::bit_mma_by_shuffles).
  static void bit_mma(const unsigned (&a)[4], const unsigned (&b)[2], int (&d)[4]) { bit_mma_sync(a, b, d); }
};

/// tile<N>, block<Threads>, grid_group: core/group.hpp's groups over the simulator.
template <unsigned N>
using tile = basic_tile<N, backend>;
/// A thread block in the simulator; Threads = 0: size known at run time only.
template <unsigned Threads = 0>
using block = basic_block<Threads, backend>;
/// A thread-block cluster of Blocks blocks in the simulator (launch_cluster); Threads = 0:
/// block size known at run time only.
template <unsigned Blocks, unsigned Threads = 0>
using cluster = basic_cluster<Blocks, Threads, backend>;
/// The grid of a cooperative launch (launch_cooperative): sync() and every grid algorithm.
using grid_group = basic_grid<backend, grid_launch::cooperative>;
/// The grid of an ordinary launch (launch): no sync(); the chained grid algorithms only.
using ordinary_grid = basic_grid<backend, grid_launch::ordinary>;

/// What a kernel body sees of its launch in the simulator: Launch is how it was
/// launched (launch: ordinary, launch_cooperative: cooperative), which grid() reports.
template <grid_launch Launch>
class basic_context {
 public:
  /// The calling thread's block, its size known at run time only.
  sim::block<> block() const { return sim::block<>(); }
  /// The calling thread's block as block<Threads>; throws tilekit::sim::error if the launch's blocks
  /// do not have Threads threads.
  template <unsigned Threads>
  sim::block<Threads> block() const { return sim::block<Threads>(); }
  /// The grid, as launched: under launch_cooperative every grid algorithm and sync();
  /// under launch the chained ones only (the others do not compile).
  basic_grid<backend, Launch> grid() const { return basic_grid<backend, Launch>(); }
  /// The calling thread's cluster as cluster<Blocks, Threads>; throws tilekit::sim::error if the
  /// launch's clusters do not have Blocks blocks (launch_cluster) or its blocks Threads threads.
  template <unsigned Blocks, unsigned Threads>
  sim::cluster<Blocks, Threads> cluster() const { return sim::cluster<Blocks, Threads>(); }

  /// The block's dynamic shared memory as a T; an error if the launch gave fewer than sizeof(T) bytes.
  template <class T>
  T& shared() const {
    return *reinterpret_cast<T*>(detail::runtime::get().shared(sizeof(T)));
  }
  /// The block's dynamic shared memory as count T; an error if the launch gave fewer bytes.
  template <class T>
  T* shared_array(std::size_t count) const {
    return reinterpret_cast<T*>(detail::runtime::get().shared(count * sizeof(T)));
  }
};

/// The context of an ordinary launch (tilekit::sim::launch).
using context = basic_context<grid_launch::ordinary>;

namespace detail {
// One simulated thread's run of the body (Body may be const: run_launch erased the type only).
template <grid_launch Launch, class Body>
void run_body(void* body) {
  basic_context<Launch> ctx;
  (*static_cast<Body*>(body))(ctx);
}

// Runs body(ctx) with the context of a Launch launch once per simulated thread.
template <grid_launch Launch, class Body>
void run_launch(dim3 grid, dim3 block, Body& body, const options& opt, dim3 cluster = dim3()) {
  runtime rt(grid, block, opt, {&run_body<Launch, Body>, const_cast<void*>(static_cast<const void*>(&body))}, cluster);
  rt.run();
}
}  // namespace detail

/// Runs body(ctx) once per simulated thread of grid x block; returns when every
/// thread has finished. Misuse raises tilekit::sim::error. An ordinary launch:
/// options.resident_blocks blocks at a time, no grid barrier (ctx.grid() has no sync()).
template <class Body>
void launch(dim3 grid, dim3 block, Body&& body, const options& opt) {
  detail::run_launch<grid_launch::ordinary>(grid, block, body, opt);
}

/// launch with default options, but shared_bytes of dynamic shared memory per block.
template <class Body>
void launch(dim3 grid, dim3 block, Body&& body, std::size_t shared_bytes = 0) {
  options opt;
  opt.shared_bytes = shared_bytes;
  launch(grid, block, std::forward<Body>(body), opt);
}

/// As launch, as a cooperative launch (tilekit::launch_cooperative on the GPU): every
/// block of the grid resident at once (options.resident_blocks is raised to the grid's
/// block count), and ctx.grid() has sync() and every grid algorithm.
template <class Body>
void launch_cooperative(dim3 grid, dim3 block, Body&& body, const options& opt) {
  options o = opt;
  if (o.resident_blocks < grid.count()) o.resident_blocks = grid.count() > 0xffffffffu ? 0xffffffffu : unsigned(grid.count());
  detail::run_launch<grid_launch::cooperative>(grid, block, body, o);
}

/// launch_cooperative with default options, but shared_bytes of dynamic shared memory per block.
template <class Body>
void launch_cooperative(dim3 grid, dim3 block, Body&& body, std::size_t shared_bytes = 0) {
  options opt;
  opt.shared_bytes = shared_bytes;
  launch_cooperative(grid, block, std::forward<Body>(body), opt);
}

/// As launch, in thread-block clusters of `cluster` blocks (tilekit::launch_cluster on the
/// GPU): the blocks of a cluster are resident together (one whole cluster even if it has
/// more blocks than options.resident_blocks), their shared memory stays addressable until the
/// whole cluster has finished, and ctx.cluster<Blocks, Threads>() has map_shared_rank and
/// sync(). Throws tilekit::sim::error if a cluster extent is 0 or does not divide the grid's, or
/// the cluster has more than 16 blocks (on the GPU more than 8 need the non-portable size,
/// which tilekit::launch_cluster asks for).
template <class Body>
void launch_cluster(dim3 grid, dim3 block, dim3 cluster, Body&& body, const options& opt) {
  detail::run_launch<grid_launch::ordinary>(grid, block, body, opt, cluster);
}

/// launch_cluster with default options, but shared_bytes of dynamic shared memory per block.
template <class Body>
void launch_cluster(dim3 grid, dim3 block, dim3 cluster, Body&& body, std::size_t shared_bytes = 0) {
  options opt;
  opt.shared_bytes = shared_bytes;
  launch_cluster(grid, block, cluster, std::forward<Body>(body), opt);
}

/// The simulator's counterpart of tilekit::gpu_launcher: the device-wide
/// algorithms' dispatch code runs its kernels here, on host memory.
struct launcher {
  /// What the dispatch code returns: success or invalid_value (`cudaError_t` on the GPU).
  using error_type = int;
  /// No error (cudaSuccess on the GPU).
  static constexpr int success = 0;
  /// Returned for an argument the dispatch code rejects (cudaErrorInvalidValue on the GPU).
  static constexpr int invalid_value = 1;  // what cudaErrorInvalidValue is on the GPU
  /// The pretended multiprocessor count, which sm_count() reports.
  unsigned sms = 4;                        // the pretended device's multiprocessor count
  /// Options for every run(); run's shared_bytes argument overrides opt.shared_bytes.
  options opt{};

  /// The pretended shared memory per block, which max_shared_bytes() reports.
  std::size_t max_shared = 48 * 1024;      // the pretended device's shared memory per block

  /// opt, with shared_bytes of dynamic shared memory a block (run's argument overrides opt's).
  options with_shared(std::size_t shared_bytes) const {
    options o = opt;
    o.shared_bytes = shared_bytes;
    return o;
  }
  /// The multiprocessor count the dispatch code sizes grids by: sms.
  unsigned sm_count() const { return sms; }
  /// The most dynamic shared memory the dispatch code may give a block: max_shared (run() does not check it).
  std::size_t max_shared_bytes() const { return max_shared; }
  /// Runs body on grid blocks of block threads with shared_bytes of dynamic shared memory, to
  /// completion; returns success (misuse throws tilekit::sim::error).
  template <class Body>
  int run(unsigned grid, unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    launch(dim3(grid), dim3(block), body, with_shared(shared_bytes));
    return success;
  }
  /// As run, every block resident at once (launch_cooperative): ctx.grid() has sync().
  template <class Body>
  int run_cooperative(unsigned grid, unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    launch_cooperative(dim3(grid), dim3(block), body, with_shared(shared_bytes));
    return success;
  }
  /// True: the simulator runs thread-block clusters (run_cluster), as sm_90 does.
  bool has_clusters() const { return true; }
  /// Runs body on grid blocks of block threads in clusters of cluster blocks
  /// (tilekit::sim::launch_cluster), to completion; returns success.
  template <class Body>
  int run_cluster(unsigned grid, unsigned cluster, unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    launch_cluster(dim3(grid), dim3(block), dim3(cluster), body, with_shared(shared_bytes));
    return success;
  }
  /// How many clusters of `cluster` blocks run at once: sms / cluster (a block per pretended multiprocessor).
  template <class Body>
  unsigned max_clusters(const Body&, unsigned cluster, unsigned /*block*/, std::size_t /*shared_bytes*/) const {
    return cluster == 0 ? 0u : sms / cluster;
  }
  /// zero, then run_cluster (see zero_then_run); invalid_value, running nothing, where cluster does not divide grid.
  template <class Body>
  int zero_then_run_cluster(void* p, std::size_t bytes, unsigned grid, unsigned cluster, unsigned block, const Body& body,
                            std::size_t shared_bytes = 0) const {
    if (cluster == 0 || cluster > 8 || grid % cluster != 0) return invalid_value;
    if (bytes > 0) zero(p, bytes);
    return run_cluster(grid, cluster, block, body, shared_bytes);
  }
  /// zero, then run (the GPU's overlap of the two, a dependent launch, has no counterpart here).
  template <class Body>
  int zero_then_run(void* p, std::size_t bytes, bool /*overlap*/, unsigned grid, unsigned block, const Body& body,
                    std::size_t shared_bytes = 0) const {
    if (bytes > 0) zero(p, bytes);
    return run(grid, block, body, shared_bytes);
  }
  /// zero each of the Ranges ranges (bytes[r] bytes at ps[r]), then run.
  template <std::size_t Ranges, class Body>
  int zero_then_run(void* const (&ps)[Ranges], const std::size_t (&bytes)[Ranges], bool /*overlap*/, unsigned grid,
                    unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    for (std::size_t r = 0; r < Ranges; ++r)
      if (bytes[r] > 0) zero(ps[r], bytes[r]);
    return run(grid, block, body, shared_bytes);
  }
  /// Sets bytes bytes at p to 0 (host memory); returns success.
  int zero(void* p, std::size_t bytes) const {
    std::memset(p, 0, bytes);
    return success;
  }
  /// The GPU launcher tells a memory checker that storage read before it is written is
  /// initialised; nothing to do here.
  void assume_initialized(void*, std::size_t) const {}
};

}  // namespace tilekit::sim
