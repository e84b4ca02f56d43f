#!/usr/bin/env bash
# Host-array SGEMM/SGEMV/HGEMM end to end through myblas, NVBLAS and OpenBLAS, one after the
# other on the same machine (run on the GPU machine through .gpu/run.sh).
#   bench/run_host_bench.sh BUILD_DIR OUT.csv [MAX_N]
# ROUNDS=R (default 1) runs the paths R times in turn (NVBLAS in the first round only: it is
# the far-off reference); bench/summarize_host.py takes the median over the rounds. One round
# of separate processes does not resolve 5% on this host (the same path measured 0.73-1.19x
# itself between two processes, bench/results/h100-host-pool-2026-11-25-single.csv).
set -euo pipefail
build=$1 out=$2 max=${3:-16384}
bench=$build/bench/bench_host
# The OpenBLAS that dlopen("libopenblas.so.0") finds (LD_LIBRARY_PATH first, as for the other
# paths), also for NVBLAS's CPU side: on the H100 machine ldconfig knows another OpenBLAS (the
# image's own), which runs before 2026-11-26 used for NVBLAS.
openblas=$(find ${LD_LIBRARY_PATH//:/ } -maxdepth 1 -name libopenblas.so.0 2>/dev/null | head -1)
[ -n "$openblas" ] || openblas=$(ldconfig -p | awk '/libopenblas.so.0/{print $NF; exit}')
nvblas=$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1 || true)
tuned=${TUNED_CORE:-SkylakeX}
{
  echo "# bench_host: host arrays end to end (median wall time per call); $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed -n 1p || echo none) (sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | sed -n 1p | tr -d .)); host cores: $(nproc); revision: ${REVISION:-$(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "# command: bench/run_host_bench.sh $*   (OpenBLAS: $openblas, threads: ${OPENBLAS_NUM_THREADS:-all}; openblas_tuned: OPENBLAS_CORETYPE=$tuned; NVBLAS: ${nvblas:-missing})"
} > "$out"
# PATHS (default all): myblas = as dispatched; best_gpu = myblas with MYBLAS_BACKEND=cublas
# (host arrays through the pipeline); cpu = myblas with MYBLAS_BACKEND=cpu (its CPU path, with
# the OpenBLAS kernels myblas settles on: backends/cpu/cpu_blas.cpp); openblas = OpenBLAS as
# installed, choosing its own kernels; openblas_tuned = OpenBLAS with OPENBLAS_CORETYPE=$TUNED_CORE
# (default SkylakeX: on the H100's host OpenBLAS 0.3.21 picks Prescott by itself); nvblas.
# The CPU paths stop at 8192.
paths=${PATHS:-"myblas best_gpu cpu openblas openblas_tuned nvblas"}
cpu_max=$(( max < 8192 ? max : 8192 ))
echo "routine,path,m,n,k,time_ms,gflops" >> "$out"
rounds=${ROUNDS:-1}
for round in $(seq 1 "$rounds"); do
for p in $paths; do
  [ "$p" = nvblas ] && [ "$round" -gt 1 ] && continue
  case $p in
    myblas) LD_PRELOAD=$build/src/libmyblas.so.0 "$bench" myblas --max "$max" ;;
    best_gpu) MYBLAS_BACKEND=cublas LD_PRELOAD=$build/src/libmyblas.so.0 "$bench" best_gpu --max "$max" ;;
    cpu) MYBLAS_BACKEND=cpu LD_PRELOAD=$build/src/libmyblas.so.0 "$bench" cpu --max "$cpu_max" ;;
    openblas) "$bench" openblas --openblas --max "$cpu_max" ;;
    openblas_tuned) OPENBLAS_CORETYPE=$tuned "$bench" openblas_tuned --openblas --max "$cpu_max" ;;
    nvblas) [ -n "$nvblas" ] || continue
      conf=$(mktemp)
      printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST ALL\nNVBLAS_LOGFILE /dev/null\n' "$openblas" > "$conf"
      NVBLAS_CONFIG_FILE=$conf LD_PRELOAD=$nvblas "$bench" nvblas --max "$max" --skip-hgemm ;;
  esac | grep -v '^routine' | tee -a "$out"
done
done
