// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "reduction_study.cpp"  // the same program, compiled by nvcc for the GPU
