// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/detail/dispatch.cuh - what every device-level dispatch shares:
// the temporary storage carved from one caller-provided buffer (CUB's two-phase
// protocol), and on the GPU the calls that allocate it in the stream.
#pragma once
#include <tilekit/core/iterator.hpp>

#if defined(__CUDACC__)
#  include <tilekit/gpu/launch.cuh>
#  include <cuda_runtime.h>
#endif

namespace tilekit::detail {

/// Carves aligned pieces out of one temporary-storage buffer; with a null base it
/// only adds up the bytes needed (the size query of the two-phase protocol).
class temp_carver {
 public:
  explicit TILEKIT_HD temp_carver(void* base) : base_(static_cast<unsigned char*>(base)) {}
  template <class T>
  TILEKIT_HD T* take(std::size_t count) {
    used_ = (used_ + 255) / 256 * 256;  // every piece 256-byte aligned, as cudaMalloc's
    T* p = base_ ? reinterpret_cast<T*>(base_ + used_) : nullptr;
    used_ += count * sizeof(T);
    return p;
  }
  TILEKIT_HD std::size_t bytes() const { return used_ > 0 ? used_ : 1; }

 private:
  unsigned char* base_;
  std::size_t used_ = 0;
};

}  // namespace tilekit::detail

#if defined(__CUDACC__)
namespace tilekit::device::detail {
// Runs call(temp, temp_bytes) twice: the size query, then with storage allocated in the stream.
template <class Call>
cudaError_t with_temp(cudaStream_t stream, Call call) {
  std::size_t bytes = 0;
  if (cudaError_t e = call(nullptr, bytes); e != cudaSuccess) return e;
  void* temp = nullptr;
  if (cudaError_t e = cudaMallocAsync(&temp, bytes, stream); e != cudaSuccess) return e;
  const cudaError_t e = call(temp, bytes);
  const cudaError_t f = cudaFreeAsync(temp, stream);
  return e != cudaSuccess ? e : f;
}
}  // namespace tilekit::device::detail
#endif
