#!/usr/bin/env bash
# ScaLAPACK under mpirun with libmyblas preloaded as each rank's BLAS (pdgemm_check.c, built as
# pdgemm_check and, in single precision, psgemm_check: their local products are dgemm_ / sgemm_).
#   run_pdgemm.sh <pdgemm_check> <LD_PRELOAD value> cpu [N NB reps [gemm|getrf|both]]
#       2 ranks, MYBLAS_BACKEND=cpu: PDGEMM and PDGETRF correct with myblas under ScaLAPACK.
#   run_pdgemm.sh <pdgemm_check> <LD_PRELOAD value> gpu [N NB reps [gemm|getrf|both]]
#       2 ranks on a host of 2 or more GPUs, MYBLAS_VERBOSE=1: each rank's log line must name the
#       GPU of its local rank (rank r on GPU r), the checks must pass; then the same run with
#       MYBLAS_DEVICES=0 (both ranks on GPU 0), for the comparison of times.
# Exits 77 (skipped, with the reason) without mpirun, without 2 GPUs (gpu), or, for gpu, while
# libmyblas lacks the program's GEMM (ScaLAPACK's local products would not reach it). MYBLAS_MPI_ENV names
# an env.sh from scripts/pack_mpi.sh to source first (machines without MPI installed).
set -u
prog=$1 preload=$2 mode=$3
n=${4:-2048} nb=${5:-256} reps=${6:-3} what=${7:-both}
# Each mpirun is stopped after MYBLAS_MPI_TIMEOUT seconds (default 600), its output so far shown.
limit=${MYBLAS_MPI_TIMEOUT:-600}
# The ranks share the host's cores: mpirun binds nothing (Open MPI binds each of 2 ranks to one
# core by default, which would put a rank's OpenBLAS threads and myblas's copy threads, which
# spin while a call's copies come, all on that one core), and each rank's OpenBLAS and copy
# threads take half the cores.
cores=$(nproc 2>/dev/null || echo 2)
half=$(( cores / 2 > 0 ? cores / 2 : 1 ))
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$half} MYBLAS_COPY_THREADS=${MYBLAS_COPY_THREADS:-$half}
if [ -n "${MYBLAS_MPI_ENV:-}" ]; then
  # shellcheck disable=SC1090
  . "$MYBLAS_MPI_ENV"
fi
skip() { echo "SKIPPED: $*"; exit 77; }
command -v mpirun >/dev/null 2>&1 || skip "no mpirun (apt-get install openmpi-bin libopenmpi-dev libscalapack-openmpi-dev)"
lib=${preload##*:}  # the last entry is libmyblas (an ASan runtime may come first)
case "$(basename "$prog")" in
  ps*) gemm=sgemm ;;
  *) gemm=dgemm ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run() {  # run <label> [VAR=value ...]: 2 ranks, output in $log
  local label=$1
  shift
  local xs=() kv
  for kv in "$@"; do
    export "${kv?}"
    xs+=(-x "${kv%%=*}")
  done
  echo "== $label: mpirun -np 2 ... $prog $n $nb $reps $what ($*)"
  # (shown as it comes, without myblas's per-call lines; the GEMM's are summed up below)
  timeout -k 10 "$limit" mpirun -np 2 --oversubscribe --bind-to none --tag-output -x LD_PRELOAD="$preload" \
    -x OPENBLAS_NUM_THREADS -x MYBLAS_COPY_THREADS "${xs[@]}" "$prog" "$n" "$nb" "$reps" "$what" 2>&1 | tee "$log" | grep --line-buffered -v 'myblas: [a-z0-9]* .*path='
  local rc=${PIPESTATUS[0]}
  [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || echo "FAILED: stopped after $limit s"
  # What each rank's local products did: calls, where, their summed time, and the bytes the GPU
  # calls on host arrays moved (A and B up, C up and down: an upper count, the log has no beta).
  local es=8
  [ "$gemm" = sgemm ] && es=4
  for r in 0 1; do
    grep "^\[1,$r\]<std...>:myblas: $gemm " "$log" | awk -v r="$r" -v g="$gemm" -v es="$es" '
      { for (i = 1; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
        t = v["time"] + 0; calls++; ms += t
        if ($0 ~ /path=(cublas|kernels)/) { gpu++; gms += t
          if (v["mem(a,b,c)"] == "hhh") bytes += (v["m"] * v["k"] + v["k"] * v["n"] + 2 * v["m"] * v["n"]) * es }
        else if ($0 ~ /path=cpu/) cpu++ }
      END { printf "rank %d: %d %s calls logged by myblas (%d on the GPU, %d on the CPU), %.1f ms in them (%.1f ms on the GPU), %.2f GB staged by the GPU calls\n",
            r, calls, g, gpu, cpu, ms, gms, bytes / 1e9 }'
  done
  [ $rc -eq 0 ] || { echo "FAILED: mpirun exited $rc"; exit 1; }
  grep -q FAIL "$log" && { echo "FAILED: a check failed"; exit 1; }
  local want=2
  [ "$what" = both ] || want=1
  [ "$(grep -c PASS "$log")" -ge $want ] || { echo "FAILED: the checks did not run"; exit 1; }
}

has_gemm() {  # (without nm, assumed: libmyblas has had both GEMMs for long)
  command -v nm >/dev/null 2>&1 || return 0
  nm -D --defined-only "$lib" 2>/dev/null | grep -qw "${gemm}_"
}
if [ "$mode" = cpu ]; then
  run "CPU BLAS through myblas" MYBLAS_BACKEND=cpu MYBLAS_VERBOSE=1
  if has_gemm; then  # then ScaLAPACK's local products must have come to myblas
    for r in 0 1; do
      grep -q "^\[1,$r\]<std...>:myblas: $gemm" "$log" || { echo "FAILED: rank $r's ${gemm}_ calls did not reach myblas"; exit 1; }
    done
  fi
  echo "PASSED"
  exit 0
fi

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$gpus" -ge 2 ] || skip "needs 2 GPUs, found $gpus"
has_gemm || skip "$lib has no ${gemm}_: ScaLAPACK's local products would run in the system BLAS"
run "one GPU per rank (default mapping)" MYBLAS_VERBOSE=1 MYBLAS_BACKEND=${MYBLAS_BACKEND:-auto}
for r in 0 1; do
  line=$(grep "^\[1,$r\]<std...>:myblas: devices:" "$log")
  echo "rank $r: ${line#*myblas: }"
  case "$line" in
    *"devices: GPU $r (Open MPI local rank $r of 2"*) ;;
    *) echo "FAILED: rank $r did not take GPU $r"; exit 1 ;;
  esac
done
run "both ranks on GPU 0 (MYBLAS_DEVICES=0)" MYBLAS_VERBOSE=1 MYBLAS_DEVICES=0 MYBLAS_BACKEND=${MYBLAS_BACKEND:-auto}
echo "PASSED"
