# Installs tilekit into a scratch prefix and builds a small consumer against it
# twice: through find_package(tilekit CONFIG) and through add_subdirectory.
#   -DSOURCE_DIR -DBUILD_DIR -DWORK_DIR -DCXX [-DPREFIX_PATH]
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
  if(mode STREQUAL "package")
    set(how -DCMAKE_PREFIX_PATH=${prefix}\;${PREFIX_PATH})
  else()
    set(how -DTILEKIT_SOURCE_DIR=${SOURCE_DIR} -DCMAKE_PREFIX_PATH=${PREFIX_PATH})
  endif()
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${dir} -DCMAKE_CXX_COMPILER=${CXX}
      -DCMAKE_BUILD_TYPE=Release ${how})
  run(${CMAKE_COMMAND} --build ${dir})
  run(${dir}/consumer)
endforeach()
