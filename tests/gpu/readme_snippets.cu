// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The README's plain-kernel snippet, verbatim, compiled and run: a snippet that
// stops compiling or computing what the README says fails here.
#include "../common/gpu_backend.cuh"
#include "../common/test_support.hpp"

// [readme-kernel]
__global__ void k(const int* in, int* out) {
  auto block = tilekit::this_block<256>();
  auto warp = tilekit::tiled_partition<16>(block);               // tilekit::tile<16>
  out[threadIdx.x] = tilekit::reduce(warp, in[threadIdx.x], tilekit::plus{});
}
// [readme-kernel]

BOOST_AUTO_TEST_CASE(readme_kernel_sums_each_tile_of_16) {
  auto g = tk_test::rng_for(77);
  const std::vector<int> in = tk_test::random_vector<int>(256, g);
  tk_test::device_buffer<int> d_in(in), d_out(256, tk_test::poison<int>());
  k<<<1, 256>>>(d_in.data(), d_out.data());
  TK_CUDA_CHECK(cudaGetLastError());
  TK_CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<int> out = d_out.to_host();
  for (int t = 0; t < 16; ++t) {
    int sum = 0;
    for (int l = 0; l < 16; ++l) sum += in[16 * t + l];
    for (int l = 0; l < 16; ++l) BOOST_TEST(out[16 * t + l] == sum);
  }
}
