#!/usr/bin/env bash
# Builds the libFuzzer target with clang (separately from the gcc build) against an already
# built libmyblas, and fuzzes for a bounded time starting from the committed seed corpus.
#   tests/fuzz/run_fuzz.sh [LIBDIR] [SECONDS]
# LIBDIR: the directory holding libmyblas.so (default build/src); SECONDS: default 60.
# The binary and the evolving corpus go to build-fuzz/ (the committed seeds are only read).
# A failing input is saved as build-fuzz/crash-*; replay it with
#   build-fuzz/fuzz_blas build-fuzz/crash-...     or     build/tests/fuzz/fuzz_blas_replay FILE
# Exit status: 0 when nothing was found, 1 on a finding, 77 when clang/libFuzzer are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
libdir=$(realpath "${1:-build/src}")
seconds=${2:-60}
out=build-fuzz

if ! command -v clang++ >/dev/null 2>&1; then
  echo "run_fuzz.sh: clang++ not found (apt-get install clang libclang-rt-14-dev)" >&2
  exit 77
fi
mkdir -p "$out/corpus"
# ASan+UBSan for the harness itself; libmyblas and OpenBLAS stay uninstrumented (their
# errors show up through the guard and result checks). -rdynamic exports the harness's
# xerbla_/cblas_xerbla so libmyblas reports to them.
if ! clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Itests \
      tests/fuzz/fuzz_blas.cpp -o "$out/fuzz_blas" -L"$libdir" -lmyblas -ldl \
      -Wl,-rpath,"$libdir" -rdynamic 2>"$out/build.log"; then
  if grep -q "fuzzer" "$out/build.log"; then
    cat "$out/build.log" >&2
    echo "run_fuzz.sh: libFuzzer missing (Debian package libclang-rt-14-dev)" >&2
    exit 77
  fi
  cat "$out/build.log" >&2
  exit 1
fi
# One process; leak checking stays on (a call that leaks shows up); 4 KiB inputs at
# most (the decoder needs a few hundred bytes). The first directory receives new inputs.
# -error_exitcode=1: libFuzzer's own default (77) would read as "skipped" to scripts/test.sh.
# protect_shadow_gap=0: see scripts/test.sh (CUDA initialisation under ASan on a GPU machine).
MYBLAS_BACKEND=cpu ASAN_OPTIONS=protect_shadow_gap=0 \
  "$out/fuzz_blas" -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$out/" -error_exitcode=1 \
  -print_final_stats=1 "$out/corpus" tests/fuzz/corpus
