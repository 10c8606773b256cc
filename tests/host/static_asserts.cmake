# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Compiles snippets that misuse tilekit and checks each fails with its
# actionable static_assert message. Run by ctest as host_static_asserts.
#   -DCXX=<c++ compiler> [-DCUDA=<nvcc>] -DSOURCE_DIR=<tilekit> -DWORK_DIR=<scratch>
#   [-DBOOST_INCLUDE=<dir>]
file(MAKE_DIRECTORY ${WORK_DIR})
set(includes -I${SOURCE_DIR}/include -I${SOURCE_DIR}/algorithms)
if(BOOST_INCLUDE)
  list(APPEND includes -I${BOOST_INCLUDE})
endif()

function(expect_error compiler ext name code message)
  set(file ${WORK_DIR}/${name}.${ext})
  file(WRITE ${file} "${code}\n")
  if(ext STREQUAL "cu")
    # Device code alone (-ptx): each snippet misuses tilekit inside a kernel, which the device pass
    # compiles; no host pass or ptxas (1 s a snippet instead of 2.7).
    set(cmd ${compiler} -std=c++17 ${includes} -ptx ${file} -o ${WORK_DIR}/${name}.ptx)
  else()
    set(cmd ${compiler} -std=c++17 ${includes} -fsyntax-only ${file})
  endif()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${out}${err}" "${message}" at)
  if(rc EQUAL 0)
    message(SEND_ERROR "${name}: compiled, but should have failed with: ${message}")
  elseif(at EQUAL -1)
    message(SEND_ERROR "${name}: failed without the expected message '${message}':\n${out}${err}")
  else()
    message(STATUS "${name}: fails as it should: ${message}")
  endif()
endfunction()

# Host-only snippets (plain C++ compiler).
set(fake_tile "#include <tilekit/tile/reduce.cuh>\n#include <tilekit/tile/scan.cuh>\nstruct fake_tile { using backend = void; static constexpr tilekit::group_level level = tilekit::group_level::tile; static constexpr unsigned size() { return 4; } static constexpr bool has_hardware_reduce = true; unsigned thread_rank() const { return 0; } template <class T> T shfl(T v, unsigned) const { return v; } template <class T> T shfl_up(T v, unsigned) const { return v; } template <tilekit::builtin_op, class T> T hardware_reduce(T v) const { return v; } };\n")
expect_error(${CXX} cpp no_identity
  "#include <tilekit/core/operators.hpp>\nfloat f() { return tilekit::identity<float>(tilekit::bit_and{}); }"
  "no identity known for this operator and type")
expect_error(${CXX} cpp hardware_reduce_float
  "${fake_tile}float f(fake_tile t) { return tilekit::reduce_hardware(t, 1.0f, tilekit::plus{}); }"
  "reduce_hardware: needs an integer of up to 32 bits")
expect_error(${CXX} cpp exclusive_scan_without_identity
  "${fake_tile}struct op { int operator()(int a, int b) const { return a * b; } };\nint f(fake_tile t) { return tilekit::exclusive_scan(t, 1, op{}); }"
  "this operator has no known identity; pass an init value")
if(BOOST_INCLUDE OR EXISTS /usr/include/boost/context/fiber.hpp)
  expect_error(${CXX} cpp sim_tile_size
    "#include <tilekit/sim.cuh>\nvoid f() { tilekit::sim::tile<3> t; (void)t; }"
    "N must be 1, 2, 4, 8, 16 or 32")
  # Grid algorithms that need grid.sync() under an ordinary launch.
  set(ordinary_reduce "#include <tilekit/sim.cuh>\nstruct body { void* m; template <class Ctx> void operator()(Ctx& ctx) const { auto b = ctx.template block<32>(); tilekit::grid_reduce_storage<int> s(m, 1); tilekit::reduce(ctx.grid(), b, 1, tilekit::plus{}, ctx.template shared<tilekit::reduce_storage<int, 32>>(), s); } };\nvoid f(void* m) { tilekit::sim::launch(1, 32, body{m}, 64); }")
  expect_error(${CXX} cpp sim_grid_reduce_ordinary_launch "${ordinary_reduce}"
    "need every block resident at once: launch with tilekit::launch_cooperative")
  expect_error(${CXX} cpp sim_cluster_size
    "#include <tilekit/sim.cuh>\nvoid f() { tilekit::sim::cluster<17, 64> c; (void)c; }"
    "sm_90 allows up to 8 blocks per cluster portably, 16 with the non-portable size")
  expect_error(${CXX} cpp sim_cluster_histogram_wide_counter
    "#include <tilekit/sim.cuh>\n#include <tilekit/cluster/histogram.cuh>\nvoid f(tilekit::sim::cluster<2, 64> c, unsigned long long* local) { int s[1] = {0}; tilekit::histogram(c, s, local, 4u); }"
    "the shared counters must be 4-byte integers")
  expect_error(${CXX} cpp sim_grid_sync_ordinary_launch
    "#include <tilekit/sim.cuh>\nvoid f() { tilekit::sim::launch(2, 32, [](auto& ctx) { ctx.grid().sync(); }); }"
    "need every block resident at once: launch with tilekit::launch_cooperative")
endif()

# GPU snippets (nvcc), where CUDA is there.
if(CUDA)
  expect_error(${CUDA} cu gpu_tile_size
    "#include <tilekit/tilekit.cuh>\n__global__ void k() { auto t = tilekit::tiled_partition<12>(tilekit::this_block<64>()); (void)t; }"
    "N must be 1, 2, 4, 8, 16 or 32")
  expect_error(${CUDA} cu gpu_block_size
    "#include <tilekit/tilekit.cuh>\n__global__ void k() { auto b = tilekit::this_block<2048>(); (void)b; }"
    "a thread block has at most 1024 threads")
  expect_error(${CUDA} cu gpu_cluster_size
    "#include <tilekit/tilekit.cuh>\n__global__ void k() { auto c = tilekit::this_cluster<17, 64>(); (void)c; }"
    "sm_90 allows up to 8 blocks per cluster portably, 16 with the non-portable size")
  expect_error(${CUDA} cu gpu_match_size
    "#include <tilekit/tilekit.cuh>\n__global__ void k(short s) { auto t = tilekit::tiled_partition<32>(tilekit::this_block<64>()); t.match_any(s); }"
    "match_any / match_all compare 4- or 8-byte values")
  expect_error(${CUDA} cu gpu_grid_scan_ordinary_grid
    "#include <tilekit/tilekit.cuh>\n__global__ void k(void* m, int* out) { __shared__ tilekit::scan_storage<int, 64> sh; tilekit::grid_scan_storage<int> s(m, 8); *out = tilekit::inclusive_scan(tilekit::this_grid(), tilekit::this_block<64>(), 1, tilekit::plus{}, sh, s); }"
    "need every block resident at once: launch with tilekit::launch_cooperative")
endif()
