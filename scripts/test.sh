#!/usr/bin/env bash
# The full test run (what CI runs through .ci/run):
#   1. installs the Debian packages from scripts/packages.sh if any is missing,
#   2. Release build in build/ and every ctest entry (gpu-labelled ones skip without a GPU),
#   3. ASan+UBSan build in build-asan/ and the CPU tests (ctest -LE gpu) under it.
# Exits non-zero if any step or test fails.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/packages.sh

jobs=$(nproc)
install_missing_packages
find_nvcc

start=$SECONDS
echo "== Release build (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
echo "== Release build and tests: $((SECONDS - start)) s"

start=$SECONDS
echo "== ASan+UBSan build (build-asan/)"
# One CUDA architecture and no benchmarks: this build is about host-code memory errors.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMYBLAS_SANITIZE=ON \
      -DMYBLAS_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90a-real
cmake --build build-asan -j"$jobs"
# ASAN_OPTIONS (see README, "Testing"):
#   protect_shadow_gap=0  the statically linked CUDA runtime maps memory at fixed low
#                         addresses that fall in ASan's protected shadow gap; without this
#                         CUDA initialisation fails under ASan
#   detect_leaks=0        LSan reports one-time allocations of the dlopen'ed OpenBLAS
#                         (thread buffers) and of the CUDA runtime that are never freed by
#                         design; they are not ours and not fixable here
ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan -LE gpu --output-on-failure -j"$jobs"
echo "== ASan+UBSan build and tests: $((SECONDS - start)) s"
