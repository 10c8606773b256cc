// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grid rung (reduce, scans, compact inside a kernel; cooperative launch) on the GPU.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/grid_level.hpp"
