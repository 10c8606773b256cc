// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// rb14: reduce_cluster_kernel launched directly, ClusterBlocks x Threads as given (dispatch's per_block rule).
#include <tilekit/device/reduce.cuh>
template <unsigned CB, unsigned Th, class T>
cudaError_t cluster_sum(const T* in, long long n, T* out) {
  using K = tilekit::detail::reduce_cluster_kernel<CB, Th, const T*, T*, T, tilekit::plus>;
  if (n > K::max_items || n <= 0) return cudaErrorInvalidValue;
  const auto head = tilekit::detail::misaligned_head(K::shape::source::base(in), n);
  const typename K::slice_t slice{in, unsigned(n), unsigned(head), tilekit::plus{}};
  const unsigned per_cluster = CB * Th;
  const unsigned per_block = (slice.units() + per_cluster - 1) / per_cluster * Th;
  tilekit::gpu_launcher l{0};
  return l.run_cluster(CB, CB, Th, K{slice, per_block > 0 ? per_block : Th, out, T(0)}, sizeof(typename K::shared_t));
}
template <unsigned CB, unsigned Th, class T>
long long cluster_max() { return tilekit::detail::reduce_cluster_kernel<CB, Th, const T*, T*, T, tilekit::plus>::max_items; }
template <unsigned CB, unsigned Th, class T>
unsigned cluster_fit() {
  using K = tilekit::detail::reduce_cluster_kernel<CB, Th, const T*, T*, T, tilekit::plus>;
  return tilekit::gpu_launcher{0}.max_clusters(K{}, CB, Th, sizeof(typename K::shared_t));
}
