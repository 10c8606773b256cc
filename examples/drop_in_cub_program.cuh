// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The program drop_in_cub.cpp switches from CUB to tilekit: written once against
// `cub::`, nothing in it names tilekit. drop_in_cub.cpp includes this file twice,
// once where `namespace cub = ::cub;` (CUB itself) and once where
// `namespace cub = ::tilekit::cub;` (tilekit's facade), runs both and compares
// their outputs byte for byte. In an application that includes <tilekit/cub.cuh>
// in place of CUB's headers, the switch is the one line
//   namespace cub = tilekit::cub;
// The includer provides device_outputs (where the results go) and TRY(call)
// (return the call's error).
// No include guard: included twice on purpose.

struct is_even {
  __host__ __device__ bool operator()(int x) const { return x % 2 == 0; }
};

// Per block of 256 items: the block's sum (thread 0 writes it: the result is
// defined in thread 0 under CUB's contract) and every item's exclusive prefix sum
// within its block. The two collectives share their shared memory.
__global__ void block_sums(const int* in, int n, int* block_total, int* block_prefix) {
  using BlockReduce = cub::BlockReduce<int, 256>;
  using BlockScan = cub::BlockScan<int, 256>;
  __shared__ union storage_t {
    typename BlockReduce::TempStorage reduce;
    typename BlockScan::TempStorage scan;
  } temp;
  const int i = blockIdx.x * 256 + threadIdx.x;
  const int x = i < n ? in[i] : 0;
  const int total = BlockReduce(temp.reduce).Sum(x);
  __syncthreads();  // before the storage is reused
  int prefix;
  BlockScan(temp.scan).ExclusiveSum(x, prefix);
  if (threadIdx.x == 0) block_total[blockIdx.x] = total;
  if (i < n) block_prefix[i] = prefix;
}

// CUB's two-phase protocol: the call with no storage sets the size, the second runs.
template <class Call>
cudaError_t two_phases(Call call) {
  std::size_t bytes = 0;
  TRY(call(nullptr, bytes));
  void* temp = nullptr;
  TRY(cudaMalloc(&temp, bytes > 0 ? bytes : 1));  // a null pointer would only ask for the size again
  const cudaError_t e = call(temp, bytes);
  TRY(cudaFree(temp));
  return e;
}

// The program: a sum, prefix sums, the even items, a 64-bin histogram over [0, 1000),
// the runs of equal items, and per-block sums and prefixes, of in[0 .. n).
inline cudaError_t run_program(const int* in, int n, const device_outputs& d) {
  TRY(two_phases([&](void* t, std::size_t& b) { return cub::DeviceReduce::Sum(t, b, in, d.sum, n); }));
  TRY(two_phases([&](void* t, std::size_t& b) { return cub::DeviceScan::ExclusiveSum(t, b, in, d.offsets, n); }));
  TRY(two_phases([&](void* t, std::size_t& b) { return cub::DeviceSelect::If(t, b, in, d.evens, d.num_evens, n, is_even{}); }));
  TRY(two_phases([&](void* t, std::size_t& b) {
    return cub::DeviceHistogram::HistogramEven(t, b, in, d.histogram, 65, 0, 1000, n);
  }));
  TRY(two_phases([&](void* t, std::size_t& b) {
    return cub::DeviceRunLengthEncode::Encode(t, b, in, d.run_keys, d.run_lengths, d.num_runs, n);
  }));
  block_sums<<<(n + 255) / 256, 256>>>(in, n, d.block_total, d.block_prefix);
  TRY(cudaGetLastError());
  return cudaDeviceSynchronize();
}
