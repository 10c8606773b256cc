#include "reduction_study.cpp"  // the same program, compiled by nvcc for the GPU
