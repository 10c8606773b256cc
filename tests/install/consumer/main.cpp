// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Reduces over a tile in the simulator through the installed headers.
#include <tilekit/sim.cuh>

#include <cstdio>
#include <vector>

int main() {
  std::vector<int> out(64);
  tilekit::sim::launch(1, 64, [&](auto& ctx) {
    auto block = ctx.block();
    auto tile = tilekit::tiled_partition<32>(block);
    out[block.thread_rank()] = tilekit::reduce(tile, int(block.thread_rank()), tilekit::plus{});
  });
  const bool ok = out[0] == 496 && out[63] == 1520;
  std::printf("consumer: tilekit %d, tile sums %d and %d: %s\n", TILEKIT_VERSION, out[0], out[63], ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
