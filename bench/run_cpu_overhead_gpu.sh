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
# About 20 s on an H100 host; each run is limited to 9 s (at most 108 s in all). Writes one file,
# $OUT/cpu_overhead_gpu.txt (every run's output, the settings in its header lines), and prints
# each run's settings and target lines.
#
# usage: bench/run_cpu_overhead_gpu.sh [OUT]   (OUT: the folder for the file, default ./out)
#   bench_cpu_overhead and libmyblas.so* come from BIN (default .dev-cpucost, where
#   bench/stage_cpu_overhead_gpu.sh copies them), which goes first on LD_LIBRARY_PATH.
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
      timeout 9 "$BIN/bench_cpu_overhead" "${args[@]}" >> "$file" 2>&1
      echo "## exit $?" >> "$file"
    done
  done
done
grep "^## round\|^# target\|^# operands\|^## exit [^0]" "$file"
