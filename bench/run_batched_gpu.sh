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
# Run on the device (about 2 minutes; carry [".gpu", ".dev-batched"]):
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

timeout 60 "$dir/test_batched_kernels" > "$out/test_kernels.txt" 2>&1
echo "test_batched_kernels: exit $? ($(grep -c '^\[       OK' "$out/test_kernels.txt") ok)" >> "$out/summary.txt"
for b in cublas kernels auto; do
  MYBLAS_BACKEND=$b timeout 120 "$dir/test_interface_batch" > "$out/test_$b.txt" 2>&1
  echo "test_interface_batch MYBLAS_BACKEND=$b: exit $? ($(grep -c '^\[       OK' "$out/test_$b.txt") ok," \
       "$(grep -c '^\[  FAILED' "$out/test_$b.txt") failed lines)" >> "$out/summary.txt"
done

# A failing GPU step is completed on the CPU (device operands, and host arrays in chunks).
for f in cublas sync launch; do
  MYBLAS_BACKEND=kernels MYBLAS_TEST_FAULT=$f timeout 60 "$dir/test_interface_batch" \
    --gtest_filter='*Device*:*LargeHost*' > "$out/test_fault_$f.txt" 2>&1
  echo "test_interface_batch MYBLAS_TEST_FAULT=$f: exit $?" >> "$out/summary.txt"
done

for b in auto cublas kernels; do
  MYBLAS_BACKEND=$b timeout 150 "$dir/bench_batched" --device --csv "$out/device_$b.csv" > "$out/device_$b.txt" 2>&1
  echo "bench_batched --device MYBLAS_BACKEND=$b: exit $?" >> "$out/summary.txt"
done
for b in cpu cublas auto; do
  MYBLAS_BACKEND=$b timeout 150 "$dir/bench_batched" --host --csv "$out/host_$b.csv" > "$out/host_$b.txt" 2>&1
  echo "bench_batched --host MYBLAS_BACKEND=$b: exit $?" >> "$out/summary.txt"
done
grep -h "VERIFY FAILED" "$out"/device_*.txt "$out"/host_*.txt >> "$out/summary.txt"
grep -h "ratio" "$out"/device_auto.txt "$out"/host_*.txt >> "$out/summary.txt"
cat "$out/summary.txt"
