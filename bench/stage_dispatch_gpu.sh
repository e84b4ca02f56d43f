#!/usr/bin/env bash
# Copies what bench/run_dispatch_gpu.sh runs from a build tree into one folder (stripped), for a
# GPU machine that gets the checkout and that folder: libmyblas.so*, bench_blas,
# probe_stream_calls, bench_cpu_overhead, test_call_ranges and the NVTX test tool.
# usage: bench/stage_dispatch_gpu.sh BUILD_DIR DEST [STAGE_CLOCK_BUILD_DIR]
#   (e.g. build /work/main/.dev-dispatch build-stage)
# Build first: cmake --build BUILD_DIR -j2 --target myblas bench_blas probe_stream_calls \
#   bench_cpu_overhead test_call_ranges nvtx_recorder
set -euo pipefail
build=$1
dest=$2
mkdir -p "$dest"
cp -P "$build"/src/libmyblas.so* "$dest"/
for f in bench/bench_blas bench/probe_stream_calls bench/bench_cpu_overhead tests/dispatch/test_call_ranges \
         tests/dispatch/libnvtx_recorder.so; do
  cp "$build/$f" "$dest/"
done
strip --strip-unneeded "$dest"/libmyblas.so.*.* "$dest"/bench_blas "$dest"/probe_stream_calls \
  "$dest"/bench_cpu_overhead "$dest"/test_call_ranges "$dest"/libnvtx_recorder.so
# A build with the stage clock (cmake -DMYBLAS_STAGE_CLOCK=ON, target myblas) in $3, if given:
# its libmyblas goes to DEST/stage/.
if [ $# -ge 3 ]; then
  mkdir -p "$dest/stage"
  cp -P "$3"/src/libmyblas.so* "$dest/stage/"
  strip --strip-unneeded "$dest"/stage/libmyblas.so.*.*
fi
ls -la "$dest" "$dest/stage" 2>/dev/null
