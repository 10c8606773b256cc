// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/multi/collectives.cuh - the level above the device: data sharded across the GPUs of an NCCL
// communicator (one rank per GPU, each rank's shard in its own device memory, a stream
// per rank). Each call is collective: every rank calls it, from its own host thread,
// with its own shard (n_local may differ between ranks and may be 0).
//
//   tilekit::multi::rank r{comm, stream};
//   sum / min / max(r, in, n_local, out)        *out (device) = the result over every shard, on every rank
//   histogram_even(r, samples, n_local, counters, num_levels, lower, upper)
//                                               counters (device) = the counts over every shard, on every rank
//   inclusive_sum / exclusive_sum(r, in, n_local, out)
//                                               out = this rank's part of the scan of the shards in rank order
//   select_if(r, in, n_local, out, pred, count, offset)
//                                               out = this rank's kept items; *count (host) their number,
//                                               *offset (host) the kept items of the lower ranks
//   distinct(r, keys, n_local, out, out_capacity, count)
//                                               keys go to the rank a hash picks (ncclSend / ncclRecv), then
//                                               each rank keeps its keys' first occurrences in the order of the
//                                               concatenated shards; *count (host) how many it holds
// Built on the device level (tilekit/device/*.cuh) plus one NCCL collective or exchange.
// Results: a status holding the first CUDA or NCCL error (ok() when there was none).
// Argument errors (a negative n_local, null pointers, bad levels) are found on the rank that has
// them, before its collective: that rank returns cudaErrorInvalidValue at once and the others wait
// in the collective, as with NCCL's own calls; every rank must pass valid arguments (one more
// collective per call to agree first would cost every call its latency). distinct's capacity
// check is the exception: it comes after the exchange, so every rank completes.
// Requires NCCL (target tilekit::multi, defined where CMake finds nccl.h and libnccl).
#pragma once
#include <tilekit/device/distinct.cuh>
#include <tilekit/device/histogram.cuh>
#include <tilekit/device/reduce.cuh>
#include <tilekit/device/scan.cuh>
#include <tilekit/device/select.cuh>

#include <cuda_fp16.h>
#include <nccl.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace tilekit::multi {

/// This rank's communicator and the stream its work goes to.
struct rank {
  ncclComm_t comm;          ///< this rank's NCCL communicator (one per GPU)
  cudaStream_t stream = 0;  ///< where this rank's kernels and collectives are queued
};

/// The first failure of a multi-GPU call: a CUDA error or an NCCL one.
struct status {
  cudaError_t cuda = cudaSuccess;   ///< the CUDA error, cudaSuccess if none
  ncclResult_t nccl = ncclSuccess;  ///< the NCCL error, ncclSuccess if none
  /// Neither failed.
  bool ok() const { return cuda == cudaSuccess && nccl == ncclSuccess; }
};

namespace detail {

inline status check(cudaError_t e) { return {e, ncclSuccess}; }
inline status check(ncclResult_t e) { return {cudaSuccess, e}; }

template <class T>
ncclDataType_t nccl_type() {
  using U = tilekit::detail::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, std::int8_t> || std::is_same_v<U, char>) return ncclInt8;
  else if constexpr (std::is_same_v<U, std::uint8_t>) return ncclUint8;
  else if constexpr (std::is_same_v<U, int>) return ncclInt32;
  else if constexpr (std::is_same_v<U, unsigned>) return ncclUint32;
  else if constexpr (std::is_same_v<U, long long> || std::is_same_v<U, long>) return ncclInt64;
  else if constexpr (std::is_same_v<U, unsigned long long> || std::is_same_v<U, unsigned long>) return ncclUint64;
  else if constexpr (std::is_same_v<U, __half>) return ncclFloat16;
  else if constexpr (std::is_same_v<U, float>) return ncclFloat32;
  else if constexpr (std::is_same_v<U, double>) return ncclFloat64;
  else static_assert(sizeof(U) == 0, "tilekit::multi: NCCL moves 8-, 16-, 32- and 64-bit integers and floating point only");
}

/// Device memory of count T allocated in a stream, freed there when it goes.
template <class T>
struct stream_buffer {
  T* p = nullptr;
  cudaStream_t stream;
  cudaError_t error;
  stream_buffer(std::size_t count, cudaStream_t s) : stream(s) {
    error = cudaMallocAsync(reinterpret_cast<void**>(&p), (count > 0 ? count : 1) * sizeof(T), s);
  }
  stream_buffer(const stream_buffer&) = delete;
  stream_buffer& operator=(const stream_buffer&) = delete;
  ~stream_buffer() {
    if (p) cudaFreeAsync(p, stream);
  }
};

struct place {  // this rank and how many there are
  int me = 0, ranks = 1;
};
inline status where(const rank& r, place& p) {
  if (auto e = ncclCommUserRank(r.comm, &p.me); e != ncclSuccess) return check(e);
  return check(ncclCommCount(r.comm, &p.ranks));
}

/// Every rank's one value of a device scalar, on the host, in rank order.
template <class T>
status gather_to_host(const rank& r, const T* mine, int ranks, std::vector<T>& all) {
  stream_buffer<T> gathered(std::size_t(ranks), r.stream);
  if (gathered.error != cudaSuccess) return check(gathered.error);
  if (auto e = ncclAllGather(mine, gathered.p, 1, nccl_type<T>(), r.comm, r.stream); e != ncclSuccess) return check(e);
  all.resize(std::size_t(ranks));
  if (auto e = cudaMemcpyAsync(all.data(), gathered.p, sizeof(T) * std::size_t(ranks), cudaMemcpyDeviceToHost, r.stream);
      e != cudaSuccess)
    return check(e);
  return check(cudaStreamSynchronize(r.stream));
}

template <class T, class Op>
status reduce_all(const rank& r, const T* in, std::int64_t n, T* out, Op op, ncclRedOp_t nccl_op) {
  if (auto e = device::reduce(in, n, out, op, identity<T>(op), r.stream); e != cudaSuccess) return check(e);
  return check(ncclAllReduce(out, out, 1, nccl_type<T>(), nccl_op, r.comm, r.stream));
}

template <bool Inclusive, class T>
status scan_all(const rank& r, const T* in, std::int64_t n, T* out) {
  place p;
  if (auto s = where(r, p); !s.ok()) return s;
  stream_buffer<T> total(1, r.stream);
  if (total.error != cudaSuccess) return check(total.error);
  if (auto e = device::reduce(in, n, total.p, plus{}, T{}, r.stream); e != cudaSuccess) return check(e);
  std::vector<T> totals;
  if (auto s = gather_to_host(r, total.p, p.ranks, totals); !s.ok()) return s;
  T offset{};
  for (int k = 0; k < p.me; ++k) offset = offset + totals[std::size_t(k)];
  return check(device::detail::with_temp(r.stream, [&](void* t, std::size_t& b) {
    if constexpr (Inclusive) return device::inclusive_scan_init(t, b, in, n, out, plus{}, offset, r.stream);
    else return device::exclusive_scan(t, b, in, n, out, plus{}, offset, r.stream);
  }));
}

template <class T>
struct goes_to {  // the rank a key is sent to: a hash unrelated to distinct's own table
  int rank, ranks;
  __host__ __device__ bool operator()(const T& key) const {
    tilekit::detail::key_bits_t<T> bits;
    std::memcpy(&bits, &key, sizeof(bits));
    return int((tilekit::detail::mix64(static_cast<unsigned long long>(bits) ^ 0x5851F42D4C957F2Dull) >> 33) %
               static_cast<unsigned long long>(ranks)) == rank;
  }
};

}  // namespace detail

template <class T>
status sum(const rank& r, const T* in, std::int64_t n_local, T* out) {
  return detail::reduce_all(r, in, n_local, out, plus{}, ncclSum);
}
template <class T>
status min(const rank& r, const T* in, std::int64_t n_local, T* out) {
  return detail::reduce_all(r, in, n_local, out, minimum{}, ncclMin);
}
template <class T>
status max(const rank& r, const T* in, std::int64_t n_local, T* out) {
  return detail::reduce_all(r, in, n_local, out, maximum{}, ncclMax);
}

/// Even bins as tilekit::device::histogram_even (and cub::DeviceHistogram::HistogramEven),
/// then one all-reduce of the num_levels - 1 counters.
template <class Sample, class Counter, class Level>
status histogram_even(const rank& r, const Sample* samples, std::int64_t n_local, Counter* counters, int num_levels,
                      Level lower, Level upper) {
  if (num_levels < 2) return detail::check(cudaErrorInvalidValue);
  std::size_t bytes = 0;
  if (auto e = device::histogram_even(nullptr, bytes, samples, n_local, counters, num_levels, lower, upper, r.stream);
      e != cudaSuccess)
    return detail::check(e);
  detail::stream_buffer<unsigned char> temp(bytes, r.stream);
  if (temp.error != cudaSuccess) return detail::check(temp.error);
  if (auto e = device::histogram_even(temp.p, bytes, samples, n_local, counters, num_levels, lower, upper, r.stream);
      e != cudaSuccess)
    return detail::check(e);
  return detail::check(
      ncclAllReduce(counters, counters, std::size_t(num_levels - 1), detail::nccl_type<Counter>(), ncclSum, r.comm, r.stream));
}

template <class T>
status inclusive_sum(const rank& r, const T* in, std::int64_t n_local, T* out) {
  return detail::scan_all<true>(r, in, n_local, out);
}
template <class T>
status exclusive_sum(const rank& r, const T* in, std::int64_t n_local, T* out) {
  return detail::scan_all<false>(r, in, n_local, out);
}

/// This rank's items with pred(x) to out (in order); *count = how many, *offset = how
/// many the lower ranks kept (this rank's part starts there in the global selection).
template <class T, class Pred>
status select_if(const rank& r, const T* in, std::int64_t n_local, T* out, Pred pred, std::int64_t* count,
                 std::int64_t* offset) {
  if (count == nullptr || offset == nullptr) return detail::check(cudaErrorInvalidValue);
  detail::place p;
  if (auto s = detail::where(r, p); !s.ok()) return s;
  detail::stream_buffer<std::int64_t> kept(1, r.stream);
  if (kept.error != cudaSuccess) return detail::check(kept.error);
  if (auto e = device::select_if(in, n_local, out, kept.p, pred, r.stream); e != cudaSuccess) return detail::check(e);
  std::vector<std::int64_t> all;
  if (auto s = detail::gather_to_host(r, kept.p, p.ranks, all); !s.ok()) return s;
  *count = all[std::size_t(p.me)];
  *offset = 0;
  for (int k = 0; k < p.me; ++k) *offset += all[std::size_t(k)];
  return {};
}

/// Distinct keys across ranks (4- or 8-byte integers). Each key goes to the rank a hash
/// picks; each rank then keeps the first occurrence of each of its keys, in the order of
/// the concatenated shards, and *count (host) says how many it holds in out.
/// cudaErrorInvalidValue, writing nothing to out, when this rank receives more than
/// out_capacity keys (its distinct keys could then not fit).
template <class T>
status distinct(const rank& r, const T* keys, std::int64_t n_local, T* out, std::int64_t out_capacity,
                std::int64_t* count) {
  if (count == nullptr || n_local < 0) return detail::check(cudaErrorInvalidValue);
  detail::place p;
  if (auto s = detail::where(r, p); !s.ok()) return s;
  const auto ranks = std::size_t(p.ranks);
  // Bucket the shard by destination, in order within each bucket (one select per rank).
  detail::stream_buffer<T> send(std::size_t(n_local), r.stream);
  detail::stream_buffer<std::int64_t> send_counts(ranks, r.stream), recv_counts(ranks, r.stream);
  if (send.error != cudaSuccess || send_counts.error != cudaSuccess || recv_counts.error != cudaSuccess)
    return detail::check(cudaErrorMemoryAllocation);
  std::vector<std::int64_t> send_at(ranks + 1, 0), sent(ranks, 0);
  for (std::size_t d = 0; d < ranks; ++d) {
    if (auto e = device::select_if(keys, n_local, send.p + send_at[d], send_counts.p + d, detail::goes_to<T>{int(d), p.ranks},
                                   r.stream);
        e != cudaSuccess)
      return detail::check(e);
    if (auto e = cudaMemcpyAsync(&sent[d], send_counts.p + d, sizeof(std::int64_t), cudaMemcpyDeviceToHost, r.stream);
        e != cudaSuccess)
      return detail::check(e);
    if (auto e = cudaStreamSynchronize(r.stream); e != cudaSuccess) return detail::check(e);
    send_at[d + 1] = send_at[d] + sent[d];
  }
  // The counts, then the keys, pairwise.
  if (auto e = ncclGroupStart(); e != ncclSuccess) return detail::check(e);
  ncclResult_t queued = ncclSuccess;  // the group is ended whatever happens, so no rank is left waiting
  for (std::size_t q = 0; q < ranks && queued == ncclSuccess; ++q) {
    queued = ncclSend(send_counts.p + q, 1, ncclInt64, int(q), r.comm, r.stream);
    if (queued == ncclSuccess) queued = ncclRecv(recv_counts.p + q, 1, ncclInt64, int(q), r.comm, r.stream);
  }
  if (auto e = ncclGroupEnd(); e != ncclSuccess || queued != ncclSuccess) return detail::check(queued != ncclSuccess ? queued : e);
  std::vector<std::int64_t> received(ranks), recv_at(ranks + 1, 0);
  if (auto e = cudaMemcpyAsync(received.data(), recv_counts.p, sizeof(std::int64_t) * ranks, cudaMemcpyDeviceToHost, r.stream);
      e != cudaSuccess)
    return detail::check(e);
  if (auto e = cudaStreamSynchronize(r.stream); e != cudaSuccess) return detail::check(e);
  for (std::size_t q = 0; q < ranks; ++q) recv_at[q + 1] = recv_at[q] + received[q];
  const bool fits = recv_at[ranks] <= out_capacity;
  detail::stream_buffer<T> recv(std::size_t(recv_at[ranks]), r.stream);
  if (recv.error != cudaSuccess) return detail::check(recv.error);
  if (auto e = ncclGroupStart(); e != ncclSuccess) return detail::check(e);
  for (std::size_t q = 0; q < ranks && queued == ncclSuccess; ++q) {
    if (sent[q] > 0) queued = ncclSend(send.p + send_at[q], std::size_t(sent[q]), detail::nccl_type<T>(), int(q), r.comm, r.stream);
    if (received[q] > 0 && queued == ncclSuccess)
      queued = ncclRecv(recv.p + recv_at[q], std::size_t(received[q]), detail::nccl_type<T>(), int(q), r.comm, r.stream);
  }
  if (auto e = ncclGroupEnd(); e != ncclSuccess || queued != ncclSuccess) return detail::check(queued != ncclSuccess ? queued : e);
  if (!fits) return detail::check(cudaErrorInvalidValue);  // after the exchange: the other ranks still complete
  // The received keys are in rank order and in shard order within a rank: the global order.
  detail::stream_buffer<std::int64_t> kept(1, r.stream);
  if (kept.error != cudaSuccess) return detail::check(kept.error);
  if (auto e = device::distinct(recv.p, recv_at[ranks], out, kept.p, r.stream); e != cudaSuccess) return detail::check(e);
  if (auto e = cudaMemcpyAsync(count, kept.p, sizeof(std::int64_t), cudaMemcpyDeviceToHost, r.stream); e != cudaSuccess)
    return detail::check(e);
  return detail::check(cudaStreamSynchronize(r.stream));
}

}  // namespace tilekit::multi
