// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A second program written for CUB, spelled only with `cub::`: a kernel with BlockLoad,
// BlockScan and BlockStore, and on the host DeviceSelect::UniqueByKey,
// DeviceReduce::ReduceByKey, DeviceSegmentedReduce::Sum, an in-place
// DeviceScan::InclusiveSum and DeviceHistogram::MultiHistogramEven (3 of 4 channels).
// tests/gpu/cub_collectives.cu includes it twice, with `namespace cub = ::cub;` and with
// `namespace cub = tilekit::cub;`, runs both on the same data and compares every output
// byte for byte. No include guard: included twice on purpose.

struct device_program_io {
  const int* keys;          // n keys in runs
  const long long* values;  // n values
  const int* in;            // n items
  int* data;                // n items, scanned in place
  const unsigned char* pixels;  // pixel_count RGBA pixels
  const long long* offsets;     // segments + 1 offsets into in
  int n, segments, pixel_count;
  int* tiles;               // n: the block-wise inclusive sums of in
  int* unique_keys;         // UniqueByKey
  long long* unique_values;
  int* num_unique;
  int* run_keys;            // ReduceByKey of in by keys
  int* run_sums;
  int* num_runs;
  int* segment_sums;        // segments
  unsigned* histograms;     // 3 x 256
};

// Per tile of 128 x 4: load (warp transpose), inclusive sum, store (transpose).
__global__ void tile_sums(const int* in, int* out, int n) {
  using Load = cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<int, 128>;
  using Store = cub::BlockStore<int, 128, 4, cub::BLOCK_STORE_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } storage;
  const int base = blockIdx.x * 512, valid = n - base < 512 ? n - base : 512;
  int items[4];
  Load(storage.load).Load(in + base, items, valid, 0);
  __syncthreads();
  Scan(storage.scan).InclusiveSum(items, items);
  __syncthreads();
  Store(storage.store).Store(out + base, items, valid);
}

template <class Call>
cudaError_t device_two_phases(Call call) {
  std::size_t bytes = 0;
  if (cudaError_t e = call(nullptr, bytes); e != cudaSuccess) return e;
  void* temp = nullptr;
  if (cudaError_t e = cudaMalloc(&temp, bytes > 0 ? bytes : 1); e != cudaSuccess) return e;
  const cudaError_t e = call(temp, bytes);
  cudaFree(temp);
  return e;
}

inline cudaError_t run_device_program(const device_program_io& p) {
  tile_sums<<<(p.n + 511) / 512, 128>>>(p.in, p.tiles, p.n);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  cudaError_t e = device_two_phases([&](void* t, std::size_t& b) {
    return cub::DeviceSelect::UniqueByKey(t, b, p.keys, p.values, p.unique_keys, p.unique_values, p.num_unique, p.n);
  });
  if (e == cudaSuccess)
    e = device_two_phases([&](void* t, std::size_t& b) {
      return cub::DeviceReduce::ReduceByKey(t, b, p.keys, p.run_keys, p.in, p.run_sums, p.num_runs, ::cuda::std::plus<>{}, p.n);
    });
  if (e == cudaSuccess)
    e = device_two_phases([&](void* t, std::size_t& b) {
      return cub::DeviceSegmentedReduce::Sum(t, b, p.in, p.segment_sums, p.segments, p.offsets, p.offsets + 1);
    });
  if (e == cudaSuccess)
    e = device_two_phases([&](void* t, std::size_t& b) { return cub::DeviceScan::InclusiveSum(t, b, p.data, p.n); });
  if (e == cudaSuccess)
    e = device_two_phases([&](void* t, std::size_t& b) {
      ::cuda::std::array<unsigned*, 3> h{p.histograms, p.histograms + 256, p.histograms + 512};
      return cub::DeviceHistogram::MultiHistogramEven<4, 3>(t, b, p.pixels, h, ::cuda::std::array<int, 3>{257, 257, 257},
                                                            ::cuda::std::array<int, 3>{0, 0, 0},
                                                            ::cuda::std::array<int, 3>{256, 256, 256}, p.pixel_count);
    });
  if (e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
}
