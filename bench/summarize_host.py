#!/usr/bin/env python3
"""Issue 6's host table from a bench/run_host_bench.sh CSV (any number of rounds): per routine
and n, the median time of each path over its rounds, and myblas against the best of OpenBLAS
(as installed, and tuned: openblas_tuned), myblas's own CPU path (cpu) and the GPU pipeline
(best_gpu), those measured, the target being >= 0.95; and NVBLAS / myblas. With --table, the
dispatch table's host entry for each point (the benchmarked square nearest in log2 n: where the
library sends the call, "gpu" or "cpu") and the fastest path measured, so that dispatch quality
shows.
usage: bench/summarize_host.py RESULTS.csv [--table data/dispatch-sm_90.csv]   (prints Markdown)"""
import collections
import csv
import math
import statistics
import sys

times = collections.defaultdict(list)
for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")):
    times[(r["routine"], int(r["n"]), r["path"])].append(float(r["time_ms"]))

host_rows = {}  # routine -> [(n, "gpu" | "cpu")], square host rows of the table
if "--table" in sys.argv:
    for r in csv.DictReader(l for l in open(sys.argv[sys.argv.index("--table") + 1]) if not l.startswith("#")):
        if r["mem"] == "host" and r["m"] == r["n"]:
            host_rows.setdefault(r["routine"], []).append((int(r["m"]), "gpu" if r["path"] == "cublas" else "cpu"))


def table_choice(routine, n):
    rows = host_rows.get(routine)
    if not rows:
        return "-"
    return min(rows, key=lambda e: abs(math.log2(e[0]) - math.log2(n)))[1]


CPU = ("openblas", "openblas_tuned", "cpu")
print("| routine | n | table | fastest | myblas ms | cpu ms | OpenBLAS ms | OpenBLAS tuned ms | best_gpu ms | NVBLAS ms | best/myblas (target >= 0.95) | OpenBLAS/myblas | NVBLAS/myblas | rounds |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
missed = 0
total = 0
for routine, n in sorted({(k[0], k[1]) for k in times}):
    med = {p: statistics.median(times[(routine, n, p)]) for p in ("myblas",) + CPU + ("best_gpu", "nvblas")
           if (routine, n, p) in times}
    if "myblas" not in med:
        continue
    best = min([med[p] for p in CPU + ("best_gpu",) if p in med] or [float("nan")])
    ratio = best / med["myblas"] if med["myblas"] > 0 else float("nan")
    total += 1
    flag = ""
    if not ratio >= 0.95:
        missed += 1
        flag = " (missed)"
    fmt = lambda p: "%.3f" % med[p] if p in med else "-"
    nv = "%.1fx" % (med["nvblas"] / med["myblas"]) if "nvblas" in med else "-"
    ob = "%.2f" % (med["openblas"] / med["myblas"]) if "openblas" in med else "-"
    fastest = min((p for p in CPU + ("best_gpu",) if p in med), key=lambda p: med[p], default="-")
    print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %.2f%s | %s | %s | %d |" % (
        routine, n, table_choice(routine, n), fastest, fmt("myblas"), fmt("cpu"), fmt("openblas"),
        fmt("openblas_tuned"), fmt("best_gpu"),
        fmt("nvblas"), ratio, flag, ob, nv, len(times[(routine, n, "myblas")])))
print("\n%d of %d points below 0.95x the best of the measured paths (OpenBLAS, OpenBLAS tuned, cpu, best_gpu)"
      % (missed, total))
