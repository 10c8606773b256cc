// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// What the GPU builds of the examples share: CHECK(call), which prints a failed
// CUDA call and exits with 1; median_ms(f, runs), the median time of f by CUDA
// events; small_inputs(), true under TILEKIT_TEST_SMALL=1 (.ci/gpu-check sets it
// under compute-sanitizer, where large inputs take too long and times mean nothing).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

inline void check_cuda(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::printf("%s:%d: %s failed: %s\n", file, line, call, cudaGetErrorString(e));
  std::exit(1);
}
#define CHECK(call) check_cuda((call), #call, __FILE__, __LINE__)

/// Median milliseconds of `runs` runs of f() on the default stream, after one warm-up run.
template <class F>
float median_ms(F f, int runs) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  f();
  std::vector<float> ms(runs > 0 ? runs : 1);
  for (float& m : ms) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaEventElapsedTime(&m, a, b));
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

inline bool small_inputs() { return std::getenv("TILEKIT_TEST_SMALL") != nullptr; }
