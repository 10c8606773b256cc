// tilekit/histogram.cuh - histogram: every lane adds one sample to caller-provided
// counters (shared or global memory).
//
// Tile level (tile<N>), variants:
//   histogram_atomic    one atomic add per sample.
//   histogram_match     lanes holding the same bin are found with match_any and their
//                       leader adds the group's count: one atomic per distinct bin.
//                       Bins of 4- or 8-byte integers.
//   histogram           the default: histogram_atomic on shared-memory counters,
//                       histogram_match on global ones (checked at run time).
// Measured on the H200 (perf/tile_bench.cu, samples per second, tile<32>):
//   shared counters: atomic runs 15x match on uniform bins, 2.1x on skewed data (75% in
//   one bin), 5x when all samples hit one bin (shared atomics to one address in a
//   warp are cheap); match never pays there.
//   global counters: match runs 18x atomic on skewed data (6x at tile<8>), ties on one
//   bin, and 0.97x on 4096 uniform bins (0.56x at tile<4>): aggregation pays where
//   contention on L2 atomics is the cost.
// Every lane of the tile calls; a lane with valid == false contributes nothing.
// @pre 0 <= bin < number of counters for every valid lane (not checked here).
//
// Block level: counters privatised in the block's shared memory, any number of
// bins that fits there (Counter[bins], runtime or compile-time count):
//   histogram_init(block, counters, bins)                 zero them (ends with block.sync())
//   histogram(block, items[K], counters[, valid_items])  add the block's samples
//   histogram_merge(block, counters, global, bins)        block.sync(), then add the
//                                                         non-zero counters to global ones
// Samples go to shared counters with one atomic each: on the H200 shared-memory
// atomics beat match_any aggregation on every distribution measured, including
// all samples in one bin (see histogram above). Bins past 256 stay in shared memory
// (CUB's BlockHistogram sorts or goes to global atomics instead).
// histogram_storage<Counter, Bins> holds a compile-time count; for a run-time
// count give histogram_storage_bytes<Counter>(bins) of dynamic shared memory.
#pragma once
#include <tilekit/detail/block_shape.hpp>
#include <tilekit/detail/grid_io.hpp>
#include <tilekit/group_traits.hpp>

namespace tilekit {

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class Bin, class Counter, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD void histogram_atomic(const Tile&, const Bin& bin, Counter* counters, bool valid = true) {
  if (valid) Tile::backend::atomic_add(counters + bin, Counter(1));
}

TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class Bin, class Counter, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD void histogram_match(const Tile& tile, const Bin& bin, Counter* counters, bool valid = true) {
  static_assert(detail::stdx::is_integral<Bin>::value && (sizeof(Bin) == 4 || sizeof(Bin) == 8),
                "tilekit::histogram_match: bins must be 32- or 64-bit integers; use histogram_atomic");
  const unsigned peers = tile.match_any(bin) & tile.ballot(valid);
  if (valid && detail::lowest_bit(peers) == tile.thread_rank())
    Tile::backend::atomic_add(counters + bin, static_cast<Counter>(detail::popc(peers)));
}

/// Adds each valid lane's sample to counters[bin].
TILEKIT_EXEC_CHECK_DISABLE
template <class Tile, class Bin, class Counter, detail::stdx::enable_if_t<is_tile_v<Tile>, int> = 0>
TILEKIT_HD void histogram(const Tile& tile, const Bin& bin, Counter* counters, bool valid = true) {
  if constexpr (Tile::size() > 1 && detail::stdx::is_integral<Bin>::value && (sizeof(Bin) == 4 || sizeof(Bin) == 8)) {
    if (!Tile::backend::is_shared(counters)) {
      histogram_match(tile, bin, counters, valid);
      return;
    }
  }
  histogram_atomic(tile, bin, counters, valid);
}

// ---------------------------------------------------------------- block level

/// Shared counters for Bins bins.
template <class Counter, unsigned Bins>
struct histogram_storage {
  static_assert(Bins >= 1, "tilekit::histogram_storage: at least one bin");
  Counter counters[Bins];
};

/// Bytes of shared memory for `bins` counters.
template <class Counter>
TILEKIT_HD constexpr std::size_t histogram_storage_bytes(std::size_t bins) { return bins * sizeof(Counter); }

TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Counter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram_init(const Block& block, Counter* counters, unsigned bins) {
  // A compile-time stride where the block size is static.
  const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
  for (unsigned i = block.thread_rank(); i < bins; i += stride) counters[i] = Counter(0);
  block.sync();
}

/// Adds each thread's K samples (blocked arrangement) to the block's counters.
/// @pre counters initialised (histogram_init) and every sample < bins.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Bin, int K, class Counter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram(const Block&, const Bin (&items)[K], Counter* counters) {
  // No per-item predicate: the K atomics issue back to back.
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k) Block::backend::atomic_add(counters + items[k], Counter(1));
}

/// As above, counting only the first valid_items samples of the block.
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Bin, int K, class Counter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram(const Block& block, const Bin (&items)[K], Counter* counters, unsigned valid_items) {
  const unsigned n = detail::items_valid(block.thread_rank(), K, valid_items);
  TILEKIT_UNROLL
  for (int k = 0; k < K; ++k)
    if (unsigned(k) < n) Block::backend::atomic_add(counters + items[k], Counter(1));
}

/// Waits for the block's samples, then adds its non-zero counters to global[0 .. bins).
TILEKIT_EXEC_CHECK_DISABLE
template <class Block, class Counter, class GlobalCounter, detail::stdx::enable_if_t<is_block_v<Block>, int> = 0>
TILEKIT_HD void histogram_merge(const Block& block, const Counter* counters, GlobalCounter* global, unsigned bins) {
  block.sync();
  const unsigned stride = Block::static_size ? Block::static_size : block.num_threads();
  for (unsigned i = block.thread_rank(); i < bins; i += stride)
    if (counters[i] != Counter(0)) Block::backend::atomic_add(global + i, static_cast<GlobalCounter>(counters[i]));
}

// ---------------------------------------------------------------- grid level
//
// device_histogram(launcher, temp, temp_bytes, samples, n, counters, binner):
// counters[binner(x)] += 1 for every sample x with a bin (binner returns -1 for
// none); counters[0 .. bins) are zeroed first (as CUB). One launch: while the
// bins fit in a block's shared memory (launcher.max_shared_bytes()), every block
// counts its share of the samples in shared counters and adds the non-zero ones
// to the global counters; beyond that, tiles count straight into the global
// counters, lanes with the same bin aggregated by match_any (histogram_match).
// even_bins and range_bins compute bins exactly as cub::DeviceHistogram's
// HistogramEven / HistogramRange do.

/// CUB's HistogramEven binning: bins of equal width over [lower, upper).
template <class Sample, class Level>
struct even_bins {
  using common = detail::stdx::common_type_t<Level, Sample>;
  // 32-bit arithmetic when sample and common type together fit, 64-bit otherwise (CUB's choice)
  using wide = detail::stdx::conditional_t<sizeof(Sample) + sizeof(common) <= 4, std::uint32_t, std::uint64_t>;
  common lower, upper;
  int bins;
  common scale;                    // floating point: bins / (upper - lower)
  // Integers whose products (sample - lower) * bins stay below 2^32 (8- and 16-bit
  // samples, most levels): the division by upper - lower as a multiply-high by its
  // reciprocal (detail::divide), which gives the same bins as the division.
  bool narrow;
  unsigned long long reciprocal;

  // a - b for integers a >= b, computed in wide (the difference of two ints can overflow int)
  TILEKIT_HD static wide span(common a, common b) { return static_cast<wide>(static_cast<wide>(a) - static_cast<wide>(b)); }

  TILEKIT_HD even_bins(int num_levels, Level lower_level, Level upper_level)
      : lower(common(lower_level)), upper(common(upper_level)), bins(num_levels - 1), scale(common(0)), narrow(false),
        reciprocal(0) {
    if constexpr (detail::stdx::is_floating_point<common>::value) {
      scale = common(common(num_levels - 1) / common(upper - lower));
    } else if (upper > lower && bins > 0) {
      const unsigned long long range = static_cast<unsigned long long>(span(upper, lower));
      narrow = range <= (1ull << 32) / static_cast<unsigned long long>(bins);
      if (narrow) reciprocal = detail::divide_by(range);
    }
  }
  /// Whether the bin arithmetic can overflow (CUB answers cudaErrorInvalidValue then).
  TILEKIT_HD bool may_overflow() const {
    if constexpr (detail::stdx::is_integral<common>::value)
      return upper > lower && span(upper, lower) > detail::stdx::numeric_limits<wide>::max() / wide(bins);
    else
      return false;
  }
  TILEKIT_HD int operator()(const Sample& sample) const {
    const common s = common(sample);
    if (!(s >= lower && s < upper)) return -1;
    int bin;
    if constexpr (detail::stdx::is_floating_point<common>::value) bin = int((s - lower) * scale);
    else if (narrow) bin = int(detail::divide(static_cast<unsigned long long>(span(s, lower)) * unsigned(bins), reciprocal));
    else bin = int((span(s, lower) * wide(bins)) / span(upper, lower));
    return bin < bins ? bin : bins - 1;  // rounding of a float just below upper
  }
};

/// CUB's HistogramRange binning: bin i is [levels[i], levels[i+1]); levels ascending.
template <class Sample, class Level>
struct range_bins {
  const Level* levels;  // num_levels of them, readable where the kernel runs
  int num_levels;
  TILEKIT_HD int operator()(const Sample& sample) const {
    int lo = 0, hi = num_levels;  // the first level greater than sample, by bisection
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (sample < levels[mid]) hi = mid;
      else lo = mid + 1;
    }
    const int bin = lo - 1;
    return bin >= 0 && bin < num_levels - 1 ? bin : -1;
  }
};

struct histogram_tuning {
  static constexpr unsigned threads = 256;
  static constexpr unsigned items = 8;    // samples per thread per pass, striped (item by item)
  static constexpr unsigned vectors = 4;  // 16-byte vectors in flight per thread
  static constexpr unsigned blocks_per_sm = 4;
};

namespace detail {

// 1-byte integer samples are binned through a table of their 256 values' bins in
// shared memory (one shared load per sample instead of the binning arithmetic).
template <class Sample>
inline constexpr bool byte_samples_v =
    sizeof(Sample) == 1 && stdx::is_integral<Sample>::value && !stdx::is_same<Sample, bool>::value;

template <class In, class Counter, class Binner>
struct histogram_grid_body {
  static constexpr unsigned Threads = histogram_tuning::threads, K = histogram_tuning::items;
  static constexpr unsigned VN = vector_items<In>(), U = histogram_tuning::vectors;
  using Sample = value_of<In>;
  static constexpr unsigned table_slots = byte_samples_v<Sample> ? 256 : 0;  // ints before the counters
  TILEKIT_HD static std::size_t shared_bytes(int bins) { return table_slots * sizeof(int) + std::size_t(bins) * sizeof(Counter); }
  In in;
  count_t n;
  Counter* counters;  // global, zeroed
  int bins;
  Binner binner;
  bool privatise;  // the bins fit in shared memory

  TILEKIT_EXEC_CHECK_DISABLE
  template <class Ctx>
  TILEKIT_HD void operator()(Ctx& ctx) const {
    auto block = ctx.template block<Threads>();
    const count_t blocks = count_t(ctx.grid().num_blocks()), b = count_t(ctx.grid().block_rank());
    const count_t step = blocks * Threads * K;
    const unsigned rank = block.thread_rank();
    if (privatise) {
      using be = typename decltype(block)::backend;
      unsigned char* raw = ctx.template shared_array<unsigned char>(shared_bytes(bins));
      int* table = reinterpret_cast<int*>(raw);
      Counter* local = reinterpret_cast<Counter*>(raw + table_slots * sizeof(int));
      if constexpr (table_slots > 0)
        for (unsigned v = rank; v < table_slots; v += Threads) table[v] = binner(static_cast<Sample>(v));
      histogram_init(block, local, unsigned(bins));  // its block.sync() publishes the table too
      auto count = [&](const auto& sample) {
        int bin;
        if constexpr (table_slots > 0) bin = table[static_cast<unsigned char>(sample)];
        else bin = binner(sample);
        if (bin >= 0) be::atomic_add(local + bin, Counter(1));
      };
      // Item by item: the samples before the first 16-byte boundary and after the
      // last whole vector (all of them for inputs that are not vector-loadable).
      count_t head = n, vectors = 0;
      if constexpr (vector_loadable_v<In>) {
        head = misaligned_head(in, n);
        vectors = (n - head) / VN;
        const count_t thread = b * Threads + rank, threads = blocks * Threads;
        const auto* aligned = in + head;
        count_t v = thread;
        for (; v + (U - 1) * threads < vectors; v += U * threads) {  // U vectors in flight per thread
          vector_of<value_of<In>, VN> x[U];
          TILEKIT_UNROLL
          for (unsigned u = 0; u < U; ++u) x[u] = load_vector<value_of<In>, VN>(aligned + (v + u * threads) * VN);
          TILEKIT_UNROLL
          for (unsigned u = 0; u < U; ++u)
            TILEKIT_UNROLL
            for (unsigned j = 0; j < VN; ++j) count(x[u].item[j]);
        }
        for (; v < vectors; v += threads) {
          const auto x = load_vector<value_of<In>, VN>(aligned + v * VN);
          TILEKIT_UNROLL
          for (unsigned j = 0; j < VN; ++j) count(x.item[j]);
        }
      }
      const count_t tail_from = head + vectors * VN, scalar_items = head + (n - tail_from);
      for (count_t base = b * Threads * K; base < scalar_items; base += step) {
        TILEKIT_UNROLL
        for (unsigned k = 0; k < K; ++k) {
          const count_t j = base + count_t(k) * Threads + rank;
          if (j < scalar_items) count(in[j < head ? j : tail_from + (j - head)]);
        }
      }
      histogram_merge(block, local, counters, unsigned(bins));
    } else {
      auto warp = tilekit::tiled_partition<32>(block);
      for (count_t base = b * Threads * K; base < n; base += step) {  // every thread runs the same trips
        TILEKIT_UNROLL
        for (unsigned k = 0; k < K; ++k) {
          const count_t i = base + count_t(k) * Threads + rank;
          const int bin = i < n ? binner(in[i]) : -1;
          histogram_match(warp, bin, counters, bin >= 0);
        }
      }
    }
  }
};

}  // namespace detail

/// The device-wide histogram's dispatch, for any launcher. With temp == nullptr it
/// only sets temp_bytes (the histogram needs no temporary storage; 1 byte, as CUB's
/// protocol expects a size). Returns launcher.invalid_value, writing nothing, for
/// n < 0, bins < 1, a null counters pointer, or a null sample pointer with n > 0.
template <class Launcher, class In, class Counter, class Binner>
typename Launcher::error_type device_histogram(const Launcher& launcher, void* temp, std::size_t& temp_bytes, In in,
                                               detail::count_t n, Counter* counters, int bins, Binner binner) {
  using body_t = detail::histogram_grid_body<In, Counter, Binner>;
  if (temp == nullptr) {
    temp_bytes = 1;
    return launcher.success;
  }
  if (n < 0 || bins < 1 || counters == nullptr || (n > 0 && detail::is_null(in))) return launcher.invalid_value;
  if (auto e = launcher.zero(counters, std::size_t(bins) * sizeof(Counter)); e != launcher.success) return e;
  if (n == 0) return launcher.success;
  const std::size_t shared_bytes = body_t::shared_bytes(bins);
  const bool privatise = shared_bytes <= launcher.max_shared_bytes();
  const unsigned sms = launcher.sm_count() > 0 ? launcher.sm_count() : 1;
  const detail::count_t per_block = detail::count_t(body_t::Threads) * body_t::K;
  const detail::count_t wanted = (n + per_block - 1) / per_block;
  const detail::count_t most = detail::count_t(sms) * histogram_tuning::blocks_per_sm;
  const unsigned grid = unsigned(wanted < most ? wanted : most);
  return launcher.run(grid, body_t::Threads, body_t{in, n, counters, bins, binner, privatise}, privatise ? shared_bytes : 0);
}

}  // namespace tilekit
