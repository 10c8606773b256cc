// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Block level in the CPU simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/block_level.hpp"
