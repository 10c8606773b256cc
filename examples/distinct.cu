// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "distinct.cpp"  // the same program, compiled by nvcc for the GPU
