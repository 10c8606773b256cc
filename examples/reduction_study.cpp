// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Studying hierarchical reductions: a sum taken from tile to block to grid.
//
// In the simulator (this file compiled by a plain C++ compiler) the tile and
// block steps run on a small input with tracing on, so every shuffle prints the
// lane table: where each value comes from and what each lane holds after it.
// Three ways to reduce 8 lanes are shown side by side:
//   butterfly   shfl_xor by 1, 2, 4: every lane ends with the sum (tilekit::reduce_butterfly)
//   down tree   shfl_down by 4, 2, 1: only lane 0 ends with the sum (CUB's WarpReduce shape)
//   hardware    one redux.sync: every lane gets the sum (tilekit::reduce_hardware, 32-bit integers)
// then a block of 64 threads (two warps and the step through shared memory), then
// the one-launch device reduce on 100000 items. With TILEKIT_STUDY_SVG_DIR=<folder> it also
// draws each tile variant and the block step as an SVG picture of the lanes in that folder
// (butterfly.svg, down_tree.svg, redux.svg, block_64.svg; see docs/trace/).
//
// On the GPU (this file compiled by nvcc, as reduction_study.cu) the same three tile
// steps are timed on register data, and the device reduce against CUB on 2^26 items,
// and the program says what the measurements show. Both check every sum against the CPU.
#if defined(__CUDACC__)
#  include <tilekit/device/reduce.cuh>
#  include <tilekit/tilekit.cuh>
#  include <cub/device/device_reduce.cuh>
#else
#  include <tilekit/sim.cuh>
#endif

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

enum class variant { butterfly, down_tree, hardware };

// The sum of one value per lane over a tile, three ways; lane 0 always has it.
TILEKIT_EXEC_CHECK_DISABLE
template <variant V, class Tile>
TILEKIT_HD int tile_sum(const Tile& tile, int v) {
  if constexpr (V == variant::butterfly) {
    return tilekit::reduce_butterfly(tile, v, tilekit::plus{});
  } else if constexpr (V == variant::down_tree) {
    for (unsigned offset = Tile::size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    return v;  // complete in lane 0 only
  } else {
    return tilekit::reduce_hardware(tile, v, tilekit::plus{});
  }
}

#if !defined(__CUDACC__)

// One tile of 8 lanes (the first of the block), each variant in turn.
struct tile_steps {
  int* out;  // 3 sums, from lane 0
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto tile = tilekit::tiled_partition<8>(ctx.template block<32>());
    if (tile.meta_group_rank() != 0) return;  // the other tiles sit this out
    const int v = int(tile.thread_rank()) * 10 + 1;
    const int a = tile_sum<variant::butterfly>(tile, v);
    const int b = tile_sum<variant::down_tree>(tile, v);
    const int c = tile_sum<variant::hardware>(tile, v);
    if (tile.thread_rank() == 0) out[0] = a, out[1] = b, out[2] = c;
  }
};

// One variant alone on the first tile of 8, for its own picture.
template <variant V>
struct tile_step {
  int* out;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto tile = tilekit::tiled_partition<8>(ctx.template block<32>());
    if (tile.meta_group_rank() != 0) return;
    const int s = tile_sum<V>(tile, int(tile.thread_rank()) * 10 + 1);
    if (tile.thread_rank() == 0) *out = s;
  }
};

// A block of 64: each warp reduces, the warp totals meet in shared memory.
struct block_step {
  int* out;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<64>();
    auto& storage = ctx.template shared<tilekit::reduce_storage<int, 64>>();
    const int total = tilekit::reduce(block, int(block.thread_rank()), tilekit::plus{}, storage);
    if (block.thread_rank() == 0) *out = total;
  }
};

// The tile and block steps again, each drawn as one SVG file in dir; returns the wrong sums.
unsigned draw_steps(const std::string& dir) {
  unsigned errors = 0;
  tilekit::sim::options drawn;
  int sum = 0;
  auto draw = [&](const char* name, auto body, std::size_t shared_bytes, int want) {
    drawn.trace_svg = dir + "/" + name;
    drawn.shared_bytes = shared_bytes;
    tilekit::sim::launch(1, shared_bytes ? 64 : 32, body, drawn);
    errors += sum != want;
    std::printf("   drew %s\n", drawn.trace_svg.c_str());
  };
  draw("butterfly.svg", tile_step<variant::butterfly>{&sum}, 0, 288);
  draw("down_tree.svg", tile_step<variant::down_tree>{&sum}, 0, 288);
  draw("redux.svg", tile_step<variant::hardware>{&sum}, 0, 288);
  draw("block_64.svg", block_step{&sum}, sizeof(tilekit::reduce_storage<int, 64>), 2016);
  return errors;
}

int main() {
  unsigned errors = 0;
  tilekit::sim::options traced;
  traced.trace = true;

  std::printf("== tile level: 8 lanes holding 1, 11, 21, ..., 71 (sum 288)\n");
  std::printf("   butterfly: shfl_xor by 1, 2, 4 -- after each step every lane holds a partial sum of twice as many lanes\n");
  std::printf("   down tree: shfl_down by 4, 2, 1 -- the upper lanes read past the tile and keep their own value\n");
  std::printf("   hardware:  one redux.sync\n\n");
  int tile_out[3] = {};
  traced.shared_bytes = 0;
  tilekit::sim::launch(1, 32, tile_steps{tile_out}, traced);
  for (int s : tile_out) errors += s != 288;
  std::printf("\n   lane 0 after each: butterfly %d, down tree %d, hardware %d\n", tile_out[0], tile_out[1], tile_out[2]);

  std::printf("\n== block level: 64 threads holding their rank (sum 2016): one redux per warp, the two warp totals\n"
              "   through shared memory, then one more redux per warp over them: every thread gets 2016\n\n");
  int block_out = 0;
  traced.shared_bytes = sizeof(tilekit::reduce_storage<int, 64>);
  tilekit::sim::launch(1, 64, block_step{&block_out}, traced);
  errors += block_out != 2016;
  std::printf("\n   block total %d\n", block_out);

  std::printf("\n== device level: the device reduce of 100000 items (i %% 100) in one launch: every block folds its\n"
              "   tiles and publishes its total beside the call's tag; the last block waits for each tag and\n"
              "   adds the totals in block order\n");
  std::vector<int> in(100000);
  long long want = 0;
  for (std::size_t i = 0; i < in.size(); ++i) want += in[i] = int(i % 100);
  long long total = -1;
  std::size_t bytes = 0;
  tilekit::sim::launcher launcher;
  tilekit::device_reduce(launcher, nullptr, bytes, in.data(), std::int64_t(in.size()), &total, tilekit::plus{}, 0ll);
  std::vector<unsigned char> temp(bytes);
  errors += tilekit::device_reduce(launcher, temp.data(), bytes, in.data(), std::int64_t(in.size()), &total,
                                   tilekit::plus{}, 0ll) != launcher.success;
  errors += total != want;
  std::printf("   total %lld (the CPU says %lld)\n", total, want);
  if (const char* dir = std::getenv("TILEKIT_STUDY_SVG_DIR"); dir && *dir) {
    std::printf("\n== pictures: the tile and block steps as SVG files\n");
    errors += draw_steps(dir);
  }
  std::printf("\nreduction_study (simulator): %s\n", errors == 0 ? "every sum matches the CPU" : "MISMATCHES against the CPU");
  return errors == 0 ? 0 : 1;
}

#else  // the GPU: timings

// Every warp reduces `rounds` register values per lane as tile<32> sums, chained so
// that nothing is hoisted; lane 0 adds its result to *sink.
template <variant V>
struct tile_timing {
  int rounds;
  unsigned long long* sink;
  template <class Ctx>
  __device__ void operator()(Ctx& ctx) const {
    auto tile = tilekit::tiled_partition<32>(ctx.block());
    int v = int(tile.thread_rank()) + 1, acc = 0;
#  pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
      const int s = tile_sum<V>(tile, v);
      acc += tile.shfl(s, 0);  // the sum is complete in lane 0 for every variant
      v += s & 1;
    }
    if (tile.thread_rank() == 0) atomicAdd(sink, static_cast<unsigned long long>(acc));
  }
};

#  define CHECK(call)                                                                             \
    do {                                                                                          \
      const cudaError_t e_ = (call);                                                              \
      if (e_ != cudaSuccess) {                                                                    \
        std::printf("reduction_study: %s: %s\n", #call, cudaGetErrorString(e_));                  \
        std::exit(1);                                                                             \
      }                                                                                           \
    } while (0)

// Milliseconds of the fastest of 5 runs of launch().
template <class Launch>
float best_ms(Launch launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  launch();  // warm-up
  float best = 1e30f;
  for (int i = 0; i < 5; ++i) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    best = ms < best ? ms : best;
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  return best;
}

template <variant V>
float time_tile(unsigned blocks, int rounds, unsigned long long* sink) {
  return best_ms([&] { CHECK(tilekit::launch(blocks, 256, 0, tile_timing<V>{rounds, sink})); });
}

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("reduction_study: no CUDA device (run reduction_study_sim instead)\n");
    return 77;
  }
  unsigned errors = 0;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const unsigned blocks = unsigned(sms) * 8;
  const int rounds = 1024;
  unsigned long long* sink;
  CHECK(cudaMalloc(&sink, sizeof(unsigned long long)));
  const double warp_sums = double(blocks) * (256 / 32) * rounds;
  const float t_butterfly = time_tile<variant::butterfly>(blocks, rounds, sink);
  const float t_down = time_tile<variant::down_tree>(blocks, rounds, sink);
  const float t_hardware = time_tile<variant::hardware>(blocks, rounds, sink);
  std::printf("== tile level: %.0f warp sums of 32 lanes each, register data\n", warp_sums);
  std::printf("   butterfly %.1f G sums/s, down tree %.1f G sums/s, hardware %.1f G sums/s\n", warp_sums / t_butterfly / 1e6,
              warp_sums / t_down / 1e6, warp_sums / t_hardware / 1e6);
  std::printf("   the butterfly and the down tree both take 5 shuffle steps (the tree leaves the sum in lane 0 only);\n"
              "   redux.sync does the whole warp in one instruction: %.1fx the butterfly here\n",
              t_butterfly / t_hardware);

  // The device level: tilekit's one launch against CUB's two, on memory.
  const std::size_t n = std::size_t(1) << 26;
  std::vector<int> h(n);
  long long want = 0;
  for (std::size_t i = 0; i < n; ++i) want += h[i] = int(i % 1000) - 500;
  int* in;
  long long *a, *b;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&a, sizeof(long long)));
  CHECK(cudaMalloc(&b, sizeof(long long)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::size_t tk_bytes = 0, cub_bytes = 0;
  CHECK(tilekit::device::reduce(nullptr, tk_bytes, in, std::int64_t(n), a, tilekit::plus{}, 0ll));
  CHECK(cub::DeviceReduce::Reduce(nullptr, cub_bytes, in, b, int(n), cuda::std::plus<>{}, 0ll));
  void *tk_temp, *cub_temp;
  CHECK(cudaMalloc(&tk_temp, tk_bytes));
  CHECK(cudaMalloc(&cub_temp, cub_bytes));
  const float t_tk = best_ms([&] { CHECK(tilekit::device::reduce(tk_temp, tk_bytes, in, std::int64_t(n), a, tilekit::plus{}, 0ll)); });
  const float t_cub = best_ms([&] { CHECK(cub::DeviceReduce::Reduce(cub_temp, cub_bytes, in, b, int(n), cuda::std::plus<>{}, 0ll)); });
  long long got_tk = 0, got_cub = 0;
  CHECK(cudaMemcpy(&got_tk, a, sizeof(got_tk), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&got_cub, b, sizeof(got_cub), cudaMemcpyDeviceToHost));
  errors += got_tk != want;
  errors += got_cub != want;
  const double gbps = double(n) * sizeof(int) / 1e6;
  std::printf("\n== device level: device reduce of 2^26 int32 into int64 (L2 warm after the first run)\n");
  std::printf("   tilekit (one launch) %.1f us, %.0f GB/s; CUB (two launches) %.1f us, %.0f GB/s\n", t_tk * 1e3, gbps / t_tk,
              t_cub * 1e3, gbps / t_cub);
  std::printf("   at this size both stream at memory speed: the tile and block steps are a small share of the time,\n"
              "   the launch count matters for small inputs (see perf/device_bench.cu)\n");
  for (void* p : {(void*)sink, (void*)in, (void*)a, (void*)b, tk_temp, cub_temp}) cudaFree(p);
  std::printf("\nreduction_study (GPU): %s\n", errors == 0 ? "every sum matches the CPU" : "MISMATCHES against the CPU");
  return errors == 0 ? 0 : 1;
}

#endif
