#!/usr/bin/env bash
# The 3xTF32 product kernel's variants on the GPU machine (run through .gpu/run.sh), one process
# each for the tests and the measurement:
#   bench/run_tf32x3_variants.sh OUT_DIR [BIN_DIR]
# BIN_DIR (default .dev-tf32) holds test_sgemm_tf32x3 and bench_sgemm_tf32x3 (libmyblas.so* on
# LD_LIBRARY_PATH). Runs test_sgemm_tf32x3 (every variant's product directly, the mode's suite with
# the default variant), the mode's device and accuracy tests again under each other variant
# (MYBLAS_SGEMM_TF32X3_KERNEL), then bench_sgemm_tf32x3 --variants: special values, the accuracy
# table with every variant, and speed at 1024^3-8192^3 NN and 4096^3 TN/NT/TT for every variant
# beside cublasSgemm and cuBLAS TF32. Writes OUT_DIR/tf32x3-variants.txt (summary),
# OUT_DIR/tf32x3-variants.tar.gz (the logs and CSVs); prints the summary.
set -uo pipefail
out=${1:?usage: bench/run_tf32x3_variants.sh OUT_DIR [BIN_DIR]}
bin=${2:-.dev-tf32}
work=$out/tf32x3-variants
mkdir -p "$work"
summary=$out/tf32x3-variants.txt
status=0
{
  echo "# tf32x3 variants: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed -n 1p)"
  echo "# revision: ${REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}; bin: $bin"
} > "$summary"

t0=$(date +%s)
"$bin/test_sgemm_tf32x3" --gtest_filter=-*HostArrays* > "$work/test-default.txt" 2>&1 || status=1
echo "test_sgemm_tf32x3 (default variant, every variant's product): $(grep -E '^\[  (PASSED|FAILED)  \]' "$work/test-default.txt" | head -1) $(grep -cE '^\[  SKIPPED \] [A-Za-z]' "$work/test-default.txt") skipped [$(( $(date +%s) - t0 )) s]" >> "$summary"
grep -E "bitwise|FAILED  \]|Failure" "$work/test-default.txt" | head -20 >> "$summary"
for v in p32-ordered p32-halves p64 p64-ordered p64-halves; do
  t1=$(date +%s)
  MYBLAS_SGEMM_TF32X3_KERNEL=$v "$bin/test_sgemm_tf32x3" \
      --gtest_filter=SgemmTf32x3Mode.DevicePointers*:SgemmTf32x3Mode.Accuracy* > "$work/test-$v.txt" 2>&1 || status=1
  echo "mode tests under $v: $(grep -E '^\[  (PASSED|FAILED)  \]' "$work/test-$v.txt" | head -1) [$(( $(date +%s) - t1 )) s]" >> "$summary"
  grep -E "^  (uniform|spread|cancel) " "$work/test-$v.txt" | sed "s/^/  $v: /" >> "$summary"
done

t1=$(date +%s)
"$bin/bench_sgemm_tf32x3" --variants --out="$work" > "$work/bench.txt" 2>&1 || status=1
echo "bench_sgemm_tf32x3 --variants [$(( $(date +%s) - t1 )) s]:" >> "$summary"
sed -n '/^# accuracy/,$p' "$work/bench.txt" >> "$summary"
grep -E "VERIFY FAILED|UNEXPECTED|OVER 2x" "$work/bench.txt" | head -20 >> "$summary"
echo "total $(( $(date +%s) - t0 )) s, status $status" >> "$summary"

tar -C "$out" -czf "$out/tf32x3-variants.tar.gz" tf32x3-variants && rm -rf "$work"
cat "$summary"
exit $status
