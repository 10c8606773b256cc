// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The program behind ncu_single_pass_2e24.txt (kept as a record, not built by CMake): one launch
// each of tilekit's and CUB's partition, run-length encode, select_flagged and int64 inclusive
// scan at 2^24 random items, for Nsight Compute. Run on the H200 at commit 09553ed (kernels of da676a5):
//   nvcc -std=c++17 -O3 -arch=sm_90 --extended-lambda -Iinclude -Ialgorithms -o prof ncu_single_pass.cu
//   ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats
//       --section SchedulerStats --section Occupancy --section LaunchStats --section InstructionStats ./prof
//   (one command line)
#include <cub/cub.cuh>
#include <tilekit/cub/device_select.cuh>
#include <tilekit/cub/device_run_length_encode.cuh>
#include <tilekit/cub/device_scan.cuh>
#include <cstdio>
#include <random>
#include <vector>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
struct below_zero { __host__ __device__ bool operator()(int x) const { return x < 0; } };
int main() {
  const int n = 1 << 24;
  std::mt19937 g(7);
  std::vector<int> h(n);
  std::vector<unsigned char> hf(n);
  for (int i = 0; i < n; ++i) h[i] = int(g()), hf[i] = g() & 1;
  int *in, *out, *len, *num;
  long long *in64, *out64;
  unsigned char* flags;
  void* temp;
  std::size_t tb = std::size_t(1) << 30;
  CHECK(cudaMalloc(&in, n * 4)); CHECK(cudaMalloc(&out, n * 4 + 64)); CHECK(cudaMalloc(&len, n * 4 + 64));
  CHECK(cudaMalloc(&num, 64)); CHECK(cudaMalloc(&in64, n * 8)); CHECK(cudaMalloc(&out64, n * 8));
  CHECK(cudaMalloc(&flags, n)); CHECK(cudaMalloc(&temp, tb));
  CHECK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(flags, hf.data(), n, cudaMemcpyHostToDevice));
  std::vector<long long> h64(h.begin(), h.end());
  CHECK(cudaMemcpy(in64, h64.data(), n * 8, cudaMemcpyHostToDevice));
  std::size_t b = tb;
  CHECK(tilekit::cub::DevicePartition::If(temp, b = tb, in, out, num, n, below_zero{}));
  CHECK(cub::DevicePartition::If(temp, b = tb, in, out, num, n, below_zero{}));
  CHECK(tilekit::cub::DeviceRunLengthEncode::Encode(temp, b = tb, in, out, len, num, n));
  CHECK(cub::DeviceRunLengthEncode::Encode(temp, b = tb, in, out, len, num, n));
  CHECK(tilekit::cub::DeviceSelect::Flagged(temp, b = tb, in, flags, out, num, n));
  CHECK(cub::DeviceSelect::Flagged(temp, b = tb, in, flags, out, num, n));
  CHECK(tilekit::cub::DeviceScan::InclusiveSum(temp, b = tb, in64, out64, n));
  CHECK(cub::DeviceScan::InclusiveSum(temp, b = tb, in64, out64, n));
  CHECK(cudaDeviceSynchronize());
  std::puts("ok");
  return 0;
}
