#!/usr/bin/env bash
# The batched square kernel's rungs and the small-n batch forms on a GPU machine, in about two
# minutes (at most four): correctness first, then the device benchmark rows the dispatch table for
# small square products (src/dispatch/batch_rule.h) is set from. Results under OUT (argument 2,
# else $OUT, else ./batched-small-out): summary.txt and results.tar.gz.
#
# Prepare here (the binaries are built on the development machine for sm_90a):
#   cmake --build build --target myblas test_interface_batch test_batched_kernels bench_batched -j2
#   mkdir -p /work/main/.dev-batch2
#   cp -a build/src/libmyblas.so* build/tests/interface/test_interface_batch \
#         build/tests/kernels/test_batched_kernels build/bench/bench_batched /work/main/.dev-batch2/
#   strip /work/main/.dev-batch2/{test_interface_batch,test_batched_kernels,bench_batched}
# Run on the device (carry [".gpu", ".dev-batch2"]):
#   bash .gpu/run.sh bash -c 'export LD_LIBRARY_PATH=$PWD/.dev-batch2:$LD_LIBRARY_PATH;
#                             bash bench/run_batched_small.sh .dev-batch2 $OUT'
# Afterwards, here: tar -xzf <files_at>/results.tar.gz -C /tmp && /usr/bin/python3 bench/plot_batched.py \
#   bench/results/h200-batched-small-<date> /tmp/r/device_*.csv   (the .md table, with the copy floor)
#
# Steps (each with its own time limit; none starts after 165 s, so all end by 235 s):
#   test_kernels.txt        test_batched_kernels: every rung called directly, S and H, n = 16, 32
#   test_iface_<b>.txt      test_interface_batch's Device cases under MYBLAS_BACKEND=kernels, auto
#   device_auto.{txt,csv}   bench_batched --device, S, H, C, Z at n = 16, 32, 64: the copy floor,
#                           raw cuBLAS, the library's strided and pointer-array forms (as the table
#                           dispatches them), and (S, H at 16, 32) each rung called directly
#   device_kernels.*        S, H at 16, 32 with our kernel forced through the library
#   device_cublas.*         S, H at 16, 32, 64 with cuBLAS through the library
set -u
dir=${1:-.dev-batch2}
out=${2:-${OUT:-./batched-small-out}}
mkdir -p "$out/r"
r=$out/r
export LD_LIBRARY_PATH=$PWD/$dir:${LD_LIBRARY_PATH:-}
{
  date -u '+%Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv,noheader
  git rev-parse --short HEAD 2>/dev/null
} > "$r/device.txt" 2>&1
sum=$out/summary.txt
cat "$r/device.txt" > "$sum"

step() {  # step <limit s> <output file> <label> <command...>
  local limit=$1 file=$2 label=$3
  shift 3
  if (( SECONDS > 165 )); then echo "$label: skipped (time)" >> "$sum"; return; fi
  local t0=$SECONDS
  timeout "$limit" "$@" > "$file" 2>&1
  echo "$label: exit $? in $((SECONDS - t0)) s ($(grep -c '^\[       OK' "$file") ok, $(grep -c '^\[  FAILED' "$file") failed," \
    "$(grep -c '^\[  SKIPPED' "$file") skipped lines)" >> "$sum"
}
step 30 "$r/test_kernels.txt" "test_batched_kernels" "$dir/test_batched_kernels"
for b in kernels auto; do
  step 40 "$r/test_iface_$b.txt" "test_interface_batch *Device* MYBLAS_BACKEND=$b" \
    env MYBLAS_BACKEND=$b "$dir/test_interface_batch" --gtest_filter='*Device*'
done
step 70 "$r/device_auto.txt" "bench_batched --device auto s,h,c,z" env MYBLAS_BACKEND=auto "$dir/bench_batched" \
  --device --types s,h,c,z --sizes 16,32,64 --csv "$r/device_auto.csv"
step 35 "$r/device_kernels.txt" "bench_batched --device kernels s,h" env MYBLAS_BACKEND=kernels "$dir/bench_batched" \
  --device --types s,h --sizes 16,32 --csv "$r/device_kernels.csv"
step 35 "$r/device_cublas.txt" "bench_batched --device cublas s,h" env MYBLAS_BACKEND=cublas "$dir/bench_batched" \
  --device --types s,h --sizes 16,32,64 --csv "$r/device_cublas.csv"

grep -h "FAILED\|VERIFY" "$r"/test_*.txt "$r"/device_*.txt | head -40 >> "$sum"
# backend type n path: us, GB/s, x raw cuBLAS, fraction of the copy floor (the floor row of the file).
for f in "$r"/device_*.csv; do
  [ -f "$f" ] || continue
  awk -F, 'NR > 1 && $1 == "floor" { fl = $9; printf "%s floor d2d-memcpy %.1f GB/s (read + written)\n", $2, fl }
           NR > 1 && $1 != "floor" { printf "%-7s %s n=%-4s %-26s %9.1f us %7.0f GB/s  x cuBLAS %.3f  floor %.2f\n",
                                     $2, $3, $4, $6, $7, $9, $11, (fl > 0 ? $9 / fl : 0) }' "$f" >> "$sum"
done
echo "wall: $SECONDS s" >> "$sum"
tar -czf "$out/results.tar.gz" -C "$out" r && rm -rf "$r"
cat "$sum"
