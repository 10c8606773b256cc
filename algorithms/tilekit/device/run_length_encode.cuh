// tilekit/device/run_length_encode.cuh - device-wide run-length encoding on the GPU,
// one pass (see tilekit/dedup.cuh, grid level).
//
//   run_length_encode(temp, temp_bytes, in, n, keys_out, lengths_out, num_runs_out[, stream])
//       every run of equal adjacent items (==): its item and its length
//   non_trivial_runs(temp, temp_bytes, in, n, offsets_out, lengths_out, num_runs_out[, stream])
//       the runs longer than one item: their offset and length
// Errors: cudaErrorInvalidValue, with nothing written, for n < 0, null pointers,
// a too small temp_bytes.
#pragma once
#include <tilekit/dedup.cuh>
#include <tilekit/launch.cuh>

#include <cuda_runtime.h>

#include <cstdint>

namespace tilekit::device {

template <class In, class KeysOut, class LengthsOut, class NumOut>
cudaError_t run_length_encode(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, KeysOut keys_out,
                              LengthsOut lengths_out, NumOut num_runs_out, cudaStream_t stream = 0) {
  return device_run_length_encode<false>(gpu_launcher{stream}, temp, temp_bytes, in, n, keys_out, lengths_out,
                                         num_runs_out);
}

template <class In, class OffsetsOut, class LengthsOut, class NumOut>
cudaError_t non_trivial_runs(void* temp, std::size_t& temp_bytes, In in, std::int64_t n, OffsetsOut offsets_out,
                             LengthsOut lengths_out, NumOut num_runs_out, cudaStream_t stream = 0) {
  return device_run_length_encode<true>(gpu_launcher{stream}, temp, temp_bytes, in, n, offsets_out, lengths_out,
                                        num_runs_out);
}

}  // namespace tilekit::device
