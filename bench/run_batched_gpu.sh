#!/usr/bin/env bash
# The batched GEMM/GEMV entry points on a GPU machine, in one go: correctness first, then the
# benchmark, every output under $OUT (default ./batched-out).
#
# Prepare here (the binaries are built on the development machine for sm_90a):
#   cmake --build build --target myblas test_interface_batch test_batched_kernels bench_batched -j2
#   mkdir -p /work/main/.dev-batched
#   cp -a build/src/libmyblas.so* build/tests/interface/test_interface_batch \
#         build/tests/kernels/test_batched_kernels build/bench/bench_batched /work/main/.dev-batched/
#   strip /work/main/.dev-batched/{test_interface_batch,test_batched_kernels,bench_batched}
# Run on the device (about 3 minutes, at most 8 and a bit; carry [".gpu", ".dev-batched"]):
#   bash .gpu/run.sh bash bench/run_batched_gpu.sh .dev-batched
# Afterwards, here: /usr/bin/python3 bench/plot_batched.py bench/results/h100-batched-<date> <files_at>/*.csv
#   (writes the .md table and the .png plot; add a bench/results/README.md line for them)
#
# Writes:
#   device.txt                 nvidia-smi and the CPU
#   test_kernels.txt           test_batched_kernels (the square and scaling kernels called directly)
#   test_<backend>.txt         test_interface_batch under MYBLAS_BACKEND=cublas, kernels, auto
#                              (every case, the Device ones included)
#   test_fault_<point>.txt     the Device and large host cases with MYBLAS_TEST_FAULT=<point>
#                              (cublas, sync, launch): completed on the CPU
#   device_<backend>.{txt,csv} bench_batched --device under auto (our square kernel at n = 16, 32
#                              in S and H, cuBLAS elsewhere), cublas (cuBLAS's batched calls
#                              through myblas) and kernels
#   host_<backend>.{txt,csv}   bench_batched --host (10^4 products of 64^3 and 256^3, FP32) under
#                              cpu (the threaded loop), cublas (the chunked GPU path) and auto
#   host_sd_<backend>.{txt,csv} bench_batched --host --types s,d, 10^4 products of n^3 for
#                              n = 4..64: the FP64 break-even of the host rule beside FP32's,
#                              under auto, cpu and cublas
#   summary.txt                the ratio lines and any verification failure
set -u
dir=${1:-.dev-batched}
out=${OUT:-./batched-out}
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/$dir:${LD_LIBRARY_PATH:-}
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-16}
{
  date -u '+%Y-%m-%d %H:%M UTC'
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,memory.total,driver_version --format=csv,noheader
  echo "$(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  git rev-parse --short HEAD 2>/dev/null
} > "$out/device.txt" 2>&1

# Most important first; every step has its own time limit, and none starts after 480 s (the
# device run's limit is 600 s; what is under $OUT comes back even when it is cut short).
step() {  # step <limit s> <output file> <summary label> <command...>
  local limit=$1 file=$2 label=$3
  shift 3
  if (( SECONDS > 480 )); then echo "$label: skipped (time)" >> "$out/summary.txt"; return; fi
  timeout "$limit" "$@" > "$file" 2>&1
  echo "$label: exit $? ($(grep -c '^\[       OK' "$file") ok, $(grep -c '^\[  FAILED' "$file") failed lines)" \
    >> "$out/summary.txt"
}
step 60 "$out/test_kernels.txt" "test_batched_kernels" "$dir/test_batched_kernels"
for b in kernels auto cublas; do
  step 90 "$out/test_$b.txt" "test_interface_batch MYBLAS_BACKEND=$b" env MYBLAS_BACKEND=$b "$dir/test_interface_batch"
done
step 100 "$out/device_auto.txt" "bench_batched --device auto" \
  env MYBLAS_BACKEND=auto "$dir/bench_batched" --device --csv "$out/device_auto.csv"
for b in cpu cublas; do
  step 100 "$out/host_$b.txt" "bench_batched --host $b" \
    env MYBLAS_BACKEND=$b "$dir/bench_batched" --host --csv "$out/host_$b.csv"
done
for b in cublas kernels; do
  step 100 "$out/device_$b.txt" "bench_batched --device $b" \
    env MYBLAS_BACKEND=$b "$dir/bench_batched" --device --csv "$out/device_$b.csv"
done
step 100 "$out/host_auto.txt" "bench_batched --host auto" \
  env MYBLAS_BACKEND=auto "$dir/bench_batched" --host --csv "$out/host_auto.csv"
# FP64 host batches beside FP32 around the host rule's break-even (src/dispatch/batch_rule.h):
# with beta = 0 a square product moves n/6 flops a byte in FP32 and n/12 in FP64, so FP64's
# threshold, taken at half FP32's without a measurement, puts both types on the GPU from the same n
# (the bench's evenly stepped pointer arrays count as strided); n = 4 is under 6 MB in both.
for b in auto cpu cublas; do
  step 60 "$out/host_sd_$b.txt" "bench_batched --host --types s,d $b" \
    env MYBLAS_BACKEND=$b "$dir/bench_batched" --host --types s,d --host-sizes 4,8,16,24,32,48,64 \
    --csv "$out/host_sd_$b.csv"
done
# A failing GPU step is completed on the CPU (device operands, and host arrays in chunks).
for f in cublas sync launch; do
  step 45 "$out/test_fault_$f.txt" "test_interface_batch MYBLAS_TEST_FAULT=$f" \
    env MYBLAS_BACKEND=kernels MYBLAS_TEST_FAULT=$f "$dir/test_interface_batch" --gtest_filter='*Device*:*LargeHost*'
done
grep -h "VERIFY FAILED" "$out"/device_*.txt "$out"/host_*.txt >> "$out/summary.txt"
grep -H "ratio" "$out"/device_auto.txt "$out"/host_*.txt >> "$out/summary.txt"
cat "$out/summary.txt"
