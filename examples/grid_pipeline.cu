// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "grid_pipeline.cpp"  // the same program, compiled by nvcc for the GPU
