// tilekit/detail/grid_io.hpp - what the device-wide (grid level) algorithms share:
// 64-bit counts, loads of 16-byte vectors where the input allows, and the
// layout of the temporary storage they carve from one caller-provided buffer.
#pragma once
#include <tilekit/detail/std.hpp>

#include <cstddef>

namespace tilekit::detail {

/// Item counts and indices of the device-wide algorithms (up to 2^63 - 1 items).
using count_t = std::int64_t;

template <class It>
using value_of = remove_cvref_t<decltype(*stdx::declval<It&>())>;

/// Whether an iterator argument is a null pointer (iterators of other types never are):
/// the argument checks of every device-wide dispatch.
template <class It>
TILEKIT_HD bool is_null(const It& it) {
  if constexpr (stdx::is_pointer<It>::value) return it == nullptr;
  else return false;
}

/// Inputs read as 16-byte vectors: pointers to arithmetic types that divide 16 bytes.
template <class It>
inline constexpr bool vector_loadable_v =
    stdx::is_pointer<It>::value && stdx::is_arithmetic<value_of<It>>::value && 16 % sizeof(value_of<It>) == 0;

/// Items per 16-byte vector of It's values (1 for inputs read item by item).
template <class It>
constexpr unsigned vector_items() {
  if constexpr (vector_loadable_v<It>) return 16 / sizeof(value_of<It>);
  else return 1;
}

template <class V, unsigned N>
struct alignas(16) vector_of {
  V item[N];
};

/// Items before the first 16-byte boundary of a vector-loadable input (0 otherwise).
template <class It>
TILEKIT_HD count_t misaligned_head(It in, count_t n) {
  if constexpr (vector_loadable_v<It>) {
    const auto address = reinterpret_cast<std::uintptr_t>(in);
    if (address % sizeof(value_of<It>) != 0) return n;  // not even item-aligned: read item by item
    const count_t head = count_t((16 - address % 16) % 16 / sizeof(value_of<It>));
    return head < n ? head : n;
  } else {
    return 0;
  }
}

/// The N items at p (16-byte aligned) in one load.
template <class V, unsigned N>
TILEKIT_HD vector_of<V, N> load_vector(const V* p) {
#if TILEKIT_DEVICE_PASS
  return *reinterpret_cast<const vector_of<V, N>*>(p);
#else
  vector_of<V, N> v;
  std::memcpy(&v, p, sizeof(v));  // the simulator: no aliasing through the vector type
  return v;
#endif
}

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
