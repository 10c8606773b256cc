// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb22 (written in the 24th session, run in the 25th with a read-only floor added): the uint8 256-bin histogram in one launch (issue 18), raw
// kernels against tilekit's and CUB's HistogramEven, 2^16-2^24 random bytes, L2 flushed (256 MB memset) before
// every timed call, CUDA events, medians of 41 (../2026-12-06-22-reduce-cluster/common.cuh), every result
// checked against a host count. Grids of at most 8 blocks of 256 a multiprocessor (all resident: the tagged
// kernel's blocks wait for block 0). The kernels privatise 256 counters a block in shared memory (4 16-byte loads a
// thread a trip, grid-stride), then merge with one global atomic a bin:
//   floor   the output zeroed by a memset outside the timing: no zeroing at all (not a correct call: the bound)
//   memset  a 1 KB memset, then the histogram kernel: tilekit's uint8 shape today (overlap off)
//   two     a zeroing kernel, then the histogram kernel (an ordinary launch): CUB's shape
//   pdl     the same with the histogram kernel a programmatic dependent launch that waits
//           (griddepcontrol.wait) only before its merge: tilekit's shape with overlap on (multi-channel)
//   tagged  ONE launch: block 0 zeroes the output, then publishes the call's tag (a release store); every
//           block polls the tag (acquire) before its merge, then adds one to a counter that block 0 zeroed
//           before the tag (relaxed); the block that completes the count clears the tag (a graph replay
//           repeats the tag, so it must not find it early)
#include <tilekit/device/histogram.cuh>
#include <cub/device/device_histogram.cuh>
#include <cuda/atomic>
#include <algorithm>
#include <cstdio>
#include <vector>
#include "../2026-12-06-22-reduce-cluster/common.cuh"

constexpr int T = 256, V = 4;  // threads; 16-byte loads a thread a trip
struct flag_words { unsigned long long tag, count; };

__device__ void privatise(const uint4* in, long long vecs, unsigned* local) {
  for (int b = threadIdx.x; b < 256; b += T) local[b] = 0;
  __syncthreads();
  for (long long base = (long long)blockIdx.x * T * V; base < vecs; base += (long long)gridDim.x * T * V) {
    uint4 x[V];
#pragma unroll
    for (int j = 0; j < V; ++j) { const long long i = base + j * T + threadIdx.x; x[j] = i < vecs ? in[i] : make_uint4(0, 0, 0, 0); }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if (base + j * T + threadIdx.x >= vecs) continue;
      const unsigned w[4] = {x[j].x, x[j].y, x[j].z, x[j].w};
#pragma unroll
      for (int k = 0; k < 4; ++k)
#pragma unroll
        for (int s = 0; s < 32; s += 8) atomicAdd(&local[(w[k] >> s) & 255], 1u);
    }
  }
  __syncthreads();
}
template <int Mode>  // 0: floor / two, 1: pdl (waits before its merge)
__global__ void __launch_bounds__(T) k_hist(const uint4* in, long long vecs, unsigned* out) {
  __shared__ unsigned local[256];
  privatise(in, vecs, local);
  if constexpr (Mode == 1) asm volatile("griddepcontrol.wait;" ::: "memory");
  for (int b = threadIdx.x; b < 256; b += T) if (local[b]) atomicAdd(&out[b], local[b]);
}
// The bytes alone: the same loads, an xor, one store a block (no counting): the memory floor of the shape.
__global__ void __launch_bounds__(T) k_read(const uint4* in, long long vecs, unsigned* out) {
  unsigned acc = 0;
  for (long long base = (long long)blockIdx.x * T * V; base < vecs; base += (long long)gridDim.x * T * V) {
    uint4 x[V];
#pragma unroll
    for (int j = 0; j < V; ++j) { const long long i = base + j * T + threadIdx.x; x[j] = i < vecs ? in[i] : make_uint4(0, 0, 0, 0); }
#pragma unroll
    for (int j = 0; j < V; ++j) acc ^= x[j].x ^ x[j].y ^ x[j].z ^ x[j].w;
  }
  acc = __reduce_or_sync(~0u, acc);
  if (acc == 0x12345678u) out[threadIdx.x & 255] = acc;  // (never, in practice: keeps the loads)
}
__global__ void k_zero(unsigned* out) { if (threadIdx.x < 256) out[threadIdx.x] = 0; }
__global__ void __launch_bounds__(T) k_tagged(const uint4* in, long long vecs, unsigned* out, flag_words* f, unsigned long long tag) {
  __shared__ unsigned local[256];
  if (blockIdx.x == 0) {
    for (int b = threadIdx.x; b < 256; b += T) out[b] = 0;
    if (threadIdx.x == 0) f->count = 0;
    __syncthreads();
    if (threadIdx.x == 0) cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(f->tag).store(tag, cuda::memory_order_release);
  }
  privatise(in, vecs, local);
  if (threadIdx.x == 0) {
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> t(f->tag);
    while (t.load(cuda::memory_order_acquire) != tag) {}
  }
  __syncthreads();  // (the barrier carries thread 0's acquire to the block)
  for (int b = threadIdx.x; b < 256; b += T) if (local[b]) atomicAdd(&out[b], local[b]);
  __syncthreads();
  if (threadIdx.x == 0) {
    // Every block's merge is issued before its count; the last to count clears the tag. (The merges'
    // atomics need not be complete: the kernel's end makes them visible.)
    if (atomicAdd(&f->count, 1ull) == gridDim.x - 1) cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(f->tag).store(0, cuda::memory_order_relaxed);
  }
}

int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs; seed 3; us: medians of 41\n", p.name, p.multiProcessorCount);
  const long long maxn = 1ll << 24;
  std::vector<unsigned char> h(maxn); unsigned st = 3;
  for (auto& x : h) { st = st * 1664525u + 1013904223u; x = (unsigned char)(st >> 24); }
  unsigned char* in; unsigned *out, *cub_out; flag_words* f; void* temp; size_t tb = 1 << 20;
  CK(cudaMalloc(&in, maxn)); CK(cudaMalloc(&out, 1024)); CK(cudaMalloc(&cub_out, 1024)); CK(cudaMalloc(&f, 64)); CK(cudaMalloc(&temp, tb));
  CK(cudaMemset(f, 0xab, 64));  // anything: the tag of a call is never there
  CK(cudaMemcpy(in, h.data(), maxn, cudaMemcpyHostToDevice));
  const int resident = p.multiProcessorCount * 8;
  unsigned long long tag = 0x9e3779b97f4a7c15ull;
  for (long long n : {1ll << 16, 1ll << 18, 1ll << 20, 1ll << 22, 1ll << 24}) {
    std::vector<unsigned> want(256, 0);
    for (long long i = 0; i < n; ++i) ++want[h[i]];
    const long long vecs = n / 16;
    const int grid = int(std::min<long long>(resident, (vecs + T * V - 1) / (T * V)));
    auto check = [&](const char* name, double us, unsigned* o) {
      std::vector<unsigned> got(256);
      CK(cudaMemcpy(got.data(), o, 1024, cudaMemcpyDeviceToHost));
      std::printf("n=2^%-2d %-8s %7.2f us%s\n", 63 - __builtin_clzll(n), name, us, got == want ? "" : "  MISMATCH");
      CK(cudaMemset(o, 0xff, 1024));
    };
    auto cub_call = [&] { size_t b = tb; return cub::DeviceHistogram::HistogramEven(temp, b, in, cub_out, 257, 0, 256, (int)n); };
    CK(cub_call()); check("cub", med([&] { cub_call(); }), cub_out);
    auto tk_call = [&] { size_t b = tb; return tilekit::device::histogram_even(temp, b, in, n, out, 257, 0, 256); };
    CK(tk_call()); check("tilekit", med([&] { tk_call(); }), out);
    // floor: zero outside the timed region, via warm_up (common.cuh calls it after the flush, before the events)
    static unsigned* s_out; s_out = out;
    warm_up = [] { cudaMemsetAsync(s_out, 0, 1024); };
    check("floor", med([&] { k_hist<0><<<grid, T>>>((const uint4*)in, vecs, out); }), out);
    warm_up = nullptr;
    std::printf("n=2^%-2d %-8s %7.2f us\n", 63 - __builtin_clzll(n), "read", med([&] { k_read<<<grid, T>>>((const uint4*)in, vecs, out); }));
    CK(cudaMemset(out, 0xff, 1024));
    check("memset", med([&] { cudaMemsetAsync(out, 0, 1024); k_hist<0><<<grid, T>>>((const uint4*)in, vecs, out); }), out);
    check("two", med([&] { k_zero<<<1, 256>>>(out); k_hist<0><<<grid, T>>>((const uint4*)in, vecs, out); }), out);
    auto pdl = [&] {
      k_zero<<<1, 256>>>(out);
      cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(grid); cfg.blockDim = dim3(T);
      cudaLaunchAttribute a[1]; a[0].id = cudaLaunchAttributeProgrammaticStreamSerialization; a[0].val.programmaticStreamSerializationAllowed = 1;
      cfg.attrs = a; cfg.numAttrs = 1;
      cudaLaunchKernelEx(&cfg, k_hist<1>, (const uint4*)in, vecs, out);
    };
    check("pdl", med(pdl), out);
    check("tagged", med([&] { k_tagged<<<grid, T>>>((const uint4*)in, vecs, out, f, ++tag); }), out);
  }
  CK(cudaGetLastError());
  std::printf("done\n");
  return 0;
}
