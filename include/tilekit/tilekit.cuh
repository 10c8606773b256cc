// tilekit/tilekit.cuh - everything on the GPU side: groups, launch, and the algorithms.
#pragma once
#include <tilekit/config.hpp>
#include <tilekit/operators.hpp>
#include <tilekit/groups.cuh>
#include <tilekit/launch.cuh>

#include <tilekit/reduce.cuh>
#include <tilekit/scan.cuh>
#include <tilekit/compact.cuh>
#include <tilekit/histogram.cuh>
#include <tilekit/dedup.cuh>
