// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "skewed_histogram.cpp"  // the same program, compiled by nvcc for the GPU
