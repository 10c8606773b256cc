// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grid rung (reduce, scans, compact inside a kernel; cooperative launch) in the CPU simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/grid_level.hpp"
