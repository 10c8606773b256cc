// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/core/group.hpp - the groups every algorithm takes, written once for both
// backends, and the contract a backend fulfils.
//
//   basic_tile<N, Backend>        N lanes of one warp (N = 1, 2, 4, 8, 16, 32)
//   basic_block<Threads, Backend> a thread block (Threads = 0: size known at run time only)
//   basic_cluster<Blocks, Threads, Backend>  a thread-block cluster of Blocks blocks (sm_90):
//                                 distributed shared memory and cluster.sync()
//   basic_grid<Backend, Launch>   the whole grid, of a cooperative or an ordinary launch
// tilekit::tile<N>, tilekit::block<Threads>, tilekit::cluster<Blocks, Threads>,
// tilekit::grid_group (gpu/groups.cuh) and
// tilekit::sim::tile<N> ... (sim/groups.hpp) are these classes over the GPU backend
// and the simulator's. Lane masks returned by ballot / match_* are relative to the
// tile: bit i is lane i of the tile. A tile shuffles any trivially copyable T as
// 32-bit words, each with the same pattern, on both backends.
//
// A backend is a struct of static functions (checked by backend_contract below):
//   placement  lane_id() (%laneid), block_thread_rank(), block_threads(), block_index(),
//              thread_index(), block_dim(), block_sync(), check_block_size(Threads),
//              require(ok, what) (a precondition an algorithm checks: the simulator
//              throws what, the GPU traps),
//              num_blocks(), block_rank(), grid_dim(), grid_sync()
//   cluster    cluster_block_rank(), cluster_blocks(), cluster_sync() (release / acquire over
//              the cluster), cluster_sync_relaxed() (a barrier only), cluster_arrive_relaxed() and
//              cluster_wait() (a split barrier), map_shared_rank(p, rank), check_cluster_size(Blocks)
//   warp       shfl<Kind, T>(mask, words, arg, width): a T's 32-bit words, each moved the same way,
//              ballot / any / all(mask, pred), match_any(mask, word), match_all(mask, word, pred&)
//              (32- or 64-bit words), redux<Op>(mask, v) for 32-bit integers where has_redux,
//              syncwarp(mask)
//   tensor     bit_mma(a, b, d): the warp's 16x8x256 1-bit matrix product (AND, popcount);
//              has_bit_mma: whether algorithms take their paths built on it (the GPU from sm_80,
//              where it is the tensor cores'; detail::bit_mma_by_shuffles emulates it elsewhere)
//   memory     atomic_add / cas / exch / min / max, atomic_add_acquire, atomic_exch_release,
//              load_acquire, load_relaxed, store_relaxed, store_release, store_relaxed_pair, load_relaxed_pair,
//              fence, is_shared, pause(ns) (a poller's back-off), prefetch_l2(address) /
//              prefetch_l2_bytes(address, bytes) (hints to the L2 cache), atomic_or_kept_in_l2 /
//              keep_in_l2_no_more (an or whose line L2 keeps ahead of streamed data; its undoing),
//              wait_for_prior_grid / allow_next_grid (programmatic dependent launch; no-ops where
//              there is none)
//   types      dim3 (what block_index() and friends return)
#pragma once
#include <tilekit/core/operators.hpp>
#include <tilekit/core/std.hpp>

namespace tilekit {

/// The rung of the ladder a group stands on.
enum class group_level { tile, block, cluster, grid };

/// True when G, ignoring cv and reference, is a tile: its `level` is group_level::tile.
template <class G>
inline constexpr bool is_tile_v = detail::remove_cvref_t<G>::level == group_level::tile;
/// True when G, ignoring cv and reference, is a block: its `level` is group_level::block.
template <class G>
inline constexpr bool is_block_v = detail::remove_cvref_t<G>::level == group_level::block;

/// True when G, ignoring cv and reference, is a cluster: its `level` is group_level::cluster.
template <class G>
inline constexpr bool is_cluster_v = detail::remove_cvref_t<G>::level == group_level::cluster;

/// The tile<N> of `parent` holding the calling thread, for the parent's backend
/// (GPU or simulator): consecutive runs of N thread ranks.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned N, class Parent>
TILEKIT_HD auto tiled_partition(const Parent& parent) {
  return parent.template partition<N>();
}

/// The four shuffles of PTX shfl.sync.
enum class shfl_kind { idx, up, down, bfly };

namespace detail {
/// d += A x B of the warp's 1-bit 16x256 A and 256x8 B, the product's multiply AND and
/// its sum a popcount (PTX mma.m16n8k256.row.col.s32.b1.b1.s32.and.popc), by shuffles:
/// for a backend or an architecture without the instruction. Lane l = 4 g + t (g = l / 4,
/// t = l % 4) holds, as PTX lays the fragments out: a[0] row g and a[1] row g + 8 of
/// A's columns 32 t .. 32 t + 31 (bit i: column 32 t + i), a[2] and a[3] the same rows of columns
/// 128 + 32 t ..; b[0] column g of B's rows 32 t .. 32 t + 31, b[1] of rows 128 + 32 t ..;
/// d[0], d[1] row g, columns 2 t and 2 t + 1 of the product; d[2], d[3] row g + 8.
/// @pre all 32 lanes of the warp call it together.
TILEKIT_EXEC_CHECK_DISABLE
template <class Be>
TILEKIT_HD void bit_mma_by_shuffles(const unsigned (&a)[4], const unsigned (&b)[2], int (&d)[4]) {
  const unsigned lane = Be::lane_id(), g = lane / 4, t = lane % 4;
  for (unsigned from = 0; from < 4; ++from) {  // the columns (rows of B) lanes 4 x + from hold
    unsigned rows[4] = {a[0], a[1], a[2], a[3]}, left[2] = {b[0], b[1]}, right[2] = {b[0], b[1]};
    Be::template shfl<shfl_kind::idx, unsigned, 4>(~0u, rows, 4 * g + from, 32);
    Be::template shfl<shfl_kind::idx, unsigned, 2>(~0u, left, 4 * (2 * t) + from, 32);
    Be::template shfl<shfl_kind::idx, unsigned, 2>(~0u, right, 4 * (2 * t + 1) + from, 32);
    for (unsigned r = 0; r < 2; ++r) {  // rows[r], rows[r + 2]: row g + 8 r
      d[2 * r] += int(popc(rows[r] & left[0]) + popc(rows[r + 2] & left[1]));
      d[2 * r + 1] += int(popc(rows[r] & right[0]) + popc(rows[r + 2] & right[1]));
    }
  }
}

template <class B, class = void>
struct has_placement : stdx::false_type {};
template <class B>
struct has_placement<B, stdx::void_t<decltype(B::lane_id()), decltype(B::block_thread_rank()), decltype(B::block_threads()),
                                     decltype(B::block_index()), decltype(B::block_sync()), decltype(B::num_blocks()),
                                     decltype(B::block_rank()), decltype(B::grid_sync())>> : stdx::true_type {};
template <class B, class = void>
struct has_warp_ops : stdx::false_type {};
template <class B>
struct has_warp_ops<B, stdx::void_t<decltype(B::template shfl<shfl_kind::idx, unsigned>(0u, stdx::declval<unsigned (&)[1]>(), 0u, 32)),
                                    decltype(B::ballot(0u, true)), decltype(B::any(0u, true)), decltype(B::all(0u, true)),
                                    decltype(B::match_any(0u, 0u)), decltype(B::syncwarp(0u)),
                                    decltype(B::has_redux), decltype(B::has_bit_mma),
                                    decltype(B::bit_mma(stdx::declval<const unsigned (&)[4]>(),
                                                        stdx::declval<const unsigned (&)[2]>(),
                                                        stdx::declval<int (&)[4]>()))>> : stdx::true_type {};
template <class B, class = void>
struct has_memory_ops : stdx::false_type {};
template <class B>
struct has_memory_ops<B, stdx::void_t<decltype(B::atomic_add(static_cast<unsigned*>(nullptr), 0u)),
                                      decltype(B::atomic_add_acquire(static_cast<unsigned long long*>(nullptr), 0ull)),
                                      decltype(B::atomic_exch_release(static_cast<unsigned long long*>(nullptr), 0ull)),
                                      decltype(B::load_acquire(static_cast<const unsigned*>(nullptr))),
                                      decltype(B::load_relaxed(static_cast<const unsigned*>(nullptr))),
                                      decltype(B::store_relaxed(static_cast<unsigned*>(nullptr), 0u)),
                                      decltype(B::fence()), decltype(B::pause(0u)),
                                      decltype(B::prefetch_l2(nullptr)), decltype(B::prefetch_l2_bytes(nullptr, 0u)),
                                      decltype(B::is_shared(nullptr)), decltype(B::wait_for_prior_grid()),
                                      decltype(B::allow_next_grid())>> : stdx::true_type {};
template <class B, class = void>
struct has_cluster_ops : stdx::false_type {};
template <class B>
struct has_cluster_ops<B, stdx::void_t<decltype(B::cluster_block_rank()), decltype(B::cluster_blocks()),
                                       decltype(B::cluster_sync()), decltype(B::cluster_sync_relaxed()),
                                       decltype(B::cluster_arrive_relaxed()), decltype(B::cluster_wait()),
                                       decltype(B::map_shared_rank(static_cast<unsigned*>(nullptr), 0u)),
                                       decltype(B::check_cluster_size(1u))>> : stdx::true_type {};
}  // namespace detail

/// Compiles only for a type that provides what the groups and algorithms call.
template <class Backend>
struct backend_contract {
  static_assert(detail::has_placement<Backend>::value,
                "tilekit backend: needs lane_id, block_thread_rank, block_threads, block_index, block_sync, "
                "num_blocks, block_rank and grid_sync");
  static_assert(detail::has_warp_ops<Backend>::value,
                "tilekit backend: needs shfl<Kind, T>(mask, words, arg, width), ballot, any, all, match_any, "
                "syncwarp, has_redux, has_bit_mma and bit_mma(a[4], b[2], d[4])");
  static_assert(detail::has_memory_ops<Backend>::value,
                "tilekit backend: needs atomic_add, atomic_add_acquire, atomic_exch_release, load_acquire, load_relaxed, store_relaxed, fence, pause, prefetch_l2, "
                "prefetch_l2_bytes, is_shared, wait_for_prior_grid and allow_next_grid");
  static_assert(detail::has_cluster_ops<Backend>::value,
                "tilekit backend: needs cluster_block_rank, cluster_blocks, cluster_sync, cluster_sync_relaxed, cluster_arrive_relaxed, "
                "cluster_wait, map_shared_rank<T>(T*, rank) "
                "and check_cluster_size (a backend without clusters acts as a cluster of one block)");
  /// Always true: naming it instantiates the checks above, so a Backend that lacks an
  /// operation fails to compile with a message naming the operations required.
  static constexpr bool value = true;
};

/// N consecutive lanes of one warp (N = 1, 2, 4, 8, 16 or 32), aligned to a multiple of N,
/// over Backend: tilekit::tile<N> on the GPU, tilekit::sim::tile<N> in the simulator.
/// @pre all N lanes of the tile exist and call each collective member (sync, the
/// shuffles, ballot / any / all, match_any / match_all, hardware_reduce) together;
/// the simulator reports a violation as tilekit::sim::error.
template <unsigned N, class Backend>
class basic_tile {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "tilekit::tile<N>: N must be 1, 2, 4, 8, 16 or 32 (a power-of-two part of one warp)");
  static_assert(backend_contract<Backend>::value, "");

 public:
  /// The backend whose intrinsics the members call.
  using backend = Backend;
  /// group_level::tile: how algorithms tell a tile from a block or grid (is_tile_v).
  static constexpr group_level level = group_level::tile;

  /// N, the number of threads in the tile, as a constant expression.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD static constexpr unsigned size() { return N; }
  /// N, as size(); every group (tile, block, grid) has num_threads().
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD static constexpr unsigned num_threads() { return N; }
  // From the block's linear rank, as cooperative_groups does: nvcc optimises loops
  // around it better than around %laneid (a dependent chain of tile<8> scans runs faster).
  /// This thread's rank in the tile, 0 to N-1: its rank in the block modulo N.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned thread_rank() const { return Backend::block_thread_rank() & (N - 1); }
  /// Index of this tile among the tiles of its block: the block rank divided by N.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned meta_group_rank() const { return Backend::block_thread_rank() / N; }
  /// Number of tiles in the block, a last partial one included: block threads / N rounded up.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned meta_group_size() const { return (Backend::block_threads() + N - 1) / N; }
  /// The lanes of the warp that belong to this tile.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned lane_mask() const { return N == 32 ? ~0u : detail::low_bits(N) << first_lane(); }

  /// Barrier for the lanes of the tile (`__syncwarp` on lane_mask()); orders their memory accesses too.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void sync() const { Backend::syncwarp(lane_mask()); }

  /// The value of lane `src` of this tile (src is taken modulo N).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD T shfl(const T& v, unsigned src) const { return shuffle<shfl_kind::idx>(v, src); }
  /// The value of lane thread_rank() - delta; lanes below delta keep their own.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD T shfl_up(const T& v, unsigned delta) const { return shuffle<shfl_kind::up>(v, delta); }
  /// The value of lane thread_rank() + delta; lanes past the end keep their own.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD T shfl_down(const T& v, unsigned delta) const { return shuffle<shfl_kind::down>(v, delta); }
  /// The value of lane thread_rank() ^ mask. @pre mask < N (a larger mask reads another tile's lanes).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD T shfl_xor(const T& v, unsigned mask) const { return shuffle<shfl_kind::bfly>(v, mask); }

  /// The lanes of the tile whose p is true: bit i is lane i of the tile.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned ballot(bool p) const { return Backend::ballot(lane_mask(), p) >> first_lane(); }
  /// Whether p is true on at least one lane of the tile.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD bool any(bool p) const { return Backend::any(lane_mask(), p); }
  /// Whether p is true on every lane of the tile.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD bool all(bool p) const { return Backend::all(lane_mask(), p); }

  /// Lanes of the tile whose v has the same bits as this lane's (T of 4 or 8 bytes).
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD unsigned match_any(const T& v) const {
    return Backend::match_any(lane_mask(), match_word(v)) >> first_lane();
  }
  /// All lanes when every lane's v has the same bits (then pred = true), else 0.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD unsigned match_all(const T& v, bool& pred) const {
    return Backend::match_all(lane_mask(), match_word(v), pred) >> first_lane();
  }

  /// The hardware reduction (redux.sync) over the tile, 32-bit integers.
  static constexpr bool has_hardware_reduce = Backend::has_redux;
  /// Op over every lane's v (redux.sync), the result in every lane; T a 32-bit integer,
  /// signed or unsigned (which decides how min and max compare).
  /// @pre has_hardware_reduce (else the GPU traps), and Op is not builtin_op::none.
  TILEKIT_EXEC_CHECK_DISABLE
  template <builtin_op Op, class T>
  TILEKIT_HD T hardware_reduce(T v) const {
    static_assert(sizeof(T) == 4 && detail::stdx::is_integral<T>::value, "hardware_reduce: 32-bit integers only");
    return Backend::template redux<Op>(lane_mask(), v);
  }

 private:
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD static unsigned first_lane() { return N == 32 ? 0u : Backend::lane_id() & ~(N - 1); }

  // Any trivially copyable T as 32-bit words, each shuffled with the same pattern.
  TILEKIT_EXEC_CHECK_DISABLE
  template <shfl_kind Kind, class T>
  TILEKIT_HD T shuffle(const T& v, unsigned arg) const {
    static_assert(detail::stdx::is_trivially_copyable<T>::value, "tilekit::tile shuffles need a trivially copyable T");
    constexpr unsigned words = (sizeof(T) + 3) / 4;
    unsigned w[words] = {};
    std::memcpy(w, &v, sizeof(T));
    Backend::template shfl<Kind, T>(lane_mask(), w, arg, int(N));
    T out = v;  // T need not be default constructible
    std::memcpy(static_cast<void*>(&out), w, sizeof(T));
    return out;
  }

  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD static auto match_word(const T& v) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "tilekit::tile::match_any / match_all compare 4- or 8-byte values");
    if constexpr (sizeof(T) == 4) return detail::bit_cast<unsigned>(v);
    else return detail::bit_cast<unsigned long long>(v);
  }
};

/// A thread block. Threads = 0: size known at run time only.
template <unsigned Threads, class Backend>
class basic_block {
  static_assert(Threads <= 1024, "tilekit::block<Threads>: a thread block has at most 1024 threads");

 public:
  /// The backend whose intrinsics the members call.
  using backend = Backend;
  /// group_level::block: how algorithms tell a block from a tile or grid (is_block_v).
  static constexpr group_level level = group_level::block;
  /// The tile<N> over the same backend: what partition<N>() returns.
  template <unsigned N>
  using tile_type = basic_tile<N, Backend>;

  /// @pre the block has Threads threads (the simulator checks; the GPU trusts).
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD basic_block() { Backend::check_block_size(Threads); }

  /// Compile-time size (0 when the size is known at run time only).
  static constexpr unsigned static_size = Threads;
  /// Threads in the block: Threads, or when it is 0 the launch's block size.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned num_threads() const { return Threads ? Threads : Backend::block_threads(); }
  /// Same as num_threads().
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned size() const { return num_threads(); }
  /// This thread's linear rank in the block, 0 to num_threads() - 1 (x fastest, then y, then z).
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned thread_rank() const { return Backend::block_thread_rank(); }
  /// This block's index in the grid (`blockIdx`), as the backend's `dim3`.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD auto group_index() const { return Backend::block_index(); }
  /// This thread's index in the block (`threadIdx`), as the backend's `dim3`.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD auto thread_index() const { return Backend::thread_index(); }
  /// The block's extents in threads (`blockDim`), as the backend's `dim3`.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD auto dim_threads() const { return Backend::block_dim(); }
  /// Block-wide barrier (`__syncthreads`). @pre every thread of the block reaches it.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void sync() const { Backend::block_sync(); }

  /// The tile<N> holding this thread: tiles are consecutive runs of N thread ranks.
  TILEKIT_EXEC_CHECK_DISABLE
  template <unsigned N>
  TILEKIT_HD basic_tile<N, Backend> partition() const { return basic_tile<N, Backend>(); }
};

/// A thread-block cluster (sm_90): Blocks blocks of Threads threads (Threads = 0: the
/// block size known at run time only) that run at once, can address each other's
/// shared memory (map_shared_rank) and meet at cluster.sync(). Threads are ranked
/// block by block: thread_rank() = block_rank() * threads per block + rank in the block.
/// @pre the launch's clusters have Blocks blocks (tilekit::launch_cluster,
/// tilekit::sim::launch_cluster; the simulator checks, the GPU trusts) and its blocks
/// Threads threads.
template <unsigned Blocks, unsigned Threads, class Backend>
class basic_cluster {
  static_assert(Blocks >= 1 && Blocks <= 16,
                "tilekit::cluster<Blocks, Threads>: Blocks must be 1..16: sm_90 allows up to 8 blocks per cluster "
                "portably, 16 with the non-portable size (launch_cluster does that above 8)");
  static_assert(Threads <= 1024, "tilekit::cluster<Blocks, Threads>: a thread block has at most 1024 threads");
  static_assert(backend_contract<Backend>::value, "");

 public:
  /// The backend whose intrinsics the members call.
  using backend = Backend;
  /// group_level::cluster: how algorithms tell a cluster from a block or grid (is_cluster_v).
  static constexpr group_level level = group_level::cluster;
  /// Blocks in the cluster, as a constant expression.
  static constexpr unsigned static_blocks = Blocks;
  /// Threads per block at compile time (0 when known at run time only).
  static constexpr unsigned static_size = Threads;
  /// The block type of the cluster's blocks: what block() returns.
  using block_type = basic_block<Threads, Backend>;

  /// @pre the launch's clusters have Blocks blocks of Threads threads (the simulator
  /// checks; the GPU trusts).
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD basic_cluster() {
    Backend::check_cluster_size(Blocks);
    Backend::check_block_size(Threads);
  }

  /// Blocks in the cluster: Blocks.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD static constexpr unsigned num_blocks() { return Blocks; }
  /// The calling block's rank in its cluster, 0 to Blocks - 1 (%cluster_ctarank: x fastest
  /// over the block's position in the cluster, then y, then z).
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned block_rank() const { return Backend::cluster_block_rank(); }
  /// Threads in the cluster: Blocks times the threads per block.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned num_threads() const { return Blocks * threads_per_block(); }
  /// This thread's rank in the cluster: block_rank() times the threads per block, plus its rank in the block.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned thread_rank() const { return block_rank() * threads_per_block() + Backend::block_thread_rank(); }
  /// Cluster-wide barrier (barrier.cluster arrive.release + wait.acquire): every thread of
  /// every block of the cluster waits here, and the shared-memory writes of every block
  /// before it are visible to every block after it. @pre every thread of the cluster reaches it.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void sync() const { Backend::cluster_sync(); }
  /// A cluster-wide barrier that orders no memory (barrier.cluster.arrive.relaxed + wait):
  /// enough to keep a block from exiting until the other blocks' reads of its shared
  /// memory have returned, where each read's value is used before the barrier; it does
  /// not wait for the caller's outstanding global writes and atomics, as sync()'s release
  /// does. @pre every thread of the cluster reaches it.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void sync_relaxed() const { Backend::cluster_sync_relaxed(); }
  /// The first half of a split cluster barrier that orders no memory
  /// (barrier.cluster.arrive.relaxed): the caller goes on, and its wait() returns once every
  /// thread of the cluster has arrived. Between the two a block may do its own work, so the
  /// barrier's latency hides behind it (e.g. arrive at the start, wait before the first
  /// remote access: every block has started then). @pre every thread of the cluster
  /// arrives, then waits, once per such barrier, in code its whole warp runs (the simulator
  /// checks the pairing); no remote access (map_shared_rank) between the two.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void arrive_relaxed() const { Backend::cluster_arrive_relaxed(); }
  /// The second half of the split barrier: waits until every thread of the cluster has
  /// arrived (barrier.cluster.wait, acquire). @pre the caller arrived since its last wait.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void wait() const { Backend::cluster_wait(); }
  /// The address of the same shared-memory variable as p in block `rank` of the cluster
  /// (distributed shared memory). @pre p points into the calling block's shared memory;
  /// rank < Blocks; for a block other than the caller's, every block has passed one
  /// cluster.sync() since the kernel started (it may not have started otherwise), and the
  /// accesses end before that block exits (a cluster.sync() between them). The simulator
  /// reports each violation.
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD T* map_shared_rank(T* p, unsigned rank) const { return Backend::map_shared_rank(p, rank); }
  /// The calling thread's block.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD block_type block() const { return block_type(); }

 private:
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD static unsigned threads_per_block() { return Threads ? Threads : Backend::block_threads(); }
};

/// How a grid was launched, which decides what may be done across it:
///   cooperative  every block resident at once (tilekit::launch_cooperative,
///                tilekit::sim::launch_cooperative): grid.sync() and every grid algorithm;
///   ordinary     blocks start as the device has room (tilekit::launch, <<<...>>>,
///                tilekit::sim::launch): no grid barrier, so only the single-pass grid
///                algorithms (the chained scans and compact, grid/chain.cuh); the others
///                and grid.sync() do not compile.
enum class grid_launch { ordinary, cooperative };

namespace detail {
// The check at the door of grid.sync() and of every grid algorithm that needs it.
template <grid_launch Launch>
TILEKIT_HD constexpr void require_cooperative() {
  static_assert(Launch == grid_launch::cooperative,
                "tilekit: grid.sync() and the grid algorithms built on it need every block resident at once: launch "
                "with tilekit::launch_cooperative (simulator: tilekit::sim::launch_cooperative); under an ordinary "
                "launch only the chained scans and compact work (grid/chain.cuh)");
}
}  // namespace detail

/// The whole grid. sync() needs every block resident at once: a cooperative launch,
/// which the Launch parameter records (a launch's context hands out the right one).
template <class Backend, grid_launch Launch = grid_launch::cooperative>
class basic_grid {
 public:
  /// The backend whose intrinsics the members call.
  using backend = Backend;
  /// group_level::grid: how algorithms tell the grid from a tile or block.
  static constexpr group_level level = group_level::grid;
  /// How the grid was launched: what may be done across it.
  static constexpr grid_launch launch = Launch;

  /// Blocks in the grid: the product of its extents.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned long long num_blocks() const { return Backend::num_blocks(); }
  /// This block's linear rank in the grid, 0 to num_blocks() - 1 (x fastest, then y, then z).
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned long long block_rank() const { return Backend::block_rank(); }
  /// Threads in the grid: num_blocks() times the threads per block.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned long long num_threads() const { return num_blocks() * Backend::block_threads(); }
  /// This thread's rank in the grid: block_rank() times the threads per block, plus its rank in the block.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD unsigned long long thread_rank() const { return block_rank() * Backend::block_threads() + Backend::block_thread_rank(); }
  /// The grid's extents in blocks (`gridDim`), as the backend's `dim3`.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD auto dim_blocks() const { return Backend::grid_dim(); }
  /// This block's index in the grid (`blockIdx`), as the backend's `dim3`.
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD auto block_index() const { return Backend::block_index(); }
  /// Grid-wide barrier. @pre every thread of the grid reaches it; a cooperative launch
  /// (a compile-time error on the grid of an ordinary launch).
  TILEKIT_EXEC_CHECK_DISABLE
  TILEKIT_HD void sync() const {
    detail::require_cooperative<Launch>();
    Backend::grid_sync();
  }
};


}  // namespace tilekit
