// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
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
#include <tilekit/core/config.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/sim/groups.hpp>

#include <tilekit/block/compact.cuh>
#include <tilekit/block/dedup.cuh>
#include <tilekit/block/histogram.cuh>
#include <tilekit/block/reduce.cuh>
#include <tilekit/block/scan.cuh>
#include <tilekit/cluster/compact.cuh>
#include <tilekit/cluster/dedup.cuh>
#include <tilekit/cluster/histogram.cuh>
#include <tilekit/cluster/reduce.cuh>
#include <tilekit/cluster/scan.cuh>
#include <tilekit/grid/chain.cuh>
#include <tilekit/grid/dedup.cuh>
#include <tilekit/grid/histogram.cuh>
#include <tilekit/grid/reduce.cuh>
#include <tilekit/grid/scan.cuh>
#include <tilekit/tile/compact.cuh>
#include <tilekit/tile/dedup.cuh>
#include <tilekit/tile/histogram.cuh>
#include <tilekit/tile/reduce.cuh>
#include <tilekit/tile/scan.cuh>
// The device level's kernels and dispatch (tilekit::device_scan(launcher, ...) etc.),
// run by a tilekit::sim::launcher.
#include <tilekit/device/distinct.cuh>
#include <tilekit/device/histogram.cuh>
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/reduce_by_key.cuh>
#include <tilekit/device/run_length_encode.cuh>
#include <tilekit/device/scan.cuh>
#include <tilekit/device/segmented_reduce.cuh>
#include <tilekit/device/select.cuh>
