#!/usr/bin/env bash
# The library's own cost on host-array calls that stay on the CPU, on a machine with a GPU:
# bench_cpu_overhead (libmyblas's CPU path beside OpenBLAS alone, paired in one process) in four
# settings, each a few times, interleaved:
#   ctx=none  the process never creates a CUDA context (the library asks the driver whether one
#             exists on each call until one does);
#   ctx=made  the program made a CUDA context first, as a GPU program has (then every operand
#             outside the program-break heap is located by a driver query);
#   alloc=heap  operands in malloc's program-break heap (blocks under 128 KB, as small arrays are);
#   alloc=mmap  operands in their own mmap'd 4 MB blocks.
# Then probe_pointer_query: the cost of each driver question that locates an operand outside the
# program-break heap (bench/probes/probe_pointer_query.cpp; appended to the first file).
# Then, as a check that device operands are still located (a call whose operands all lie in the
# program-break heap asks the driver nothing), the interface tests' device cases in auto mode:
# SGEMM, SGEMV and the D/C/Z GEMM/GEMV (all operands on the device, host and device mixed).
# About 30 s on an H100 host; each bench run is limited to 6 s and each test to 20 s (at most
# 2 minutes in all). Writes two files under $OUT: cpu_overhead_gpu.txt (every bench run's output,
# the settings in its header lines) and device_checks.txt (the tests' summaries), and prints each
# run's settings and target lines and each test's result line.
#
# usage: bench/run_cpu_overhead_gpu.sh [OUT]   (OUT: the folder for the file, default ./out)
#   bench_cpu_overhead, the three test programs and libmyblas.so* come from BIN (default
#   .dev-cpucost, where bench/stage_cpu_overhead_gpu.sh copies them), which goes first on
#   LD_LIBRARY_PATH.
set -u
cd "$(dirname "$0")/.."
OUT=${1:-${OUT:-out}}
BIN=${BIN:-.dev-cpucost}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$BIN${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
file="$OUT/cpu_overhead_gpu.txt"
{
  echo "# run_cpu_overhead_gpu.sh: $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/# GPU: /'
  echo "# /dev/nvidiactl: $([ -e /dev/nvidiactl ] && echo present || echo absent); binaries: $BIN"
} > "$file"
for round in 1 2 3; do
  for ctx in none made; do
    for alloc in heap mmap; do
      args=(--samples 301 --alloc "$alloc")
      [ "$ctx" = made ] && args+=(--cuda-context)
      echo "## round $round ctx=$ctx alloc=$alloc" >> "$file"
      timeout 6 "$BIN/bench_cpu_overhead" "${args[@]}" >> "$file" 2>&1
      echo "## exit $?" >> "$file"
    done
  done
done
# What the driver's answers behind the mmap settings cost, per question (no context; with one,
# per operand outside the program-break heap).
echo "## probe_pointer_query" >> "$file"
timeout 10 "$BIN/probe_pointer_query" >> "$file" 2>&1
echo "## exit $?" >> "$file"
grep "^## round\|^# target\|^# operands\|^## exit [^0]" "$file"
sed -n '/^## probe_pointer_query/,$p' "$file"

checks="$OUT/device_checks.txt"
: > "$checks"
for t in "test_interface_sgemm SgemmDevice.*" "test_interface_sgemv SgemvDevice.*" "test_interface_blas *Device*"; do
  set -- $t
  echo "## $1 --gtest_filter=$2 (MYBLAS_BACKEND=auto)" >> "$checks"
  MYBLAS_BACKEND=auto timeout 20 "$BIN/$1" --gtest_filter="$2" > "$OUT/test.log" 2>&1
  rc=$?
  grep "^\[  PASSED\|^\[  FAILED\|^\[  SKIPPED \] [0-9]\|tests ran" "$OUT/test.log" >> "$checks"
  grep "^\[  FAILED  \] [A-Za-z]" "$OUT/test.log" | head -20 >> "$checks"
  echo "## exit $rc" >> "$checks"
  rm -f "$OUT/test.log"
done
cat "$checks"
