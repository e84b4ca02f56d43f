#!/usr/bin/env bash
# Host-array GEMM on one GPU and on two, beside the bound (docs/multi_gpu.md), in one process
# per configuration on one machine:
#   bench/run_multi_gpu.sh <build dir> <out file> [n ...]        (default n: 16384)
# 1. the staging rate (pageable memory through pinned buffers, both directions) and cuBLAS's own
#    SGEMM time on device operands, on GPU 0 alone and on GPUs 0 and 1 at once;
# 2. host-array SGEMM n^3 through libmyblas (MYBLAS_BACKEND=cublas), on GPU 0 alone
#    (MYBLAS_DEVICES=0) and split over GPUs 0 and 1 (MYBLAS_DEVICES=0,1); then DGEMM where
#    libmyblas has dgemm_.
# The bound for a configuration is the larger of (bytes the host stages / the staging rate
# measured for that many GPUs) and (the product's time on its GPUs at cuBLAS's measured rate).
set -u
build=$1 out=$2
shift 2
sizes=${*:-16384}
b=$build/bench/bench_multi_gpu
{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores"
  nvidia-smi --query-gpu=index,name,pci.bus_id,clocks.max.sm --format=csv,noheader
  nvidia-smi topo -m 2>/dev/null | head -4
  "$b" stage 1 2
  "$b" stage 2 2
  for n in $sizes; do
    for prec in s d; do
      for devices in 0 0,1; do
        MYBLAS_BACKEND=cublas MYBLAS_DEVICES=$devices MYBLAS_VERBOSE=1 "$b" host "$n" 5 "$prec" 2>&1 |
          grep -v '^myblas: [sd]gemm NN' | head -20
        # (the per-call log lines are dropped; the split line and any warning stay)
      done
    done
  done
} 2>&1 | tee "$out"
