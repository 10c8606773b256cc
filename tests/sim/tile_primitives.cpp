// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The members of tile<N> in the CPU simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/tile_primitives.hpp"
