// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Device-wide reduce, segmented reduce and reduce by key in the simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/device_reduce.hpp"
#include "../cases/device_segmented_reduce.hpp"
#include "../cases/device_reduce_by_key.hpp"
