// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/tilekit.cuh - the GPU side in one include: the groups, launch, and the
// tile, block, cluster and grid levels of the five algorithms. The device level (kernels of
// their own) is one header per algorithm: tilekit/device/*.cuh.
#pragma once
#include <tilekit/core/config.hpp>
#include <tilekit/core/operators.hpp>
#include <tilekit/gpu/groups.cuh>
#include <tilekit/gpu/launch.cuh>

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
