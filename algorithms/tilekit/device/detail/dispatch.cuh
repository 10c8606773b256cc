// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/detail/dispatch.cuh - what every device-level dispatch shares:
// the temporary storage carved from one caller-provided buffer (CUB's two-phase
// protocol), and on the GPU the calls that allocate it in the stream.
#pragma once
#include <tilekit/core/iterator.hpp>

#include <atomic>
#include <cstdint>
#include <chrono>
#include <random>

#if defined(__CUDACC__)
#  include <tilekit/gpu/launch.cuh>
#  include <cuda.h>  // (types only: the driver's calls are looked up through the runtime)
#  include <cuda_runtime.h>

#  include <cstdint>
#  include <map>
#  include <mutex>
#endif

namespace tilekit::detail {

/// Carves 256-byte aligned pieces out of one temporary-storage buffer of any alignment
/// (as CUB: the pieces start at the buffer's first 256-byte boundary, and the size counts
/// the 255 bytes that may take); with a null base it only adds up the bytes needed (the
/// size query of the two-phase protocol).
class temp_carver {
 public:
  static constexpr std::size_t alignment = 256;  // every piece aligned as cudaMalloc's memory
  static constexpr std::size_t most = ~std::size_t(0) - 2 * alignment;  // used bytes past it: saturated (bytes() is SIZE_MAX)
  explicit TILEKIT_HD temp_carver(void* base)
      : base_(static_cast<unsigned char*>(base)),
        skip_(base ? (alignment - reinterpret_cast<std::uintptr_t>(base) % alignment) % alignment : 0) {}
  template <class T>
  TILEKIT_HD T* take(std::size_t count) {
    used_ = used_ >= most ? most : (used_ + alignment - 1) / alignment * alignment;
    T* p = base_ ? reinterpret_cast<T*>(base_ + skip_ + used_) : nullptr;
    used_ = count > (most - used_) / sizeof(T) ? most : used_ + count * sizeof(T);
    return p;
  }
  /// The bytes the buffer must have: the pieces and room to align them (1 where there are none;
  /// SIZE_MAX where they do not fit a size_t, which no buffer has).
  TILEKIT_HD std::size_t bytes() const { return used_ >= most ? ~std::size_t(0) : used_ > 0 ? used_ + alignment - 1 : 1; }

 private:
  unsigned char* base_;
  std::size_t skip_;  // from base_ to its first 256-byte boundary
  std::size_t used_ = 0;
};

/// A tag for one call of a kernel that publishes beside it in uninitialised temporary
/// storage: a process-wide counter mixed by mix64 (splitmix64's finaliser) with a random number drawn once per
/// process, so that stale slots from another call or process do not match; never 0 (what
/// such kernels clear their slots to).
inline unsigned long long next_call_tag() {
  static const unsigned long long salt = [] {
    unsigned long long x = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
    try {
      std::random_device device;
      x ^= (static_cast<unsigned long long>(device()) << 32) ^ device();
    } catch (...) {  // no entropy source: the clock alone
    }
    return x;
  }();
  static std::atomic<unsigned long long> calls{0};
  const unsigned long long x = mix64(salt + 0x9e3779b97f4a7c15ull * (calls.fetch_add(1, std::memory_order_relaxed) + 1));
  return x != 0 ? x : 1;
}

}  // namespace tilekit::detail

#if defined(__CUDACC__)
namespace tilekit::device::detail {

/// Bytes of temporary storage the allocating forms' pool keeps reserved between calls
/// (larger allocations go back to the device when the stream synchronises).
inline constexpr std::uint64_t pool_keeps_bytes = std::uint64_t(64) << 20;

/// The id of the calling thread's current CUDA context (the driver's cuCtxGetId: unique for
/// the process's life, so the context the runtime makes after a cudaDeviceReset has another),
/// or 0 where there is none or the driver cannot tell. The allocating forms key their pool and
/// their kept storage by it: a reset frees both.
inline unsigned long long context_id() {
  struct calls {
    decltype(&cuCtxGetCurrent) current = nullptr;
    decltype(&cuCtxGetId) id = nullptr;
  };
  static const calls driver = [] {
    calls c;
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &p, 12000, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
      c.current = reinterpret_cast<decltype(&cuCtxGetCurrent)>(p);
    if (cudaGetDriverEntryPointByVersion("cuCtxGetId", &p, 12000, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
      c.id = reinterpret_cast<decltype(&cuCtxGetId)>(p);
    (void)cudaGetLastError();
    return c;
  }();
  CUcontext context = nullptr;
  unsigned long long id = 0;
  if (driver.current == nullptr || driver.id == nullptr || driver.current(&context) != CUDA_SUCCESS || context == nullptr ||
      driver.id(context, &id) != CUDA_SUCCESS)
    return 0;
  return id;
}

/// The current device's memory pool for the allocating forms: its own (the device's
/// default pool is the application's, and keeps nothing across a synchronisation by
/// default, so each call would map memory again), created on first use in each context
/// (context_id; a cudaDeviceReset destroys it), kept for the context's life. Null where the
/// device has no memory pools or the context is unknown (then cudaMallocAsync's default).
inline cudaMemPool_t temp_pool() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return nullptr;
  const unsigned long long context = context_id();
  if (context == 0) return nullptr;
  static std::mutex guard;
  static std::map<unsigned long long, cudaMemPool_t> pools;  // (by context: one device each)
  std::lock_guard<std::mutex> lock(guard);
  if (auto it = pools.find(context); it != pools.end()) return it->second;
  cudaMemPool_t pool = nullptr;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  std::uint64_t keep = pool_keeps_bytes;
  if (cudaMemPoolCreate(&pool, &props) != cudaSuccess ||
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
    if (pool != nullptr) (void)cudaMemPoolDestroy(pool);
    (void)cudaGetLastError();  // memory pools unsupported: fall back, and leave no error behind
    pool = nullptr;
  }
  pools.emplace(context, pool);
  return pool;
}

/// bytes of storage from temp_pool() (or cudaMallocAsync's default pool) in the stream.
inline cudaError_t temp_malloc(void** ptr, std::size_t bytes, cudaStream_t stream) {
  const cudaMemPool_t pool = temp_pool();
  return pool != nullptr ? cudaMallocFromPoolAsync(ptr, bytes, pool, stream) : cudaMallocAsync(ptr, bytes, stream);
}

/// The allocating forms' storage of calls that need at most kept_temp_bytes: kept per host
/// thread, device and stream (up to kept_temp_streams streams a thread) for the next such call
/// on the stream, which the stream runs after every earlier one, so no call allocates; 0.8 us
/// less a call on an idle H100 than taking it from the pool (perf/results/2026-12-07-34-kept-temp).
/// Streams are told apart by cudaStreamGetId (unique for the program's life: a destroyed stream's
/// handle reused is another stream), contexts by context_id (storage of a context that
/// cudaDeviceReset destroyed went with it; its slot is taken where none is free). A thread's storage
/// goes back when it exits, after the device's work (cudaDeviceSynchronize).
inline constexpr std::size_t kept_temp_bytes = std::size_t(1) << 20;
inline constexpr unsigned kept_temp_streams = 4;
inline constexpr std::size_t kept_temp_least = std::size_t(64) << 10;  // the smallest kept: small calls share it

struct kept_temp {
  unsigned long long stream_id = 0, context = 0;
  int device = -1;
  void* ptr = nullptr;
  std::size_t bytes = 0;
};
struct kept_temps {
  kept_temp slots[kept_temp_streams];
  kept_temps() = default;
  kept_temps(const kept_temps&) = delete;
  kept_temps& operator=(const kept_temps&) = delete;
  ~kept_temps() {
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess) return;  // (the runtime may be gone at the process's exit)
    for (const kept_temp& k : slots)  // (after the device's work: the stream may be gone, its last use not done)
      if (k.ptr != nullptr && cudaSetDevice(k.device) == cudaSuccess && context_id() == k.context &&
          cudaDeviceSynchronize() == cudaSuccess)
        (void)cudaFree(k.ptr);
    (void)cudaSetDevice(current);
    (void)cudaGetLastError();
  }
};

/// Storage of at least `bytes` kept for `stream` (kept_temps), or null: more than
/// kept_temp_bytes, a stream being captured into a graph (which may replay on any stream: the
/// graph allocates its own), kept_temp_streams other streams kept already, or a failed call.
inline void* kept_temp_for(cudaStream_t stream, std::size_t bytes) {
  if (bytes > kept_temp_bytes) return nullptr;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  unsigned long long id = 0, context = 0;
  int device = -1;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone ||
      cudaStreamGetId(stream, &id) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess || (context = context_id()) == 0)
    return nullptr;
  thread_local kept_temps kept;
  kept_temp *slot = nullptr, *other = nullptr;  // other: storage of another context of the device (a reset's: gone)
  for (kept_temp& k : kept.slots) {
    if (k.ptr != nullptr && k.device == device && k.context != context) {
      if (other == nullptr) other = &k;
      continue;
    }
    if (k.ptr != nullptr && k.stream_id == id && k.device == device) {
      if (k.bytes >= bytes) return k.ptr;
      if (cudaFreeAsync(k.ptr, stream) != cudaSuccess) return nullptr;  // after every earlier use, in the stream
      k = kept_temp{};
      slot = &k;
      break;
    }
    if (k.ptr == nullptr && slot == nullptr) slot = &k;
  }
  if (slot == nullptr) slot = other;  // (not freed: a driver-API context alive beside it would lose it)
  if (slot == nullptr) return nullptr;
  const std::size_t take = bytes < kept_temp_least ? kept_temp_least : bytes;
  void* ptr = nullptr;
  if (temp_malloc(&ptr, take, stream) != cudaSuccess) return nullptr;
  *slot = kept_temp{id, context, device, ptr, take};
  return ptr;
}

// Runs call(temp, temp_bytes) twice: the size query, then with storage kept for the stream
// (kept_temp_for) or else taken from the pool in the stream. A call that needs no storage
// (the size query's 1 byte: nothing carved) allocates nothing.
template <class Call>
cudaError_t with_temp(cudaStream_t stream, Call call) {
  std::size_t bytes = 0;
  if (cudaError_t e = call(nullptr, bytes); e != cudaSuccess) return e;
  if (bytes <= 1) {
    static unsigned char none;  // a non-null temp that is never dereferenced
    return call(&none, bytes);
  }
  if (void* kept = kept_temp_for(stream, bytes)) return call(kept, bytes);
  void* temp = nullptr;
  if (cudaError_t e = temp_malloc(&temp, bytes, stream); e != cudaSuccess) return e;
  // Taken while the stream is captured, temp is the graph's own allocation: no memory to mark
  // for compute-sanitizer's initcheck yet (tilekit::detail::graph_storage).
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const tilekit::detail::graph_storage_scope scope(cudaStreamIsCapturing(stream, &capture) == cudaSuccess &&
                                                   capture != cudaStreamCaptureStatusNone);
  const cudaError_t e = call(temp, bytes);
  const cudaError_t f = cudaFreeAsync(temp, stream);
  return e != cudaSuccess ? e : f;
}
}  // namespace tilekit::device::detail
#endif
