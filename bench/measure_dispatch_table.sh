#!/usr/bin/env bash
# Measures the dispatch table on the GPU at hand and writes OUT_DIR/dispatch-sm_XY.csv, the
# file libmyblas reads for GPUs of that compute capability (README, "Dispatch tables"):
# device pointers, our kernels against cuBLAS: SGEMV (bench_sgemv) and SGEMM (bench_sgemm), two
# runs each, a kernel chosen only where it won both; HGEMM through the library (bench_blas
# --hgemm under MYBLAS_BACKEND=cublas and =kernels, beta 0 and 0.5); and host arrays, GPU
# pipeline against the library's CPU path (run_host_bench.sh, HOST_ROUNDS rounds, default 3:
# the medians decide; one round of separate processes did not resolve the crossover). Then (not with QUICK=1) bench_blas --quality twice
# on that table's device shapes, the table again with those runs as more SGEMM evidence (both kinds
# of beta for every shape), and a third --quality run that checks the final table.
# The raw results stay in OUT_DIR beside the table. Install the table with the library
# (copy it to <prefix>/share/myblas/) or point MYBLAS_DISPATCH_TABLE at it.
#   bench/measure_dispatch_table.sh BUILD_DIR OUT_DIR          (about 15 minutes on an H100)
#   QUICK=1 bench/measure_dispatch_table.sh BUILD_DIR OUT_DIR  (a few shapes: checks the tools)
set -euo pipefail
build=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
if [ "${QUICK:-0}" = 1 ]; then
  sgemv_args=(--quick --reps=10); sgemm_args=(--skinny --reps=5); max=512
else
  sgemv_args=(--reps=50); sgemm_args=(--reps=20); max=8192
fi
for run in 1 2; do
  "$build/bench/bench_sgemv" "${sgemv_args[@]}" > "$out/sgemv-run$run.csv"
  "$build/bench/bench_sgemm" "${sgemm_args[@]}" > "$out/sgemm-run$run.csv"
done
for backend in cublas kernels; do
  MYBLAS_BACKEND=$backend "$build/bench/bench_blas" --hgemm > "$out/hgemm-$backend.csv"
done
ROUNDS=${HOST_ROUNDS:-3} PATHS="best_gpu cpu" "$here/run_host_bench.sh" "$build" "$out/host.csv" "$max" > /dev/null
cc=$(grep -m1 -oE 'sm_[0-9]{2,3}' "$out/sgemv-run1.csv" | sed -n 1p)
make_table() {  # extra --sgemm evidence files as arguments
  python3 "$here/make_dispatch_table.py" --arch "$cc" --sgemv "$out/sgemv-run1.csv" "$out/sgemv-run2.csv" \
    --sgemm "$out/sgemm-run1.csv" "$out/sgemm-run2.csv" "$@" --blas "$out/hgemm-cublas.csv" "$out/hgemm-kernels.csv" \
    --host "$out/host.csv" -o "$out/dispatch-$cc.csv"
}
make_table
if [ "${QUICK:-0}" != 1 ]; then
  # Every device shape of that table with both kinds of beta, each candidate kernel beside cuBLAS
  # and auto mode (bench_blas --quality), twice: SGEMM evidence for the beta kinds the kernel runs
  # did not measure; then the table again, and a third run that checks it (its "# quality" lines).
  cp "$out/dispatch-$cc.csv" "$out/dispatch-$cc-pass1.csv"
  for run in 1 2; do
    "$build/bench/bench_blas" --quality="$out/dispatch-$cc-pass1.csv" > "$out/quality-run$run.csv"
  done
  make_table "$out/quality-run1.csv" "$out/quality-run2.csv"
  "$build/bench/bench_blas" --quality="$out/dispatch-$cc.csv" > "$out/quality-check.csv"
  grep "quality summary" "$out/quality-check.csv"
fi
echo "wrote $out/dispatch-$cc.csv"
