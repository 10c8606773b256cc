// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Every device algorithm through a proxy-reference iterator, in the simulator.
#include "../common/sim_backend.hpp"
using backend = tk_test::sim_backend;
#include "../cases/device_iterators.hpp"
