#!/usr/bin/env bash
# compute-sanitizer over our GPU kernels and the library's GPU paths (docs/reliability.md).
#
#   tests/reliability/run_compute_sanitizer.sh <build-dir> <outdir>
#
# Runs <build-dir>/tests/reliability/sanitize_kernels under memcheck (--leak-check full),
# racecheck, initcheck and synccheck, one sanitizer process per driver group (so every group
# gets its own exact total, and a group that ends its CUDA context under memcheck stops only
# itself), over two parts:
#   kernels  our kernels called directly (groups sgemm.*, hgemm.*, sgemv.*, scale.*, convert.*)
#   api      the public entry points on device and host arrays (groups api.cublas, api.kernels,
#            api.auto): cuBLAS, our kernels through dispatch, the host-array pipeline; this part
#            includes cuBLAS's own kernels and the library's process-lifetime caches, so its
#            reports are counted apart from the kernels'
# and, under memcheck and initcheck only, `probe` (groups probe.*): single accesses at the end of
# an allocation that show what the tools report for them, two of which must be reported
# (informational; not in the totals).
# Logs: <outdir>/<tool>/<group>.log. Summary (<outdir>/summary.txt): per tool and part the total
# and every group with reports (count, leak reports, first report) or without a summary, the
# driver's failed or incomplete groups, then one "<tool>: N errors" line per tool over kernels +
# api. Exit status 0 only if every kernels/api group reported 0 errors (racecheck: 0 hazards,
# errors and warnings alike), printed its summary and passed the driver's own result checks.
#
# Environment: COMPUTE_SANITIZER (the binary; else PATH, else /usr/local/cuda/bin),
# SANITIZE_TOOLS (default "memcheck racecheck initcheck synccheck"), SANITIZE_PARTS (default
# "kernels api probe"), SANITIZE_FILTER (a driver filter applied within the parts, e.g.
# "sgemm.smem_tiles_32x32x32,sgemm.warptile_128x128x16"), SANITIZE_JOBS (sanitizer processes at
# once, default 4; one GPU is enough), SANITIZE_TIMEOUT (seconds per process, default 600),
# SANITIZE_GROUP_SECONDS (a group starts no new case after this, default 120).
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
limit=${SANITIZE_TIMEOUT:-600}
export MYBLAS_SANITIZE_GROUP_SECONDS=${SANITIZE_GROUP_SECONDS:-120}
mkdir -p "$out"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "$probe"
  "$cs" --version | tail -n 2
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} > "$out/environment.txt" 2>&1

# The groups of a part (names from the driver), narrowed by SANITIZE_FILTER.
groups_of() {
  local pat
  case $1 in
    kernels) pat='^(sgemm|hgemm|sgemv|scale|convert)\.';;
    api) pat='^api\.';;
    probe) pat='^probe\.';;
  esac
  if [ -n "${SANITIZE_FILTER:-}" ]; then "$driver" --list "$SANITIZE_FILTER"; else "$driver" --list; fi | grep -E "$pat"
}

# memcheck also checks the operands of warpgroup MMA (wgmma) where this version can.
wgmma_opt=()
"$cs" --help 2>&1 | grep -q -- "--check-warpgroup-mma" && wgmma_opt=(--check-warpgroup-mma yes)

# initcheck does not see the stores of cuBLAS's HGEMM kernels (probe.hgemm64_fresh_c_cublas: C
# written only by cublasGemmEx and copied back is reported uninitialised, values right; the
# same with our kernel is not), so for the api groups, whose host-array pipeline downloads
# such fresh C tiles, its checks of host API copies are off; their results are still compared
# with a reference. The probe groups keep the checks, to show the blind spot.
api_opt=()
"$cs" --help 2>&1 | grep -q -- "--check-api-memory-access" && api_opt=(--check-api-memory-access no)

run_one() {
  local tool=$1 group=$2 log=$out/$1/$2.log
  local opts=(--tool "$tool" --error-exitcode 1)
  [ "$tool" = memcheck ] && opts+=(--leak-check full "${wgmma_opt[@]}")
  [ "$tool" = initcheck ] && [ "${group#api.}" != "$group" ] && opts+=("${api_opt[@]}")
  local t0=$SECONDS rc
  echo "# $cs ${opts[*]} $driver $group" > "$log"
  timeout --kill-after=30 "$limit" "$cs" "${opts[@]}" "$driver" "$group" >> "$log" 2>&1
  rc=$?
  echo "# exit $rc after $((SECONDS - t0)) s" >> "$log"
}

declare -A part_groups
for part in $parts; do part_groups[$part]=$(groups_of "$part" | tr '\n' ' '); done
for tool in $tools; do
  mkdir -p "$out/$tool"
  for part in $parts; do
    [ "$part" = probe ] && [ "$tool" != memcheck ] && [ "$tool" != initcheck ] && continue
    for group in ${part_groups[$part]}; do
      while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
      run_one "$tool" "$group" &
    done
  done
done
wait

# One log's total and number of summary lines: "ERROR SUMMARY: N errors" (memcheck, initcheck,
# synccheck) or "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)", E + W.
total_of() {
  awk '
    /RACECHECK SUMMARY:/ { for (i = 1; i <= NF; ++i) if ($i ~ /^\(?[0-9]+$/ && ($(i+1) ~ /^errors|^warnings/)) { v = $i; gsub(/\(/, "", v); rn += v }; rs++; next }
    /ERROR SUMMARY: [0-9]+ errors?$/ { en += $(NF-1); es++ }
    END { if (rs) printf "%d %d\n", rn, rs; else printf "%d %d\n", en, es }' "$1"
}

# The first report of a log (a "========= " line that opens a report, not a detail line).
first_report() {
  awk '/^========= [^ ]/ { line = substr($0, 11)
         if (line !~ /^(COMPUTE-SANITIZER|ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|Target application)/) { print line; exit } }' "$1"
}

status=0
summary=$out/summary.txt
: > "$summary"
for tool in $tools; do
  total=0
  for part in $parts; do
    [ "$part" = probe ] && [ "$tool" != memcheck ] && [ "$tool" != initcheck ] && continue
    sum=0; ngroups=0; lines=""
    for group in ${part_groups[$part]}; do
      log=$out/$tool/$group.log
      ngroups=$((ngroups + 1))
      read -r n s < <(total_of "$log")
      rc=$(sed -n 's/^# exit \([0-9]*\) after.*/\1/p' "$log" | tail -n 1)
      secs=$(sed -n 's/^# exit [0-9]* after \([0-9]*\) s/\1/p' "$log" | tail -n 1)
      leaks=$(grep -c '^========= Leaked' "$log")
      tally=$(grep -E "^group $group +[0-9]+ cases" "$log" | tail -n 1 | sed "s/^group $group *//")
      note=""
      [ "$s" -eq 0 ] && note="; NO SUMMARY (crashed or timed out?)"
      echo "$tally" | grep -q " 0 failed$" || note="$note; driver: ${tally:-no result line}"
      if [ "$part" = probe ]; then
        lines+=$(printf '    %-34s %5d reports, first: %s; driver: %s' "$group" "$n" "$(first_report "$log")" \
                 "$(grep -E "^$group: " "$log" | sed "s/^$group: //")")$'\n'
      elif [ "$n" -ne 0 ] || [ -n "$note" ]; then
        lines+=$(printf '    %-34s %5d reports (%d leak; exit %s, %s s), first: %s%s' "$group" "$n" "$leaks" \
                 "${rc:-?}" "${secs:-?}" "$(first_report "$log")" "$note")$'\n'
      fi
      sum=$((sum + n))
      if [ "$part" != probe ] && { [ "$n" -ne 0 ] || [ -n "$note" ] || [ "${rc:-1}" -ne 0 ]; }; then status=1; fi
    done
    printf '%-9s %-7s: %d errors over %d groups\n' "$tool" "$part" "$sum" "$ngroups" >> "$summary"
    printf '%s' "$lines" >> "$summary"
    [ "$part" != probe ] && total=$((total + sum))
  done
  printf '%s: %d errors\n' "$tool" "$total" >> "$summary"
done
cat "$summary"
exit $status
