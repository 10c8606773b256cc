// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The multi-GPU level (tilekit/multi.cuh, over NCCL): readings sharded across every
// visible GPU, one rank per GPU on its own host thread with its own stream. Together,
// without gathering the data anywhere, the ranks compute
//   1. the mean of all readings                  (multi::sum, then each rank divides)
//   2. their histogram in 16 bins                (multi::histogram_even)
//   3. the readings above the mean, in the order of the concatenated shards: each rank
//      keeps its own and learns where they go     (multi::select_if: count and offset)
// and the host checks every result against the CPU on the concatenated data. With one
// GPU the communicator has one rank and the same code runs. GPU only (NCCL has no
// simulator); built where CMake finds NCCL (target tilekit::multi).
#include <tilekit/multi.cuh>

#include "gpu_helpers.cuh"  // CHECK, small_inputs

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

namespace {

struct above {
  long long cut;
  __host__ __device__ bool operator()(long long x) const { return x > cut; }
};

constexpr int bins = 16;
constexpr int lowest = 0, highest = 4096;  // readings in [0, 4096)

struct rank_result {
  long long total = -1;
  std::vector<unsigned> histogram;
  std::vector<long long> kept;  // this rank's readings above the mean
  std::int64_t offset = -1;  // the kept readings of the lower ranks
  bool ok = false;
};

// Rank `me` of `ranks`, on GPU `me`, with the readings shard.
void run_rank(ncclUniqueId id, int ranks, int me, std::vector<long long> shard, rank_result& r) {
  CHECK(cudaSetDevice(me));
  ncclComm_t comm;
  if (ncclCommInitRank(&comm, ranks, id, me) != ncclSuccess) return;
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const tilekit::multi::rank rk{comm, stream};
  const std::int64_t n = std::int64_t(shard.size());
  long long *readings, *kept, *total;  // total: the sum, then the count of readings
  unsigned* counters;
  CHECK(cudaMalloc(&readings, sizeof(long long) * (shard.size() + 1)));
  CHECK(cudaMalloc(&kept, sizeof(long long) * (shard.size() + 1)));
  CHECK(cudaMalloc(&total, 2 * sizeof(long long)));
  CHECK(cudaMalloc(&counters, sizeof(unsigned) * bins));
  CHECK(cudaMemcpy(readings, shard.data(), sizeof(long long) * shard.size(), cudaMemcpyHostToDevice));

  // 1. the sum of the readings and how many there are, over every shard, on every rank
  long long* count_in;
  CHECK(cudaMalloc(&count_in, sizeof(long long)));
  const long long mine = n;
  CHECK(cudaMemcpy(count_in, &mine, sizeof(long long), cudaMemcpyHostToDevice));
  tilekit::multi::status s = tilekit::multi::sum(rk, readings, n, total);
  if (s.ok()) s = tilekit::multi::sum(rk, count_in, 1, total + 1);
  if (s.ok()) s = tilekit::multi::histogram_even(rk, readings, n, counters, bins + 1, lowest, highest);  // 2.
  std::int64_t count = 0;
  if (s.ok()) {
    CHECK(cudaStreamSynchronize(stream));
    long long sum_and_count[2];
    CHECK(cudaMemcpy(sum_and_count, total, sizeof(sum_and_count), cudaMemcpyDeviceToHost));
    r.total = sum_and_count[0];
    // 3. readings are integers: x > mean exactly when x > floor(mean)
    const long long mean_floor = sum_and_count[1] > 0 ? sum_and_count[0] / sum_and_count[1] : 0;
    s = tilekit::multi::select_if(rk, readings, n, kept, above{mean_floor}, &count, &r.offset);
  }
  CHECK(cudaFree(count_in));
  if (s.ok()) {
    CHECK(cudaStreamSynchronize(stream));
    r.histogram.resize(bins);
    CHECK(cudaMemcpy(r.histogram.data(), counters, sizeof(unsigned) * bins, cudaMemcpyDeviceToHost));
    r.kept.resize(std::size_t(count));
    CHECK(cudaMemcpy(r.kept.data(), kept, sizeof(long long) * std::size_t(count), cudaMemcpyDeviceToHost));
    r.ok = true;
  } else {
    std::printf("multi_gpu: rank %d: CUDA %s, NCCL %s\n", me, cudaGetErrorString(s.cuda), ncclGetErrorString(s.nccl));
  }
  for (void* p : {(void*)readings, (void*)kept, (void*)total, (void*)counters}) CHECK(cudaFree(p));
  CHECK(cudaStreamDestroy(stream));
  ncclCommDestroy(comm);
}

}  // namespace

int main() {
  int ranks = 0;
  if (cudaGetDeviceCount(&ranks) != cudaSuccess || ranks == 0) {
    std::printf("multi_gpu: no CUDA device\n");
    return 77;
  }
  const std::size_t total = small_inputs() ? std::size_t(1) << 16 : std::size_t(1) << 24;
  std::vector<long long> data(total);
  std::uint32_t x = 2026u;
  for (auto& v : data) {
    x = x * 1664525u + 1013904223u;
    v = (long long)((x >> 8) % std::uint32_t(highest));
  }
  // Uneven shards: rank k holds a share proportional to k + 1.
  std::vector<std::size_t> at(std::size_t(ranks) + 1, 0);
  const std::size_t weight = std::size_t(ranks) * std::size_t(ranks + 1) / 2;
  for (int k = 0; k < ranks; ++k)
    at[std::size_t(k) + 1] = k + 1 == ranks ? total : at[std::size_t(k)] + total * std::size_t(k + 1) / weight;
  ncclUniqueId id;
  if (ncclGetUniqueId(&id) != ncclSuccess) {
    std::printf("multi_gpu: ncclGetUniqueId failed\n");
    return 1;
  }
  std::vector<rank_result> results(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int k = 0; k < ranks; ++k)
    threads.emplace_back(run_rank, id, ranks, k,
                         std::vector<long long>(data.begin() + std::ptrdiff_t(at[std::size_t(k)]),
                                          data.begin() + std::ptrdiff_t(at[std::size_t(k) + 1])),
                         std::ref(results[std::size_t(k)]));
  for (auto& t : threads) t.join();

  // The CPU on the concatenated readings.
  long long sum = 0;
  std::vector<unsigned> histogram(bins, 0);
  for (long long v : data) sum += v, ++histogram[std::size_t(v) * bins / highest];
  const long long mean_floor = sum / (long long)total;
  std::vector<long long> kept;
  for (long long v : data)
    if (v > mean_floor) kept.push_back(v);

  int bad = 0;
  std::vector<long long> gathered(kept.size(), -1);
  for (int k = 0; k < ranks; ++k) {
    const rank_result& r = results[std::size_t(k)];
    if (!r.ok) {
      ++bad, std::printf("  rank %d failed\n", k);
      continue;
    }
    if (r.total != sum) ++bad, std::printf("  rank %d: sum %lld, want %lld\n", k, r.total, sum);
    if (r.histogram != histogram) ++bad, std::printf("  rank %d: wrong histogram\n", k);
    if (r.offset < 0 || std::size_t(r.offset) + r.kept.size() > kept.size()) {
      ++bad, std::printf("  rank %d: offset %lld with %zu kept, %zu in all\n", k, (long long)r.offset, r.kept.size(), kept.size());
      continue;
    }
    std::copy(r.kept.begin(), r.kept.end(), gathered.begin() + std::ptrdiff_t(r.offset));
  }
  if (gathered != kept) ++bad, std::printf("  the kept readings, placed at each rank's offset, differ from the CPU's\n");
  std::printf("multi_gpu: %zu readings on %d GPU%s: mean %.2f, %zu above it, histogram of %d bins\n", total, ranks,
              ranks == 1 ? "" : "s", double(sum) / double(total), kept.size(), bins);
  std::printf("%s\n", bad == 0 ? "multi_gpu: every result matches the CPU" : "multi_gpu: MISMATCHES");
  return bad == 0 ? 0 : 1;
}
