#include "drop_in_cub.cpp"  // the same program, compiled by nvcc for the GPU
