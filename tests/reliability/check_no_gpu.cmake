# Runs PROGRAM [ARG] (environment set by ctest) and reads stdout and stderr separately.
# MODE quiet:   exit 0, the success line on stdout, and stderr EMPTY: without MYBLAS_VERBOSE
#               the library says nothing when there is no GPU (it is not an error).
# MODE verbose: exit 0 and stderr naming the reason, which shows that this check would see
#               output on stderr if there were any (the quiet mode cannot pass by accident).
execute_process(COMMAND ${PROGRAM} ${ARG} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message(STATUS "stdout:\n${out}")
message(STATUS "stderr:\n${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "no_gpu_check exited with ${rc}")
endif()
if(out MATCHES "\\[  SKIPPED \\]")
  return()  # the entry's SKIP_REGULAR_EXPRESSION reports it as skipped
endif()
if(NOT out MATCHES "all 6 entry points correct on the CPU")
  message(FATAL_ERROR "no_gpu_check did not report success")
endif()
if(MODE STREQUAL "quiet")
  if(NOT err STREQUAL "")
    message(FATAL_ERROR "stderr is not empty without MYBLAS_VERBOSE: the library must be quiet")
  endif()
else()
  if(NOT err MATCHES "myblas: no usable GPU")
    message(FATAL_ERROR "MYBLAS_VERBOSE=1 did not log why the GPU is not used")
  endif()
endif()
