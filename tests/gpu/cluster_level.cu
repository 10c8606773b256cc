// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The cluster rung (reduce, scans, compact, histogram, dedup across a thread-block cluster through
// distributed shared memory; sm_90) on the GPU.
#include "../common/gpu_backend.cuh"
using backend = tk_test::gpu_backend;
#include "../cases/cluster_level.hpp"
