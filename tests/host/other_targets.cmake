# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the tile tour for the other targets tilekit promises: C++20 as well as
# C++17, and (where CUDA is there) sm_75 and sm_80 besides the default sm_90.
# (CUDA 13 removed sm_70, so sm_75 is the oldest target it can build.)
#   -DCXX=<c++> [-DCUDA=<nvcc>] [-DCOMPILE_ONLY=ON] -DSOURCE_DIR -DWORK_DIR [-DBOOST_INCLUDE]
file(MAKE_DIRECTORY ${WORK_DIR})
set(includes -I${SOURCE_DIR}/include -I${SOURCE_DIR}/algorithms)
if(BOOST_INCLUDE)
  list(APPEND includes -I${BOOST_INCLUDE})
endif()

function(must_build what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(SEND_ERROR "${what}: failed\n${out}${err}")
  else()
    message(STATUS "${what}: builds")
  endif()
endfunction()

must_build("simulator, C++20" ${CXX} -std=c++20 ${includes} -fsyntax-only ${SOURCE_DIR}/examples/tile_tour.cpp)
if(CUDA)
  # COMPILE_ONLY (CI without a GPU): no optimiser, as the main build. The architecture changes only
  # the device side, so sm_75 and sm_80 build their PTX alone (-ptx: no host compile); the
  # examples build already compiles tile_tour.cu for compute_90 in C++17.
  if(COMPILE_ONLY)
    set(opt -O0 -Xcicc -O0)
    foreach(arch 75 80)
      must_build("GPU device code, C++17, -arch=compute_${arch}" ${CUDA} -std=c++17 -arch=compute_${arch} ${opt} ${includes}
                 -ptx ${SOURCE_DIR}/examples/tile_tour.cu -o ${WORK_DIR}/tour_sm${arch}.ptx)
    endforeach()
    set(arch_flag -arch=compute_)
  else()
    set(opt)
    foreach(arch 75 80 90)
      must_build("GPU, C++17, -arch=sm_${arch}" ${CUDA} -std=c++17 -arch=sm_${arch} ${includes} -c
                 ${SOURCE_DIR}/examples/tile_tour.cu -o ${WORK_DIR}/tour_sm${arch}.o)
    endforeach()
    set(arch_flag -arch=sm_)
  endif()
  must_build("GPU, C++20, ${arch_flag}90" ${CUDA} -std=c++20 ${arch_flag}90 ${opt} ${includes} -c
             ${SOURCE_DIR}/examples/tile_tour.cu -o ${WORK_DIR}/tour_cxx20.o)
endif()
