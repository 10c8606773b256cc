// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A small program written for CUB's collectives, spelled only with `cub::`.
// tests/gpu/cub_collectives.cu includes it twice: once inside a namespace where
// `namespace cub = ::cub;` (CUB itself) and once where `namespace cub = tilekit::cub;`
// (the facade), launches both and compares what they write. So this file compiling
// twice is the check that CUB code compiles unchanged against the facade.
// Everything it writes is defined under CUB's contracts (reduce results read in
// thread / lane 0 only), so the two must agree exactly (ints).
// No include guard: included twice on purpose.

// [cub-program]
// A running prefix carried from tile to tile: CUB's BlockPrefixCallbackOp.
struct running_sum {
  int total;
  __device__ int operator()(int block_aggregate) {
    const int old = total;
    total += block_aggregate;
    return old;
  }
};

// Exclusive prefix sums of n ints (n a multiple of 512) with one block of 128
// threads, 4 items each, tile after tile.
__global__ void scan_tiles(const int* in, int* out, int n) {
  using BlockScan = cub::BlockScan<int, 128>;
  __shared__ typename BlockScan::TempStorage temp_storage;
  running_sum prefix{0};
  for (int base = 0; base < n; base += 128 * 4) {
    int items[4];
    for (int k = 0; k < 4; ++k) items[k] = in[base + threadIdx.x * 4 + k];
    BlockScan(temp_storage).ExclusiveSum(items, items, prefix);
    __syncthreads();
    for (int k = 0; k < 4; ++k) out[base + threadIdx.x * 4 + k] = items[k];
  }
}
// [cub-program]

// Per block of 16 x 8 threads: the block's sum, its maximum (thread 0 writes them),
// and per logical warp of 16 lanes the maximum (lane 0 writes it).
__global__ void block_and_warp_totals(const int* in, int* block_out, int* warp_out) {
  using BlockReduce = cub::BlockReduce<int, 16, cub::BLOCK_REDUCE_RAKING, 8>;
  using WarpReduce = cub::WarpReduce<int, 16>;
  __shared__ typename BlockReduce::TempStorage reduce_storage;
  __shared__ typename WarpReduce::TempStorage warp_storage[128 / 16];
  const int tid = threadIdx.y * 16 + threadIdx.x;
  const int x = in[blockIdx.x * 128 + tid];
  const int sum = BlockReduce(reduce_storage).Sum(x);
  __syncthreads();
  const int max = BlockReduce(reduce_storage).Reduce(x, cuda::maximum<>{});
  if (tid == 0) {
    block_out[2 * blockIdx.x] = sum;
    block_out[2 * blockIdx.x + 1] = max;
  }
  const int warp_max = WarpReduce(warp_storage[tid / 16]).Reduce(x, cuda::maximum<>{});
  if (tid % 16 == 0) warp_out[blockIdx.x * 8 + tid / 16] = warp_max;
}

// Per thread: its inclusive maximum within its logical warp of 8 lanes, its exclusive
// sum within the warp, and the warp's total; then a block-wide inclusive maximum
// scan (warp-scans variant) over 64 threads.
__global__ void warp_and_block_scans(const int* in, int* out) {
  using WarpScan = cub::WarpScan<int, 8>;
  using BlockScan = cub::BlockScan<int, 64, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename WarpScan::TempStorage warp_storage[64 / 8];
  __shared__ typename BlockScan::TempStorage scan_storage;
  const int i = blockIdx.x * 64 + threadIdx.x;
  const int x = in[i];
  int inclusive_max, exclusive_sum, warp_total, block_max;
  WarpScan(warp_storage[threadIdx.x / 8]).InclusiveScan(x, inclusive_max, cuda::maximum<>{});
  __syncwarp();  // before the storage is reused
  WarpScan(warp_storage[threadIdx.x / 8]).ExclusiveSum(x, exclusive_sum, warp_total);
  BlockScan(scan_storage).InclusiveScan(x, block_max, cuda::maximum<>{});
  out[4 * i] = inclusive_max;
  out[4 * i + 1] = exclusive_sum;
  out[4 * i + 2] = warp_total;
  out[4 * i + 3] = block_max;
}

// A 256-bin histogram of 128 x 4 byte samples per block, added to global counters.
__global__ void byte_histogram(const unsigned char* in, unsigned* counters) {
  using BlockHistogram = cub::BlockHistogram<unsigned char, 128, 4, 256, cub::BLOCK_HISTO_ATOMIC>;
  __shared__ typename BlockHistogram::TempStorage temp_storage;
  __shared__ unsigned smem_histogram[256];
  unsigned char samples[4];
  for (int k = 0; k < 4; ++k) samples[k] = in[(blockIdx.x * 128 + threadIdx.x) * 4 + k];
  BlockHistogram(temp_storage).Histogram(samples, smem_histogram);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += 128) atomicAdd(counters + b, smem_histogram[b]);
}

// Per tile of 128 x 4 ints (the last one partial): BlockLoad (warp transpose, 0 past the
// end), an inclusive BlockScan, BlockStore (transpose) to out_a; then a striped load, a
// BlockExchange to blocked, an exclusive sum, back to striped, a striped store to out_b.
__global__ void load_scan_store(const int* in, int* out_a, int* out_b, int n) {
  using Load = cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using LoadStriped = cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_STRIPED>;
  using Store = cub::BlockStore<int, 128, 4, cub::BLOCK_STORE_TRANSPOSE>;
  using StoreStriped = cub::BlockStore<int, 128, 4, cub::BLOCK_STORE_STRIPED>;
  using Exchange = cub::BlockExchange<int, 128, 4>;
  using Scan = cub::BlockScan<int, 128>;
  __shared__ typename Load::TempStorage load_storage;
  __shared__ typename Store::TempStorage store_storage;
  __shared__ typename Exchange::TempStorage exchange_storage;
  __shared__ typename Scan::TempStorage scan_storage;
  const int base = blockIdx.x * 512, valid = n - base < 512 ? n - base : 512;
  int items[4];
  Load(load_storage).Load(in + base, items, valid, 0);
  Scan(scan_storage).InclusiveSum(items, items);
  Store(store_storage).Store(out_a + base, items, valid);
  __syncthreads();
  LoadStriped().Load(in + base, items, valid, 0);
  Exchange(exchange_storage).StripedToBlocked(items, items);
  __syncthreads();
  Scan(scan_storage).ExclusiveSum(items, items);
  __syncthreads();
  Exchange(exchange_storage).BlockedToStriped(items, items);
  StoreStriped().Store(out_b + base, items, valid);
}

// Per block of 64 threads x 3 items: run heads (after the first block, against the
// previous block's last item) and run tails (the block's last item always a tail).
struct items_differ {
  __device__ bool operator()(int a, int b) const { return a != b; }
};
__global__ void run_flags(const int* in, int* heads, int* tails) {
  using Discontinuity = cub::BlockDiscontinuity<int, 64>;
  __shared__ typename Discontinuity::TempStorage storage;
  const int base = blockIdx.x * 192 + threadIdx.x * 3;
  int items[3], h[3], t[3];
  for (int k = 0; k < 3; ++k) items[k] = in[base + k];
  if (blockIdx.x == 0) Discontinuity(storage).FlagHeads(h, items, items_differ{});
  else Discontinuity(storage).FlagHeads(h, items, items_differ{}, in[blockIdx.x * 192 - 1]);
  __syncthreads();
  Discontinuity(storage).FlagTails(t, items, items_differ{});
  for (int k = 0; k < 3; ++k) {
    heads[base + k] = h[k];
    tails[base + k] = t[k];
  }
}
