#include "skewed_histogram.cpp"  // the same program, compiled by nvcc for the GPU
