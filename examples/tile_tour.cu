// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "tile_tour.cpp"  // the same program, compiled by nvcc for the GPU
