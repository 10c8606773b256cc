// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/gpu/groups.cuh - the GPU backend, and the group types over it: tile<N>
// (1..32 lanes of one warp), block<Threads>, cluster<Blocks, Threads> (sm_90),
// grid_group (core/group.hpp).
//
//   auto block = tilekit::this_block<256>();
//   auto warp  = tilekit::tiled_partition<32>(block);   // tilekit::tile<32>
//
// Lane masks returned by ballot / match_* are relative to the tile: bit i is
// lane i of the tile. The CPU simulator (tilekit/sim.cuh) has the same types
// with the same members, so algorithm code runs on either.
#pragma once
#include <tilekit/core/config.hpp>
#include <tilekit/core/std.hpp>
#include <tilekit/core/group.hpp>

#include <cooperative_groups.h>
#include <cuda/atomic>

namespace tilekit {

namespace cg = ::cooperative_groups;

/// The GPU backend: raw intrinsics and memory operations (the contract in core/group.hpp).
struct gpu_backend {
  // ---- memory
  /// `atomicAdd`: adds value to *address; returns the old value.
  template <class T>
  __device__ static T atomic_add(T* address, T value) { return atomicAdd(address, value); }
  /// `atomicCAS`: stores value at *address if it holds compare; returns the old value.
  template <class T>
  __device__ static T atomic_cas(T* address, T compare, T value) { return atomicCAS(address, compare, value); }
  /// `atomicExch`: stores value at *address; returns the old value.
  template <class T>
  __device__ static T atomic_exch(T* address, T value) { return atomicExch(address, value); }
  /// `atomicMin`: stores the smaller of *address and value; returns the old value.
  template <class T>
  __device__ static T atomic_min(T* address, T value) { return atomicMin(address, value); }
  /// `atomicMax`: stores the larger of *address and value; returns the old value.
  template <class T>
  __device__ static T atomic_max(T* address, T value) { return atomicMax(address, value); }
  /// `atomicOr`: sets the bits of value in *address; returns the old value.
  template <class T>
  __device__ static T atomic_or(T* address, T value) { return atomicOr(address, value); }
  /// atomic_or without the old value, its line kept in L2 ahead of other data (the evict_last
  /// policy): for a small structure hit at random while far more data streams past, which would
  /// otherwise evict its lines half written (each eviction a DRAM write and a later re-read).
  /// keep_in_l2_no_more gives the line its normal priority back. @pre address in global memory.
  /// (Before sm_80, which has no L2 eviction policies: atomicOr.)
  __device__ static void atomic_or_kept_in_l2(unsigned* address, unsigned value) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned long long policy;
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));  // (not volatile: hoisted out of loops)
    asm volatile("red.global.or.L2::cache_hint.b32 [%0], %1, %2;" ::"l"(address), "r"(value), "l"(policy) : "memory");
#else
    atomicOr(address, value);
#endif
  }
  /// The line holding address (global memory) back to the normal L2 priority (after
  /// atomic_or_kept_in_l2): so that kept lines do not outlive the call that kept them.
  __device__ static void keep_in_l2_no_more(const void* address) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(address) : "memory");
#else
    (void)address;
#endif
  }
  /// A device-scope acquire load: what a spin-wait polls.
  template <class T>
  __device__ static T load_acquire(const T* address) {
    return cuda::atomic_ref<T, cuda::thread_scope_device>(*const_cast<T*>(address)).load(cuda::memory_order_acquire);
  }
  /// A device-scope relaxed load: polls without the cost of an acquire (which
  /// invalidates the SM's L1); pair it with fence() once the flag is seen.
  template <class T>
  __device__ static T load_relaxed(const T* address) {
    return cuda::atomic_ref<T, cuda::thread_scope_device>(*const_cast<T*>(address)).load(cuda::memory_order_relaxed);
  }
  /// A device-scope atomic add with acquire semantics: a poll that also counts (what it
  /// returns shows what a release before it published). Returns the old value.
  template <class T>
  __device__ static T atomic_add_acquire(T* address, T value) {
    return cuda::atomic_ref<T, cuda::thread_scope_device>(*address).fetch_add(value, cuda::memory_order_acquire);
  }
  /// A device-scope exchange with release semantics: publishes this thread's earlier writes
  /// (and its block's, after a barrier) to whoever reads the new value with acquire.
  template <class T>
  __device__ static T atomic_exch_release(T* address, T value) {
    return cuda::atomic_ref<T, cuda::thread_scope_device>(*address).exchange(value, cuda::memory_order_release);
  }
  /// A device-scope relaxed store.
  template <class T>
  __device__ static void store_relaxed(T* address, T value) {
    cuda::atomic_ref<T, cuda::thread_scope_device>(*address).store(value, cuda::memory_order_relaxed);
  }
  /// A device-scope relaxed store of two 64-bit words at a 16-byte aligned address in
  /// one 16-byte access, and the load that reads both at once. The hardware performs
  /// an aligned 16-byte access whole (CUB's look-back relies on it too), so a poller
  /// never sees a flag in the first word without the value in the second.
  __device__ static void store_relaxed_pair(unsigned long long* address, unsigned long long first,
                                            unsigned long long second) {
    asm volatile("st.relaxed.gpu.global.v2.b64 [%0], {%1, %2};" ::"l"(address), "l"(first), "l"(second) : "memory");
  }
  /// The load for store_relaxed_pair: both words at a 16-byte aligned global address in one
  /// relaxed 16-byte access, so first and second come from the same store.
  __device__ static void load_relaxed_pair(const unsigned long long* address, unsigned long long& first,
                                           unsigned long long& second) {
    asm volatile("ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];" : "=l"(first), "=l"(second) : "l"(address) : "memory");
  }
  /// Asks the L2 cache to fetch the line holding address (a hint: nothing is read into
  /// registers, nothing waits).
  __device__ static void prefetch_l2(const void* address) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
  }
  /// Asks the L2 cache to fetch bytes [address, address + bytes) of global memory: one bulk
  /// prefetch (cp.async.bulk.prefetch) on sm_90 and later, nothing before (a hint). @pre
  /// address 16-byte aligned, bytes a multiple of 16.
  __device__ static void prefetch_l2_bytes(const void* address, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(__cvta_generic_to_global(address)), "r"(bytes) : "memory");
#else
    (void)address;
    (void)bytes;
#endif
  }
  /// A device-scope release store.
  template <class T>
  __device__ static void store_release(T* address, T value) {
    cuda::atomic_ref<T, cuda::thread_scope_device>(*address).store(value, cuda::memory_order_release);
  }
  /// Sleeps about ns nanoseconds (__nanosleep): a poller's back-off.
  __device__ static void pause(unsigned ns) {
    if (ns > 0) __nanosleep(ns);
  }
  /// A device-scope fence (__threadfence).
  __device__ static void fence() { __threadfence(); }
  /// Waits until the kernel before this one in the stream has finished and its writes
  /// are visible (griddepcontrol.wait on sm_90+): what a kernel launched by
  /// gpu_launcher::zero_then_run calls before its first global memory access. Returns at
  /// once in an ordinary launch, and on older GPUs (no dependent launch there).
  __device__ static void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  }
  /// Lets the next kernel in the stream, if launched to overlap (zero_then_run), start before this
  /// one ends (griddepcontrol.launch_dependents on sm_90+); it still waits for this one's
  /// writes at its wait_for_prior_grid().
  __device__ static void allow_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
  }
  /// Whether p points into shared memory.
  __device__ static bool is_shared(const void* p) { return __isShared(p) != 0; }

  // ---- placement
  /// The calling thread's lane in its hardware warp (`%laneid`, 0..31).
  __device__ static unsigned lane_id() {
    unsigned l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
  }
  /// The calling thread's rank in its block (x fastest, then y, then z).
  __device__ static unsigned block_thread_rank() { return cg::this_thread_block().thread_rank(); }
  /// The number of threads in the block.
  __device__ static unsigned block_threads() { return cg::this_thread_block().num_threads(); }
  /// The block's index in the grid (blockIdx).
  __device__ static ::dim3 block_index() { return cg::this_thread_block().group_index(); }
  /// The calling thread's index in its block (threadIdx).
  __device__ static ::dim3 thread_index() { return cg::this_thread_block().thread_index(); }
  /// The block's dimensions (blockDim).
  __device__ static ::dim3 block_dim() { return cg::this_thread_block().dim_threads(); }
  /// A block barrier (__syncthreads). @pre every thread of the block reaches it.
  __device__ static void block_sync() { __syncthreads(); }
  /// Does nothing on the GPU: block<Threads> relies on its precondition (the simulator checks it).
  __device__ static void check_block_size(unsigned) {}
  /// A precondition an algorithm checks (a bound that would otherwise write out of
  /// range): when it fails the kernel stops (__trap(): cudaErrorLaunchFailure); the
  /// simulator reports `what` instead.
  __device__ static void require(bool ok, const char*) {
    if (!ok) __trap();
  }
  /// The number of blocks in the grid.
  __device__ static unsigned long long num_blocks() { return cg::this_grid().num_blocks(); }
  /// The block's linear rank in the grid (x fastest).
  __device__ static unsigned long long block_rank() { return cg::this_grid().block_rank(); }
  /// The grid's dimensions in blocks (gridDim).
  __device__ static ::dim3 grid_dim() { return cg::this_grid().dim_blocks(); }
  /// A grid-wide barrier.
  /// @pre a cooperative launch (tilekit::launch_cooperative); every thread of the grid calls it.
  __device__ static void grid_sync() { cg::this_grid().sync(); }

  // ---- cluster (sm_90: cg::cluster_group; below sm_90 every block is a cluster of one)
  /// The calling block's rank in its cluster (%cluster_ctarank); 0 below sm_90.
  __device__ static unsigned cluster_block_rank() {
#if TILEKIT_HAS_CLUSTER
    return cg::this_cluster().block_rank();
#else
    return 0;
#endif
  }
  /// Blocks in the calling block's cluster (1 in a launch without cluster dimensions, and below sm_90).
  __device__ static unsigned cluster_blocks() {
#if TILEKIT_HAS_CLUSTER
    return cg::this_cluster().num_blocks();
#else
    return 1;
#endif
  }
  /// A cluster barrier (barrier.cluster.arrive.release, then .wait.acquire): orders the
  /// shared-memory accesses of every block of the cluster; __syncthreads below sm_90.
  /// @pre every thread of the cluster reaches it.
  __device__ static void cluster_sync() {
#if TILEKIT_HAS_CLUSTER
    cg::this_cluster().sync();
#else
    __syncthreads();
#endif
  }
  /// A cluster barrier that orders no memory (barrier.cluster.arrive.relaxed, then .wait):
  /// every thread of the cluster waits for all; __syncthreads below sm_90. No membar
  /// waits for the block's outstanding global writes and atomics, as cluster_sync's release does.
  /// @pre every thread of the cluster reaches it.
  __device__ static void cluster_sync_relaxed() {
#if TILEKIT_HAS_CLUSTER
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" ::: "memory");
#else
    __syncthreads();
#endif
  }
  /// The first half of a split cluster barrier (barrier.cluster.arrive.relaxed); nothing
  /// below sm_90, where cluster_wait is the block's barrier. @pre the whole warp calls it.
  __device__ static void cluster_arrive_relaxed() {
#if TILEKIT_HAS_CLUSTER
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
  }
  /// The second half (barrier.cluster.wait: acquire); __syncthreads below sm_90.
  __device__ static void cluster_wait() {
#if TILEKIT_HAS_CLUSTER
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
#else
    __syncthreads();
#endif
  }
  /// The generic address of p's variable in the shared memory of block `rank` of the
  /// cluster (mapa); below sm_90 p for rank 0, and a trap for any other rank.
  template <class T>
  __device__ static T* map_shared_rank(T* p, unsigned rank) {
#if TILEKIT_HAS_CLUSTER
    return cg::this_cluster().map_shared_rank(p, static_cast<int>(rank));
#else
    if (rank != 0) __trap();
    return p;
#endif
  }
  /// Does nothing on the GPU: cluster<Blocks> relies on its precondition (the simulator checks it).
  __device__ static void check_cluster_size(unsigned) {}

  // ---- warp
  /// A T's words, each shuffled with the same pattern (in place).
  template <shfl_kind Kind, class T, unsigned W>
  __device__ static void shfl(unsigned mask, unsigned (&words)[W], unsigned arg, int width) {
#pragma unroll
    for (unsigned i = 0; i < W; ++i) {
      if constexpr (Kind == shfl_kind::idx) words[i] = __shfl_sync(mask, words[i], static_cast<int>(arg), width);
      else if constexpr (Kind == shfl_kind::up) words[i] = __shfl_up_sync(mask, words[i], arg, width);
      else if constexpr (Kind == shfl_kind::down) words[i] = __shfl_down_sync(mask, words[i], arg, width);
      else words[i] = __shfl_xor_sync(mask, words[i], static_cast<int>(arg), width);
    }
  }
  /// Bit i set where lane i of the warp is in mask and has p true (`__ballot_sync`).
  __device__ static unsigned ballot(unsigned mask, bool p) { return __ballot_sync(mask, p); }
  /// Whether p is true in any lane of mask (`__any_sync`).
  __device__ static bool any(unsigned mask, bool p) { return __any_sync(mask, p) != 0; }
  /// Whether p is true in every lane of mask (`__all_sync`).
  __device__ static bool all(unsigned mask, bool p) { return __all_sync(mask, p) != 0; }
  /// The lanes of mask whose word equals the caller's (`__match_any_sync`; W of 4 or 8 bytes).
  template <class W>
  __device__ static unsigned match_any(unsigned mask, W word) { return __match_any_sync(mask, word); }
  /// mask if every lane of mask has the same word, else 0; pred says which (`__match_all_sync`).
  template <class W>
  __device__ static unsigned match_all(unsigned mask, W word, bool& pred) {
    int p = 0;
    const unsigned m = __match_all_sync(mask, word, &p);
    pred = p != 0;
    return m;
  }
  /// Waits for the lanes of mask and orders their memory accesses (`__syncwarp`).
  __device__ static void syncwarp(unsigned mask) { __syncwarp(mask); }
  /// Whether redux() can run: redux.sync (32-bit integers) exists from sm_80 on.
  static constexpr bool has_redux = TILEKIT_HAS_REDUX;
  /// Op over v of the lanes of mask, returned in each of them (redux.sync).
  /// @pre has_redux (it traps otherwise); T a 32-bit integer.
  template <builtin_op Op, class T>
  __device__ static T redux(unsigned mask, T v) {
#if TILEKIT_HAS_REDUX
    if constexpr (detail::stdx::is_signed<T>::value) {
      switch (Op) {
        case builtin_op::sum: return __reduce_add_sync(mask, v);
        case builtin_op::min: return __reduce_min_sync(mask, v);
        case builtin_op::max: return __reduce_max_sync(mask, v);
        case builtin_op::bit_and: return static_cast<T>(__reduce_and_sync(mask, static_cast<unsigned>(v)));
        case builtin_op::bit_or: return static_cast<T>(__reduce_or_sync(mask, static_cast<unsigned>(v)));
        default: return static_cast<T>(__reduce_xor_sync(mask, static_cast<unsigned>(v)));
      }
    } else {
      switch (Op) {
        case builtin_op::sum: return __reduce_add_sync(mask, v);
        case builtin_op::min: return __reduce_min_sync(mask, v);
        case builtin_op::max: return __reduce_max_sync(mask, v);
        case builtin_op::bit_and: return __reduce_and_sync(mask, v);
        case builtin_op::bit_or: return __reduce_or_sync(mask, v);
        default: return __reduce_xor_sync(mask, v);
      }
    }
#else
    (void)mask;
    __trap();
    return v;
#endif
  }

  // ---- tensor cores
  /// Whether bit_mma runs on the tensor cores (sm_80 on); elsewhere it is emulated by shuffles.
  static constexpr bool has_bit_mma = TILEKIT_HAS_BIT_MMA;
  /// d += A x B, the warp's 1-bit 16x256 A and 256x8 B, multiply AND, sum a popcount
  /// (mma.m16n8k256.row.col.s32.b1.b1.s32.and.popc; fragments: detail::bit_mma_by_shuffles).
  /// @pre all 32 lanes of the warp call it together.
  __device__ static void bit_mma(const unsigned (&a)[4], const unsigned (&b)[2], int (&d)[4]) {
#if TILEKIT_HAS_BIT_MMA
    asm volatile(
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
    detail::bit_mma_by_shuffles<gpu_backend>(a, b, d);
#endif
  }
};

/// tile<N>: N lanes of one warp (core/group.hpp's basic_tile on the GPU).
template <unsigned N>
using tile = basic_tile<N, gpu_backend>;
/// A thread block; Threads = 0: size known at run time only.
template <unsigned Threads = 0>
using block = basic_block<Threads, gpu_backend>;
/// A thread-block cluster of Blocks blocks of Threads threads (Threads = 0: known at run
/// time only): launch with tilekit::launch_cluster (sm_90).
template <unsigned Blocks, unsigned Threads = 0>
using cluster = basic_cluster<Blocks, Threads, gpu_backend>;
/// The whole grid of a cooperative launch (tilekit::launch_cooperative): sync() and every grid algorithm.
using grid_group = basic_grid<gpu_backend, grid_launch::cooperative>;
/// The whole grid of an ordinary launch: no sync(); the chained grid algorithms only.
using ordinary_grid = basic_grid<gpu_backend, grid_launch::ordinary>;

/// The calling thread's grid, as launched: this_grid<grid_launch::cooperative>() in a
/// kernel launched cooperatively (cudaLaunchCooperativeKernel), this_grid() otherwise.
template <grid_launch Launch = grid_launch::ordinary>
__device__ basic_grid<gpu_backend, Launch> this_grid() {
  return basic_grid<gpu_backend, Launch>();
}

/// The calling thread's block, its size fixed at compile time.
/// @pre blockDim.x * blockDim.y * blockDim.z == Threads.
template <unsigned Threads = 0>
__device__ block<Threads> this_block() {
  return block<Threads>();
}

/// The calling thread's cluster, its sizes fixed at compile time.
/// @pre a launch whose clusters have Blocks blocks (tilekit::launch_cluster) of Threads threads.
template <unsigned Blocks, unsigned Threads = 0>
__device__ cluster<Blocks, Threads> this_cluster() {
  return cluster<Blocks, Threads>();
}

}  // namespace tilekit
