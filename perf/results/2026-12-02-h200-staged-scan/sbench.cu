// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Focused scan bench: CUB vs tilekit chunked vs tilekit staged vs dispatch, same process, L2 flushed, medians.
#include <tilekit/device/scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/version.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
template <class T> __global__ void fill(T* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long h = i * 0x9E3779B97F4A7C15ull; h ^= h >> 29; h *= 0xBF58476D1CE4E5B9ull; h ^= h >> 32;
    p[i] = std::is_floating_point<T>::value ? T(double(h % 3) * 0.5 - 0.5) : T(h % 1000);
  }
}
static unsigned char* flushbuf;
template <class F> float time_med(F f, int reps) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  f(); CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CK(cudaMemsetAsync(flushbuf, r, size_t(256) << 20));
    CK(cudaEventRecord(a)); f(); CK(cudaEventRecord(b)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms * 1000.f);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
template <class T> bool same(const T* a, const T* b, size_t n) {
  std::vector<T> x(n), y(n);
  CK(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost)); CK(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < n; ++i) if (!(x[i] == y[i])) { printf("  mismatch at %zu\n", i); return false; }
  return true;
}
template <class T> void run(const char* tname, int lg, int reps) {
  const long long n = 1ll << lg;
  T *in, *ref, *out; void* temp; size_t temp_bytes = size_t(64) << 20;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&ref, n * sizeof(T))); CK(cudaMalloc(&out, n * sizeof(T))); CK(cudaMalloc(&temp, temp_bytes));
  fill<<<1024, 256>>>(in, n); CK(cudaDeviceSynchronize());
  tilekit::gpu_launcher L{0};
  auto cub_f = [&] { size_t b = temp_bytes; CK(cub::DeviceScan::InclusiveSum(temp, b, in, ref, n)); };
  auto chunked = [&] { CK(tilekit::detail::run_chunked_scan<true>(L, temp, (const T*)in, n, out, tilekit::plus{}, T{}, false)); };
  auto staged = [&] { CK(tilekit::detail::run_staged_scan<true>(L, temp, (const T*)in, n, out, tilekit::plus{}, T{}, false)); };
  auto dispatch = [&] { size_t b = temp_bytes; CK(tilekit::device::inclusive_sum(temp, b, (const T*)in, n, out)); };
  auto copy = [&] { CK(cudaMemcpyAsync(out, in, n * sizeof(T), cudaMemcpyDeviceToDevice)); };
  cub_f(); CK(cudaDeviceSynchronize());
  bool ok = true;
  CK(cudaMemset(out, 0xCD, n * sizeof(T))); chunked(); CK(cudaDeviceSynchronize()); ok &= same(ref, out, n);
  CK(cudaMemset(out, 0xCD, n * sizeof(T))); staged(); CK(cudaDeviceSynchronize()); ok &= same(ref, out, n);
  CK(cudaMemset(out, 0xCD, n * sizeof(T))); dispatch(); CK(cudaDeviceSynchronize()); ok &= same(ref, out, n);
  float tc = time_med(cub_f, reps), tch = time_med(chunked, reps), ts = time_med(staged, reps), td = time_med(dispatch, reps), tm = time_med(copy, reps);
  printf("%-7s 2^%-2d cub %9.2f us | chunked %9.2f (%.3fx) | staged %9.2f (%.3fx) | dispatch %9.2f (%.3fx) | memcpy %8.2f: cub %4.1f%% staged %4.1f%% %s\n",
         tname, lg, tc, tch, tc / tch, ts, tc / ts, td, tc / td, tm, 100 * tm / tc, 100 * tm / ts, ok ? "ok" : "WRONG");
  fflush(stdout);
  CK(cudaFree(in)); CK(cudaFree(ref)); CK(cudaFree(out)); CK(cudaFree(temp));
}
int main(int argc, char** argv) {
  CK(cudaMalloc(&flushbuf, size_t(256) << 20));
  printf("CUB %d, threads %u, staged items %u/%u look %u blocks/SM %u\n", CUB_VERSION, tilekit::scan_tuning::staged_threads, tilekit::scan_tuning::staged_items_4,
         tilekit::scan_tuning::staged_items_8, tilekit::scan_tuning::staged_look_items, tilekit::scan_tuning::staged_blocks_per_sm);
  std::vector<int> logs = {16, 18, 20, 22, 24, 26, 28};
  if (argc > 1) { logs.clear(); for (int i = 1; i < argc; ++i) logs.push_back(atoi(argv[i])); }
  for (int lg : logs) run<int>("int32", lg, lg >= 26 ? 9 : 21);
  for (int lg : logs) run<long long>("int64", lg, lg >= 26 ? 9 : 21);
  for (int lg : logs) if (lg == 20 || lg == 24 || lg == 28) run<double>("double", lg, lg >= 26 ? 9 : 21);
}
