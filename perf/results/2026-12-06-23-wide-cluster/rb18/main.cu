// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb18: a device reduce in a cluster of 16 blocks (200000 ints) before and after cudaDeviceReset, through a72c1a8's
// library (old) and the working tree (new): the error each call returns and whether its sum is right.
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>
cudaError_t old_sum(void*, size_t&, const int*, long long, int*);
cudaError_t new_sum(void*, size_t&, const int*, long long, int*);
int main() {
  const long long n = 200000;
  std::vector<int> h(n, 3);
  for (int phase = 0; phase < 2; ++phase) {
    if (phase == 1) std::printf("cudaDeviceReset: %s\n", cudaGetErrorString(cudaDeviceReset()));
    int *in = nullptr, *out = nullptr;
    cudaMalloc(&in, n * 4); cudaMalloc(&out, 64);
    cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice);
    for (int side = 0; side < 2; ++side) {
      cudaMemset(out, 0xff, 64);
      size_t b = 1;
      const cudaError_t e = side ? new_sum(out, b, in, n, out + 8) : old_sum(out, b, in, n, out + 8);
      const cudaError_t s = cudaDeviceSynchronize();
      int g = -1;
      cudaMemcpy(&g, out + 8, 4, cudaMemcpyDeviceToHost);
      std::printf("%s reset, %s: call %s, sync %s, sum %d (want %lld), last error %s\n", phase ? "after" : "before",
                  side ? "new" : "old", cudaGetErrorString(e), cudaGetErrorString(s), g, 3 * n, cudaGetErrorString(cudaGetLastError()));
    }
    cudaFree(in); cudaFree(out);
  }
  return 0;
}
