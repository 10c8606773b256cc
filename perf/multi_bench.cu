// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Weak scaling of the multi-GPU level (tilekit/multi.cuh): sum and a 1024-bin histogram
// over 2^30 int32 items per GPU (TILEKIT_MULTI_LOG changes the exponent) on 1, 2, 4, ...
// of the visible GPUs, one rank per GPU on its own host thread. Each rank times its call
// with CUDA events in its stream (median of 9, after a warm-up); a run's time is the
// slowest rank's. Parallel efficiency = time on 1 GPU / time on k GPUs (1.0: perfect weak
// scaling). Prints a markdown table. Exits 77 without a GPU.
#include "bench_common.cuh"

#include <tilekit/multi.cuh>

#include <algorithm>
#include <thread>
#include <vector>

namespace {

__global__ void fill(int* p, std::size_t n, int rank) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = int((i * 2654435761u + unsigned(rank) * 97u) % 2001u) - 1000;
}

// Median milliseconds of this rank's call, after a warm-up.
template <class Call>
float time_rank(cudaStream_t stream, Call call) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  call();
  CHECK(cudaStreamSynchronize(stream));
  std::vector<float> ms;
  for (int rep = 0; rep < 9; ++rep) {
    CHECK(cudaEventRecord(start, stream));
    call();
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms[ms.size() / 2];
}

// Times of sum and histogram on `ranks` GPUs (the slowest rank's).
std::pair<float, float> run(int ranks, std::size_t n) {
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess) std::exit(1);
  std::vector<float> sum_ms(static_cast<std::size_t>(ranks)), hist_ms(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int me = 0; me < ranks; ++me) {
    threads.emplace_back([&, me] {
      CHECK(cudaSetDevice(me));
      ncclComm_t comm;
      if (ncclCommInitRank(&comm, ranks, id, me) != ncclSuccess) std::exit(1);
      cudaStream_t stream;
      CHECK(cudaStreamCreate(&stream));
      int* in = nullptr;
      int* total = nullptr;
      unsigned* bins = nullptr;
      CHECK(cudaMalloc(&in, n * sizeof(int)));
      CHECK(cudaMalloc(&total, sizeof(int)));
      CHECK(cudaMalloc(&bins, 1024 * sizeof(unsigned)));
      fill<<<1024, 256, 0, stream>>>(in, n, me);
      const tilekit::multi::rank r{comm, stream};
      sum_ms[std::size_t(me)] = time_rank(stream, [&] {
        if (!tilekit::multi::sum(r, in, std::int64_t(n), total).ok()) std::exit(1);
      });
      hist_ms[std::size_t(me)] = time_rank(stream, [&] {
        if (!tilekit::multi::histogram_even(r, in, std::int64_t(n), bins, 1025, -1000, 1001).ok()) std::exit(1);
      });
      CHECK(cudaFree(in));
      CHECK(cudaFree(total));
      CHECK(cudaFree(bins));
      CHECK(cudaStreamDestroy(stream));
      ncclCommDestroy(comm);
    });
  }
  for (auto& t : threads) t.join();
  return {*std::max_element(sum_ms.begin(), sum_ms.end()), *std::max_element(hist_ms.begin(), hist_ms.end())};
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: nothing to benchmark\n");
    return 77;
  }
  const int log_n = std::getenv("TILEKIT_MULTI_LOG") ? std::atoi(std::getenv("TILEKIT_MULTI_LOG")) : 30;
  const std::size_t n = std::size_t(1) << log_n;
  std::printf("| GPUs | items per GPU | sum ms | sum efficiency | histogram (1024 bins) ms | histogram efficiency |\n");
  std::printf("|---|---|---|---|---|---|\n");
  float sum1 = 0, hist1 = 0;
  for (int ranks = 1; ranks <= devices; ranks *= 2) {
    const auto [s, h] = run(ranks, n);
    if (ranks == 1) sum1 = s, hist1 = h;
    std::printf("| %d | 2^%d | %.3f | %.2f | %.3f | %.2f |\n", ranks, log_n, s, sum1 / s, h, hist1 / h);
  }
  return 0;
}
