// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide distinct, unique count and count in the simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/device_distinct.hpp"
