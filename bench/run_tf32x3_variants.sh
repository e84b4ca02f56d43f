#!/usr/bin/env bash
# The 3xTF32 product kernel's variants on the GPU machine (run through .gpu/run.sh):
#   [VARIANTS="p64-ordered p64-ordered-2part"] [BUDGET=seconds] bench/run_tf32x3_variants.sh OUT_DIR [BIN_DIR]
# BIN_DIR (default .dev-tf32) holds test_sgemm_tf32x3 and bench_sgemm_tf32x3 (libmyblas.so* on
# LD_LIBRARY_PATH), and optionally test_interface_sgemm. VARIANTS: the variants of steps 2 and 3
# (default all ten). Steps, each under a time limit so that a variant that hangs costs its limit
# and no more:
# 1. test_sgemm_tf32x3 without the per-variant product tests (the split in both layouts, the mode's
#    suite with the default variant, p32-ordered bitwise p32, p64-ordered-2part bitwise
#    p64-ordered where k is a multiple of 32);
# 2. per variant: its product called directly against FP64 (odd sizes, edge tiles, a grid that
#    walks two tiles; p64-ordered-fused*: every transpose, and its statistics and refusal tests),
#    then, if that passed, the mode's device, special-value and accuracy tests under it
#    (MYBLAS_SGEMM_TF32X3_KERNEL; the summary counts the calls the fused product took);
#    The mode's tests once more with split-K on (MYBLAS_SGEMM_TF32X3_SPLITK=auto), with and
#    without the statistics checked on the device (MYBLAS_SGEMM_TF32X3_STATS=overlap);
#    The SGEMM interface suite under MYBLAS_SGEMM_PRECISION=tf32x3-all (the default variant and
#    each fused one that passed), where BIN_DIR has it;
# 3. bench_sgemm_tf32x3 --variants over the variants that passed 2: special values, the accuracy
#    table with each variant, speed at 1024^3-8192^3 NN and 4096^3 TN/NT/TT beside cublasSgemm
#    and cuBLAS TF32, with split-K where it applies (1024^3, 2048^3) and the statistics overlapped.
# Writes OUT_DIR/tf32x3-variants.txt (summary, also printed) and OUT_DIR/tf32x3-variants.tar.gz
# (every log and CSV). BUDGET (seconds, default 200): no step runs past BUDGET - 8 s, so that a run
# under an outer limit of BUDGET + 5 s still writes its files.
set -uo pipefail
out=${1:?usage: bench/run_tf32x3_variants.sh OUT_DIR [BIN_DIR]}
bin=${2:-.dev-tf32}
work=$out/tf32x3-variants
mkdir -p "$work"
summary=$out/tf32x3-variants.txt
status=0
t0=$(date +%s)
elapsed() { echo "$(( $(date +%s) - t0 )) s"; }
# A step's time limit: its own, or what is left of BUDGET less 8 s for the files, whichever is less.
lim() {
  local l=$1 r=$(( ${BUDGET:-200} - ($(date +%s) - t0) - 8 ))
  [ $r -lt $l ] && l=$r
  [ $l -ge 1 ] || l=1
  echo $l
}
verdict() { grep -E '^\[  (PASSED|FAILED)  \]' "$1" | head -1; }
{
  echo "# tf32x3 variants: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed -n 1p)"
  echo "# revision: ${REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}; bin: $bin"
} > "$summary"

timeout $(lim 60) "$bin/test_sgemm_tf32x3" --gtest_filter=-*HostArrays*:AllVariants/*:FusedVariants/* > "$work/test-default.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
echo "test_sgemm_tf32x3 (default variant): rc $rc $(verdict "$work/test-default.txt") $(grep -E '^\[  SKIPPED \] [0-9]+ test' "$work/test-default.txt") [$(elapsed)]" >> "$summary"
grep -E "bitwise:|^\[  FAILED  \] [A-Za-z]" "$work/test-default.txt" | head -20 >> "$summary"

passed=""
for v in ${VARIANTS:-p32 p32-ordered p32-halves p64 p64-ordered p64-halves p64-ordered-2part p64-ordered-fused p64-ordered-fused-ahead p64-ordered-pair}; do
  log=$work/test-$v.txt
  filter="AllVariants/Tf32x3ProductVariant.*/${v//-/_}"
  tests=1
  case $v in p64-ordered-fused*) filter="$filter:FusedVariants/*/${v//-/_}:Tf32x3Fused.*"; tests=3 ;; esac
  timeout $(lim 30) "$bin/test_sgemm_tf32x3" --gtest_filter="$filter" > "$log" 2>&1
  rc=$?
  line="variant $v: product test rc $rc $(verdict "$log")"
  if [ $rc -eq 0 ] && grep -q "^\[  PASSED  \] $tests test" "$log"; then
    passed="$passed,$v"
    if [ "$v" != p64-ordered ]; then  # (the default: step 1 ran the mode's tests with it)
      mlog=$work/test-$v-mode.txt
      MYBLAS_SGEMM_TF32X3_KERNEL=$v MYBLAS_VERBOSE=1 timeout $(lim 40) "$bin/test_sgemm_tf32x3" \
          --gtest_filter=SgemmTf32x3Mode.DevicePointers*:SgemmTf32x3Mode.Special*:SgemmTf32x3Mode.Accuracy* > "$mlog" 2>&1
      rc=$?
      grep -vE '^myblas|sgemm precision=' "$mlog" >> "$log"
      line="$line; mode tests rc $rc $(grep -E '^\[  (PASSED|FAILED)  \]' "$mlog" | tail -1)"
      case $v in p64-ordered-fused*) line="$line; calls on the fused product: $(grep -c "fused product $v," "$mlog"), refused to FP32: $(grep -c 'FP32 path' "$mlog")" ;; esac
    fi
  fi
  [ $rc -eq 0 ] || status=1
  echo "$line [$(elapsed)]" >> "$summary"
  grep -E "^  (uniform|spread|cancel) |^\[  FAILED  \] [A-Za-z]" "$log" | sed "s/^/    /" >> "$summary"
done

# Split-K through the library (MYBLAS_SGEMM_TF32X3_SPLITK=auto, the default: the suite's 300 x 257 x 1031,
# 127 x 129 x 1031 and accuracy shapes split k), with the default variant; then also with the
# statistics checked by the product on the device (MYBLAS_SGEMM_TF32X3_STATS=overlap), special
# values included (a refused call must leave C to the FP32 path).
for stats in wait overlap; do
  log=$work/test-splitk-$stats.txt
  MYBLAS_SGEMM_TF32X3_SPLITK=auto MYBLAS_SGEMM_TF32X3_STATS=$stats MYBLAS_VERBOSE=1 timeout $(lim 60) "$bin/test_sgemm_tf32x3" \
      --gtest_filter=SgemmTf32x3Mode.DevicePointers*:SgemmTf32x3Mode.Accuracy*:SgemmTf32x3Mode.Special* > "$log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "split-K auto, statistics $stats, mode tests: rc $rc $(verdict "$log"); calls that split k: $(grep -c 'split-K' "$log"), checked on the device: $(grep -c 'checked on the device' "$log") [$(elapsed)]" >> "$summary"
  grep -E "^  (uniform|spread|cancel) |^\[  FAILED  \] [A-Za-z]" "$log" | sed "s/^/    /" >> "$summary"
done

# The SGEMM interface suite with the split on every GPU call (MYBLAS_SGEMM_PRECISION=tf32x3-all,
# host arrays through the pipeline) under the defaults, and under each fused variant that passed
# step 2, where BIN_DIR holds test_interface_sgemm.
if [ -x "$bin/test_interface_sgemm" ]; then
  for v in default $(echo "$passed" | tr ',' '\n' | grep '^p64-ordered-fused'); do
    log=$work/test-interface-tf32x3-all-$v.txt
    kv=; [ "$v" = default ] || kv=$v
    MYBLAS_SGEMM_TF32X3_KERNEL=$kv MYBLAS_BACKEND=cublas MYBLAS_SGEMM_PRECISION=tf32x3-all timeout $(lim 40) \
        "$bin/test_interface_sgemm" > "$log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    echo "test_interface_sgemm under tf32x3-all, variant $v: rc $rc $(verdict "$log") [$(elapsed)]" >> "$summary"
    grep -E "^\[  FAILED  \] [A-Za-z]" "$log" | head -10 | sed "s/^/    /" >> "$summary"
  done
fi

passed=${passed#,}
if [ -n "$passed" ]; then
  timeout $(lim 170) "$bin/bench_sgemm_tf32x3" --variants --kernels="$passed" --out="$work" > "$work/bench.txt" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  echo "bench_sgemm_tf32x3 --variants --kernels=$passed: rc $rc [$(elapsed)]" >> "$summary"
  sed -n '/^# accuracy/,$p' "$work/bench.txt" >> "$summary"
  grep -E "VERIFY FAILED|UNEXPECTED" "$work/bench.txt" | head -20 >> "$summary"
else
  echo "no variant passed its product test: nothing measured" >> "$summary"
fi
echo "total $(elapsed), status $status" >> "$summary"

tar -C "$out" -czf "$out/tf32x3-variants.tar.gz" tf32x3-variants && rm -rf "$work"
cat "$summary"
exit $status
