#!/usr/bin/env bash
# Copies what bench/run_multi_gpu.sh runs on a two-GPU machine into one folder (stripped), for a
# machine that gets the checkout and that folder (and .gpu/ for OpenBLAS): libmyblas (as
# libmyblas.so.0), the benchmarks, the two-GPU test programs with their ctest entries (paths
# rewritten to a placeholder the run script fills in), the ScaLAPACK check programs and the packed
# Open MPI runtime (scripts/pack_mpi.sh; made if MPI_PACK names no existing pack).
# usage: bench/stage_multi_gpu.sh BUILD_DIR DEST
#   (e.g. build /work/main/.dev-mgpu2)
# Build first: cmake --build BUILD_DIR -j2 --target myblas bench_multi_gpu bench_host_l3 \
#   test_host_split test_multi_device test_host_level3_split pdgemm_check psgemm_check
set -euo pipefail
build=$(cd "$1" && pwd)
dest=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dest/ctest"
rm -f "$dest"/libmyblas.so*
cp "$build/src/libmyblas.so.0" "$dest/libmyblas.so.0"  # (the file, under the soname programs load)
for f in bench/bench_multi_gpu bench/bench_host_l3 tests/mpi/pdgemm_check tests/mpi/psgemm_check; do
  cp "$build/$f" "$dest/"
done
tests="test_host_split test_multi_device test_host_level3_split"
for t in $tests; do cp "$build/tests/backends/$t" "$dest/ctest/"; done
strip --strip-unneeded "$dest/libmyblas.so.0" "$dest"/bench_multi_gpu "$dest"/bench_host_l3 "$dest"/p?gemm_check \
  "$dest"/ctest/test_*
# The ctest entries of tests/backends, the build folder's path replaced by @CT@ (a writable folder
# on the GPU machine where the programs and their logs go) and the source tree's by @SRC@.
sed -e "s#$build/tests/backends#@CT@#g" -e "s#$root#@SRC@#g" "$build/tests/backends/CTestTestfile.cmake" \
  > "$dest/ctest/CTestTestfile.cmake.in"
echo "$tests" > "$dest/ctest/programs"
mpi=${MPI_PACK:-$root/.mpi}
[ -f "$mpi/mpi.tar.xz" ] || bash "$root/scripts/pack_mpi.sh" "$mpi"
mkdir -p "$dest/mpi"
cp "$mpi/mpi.tar.xz" "$mpi/env.sh" "$dest/mpi/"
git -C "$root" rev-parse --short HEAD > "$dest/revision"
du -sh "$dest"
