// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb21 old side: the library at 224a876 (built with -I of its export) under another namespace name.
#define tilekit tilekit_old
#include "side.cuh"
RB21_SIDE(old)
