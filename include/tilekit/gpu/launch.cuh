// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/gpu/launch.cuh - run one kernel body on the GPU in the same shape the
// simulator runs it (tilekit::sim::launch):
//
//   struct body {
//     template <class Ctx> TILEKIT_HD void operator()(Ctx& ctx) const {
//       auto warp = tilekit::tiled_partition<32>(ctx.block());
//       ...
//     }
//   };
//   tilekit::launch(grid, block, stream, body{...}, shared_bytes);   // GPU
//   tilekit::sim::launch(grid, block, body{...}, shared_bytes);      // CPU
//   tilekit::launch_cluster(grid, block, cluster, stream, body{...}, shared_bytes);  // sm_90 clusters
//
// The body is called once per thread with a context: ctx.block() is the block
// group, ctx.shared<T>() the block's dynamic shared memory viewed as a T,
// ctx.shared_array<T>(count) as an array of count T.
#pragma once
#include <tilekit/gpu/groups.cuh>

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExtMemCudaRt.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace tilekit {

/// What a kernel body sees of its launch on the GPU: Launch is how it was launched
/// (launch: ordinary, launch_cooperative: cooperative), which grid() reports.
template <grid_launch Launch>
class gpu_context {
 public:
  /// The calling thread's block, its size known at run time only.
  __device__ block<> block() const { return tilekit::block<>(); }
  /// The calling thread's block, its size fixed at compile time.
  /// @pre the launch's blocks have Threads threads.
  template <unsigned Threads>
  __device__ tilekit::block<Threads> block() const { return tilekit::block<Threads>(); }
  /// The whole grid, as launched: under launch_cooperative every grid algorithm and
  /// sync(); under launch the chained ones only (the others do not compile).
  __device__ basic_grid<gpu_backend, Launch> grid() const { return basic_grid<gpu_backend, Launch>(); }
  /// The calling thread's cluster of Blocks blocks of Threads threads.
  /// @pre launched by launch_cluster with clusters of Blocks blocks (sm_90).
  template <unsigned Blocks, unsigned Threads>
  __device__ tilekit::cluster<Blocks, Threads> cluster() const { return tilekit::cluster<Blocks, Threads>(); }

  /// The dynamic shared memory of this block as a T (16-byte aligned).
  /// @pre the launch asked for at least sizeof(T) bytes of shared memory.
  template <class T>
  __device__ T& shared() const {
    return *shared_array<T>(1);
  }
  /// The dynamic shared memory of this block as an array of count T (16-byte aligned).
  /// @pre the launch asked for at least count * sizeof(T) bytes of shared memory.
  template <class T>
  __device__ T* shared_array(std::size_t /*count*/) const {
    extern __shared__ __align__(16) unsigned char tilekit_dynamic_shared[];
    return reinterpret_cast<T*>(tilekit_dynamic_shared);
  }
};

namespace detail {
// A body may declare `static constexpr unsigned Threads, MinBlocksPerSM`: its kernel is
// then compiled for exactly that block size, with registers for that many blocks per
// SM (more than the 64 a 1024-thread bound leaves). Other bodies launch with any size.
template <class Body, class = void>
struct launch_bounds_of {
  static constexpr unsigned threads = 1024, min_blocks = 1;
};
template <class Body>
struct launch_bounds_of<Body, decltype(void(Body::MinBlocksPerSM))> {
  static constexpr unsigned threads = Body::Threads, min_blocks = Body::MinBlocksPerSM;
};

template <class Body, grid_launch Launch>
__global__ void __launch_bounds__(launch_bounds_of<Body>::threads, launch_bounds_of<Body>::min_blocks)
    body_kernel(Body body) {
  gpu_context<Launch> ctx;
  body(ctx);
}

// Above 48 KiB a kernel must opt in to its dynamic shared memory.
template <class Body, grid_launch Launch>
cudaError_t allow_shared_bytes(std::size_t shared_bytes) {
  if (shared_bytes <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(body_kernel<Body, Launch>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(shared_bytes));
}
// Lets body's kernel run in clusters of more than 8 blocks (cudaFuncAttributeNonPortableClusterSizeAllowed),
// once a device (the first 64; others every time): set on every launch it cost each launch a driver
// call, 0.4 us of the host's 3.2 a device reduce (H100). A cluster of 16 still launched after a
// cudaDeviceReset with the bit kept (perf/results/2026-12-06-23-wide-cluster).
template <class Body>
cudaError_t allow_non_portable_clusters() {
  static std::atomic<unsigned long long> allowed{0};  // bit d: set on device d
  int device = -1;
  const bool known = cudaGetDevice(&device) == cudaSuccess && device >= 0 && device < 64;
  if (known && ((allowed.load(std::memory_order_relaxed) >> device) & 1u)) return cudaSuccess;
  const cudaError_t e = cudaFuncSetAttribute(&body_kernel<Body, grid_launch::ordinary>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (e == cudaSuccess && known) allowed.fetch_or(1ull << device, std::memory_order_relaxed);
  return e;
}
// An ordinary launch of body with launch attributes (cudaLaunchKernelEx): the cluster shape
// of launch_cluster, the dependent launch of gpu_launcher::zero_then_run, or both.
template <class Body, std::size_t Count>
cudaError_t launch_with(const cudaLaunchAttribute (&attributes)[Count], dim3 grid, dim3 block, cudaStream_t stream,
                        const Body& body, std::size_t shared_bytes) {
  if (cudaError_t e = allow_shared_bytes<Body, grid_launch::ordinary>(shared_bytes); e != cudaSuccess) return e;
  cudaLaunchAttribute copy[Count];
  for (std::size_t i = 0; i < Count; ++i) copy[i] = attributes[i];
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = copy;
  config.numAttrs = unsigned(Count);
  return cudaLaunchKernelEx(&config, &body_kernel<Body, grid_launch::ordinary>, body);
}
template <class Body>
cudaError_t launch_with(const cudaLaunchAttribute& attribute, dim3 grid, dim3 block, cudaStream_t stream,
                        const Body& body, std::size_t shared_bytes) {
  const cudaLaunchAttribute attributes[1] = {attribute};
  return launch_with(attributes, grid, block, stream, body, shared_bytes);
}
// Whether this thread's calls run on storage a graph being captured allocated (an allocating
// form's, set by graph_storage_scope around its call): no memory is behind it until the graph
// runs, so gpu_launcher::assume_initialized marks nothing (nvtxMemCudaMarkInitialized fails there).
inline bool& graph_storage() {
  thread_local bool on = false;
  return on;
}
struct graph_storage_scope {
  bool before;
  explicit graph_storage_scope(bool on) : before(graph_storage()) { graph_storage() = on; }
  graph_storage_scope(const graph_storage_scope&) = delete;
  graph_storage_scope& operator=(const graph_storage_scope&) = delete;
  ~graph_storage_scope() { graph_storage() = before; }
};

// The attribute of a programmatic dependent launch (gpu_launcher::zero_then_run's overlap).
inline cudaLaunchAttribute dependent_launch_attribute() {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  return attribute;
}
// The attribute of a launch in clusters of shape `cluster`.
inline cudaLaunchAttribute cluster_attribute(dim3 cluster) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster.x;
  attribute.val.clusterDim.y = cluster.y;
  attribute.val.clusterDim.z = cluster.z;
  return attribute;
}
}  // namespace detail

/// The `__global__` function that launch (Launch = ordinary) or launch_cooperative
/// (cooperative) runs body on, for the CUDA runtime's queries
/// (cudaOccupancyMaxActiveBlocksPerMultiprocessor, cudaFuncGetAttributes, ...).
template <class Body, grid_launch Launch = grid_launch::ordinary>
auto kernel_of() -> void (*)(Body) {
  return &detail::body_kernel<Body, Launch>;
}

/// Launches body on grid x block threads in stream with shared_bytes of dynamic
/// shared memory; returns the launch's error (cudaSuccess if it was queued).
template <class Body>
cudaError_t launch(dim3 grid, dim3 block, cudaStream_t stream, const Body& body, std::size_t shared_bytes = 0) {
  if (cudaError_t e = detail::allow_shared_bytes<Body, grid_launch::ordinary>(shared_bytes); e != cudaSuccess)
    return e;
  // cudaLaunchKernel returns this launch's own error; cudaGetLastError after <<<>>>
  // would also return an earlier, unrelated failure of the calling thread.
  void* args[] = {const_cast<Body*>(&body)};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&detail::body_kernel<Body, grid_launch::ordinary>), grid, block, args, shared_bytes,
                          stream);
}

/// As launch, as a cooperative launch: every block resident at once, so the body's
/// ctx.grid() has sync() and every grid algorithm. Fails (cudaErrorCooperativeLaunchTooLarge)
/// when the grid does not fit on the device at once.
template <class Body>
cudaError_t launch_cooperative(dim3 grid, dim3 block, cudaStream_t stream, const Body& body,
                               std::size_t shared_bytes = 0) {
  if (cudaError_t e = detail::allow_shared_bytes<Body, grid_launch::cooperative>(shared_bytes); e != cudaSuccess)
    return e;
  void* args[] = {const_cast<Body*>(&body)};
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&detail::body_kernel<Body, grid_launch::cooperative>), grid, block, args,
                                     shared_bytes, stream);
}

/// As launch, in thread-block clusters of cluster blocks (sm_90): the blocks of a
/// cluster run at once, and the body's ctx.cluster<Blocks, Threads>() addresses their
/// shared memory and meets at cluster.sync(). Clusters of more than 8 blocks get the
/// kernel's non-portable cluster size allowed first (sm_90: up to 16). Returns
/// cudaErrorInvalidValue, launching nothing, when a cluster extent is 0 or does not
/// divide the grid's, or the cluster has more than 16 blocks; otherwise the launch's error.
template <class Body>
cudaError_t launch_cluster(dim3 grid, dim3 block, dim3 cluster, cudaStream_t stream, const Body& body,
                           std::size_t shared_bytes = 0) {
  const unsigned long long blocks = 1ull * cluster.x * cluster.y * cluster.z;
  if (blocks == 0 || blocks > 16 || grid.x % cluster.x != 0 || grid.y % cluster.y != 0 || grid.z % cluster.z != 0)
    return cudaErrorInvalidValue;
  if (blocks > 8)
    if (cudaError_t e = detail::allow_non_portable_clusters<Body>(); e != cudaSuccess) return e;
  return detail::launch_with(detail::cluster_attribute(cluster), grid, block, stream, body, shared_bytes);
}

namespace detail {
// The zeroing kernel of gpu_launcher::zero_then_run: in each of Ranges ranges, words[r]
// 4-byte words at p[r] and tail[r] bytes after them set to 0, a grid-stride loop; it
// first lets the kernel after it start.
template <std::size_t Ranges>
struct zero_words {
  unsigned* p[Ranges];
  std::size_t words[Ranges], tail[Ranges];
  template <class Ctx>
  __device__ void operator()(Ctx&) const {
    gpu_backend::allow_next_grid();
    const std::size_t stride = std::size_t(gridDim.x) * blockDim.x, first = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    for (std::size_t r = 0; r < Ranges; ++r) {
      for (std::size_t i = first; i < words[r]; i += stride) p[r][i] = 0u;
      if (blockIdx.x == 0 && threadIdx.x < tail[r]) reinterpret_cast<unsigned char*>(p[r] + words[r])[threadIdx.x] = 0;
    }
  }
};

// An attribute of the current device, asked of the runtime once per device and process
// (the dispatch asks on every call, where a small input's whole time is a few
// microseconds); 0 if it cannot be queried.
template <cudaDeviceAttr Attribute>
unsigned device_attribute() {
  constexpr int cached_devices = 64;
  static std::atomic<unsigned> cache[cached_devices] = {};  // 0: not asked yet
  int device = 0, value = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 0;
  const bool cacheable = device >= 0 && device < cached_devices;
  if (cacheable)
    if (const unsigned known = cache[device].load(std::memory_order_relaxed)) return known;
  if (cudaDeviceGetAttribute(&value, Attribute, device) != cudaSuccess || value <= 0) return 0;
  if (cacheable) cache[device].store(static_cast<unsigned>(value), std::memory_order_relaxed);
  return static_cast<unsigned>(value);
}
}  // namespace detail

/// Where the device-wide algorithms run their kernels on the GPU: a stream of the
/// current device. The simulator has the same shape (tilekit::sim::launcher), so the
/// dispatch code of a device-wide algorithm is written once.
struct gpu_launcher {
  /// The error type of run, zero and the device-wide dispatches run through this launcher.
  using error_type = cudaError_t;
  /// What run and zero return when they succeed.
  static constexpr cudaError_t success = cudaSuccess;
  /// What a device-wide dispatch returns, writing nothing, for arguments it rejects.
  static constexpr cudaError_t invalid_value = cudaErrorInvalidValue;
  /// Where every kernel and memset is queued (0: the default stream).
  cudaStream_t stream = 0;

  /// Streaming multiprocessors of the current device (0 if it cannot be queried).
  unsigned sm_count() const { return detail::device_attribute<cudaDevAttrMultiProcessorCount>(); }
  /// The most dynamic shared memory one block may opt in to (0 if it cannot be queried).
  std::size_t max_shared_bytes() const { return detail::device_attribute<cudaDevAttrMaxSharedMemoryPerBlockOptin>(); }
  /// Launches body on grid x block threads in stream with shared_bytes of dynamic shared
  /// memory (tilekit::launch); returns the launch's error.
  template <class Body>
  cudaError_t run(unsigned grid, unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    return launch(dim3(grid), dim3(block), stream, body, shared_bytes);
  }
  /// As run, as a cooperative launch (tilekit::launch_cooperative): every block resident at
  /// once, so body's ctx.grid() has sync(). @pre the grid fits the device at once.
  template <class Body>
  cudaError_t run_cooperative(unsigned grid, unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    return launch_cooperative(dim3(grid), dim3(block), stream, body, shared_bytes);
  }
  /// Whether the device has thread-block clusters (sm_90 and later): what run_cluster needs.
  bool has_clusters() const { return detail::device_attribute<cudaDevAttrComputeCapabilityMajor>() >= 9; }
  /// Launches body on grid blocks of block threads in clusters of cluster blocks
  /// (tilekit::launch_cluster); returns the launch's error. @pre has_clusters().
  template <class Body>
  cudaError_t run_cluster(unsigned grid, unsigned cluster, unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    return launch_cluster(dim3(grid), dim3(block), dim3(cluster), stream, body, shared_bytes);
  }
  /// How many clusters of `cluster` blocks of body (block threads, shared_bytes of dynamic
  /// shared memory each) the current device runs at once (cudaOccupancyMaxActiveClusters,
  /// asked once per device for the last shape asked); 0 if it cannot be queried.
  template <class Body>
  unsigned max_clusters(const Body&, unsigned cluster, unsigned block, std::size_t shared_bytes) const {
    constexpr int cached_devices = 64;
    static std::atomic<unsigned long long> cache[cached_devices] = {};  // the shape (high 40 bits), then clusters + 1
    int device = 0;
    if (!has_clusters() || cluster == 0 || cluster > 16 || block > 1024 || shared_bytes >= (1u << 24) ||
        cudaGetDevice(&device) != cudaSuccess)
      return 0;
    const unsigned long long shape = (((unsigned long long)shared_bytes << 16) | (block << 5) | cluster) << 24;
    const bool cacheable = device >= 0 && device < cached_devices;
    if (cacheable)
      if (const unsigned long long known = cache[device].load(std::memory_order_relaxed); (known >> 24) << 24 == shape && known != 0)
        return unsigned(known & 0xFFFFFFu) - 1;
    if (detail::allow_shared_bytes<Body, grid_launch::ordinary>(shared_bytes) != cudaSuccess) return 0;
    if (cluster > 8 && detail::allow_non_portable_clusters<Body>() != cudaSuccess) return 0;
    const cudaLaunchAttribute attribute = detail::cluster_attribute(dim3(cluster));
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(cluster);
    config.blockDim = dim3(block);
    config.dynamicSmemBytes = shared_bytes;
    config.attrs = const_cast<cudaLaunchAttribute*>(&attribute);
    config.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, &detail::body_kernel<Body, grid_launch::ordinary>, &config) != cudaSuccess ||
        clusters <= 0) {
      (void)cudaGetLastError();  // the query's error is not the caller's
      return 0;
    }
    if (cacheable && unsigned(clusters) < 0xFFFFFFu) cache[device].store(shape | (unsigned(clusters) + 1), std::memory_order_relaxed);
    return unsigned(clusters);
  }
  /// As zero_then_run with overlap, the kernel in clusters of `cluster` blocks (launch_cluster): the
  /// dependent launch and the cluster shape are both its launch's attributes. @pre has_clusters();
  /// cluster divides grid.
  template <class Body>
  cudaError_t zero_then_run_cluster(void* p, std::size_t bytes, unsigned grid, unsigned cluster, unsigned block,
                                    const Body& body, std::size_t shared_bytes = 0) const {
    if (cluster == 0 || cluster > 8 || grid % cluster != 0) return cudaErrorInvalidValue;
    if (reinterpret_cast<std::uintptr_t>(p) % 4 != 0) {
      if (cudaError_t e = zero(p, bytes); e != cudaSuccess) return e;
      return run_cluster(grid, cluster, block, body, shared_bytes);
    }
    if (cudaError_t e = zero_kernel<1>({p}, {bytes}); e != cudaSuccess) return e;
    const cudaLaunchAttribute attributes[2] = {detail::cluster_attribute(dim3(cluster)), detail::dependent_launch_attribute()};
    return detail::launch_with(attributes, dim3(grid), dim3(block), stream, body, shared_bytes);
  }
  /// Zeroes bytes bytes at p in stream (`cudaMemsetAsync`); returns its error.
  cudaError_t zero(void* p, std::size_t bytes) const { return cudaMemsetAsync(p, 0, bytes, stream); }
  /// Zeroes bytes bytes at p, then runs body as run does; returns the first error. With
  /// overlap (on sm_90+) the zeroing is a kernel that lets body's kernel start before it
  /// ends (a programmatic dependent launch): body's launch latency hides behind the
  /// zeroing, which pays for large grids and for kernels with much shared memory, while
  /// a small grid starts sooner after a memset (measured on the H200:
  /// perf/results/2026-12-02-h200-dependent-launch). body must call its backend's
  /// wait_for_prior_grid() before it touches the bytes at p; it may read other memory
  /// before (every kernel before the zeroing has finished when body's kernel starts).
  template <class Body>
  cudaError_t zero_then_run(void* p, std::size_t bytes, bool overlap, unsigned grid, unsigned block, const Body& body,
                            std::size_t shared_bytes = 0) const {
    if (!overlap || reinterpret_cast<std::uintptr_t>(p) % 4 != 0 ||
        detail::device_attribute<cudaDevAttrComputeCapabilityMajor>() < 9) {
      if (cudaError_t e = zero(p, bytes); e != cudaSuccess) return e;
      return run(grid, block, body, shared_bytes);
    }
    if (cudaError_t e = zero_kernel<1>({p}, {bytes}); e != cudaSuccess) return e;
    return detail::launch_with(detail::dependent_launch_attribute(), dim3(grid), dim3(block), stream, body, shared_bytes);
  }
  /// As zero_then_run, zeroing Ranges ranges (bytes[r] bytes at ps[r]) where the one
  /// zeroes one: where they are all 4-byte aligned on sm_90+, in one kernel for all (a
  /// dependent launch of body's kernel after it with overlap), else one memset each.
  template <std::size_t Ranges, class Body>
  cudaError_t zero_then_run(void* const (&ps)[Ranges], const std::size_t (&bytes)[Ranges], bool overlap, unsigned grid,
                            unsigned block, const Body& body, std::size_t shared_bytes = 0) const {
    bool aligned = detail::device_attribute<cudaDevAttrComputeCapabilityMajor>() >= 9;
    for (std::size_t r = 0; r < Ranges; ++r) aligned = aligned && reinterpret_cast<std::uintptr_t>(ps[r]) % 4 == 0;
    if (!aligned) {
      for (std::size_t r = 0; r < Ranges; ++r)
        if (cudaError_t e = zero(ps[r], bytes[r]); e != cudaSuccess) return e;
      return run(grid, block, body, shared_bytes);
    }
    if (cudaError_t e = zero_kernel<Ranges>(ps, bytes); e != cudaSuccess) return e;
    if (!overlap) return run(grid, block, body, shared_bytes);
    return detail::launch_with(detail::dependent_launch_attribute(), dim3(grid), dim3(block), stream, body, shared_bytes);
  }
  /// The zeroing kernel of zero_then_run (detail::zero_words; nothing where every range is
  /// empty). @pre every ps[r] 4-byte aligned.
  template <std::size_t Ranges>
  cudaError_t zero_kernel(void* const (&ps)[Ranges], const std::size_t (&bytes)[Ranges]) const {
    detail::zero_words<Ranges> body{};
    std::size_t most = 0;
    for (std::size_t r = 0; r < Ranges; ++r) {
      body.p[r] = static_cast<unsigned*>(ps[r]);
      body.words[r] = bytes[r] / 4;
      body.tail[r] = bytes[r] % 4;
      most = bytes[r] > most ? bytes[r] : most;
    }
    if (most == 0) return cudaSuccess;
    const std::size_t threads = 256, per_block = threads * 16;
    const std::size_t blocks = (most / 4 + per_block - 1) / per_block;
    return launch(dim3(unsigned(blocks == 0 ? 1 : blocks < 65535 ? blocks : 65535)), dim3(unsigned(threads)), stream, body);
  }
  /// Declares bytes bytes at p initialised in stream for compute-sanitizer's initcheck
  /// (NVTX's nvtxMemCudaMarkInitialized; run initcheck with --nvtx yes): storage a kernel
  /// reads before writing where any content is valid. A no-op without a tool attached.
  void assume_initialized(void* p, std::size_t bytes) const {
    if (detail::graph_storage()) return;  // (nothing to mark yet; the tool would report the call as failed)
    static const nvtxDomainHandle_t domain = nvtxDomainCreateA("tilekit");
    nvtxMemVirtualRangeDesc_t range{};
    range.size = bytes;
    range.ptr = p;
    nvtxMemMarkInitializedBatch_t desc{};
    desc.extCompatID = NVTX_EXT_COMPATID_MEM;
    desc.structSize = sizeof(desc);
    desc.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    desc.regionDescCount = 1;
    desc.regionDescElementSize = sizeof(range);
    desc.regionDescElements = &range;
    nvtxMemCudaMarkInitialized(domain, stream, 0, &desc);
  }
};

}  // namespace tilekit
