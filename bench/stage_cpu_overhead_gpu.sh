#!/usr/bin/env bash
# Copies what bench/run_cpu_overhead_gpu.sh runs from a build tree into one folder (stripped):
# libmyblas.so*, bench_cpu_overhead, probe_pointer_query and the interface tests it runs for their device cases
# (test_interface_sgemm, test_interface_sgemv, test_interface_blas).
# usage: bench/stage_cpu_overhead_gpu.sh BUILD_DIR DEST   (e.g. build /work/main/.dev-cpucost)
# Build first: cmake --build BUILD_DIR -j2 --target myblas bench_cpu_overhead probe_pointer_query test_interface_sgemm \
#   test_interface_sgemv test_interface_blas
set -euo pipefail
build=$1
dest=$2
mkdir -p "$dest"
cp -P "$build"/src/libmyblas.so* "$dest"/
cp "$build/bench/bench_cpu_overhead" "$build/bench/probe_pointer_query" "$build/tests/interface/test_interface_sgemm" \
  "$build/tests/interface/test_interface_sgemv" "$build/tests/interface/test_interface_blas" "$dest/"
strip --strip-unneeded "$dest"/libmyblas.so.*.* "$dest"/bench_cpu_overhead "$dest"/probe_pointer_query "$dest"/test_interface_sgemm \
  "$dest"/test_interface_sgemv "$dest"/test_interface_blas
ls -la "$dest"
