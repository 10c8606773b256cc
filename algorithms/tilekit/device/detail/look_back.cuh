// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/device/detail/look_back.cuh - what the device level's single-pass
// dispatches add to the grid rung's look-back (grid/detail/look_back.cuh): the
// chunk states carved from the caller's temporary storage.
#pragma once
#include <tilekit/device/detail/dispatch.cuh>
#include <tilekit/device/detail/tuning.cuh>
#include <tilekit/grid/detail/look_back.cuh>

namespace tilekit::detail {

// The chunks ahead whose input a single-pass block asks L2 for (prefetch_tuning): a share of the
// blocks resident at once, sms x blocks_per_sm. 0: none.
inline count_t prefetch_ahead(unsigned sms, unsigned blocks_per_sm) {
  return count_t(sms) * blocks_per_sm * prefetch_tuning::ahead_percent / 100;
}
// Asks L2 for the items of chunk `chunk + ahead` of in[0 .. n), where in is a pointer and that
// chunk is whole and starts 16-byte aligned (in is, and a chunk is a multiple of 16 bytes);
// nothing for other inputs (iterators).
template <class Backend, class In>
TILEKIT_HD void prefetch_chunk_ahead(const In& in, count_t n, count_t chunk, count_t chunk_items, count_t ahead) {
  if constexpr (stdx::is_pointer<In>::value) {
    const count_t first = (chunk + ahead) * chunk_items, bytes = chunk_items * count_t(sizeof(*in));
    if (ahead > 0 && n - first >= chunk_items && bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0)
      Backend::prefetch_l2_bytes(in + first, unsigned(bytes));
  }
}

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

// Chunk states that need no zeroing before the launch, so that the single-pass kernel
// is the call's only launch (no memset, no zeroing kernel): epoch_states under an epoch
// that each launch draws from the call's tag (next_call_tag, passed as a kernel argument)
// and a counter at the head of the storage. Every chunk reads the counter before it
// publishes anything; the last chunk, whose look-back ends only after every chunk
// before it has published (each inclusive prefix stands on its predecessors'), then
// advances it. A CUDA graph replaying the launch repeats the tag, not the counter.
// Anything else in the storage (garbage, a previous call's states) matches the
// epoch with odds of 2^-62 per state.
template <class T, class States = epoch_states<T>>
struct launch_states {
  using states_t = States;
  unsigned long long* counter;
  unsigned long long* tags;
  unsigned* values;
  unsigned long long call_tag;

  /// The counter, read by every chunk before it publishes (early: its latency hides
  /// behind the chunk's loads; only this word stays live, not the states).
  template <class Backend>
  TILEKIT_HD unsigned long long read_counter() const {
    return Backend::load_relaxed(counter);
  }
  /// Brings chunk's state into L2 (a hint), so that successors polling it before it is
  /// published do not each wait for DRAM (the storage is not zeroed, so not in L2).
  template <class Backend>
  TILEKIT_HD void warm(count_t chunk) const {
    Backend::prefetch_l2(tags + states_t::tag_words * chunk);
  }
  /// The states this launch publishes and polls, from the counter as read.
  TILEKIT_HD states_t at(unsigned long long seen) const { return {tags, values, mix64(call_tag ^ seen) >> 2}; }
  /// Called once, by the last chunk after its look-back (or as the only chunk).
  template <class Backend>
  TILEKIT_HD void close(unsigned long long seen) const {
    Backend::store_relaxed(counter, seen + 1);
  }
};

// launch_states for `chunks` chunks carved from temporary storage (a null temp: only the
// bytes needed); [first, first + used) is what the kernel reads before writing.
template <class T, class States>
struct launch_state_storage {
  launch_states<T, States> states;
  void* first;
  std::size_t used;
  std::size_t bytes;
};
template <class T, class States = epoch_states<T>>
TILEKIT_HD launch_state_storage<T, States> carve_launch_states(void* temp, count_t chunks, unsigned long long call_tag) {
  using states_t = States;
  temp_carver carve(temp);
  auto* counter = carve.take<unsigned long long>(2);  // 16 bytes: the tags after it stay 16-byte aligned
  auto* tags = carve.take<unsigned long long>(std::size_t(chunks) * states_t::tag_words);
  unsigned* values = carve.take<unsigned>(std::size_t(chunks) * states_t::value_words);
  const std::size_t used = carve.bytes() - (temp_carver::alignment - 1);
  return {launch_states<T, States>{counter, tags, values, call_tag}, counter, used, carve.bytes()};
}

}  // namespace tilekit::detail
