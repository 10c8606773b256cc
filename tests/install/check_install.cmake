# Installs tilekit into a scratch prefix and builds a small consumer against it
# twice: through find_package(tilekit CONFIG) and through add_subdirectory.
#   -DSOURCE_DIR -DBUILD_DIR -DWORK_DIR -DCXX [-DPREFIX_PATH=dir:dir]
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(mode package subdirectory)
  set(dir ${WORK_DIR}/${mode})
  # CMAKE_PREFIX_PATH travels in the environment: a ;-list on a command line would split.
  if(mode STREQUAL "package")
    set(paths "${prefix}:${PREFIX_PATH}")
    set(how "")
  else()
    set(paths "${PREFIX_PATH}")
    set(how -DTILEKIT_SOURCE_DIR=${SOURCE_DIR})
  endif()
  set(ENV{CMAKE_PREFIX_PATH} "${paths}")
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${dir} -DCMAKE_CXX_COMPILER=${CXX}
      -DCMAKE_BUILD_TYPE=Release ${how})
  run(${CMAKE_COMMAND} --build ${dir})
  run(${dir}/consumer)
endforeach()
