// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/cub/block_load_store.cuh - cub::BlockLoad, cub::BlockStore and
// cub::BlockExchange's interfaces over detail/arrangements.hpp (blocked, striped and
// warp-striped arrangements of a block's items, exchanged through shared memory).
//
// Covered (CUB's signatures, CCCL 3.0):
//   BlockLoad<T, X, K, ALGORITHM, Y, Z>:  Load(itr, items), Load(itr, items, valid_items),
//       Load(itr, items, valid_items, oob_default); every BlockLoadAlgorithm
//   BlockStore<T, X, K, ALGORITHM, Y, Z>: Store(itr, items), Store(itr, items, valid_items);
//       every BlockStoreAlgorithm
//   BlockExchange<T, X, K, WARP_TIME_SLICING, Y, Z>: StripedToBlocked, BlockedToStriped,
//       WarpStripedToBlocked, BlockedToWarpStriped (input and output may be the same array)
//   with TempStorage, the default constructor (a private __shared__ storage) and
//   the one taking a TempStorage&.
// The results are CUB's: every algorithm but the STRIPED ones leaves (or takes) the
// items blocked. Differences from CUB:
// - VECTORIZE reads and writes item by item (same items; no 16-byte vectors yet).
// - WARP_TRANSPOSE_TIMESLICED and WARP_TIME_SLICING exchange as their untimesliced
//   forms: the TempStorage holds the whole block's items.
// - The exchanges wait at a block barrier (CUB: a warp barrier for the warp-striped ones).
// - Not yet: ScatterToBlocked / ScatterToStriped and the other scatter forms.
// @pre every thread of the block calls; blockDim is (X, Y, Z); __syncthreads() before the
// TempStorage is reused (as CUB); the warp forms: X * Y * Z a multiple of 32.
#pragma once
#include <tilekit/cub/block_reduce.cuh>
#include <tilekit/cub/detail/arrangements.hpp>
#include <tilekit/core/storage.hpp>
#include <tilekit/gpu/groups.cuh>

namespace tilekit::cub {

/// CUB's ways of loading a block's items (see the file comment for what each gives).
enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT,
  BLOCK_LOAD_STRIPED,
  BLOCK_LOAD_VECTORIZE,
  BLOCK_LOAD_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};
/// CUB's ways of storing a block's items.
enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT,
  BLOCK_STORE_STRIPED,
  BLOCK_STORE_VECTORIZE,
  BLOCK_STORE_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};

namespace detail {
// The block of a facade class and its shared slots (Threads * K items).
template <class T, unsigned Threads, unsigned K>
struct block_slots {
  ::tilekit::detail::raw_slots<T, Threads * K> slots;
};
}  // namespace detail

/// cub::BlockExchange: rearranges ITEMS_PER_THREAD items per thread between the blocked,
/// striped and warp-striped arrangements through shared memory.
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING = false, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockExchange {
  static_assert(detail::is_block_dims_v<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>,
                "tilekit::cub::BlockExchange: BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z must be 1..1024 threads");
  static_assert(ITEMS_PER_THREAD >= 1, "tilekit::cub::BlockExchange: ITEMS_PER_THREAD must be at least 1");
  static constexpr unsigned threads = unsigned(BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z), K = unsigned(ITEMS_PER_THREAD);
  using layout = detail::layout;

 public:
  /// Shared memory of one call: the block's items.
  struct TempStorage : detail::block_slots<T, threads, K> {};

  /// Uses a `__shared__` TempStorage private to this specialisation (as CUB).
  __device__ __forceinline__ BlockExchange() : storage_(private_storage()) {}
  /// Uses temp_storage, the caller's shared memory.
  __device__ __forceinline__ BlockExchange(TempStorage& temp_storage) : storage_(temp_storage) {}

  /// Striped to blocked.
  template <class OutputT>
  __device__ __forceinline__ void StripedToBlocked(const T (&input_items)[ITEMS_PER_THREAD],
                                                   OutputT (&output_items)[ITEMS_PER_THREAD]) {
    move<layout::striped, layout::blocked>(input_items, output_items);
  }
  /// Blocked to striped.
  template <class OutputT>
  __device__ __forceinline__ void BlockedToStriped(const T (&input_items)[ITEMS_PER_THREAD],
                                                   OutputT (&output_items)[ITEMS_PER_THREAD]) {
    move<layout::blocked, layout::striped>(input_items, output_items);
  }
  /// Warp striped to blocked. @pre the block is whole warps.
  template <class OutputT>
  __device__ __forceinline__ void WarpStripedToBlocked(const T (&input_items)[ITEMS_PER_THREAD],
                                                       OutputT (&output_items)[ITEMS_PER_THREAD]) {
    move<layout::warp_striped, layout::blocked>(input_items, output_items);
  }
  /// Blocked to warp striped. @pre the block is whole warps.
  template <class OutputT>
  __device__ __forceinline__ void BlockedToWarpStriped(const T (&input_items)[ITEMS_PER_THREAD],
                                                       OutputT (&output_items)[ITEMS_PER_THREAD]) {
    move<layout::blocked, layout::warp_striped>(input_items, output_items);
  }

 private:
  template <layout From, layout To, class OutputT>
  __device__ __forceinline__ void move(const T (&in)[ITEMS_PER_THREAD], OutputT (&out)[ITEMS_PER_THREAD]) {
    T moved[ITEMS_PER_THREAD];
    detail::exchange<From, To, threads>(::tilekit::this_block<threads>(), in, moved, &storage_.slots[0]);
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) out[k] = OutputT(moved[k]);
  }
  static __device__ __forceinline__ TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }
  TempStorage& storage_;
};

/// cub::BlockLoad: loads ITEMS_PER_THREAD items per thread of the block's run at block_itr,
/// blocked (STRIPED: striped), the way ALGORITHM says (see the file comment).
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockLoad {
  static_assert(detail::is_block_dims_v<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>,
                "tilekit::cub::BlockLoad: BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z must be 1..1024 threads");
  static_assert(ITEMS_PER_THREAD >= 1, "tilekit::cub::BlockLoad: ITEMS_PER_THREAD must be at least 1");
  static constexpr unsigned threads = unsigned(BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z), K = unsigned(ITEMS_PER_THREAD);
  static constexpr bool warp_form =
      ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE || ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED;
  static_assert(!warp_form || threads % 32 == 0,
                "tilekit::cub::BlockLoad: BLOCK_LOAD_WARP_TRANSPOSE needs a block of whole warps (as CUB)");
  using layout = detail::layout;

 public:
  /// Shared memory of one call (the block's items, for the transposing algorithms).
  struct TempStorage : detail::block_slots<T, threads, K> {};

  /// Uses a `__shared__` TempStorage private to this specialisation (as CUB).
  __device__ __forceinline__ BlockLoad() : storage_(private_storage()) {}
  /// Uses temp_storage, the caller's shared memory.
  __device__ __forceinline__ BlockLoad(TempStorage& temp_storage) : storage_(temp_storage) {}

  /// Loads the block's threads * ITEMS_PER_THREAD items at block_itr.
  template <class InputIteratorT>
  __device__ __forceinline__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD]) {
    load(block_itr, items, int(threads * K));
  }
  /// Loads the first valid_items of them; the items past valid_items are left as they were (as CUB,
  /// whose are undefined there for the transposing algorithms).
  template <class InputIteratorT>
  __device__ __forceinline__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items) {
    load(block_itr, items, valid_items);
  }
  /// As above; the items past valid_items are oob_default.
  template <class InputIteratorT, class DefaultT>
  __device__ __forceinline__ void Load(InputIteratorT block_itr, T (&items)[ITEMS_PER_THREAD], int valid_items,
                                       DefaultT oob_default) {
    for (int k = 0; k < ITEMS_PER_THREAD; ++k) items[k] = T(oob_default);
    load(block_itr, items, valid_items);
  }

 private:
  template <class InputIteratorT>
  __device__ __forceinline__ void load(InputIteratorT in, T (&items)[ITEMS_PER_THREAD], int valid_items) {
    const auto block = ::tilekit::this_block<threads>();
    if constexpr (ALGORITHM == BLOCK_LOAD_STRIPED) detail::load_direct<layout::striped, threads>(block, in, items, valid_items);
    else if constexpr (ALGORITHM == BLOCK_LOAD_TRANSPOSE)
      detail::load_blocked_via<layout::striped, threads>(block, in, items, valid_items, &storage_.slots[0]);
    else if constexpr (warp_form)
      detail::load_blocked_via<layout::warp_striped, threads>(block, in, items, valid_items, &storage_.slots[0]);
    else detail::load_direct<layout::blocked, threads>(block, in, items, valid_items);
  }
  static __device__ __forceinline__ TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }
  TempStorage& storage_;
};

/// cub::BlockStore: stores ITEMS_PER_THREAD items per thread, blocked (STRIPED: striped), to the
/// block's run at block_itr, the way ALGORITHM says.
template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockStore {
  static_assert(detail::is_block_dims_v<BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z>,
                "tilekit::cub::BlockStore: BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z must be 1..1024 threads");
  static_assert(ITEMS_PER_THREAD >= 1, "tilekit::cub::BlockStore: ITEMS_PER_THREAD must be at least 1");
  static constexpr unsigned threads = unsigned(BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z), K = unsigned(ITEMS_PER_THREAD);
  static constexpr bool warp_form =
      ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE || ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED;
  static_assert(!warp_form || threads % 32 == 0,
                "tilekit::cub::BlockStore: BLOCK_STORE_WARP_TRANSPOSE needs a block of whole warps (as CUB)");
  using layout = detail::layout;

 public:
  /// Shared memory of one call (the block's items, for the transposing algorithms).
  struct TempStorage : detail::block_slots<T, threads, K> {};

  /// Uses a `__shared__` TempStorage private to this specialisation (as CUB).
  __device__ __forceinline__ BlockStore() : storage_(private_storage()) {}
  /// Uses temp_storage, the caller's shared memory.
  __device__ __forceinline__ BlockStore(TempStorage& temp_storage) : storage_(temp_storage) {}

  /// Stores the block's threads * ITEMS_PER_THREAD items at block_itr.
  template <class OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT block_itr, const T (&items)[ITEMS_PER_THREAD]) {
    store(block_itr, items, int(threads * K));
  }
  /// Stores the first valid_items of them.
  template <class OutputIteratorT>
  __device__ __forceinline__ void Store(OutputIteratorT block_itr, const T (&items)[ITEMS_PER_THREAD], int valid_items) {
    store(block_itr, items, valid_items);
  }

 private:
  template <class OutputIteratorT>
  __device__ __forceinline__ void store(OutputIteratorT out, const T (&items)[ITEMS_PER_THREAD], int valid_items) {
    const auto block = ::tilekit::this_block<threads>();
    if constexpr (ALGORITHM == BLOCK_STORE_STRIPED) detail::store_direct<layout::striped, threads>(block, out, items, valid_items);
    else if constexpr (ALGORITHM == BLOCK_STORE_TRANSPOSE)
      detail::store_blocked_via<layout::striped, threads>(block, out, items, valid_items, &storage_.slots[0]);
    else if constexpr (warp_form)
      detail::store_blocked_via<layout::warp_striped, threads>(block, out, items, valid_items, &storage_.slots[0]);
    else detail::store_direct<layout::blocked, threads>(block, out, items, valid_items);
  }
  static __device__ __forceinline__ TempStorage& private_storage() {
    __shared__ TempStorage storage;
    return storage;
  }
  TempStorage& storage_;
};

}  // namespace tilekit::cub
