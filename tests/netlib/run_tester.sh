#!/usr/bin/env bash
# Runs one of Debian's netlib BLAS testers, unmodified, with libmyblas preloaded, and
# decides pass/fail from its own report plus our call log.
#
# usage: run_tester.sh TESTER INPUT BACKEND ROUTINE PRELOAD GPU_PROBE
#   TESTER     xblat2[sdcz] | xblat3[sdcz] | x[sdcz]cblat2 | x[sdcz]cblat3
#   INPUT      its input file name in the testers directory (sblat2.in, sin2, ...)
#   BACKEND    value for MYBLAS_BACKEND (cpu | cublas | kernels | auto)
#   ROUTINES   the routines libmyblas must be seen serving, space-separated (dgemm dsymm ...)
#   (MYBLAS_SGEMM_PRECISION, when set in the environment, passes through to the tester, and
#   the log must then show SGEMM calls that the 3xTF32 split ran)
#   PRELOAD    LD_PRELOAD value (libmyblas, preceded by the sanitizer runtimes in ASan builds)
#   GPU_PROBE  helper printing 1 when myblas_gpu_available() says a GPU is usable
#
# Exit 0 = pass, 77 = skipped (no GPU for a GPU backend; ctest shows "Not Run (Skipped)"),
# anything else = fail.
set -uo pipefail

tester=$1 input=$2 backend=$3 routines=$4 preload=$5 probe=$6
dir=${BLAS_TEST_DIR:-/usr/lib/x86_64-linux-gnu/blas}

if [ ! -x "$dir/$tester" ] || [ ! -f "$dir/$input" ]; then
  echo "FAIL: netlib tester $dir/$tester or its input $dir/$input is missing."
  echo "      Install Debian's libblas-test (scripts/setup-and-demo.sh and scripts/test.sh do),"
  echo "      or point BLAS_TEST_DIR at a directory holding the testers."
  exit 1
fi

if [ "$backend" != cpu ]; then
  # The dispatch table sends every call to the CPU when no GPU is usable, so running a GPU
  # backend here would silently test the CPU path again: skip, and say why.
  if [ "$("$probe" 2>/dev/null)" != 1 ]; then
    echo "SKIPPED: MYBLAS_BACKEND=$backend needs a usable CUDA GPU; none found ($probe)"
    exit 77
  fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/myblas-netlib-$tester.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The testers write their summary to the file named on the first line of the Fortran
# testers' input (sblat2.out, sblat3.out) in the current directory: run in a scratch copy.
cp "$dir/$input" "$work/"
cd "$work" || exit 1

ld_path=${LD_LIBRARY_PATH:-}
case $tester in
  x[sdcz]cblat*)
    # Debian builds the CBLAS testers against the reference libblas.so.3, whose CBLAS
    # defines the RowMajorStrg flag the testers reference. OpenBLAS (the usual system
    # libblas.so.3 alternative) lacks it, so load the reference one that libblas3 installs
    # next to the testers; only cblas_sgemm/cblas_sgemv are taken over by libmyblas.
    for ref in "$dir/libblas.so.3" /usr/lib/x86_64-linux-gnu/blas/libblas.so.3; do
      if [ -e "$ref" ]; then
        ld_path=$(dirname "$ref")${ld_path:+:$ld_path}
        break
      fi
    done
    ;;
esac

log=$work/myblas.log
: > "$log"
echo "== $dir/$tester < $input  (MYBLAS_BACKEND=$backend, LD_PRELOAD=$preload)"
LD_LIBRARY_PATH=$ld_path LD_PRELOAD=$preload MYBLAS_BACKEND=$backend MYBLAS_VERBOSE=1 \
  MYBLAS_LOG=$log "$dir/$tester" < "$input" > stdout.txt 2>&1
rc=$?

# Everything the tester printed, wherever it went, is checked together.
report=$work/report.txt
cat stdout.txt > "$report"
summary=$(sed -n "1s/^'\([^']*\)'.*/\1/p" "$input")
case $tester in
  xblat*) [ -n "$summary" ] && [ -f "$summary" ] && cat "$summary" >> "$report" ;;
esac
cat "$report"

fail=0
if [ $rc -ne 0 ]; then
  echo "FAIL: $tester exited with status $rc"
  if grep -q RowMajorStrg "$report"; then
    echo "      (the CBLAS testers need the reference libblas.so.3 from Debian's libblas3)"
  fi
  fail=1
fi
# The names the tester prints for the routines we serve: DGEMM / cblas_dgemm.
names=""
for r in $routines; do
  case $tester in
    xblat*) names="$names $(echo "$r" | tr a-z A-Z)" ;;
    *) names="$names cblas_$r" ;;
  esac
done
for name in $names; do
  if ! grep -Eq "^ *$name +PASSED THE TESTS OF ERROR-EXITS" "$report"; then
    echo "FAIL: no '$name PASSED THE TESTS OF ERROR-EXITS' line"; fail=1
  fi
  # The CBLAS testers say "PASSED THE COLUMN-MAJOR/ROW-MAJOR COMPUTATIONAL TESTS".
  n=$(grep -Ec "^ *$name +PASSED THE( [A-Z-]+)? +COMPUTATIONAL TESTS" "$report")
  want=1
  case $tester in x[sdcz]cblat*) want=2 ;; esac
  if [ "$n" -lt "$want" ]; then
    echo "FAIL: expected $want '$name PASSED ... COMPUTATIONAL TESTS' line(s), found $n"; fail=1
  fi
done
# Any routine (ours or the system BLAS's) reporting a failure fails the test.
if grep -Eq 'FAIL|\*\*\*\*\*' "$report"; then
  echo "FAIL: the tester reported failures:"; grep -En 'FAIL|\*\*\*\*\*' "$report" | head -20
  fail=1
fi

# Proof that libmyblas, not the system BLAS, served the calls, on the path asked for: cpu and
# cublas exactly; kernels on our kernels or, for routines without ours, cuBLAS; auto on any path.
case $backend in
  cpu|cublas) paths=$backend ;;
  kernels) paths='(kernels|cublas)' ;;
  *) paths='(cpu|cublas|kernels)' ;;
esac
for routine in $routines; do
  served=$(grep -Ec "^myblas: $routine .* path=$paths " "$log")
  echo "libmyblas log: $(grep -c "^myblas: $routine " "$log") $routine calls logged, $served on path=$paths"
  if [ "$served" -eq 0 ]; then
    echo "FAIL: no 'myblas: $routine ... path=$paths' line in the MYBLAS_LOG file: libmyblas did not serve $routine"
    head -5 "$log"
    fail=1
  fi
done
# Under MYBLAS_SGEMM_PRECISION, proof that the 3xTF32 split ran SGEMM calls (it logs each one).
if [ -n "${MYBLAS_SGEMM_PRECISION:-}" ] && [[ " $routines " == *" sgemm "* ]]; then
  split=$(grep -c "^myblas: sgemm precision=tf32x3 .*: 3xTF32" "$log")
  echo "libmyblas log: $split sgemm calls ran the 3xTF32 split (MYBLAS_SGEMM_PRECISION=$MYBLAS_SGEMM_PRECISION)"
  if [ "$split" -eq 0 ]; then
    echo "FAIL: no call ran the 3xTF32 split"; fail=1
  fi
fi
grep '^myblas: warning' "$log" | sort -u

[ $fail -eq 0 ] && echo "PASS: $tester with MYBLAS_BACKEND=$backend"
exit $fail
