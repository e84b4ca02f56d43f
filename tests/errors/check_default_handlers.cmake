# cmake -DPROGRAM=<errors_default_handlers> -P check_default_handlers.cmake
#
# ctest's PASS_REGULAR_EXPRESSION would accept any one of several patterns and ignores the
# exit code; this script requires all of them, on the right stream, and a clean exit.
if(NOT PROGRAM)
  message(FATAL_ERROR "PROGRAM is not set")
endif()
execute_process(COMMAND ${PROGRAM}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message(STATUS "exit code: ${rc}\n--- stdout ---\n${out}--- stderr ---\n${err}--------------")

set(failed FALSE)
macro(fail why)
  message(SEND_ERROR "${why}")
  set(failed TRUE)
endmacro()

if(NOT rc STREQUAL "0")
  fail("the program did not exit with 0 (${rc}): a default handler must return, not stop")
endif()
if(NOT out MATCHES "still running")
  fail("\"still running\" missing from stdout: the program did not continue after the errors")
endif()

# The reference XERBLA format: SRNAME trimmed, INFO as I2 (hence two spaces before 3).
string(FIND "${err}" " ** On entry to SGEMM parameter number  3 had an illegal value" xerbla_at)
if(xerbla_at EQUAL -1)
  fail("stderr lacks the reference XERBLA message for SGEMM parameter 3")
endif()
# The user's position (4), not the column-major call's (5).
string(FIND "${err}" "Parameter 4 to routine cblas_sgemm was incorrect" cblas_at)
if(cblas_at EQUAL -1)
  fail("stderr lacks \"Parameter 4 to routine cblas_sgemm was incorrect\"")
endif()
if(err MATCHES "Parameter 5 to routine cblas_sgemm")
  fail("cblas_xerbla printed the column-major position 5 instead of the user's 4")
endif()
foreach(expect "Parameter 5 to routine cblas_dsymm was incorrect" "Parameter 7 to routine cblas_ztrsm was incorrect")
  string(FIND "${err}" "${expect}" at)
  if(at EQUAL -1)
    fail("stderr lacks \"${expect}\" (the user's position of N in a row-major call)")
  endif()
endforeach()
# Each error is reported once, in call order.
if(NOT xerbla_at EQUAL -1 AND NOT cblas_at EQUAL -1 AND cblas_at LESS xerbla_at)
  fail("the messages came out of order")
endif()
string(REGEX MATCHALL "On entry to" xerbla_lines "${err}")
string(REGEX MATCHALL "to routine" cblas_lines "${err}")
list(LENGTH xerbla_lines nx)
list(LENGTH cblas_lines nc)
if(NOT nx EQUAL 1 OR NOT nc EQUAL 3)
  fail("expected one XERBLA and three CBLAS messages, got ${nx} and ${nc}")
endif()

if(failed)
  message(FATAL_ERROR "default handler check failed")
endif()
