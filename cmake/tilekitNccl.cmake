# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Finds NCCL for tilekit::multi (tilekit/multi.cuh): the CUDA toolkit's, the system's, or
# the one under TILEKIT_NCCL_ROOT (e.g. the nvidia-nccl Python wheel's folder, whose lib/
# holds only libnccl.so.2). Sets TILEKIT_NCCL_INCLUDE_DIR and TILEKIT_NCCL_LIBRARY (cache)
# and TILEKIT_NCCL_FOUND. Used by tilekit's CMakeLists.txt and by its installed package;
# the caller has found CUDAToolkit. NAMES_PER_DIR: the library comes from the first folder
# that has either name, so it matches the header found there.
find_path(TILEKIT_NCCL_INCLUDE_DIR nccl.h
  HINTS ${TILEKIT_NCCL_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/include)
find_library(TILEKIT_NCCL_LIBRARY NAMES nccl libnccl.so.2 NAMES_PER_DIR
  HINTS ${TILEKIT_NCCL_ROOT}/lib ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib)
if(TILEKIT_NCCL_INCLUDE_DIR AND TILEKIT_NCCL_LIBRARY)
  set(TILEKIT_NCCL_FOUND TRUE)
else()
  set(TILEKIT_NCCL_FOUND FALSE)
endif()
