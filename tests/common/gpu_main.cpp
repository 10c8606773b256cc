// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// main() of every GPU test program: without a usable CUDA device the program
// reports itself skipped (exit code 77, ctest's SKIP_RETURN_CODE) instead of passing.
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/test/unit_test.hpp>

#include <cuda_runtime.h>

#include <cstdio>

bool init_unit_test() { return true; }

int main(int argc, char* argv[]) {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::printf("no usable CUDA device (%s): GPU tests skipped\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 77;
  }
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, 0);
  std::printf("GPU: %s (sm_%d%d, %d SMs)\n", p.name, p.major, p.minor, p.multiProcessorCount);
  return boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
}
