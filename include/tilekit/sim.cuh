// tilekit/sim.cuh - the CPU simulator: tilekit's group types, warp intrinsics and
// algorithms on simulated lanes, with the GPU's semantics. Plain C++17; needs
// Boost.Context (link tilekit::sim), not the CUDA toolkit.
//
//   tilekit::sim::launch(grid, block, body[, shared_bytes | options]);
//
// runs body(ctx) once per simulated thread, exactly as tilekit::launch runs it
// on the GPU. See tilekit/sim/intrinsics.hpp for the lane semantics and the
// misuse the simulator reports as tilekit::sim::error.
#pragma once
#include <tilekit/config.hpp>
#include <tilekit/operators.hpp>
#include <tilekit/sim/groups.hpp>

#include <tilekit/reduce.cuh>
#include <tilekit/scan.cuh>
#include <tilekit/compact.cuh>
#include <tilekit/histogram.cuh>
#include <tilekit/dedup.cuh>
