// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Cross-block memory model and grid.sync() in the CPU simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/grid_model.hpp"
