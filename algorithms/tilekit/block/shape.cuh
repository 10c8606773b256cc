// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/block/shape.cuh - what the block-level algorithms share: the warp
// layout of a block, its compile-time size, and the items of a partial block.
#pragma once
#include <tilekit/core/group.hpp>
#include <tilekit/core/std.hpp>

namespace tilekit::detail {

/// x < bound, written so that nvcc does not warn of a pointless comparison where
/// bound is 0 (block_shape<Threads>::full_warps of a block under 32 threads).
TILEKIT_HD constexpr bool below(unsigned x, unsigned bound) { return x < bound; }

/// The warps of a block of Threads threads: Full whole warps, then a last
/// warp of Rest lanes when Threads is not a multiple of 32.
template <unsigned Threads>
struct block_shape {
  static_assert(Threads >= 1 && Threads <= 1024,
                "tilekit block algorithms: Threads must be 1..1024 (use this_block<Threads>() / ctx.block<Threads>())");
  static constexpr unsigned full_warps = Threads / 32;
  static constexpr unsigned rest = Threads % 32;
  static constexpr unsigned warps = full_warps + (rest ? 1 : 0);
};

template <class Block>
TILEKIT_HD constexpr unsigned static_threads() {
  static_assert(Block::static_size > 0,
                "tilekit block algorithms need the block size at compile time: use tilekit::this_block<Threads>() "
                "or ctx.block<Threads>()");
  return Block::static_size;
}

/// How many of the K items of thread `rank` lie below valid_items (blocked arrangement).
TILEKIT_HD unsigned items_valid(unsigned rank, unsigned k, unsigned valid_items) {
  const unsigned first = rank * k;
  return valid_items <= first ? 0u : (valid_items - first < k ? valid_items - first : k);
}

}  // namespace tilekit::detail
