// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub.cuh - the CUB-compatible facade: with
//
//   #include <tilekit/cub.cuh>
//   namespace cub = tilekit::cub;
//
// code written against CUB's device-wide calls and its warp and block collectives
// (WarpReduce, WarpScan, BlockReduce, BlockScan, BlockHistogram) compiles unchanged
// and runs on tilekit. What it covers and where it differs: README.md, "The device
// level", and each header's opening comment.
#pragma once
#include <tilekit/cub/device_reduce.cuh>
#include <tilekit/cub/device_scan.cuh>
#include <tilekit/cub/device_histogram.cuh>
#include <tilekit/cub/device_run_length_encode.cuh>
#include <tilekit/cub/device_segmented_reduce.cuh>
#include <tilekit/cub/device_select.cuh>
#include <tilekit/cub/warp_reduce.cuh>
#include <tilekit/cub/warp_scan.cuh>
#include <tilekit/cub/block_reduce.cuh>
#include <tilekit/cub/block_scan.cuh>
#include <tilekit/cub/block_histogram.cuh>
#include <tilekit/cub/block_discontinuity.cuh>
#include <tilekit/cub/block_load_store.cuh>
