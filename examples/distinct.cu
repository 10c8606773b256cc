#include "distinct.cpp"  // the same program, compiled by nvcc for the GPU
