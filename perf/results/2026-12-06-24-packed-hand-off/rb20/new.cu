// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb20's new side: the working tree (the packed hand-off).
#include "side.cuh"
RB20_SIDE(new)
