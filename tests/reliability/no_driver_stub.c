/* A stand-in libcuda.so.1 that exports nothing, found first through LD_LIBRARY_PATH: the
 * CUDA runtime and libmyblas's driver probe then see a driver library that offers no entry
 * points. This makes the "no driver" case testable on a machine that has a GPU and a driver
 * (on one without a driver, it adds a broken-driver case to the missing-driver one). */
int myblas_test_no_driver_stub;
