// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <cstdio>
#include <vector>
int main() {
  const long long n = 1 << 16;
  float* fin; long long* idx; float* fout; int* in; int* out;
  cudaMalloc(&fin, n * 4); cudaMalloc(&in, n * 4); cudaMalloc(&idx, 8); cudaMalloc(&fout, 8); cudaMalloc(&out, 8);
  std::vector<float> h(n); for (long long i = 0; i < n; ++i) h[i] = float((i * 7919) % 100003);
  cudaMemcpy(fin, h.data(), n * 4, cudaMemcpyHostToDevice); cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
  void* temp; cudaMalloc(&temp, 1 << 24); size_t b = 1 << 24;
  for (int r = 0; r < 2; ++r) {
    b = 1 << 24; tilekit::device::arg_min(temp, b, fin, n, fout, idx);
    b = 1 << 24; cub::DeviceReduce::ArgMin(temp, b, fin, fout, idx, n);
    b = 1 << 24; tilekit::device::reduce(temp, b, in, n, out, tilekit::plus{}, 0);
    b = 1 << 24; cub::DeviceReduce::Sum(temp, b, in, out, n);
  }
  cudaDeviceSynchronize();
  std::printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
