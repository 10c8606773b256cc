// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The simulator as a test backend: buffers are host vectors, launches run on fibers.
#pragma once
#include <tilekit/sim.cuh>

#include <cstddef>
#include <iterator>
#include <vector>

namespace tk_test {

template <class T>
class host_buffer {
 public:
  explicit host_buffer(const std::vector<T>& init) : v_(init) {}
  host_buffer(std::size_t n, const T& fill) : v_(n, fill) {}
  T* data() { return v_.data(); }
  std::size_t size() const { return v_.size(); }
  void fill(const T& value) { std::fill(v_.begin(), v_.end(), value); }  // e.g. outputs poisoned again between calls
  std::vector<T> to_host() const { return v_; }

 private:
  std::vector<T> v_;
};

/// A pointer-like iterator whose reference is a proxy (as thrust::device_ptr's is),
/// with the iterator typedefs: what the device algorithms must read and write
/// element by element through value_of and the proxy's conversions.
template <class T>
struct proxy_ref {
  T* p;
  operator T() const { return *p; }
  const proxy_ref& operator=(const T& v) const {
    *p = v;
    return *this;
  }
  const proxy_ref& operator=(const proxy_ref& o) const { return *this = T(o); }
};
template <class T>
struct proxy_ptr {
  using value_type = T;
  using reference = proxy_ref<T>;
  using pointer = void;
  using difference_type = std::ptrdiff_t;
  using iterator_category = std::random_access_iterator_tag;
  T* p;
  reference operator*() const { return {p}; }
  reference operator[](std::ptrdiff_t i) const { return {p + i}; }
  proxy_ptr operator+(std::ptrdiff_t i) const { return {p + i}; }
};

struct sim_backend {
  static constexpr const char* name = "sim";
  // Smaller launches than on the GPU: the same cases, less work per case.
  static constexpr unsigned tile_blocks = 3;
  static constexpr unsigned tile_threads = 64;

  using dim3_t = tilekit::sim::dim3;
  template <class T>
  using buffer = host_buffer<T>;

  /// block: a thread count, or 2D/3D extents (thread_rank runs x fastest).
  template <class Body>
  static void run(unsigned grid, tilekit::sim::dim3 block, const Body& body, std::size_t shared_bytes = 0) {
    tilekit::sim::launch(grid, block, body, shared_bytes);
  }
  /// Every block resident at once, as a cooperative launch on the GPU.
  template <class Body>
  static void run_cooperative(dim3_t grid, dim3_t block, const Body& body, std::size_t shared_bytes = 0) {
    tilekit::sim::launch_cooperative(grid, block, body, shared_bytes);
  }
  /// A launch in thread-block clusters of `cluster` blocks (tilekit::sim::launch_cluster).
  template <class Body>
  static void run_cluster(dim3_t grid, dim3_t block, dim3_t cluster, const Body& body, std::size_t shared_bytes = 0) {
    tilekit::sim::launch_cluster(grid, block, cluster, body, shared_bytes);
  }
  /// Block sizes the cluster cases run (fibers are slow: small blocks, a partial warp included).
  static constexpr unsigned cluster_min_threads = 32, cluster_max_threads = 96;
  /// Clusters per grid in the cluster cases: several, fewer of the big ones.
  static unsigned cluster_count(unsigned blocks) { return blocks <= 4 ? 3 : 2; }
  /// Where the device-wide algorithms' dispatch runs its kernels.
  /// Many blocks in flight, so look-back meets tiles that have published only their aggregate.
  static tilekit::sim::launcher launcher() {
    tilekit::sim::launcher l;
    l.opt.resident_blocks = 40;
    l.max_shared = 227u * 1024u;  // the H200's opt-in shared memory per block: the paths the GPU takes
    return l;
  }
  /// A launcher whose dispatch picks the fewest blocks it can (one pretended
  /// multiprocessor): every thread gets more of the work.
  static tilekit::sim::launcher launcher_with_few_blocks() {
    tilekit::sim::launcher l = launcher();
    l.sms = 1;
    return l;
  }
  /// A launcher whose rounds run later blocks ahead of earlier ones (a block that waits
  /// for another polls before that one has written).
  static tilekit::sim::launcher launcher_later_blocks_first() {
    tilekit::sim::launcher l = launcher();
    l.opt.later_blocks_first = true;
    return l;
  }
  /// A launcher of later_blocks_first whose pretended device has sms multiprocessors (grids
  /// of more blocks), 4 blocks of each resident, at most 64 (every block's threads are fibers
  /// with stacks: past that the others wait their turn, as a GPU's blocks past one wave).
  static tilekit::sim::launcher launcher_with_sms(unsigned sms) {
    tilekit::sim::launcher l = launcher_later_blocks_first();
    l.sms = sms;
    l.opt.resident_blocks = 4 * sms < 64 ? 4 * sms : 64;
    return l;
  }
  /// A launcher of launcher_with_sms(sms) whose rounds run the resident blocks in an order
  /// drawn from seed (not 0), a new one each round (options.shuffle_seed).
  static tilekit::sim::launcher launcher_shuffled(unsigned sms, std::uint64_t seed) {
    tilekit::sim::launcher l = launcher_with_sms(sms);
    l.opt.shuffle_seed = seed;
    return l;
  }
  /// A launcher of launcher_with_sms(sms) whose pretended device gives a block at most
  /// `bytes` of shared memory (the dispatch's paths for bins past it, with few bins).
  static tilekit::sim::launcher launcher_with_max_shared(unsigned sms, std::size_t bytes) {
    tilekit::sim::launcher l = launcher_with_sms(sms);
    l.max_shared = bytes;
    return l;
  }
  static constexpr int invalid_value = tilekit::sim::launcher::invalid_value;
  /// Largest inputs of the device-wide cases (fibers are slow).
  /// Whether the device-wide cases run counts past 2^31 and 2^32 (iterator inputs).
  static bool huge_counts() { return false; }
  static std::size_t device_max_items() { return std::size_t(1) << 17; }
  static void sync() {}
  /// The pointer-like iterator the iterator tests pass (see device_iterators.hpp).
  template <class T>
  static proxy_ptr<T> pointer_like(T* p) { return {p}; }
  /// 4-byte counters in the most shared memory a block can have (the H200's 227 KB here too).
  static unsigned max_shared_counters() { return 227u * 1024u / 4u; }
  static unsigned chain_blocks() { return 40; }
  /// Blocks for the chained grid scans: more than resident at once (4 here).
  static unsigned chain_scan_blocks() { return 40; }
  static unsigned cooperative_blocks() { return 6; }
};

}  // namespace tk_test
