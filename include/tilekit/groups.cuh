// tilekit/groups.cuh - the GPU group types: tile<N> (1..32 lanes of one warp)
// and block<Threads>, thin wrappers of cooperative_groups.
//
//   auto block = tilekit::this_block<256>();
//   auto warp  = tilekit::tiled_partition<32>(block);   // tilekit::tile<32>
//
// Lane masks returned by ballot / match_* are relative to the tile: bit i is
// lane i of the tile. The CPU simulator (tilekit/sim.cuh) has the same types
// with the same members, so algorithm code runs on either.
#pragma once
#include <tilekit/config.hpp>
#include <tilekit/detail/std.hpp>
#include <tilekit/group_traits.hpp>

#include <cooperative_groups.h>
#include <cuda/atomic>

namespace tilekit {

namespace cg = ::cooperative_groups;

/// Memory operations whose implementation depends on where the code runs
/// (the simulator has the same members).
struct gpu_backend {
  template <class T>
  __device__ static T atomic_add(T* address, T value) { return atomicAdd(address, value); }
  template <class T>
  __device__ static T atomic_cas(T* address, T compare, T value) { return atomicCAS(address, compare, value); }
  template <class T>
  __device__ static T atomic_exch(T* address, T value) { return atomicExch(address, value); }
  template <class T>
  __device__ static T atomic_min(T* address, T value) { return atomicMin(address, value); }
  template <class T>
  __device__ static T atomic_max(T* address, T value) { return atomicMax(address, value); }
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
  __device__ static void load_relaxed_pair(const unsigned long long* address, unsigned long long& first,
                                           unsigned long long& second) {
    asm volatile("ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];" : "=l"(first), "=l"(second) : "l"(address) : "memory");
  }
  /// A device-scope release store.
  template <class T>
  __device__ static void store_release(T* address, T value) {
    cuda::atomic_ref<T, cuda::thread_scope_device>(*address).store(value, cuda::memory_order_release);
  }
  /// A device-scope fence (__threadfence).
  __device__ static void fence() { __threadfence(); }
  /// Whether p points into shared memory.
  __device__ static bool is_shared(const void* p) { return __isShared(p) != 0; }
};

template <unsigned N>
class tile {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "tilekit::tile<N>: N must be 1, 2, 4, 8, 16 or 32 (a power-of-two part of one warp)");

 public:
  using backend = gpu_backend;
  static constexpr group_level level = group_level::tile;

  __device__ explicit tile(cg::thread_block_tile<N> t) : cg_(t) {}

  static constexpr unsigned size() { return N; }
  static constexpr unsigned num_threads() { return N; }
  // From the block's linear rank, as cooperative_groups does: nvcc optimises loops
  // around it better than around %laneid (measured: 20% on a dependent chain of tile<8> scans).
  __device__ unsigned thread_rank() const { return cg::this_thread_block().thread_rank() & (N - 1); }
  /// Index of this tile among the tiles of its parent, and their number.
  __device__ unsigned meta_group_rank() const { return cg_.meta_group_rank(); }
  __device__ unsigned meta_group_size() const { return cg_.meta_group_size(); }
  /// The lanes of the warp that belong to this tile.
  __device__ unsigned lane_mask() const { return N == 32 ? ~0u : detail::low_bits(N) << (lane() & ~(N - 1)); }
  /// The wrapped cooperative_groups tile, for code that takes one.
  __device__ const cg::thread_block_tile<N>& cg_group() const { return cg_; }

  __device__ void sync() const { __syncwarp(lane_mask()); }

  /// The value of lane `src` of this tile (src is taken modulo N).
  template <class T>
  __device__ T shfl(const T& v, unsigned src) const {
    return shuffle_words(v, [&](unsigned w) { return __shfl_sync(lane_mask(), w, static_cast<int>(src), N); });
  }
  /// The value of lane thread_rank() - delta; lanes below delta keep their own.
  template <class T>
  __device__ T shfl_up(const T& v, unsigned delta) const {
    return shuffle_words(v, [&](unsigned w) { return __shfl_up_sync(lane_mask(), w, delta, N); });
  }
  /// The value of lane thread_rank() + delta; lanes past the end keep their own.
  template <class T>
  __device__ T shfl_down(const T& v, unsigned delta) const {
    return shuffle_words(v, [&](unsigned w) { return __shfl_down_sync(lane_mask(), w, delta, N); });
  }
  /// The value of lane thread_rank() ^ mask. @pre mask < N (a larger mask reads another tile's lanes).
  template <class T>
  __device__ T shfl_xor(const T& v, unsigned mask) const {
    return shuffle_words(v, [&](unsigned w) { return __shfl_xor_sync(lane_mask(), w, static_cast<int>(mask), N); });
  }

  __device__ unsigned ballot(bool p) const { return __ballot_sync(lane_mask(), p) >> first_lane(); }
  __device__ bool any(bool p) const { return __any_sync(lane_mask(), p) != 0; }
  __device__ bool all(bool p) const { return __all_sync(lane_mask(), p) != 0; }

  /// Lanes of the tile whose v has the same bits as this lane's (T of 4 or 8 bytes).
  template <class T>
  __device__ unsigned match_any(const T& v) const {
    return __match_any_sync(lane_mask(), match_word(v)) >> first_lane();
  }
  /// All lanes when every lane's v has the same bits (then pred = true), else 0.
  template <class T>
  __device__ unsigned match_all(const T& v, bool& pred) const {
    int p = 0;
    unsigned m = __match_all_sync(lane_mask(), match_word(v), &p);
    pred = p != 0;
    return m >> first_lane();
  }

  /// The hardware reduction (redux.sync) over the tile, 32-bit integers.
  static constexpr bool has_hardware_reduce = TILEKIT_HAS_REDUX;
  template <builtin_op Op, class T>
  __device__ T hardware_reduce(T v) const {
    static_assert(sizeof(T) == 4 && detail::stdx::is_integral<T>::value, "hardware_reduce: 32-bit integers only");
#if TILEKIT_HAS_REDUX
    const unsigned m = lane_mask();
    if constexpr (detail::stdx::is_signed<T>::value) {
      switch (Op) {
        case builtin_op::sum: return __reduce_add_sync(m, v);
        case builtin_op::min: return __reduce_min_sync(m, v);
        case builtin_op::max: return __reduce_max_sync(m, v);
        case builtin_op::bit_and: return static_cast<T>(__reduce_and_sync(m, static_cast<unsigned>(v)));
        case builtin_op::bit_or: return static_cast<T>(__reduce_or_sync(m, static_cast<unsigned>(v)));
        default: return static_cast<T>(__reduce_xor_sync(m, static_cast<unsigned>(v)));
      }
    } else {
      switch (Op) {
        case builtin_op::sum: return __reduce_add_sync(m, v);
        case builtin_op::min: return __reduce_min_sync(m, v);
        case builtin_op::max: return __reduce_max_sync(m, v);
        case builtin_op::bit_and: return __reduce_and_sync(m, v);
        case builtin_op::bit_or: return __reduce_or_sync(m, v);
        default: return __reduce_xor_sync(m, v);
      }
    }
#else
    __trap();
    return v;
#endif
  }

 private:
  __device__ static unsigned lane() {
    unsigned l;
    asm("mov.u32 %0, %%laneid;" : "=r"(l));
    return l;
  }
  __device__ static unsigned first_lane() { return N == 32 ? 0u : lane() & ~(N - 1); }

  // Shuffles any trivially copyable T as 32-bit words, each with the same pattern.
  template <class T, class F>
  __device__ static T shuffle_words(const T& v, F&& shuffle_one) {
    static_assert(detail::stdx::is_trivially_copyable<T>::value, "tilekit::tile shuffles need a trivially copyable T");
    constexpr unsigned words = (sizeof(T) + 3) / 4;
    unsigned w[words] = {};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (unsigned i = 0; i < words; ++i) w[i] = shuffle_one(w[i]);
    T out = v;  // T need not be default constructible
    memcpy(&out, w, sizeof(T));
    return out;
  }

  template <class T>
  __device__ static auto match_word(const T& v) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "tilekit::tile::match_any / match_all compare 4- or 8-byte values");
    if constexpr (sizeof(T) == 4) return detail::bit_cast<unsigned>(v);
    else return detail::bit_cast<unsigned long long>(v);
  }

  cg::thread_block_tile<N> cg_;
};

/// A thread block. Threads = 0: size known at run time only.
template <unsigned Threads = 0>
class block {
  static_assert(Threads <= 1024, "tilekit::block<Threads>: a thread block has at most 1024 threads");

 public:
  using backend = gpu_backend;
  static constexpr group_level level = group_level::block;
  template <unsigned N>
  using tile_type = tile<N>;

  __device__ block() : cg_(cg::this_thread_block()) {}

  /// Compile-time size (0 when the size is known at run time only).
  static constexpr unsigned static_size = Threads;
  __device__ unsigned num_threads() const { return Threads ? Threads : cg_.num_threads(); }
  __device__ unsigned size() const { return num_threads(); }
  __device__ unsigned thread_rank() const { return cg_.thread_rank(); }
  __device__ dim3 group_index() const { return cg_.group_index(); }
  __device__ dim3 thread_index() const { return cg_.thread_index(); }
  __device__ dim3 dim_threads() const { return cg_.dim_threads(); }
  __device__ void sync() const { cg_.sync(); }
  __device__ const cg::thread_block& cg_group() const { return cg_; }

  /// The tile<N> holding this thread: tiles are consecutive runs of N thread ranks.
  template <unsigned N>
  __device__ tile<N> partition() const { return tile<N>(cg::tiled_partition<N>(cg_)); }

 private:
  cg::thread_block cg_;
};

/// The whole grid. sync() needs a cooperative launch (tilekit::launch_cooperative).
class grid_group {
 public:
  using backend = gpu_backend;
  static constexpr group_level level = group_level::grid;

  __device__ unsigned long long num_blocks() const { return cg::this_grid().num_blocks(); }
  __device__ unsigned long long block_rank() const { return cg::this_grid().block_rank(); }
  __device__ unsigned long long num_threads() const { return cg::this_grid().num_threads(); }
  __device__ unsigned long long thread_rank() const { return cg::this_grid().thread_rank(); }
  __device__ dim3 dim_blocks() const { return cg::this_grid().dim_blocks(); }
  __device__ dim3 block_index() const { return cg::this_grid().block_index(); }
  __device__ void sync() const { cg::this_grid().sync(); }
};

/// The calling thread's block, its size fixed at compile time.
/// @pre blockDim.x * blockDim.y * blockDim.z == Threads.
template <unsigned Threads = 0>
__device__ block<Threads> this_block() {
  return block<Threads>();
}

}  // namespace tilekit
