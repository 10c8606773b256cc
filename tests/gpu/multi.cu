// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The multi-GPU level (tilekit/multi.cuh) over NCCL: one rank per visible GPU, each
// on its own host thread with its own stream, the data split into uneven shards (the
// first shard empty when there are two ranks or more). Every result must equal what
// the CPU computes on the concatenated data (and so what the single-GPU algorithms
// give on it). With one GPU this runs every path on a one-rank communicator.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/tile_common.hpp"

#include <tilekit/multi.cuh>

#include <algorithm>
#include <limits>
#include <thread>
#include <unordered_set>

namespace {

struct below_100 {
  __host__ __device__ bool operator()(int x) const { return x < 100; }
};

struct shard_result {
  long long sum = 0;
  int min = 0, max = 0;
  std::vector<unsigned> bins;
  std::vector<long long> inclusive, exclusive;
  std::vector<int> selected;
  std::int64_t selected_offset = -1;
  std::vector<long long> distinct;
  bool ok = false;
};

#define MULTI_CHECK(call)                  \
  do {                                     \
    const auto s_ = (call);                \
    if (!s_.ok()) {                        \
      failures.push_back(#call);           \
      return;                              \
    }                                      \
  } while (0)

// What rank `me` of `ranks` computes on its shard data[begin, end).
void run_rank(ncclUniqueId id, int ranks, int me, const std::vector<int>& data, std::size_t begin, std::size_t end,
              shard_result& r, std::vector<std::string>& failures) {
  if (cudaSetDevice(me) != cudaSuccess) return failures.push_back("cudaSetDevice");
  ncclComm_t comm;
  if (ncclCommInitRank(&comm, ranks, id, me) != ncclSuccess) return failures.push_back("ncclCommInitRank");
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const tilekit::multi::rank rk{comm, stream};
  const std::int64_t n = std::int64_t(end - begin);
  std::vector<int> shard(data.begin() + std::ptrdiff_t(begin), data.begin() + std::ptrdiff_t(end));
  std::vector<long long> wide(shard.begin(), shard.end());
  int *in = nullptr, *selected = nullptr, *extremes = nullptr;
  long long *in64 = nullptr, *sum = nullptr, *scan = nullptr, *uniq = nullptr;
  unsigned* bins = nullptr;
  const std::size_t cap = data.size() + 1;
  cudaMalloc(&in, sizeof(int) * (shard.size() + 1));
  cudaMalloc(&in64, sizeof(long long) * (shard.size() + 1));
  cudaMalloc(&selected, sizeof(int) * (shard.size() + 1));
  cudaMalloc(&extremes, sizeof(int) * 2);
  cudaMalloc(&sum, sizeof(long long));
  cudaMalloc(&scan, sizeof(long long) * 2 * (shard.size() + 1));
  cudaMalloc(&uniq, sizeof(long long) * cap);
  cudaMalloc(&bins, sizeof(unsigned) * 64);
  cudaMemcpy(in, shard.data(), sizeof(int) * shard.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(in64, wide.data(), sizeof(long long) * wide.size(), cudaMemcpyHostToDevice);
  [&] {
    MULTI_CHECK(tilekit::multi::sum(rk, in64, n, sum));
    MULTI_CHECK(tilekit::multi::min(rk, in, n, extremes));
    MULTI_CHECK(tilekit::multi::max(rk, in, n, extremes + 1));
    MULTI_CHECK(tilekit::multi::histogram_even(rk, in, n, bins, 65, -1000, 1000));
    MULTI_CHECK(tilekit::multi::inclusive_sum(rk, in64, n, scan));
    MULTI_CHECK(tilekit::multi::exclusive_sum(rk, in64, n, scan + shard.size() + 1));
    std::int64_t kept = 0;
    MULTI_CHECK(tilekit::multi::select_if(rk, in, n, selected, below_100{}, &kept, &r.selected_offset));
    std::int64_t mine = 0;
    MULTI_CHECK(tilekit::multi::distinct(rk, in64, n, uniq, std::int64_t(cap), &mine));
    cudaStreamSynchronize(stream);
    cudaMemcpy(&r.sum, sum, sizeof(long long), cudaMemcpyDeviceToHost);
    int ex[2];
    cudaMemcpy(ex, extremes, sizeof(ex), cudaMemcpyDeviceToHost);
    r.min = ex[0], r.max = ex[1];
    r.bins.resize(64);
    cudaMemcpy(r.bins.data(), bins, sizeof(unsigned) * 64, cudaMemcpyDeviceToHost);
    r.inclusive.resize(shard.size());
    r.exclusive.resize(shard.size());
    cudaMemcpy(r.inclusive.data(), scan, sizeof(long long) * shard.size(), cudaMemcpyDeviceToHost);
    cudaMemcpy(r.exclusive.data(), scan + shard.size() + 1, sizeof(long long) * shard.size(), cudaMemcpyDeviceToHost);
    r.selected.resize(std::size_t(kept));
    cudaMemcpy(r.selected.data(), selected, sizeof(int) * std::size_t(kept), cudaMemcpyDeviceToHost);
    r.distinct.resize(std::size_t(mine));
    cudaMemcpy(r.distinct.data(), uniq, sizeof(long long) * std::size_t(mine), cudaMemcpyDeviceToHost);
    r.ok = cudaDeviceSynchronize() == cudaSuccess;
  }();
  for (void* p : {(void*)in, (void*)in64, (void*)selected, (void*)extremes, (void*)sum, (void*)scan, (void*)uniq, (void*)bins})
    cudaFree(p);
  cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(multi_gpu)

BOOST_AUTO_TEST_CASE(every_algorithm_equals_the_cpu_on_the_concatenated_shards) {
  int ranks = 0;
  TK_CUDA_CHECK(cudaGetDeviceCount(&ranks));
  auto g = tk_test::rng_for(tk_test::next_salt());
  for (std::size_t total : {std::size_t(0), std::size_t(1), std::size_t(1000003)}) {
    std::vector<int> data(total);
    for (auto& x : data) x = int(g() % 2001) - 1000;
    // Shards: rank k gets a share proportional to k (rank 0 none when there are several ranks).
    std::vector<std::size_t> at(std::size_t(ranks) + 1, 0);
    const std::size_t weight = std::size_t(ranks) * std::size_t(ranks + 1) / 2;
    for (int k = 0; k < ranks; ++k)
      at[std::size_t(k) + 1] = k + 1 == ranks ? total : at[std::size_t(k)] + total * std::size_t(ranks > 1 ? k : 1) / weight;
    ncclUniqueId id;
    BOOST_REQUIRE(ncclGetUniqueId(&id) == ncclSuccess);
    std::vector<shard_result> results(static_cast<std::size_t>(ranks));
    std::vector<std::vector<std::string>> failures(static_cast<std::size_t>(ranks));
    std::vector<std::thread> threads;
    for (int k = 0; k < ranks; ++k)
      threads.emplace_back(run_rank, id, ranks, k, std::cref(data), at[std::size_t(k)], at[std::size_t(k) + 1],
                           std::ref(results[std::size_t(k)]), std::ref(failures[std::size_t(k)]));
    for (auto& t : threads) t.join();
    // The CPU on the concatenated data.
    long long sum = 0, run = 0;
    int lo = std::numeric_limits<int>::max(), hi = std::numeric_limits<int>::lowest();
    std::vector<unsigned> bins(64, 0);
    std::vector<long long> inclusive, exclusive, uniq;
    std::vector<int> selected;
    std::unordered_set<long long> seen;
    for (int x : data) {
      sum += x, lo = std::min(lo, x), hi = std::max(hi, x);
      if (x < 1000) ++bins[std::size_t((long long)(x + 1000) * 64 / 2000)];  // [-1000, 1000) in 64 bins
      exclusive.push_back(run);
      inclusive.push_back(run += x);
      if (x < 100) selected.push_back(x);
      if (seen.insert(x).second) uniq.push_back(x);
    }
    BOOST_TEST_CONTEXT(ranks << " rank(s), " << total << " items, TILEKIT_TEST_SEED=" << tk_test::base_seed()) {
      std::vector<long long> distinct_seen;
      std::int64_t offset = 0;
      for (int k = 0; k < ranks; ++k) {
        const shard_result& r = results[std::size_t(k)];
        BOOST_TEST(failures[std::size_t(k)].empty(), "rank " << k << ": " << (failures[std::size_t(k)].empty() ? "" : failures[std::size_t(k)][0]));
        BOOST_TEST(r.ok);
        BOOST_TEST(r.sum == sum);
        if (total > 0) BOOST_TEST((r.min == lo && r.max == hi));
        BOOST_TEST(r.bins == bins);
        const auto b = std::ptrdiff_t(at[std::size_t(k)]), e = std::ptrdiff_t(at[std::size_t(k) + 1]);
        BOOST_TEST(std::equal(r.inclusive.begin(), r.inclusive.end(), inclusive.begin() + b, inclusive.begin() + e));
        BOOST_TEST(std::equal(r.exclusive.begin(), r.exclusive.end(), exclusive.begin() + b, exclusive.begin() + e));
        BOOST_TEST(r.selected_offset == offset);
        BOOST_TEST(std::equal(r.selected.begin(), r.selected.end(), selected.begin() + offset));
        offset += std::int64_t(r.selected.size());
        distinct_seen.insert(distinct_seen.end(), r.distinct.begin(), r.distinct.end());
      }
      BOOST_TEST(offset == std::int64_t(selected.size()));
      // Every distinct key on exactly one rank, each rank's in the global order of first occurrence.
      std::vector<long long> sorted_seen = distinct_seen, sorted_want = uniq;
      std::sort(sorted_seen.begin(), sorted_seen.end());
      std::sort(sorted_want.begin(), sorted_want.end());
      BOOST_TEST(sorted_seen == sorted_want);
      std::size_t out_of_order = 0;
      for (int k = 0; k < ranks; ++k) {
        const auto& d = results[std::size_t(k)].distinct;
        std::size_t at_global = 0;
        for (long long key : d) {
          const auto pos = std::size_t(std::find(uniq.begin(), uniq.end(), key) - uniq.begin());
          out_of_order += pos < at_global;
          at_global = pos;
        }
      }
      BOOST_TEST(out_of_order == 0u);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
