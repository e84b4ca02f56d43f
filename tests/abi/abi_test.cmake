# Driver for the tests/abi ctest entries, run as `cmake -DMODE=<mode> ... -P abi_test.cmake`.
# Each mode builds something the way a user outside this project would and runs it; any
# failed step ends the script with FATAL_ERROR, which ctest reports as a failed test.
#
# Variables passed by tests/abi/CMakeLists.txt:
#   MODE        install | pkgconfig | c89 | cxx | consumer | fortran | ldpreload
#   SRC         tests/abi source dir          WORK    scratch dir for this test
#   BUILD_DIR   the project build tree        PREFIX  scratch install prefix
#   CC CXX FC PKG_CONFIG                      compilers / tools found at configure time
#   MYBLAS_LIB  libmyblas in the build tree   PRELOAD LD_PRELOAD value putting it under a program
#   ASAN_RT     ASan runtime to preload into uninstrumented programs (empty unless MYBLAS_SANITIZE)

# run(<name> COMMAND ... [ENV k=v ...] [OUTPUT var]): echo, run, fail on non-zero exit.
function(run name)
  cmake_parse_arguments(R "" "OUTPUT" "COMMAND;ENV" ${ARGN})
  set(cmd ${R_COMMAND})
  if(R_ENV)
    set(cmd ${CMAKE_COMMAND} -E env ${R_ENV} ${R_COMMAND})
  endif()
  string(REPLACE ";" " " shown "${R_ENV} ${R_COMMAND}")
  message(STATUS "[${name}] ${shown}")
  execute_process(COMMAND ${cmd} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "[${name}] failed (exit status ${rc})")
  endif()
  if(R_OUTPUT)
    set(${R_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# Environment for *running* a freshly built program: in a sanitizer build the ASan runtime
# must be the first library loaded.
set(run_env)
if(ASAN_RT)
  set(run_env "LD_PRELOAD=${ASAN_RT}")
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# Where `cmake --install` put the library: lib, lib64 or lib/<multiarch>, by GNUInstallDirs.
function(find_prefix_libdir out)
  file(GLOB_RECURSE libs "${PREFIX}/lib*/libmyblas.so.0")
  if(NOT libs)
    message(FATAL_ERROR "no libmyblas.so.0 under ${PREFIX}: did abi.install run?")
  endif()
  list(GET libs 0 lib)
  get_filename_component(dir "${lib}" DIRECTORY)
  set(${out} "${dir}" PARENT_SCOPE)
endfunction()

if(MODE STREQUAL "install")
  file(REMOVE_RECURSE "${PREFIX}")
  run(install COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}")
  find_prefix_libdir(libdir)
  foreach(f "${PREFIX}/include/myblas.h" "${libdir}/libmyblas.so" "${libdir}/pkgconfig/myblas.pc"
            "${libdir}/cmake/myblas/myblasConfig.cmake"
            "${libdir}/cmake/myblas/myblasConfigVersion.cmake")
    if(NOT EXISTS "${f}")
      message(FATAL_ERROR "install is missing ${f}")
    endif()
  endforeach()
  message(STATUS "installed into ${PREFIX} (libdir ${libdir})")

elseif(MODE STREQUAL "pkgconfig")
  find_prefix_libdir(libdir)
  if(NOT PKG_CONFIG)
    message(FATAL_ERROR "pkg-config not found at configure time (apt-get install pkg-config)")
  endif()
  run(pkg-config COMMAND ${PKG_CONFIG} --cflags --libs myblas
      ENV "PKG_CONFIG_PATH=${libdir}/pkgconfig" OUTPUT flags)
  string(STRIP "${flags}" flags)
  # The flags must lead to the scratch prefix (compared after resolving "..", since a
  # relocatable .pc says ${pcfiledir}/../..): if they name another place, a build would
  # silently pick up, or miss, a different installation.
  separate_arguments(flag_list UNIX_COMMAND "${flags}")
  get_filename_component(want_inc "${PREFIX}/include" REALPATH)
  get_filename_component(want_lib "${libdir}" REALPATH)
  set(inc_ok FALSE)
  set(lib_ok FALSE)
  foreach(f IN LISTS flag_list)
    if(f MATCHES "^-([IL])(.+)$")
      get_filename_component(dir "${CMAKE_MATCH_2}" REALPATH)
      if(CMAKE_MATCH_1 STREQUAL "I" AND dir STREQUAL want_inc)
        set(inc_ok TRUE)
      elseif(CMAKE_MATCH_1 STREQUAL "L" AND dir STREQUAL want_lib)
        set(lib_ok TRUE)
      endif()
    endif()
  endforeach()
  if(NOT inc_ok OR NOT lib_ok)
    message(FATAL_ERROR "pkg-config flags '${flags}' do not point into the install prefix "
            "${PREFIX}: myblas.pc is not relocatable (its prefix= was fixed when the build was "
            "configured, so `cmake --install --prefix` produces a .pc naming the wrong place)")
  endif()
  run(compile COMMAND ${CC} -std=c99 -pedantic -Wall -Wextra -Werror "${SRC}/abi_check.c"
      ${flag_list} -lm -o abi_check)
  run(abi_check COMMAND "${WORK}/abi_check" ENV ${run_env} "LD_LIBRARY_PATH=${libdir}")

elseif(MODE STREQUAL "c89")
  run(compile COMMAND ${CC} -std=c89 -pedantic -Wall -Wextra -Werror -I "${PREFIX}/include"
      -c "${SRC}/header_c89.c" -o header_c89.o)

elseif(MODE STREQUAL "cxx")
  find_prefix_libdir(libdir)
  run(compile COMMAND ${CXX} -std=c++11 -pedantic -Wall -Wextra -Werror -I "${PREFIX}/include"
      "${SRC}/header_cxx.cpp" -L "${libdir}" -lmyblas -o header_cxx)
  run(header_cxx COMMAND "${WORK}/header_cxx" ENV ${run_env} "LD_LIBRARY_PATH=${libdir}")

elseif(MODE STREQUAL "consumer")
  run(configure COMMAND ${CMAKE_COMMAND} -S "${SRC}/consumer" -B "${WORK}/build"
      "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DCMAKE_C_COMPILER=${CC}" -DCMAKE_BUILD_TYPE=Release)
  run(build COMMAND ${CMAKE_COMMAND} --build "${WORK}/build")
  # The imported target carries the library's location; CMake's build RPATH finds it.
  run(consumer COMMAND "${WORK}/build/consumer" ENV ${run_env} OUTPUT out)
  if(NOT out MATCHES "results correct")
    message(FATAL_ERROR "consumer did not report correct results")
  endif()

elseif(MODE STREQUAL "fortran")
  if(NOT FC)
    message(FATAL_ERROR "gfortran not found at configure time (apt-get install gfortran)")
  endif()
  get_filename_component(libdir "${MYBLAS_LIB}" DIRECTORY)
  run(compile COMMAND ${FC} -std=f2008 -Wall -Werror "${SRC}/fortran_check.f90"
      "${MYBLAS_LIB}" "-Wl,-rpath,${libdir}" -o fortran_check)
  run(fortran_check COMMAND "${WORK}/fortran_check" ENV ${run_env} OUTPUT out)
  if(NOT out MATCHES "all results correct, XERBLA overrides work")
    message(FATAL_ERROR "fortran_check did not finish its checks")
  endif()

elseif(MODE STREQUAL "ldpreload")
  # Linked against the system BLAS only: libblas.so.3 is whatever the alternatives point at.
  run(compile COMMAND ${CC} -std=c99 -Wall -Werror "${SRC}/preload_check.c" -lblas -lm
      -o preload_check)
  run(ldd COMMAND ldd "${WORK}/preload_check" OUTPUT deps)
  if(deps MATCHES "myblas")
    message(FATAL_ERROR "preload_check must not be linked against libmyblas")
  endif()
  set(log "${WORK}/myblas.log")
  file(WRITE "${log}" "")
  run(with-preload COMMAND "${WORK}/preload_check"
      ENV "LD_PRELOAD=${PRELOAD}" MYBLAS_VERBOSE=1 "MYBLAS_LOG=${log}")
  file(READ "${log}" text)
  message(STATUS "MYBLAS_LOG with LD_PRELOAD:\n${text}")
  foreach(want "myblas: sgemm NN m=6 n=5 k=4 " "myblas: sgemm NN m=5 n=6 k=4 "
               "myblas: sgemv N m=6 n=4 ")
    string(FIND "${text}" "${want}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "no '${want}...' line in MYBLAS_LOG: the call did not reach libmyblas")
    endif()
  endforeach()
  file(WRITE "${log}" "")
  run(without-preload COMMAND "${WORK}/preload_check" ENV MYBLAS_VERBOSE=1 "MYBLAS_LOG=${log}")
  file(READ "${log}" text)
  if(NOT text STREQUAL "")
    message(FATAL_ERROR "MYBLAS_LOG is not empty without LD_PRELOAD:\n${text}")
  endif()
  message(STATUS "without LD_PRELOAD the log stays empty: the system BLAS served the calls")

else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
