// tilekit/device/detail/tuning.cuh - the shapes of the device-level kernels:
// threads per block, items per thread, blocks per multiprocessor. Chosen by
// measurement (perf/device_bench.cu; the numbers are in perf/results).
#pragma once

namespace tilekit {

/// The device-wide reduce.
struct reduce_tuning {
  static constexpr unsigned threads = 256;
  static constexpr unsigned vectors = 4;        // 16-byte loads per thread per chunk
  static constexpr unsigned scalar_items = 16;  // items per thread per chunk for other inputs
  static constexpr unsigned blocks_per_sm = 8;
};

/// The device-wide scan.
struct scan_tuning {
  static constexpr unsigned threads = 128;
  static constexpr unsigned vectors = 6;       // 16-byte loads per thread (6 ahead of 4 on the H200)
  static constexpr unsigned scalar_items = 8;  // items per thread for other inputs
};

struct select_tuning {
  static constexpr unsigned threads = 128;
  static constexpr unsigned vector_rows = 6;  // rows per warp when rows are 16-byte vectors (6 ahead of 4 on the H200)
  static constexpr unsigned scalar_rows = 8;  // and for inputs read item by item
};

struct run_length_encode_tuning {
  static constexpr unsigned threads = 128;
  static constexpr unsigned blocks_per_sm = 5;       // up to 102 registers: no spills at 16 items per lane
  static constexpr unsigned items_per_lane = 16;     // rows of 16-byte vectors: 16 / (items per vector) rows
  static constexpr unsigned scalar_rows = 8;         // for inputs read item by item
};

struct histogram_tuning {
  static constexpr unsigned threads = 256;
  static constexpr unsigned items = 8;    // samples per thread per pass, striped (item by item)
  static constexpr unsigned vectors = 4;  // 16-byte vectors in flight per thread
  static constexpr unsigned blocks_per_sm = 4;
};

}  // namespace tilekit
