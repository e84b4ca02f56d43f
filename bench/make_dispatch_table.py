#!/usr/bin/env python3
"""Turns benchmark CSVs into the measured dispatch table that libmyblas reads at run time,
data/dispatch-sm_XY.csv (format: src/dispatch/table.h; the library's lookup: README,
"Dispatch tables").

Device rows (--sgemv: bench_sgemv runs, device pointers): for every measured (trans, m, n)
the table names one of our kernels when its ratio to cuBLAS (t_cublas / t_kernel) is >= 1.0
in EVERY given run (the worst run decides, so noise cannot put a slower kernel in the table),
else cuBLAS. Only kernels that handle every valid problem are candidates (the ladder rungs that
refuse shapes, or that share process-wide state such as x_constant, are not).

Host rows (--host: bench/run_host_bench.sh output, host arrays end to end): for each routine
and measured shape, the GPU pipeline ("best_gpu" rows: MYBLAS_BACKEND=cublas) where it was
faster than the CPU BLAS ("openblas" rows: OpenBLAS called directly, which is what myblas's CPU
path calls), else the CPU.

Columns: routine,trans,mem,m,n,k,path,kernel,time_us,ratio
  time_us  the chosen path's median time (device rows: mean over the runs)
  ratio    the margin that decided: device rows t_cublas / t_kernel of the best kernel, worst
           over the runs (a kernel is chosen iff >= 1); host rows t_cpu / t_gpu (GPU iff > 1)

usage: bench/make_dispatch_table.py [--arch sm_90] [--sgemv RUN.csv ...] [--host HOST.csv ...]
                                    [-o data/dispatch-sm_90.csv]
--arch defaults to the "sm_XY" that the inputs' header lines name (bench_sgemv and
run_host_bench.sh write it); it is needed for the output's name and header.
"""
import argparse
import csv
import os
import re
import sys
from collections import defaultdict

CANDIDATES = {"n_rowblock", "n_rowblock_split", "n_rowblock_lastblock", "n_rowblock_cluster", "t_lanegroup",
              "t_lanegroup_split", "t_lanegroup_lastblock", "t_lanegroup_cluster", "warp_per_column"}
HEADER = "routine,trans,mem,m,n,k,path,kernel,time_us,ratio"


def read_rows(path):
    """(comment lines, data rows as dicts) of a results CSV."""
    with open(path) as f:
        lines = f.read().splitlines()
    comments = [line for line in lines if line.startswith("#")]
    return comments, list(csv.DictReader(line for line in lines if line and not line.startswith("#")))


def arch_of(comments):
    found = set(re.findall(r"\bsm_(\d{2,3})\b", "\n".join(comments)))
    return found


def device_rows(paths):
    worst = defaultdict(lambda: float("inf"))  # (trans, m, n, kernel) -> worst ratio over runs
    times = defaultdict(list)                   # (trans, m, n, path) -> time_us per run
    runs_seen = defaultdict(int)
    for path in paths:
        seen = set()
        for r in read_rows(path)[1]:
            if r["routine"] != "sgemv":
                continue
            key3 = (r["trans"], int(r["m"]), int(r["n"]))
            if r["path"] == "cublas":
                times[key3 + ("cublas",)].append(float(r["time_us"]))
                continue
            if not r["path"].startswith("kernel:"):
                continue
            kernel = r["path"][len("kernel:"):]
            if kernel not in CANDIDATES:
                continue
            key = key3 + (kernel,)
            worst[key] = min(worst[key], float(r["ratio_vs_cublas"]))
            times[key].append(float(r["time_us"]))
            if key not in seen:
                runs_seen[key] += 1
                seen.add(key)
    best = {}
    for (t, m, n, kernel), ratio in worst.items():
        if runs_seen[(t, m, n, kernel)] != len(paths):
            continue  # must be measured in every run
        cur = best.get((t, m, n))
        if cur is None or ratio > cur[1]:
            best[(t, m, n)] = (kernel, ratio)
    rows = []
    for (t, m, n), (kernel, ratio) in sorted(best.items()):
        chosen = kernel if ratio >= 1.0 else "cublas"
        ts = times.get((t, m, n, chosen))
        if not ts:
            sys.exit("make_dispatch_table: no %s time for sgemv %s %dx%d" % (chosen, t, m, n))
        path, name = ("kernels", kernel) if chosen != "cublas" else ("cublas", "-")
        rows.append(("sgemv", t, "device", m, n, 0, path, name, sum(ts) / len(ts), ratio))
    return rows


def host_rows(paths):
    times = {}
    for path in paths:
        for r in read_rows(path)[1]:
            if r["path"] in ("best_gpu", "openblas"):
                key = (r["routine"], int(r["m"]), int(r["n"]), int(r["k"]))
                times.setdefault(key, {})[r["path"]] = float(r["time_ms"])
    rows = []
    for (routine, m, n, k), t in sorted(times.items()):
        if "best_gpu" not in t or "openblas" not in t:
            continue
        ratio = t["openblas"] / t["best_gpu"]
        gpu = ratio > 1.0
        trans = "N" if routine == "sgemv" else "NN"  # bench_host measures these only
        ms = t["best_gpu"] if gpu else t["openblas"]
        rows.append((routine, trans, "host", m, n, k, "cublas" if gpu else "cpu", "-", ms * 1000.0, ratio))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", help="sm_XY of the GPU measured (default: from the inputs' headers)")
    ap.add_argument("--sgemv", nargs="*", default=[], help="bench_sgemv result CSVs (every run)")
    ap.add_argument("--host", nargs="*", default=[], help="run_host_bench.sh result CSVs")
    ap.add_argument("-o", "--output", help="output file (default: stdout)")
    a = ap.parse_args()
    if not a.sgemv and not a.host:
        ap.error("give --sgemv and/or --host result files")
    comments = []
    for p in a.sgemv + a.host:
        comments += read_rows(p)[0]
    arch = a.arch
    if not arch:
        found = arch_of(comments)
        if len(found) != 1:
            ap.error("cannot tell the GPU architecture from the inputs (%s): pass --arch sm_XY"
                     % (", ".join("sm_" + f for f in sorted(found)) or "none named"))
        arch = "sm_" + found.pop()
    if not re.fullmatch(r"sm_\d{2,3}", arch):
        ap.error("--arch must look like sm_90")
    device = sorted({m.group(1).strip() for c in comments for m in [re.search(r"device: ([^;(,]+)", c)] if m})
    rows = device_rows(a.sgemv) if a.sgemv else []
    rows += host_rows(a.host) if a.host else []
    out = open(a.output, "w") if a.output else sys.stdout
    print("# myblas measured dispatch table for %s (%s). Generated by bench/make_dispatch_table.py; "
          "regenerate, do not edit." % (arch, ", ".join(device) or "device not named"), file=out)
    print("# from: " + ", ".join(os.path.basename(p) for p in a.sgemv + a.host), file=out)
    print("# time_us: the chosen path's median time; ratio: device rows t_cublas / t_kernel (best "
          "kernel, worst run; kernel iff >= 1), host rows t_cpu / t_gpu (GPU iff > 1)", file=out)
    print(HEADER, file=out)
    for r in rows:
        print("%s,%s,%s,%d,%d,%d,%s,%s,%.2f,%.3f" % r, file=out)
    if a.output:
        out.close()


if __name__ == "__main__":
    main()
