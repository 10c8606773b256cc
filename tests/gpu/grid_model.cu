// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Cross-block memory model and grid.sync() on the GPU.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/grid_model.hpp"
