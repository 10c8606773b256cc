#include "tile_tour.cpp"  // the same program, compiled by nvcc for the GPU
