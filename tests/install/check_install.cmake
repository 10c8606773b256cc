# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Installs tilekit into a scratch prefix and builds a small CPU-only consumer against it in
# three ways: find_package(tilekit CONFIG COMPONENTS sim) on the installed package,
# add_subdirectory and FetchContent on the source tree. Checks as well:
#   - the consumer sees TILEKIT_VERSION for the project's VERSION;
#   - asking for a component that does not exist fails find_package with a message;
#   - as a subproject, tilekit installs nothing into the consumer's install and does not
#     probe CUDA (the consumer enabled only C++).
#   -DSOURCE_DIR -DBUILD_DIR -DWORK_DIR -DCXX -DVERSION=major.minor.patch [-DPREFIX_PATH=dir:dir]
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

# TILEKIT_VERSION as the consumer should see it, from the version CMake read out of version.hpp.
string(REPLACE "." ";" parts "${VERSION}")
list(GET parts 0 major)
list(GET parts 1 minor)
list(GET parts 2 patch)
math(EXPR version "${major} * 10000 + ${minor} * 100 + ${patch}")

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file include/tilekit/core/version.hpp lib/cmake/tilekit/tilekitConfig.cmake lib/cmake/tilekit/tilekitNccl.cmake
             share/doc/tilekit/LICENSE)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install lacks ${file}")
  endif()
endforeach()

foreach(mode package subdirectory fetchcontent)
  set(dir ${WORK_DIR}/${mode})
  # CMAKE_PREFIX_PATH travels in the environment: a ;-list on a command line would split.
  if(mode STREQUAL "package")
    set(ENV{CMAKE_PREFIX_PATH} "${prefix}:${PREFIX_PATH}")
  else()
    set(ENV{CMAKE_PREFIX_PATH} "${PREFIX_PATH}")
  endif()
  # No build type: unoptimised, the consumer only has to build and run (-O3 doubled its compile time).
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${dir} -DCMAKE_CXX_COMPILER=${CXX}
      -DCMAKE_BUILD_TYPE= -DTILEKIT_HOW=${mode} -DTILEKIT_SOURCE_DIR=${SOURCE_DIR})
  run(${CMAKE_COMMAND} --build ${dir})
  run(${dir}/consumer)
  if(NOT run_output MATCHES "consumer: tilekit ${version},")
    message(FATAL_ERROR "${mode}: the consumer did not see TILEKIT_VERSION ${version}: ${run_output}")
  endif()
  if(NOT mode STREQUAL "package")
    file(STRINGS ${dir}/CMakeCache.txt cuda REGEX "^CMAKE_CUDA_COMPILER:")
    if(cuda)
      message(FATAL_ERROR "${mode}: tilekit probed CUDA in a C++-only project: ${cuda}")
    endif()
    run(${CMAKE_COMMAND} --install ${dir} --prefix ${WORK_DIR}/${mode}-install)
    if(EXISTS ${WORK_DIR}/${mode}-install/include/tilekit OR EXISTS ${WORK_DIR}/${mode}-install/lib/cmake/tilekit)
      message(FATAL_ERROR "${mode}: tilekit installed itself into the consumer's install")
    endif()
  endif()
endforeach()

# A component that does not exist: find_package fails and says why.
set(ENV{CMAKE_PREFIX_PATH} "${prefix}:${PREFIX_PATH}")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${WORK_DIR}/no_such_component
                        -DCMAKE_CXX_COMPILER=${CXX} "-DTILEKIT_COMPONENTS=sim;simd"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "simd: no such component")
  message(FATAL_ERROR "find_package(tilekit COMPONENTS simd) should fail with 'simd: no such component' (rc ${rc}):\n${out}\n${err}")
endif()
message(STATUS "install: package, subdirectory and FetchContent consumers built and ran (TILEKIT_VERSION ${version})")
