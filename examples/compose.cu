#include "compose.cpp"  // the same program, compiled by nvcc for the GPU
