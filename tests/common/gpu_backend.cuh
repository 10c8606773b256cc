// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The GPU as a test backend: device buffers, launches through tilekit::launch.
#pragma once
#include <tilekit/tilekit.cuh>

#include <boost/test/unit_test.hpp>

#include <cuda_runtime.h>
#include <thrust/device_ptr.h>

#include <cstdlib>
#include <vector>

#define TK_CUDA_CHECK(call)                                                                           \
  do {                                                                                                \
    const cudaError_t tk_err_ = (call);                                                               \
    if (tk_err_ != cudaSuccess) BOOST_FAIL(#call << " failed: " << cudaGetErrorString(tk_err_));      \
  } while (0)

namespace tk_test {

template <class T>
class device_buffer {
 public:
  explicit device_buffer(const std::vector<T>& init) : n_(init.size()) {
    TK_CUDA_CHECK(cudaMalloc(&p_, bytes()));
    if (n_ > 0) TK_CUDA_CHECK(cudaMemcpy(p_, init.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  device_buffer(std::size_t n, const T& fill) : device_buffer(std::vector<T>(n, fill)) {}
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { cudaFree(p_); }
  T* data() { return p_; }
  std::size_t size() const { return n_; }
  /// Every element set to value (e.g. outputs poisoned again between calls).
  void fill(const T& value) {
    const std::vector<T> h(n_, value);
    if (n_ > 0) TK_CUDA_CHECK(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> to_host() const {
    std::vector<T> h(n_);
    if (n_ > 0) TK_CUDA_CHECK(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  std::size_t bytes() const { return n_ * sizeof(T) + (n_ == 0); }
  std::size_t n_;
  T* p_ = nullptr;
};

/// Runs call(temp, temp_bytes) through CUB's two phases: the size query, then
/// with that much device memory; returns the second call's error.
template <class Call>
cudaError_t two_phase(Call call) {
  std::size_t bytes = 0;
  if (cudaError_t e = call(nullptr, bytes); e != cudaSuccess) return e;
  void* temp = nullptr;
  TK_CUDA_CHECK(cudaMalloc(&temp, bytes));
  const cudaError_t e = call(temp, bytes);
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  TK_CUDA_CHECK(cudaFree(temp));
  return e;
}

struct gpu_backend {
  static constexpr const char* name = "gpu";
  static constexpr unsigned tile_blocks = 40;
  static constexpr unsigned tile_threads = 128;

  using dim3_t = ::dim3;
  template <class T>
  using buffer = device_buffer<T>;

  template <class Body>
  static void run(unsigned grid, dim3 block, const Body& body, std::size_t shared_bytes = 0) {  // block: a count or 2D/3D
    TK_CUDA_CHECK(tilekit::launch(grid, block, 0, body, shared_bytes));
    TK_CUDA_CHECK(cudaDeviceSynchronize());
  }
  template <class Body>
  static void run_cooperative(dim3_t grid, dim3_t block, const Body& body, std::size_t shared_bytes = 0) {
    TK_CUDA_CHECK(tilekit::launch_cooperative(grid, block, 0, body, shared_bytes));
    TK_CUDA_CHECK(cudaDeviceSynchronize());
  }
  /// A launch in thread-block clusters of `cluster` blocks (tilekit::launch_cluster; sm_90).
  template <class Body>
  static void run_cluster(dim3_t grid, dim3_t block, dim3_t cluster, const Body& body, std::size_t shared_bytes = 0) {
    TK_CUDA_CHECK(tilekit::launch_cluster(grid, block, cluster, 0, body, shared_bytes));
    TK_CUDA_CHECK(cudaDeviceSynchronize());
  }
  /// Block sizes the cluster cases run (cases/cluster_level.hpp).
  static constexpr unsigned cluster_min_threads = 64, cluster_max_threads = 1024;
  /// Clusters per grid in the cluster cases (2 under TILEKIT_TEST_SMALL=1: racecheck took
  /// more than 150 s on the H200 over the whole program at 8).
  static unsigned cluster_count(unsigned /*blocks*/) { return small() ? 2 : 8; }
  /// Where the device-wide algorithms' dispatch runs its kernels.
  static tilekit::gpu_launcher launcher() { return {}; }
  /// A launcher whose dispatch picks the fewest blocks it can (the simulator's pretends
  /// one multiprocessor; the GPU's is the GPU): every thread gets more of the work.
  static tilekit::gpu_launcher launcher_with_few_blocks() { return {}; }
  /// The GPU's own schedule (the simulator's counterpart runs later blocks ahead).
  static tilekit::gpu_launcher launcher_later_blocks_first() { return {}; }
  /// The GPU's own multiprocessors (the simulator's counterpart pretends sms of them).
  static tilekit::gpu_launcher launcher_with_sms(unsigned) { return {}; }
  /// The GPU's own schedule (the simulator's counterpart draws the blocks' order each round).
  static tilekit::gpu_launcher launcher_shuffled(unsigned, std::uint64_t) { return {}; }
  /// The simulator's launcher_with_max_shared: the device's own limits here.
  static tilekit::gpu_launcher launcher_with_max_shared(unsigned, std::size_t) { return {}; }
  static constexpr cudaError_t invalid_value = cudaErrorInvalidValue;
  /// TILEKIT_TEST_SMALL=1 (set under compute-sanitizer): smaller device-wide cases.
  static bool small() {
    const char* s = std::getenv("TILEKIT_TEST_SMALL");
    return s && *s == '1';
  }
  /// Whether the device-wide cases run counts past 2^31 and 2^32 (iterator inputs).
  static bool huge_counts() { return !small(); }
  /// Largest inputs of the device-wide cases.
  static std::size_t device_max_items() { return std::size_t(1) << (small() ? 16 : 24); }
  static void sync() { TK_CUDA_CHECK(cudaDeviceSynchronize()); }
  /// The pointer-like iterator the iterator tests pass (see device_iterators.hpp).
  template <class T>
  static thrust::device_ptr<T> pointer_like(T* p) { return thrust::device_pointer_cast(p); }
  /// 4-byte counters in the most shared memory a block can opt in to.
  static unsigned max_shared_counters() {
    int bytes = 0;
    TK_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    return unsigned(bytes) / 4u;
  }
  /// Far more blocks than fit on the GPU at once.
  static unsigned chain_blocks() { return 20000; }
  /// Blocks for the chained grid scans: far more than resident at once (under
  /// TILEKIT_TEST_SMALL=1, for the sanitizers: still enough to pause in the look-back).
  static unsigned chain_scan_blocks() { return small() ? 600 : 20000; }
  /// Two blocks per SM: fits a cooperative launch of 128-thread blocks.
  static unsigned cooperative_blocks() {
    int sms = 0;
    TK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    return 2u * unsigned(sms);
  }
};

}  // namespace tk_test
