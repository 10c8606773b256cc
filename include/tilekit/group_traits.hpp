// tilekit/group_traits.hpp - what every group type (GPU or simulated) says about itself.
#pragma once
#include <tilekit/detail/std.hpp>
#include <tilekit/operators.hpp>

namespace tilekit {

/// The rung of the ladder a group stands on.
enum class group_level { tile, block, grid };

template <class G>
inline constexpr bool is_tile_v = detail::remove_cvref_t<G>::level == group_level::tile;
template <class G>
inline constexpr bool is_block_v = detail::remove_cvref_t<G>::level == group_level::block;

/// The tile<N> of `parent` holding the calling thread, for the parent's backend
/// (GPU or simulator): consecutive runs of N thread ranks.
TILEKIT_EXEC_CHECK_DISABLE
template <unsigned N, class Parent>
TILEKIT_HD auto tiled_partition(const Parent& parent) {
  return parent.template partition<N>();
}

}  // namespace tilekit
