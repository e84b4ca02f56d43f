#!/usr/bin/env python3
"""Turns benchmark CSVs into the measured dispatch table that libmyblas reads at run time,
data/dispatch-sm_XY.csv (format: src/dispatch/table.h; the library's lookup: README,
"Dispatch tables").

Device rows (--sgemv: bench_sgemv runs, device pointers): for every measured (trans, m, n)
the table names one of our kernels when its ratio to cuBLAS (t_cublas / t_kernel) is >= 1.0
in EVERY given run (the worst run decides, so noise cannot put a slower kernel in the table),
else cuBLAS. Only kernels that handle every valid problem are candidates (the ladder rungs that
refuse shapes, or that share process-wide state such as x_constant, are not).

Device SGEMM rows (--sgemm: bench_sgemm runs, our kernels called directly beside cublasSgemm, or
bench_blas --quality runs, which do the same for every table shape in several rounds): for every
measured (trans, m, n, k), the production SGEMM kernel whose worst ratio to cuBLAS over the runs
that measured it (at least two; runs may cover different kernels and shapes; a run with several
rounds of a shape counts once, with the ratio of its median times) is best, when that is >= 1.0,
else cuBLAS; beta "*", or one row per beta kind (0, 1) where the runs' '# shape ... beta' lines
show the shape measured with beta == 0 and with beta != 0.

Device GEMM rows through the library (--blas: bench_blas runs; its paths myblas-cublas and
myblas-kernels are the library forced onto each GPU path, "-b<beta>" marking beta != 0): HGEMM
takes our kernel (--hgemm-kernel, the one the library ran there: our choice for aligned operands)
where its slowest run beat the library's fastest cuBLAS-path run, per beta kind (0 or 1: the
cuBLAS path with beta != 0 computes into FP32 scratch to round once, so the answer differs; with
beta == 0 it is one cublasGemmEx call, so the runs of cuBLAS called directly count too); SGEMM shapes
that only these runs measured get cuBLAS rows (no kernel measured there), beta "*".

Host rows (--host: bench/run_host_bench.sh output, host arrays end to end): for each routine
and measured shape, the GPU pipeline ("best_gpu" rows: MYBLAS_BACKEND=cublas) where it was
faster than the CPU ("cpu" rows: myblas with MYBLAS_BACKEND=cpu, which runs OpenBLAS with the
kernels the library settles on; runs without them: "openblas" rows, OpenBLAS called directly),
else the CPU; the median over a run's rounds. Rows of bench_host_l3 --paired ("paired,routine,n,
auto_ms,cpu_ms,gpu_ms,...": the library's cpu and cublas settings taking turns in one process) give
both times directly; a size where one setting was not run ("-") gets no row. Each routine gets one
crossover (CPU below, GPU from it on), placed where the measured times lose least (each size's loss
capped at a factor 2): a size whose
measurement contradicts its neighbours is noise (the GPU's lead grows with n). The ratio column
stays the measured one.

Columns: routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio
  time_us  the chosen path's median time (device rows: mean over the runs)
  ratio    the margin that decided: device rows t_cublas / t_kernel of the best kernel, worst
           over the runs (a kernel is chosen iff >= 1); host rows t_cpu / t_gpu (GPU iff > 1)

usage: bench/make_dispatch_table.py [--arch sm_90] [--sgemv RUN.csv ...] [--sgemm RUN.csv ...]
                                    [--blas RUN.csv ...] [--hgemm-kernel NAME] [--host HOST.csv ...]
                                    [-o data/dispatch-sm_90.csv]
--arch defaults to the "sm_XY" that the inputs' header lines name (bench_sgemv and
run_host_bench.sh write it); it is needed for the output's name and header.
"""
import argparse
import csv
import math
import os
import re
import statistics
import sys
from collections import defaultdict

CANDIDATES = {"n_rowblock", "n_rowblock_split", "n_rowblock_lastblock", "n_rowblock_cluster", "n_colsweep",
              "n_lanes", "n_sweep", "t_lanegroup", "t_lanegroup_split", "t_lanegroup_lastblock",
              "t_lanegroup_cluster", "t_lanegroup_blocksplit", "warp_per_column"}
SGEMM_CANDIDATES = {"pipelined_128x128x16_s4", "skinny_r16", "pipelined_regdb_256x128x8_s6",
                    "pipelined_regdb_128x128x8_s6", "smallk_128x128x16",
                    "smallk_panel_128x128x32", "smallk_panel_pre_128x128x32",
                    "smallk_ws_128x256x64"}
HGEMM_CANDIDATES = {"mma_sync_128x256x64_s3", "mma_sync_128x128x64_s3", "wgmma_tma_128x256x64_s4",
                    "splitk_cluster_64x128x64_s3", "splitk_cluster_128x64x64_s3", "skinny_stream_64",
                    "wgmma_splitk_64xN"}
HEADER = "routine,trans,mem,m,n,k,beta,path,kernel,time_us,ratio"


def median(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


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
        rows.append(("sgemv", t, "device", m, n, 0, "*", path, name, sum(ts) / len(ts), ratio))
    return rows


def sgemm_beta_rows(path):
    """The data rows of a bench_sgemm run, each with the beta kind ("0" or "1") of its shape: from
    the '# shape ... beta B' line before the shape's rows (bench_sgemm writes them since the
    small-k shapes), else from the run's '# summary' lines (op m n k beta), else "*"."""
    with open(path) as f:
        lines = f.read().splitlines()
    summary = defaultdict(set)  # (trans, m, n, k) -> betas in the summary
    for line in lines:
        m = re.match(r"#\s+([NT]{2})\s+(\d+)\s+(\d+)\s+(\d+)\s+(-?[\d.]+)\s+\|", line)
        if m:
            summary[(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)))].add(float(m.group(5)))
    header, out, kind = None, [], None
    for line in lines:
        m = re.match(r"# shape .* beta (\S+)\s*$", line)
        if m:
            kind = "0" if float(m.group(1)) == 0.0 else "1"
        elif line and not line.startswith("#"):
            if header is None:
                header = line.split(",")
                continue
            r = dict(zip(header, line.split(",")))
            k = kind
            if k is None:
                betas = summary.get((r.get("trans"), int(r.get("m", 0)), int(r.get("n", 0)), int(r.get("k", 0))))
                k = ("0" if next(iter(betas)) == 0.0 else "1") if betas and len(betas) == 1 else "*"
            out.append((r, k))
    return out


def sgemm_rows(paths):
    """bench_sgemm runs: kernel:<name> beside cublas per (trans, m, n, k) and beta kind. A shape
    measured with one beta kind only gets a row for any beta ("*"); one measured with beta == 0
    and beta != 0 gets a row per kind."""
    ratios = defaultdict(list)  # (trans, m, n, k, beta kind, kernel) -> ratio per run that measured it
    times = defaultdict(list)   # (trans, m, n, k, beta kind, path) -> time_us per run
    shapes = set()              # (trans, m, n, k, beta kind) with a cuBLAS time
    for path in paths:
        # A run that measured a shape in several rounds (bench_blas --quality) counts once, with
        # the median of its rounds' times per path: one slow round is noise, not a verdict.
        run = defaultdict(list)  # (shape, path) -> [(time_us, ratio_vs_cublas)] in this run
        for r, kind in sgemm_beta_rows(path):
            if r["routine"] != "sgemm":
                continue
            shape = (r["trans"], int(r["m"]), int(r["n"]), int(r["k"]), kind)
            if r["path"] == "cublas":
                run[(shape, "cublas")].append((float(r["time_us"]), 1.0))
                shapes.add(shape)
                continue
            kernel = r["path"][len("kernel:"):] if r["path"].startswith("kernel:") else None
            if kernel not in SGEMM_CANDIDATES:
                continue
            run[(shape, kernel)].append((float(r["time_us"]), float(r["ratio_vs_cublas"])))
        for (shape, name), got in run.items():
            t = median([g[0] for g in got])
            times[shape + (name,)].append(t)
            if name == "cublas":
                continue
            cub = run.get((shape, "cublas"), [])
            # One measurement: the ratio the benchmark printed (from unrounded times); rounds: the medians'.
            ratios[shape + (name,)].append(got[0][1] if len(got) == 1 else median([c[0] for c in cub]) / t)
    kinds = defaultdict(set)  # (trans, m, n, k) -> beta kinds measured
    for shape in shapes:
        kinds[shape[:4]].add(shape[4])
    best = {}
    for key, rs in ratios.items():
        shape, kernel = key[:5], key[5]
        if len(rs) < 2:
            continue  # at least two runs, the worst of them counts
        cur = best.get(shape)
        if cur is None or min(rs) > cur[1]:
            best[shape] = (kernel, min(rs))
    rows = []
    for shape in sorted(shapes):
        specific = kinds[shape[:4]] - {"*"}
        if len(specific) == 2 and shape[4] == "*":
            continue  # both kinds measured: their own rows decide
        beta = shape[4] if len(specific) == 2 else "*"
        kernel, ratio = best.get(shape, (None, 0.0))
        win = kernel is not None and ratio >= 1.0
        ts = times[shape + ((kernel,) if win else ("cublas",))]
        if kernel is None:
            ratio = 1.0  # no kernel measured here
        rows.append(("sgemm", shape[0], "device") + shape[1:4] +
                    (beta, "kernels" if win else "cublas", kernel if win else "-", sum(ts) / len(ts), ratio))
    return rows


def blas_rows(paths, hgemm_kernel, sgemm_measured):
    """bench_blas runs through the library: myblas-kernels vs myblas-cublas per shape and beta."""
    times = defaultdict(lambda: defaultdict(list))  # (routine, trans, m, n, k, beta) -> path -> [us]
    for path in paths:
        for r in read_rows(path)[1]:
            if r["routine"] not in ("sgemm", "hgemm"):
                continue
            m = re.fullmatch(r"(cublas|myblas-cublas|myblas-kernels)(-b(.+))?", r["path"])
            if not m:
                continue
            beta = "1" if m.group(2) and float(m.group(3)) != 0.0 else "0"
            key = (r["routine"], r["trans"], int(r["m"]), int(r["n"]), int(r["k"]), beta)
            times[key][m.group(1)].append(float(r["time_us"]))
    rows = []
    sgemm_seen = set()
    for key in sorted(times):
        routine, t, m, n, k, beta = key
        lib = times[key]
        if "myblas-cublas" not in lib:
            continue
        mean_cublas = sum(lib["myblas-cublas"]) / len(lib["myblas-cublas"])
        if routine == "sgemm":
            if (t, m, n, k) in sgemm_measured or (t, m, n, k) in sgemm_seen:
                continue
            sgemm_seen.add((t, m, n, k))
            rows.append(("sgemm", t, "device", m, n, k, "*", "cublas", "-", mean_cublas, 1.0))
            continue
        kern = lib.get("myblas-kernels", [])
        # The kernel's slowest run against the cuBLAS path's fastest (0: no kernel measured).
        # With beta == 0 the library's cuBLAS path is one cublasGemmEx call, the same as the
        # "cublas" rows (cuBLAS called directly in the same run), so the faster of the two counts.
        best_cublas = min(lib["myblas-cublas"] + (lib.get("cublas", []) if beta == "0" else []))
        ratio = best_cublas / max(kern) if kern else 0.0
        win = ratio >= 1.0
        rows.append((routine, t, "device", m, n, k, beta, "kernels" if win else "cublas",
                     hgemm_kernel if win else "-", sum(kern) / len(kern) if win else mean_cublas,
                     ratio if ratio > 0 else 1.0))
    return rows


def host_rows(paths):
    # The CPU side is myblas's own CPU path ("cpu": the OpenBLAS kernels the library settles on)
    # where the run has it, else OpenBLAS called directly. Several rounds: the median.
    times = {}
    for path in paths:
        for r in read_rows(path)[1]:
            if "gpu_ms" in r:  # bench_host_l3 --paired: the cpu and cublas settings' medians
                n = int(r["n"])
                key = (r["routine"], n, n, 0 if r["routine"].endswith("gemv") else n)
                for label, col in (("best_gpu", "gpu_ms"), ("cpu", "cpu_ms")):
                    if r[col] != "-":  # ("-": not run at this size, the other setting far ahead)
                        times.setdefault(key, {}).setdefault(label, []).append(float(r[col]))
                continue
            if r.get("path") in ("best_gpu", "openblas", "cpu"):
                key = (r["routine"], int(r["m"]), int(r["n"]), int(r["k"]))
                times.setdefault(key, {}).setdefault(r["path"], []).append(float(r["time_ms"]))
    series = {}  # routine -> [(m, n, k, t_cpu, t_gpu)] in order of size
    for (routine, m, n, k), ts in sorted(times.items(), key=lambda kv: (kv[0][0], kv[0][1] * kv[0][2] * max(kv[0][3], 1))):
        t = {p: statistics.median(v) for p, v in ts.items()}
        cpu = t.get("cpu", t.get("openblas"))
        if "best_gpu" not in t or cpu is None:
            continue
        series.setdefault(routine, []).append((m, n, k, cpu, t["best_gpu"]))
    rows = []
    for routine, pts in sorted(series.items()):
        # One crossover per routine: the CPU below it, the GPU from it on, placed where the
        # measured times lose least (sum of log(t_chosen / t_better) over the sizes, each capped at
        # log 2). The GPU's
        # lead grows with the size (its transfers grow as n^2, the work as n^3), so a size whose
        # single measurement says otherwise against its neighbours is noise, not a second crossover.
        def loss(j):  # (each size's loss capped at 2x: one wild measurement cannot decide alone)
            return sum(min(math.log(c / min(c, g)), math.log(2)) for (_, _, _, c, g) in pts[:j]) + \
                   sum(min(math.log(g / min(c, g)), math.log(2)) for (_, _, _, c, g) in pts[j:])
        cross = min(range(len(pts) + 1), key=lambda j: (loss(j), -j))
        # bench_host measures SGEMV N and SGEMM/HGEMM NN; the other routines' rows hold every option
        trans = "N" if routine == "sgemv" else "NN" if routine in ("sgemm", "hgemm") else "*"
        for i, (m, n, k, cpu, gpu_ms) in enumerate(pts):
            gpu = i >= cross
            rows.append((routine, trans, "host", m, n, k, "*", "cublas" if gpu else "cpu", "-",
                         (gpu_ms if gpu else cpu) * 1000.0, cpu / gpu_ms))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", help="sm_XY of the GPU measured (default: from the inputs' headers)")
    ap.add_argument("--sgemv", nargs="*", default=[], help="bench_sgemv result CSVs (every run)")
    ap.add_argument("--sgemm", nargs="*", default=[], help="bench_sgemm result CSVs (every run)")
    ap.add_argument("--blas", nargs="*", default=[], help="bench_blas result CSVs (library paths)")
    ap.add_argument("--hgemm-kernel", default="wgmma_tma_128x256x64_s4",
                    help="the HGEMM kernel the --blas runs' myblas-kernels path ran")
    ap.add_argument("--host", nargs="*", default=[], help="run_host_bench.sh result CSVs")
    ap.add_argument("-o", "--output", help="output file (default: stdout)")
    a = ap.parse_args()
    if a.hgemm_kernel not in HGEMM_CANDIDATES:
        ap.error("--hgemm-kernel must be one of " + ", ".join(sorted(HGEMM_CANDIDATES)))
    inputs = a.sgemv + a.sgemm + a.blas + a.host
    if not inputs:
        ap.error("give --sgemv, --sgemm, --blas and/or --host result files")
    comments = []
    for p in inputs:
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
    sg = sgemm_rows(a.sgemm) if a.sgemm else []
    rows += sg
    rows += blas_rows(a.blas, a.hgemm_kernel, {(r[1], r[3], r[4], r[5]) for r in sg}) if a.blas else []
    rows += host_rows(a.host) if a.host else []
    out = open(a.output, "w") if a.output else sys.stdout
    print("# myblas measured dispatch table for %s (%s). Generated by bench/make_dispatch_table.py; "
          "regenerate, do not edit." % (arch, ", ".join(device) or "device not named"), file=out)
    for p in inputs:  # one line each: the table's lines may not pass 512 bytes
        print("# from: " + os.path.basename(p), file=out)
    print("# time_us: the chosen path's median time; ratio: device rows t_cublas / t_kernel (best "
          "kernel, worst run; kernel iff >= 1; 1 with cublas where no kernel was measured), host rows "
          "t_cpu / t_gpu (GPU iff > 1)", file=out)
    print(HEADER, file=out)
    for r in rows:
        print("%s,%s,%s,%d,%d,%d,%s,%s,%s,%.2f,%.3f" % r, file=out)
    if a.output:
        out.close()


if __name__ == "__main__":
    main()
