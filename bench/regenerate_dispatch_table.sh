#!/usr/bin/env bash
# Rewrites the committed H100 dispatch table from the result files its header names (kept in
# bench/results/dispatch-sm_90/), byte for byte:
#   bench/regenerate_dispatch_table.sh [OUT.csv]     (default: data/dispatch-sm_90.csv)
# ctest dispatch.table_regenerates runs it into a temporary file and compares.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${1:-$root/data/dispatch-sm_90.csv}")
cd "$root/bench/results/dispatch-sm_90"
exec "${PYTHON:-python3}" ../../make_dispatch_table.py \
  --sgemv h100-sgemv-2026-11-26-sweep-run{1,2,3,4}.csv \
  --sgemm h100-sgemm-prod-2026-11-22-{large,mid,run3-large,run3-mid}.csv \
          h100-sgemm-prod2-2026-11-22-{large,mid}.csv h100-sgemm-skinny-v5-2026-11-22-run{1,2}.csv \
          h100-sgemm-smallk-final-2026-11-22-run{1,2}.csv h100-dispatch-v4-2026-11-22.run{1,2}.csv \
          h100-sgemm-smallk-v3-2026-11-26-final-run{1,2}.csv h100-sgemm-smallk-v3-2026-11-26-pre-run{1,2}.csv \
          h100-dispatch-v8-2026-11-26.run{1,2}.csv h100-sgemm-smallk-v9-2026-11-26-lib-run{1,2}.csv \
          h100-dispatch-v18-2026-11-26-run{1,2}.csv \
  --blas h100-dispatch-final-2026-11-22.csv h100-hgemm-dispatch-2026-11-22.csv \
  --host h100-host-cpucore-2026-11-26-passA2.csv h100-host-paired-t20-2026-11-28.csv h100-host-paired-t20-2026-11-28-run2.csv h100-host-paired-t20-2026-11-28-run3.csv \
  -o "$out"
