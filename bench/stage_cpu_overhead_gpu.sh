#!/usr/bin/env bash
# Copies what bench/run_cpu_overhead_gpu.sh runs from a build tree into one folder (stripped):
# libmyblas.so* and bench_cpu_overhead.
# usage: bench/stage_cpu_overhead_gpu.sh BUILD_DIR DEST   (e.g. build /work/main/.dev-cpucost)
# Build first: cmake --build BUILD_DIR -j2 --target myblas bench_cpu_overhead
set -euo pipefail
build=$1
dest=$2
mkdir -p "$dest"
cp -P "$build"/src/libmyblas.so* "$dest"/
cp "$build/bench/bench_cpu_overhead" "$dest/"
strip --strip-unneeded "$dest"/libmyblas.so.*.* "$dest"/bench_cpu_overhead
ls -la "$dest"
