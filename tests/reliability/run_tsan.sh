#!/usr/bin/env bash
# ThreadSanitizer run: libmyblas and tests/reliability/test_stress (and tests/core/test_thread_pool,
# tests/concurrency/test_concurrency) built with gcc -fsanitize=thread in build-tsan/, then 16 threads
# x MYBLAS_STRESS_CALLS (default 10,000) mixed calls on the CPU path, and 8 threads calling the
# Level-3 routines and GEMV of every type (ConcurrencyBlas). OpenBLAS stays uninstrumented: see tsan.supp. Exits non-zero
# on a test failure or on any (unsuppressed) ThreadSanitizer report.
#   tests/reliability/run_tsan.sh            (about 1 minute on 2 cores, build included)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/packages.sh
find_nvcc
jobs=$(nproc)
# Host code only: CUDA device code is not what TSan checks, and one architecture is enough.
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMYBLAS_BUILD_BENCH=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90a-real \
      -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_CXX_FLAGS=-fsanitize=thread \
      -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread >/dev/null
cmake --build build-tsan -j"$jobs" --target test_stress test_thread_pool test_concurrency
# halt_on_error: the first report fails the run (exit 66) with its stacks on stderr.
MYBLAS_BACKEND=cpu \
TSAN_OPTIONS="suppressions=$PWD/tests/reliability/tsan.supp:halt_on_error=1:exitcode=66:print_suppressions=0" \
  build-tsan/tests/reliability/test_stress --gtest_filter=Stress.HostOperands
MYBLAS_BACKEND=cpu \
TSAN_OPTIONS="suppressions=$PWD/tests/reliability/tsan.supp:halt_on_error=1:exitcode=66:print_suppressions=0" \
  build-tsan/tests/concurrency/test_concurrency --gtest_filter=ConcurrencyBlas.* --gtest_brief=1
# The host copy pool on its own, spinning workers and sleeping ones (TSan cannot follow a
# fork child of a threaded process: the fork case runs in the plain build only).
for spin in 200 0; do
  MYBLAS_COPY_THREADS=8 MYBLAS_COPY_SPIN_US=$spin \
  TSAN_OPTIONS="halt_on_error=1:exitcode=66" \
    build-tsan/tests/core/test_thread_pool --gtest_filter=-*Fork* --gtest_brief=1
done
