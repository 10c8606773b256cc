// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/multi.cuh - the multi-GPU level: the device level's algorithms over data
// sharded across the GPUs of an NCCL communicator (tilekit/multi/collectives.cuh).
// Requires NCCL (target tilekit::multi).
#pragma once
#include <tilekit/multi/collectives.cuh>
