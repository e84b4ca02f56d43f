# Sets MYBLAS_TEST_PRELOAD: the LD_PRELOAD value that puts libmyblas under a program that
# was not linked against it (tests/abi LD_PRELOAD test, tests/netlib testers).
# In a MYBLAS_SANITIZE build libmyblas is ASan-instrumented, and ASan refuses to start
# unless its runtime is the first library loaded, which for an uninstrumented program only
# LD_PRELOAD can arrange: libasan goes in front.
set(MYBLAS_TEST_PRELOAD "$<TARGET_SONAME_FILE:myblas>")
if(MYBLAS_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE _myblas_asan OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(_myblas_asan "${_myblas_asan}" REALPATH)
  set(MYBLAS_TEST_PRELOAD "${_myblas_asan}:$<TARGET_SONAME_FILE:myblas>")
endif()
