// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Kernels for the CUDA-graph replay cases: a counter on the device (*next) gives each replay
// its own slice of the inputs and its own place for the results, so that every replay of one
// graph is checked against its own reference.
#pragma once

namespace tk_test {

// in[0 .. n) = inputs[(*next) n .. (*next + 1) n): the slice of replay *next.
template <class T>
__global__ void pick_slice(const T* inputs, T* in, long long n, const unsigned* next) {
  const T* from = inputs + (long long)(*next) * n;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    in[i] = from[i];
}

// results[(*next) count + i] = out[i] for i < count, then *next += 1. One block of at least
// count threads.
template <class T>
__global__ void keep_results(const T* out, T* results, unsigned count, unsigned* next) {
  if (threadIdx.x < count) results[*next * count + threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) *next += 1;
}

}  // namespace tk_test
