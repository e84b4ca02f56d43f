#!/usr/bin/env bash
# Past one GPU, measured in one run on a host of two GPUs (docs/multi_gpu.md): the two-GPU tests,
# the bound, host-array GEMM through libmyblas and through NVBLAS on one GPU and on two, the
# ScaLAPACK run with one GPU per rank, and DSYRK/DTRSM on one GPU and on two.
#
# Prepare here (sm_90a build; bench/stage_multi_gpu.sh lists the targets):
#   MPI_PACK=/work/main/.mpi bash bench/stage_multi_gpu.sh build /work/main/.dev-mgpu2
# Run on the GPU machine from the repository root (carry [".gpu", ".dev-mgpu2"]; within 8 minutes):
#   bash .gpu/run.sh bash -c 'export LD_LIBRARY_PATH=$PWD/.dev-mgpu2:$LD_LIBRARY_PATH;
#                            bash bench/run_multi_gpu.sh .dev-mgpu2 $OUT'
# DRY=1 prints the steps with their time limits instead of running them (no GPU needed).
#
# Steps, most important first; each has its own time limit and none starts if its limit would
# end past BUDGET seconds (default 450) from the start:
#  1. ctest: the two-GPU entries of tests/backends (split GEMM and Level 3 against OpenBLAS,
#     faults on one GPU, the GPU a process takes) and test_multi_device.
#  2. the bound's two parts: bench_multi_gpu stage (pageable -> pinned -> device rate, and back,
#     and both ways at once in a GEMM's 2:1 proportion) on GPU 0 and on GPUs 0 and 1 at once;
#     bench_multi_gpu device: cuBLAS's own time for each GPU's share on device operands.
#  3. host-array SGEMM and DGEMM NN (beta 0) at 16384 and 32768 through libmyblas
#     (MYBLAS_BACKEND=cublas) with MYBLAS_DEVICES=0 and 0,1.
#  4. the same through NVBLAS over OpenBLAS with NVBLAS_GPU_LIST "0 1" at 16384.
#  5. ScaLAPACK, 2 ranks: PDGEMM, then PDGETRF, each with one GPU per rank (the default mapping)
#     and with both ranks on GPU 0 (MYBLAS_DEVICES=0).
#  6. host-array DSYRK and DTRSM 16384 through libmyblas on GPU 0 and on GPUs 0 and 1.
#  7. NVBLAS with NVBLAS_GPU_LIST "0" at 16384; then at 32768 (2 GPUs first) only where the time
#     measured at 16384 (times 8 for each of a warm-up and one timed call) leaves room.
# Writes under OUT (3 files): multi_gpu.txt (every step's output), summary.txt (the table of
# bounds and ratios, each step's status), logs.tar.gz (ctest's logs, libmyblas's MYBLAS_VERBOSE logs).
set -u
dir=$(cd "${1:-.dev-mgpu2}" && pwd)
out=${2:-${OUT:-./multi-gpu-out}}
budget=${BUDGET:-450}
mkdir -p "$out"
out=$(cd "$out" && pwd)
raw=$out/multi_gpu.txt summary=$out/summary.txt
work=$(mktemp -d)
: > "$raw"
: > "$summary"
export LD_LIBRARY_PATH=$dir:${LD_LIBRARY_PATH:-}
lib=$dir/libmyblas.so.0
cores=$(nproc)
openblas=$(find ${LD_LIBRARY_PATH//:/ } -maxdepth 1 -name libopenblas.so.0 2>/dev/null | head -1)
[ -n "$openblas" ] || openblas=$(ldconfig -p 2>/dev/null | awk '/libopenblas.so.0/{print $NF; exit}')
nvblas=$(ls /usr/local/cuda/lib64/libnvblas.so* 2>/dev/null | head -1)
say() { echo "$*" | tee -a "$summary"; }

# step <limit s> <label> <command...>: runs the command under its limit, its output appended to
# multi_gpu.txt, unless it could end past the budget; one status line in the summary.
step() {
  local limit=$1 label=$2
  shift 2
  if (( SECONDS + limit > budget )); then
    say "SKIPPED (time: ${SECONDS}s gone, ${limit}s asked, budget ${budget}s): $label"
    return 1
  fi
  if [ "${DRY:-0}" = 1 ]; then
    say "dry: [${limit}s] $label: $*"
    return 0
  fi
  local t0=$SECONDS rc
  echo "=== $label ($*)" >> "$raw"
  timeout -k 5 "$limit" "$@" >> "$raw" 2>&1
  rc=$?
  local how="exit $rc"
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && how="STOPPED after ${limit}s"
  say "$how in $((SECONDS - t0))s: $label"
  return $rc
}

{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), revision $(cat "$dir/revision" 2>/dev/null || echo '?'), $cores cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  nvidia-smi --query-gpu=index,name,pci.bus_id,clocks.max.sm,memory.total --format=csv,noheader
  nvidia-smi topo -m 2>/dev/null | head -4
  echo "# OpenBLAS: ${openblas:-missing}; NVBLAS: ${nvblas:-missing}; $(free -g | awk '/Mem:/{print $2}') GiB host memory"
} 2>&1 | tee -a "$summary" >> "$raw"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "${DRY:-0}" = 1 ] && gpus=2
if [ "$gpus" -lt 2 ]; then say "SKIPPED everything: needs 2 GPUs, found $gpus"; exit 0; fi

# ---- 1. the two-GPU ctest entries ----
ct=$work/ctest
mkdir -p "$ct"
cp "$dir"/ctest/test_* "$ct/"
sed -e "s#@CT@#$ct#g" -e "s#@SRC@#$PWD#g" "$dir/ctest/CTestTestfile.cmake.in" > "$ct/CTestTestfile.cmake"
names=$(sed 's/ /|/g' "$dir/ctest/programs")
step 150 "ctest: the two-GPU entries (labels gpu, multigpu)" \
  bash -c 'cd "$1" && ctest -L gpu -R "$2" --timeout 45 --output-on-failure' - "$ct" "^($names)[.]"
grep -h -E '^ *[0-9]+/[0-9]+ Test|tests passed|Failed|SKIPPED' "$raw" | sed 's/^/  /' | tail -40 | tee -a "$summary"

# ---- 2. the bound: staging rates and the products' own time ----
b=$dir/bench_multi_gpu
step 20 "staging rate, GPU 0" "$b" stage 1 2
step 20 "staging rate, GPUs 0 and 1 at once" "$b" stage 2 2
for n in 16384 32768; do
  for p in s d; do
    for g in 1 2; do step 25 "cuBLAS ${p}gemm $n on device operands, $g GPU(s)" "$b" device $g $n $p; done
  done
done

# ---- 3. host arrays through libmyblas ----
ours() {  # ours <n> <reps> <s|d> <devices> <limit>
  step "$5" "libmyblas ${3}gemm $1, MYBLAS_DEVICES=$4" env MYBLAS_BACKEND=cublas MYBLAS_DEVICES="$4" \
    MYBLAS_VERBOSE=1 MYBLAS_LOG="$work/ours_$3_$1_$4.log" BENCH_LIB=myblas BENCH_DEVICES="$4" LD_PRELOAD="$lib" "$b" host "$1" "$2" "$3"
  grep -m3 -E 'devices:|split over|warning|path=' "$work/ours_$3_$1_$4.log" 2>/dev/null | sed 's/^/  /' >> "$raw"
}
for p in s d; do
  for d in 0 0,1; do ours 16384 3 $p $d 30; done
done
for p in s d; do
  for d in 0,1 0; do ours 32768 2 $p $d 60; done
done

# ---- 4. NVBLAS over OpenBLAS ----
nv() {  # nv <n> <reps> <s|d> <gpu list> <limit>
  local conf=$work/nvblas_${4// /_}.conf
  printf 'NVBLAS_CPU_BLAS_LIB %s\nNVBLAS_GPU_LIST %s\nNVBLAS_LOGFILE %s\n' "$openblas" "$4" "$work/nvblas.log" > "$conf"
  step "$5" "NVBLAS ${3}gemm $1, NVBLAS_GPU_LIST $4" env OPENBLAS_CORETYPE=SkylakeX NVBLAS_CONFIG_FILE="$conf" \
    BENCH_LIB=nvblas BENCH_DEVICES="${4// /,}" LD_PRELOAD="$nvblas" "$b" host "$1" "$2" "$3"
}
# The last median of `host <p>gemm n=<n>` for a library and GPU list in multi_gpu.txt (ms; 0: none).
median_of() {  # median_of <lib label> <p> <n> <devices>
  awk -v l="$1" -v p="$2gemm" -v n="n=$3" -v d="devices=$4" '
    $1 == "host" && $2 == p && $4 == n && index($0, "lib=" l " ") && index($0, d " ") {
      for (i = 1; i <= NF; ++i) if ($i ~ /^median_ms=/) { split($i, kv, "="); v = kv[2] } }
    END { print v + 0 }' "$raw"
}
if [ -z "$nvblas" ] || [ -z "$openblas" ]; then
  say "SKIPPED NVBLAS: libnvblas (${nvblas:-missing}) or OpenBLAS (${openblas:-missing}) not found"
else
  for p in s d; do nv 16384 2 $p "0 1" 40; done
fi

# ---- 5. ScaLAPACK under mpirun, one GPU per rank against both on GPU 0 ----
if [ -f "$dir/mpi/env.sh" ]; then
  for what in gemm getrf; do
    n=8192 nb=1024
    [ $what = getrf ] && nb=512
    step 95 "ScaLAPACK PD$what N=$n NB=$nb, 2 ranks (own GPU each, then both on GPU 0)" \
      env MYBLAS_MPI_ENV="$dir/mpi/env.sh" MYBLAS_MPI_TIMEOUT=40 \
      bash tests/mpi/run_pdgemm.sh "$dir/pdgemm_check" "$lib" gpu $n $nb 2 $what
  done
  # Each rank line with the time its bytes take at the staging rate measured for one GPU
  # (both directions at once): what keeping the operands on the GPU across calls could save.
  awk '$1 == "stage" && $2 == "gpus=1" { for (i = 1; i <= NF; ++i) if ($i ~ /^mixed_GBs=/) { split($i, kv, "="); rate = kv[2] } }
       /^== |rank [01]: |PDGEMM|PDGETRF|FAILED|PASSED|SKIPPED/ && !/^=== / {
         line = $0
         if (line ~ /GB staged/ && rate > 0) {
           for (i = 1; i <= NF; ++i) if ($(i + 1) == "GB" && $(i + 2) == "staged") gb = $i
           line = line sprintf(" (%.0f ms at %.1f GB/s)", gb / rate * 1e3, rate)
         }
         print "  " line }' "$raw" | tee -a "$summary"
else
  say "SKIPPED MPI: no $dir/mpi/env.sh (bench/stage_multi_gpu.sh packs it)"
fi

# ---- 6. DSYRK and DTRSM on host arrays, one GPU and two ----
for d in 0 0,1; do  # (the label says how many GPUs: bench_host_l3 writes CSV)
  step 45 "libmyblas dsyrk,dtrsm 16384, MYBLAS_DEVICES=$d" env MYBLAS_BACKEND=cublas MYBLAS_DEVICES=$d \
    MYBLAS_VERBOSE=1 MYBLAS_LOG="$work/ours_l3_${d/,/_}.log" LD_PRELOAD="$lib" "$dir/bench_host_l3" \
    "ours-gpus-$(( ${#d} / 2 + 1 ))" --routines dsyrk,dtrsm --sizes 16384
  grep -m2 -E 'split over|warning' "$work/ours_l3_${d/,/_}.log" 2>/dev/null | sed 's/^/  /' >> "$raw"
done

# ---- 4 (continued): NVBLAS on 1 GPU at 16384; at 32768, 2 GPUs first, where the time left allows ----
if [ -n "$nvblas" ] && [ -n "$openblas" ]; then
  for p in s d; do nv 16384 2 $p "0" 50; done
  for cfg in "s 0_1" "d 0_1" "s 0" "d 0"; do
    p=${cfg% *} list=${cfg#* }
    list=${list//_/ }
    t16=$(median_of nvblas "$p" 16384 "${list// /,}")
    # A warm-up and one timed call, each about 8x the 16384 call, plus filling 3 x n^2 elements.
    est=$(awk -v t="$t16" 'BEGIN { printf "%d", (t > 0 ? 2 * 8 * t / 1000 * 1.3 + 25 : 400) }')
    nv 32768 1 "$p" "$list" "$est" || say "  (NVBLAS ${p}gemm 32768 on GPUs '$list' would need about ${est}s)"
  done
fi

# ---- the table: bound, ours, NVBLAS ----
{
  echo
  echo "host-array GEMM NN, beta 0: bound = max(staged bytes / mixed staging rate, cuBLAS's own time for the"
  echo "largest share on device operands); staged bytes = A and B up once, C down once (3 n^2 elements)"
  awk '
    $1 == "stage" { for (i = 1; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
                    mixed[v["gpus"]] = v["mixed_GBs"]; up[v["gpus"]] = v["h2d_GBs"]; down[v["gpus"]] = v["d2h_GBs"] }
    $1 == "device" { for (i = 1; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
                     key = $2 " " v["n"] " " v["gpus"]; if (v["median_ms"] > dev[key]) dev[key] = v["median_ms"] }
    $1 == "host" { for (i = 1; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
                   g = split(v["devices"], xs, ","); key = $2 " " substr($4, 3) " " g
                   t[v["lib"] " " key] = v["median_ms"]; ok[v["lib"] " " key] = v["verified"]; keys[key] = 1 }
    END {
      for (g = 1; g <= 2; ++g)
        if (mixed[g] > 0) printf "staging, %d GPU(s) at once: up %.2f GB/s, down %.2f GB/s, both ways (2:1) %.2f GB/s\n", g, up[g], down[g], mixed[g]
      printf "%-12s %5s %4s %10s %10s %10s %-6s %10s %10s %11s %14s\n", "routine", "n", "GPUs", "stage_ms", "product_ms",
             "bound_ms", "bound", "ours_ms", "NVBLAS_ms", "bound/ours", "NVBLAS2/ours"
      for (ri = 1; ri <= 2; ++ri) for (ni = 1; ni <= 2; ++ni) for (g = 1; g <= 2; ++g) {
        r = ri == 1 ? "sgemm" : "dgemm"; n = ni == 1 ? 16384 : 32768; key = r " " n " " g
        if (!(key in keys)) continue
        es = r == "sgemm" ? 4 : 8
        st = mixed[g] > 0 ? 3.0 * n * n * es / (mixed[g] * 1e9) * 1e3 : 0
        pr = dev[key] + 0
        bound = st > pr ? st : pr
        ours = t["myblas " key] + 0; nvb = t["nvblas " key] + 0; nv2 = t["nvblas " r " " n " 2"] + 0
        which = st > pr ? "stage" : "GPU"
        c_ours = ours ? sprintf("%.1f", ours) : "-"; c_nv = nvb ? sprintf("%.1f", nvb) : "-"
        c_eff = (ours && bound) ? sprintf("%.2f", bound / ours) : "-"
        c_nv2 = (g == 2 && ours && nv2) ? sprintf("%.2f", nv2 / ours) : "-"
        bad = (ok["myblas " key] == "NO" || ok["nvblas " key] == "NO") ? "  VERIFY FAILED" : ""
        printf "%-12s %5d %4d %10.1f %10.1f %10.1f %-6s %10s %10s %11s %14s%s\n", r, n, g, st, pr, bound, which,
               c_ours, c_nv, c_eff, c_nv2, bad
      }
    }' "$raw"
  echo
  echo "host-array DSYRK (uplo L, trans N) and DTRSM (side L, uplo L), n = k = 16384, beta 0.5, median ms:"
  awk -F, '($1 == "dsyrk" || $1 == "dtrsm") && $2 ~ /^ours-gpus-/ { t[$1 " " $2] = $6 }
    END { for (i = 1; i <= 2; ++i) { r = i == 1 ? "dsyrk" : "dtrsm"; one = t[r " ours-gpus-1"] + 0; two = t[r " ours-gpus-2"] + 0
            printf "  %s: GPU 0 %s ms, GPUs 0,1 %s ms, 1 GPU / 2 GPUs %s\n", r, one ? one : "-", two ? two : "-",
                   (one && two) ? sprintf("%.2fx", one / two) : "-" } }' "$raw"
} | tee -a "$summary"

# ---- logs ----
mkdir -p "$work/logs"
cp "$ct"/Testing/Temporary/LastTest*.log "$ct"/*.log "$work"/*.log "$work/logs/" 2>/dev/null
tar -C "$work" -czf "$out/logs.tar.gz" logs 2>/dev/null
rm -rf "$work"
say "done in ${SECONDS}s; files: $raw $summary $out/logs.tar.gz"
