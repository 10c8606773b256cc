// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Tile-level scan on the GPU.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/tile_scan.hpp"
