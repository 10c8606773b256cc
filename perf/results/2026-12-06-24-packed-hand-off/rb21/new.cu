// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb21 new side: the working tree (packed and counted hand-offs).
#include "side.cuh"
RB21_SIDE(new)
