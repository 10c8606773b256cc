// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb26 (written in the 25th session; gate1a added in the 26th): a cheaper zeroing gate for the one-launch uint8 histogram
// (issue 18). The library's gate (detail::zero_gate, "gate2" here) costs each block two round trips before its
// merge: an acquire poll of the tag, then the atomic that counts it through (the last block closes the gate).
// rb22 (../rb22.cu, H100) put that 0.6-0.8 us above a kernel with no zeroing at 2^16-2^20. Here one word holds the
// tag (high 48 bits) and the count (low 16), and one acquire-release fetch_add a block polls and counts at once:
//   gate2    the library's protocol: poll (acquire) until the tag, then fetch_add on a count word
//   gate1    one fetch_add(1, acq_rel) on the word before the merge; the block passed if the old value shows the
//            tag. Block 0 opens the gate with an exchange (release) to tag << 16, which drops any add that came
//            before it: a block whose add found no tag polls until the tag, then adds again
//   gate1e   gate1 with the fetch_add issued once the block's first trip of loads is issued (its latency hidden
//            behind the counting; most blocks find the gate open by then, the others add again at the end)
//   gate1a   gate1e with an acquire add in place of acq_rel (no MEMBAR before it: with acq_rel the fence waits for the
//            trip's loads just issued), and a block whose add found no tag adds again at once, polling only after a
//            second miss (the protocol of the 26th session's library patch, one-word-gate.patch: not kept)
//   memset   a 1 KB memset, then the kernel (tilekit's uint8 shape before the gate)
//   floor    the output zeroed outside the timing (not a correct call: the bound)
// The last block through (old count == blocks - 1) stores 0. Every variant runs twice with the same tag per size
// (what a graph replay does) and is checked against a host count both times. Same harness as rb22: 256 threads,
// at most 8 blocks a multiprocessor (all resident), L2 flushed before each timed call, medians of 41.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -I include -I algorithms perf/results/2026-12-06-26-one-word-gate/rb26.cu (from the
// repository root; the binary that ran was built in ../2026-12-06-25-histogram-one-launch/next/, its include one level up).
#include <cuda/atomic>
#include <algorithm>
#include <cstdio>
#include <vector>
#include "../2026-12-06-22-reduce-cluster/common.cuh"

constexpr int T = 256, V = 4;  // threads; 16-byte loads a thread a trip
using ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

// Counts the block's share of in into local; after_first_loads() runs (in every thread) once the first trip's loads
// are issued.
template <class F>
__device__ void privatise(const uint4* in, long long vecs, unsigned* local, F after_first_loads) {
  for (int b = threadIdx.x; b < 256; b += T) local[b] = 0;
  __syncthreads();
  bool first = true;
  for (long long base = (long long)blockIdx.x * T * V; base < vecs || first; base += (long long)gridDim.x * T * V) {
    uint4 x[V];
#pragma unroll
    for (int j = 0; j < V; ++j) { const long long i = base + j * T + threadIdx.x; x[j] = i < vecs ? in[i] : make_uint4(0, 0, 0, 0); }
    if (first) after_first_loads(), first = false;
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
__device__ void merge(const unsigned* local, unsigned* out) {
  for (int b = threadIdx.x; b < 256; b += T) if (local[b]) atomicAdd(&out[b], local[b]);
}
__global__ void __launch_bounds__(T) k_plain(const uint4* in, long long vecs, unsigned* out) {
  __shared__ unsigned local[256];
  privatise(in, vecs, local, [] {});
  merge(local, out);
}
// Block 0 zeroes out, then opens: Mode 2 stores count 0 then the tag (release); Mode 1 exchanges tag << 16 in.
template <int Mode>
__device__ void open_gate(unsigned* out, unsigned long long* w, unsigned long long tag) {
  for (int b = threadIdx.x; b < 256; b += T) out[b] = 0;
  __syncthreads();
  if (threadIdx.x != 0) return;
  if constexpr (Mode == 2) {
    ref(w[1]).store(0, cuda::memory_order_relaxed);
    ref(w[0]).store(tag, cuda::memory_order_release);
  } else {
    ref(w[0]).exchange(tag << 16, cuda::memory_order_release);
  }
}
// Mode 2: gate2; 1: gate1; 3: gate1e; 4: gate1a.
template <int Mode>
__global__ void __launch_bounds__(T) k_gated(const uint4* in, long long vecs, unsigned* out, unsigned long long* w,
                                              unsigned long long tag) {
  __shared__ unsigned local[256];
  if (blockIdx.x == 0) open_gate<Mode == 2 ? 2 : 1>(out, w, tag);
  unsigned long long old = 0;  // thread 0's: the word before its add (gate1, gate1e)
  privatise(in, vecs, local, [&] {
    if (Mode == 3 && threadIdx.x == 0) old = ref(w[0]).fetch_add(1, cuda::memory_order_acq_rel);
    if (Mode == 4 && threadIdx.x == 0) old = ref(w[0]).fetch_add(1, cuda::memory_order_acquire);
  });
  if (threadIdx.x == 0) {
    if constexpr (Mode == 2) {
      while (ref(w[0]).load(cuda::memory_order_acquire) != tag) {}
      old = ref(w[1]).fetch_add(1, cuda::memory_order_relaxed);
    } else if constexpr (Mode == 4) {
      while ((old >> 16) != tag) {
        old = ref(w[0]).fetch_add(1, cuda::memory_order_acquire);
        if ((old >> 16) == tag) break;
        while ((ref(w[0]).load(cuda::memory_order_acquire) >> 16) != tag) {}
      }
    } else {
      if (Mode == 1) old = ref(w[0]).fetch_add(1, cuda::memory_order_acq_rel);
      while ((old >> 16) != tag) {  // added before block 0 opened: that add was dropped
        while ((ref(w[0]).load(cuda::memory_order_acquire) >> 16) != tag) {}
        old = ref(w[0]).fetch_add(1, cuda::memory_order_acq_rel);
      }
    }
  }
  __syncthreads();  // thread 0's acquire, carried to the block
  merge(local, out);
  if (threadIdx.x == 0 && (old & 0xffff) == gridDim.x - 1) ref(w[0]).store(0, cuda::memory_order_relaxed);
}

int main() {
  CK(cudaMalloc(&flushbuf, 256u << 20));
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s, %d SMs; seed 3; us: medians of 41\n", p.name, p.multiProcessorCount);
  const long long maxn = 1ll << 24;
  std::vector<unsigned char> h(maxn); unsigned st = 3;
  for (auto& x : h) { st = st * 1664525u + 1013904223u; x = (unsigned char)(st >> 24); }
  unsigned char* in; unsigned* out; unsigned long long* w;
  CK(cudaMalloc(&in, maxn)); CK(cudaMalloc(&out, 1024)); CK(cudaMalloc(&w, 64));
  CK(cudaMemset(w, 0xab, 64));  // anything: no call's tag
  CK(cudaMemcpy(in, h.data(), maxn, cudaMemcpyHostToDevice));
  const int resident = p.multiProcessorCount * 8;
  unsigned long long tag = 0x9e3779b97f4aull;  // 48 bits; never 0
  for (long long n : {1ll << 16, 1ll << 18, 1ll << 20, 1ll << 22, 1ll << 24}) {
    std::vector<unsigned> want(256, 0);
    for (long long i = 0; i < n; ++i) ++want[h[i]];
    const long long vecs = n / 16;
    const int grid = int(std::min<long long>(resident, (vecs + T * V - 1) / (T * V)));
    auto check = [&](const char* name, double us) {
      std::vector<unsigned> got(256);
      CK(cudaMemcpy(got.data(), out, 1024, cudaMemcpyDeviceToHost));
      std::printf("n=2^%-2d %-8s %7.2f us%s\n", 63 - __builtin_clzll(n), name, us, got == want ? "" : "  MISMATCH");
      CK(cudaMemset(out, 0xff, 1024));
    };
    static unsigned* s_out; s_out = out;
    warm_up = [] { cudaMemsetAsync(s_out, 0, 1024); };
    check("floor", med([&] { k_plain<<<grid, T>>>((const uint4*)in, vecs, out); }));
    warm_up = nullptr;
    check("memset", med([&] { cudaMemsetAsync(out, 0, 1024); k_plain<<<grid, T>>>((const uint4*)in, vecs, out); }));
    // Each gated variant: a replay pair first (one tag, two launches, each checked), then the timing (a new tag a call).
    auto gated = [&](const char* name, auto kernel) {
      ++tag;
      for (int r = 0; r < 2; ++r) {
        kernel<<<grid, T>>>((const uint4*)in, vecs, out, w, tag);
        CK(cudaDeviceSynchronize());
        check(r == 0 ? "(first)" : "(replay)", 0.0);
      }
      check(name, med([&] { kernel<<<grid, T>>>((const uint4*)in, vecs, out, w, ++tag); }));
    };
    gated("gate2", k_gated<2>);
    gated("gate1", k_gated<1>);
    gated("gate1e", k_gated<3>);
    gated("gate1a", k_gated<4>);
  }
  CK(cudaGetLastError());
  std::printf("done\n");
  return 0;
}
