#!/usr/bin/env bash
# The dispatch measurements on a GPU machine, in one run (about 2 minutes on an H100):
#   1. bench_cpu_overhead: host-array calls on the CPU path paired with OpenBLAS alone (this
#      machine's CPU, with a GPU present);
#   2. probe_stream_calls: the library's cost per device-operand call on a program's stream and
#      on the default stream, beside raw cuBLAS;
#   3. bench_blas --offgrid: auto mode on log-uniform shapes off the table's rows (seeds 1 and
#      2; SGEMM, SGEMV, HGEMM, DGEMM, ZGEMM) beside cuBLAS and every candidate kernel, plus the
#      two shapes where the nearest-row rule lost (SGEMV N 3000 x 7000 beta 1, SGEMM NN
#      4096 x 4096 x 256 beta 0);
#   4. test_call_ranges: the NVTX ranges of calls on the GPU paths, recorded by the test tool;
#   5. when BIN/stage/ holds a libmyblas built with -DMYBLAS_STAGE_CLOCK=ON: probe_stream_calls
#      again on that library, whose per-stage medians (locate, choose, prepare, handle, launch,
#      sync) go to stage_clock.txt at exit: where the library's time per call goes.
# Files under $OUT (default ./out): cpu_overhead.csv, stream_calls.csv, offgrid.csv,
# call_ranges.txt, stage_calls.csv and stage_clock.txt, and run.txt (what ran, exit codes).
# bench/offgrid_report.py turns offgrid.csv into the report.
#
# usage: bench/run_dispatch_gpu.sh [BIN]
#   BIN: the directory with the binaries and libmyblas.so* (default .dev-dispatch): bench_blas,
#   probe_stream_calls, bench_cpu_overhead, test_call_ranges, libnvtx_recorder.so, and optionally
#   stage/libmyblas.so* (bench/stage_dispatch_gpu.sh puts them there). The measured
#   table is data/dispatch-sm_90.csv of the checkout. Each step has a time limit; a step that
#   fails or runs out of time is recorded in run.txt and the others still run.
set -u
cd "$(dirname "$0")/.."
BIN=${1:-.dev-dispatch}
OUT=${OUT:-out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
log="$OUT/run.txt"
{
  echo "# run_dispatch_gpu.sh: $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/# GPU: /'
  echo "# binaries: $BIN ($(ls "$BIN" | tr '\n' ' '))"
} > "$log"

step() {  # step NAME LIMIT_S OUTFILE COMMAND...
  local name=$1 limit=$2 file=$3
  shift 3
  local t0=$SECONDS
  timeout "$limit" "$@" > "$OUT/$file" 2> "$OUT/$name.err"
  local rc=$?
  echo "$name: exit $rc in $((SECONDS - t0)) s: $*" >> "$log"
  [ -s "$OUT/$name.err" ] || rm -f "$OUT/$name.err"
}

step cpu_overhead 20 cpu_overhead.csv "$BIN/bench_cpu_overhead" --samples 301
step stream_calls 30 stream_calls.csv "$BIN/probe_stream_calls"
step offgrid 120 offgrid.csv "$BIN/bench_blas" --offgrid=data/dispatch-sm_90.csv --seeds=1,2 --count=16 --budget-s=95 \
  --extra=sgemv:N:3000:7000:0:1,sgemm:NN:4096:4096:256:0
NVTX_INJECTION64_PATH="$PWD/$BIN/libnvtx_recorder.so" MYBLAS_BACKEND=auto \
  step call_ranges 20 call_ranges.txt "$BIN/test_call_ranges"
if [ -e "$BIN/stage/libmyblas.so.0" ]; then
  LD_LIBRARY_PATH="$PWD/$BIN/stage:$LD_LIBRARY_PATH" step stage_calls 30 stage_calls.csv \
    "$BIN/probe_stream_calls" --blocks 9
  grep "myblas stage clock" "$OUT/stage_calls.err" > "$OUT/stage_clock.txt" 2>/dev/null
fi
cat "$log"
grep -h "^# offgrid summary\|^# quality summary" "$OUT/offgrid.csv" 2>/dev/null
cat "$OUT/stream_calls.csv" 2>/dev/null | grep -v "^#"
cat "$OUT/stage_clock.txt" 2>/dev/null
