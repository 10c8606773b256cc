// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// tilekit/core/storage.hpp - storage helpers every level shares: uninitialised
// slots (so storages can share a union in shared memory whatever T's
// constructors), and the "maybe" wrapper that lets partial tiles (valid_items)
// reuse the full-tile code paths without needing an identity for the operator.
#pragma once
#include <tilekit/core/std.hpp>

namespace tilekit::detail {

/// N slots of T, left unconstructed so storages can share a union and live in
/// __shared__ memory whatever T's constructors.
template <class T, unsigned N>
struct raw_slots {
  static_assert(N >= 1, "raw_slots: at least one slot");
  alignas(T) unsigned char bytes[N * sizeof(T)];
  TILEKIT_HD T& operator[](unsigned i) { return reinterpret_cast<T*>(bytes)[i]; }
  TILEKIT_HD const T& operator[](unsigned i) const { return reinterpret_cast<const T*>(bytes)[i]; }
};

/// A value that may be absent: partial tiles scan and reduce these, so absent
/// items need no identity element.
template <class T>
struct maybe {
  T value;
  bool present;
};

template <class Op>
struct maybe_op {
  Op op;
  TILEKIT_EXEC_CHECK_DISABLE
  template <class T>
  TILEKIT_HD maybe<T> operator()(const maybe<T>& a, const maybe<T>& b) const {
    if (a.present && b.present) return {op(a.value, b.value), true};
    return a.present ? a : b;
  }
};

}  // namespace tilekit::detail
