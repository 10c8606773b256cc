# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Builds the API reference and fails on any Doxygen warning: an undocumented public
# entity, a broken reference, a malformed command.
#   -DDOXYGEN=<doxygen> -DDOXYFILE=<configured Doxyfile> -DOUTPUT=<dir> -DWARNINGS=<log>
file(REMOVE ${WARNINGS})
file(MAKE_DIRECTORY ${OUTPUT})
execute_process(COMMAND ${DOXYGEN} ${DOXYFILE} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "doxygen failed (${rc}):\n${err}")
endif()
file(READ ${WARNINGS} warnings)
string(STRIP "${warnings}" warnings)
if(NOT warnings STREQUAL "")
  string(REGEX MATCHALL "\n" lines "\n${warnings}")
  list(LENGTH lines count)
  message(FATAL_ERROR "the API reference has ${count} warning line(s); document each public entity with ///:\n${warnings}")
endif()
message(STATUS "API reference: no warnings (${OUTPUT}/html/index.html)")
