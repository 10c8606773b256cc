// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A focused bench for tuning the device reduce (built once per -D variant): device_variants_bench's
// reduce and ArgMin rows (the same labels, data and timing: L2 flushed, CUDA events, medians),
// tilekit through its CUB facade and CUB in one process, and the allocating tilekit::device::sum
// (device_reduce_alloc rows). TILEKIT_BENCH_LOGS picks sizes.
#include "bench_common.cuh"

#include <tilekit/cub.cuh>
#include <tilekit/device/reduce.cuh>
#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace {

constexpr std::size_t in_bytes = std::size_t(1) << 31;  // 2^28 int64 / double
unsigned char *in_buf, *out_buf, *want_buf;
void* temp;
std::size_t temp_bytes = std::size_t(64) << 20;

__host__ __device__ unsigned hash(std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  return unsigned(x >> 32);
}

template <class T>
__global__ void fill(T* in, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const unsigned h = hash(i);
    in[i] = std::is_floating_point_v<T> ? T(0.5 * (int(h % 3) - 1)) : T(int(h % 2001) - 1000);
  }
}

// The allocating form (tilekit::device::sum(in, n, out): storage from tilekit, none passed).
template <class T>
void add_alloc(const char* type, int log_n) {
  const std::size_t n = std::size_t(1) << log_n;
  const std::string label = std::string("device_reduce_alloc/") + type + "/" + std::to_string(log_n) + "/tilekit";
  benchmark::RegisterBenchmark(label.c_str(), [n](benchmark::State& s) {
    const T* in = reinterpret_cast<const T*>(in_buf);
    fill<<<unsigned(bench::sm_count()) * 8, 256>>>(reinterpret_cast<T*>(in_buf), n);
    CHECK(cudaMemset(out_buf, 0, 16));
    CHECK(cudaMemset(want_buf, 0, 16));
    std::size_t b = temp_bytes;
    CHECK(cub::DeviceReduce::Sum(temp, b, in, reinterpret_cast<T*>(want_buf), n));
    CHECK(tilekit::device::sum(in, std::int64_t(n), reinterpret_cast<T*>(out_buf)));
    unsigned char a[16], w[16];
    CHECK(cudaMemcpy(a, out_buf, 16, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(w, want_buf, 16, cudaMemcpyDeviceToHost));
    if (std::memcmp(a, w, sizeof(T)) != 0) {
      std::fprintf(stderr, "n=%zu: tilekit's allocating sum differs from cub\n", n);
      std::exit(1);
    }
    bench::time_kernel(s, [&] { CHECK(tilekit::device::sum(in, std::int64_t(n), reinterpret_cast<T*>(out_buf))); }, double(n), bench::flush_l2);
    s.counters["GBps"] = benchmark::Counter(double(n * sizeof(T)) * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
}

template <class T, bool Arg>
void add(const char* type, int log_n, bool tk) {
  const std::size_t n = std::size_t(1) << log_n;
  const std::string label = std::string(Arg ? "device_argmin/" : "device_reduce/") + type + "/" + std::to_string(log_n) + (tk ? "/tilekit" : "/cub");
  benchmark::RegisterBenchmark(label.c_str(), [n, tk](benchmark::State& s) {
    const T* in = reinterpret_cast<const T*>(in_buf);
    fill<<<unsigned(bench::sm_count()) * 8, 256>>>(reinterpret_cast<T*>(in_buf), n);
    auto run = [&](bool tilekit, unsigned char* out) {
      std::size_t b = temp_bytes;
      if constexpr (Arg) {
        auto* value = reinterpret_cast<T*>(out);
        auto* index = reinterpret_cast<std::int64_t*>(out + 8);
        if (tilekit) CHECK(tilekit::cub::DeviceReduce::ArgMin(temp, b, in, value, index, std::int64_t(n)));
        else CHECK(cub::DeviceReduce::ArgMin(temp, b, in, value, index, std::int64_t(n)));
      } else {
        if (tilekit) CHECK(tilekit::cub::DeviceReduce::Sum(temp, b, in, reinterpret_cast<T*>(out), n));
        else CHECK(cub::DeviceReduce::Sum(temp, b, in, reinterpret_cast<T*>(out), n));
      }
    };
    CHECK(cudaMemset(out_buf, 0, 16));
    CHECK(cudaMemset(want_buf, 0, 16));
    run(false, want_buf);
    run(tk, out_buf);
    unsigned char a[16], w[16];
    CHECK(cudaMemcpy(a, out_buf, 16, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(w, want_buf, 16, cudaMemcpyDeviceToHost));
    if (std::memcmp(a, w, Arg ? 16 : sizeof(T)) != 0) {
      std::fprintf(stderr, "n=%zu: tilekit differs from cub\n", n);
      std::exit(1);
    }
    bench::time_kernel(s, [&] { run(tk, out_buf); }, double(n), bench::flush_l2);
    s.counters["GBps"] = benchmark::Counter(double(n * sizeof(T)) * 1e-9 * double(s.iterations()), benchmark::Counter::kIsRate);
  })->UseManualTime()->Iterations(25);
}

}  // namespace

int main(int argc, char** argv) {
  return bench::run(argc, argv, [] {
    CHECK(cudaMalloc(&in_buf, in_bytes));
    CHECK(cudaMalloc(&out_buf, in_bytes));  // (the limits copy into it)
    CHECK(cudaMalloc(&want_buf, 64));
    CHECK(cudaMalloc(&temp, temp_bytes));
    for (int log_n : bench::size_logs({14, 15, 16, 17, 18, 19, 20}, 10, 28)) {
      bench::add_limits(log_n, in_buf, out_buf, in_bytes);
      for (bool tk : {true, false}) {
        add<int, false>("int32", log_n, tk);
        add<long long, false>("int64", log_n, tk);
        add<float, false>("float", log_n, tk);
        add<double, false>("double", log_n, tk);
        add<int, true>("int32", log_n, tk);
        add<float, true>("float", log_n, tk);
      }
      add_alloc<int>("int32", log_n);
      add_alloc<double>("double", log_n);
    }
  });
}
