#!/usr/bin/env bash
# compute-sanitizer over our GPU kernels and the library's GPU paths (docs/reliability.md).
#
#   tests/reliability/run_compute_sanitizer.sh <build-dir> <outdir>
#
# Runs <build-dir>/tests/reliability/sanitize_kernels under memcheck (--leak-check full),
# racecheck, initcheck and synccheck, each over two parts:
#   kernels  our kernels called directly (driver groups sgemm.*, hgemm.*, sgemv.*, scale.*,
#            convert.*)
#   api      the public entry points on device and host arrays (groups api.cublas, api.kernels,
#            api.auto): cuBLAS, our kernels through dispatch, the host-array pipeline; this part
#            includes cuBLAS's own kernels and the library's process-lifetime caches, so its
#            reports are counted apart from the kernels'
# and memcheck and initcheck over a third, `probe` (groups probe.*): single accesses at the end
# of an allocation that show what the tools report for them, two of which must be reported
# (informational; not counted in the totals).
# The driver runs each group in a child process; compute-sanitizer follows them and prints one
# summary for the whole run. Logs: <outdir>/<tool>.<part>.log. Summary (<outdir>/summary.txt):
# per run the tool's total, the groups with reports (first report of each), then one
# "<tool>: N errors" line per tool over kernels + api. Exit status 0 only if every kernels/api
# run reported 0 errors (racecheck: 0 hazards, errors and warnings alike), printed its summary,
# and the driver's own result checks passed.
#
# Environment: COMPUTE_SANITIZER (the binary; else PATH, else /usr/local/cuda/bin),
# SANITIZE_TOOLS (default "memcheck racecheck initcheck synccheck"), SANITIZE_PARTS (default
# "kernels api probe"), SANITIZE_JOBS (runs at once, default 4; one GPU is enough),
# SANITIZE_TIMEOUT (seconds per run, default 1500), SANITIZE_GROUP_SECONDS (a group starts no
# new case after this, default 120; the driver kills it at 2x + 60 s).
# Without a GPU or without compute-sanitizer it prints "[  SKIPPED ] <reason>" and exits 0
# (ctest reports the entry skipped).
set -u

build=${1:?usage: run_compute_sanitizer.sh <build-dir> <outdir>}
out=${2:?usage: run_compute_sanitizer.sh <build-dir> <outdir>}
driver=$build/tests/reliability/sanitize_kernels
if [ ! -x "$driver" ]; then
  echo "error: $driver is not built (cmake --build $build --target sanitize_kernels)"
  exit 2
fi

cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || true)}
if [ -z "$cs" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ]; then cs=/usr/local/cuda/bin/compute-sanitizer; fi
if [ -z "$cs" ]; then
  echo "[  SKIPPED ] compute-sanitizer not found (PATH, /usr/local/cuda/bin or COMPUTE_SANITIZER)"
  exit 0
fi
probe=$("$driver" --probe 2>&1)
if [ $? -ne 0 ] || echo "$probe" | grep -q "SKIPPED"; then
  echo "$probe" | grep "SKIPPED" || echo "[  SKIPPED ] the driver's device probe failed: $probe"
  exit 0
fi

tools=${SANITIZE_TOOLS:-memcheck racecheck initcheck synccheck}
parts=${SANITIZE_PARTS:-kernels api probe}
jobs=${SANITIZE_JOBS:-4}
limit=${SANITIZE_TIMEOUT:-1500}
export MYBLAS_SANITIZE_GROUP_SECONDS=${SANITIZE_GROUP_SECONDS:-120}
mkdir -p "$out"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "$probe"
  "$cs" --version | tail -n 2
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} > "$out/environment.txt" 2>&1

filter_of() {
  case $1 in
    kernels) echo "sgemm.,hgemm.,sgemv.,scale.,convert.";;
    api) echo "api.";;
    probe) echo "probe.";;
  esac
}

# memcheck also checks the operands of warpgroup MMA (wgmma) where this version can.
wgmma_opt=()
"$cs" --help 2>&1 | grep -q -- "--check-warpgroup-mma" && wgmma_opt=(--check-warpgroup-mma yes)

run_one() {
  local tool=$1 part=$2 log=$out/$1.$2.log
  local opts=(--tool "$tool" --error-exitcode 1 --print-limit 10000)
  [ "$tool" = memcheck ] && opts+=(--leak-check full "${wgmma_opt[@]}")
  local t0=$SECONDS rc
  echo "# $cs ${opts[*]} $driver $(filter_of "$part")" > "$log"
  timeout --kill-after=30 "$limit" "$cs" "${opts[@]}" "$driver" "$(filter_of "$part")" >> "$log" 2>&1
  rc=$?
  echo "# exit $rc after $((SECONDS - t0)) s" >> "$log"
}

runs=()
for tool in $tools; do
  for part in $parts; do
    [ "$part" = probe ] && [ "$tool" != memcheck ] && [ "$tool" != initcheck ] && continue
    runs+=("$tool:$part")
  done
done
for r in "${runs[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
  run_one "${r%%:*}" "${r#*:}" &
done
wait

# The tool's total for the whole process tree: "ERROR SUMMARY: N errors" (memcheck, initcheck,
# synccheck) or "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)", E + W; then
# the number of summary lines found.
total_of() {
  awk '
    /RACECHECK SUMMARY:/ { for (i = 1; i <= NF; ++i) if ($i ~ /^\(?[0-9]+$/ && ($(i+1) ~ /^errors|^warnings/)) { v = $i; gsub(/\(/, "", v); rn += v }; rs++; next }
    /ERROR SUMMARY: [0-9]+ errors?$/ { en += $(NF-1); es++ }
    END { if (rs) printf "%d %d\n", rn, rs; else printf "%d %d\n", en, es }' "$1"
}

# Reports per driver group ("begin group X" opens a group in the log): count, leak reports,
# first report.
per_group() {
  awk '
    /^begin group / { cur = $3; next }
    /^========= / {
      line = substr($0, 11)
      if (line == "" || line ~ /^ / || line ~ /^(COMPUTE-SANITIZER|ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|Target application|Saved host backtrace)/) next
      g = cur == "" ? "(driver)" : cur
      n[g]++
      if (line ~ /^Leaked/) leak[g]++
      if (!(g in first)) first[g] = line
    }
    END { for (g in n) printf "    %-34s %5d reports (%d leak), first: %s\n", g, n[g], leak[g] + 0, first[g] }' "$1" | sort
}

status=0
summary=$out/summary.txt
: > "$summary"
for tool in $tools; do
  total=0
  for part in $parts; do
    log=$out/$tool.$part.log
    [ -f "$log" ] || continue
    read -r n s < <(total_of "$log")
    rc=$(sed -n 's/^# exit \([0-9]*\) after.*/\1/p' "$log" | tail -n 1)
    secs=$(sed -n 's/^# exit [0-9]* after \([0-9]*\) s/\1/p' "$log" | tail -n 1)
    driver_line=$(grep '^sanitize_kernels: .*groups' "$log" | tail -n 1)
    leaks=$(grep -c '^========= Leaked' "$log")
    note=""
    [ "$s" -eq 0 ] && note=" NO SUMMARY (crashed or timed out?)"
    if [ "$part" != probe ] && ! echo "$driver_line" | grep -q " 0 failed groups, 0 incomplete groups"; then
      note="$note; driver: ${driver_line:-no result line}"
    fi
    printf '%-9s %-7s: %d errors (%d leak reports; exit %s, %s s)%s\n' \
      "$tool" "$part" "$n" "$leaks" "${rc:-?}" "${secs:-?}" "$note" >> "$summary"
    per_group "$log" >> "$summary"
    [ "$part" = probe ] && grep -E '^probe\.' "$log" | sed 's/^/    driver: /' >> "$summary"
    if [ "$part" != probe ]; then
      total=$((total + n))
      if [ "$n" -ne 0 ] || [ "$s" -eq 0 ] || [ "${rc:-1}" -ne 0 ] || [ -n "$note" ]; then status=1; fi
    fi
  done
  printf '%s: %d errors\n' "$tool" "$total" >> "$summary"
done
cat "$summary"
exit $status
