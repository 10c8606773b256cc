// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/detail/look_back.cuh - what the device level's single-pass
// dispatches add to the grid rung's look-back (grid/detail/look_back.cuh): the
// chunk states carved from the caller's temporary storage.
#pragma once
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/grid/detail/look_back.cuh>

namespace tilekit::detail {

// The chunk states of `chunks` chunks carved from temporary storage (a null temp:
// only the bytes needed), and the words that must start at zero ("nothing
// published yet") before the launch: what every look-back dispatch shares.
template <class States>
struct chunk_state_storage {
  States states;
  unsigned* zero_from;
  std::size_t zero_bytes;
  std::size_t bytes;
};
template <class T, class States = chunk_states<T>>
TILEKIT_HD chunk_state_storage<States> carve_chunk_states(void* temp, count_t chunks) {
  using states_t = States;
  temp_carver carve(temp);
  unsigned* flags = carve.take<unsigned>(std::size_t(chunks) * states_t::flag_words);
  unsigned* values = carve.take<unsigned>(std::size_t(chunks) * states_t::value_words);
  const bool packed = states_t::flag_words == 0;  // the flags live in the value words
  return {states_t{flags, values}, packed ? values : flags,
          std::size_t(chunks) * (packed ? states_t::value_words : states_t::flag_words) * sizeof(unsigned), carve.bytes()};
}

}  // namespace tilekit::detail
