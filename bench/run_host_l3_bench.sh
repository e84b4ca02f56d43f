#!/usr/bin/env bash
# Host-array Level 3 and GEMV in S, D, C, Z end to end through myblas (as dispatched; on the GPU
# with MYBLAS_BACKEND=cublas; on its CPU path with MYBLAS_BACKEND=cpu), OpenBLAS alone (with the
# SkylakeX kernels myblas settles on there) and NVBLAS over the same OpenBLAS, one after the other
# on the same machine (run on the GPU machine through .gpu/run.sh).
#   bench/run_host_l3_bench.sh BUILD_DIR OUT.csv
# Headline: the GPU path (what the measured host table chooses at these sizes), NVBLAS, OpenBLAS
# (HEADLINE_PATHS); BETA0=1 adds the calls with beta 0 (paths labelled ...--beta0).
# HEADLINE=0 skips the four large calls (DGEMM, DSYRK, DTRSM 8192, ZGEMM 4096); SWEEP=0 skips the
# sweep of every routine over SIZES (default 128..2048) that the measured host table is made from.
set -euo pipefail
build=$1 out=$2
bench=$build/bench/bench_host_l3
openblas=$(find ${LD_LIBRARY_PATH//:/ } -maxdepth 1 -name libopenblas.so.0 2>/dev/null | head -1)
[ -n "$openblas" ] || openblas=$(ldconfig -p | awk '/libopenblas.so.0/{print $NF; exit}')
nvblas=$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1 || true)
sizes=${SIZES:-128,256,512,1024,2048}
all="dgemm,cgemm,zgemm,dgemv,cgemv,zgemv,ssymm,dsymm,csymm,zsymm,chemm,zhemm,ssyrk,dsyrk,csyrk,zsyrk,cherk,zherk"
all="$all,ssyr2k,dsyr2k,csyr2k,zsyr2k,cher2k,zher2k,strmm,dtrmm,ctrmm,ztrmm,strsm,dtrsm,ctrsm,ztrsm"
{
  echo "# bench_host_l3: host arrays end to end (median wall time per call); $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed -n 1p || echo none) (sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | sed -n 1p | tr -d .)); host cores: $(nproc); revision: ${REVISION:-$(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "# command: bench/run_host_l3_bench.sh $*   (OpenBLAS: $openblas with OPENBLAS_CORETYPE=SkylakeX; NVBLAS: ${nvblas:-missing})"
  echo "routine,path,m,n,k,time_ms,gflops"
} > "$out"
lib=$build/src/libmyblas.so.0
run() {  # PATH-LABEL ROUTINES SIZES [--beta0]
  local p=$1 r=$2 s=$3 x=${4:-}
  case $p in
    myblas) LD_PRELOAD=$lib "$bench" myblas --routines "$r" --sizes "$s" $x ;;
    best_gpu) MYBLAS_BACKEND=cublas LD_PRELOAD=$lib "$bench" best_gpu$x --routines "$r" --sizes "$s" $x ;;
    cpu) MYBLAS_BACKEND=cpu LD_PRELOAD=$lib "$bench" cpu --routines "$r" --sizes "$s" $x ;;
    openblas_tuned) OPENBLAS_CORETYPE=SkylakeX "$bench" openblas_tuned$x --openblas --routines "$r" --sizes "$s" $x ;;
    nvblas) [ -n "$nvblas" ] || return 0
      conf=$(mktemp)
      printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_LOGFILE /dev/null\n' "$openblas" > "$conf"
      OPENBLAS_CORETYPE=SkylakeX NVBLAS_CONFIG_FILE=$conf LD_PRELOAD=$nvblas "$bench" nvblas$x --routines "$r" --sizes "$s" $x ;;
  esac | tee -a "$out"
}
# CHECK=1 (default): every routine at order 1000 (several panels) on the GPU path against OpenBLAS
# first, lines "check,routine,n,max_rel_diff" on stdout.
if [ "${CHECK:-1}" = 1 ]; then
  MYBLAS_BACKEND=cublas LD_PRELOAD=$lib "$bench" check --check --routines "$all" --sizes 1000,333
fi
if [ "${HEADLINE:-1}" = 1 ]; then
  for p in ${HEADLINE_PATHS:-best_gpu nvblas openblas_tuned}; do
    run $p dgemm,dsyrk,dtrsm 8192
    run $p zgemm 4096
    [ "${BETA0:-0}" = 1 ] && run $p dgemm,dsyrk 8192 --beta0 && run $p zgemm 4096 --beta0
  done
fi
# QUALITY=1: auto mode between the table's rows (sizes off its grid) beside both paths, for
# "within 5% of the better path".
if [ "${QUALITY:-0}" = 1 ]; then
  q=${QUALITY_ROUTINES:-dgemm,zgemm,dsyrk,zherk,dtrsm,ctrmm,csymm,dgemv}
  for p in myblas best_gpu cpu; do run $p "$q" "${QUALITY_SIZES:-181,362,724,1448}"; done
fi
# PAIRED=1: auto beside the cpu and cublas settings in one process, taking turns (bench_host_l3
# --paired), every routine (S, D, C, Z, GEMM and GEMV included) over PAIRED_SIZES, written to
# OUT.csv's sibling OUT-paired.csv.
if [ "${PAIRED:-0}" = 1 ]; then
  LD_PRELOAD=$lib "$bench" paired --paired --routines "sgemm,sgemv,$all" \
    --sizes "${PAIRED_SIZES:-64,96,128,181,256,362,512,724,1024,1448,2048,4096,8192}" | tee "${out%.csv}-paired.csv"
fi
if [ "${SWEEP:-1}" = 1 ]; then
  for p in best_gpu cpu; do run $p "$all" "$sizes"; done
fi
