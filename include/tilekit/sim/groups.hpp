// tilekit/sim/groups.hpp - the simulator's group types and launch: the same
// members as the GPU's tilekit::tile<N> / tilekit::block<Threads>, built on the
// simulated intrinsics, so algorithm code runs unchanged on the CPU.
#pragma once
#include <tilekit/group_traits.hpp>
#include <tilekit/sim/intrinsics.hpp>

namespace tilekit::sim {

/// Memory operations of simulated threads. One OS thread runs every simulated
/// thread, so each is atomic and sequentially consistent. Each lets the other
/// threads run: after a write (atomics, store_release), before a read
/// (load_acquire), so a spin-wait on a flag makes progress; a spin-wait that
/// can never end is reported as a livelock.
struct backend {
  template <class T>
  static T atomic_add(T* address, T value) {
    const T old = *address;
    *address = static_cast<T>(old + value);
    written();
    return old;
  }
  template <class T>
  static T atomic_cas(T* address, T compare, T value) {
    const T old = *address;
    if (old == compare) *address = value;
    written();
    return old;
  }
  template <class T>
  static T atomic_exch(T* address, T value) {
    const T old = *address;
    *address = value;
    written();
    return old;
  }
  template <class T>
  static T atomic_min(T* address, T value) {
    const T old = *address;
    if (value < old) *address = value;
    written();
    return old;
  }
  template <class T>
  static T atomic_max(T* address, T value) {
    const T old = *address;
    if (old < value) *address = value;
    written();
    return old;
  }
  /// A device-scope acquire load: what a spin-wait polls.
  template <class T>
  static T load_acquire(const T* address) {
    detail::runtime::get().spin_point();
    return *address;
  }
  /// A device-scope relaxed load (polled like load_acquire).
  template <class T>
  static T load_relaxed(const T* address) {
    detail::runtime::get().spin_point();
    return *address;
  }
  /// A device-scope relaxed store.
  template <class T>
  static void store_relaxed(T* address, T value) {
    *address = value;
    written();
  }
  /// Two 64-bit words stored / loaded as one access (a fiber switches only between them).
  static void store_relaxed_pair(unsigned long long* address, unsigned long long first, unsigned long long second) {
    address[0] = first;
    address[1] = second;
    written();
  }
  static void load_relaxed_pair(const unsigned long long* address, unsigned long long& first, unsigned long long& second) {
    detail::runtime::get().spin_point();
    first = address[0];
    second = address[1];
  }
  /// A device-scope release store.
  template <class T>
  static void store_release(T* address, T value) {
    *address = value;
    written();
  }
  /// A device-scope fence (__threadfence).
  static void fence() { detail::runtime::get().yield(); }
  /// Whether p points into the calling block's shared memory.
  static bool is_shared(const void* p) { return detail::runtime::get().is_shared(p); }

 private:
  static void written() {
    detail::runtime& rt = detail::runtime::get();
    rt.note_write();
    rt.yield();
  }
};

template <unsigned N>
class tile {
  static_assert(N == 1 || N == 2 || N == 4 || N == 8 || N == 16 || N == 32,
                "tilekit::sim::tile<N>: N must be 1, 2, 4, 8, 16 or 32 (a power-of-two part of one warp)");

 public:
  using backend = sim::backend;
  static constexpr group_level level = group_level::tile;

  explicit tile(unsigned block_threads) : block_threads_(block_threads) {}

  static constexpr unsigned size() { return N; }
  static constexpr unsigned num_threads() { return N; }
  unsigned thread_rank() const { return lane_id() & (N - 1); }
  unsigned meta_group_rank() const { return (warp_id() * 32 + lane_id()) / N; }
  unsigned meta_group_size() const { return (block_threads_ + N - 1) / N; }
  unsigned lane_mask() const { return N == 32 ? ~0u : ((1u << N) - 1u) << first_lane(); }

  void sync() const { syncwarp(lane_mask()); }

  template <class T>
  T shfl(const T& v, unsigned src) const { return shfl_sync(lane_mask(), v, static_cast<int>(src), N); }
  template <class T>
  T shfl_up(const T& v, unsigned delta) const { return shfl_up_sync(lane_mask(), v, delta, N); }
  template <class T>
  T shfl_down(const T& v, unsigned delta) const { return shfl_down_sync(lane_mask(), v, delta, N); }
  template <class T>
  T shfl_xor(const T& v, unsigned mask) const { return shfl_xor_sync(lane_mask(), v, static_cast<int>(mask), N); }

  unsigned ballot(bool p) const { return ballot_sync(lane_mask(), p) >> first_lane(); }
  bool any(bool p) const { return any_sync(lane_mask(), p) != 0; }
  bool all(bool p) const { return all_sync(lane_mask(), p) != 0; }

  template <class T>
  unsigned match_any(const T& v) const {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "tilekit::tile::match_any / match_all compare 4- or 8-byte values");
    return match_any_sync(lane_mask(), v) >> first_lane();
  }
  template <class T>
  unsigned match_all(const T& v, bool& pred) const {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "tilekit::tile::match_any / match_all compare 4- or 8-byte values");
    int p = 0;
    const unsigned m = match_all_sync(lane_mask(), v, &p);
    pred = p != 0;
    return m >> first_lane();
  }

  static constexpr bool has_hardware_reduce = true;
  template <builtin_op Op, class T>
  T hardware_reduce(T v) const {
    static_assert(sizeof(T) == 4 && std::is_integral_v<T>, "hardware_reduce: 32-bit integers only");
    const unsigned m = lane_mask();
    if constexpr (Op == builtin_op::sum) return reduce_add_sync(m, v);
    else if constexpr (Op == builtin_op::min) return reduce_min_sync(m, v);
    else if constexpr (Op == builtin_op::max) return reduce_max_sync(m, v);
    else if constexpr (Op == builtin_op::bit_and) return static_cast<T>(reduce_and_sync(m, static_cast<unsigned>(v)));
    else if constexpr (Op == builtin_op::bit_or) return static_cast<T>(reduce_or_sync(m, static_cast<unsigned>(v)));
    else return static_cast<T>(reduce_xor_sync(m, static_cast<unsigned>(v)));
  }

 private:
  static unsigned first_lane() { return N == 32 ? 0u : lane_id() & ~(N - 1); }
  unsigned block_threads_;
};

/// A simulated thread block. Threads = 0: size known at run time only.
template <unsigned Threads = 0>
class block {
  static_assert(Threads <= 1024, "tilekit::sim::block<Threads>: a thread block has at most 1024 threads");

 public:
  using backend = sim::backend;
  static constexpr group_level level = group_level::block;
  template <unsigned N>
  using tile_type = tile<N>;

  block() : t_(&detail::runtime::get().self()) {
    const unsigned n = detail::runtime::get().block_threads();
    if (Threads != 0 && n != Threads)
      throw error("tilekit::sim: block<" + std::to_string(Threads) + "> used in a launch of " + std::to_string(n) +
                  " threads per block");
  }

  static constexpr unsigned static_size = Threads;
  unsigned num_threads() const { return Threads ? Threads : detail::runtime::get().block_threads(); }
  unsigned size() const { return num_threads(); }
  unsigned thread_rank() const { return t_->rank; }
  dim3 group_index() const { return t_->blk->index; }
  dim3 thread_index() const { return t_->index; }
  dim3 dim_threads() const { return detail::runtime::get().block_dim(); }
  void sync() const { detail::runtime::get().barrier(); }

  template <unsigned N>
  tile<N> partition() const { return tile<N>(num_threads()); }

 private:
  const detail::sim_thread* t_;
};

/// The whole grid: ranks, sizes, and sync() (which needs every block resident,
/// as a cooperative launch does on the GPU: options.resident_blocks >= blocks).
class grid_group {
 public:
  using backend = sim::backend;
  static constexpr group_level level = group_level::grid;

  std::uint64_t num_blocks() const { return rt().grid_dim().count(); }
  std::uint64_t block_rank() const { return rt().self().blk->linear; }
  std::uint64_t num_threads() const { return num_blocks() * rt().block_threads(); }
  std::uint64_t thread_rank() const { return block_rank() * rt().block_threads() + rt().self().rank; }
  dim3 dim_blocks() const { return rt().grid_dim(); }
  dim3 block_index() const { return rt().self().blk->index; }
  void sync() const { rt().grid_barrier(); }

 private:
  static detail::runtime& rt() { return detail::runtime::get(); }
};

/// What a kernel body sees of its launch in the simulator.
class context {
 public:
  sim::block<> block() const { return sim::block<>(); }
  template <unsigned Threads>
  sim::block<Threads> block() const { return sim::block<Threads>(); }
  grid_group grid() const { return grid_group(); }

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

/// Runs body(ctx) once per simulated thread of grid x block; returns when every
/// thread has finished. Misuse raises tilekit::sim::error.
template <class Body>
void launch(dim3 grid, dim3 block, Body&& body, const options& opt) {
  detail::runtime rt(grid, block, opt, [&body](detail::sim_thread&) {
    context ctx;
    body(ctx);
  });
  rt.run();
}

template <class Body>
void launch(dim3 grid, dim3 block, Body&& body, std::size_t shared_bytes = 0) {
  options opt;
  opt.shared_bytes = shared_bytes;
  launch(grid, block, std::forward<Body>(body), opt);
}

/// The simulator's counterpart of tilekit::gpu_launcher: the device-wide
/// algorithms' dispatch code runs its kernels here, on host memory.
struct launcher {
  using error_type = int;
  static constexpr int success = 0;
  static constexpr int invalid_value = 1;  // what cudaErrorInvalidValue is on the GPU
  unsigned sms = 4;                        // the pretended device's multiprocessor count
  options opt{};

  std::size_t max_shared = 48 * 1024;      // the pretended device's shared memory per block

  unsigned sm_count() const { return sms; }
  std::size_t max_shared_bytes() const { return max_shared; }
  template <class Body>
  int run(unsigned grid, unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    options o = opt;
    o.shared_bytes = shared_bytes;
    launch(dim3(grid), dim3(block), body, o);
    return success;
  }
  int zero(void* p, std::size_t bytes) const {
    std::memset(p, 0, bytes);
    return success;
  }
};

}  // namespace tilekit::sim
