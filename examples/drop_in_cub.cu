// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "drop_in_cub.cpp"  // the same program, compiled by nvcc for the GPU
