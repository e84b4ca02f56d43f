#!/usr/bin/env bash
# Where auto mode's time goes on the small-k and skinny HGEMM shapes (device pointers), beside
# each path it may take with the same synchronise a default-stream libmyblas call ends with:
#   beta.csv   bench_gemm_beta --shapes=smallk,skinny --routines=hgemm,shgemm (cublas-raw-sync,
#              cublas-once-sync and kernel-sync are auto's anchors: t(X-sync) / t(auto:X) is the
#              library's own share, 1 - that ratio of the call)
#   stage.txt  the same at m, n, k <= 4096 with a libmyblas built with -DMYBLAS_STAGE_CLOCK=ON
#              (host ns per stage of each call: locate, choose, prepare, handle, launch, sync;
#              total - sync is the library's host time before it waits for the GPU)
#   summary.txt  per shape and beta: auto's path, t(auto), t(anchor), their ratio
#
# Prepare here (sm_90a builds: build as usual, build-sc with -DMYBLAS_STAGE_CLOCK=ON):
#   cmake --build build --target myblas bench_gemm_beta -j2
#   cmake --build build-sc --target myblas -j2
#   d=/work/main/.dev-NAME; mkdir -p $d/sc
#   cp -a build/src/libmyblas.so* build/bench/bench_gemm_beta $d/; cp -a build-sc/src/libmyblas.so* $d/sc/
#   strip $d/bench_gemm_beta $d/libmyblas.so.0.* $d/sc/libmyblas.so.0.*
# Run on the device (about 30 s; carry [".gpu", ".dev-NAME"]):
#   bash .gpu/run.sh bash bench/run_gemm_beta_overhead.sh .dev-NAME
set -u
dir=${1:-.dev-i28o}
out=${OUT:-./gemm-beta-out}
mkdir -p "$out"
base=${LD_LIBRARY_PATH:-}
run() {  # run <library dir> <output> <arguments...>
  local lib=$1 file=$2
  shift 2
  LD_LIBRARY_PATH=$PWD/$lib:$base timeout 120 "$PWD/$dir/bench_gemm_beta" "$@" > "$file" 2>&1
  echo "$(basename "$file"): exit $?" >> "$out/summary.txt"
}
{ date -u '+%Y-%m-%d %H:%M UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$out/summary.txt" 2>&1
run "$dir" "$out/beta.csv" --shapes=smallk,skinny --routines=hgemm,shgemm --reps=9
run "$dir/sc" "$out/stage.txt" --shapes=smallk,skinny --routines=hgemm --reps=5 --max-dim=4096
# auto against the anchor of the path it took (X-sync), and against cublas-raw-sync
awk -F, '!/^#/ && $1 != "routine" {
  key = $1 " " $3 " " $4 "x" $5 "x" $6 " b" $7; t[key, $2] = $8
  if ($2 ~ /^auto:/) { took[key] = substr($2, 6); order[++n] = key }
}
END {
  printf "%-28s %-8s %8s %8s %6s %8s %6s\n", "shape", "path", "auto_us", "anchor", "ratio", "rawsync", "ratio" >> out
  for (i = 1; i <= n; ++i) {
    k = order[i]; p = took[k]
    b = beta = k; sub(/.* b/, "", beta)
    anchor = p == "kernels" ? "kernel-sync" : (k ~ /^hgemm/ && beta != "0" ? "cublas-once-sync" : "cublas-raw-sync")
    a = t[k, "auto:" p]; x = t[k, anchor]; r = t[k, "cublas-raw-sync"]
    printf "%-28s %-8s %8.2f %8.2f %6.3f %8.2f %6.3f\n", k, p, a, x, x / a, r, r / a >> out
  }
}' out="$out/summary.txt" "$out/beta.csv"
grep '^myblas stage clock' "$out/stage.txt" >> "$out/summary.txt"
cat "$out/summary.txt"
