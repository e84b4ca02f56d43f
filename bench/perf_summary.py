#!/usr/bin/env python3
"""Writes the performance summary of README.md (the block between <!-- perf-begin --> and
<!-- perf-end -->) and its plot from the current result files, so that no number there is typed
by hand.

Per device (DEVICES below; add a device by adding its result files):
  device pointers  bench_blas --quality runs (path "cublas": cuBLAS called directly, as the
                   library calls it; "auto:*": the library as a program calls it; "kernel:*": our
                   kernels called directly). For each shape in SHOW: cuBLAS's time, the time of the
                   path the dispatch table chooses (called directly) and of auto mode as called,
                   medians over every round of every run, and t_cublas / t_path as the range of
                   the runs' ratios (each run's ratio: of its medians over rounds).
  host arrays      bench/run_host_bench.sh output: the library in auto mode, OpenBLAS dlopened as
                   installed, NVBLAS; medians over rounds.
The plot (one per device) shows t_cublas / t_path for every device shape the quality runs measured.

usage: bench/perf_summary.py [--readme README.md] [--check]
  --check  exit 1 if README.md's block differs from what the result files give (nothing written)
Needs python3-matplotlib to draw the plot (skipped with a note when it is missing).
"""
import argparse
import csv
import os
import re
import statistics
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = "bench/results"
BEGIN, END = "<!-- perf-begin -->", "<!-- perf-end -->"

# Shapes shown in the README table: (routine, trans, m, n, k, beta).
SHOW = [
    ("sgemv", "N", 1024, 1024, 0, 0),
    ("sgemv", "N", 8192, 8192, 0, 0),
    ("sgemv", "T", 4096, 4096, 0, 0),
    ("sgemv", "T", 8192, 8192, 0, 0),
    ("sgemm", "NN", 16, 4096, 4096, 0),
    ("sgemm", "NN", 4096, 16, 4096, 0),
    ("sgemm", "NN", 8192, 8192, 64, 0.5),
    ("sgemm", "NN", 4096, 4096, 4096, 0),
    ("hgemm", "NN", 4096, 4096, 4096, 0.5),
    ("hgemm", "NN", 8192, 8192, 8192, 0),
]
HOST_SHOW = [("sgemm", 64), ("sgemm", 1024), ("sgemm", 8192), ("sgemm", 16384), ("hgemm", 64),
             ("hgemm", 4096), ("sgemv", 1024), ("sgemv", 8192)]

DEVICES = [
    {
        "name": "H100",
        "device_runs": ["h100-dispatch-v19-2026-11-26-run1.csv", "h100-dispatch-v19-2026-11-26-run2.csv"],
        "host_run": "h100-host-cpucore-2026-11-26-v3.csv",
        "plot": "h100-dispatch-v19-2026-11-26.png",
    },
]


def results_path(name):
    return os.path.join(ROOT, RESULTS, name)


def header_value(path, pattern):
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = re.search(pattern, line)
            if m:
                return m.group(1)
    return "?"


def read_quality_run(path):
    """{shape: {"cublas": [us], "auto": [us], "choice": [us], "choice_name": str}} of one run."""
    shapes = defaultdict(lambda: {"cublas": [], "auto": [], "paths": defaultdict(list), "choice": None})
    beta = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"# shape \S+ .* beta (\S+)$", line)
            if m:
                beta = float(m.group(1))
                continue
            if line.startswith("# quality,"):
                q = line[len("# quality,"):].split(",")
                key = (q[0], q[1].strip(), int(q[2]), int(q[3]), int(q[4]), float(q[5]))
                shapes[key]["choice"] = q[7]
                continue
            if line.startswith("#") or line.startswith("routine,") or not line:
                continue
            r = line.split(",")
            key = (r[0], r[2], int(r[3]), int(r[4]), int(r[5]), beta)
            t = float(r[6])
            if r[1] == "cublas":
                shapes[key]["cublas"].append(t)
            elif r[1].startswith("auto:"):
                shapes[key]["auto"].append(t)
            shapes[key]["paths"][r[1]].append(t)
    out = {}
    for key, s in shapes.items():
        choice = s["choice"]
        if not s["cublas"] or not s["auto"] or choice is None or not s["paths"].get(choice):
            continue
        out[key] = {"cublas": statistics.median(s["cublas"]), "auto": statistics.median(s["auto"]),
                    "choice": statistics.median(s["paths"][choice]), "choice_name": choice}
    return out


def device_summary(dev):
    runs = [read_quality_run(results_path(p)) for p in dev["device_runs"]]
    keys = sorted(set.intersection(*(set(r) for r in runs)))
    summary = {}
    for key in keys:
        per = [r[key] for r in runs]
        summary[key] = {
            "cublas": statistics.median(p["cublas"] for p in per),
            "choice": statistics.median(p["choice"] for p in per),
            "auto": statistics.median(p["auto"] for p in per),
            "choice_ratio": [p["cublas"] / p["choice"] for p in per],
            "auto_ratio": [p["cublas"] / p["auto"] for p in per],
            "choice_name": per[0]["choice_name"],
        }
    return summary


def read_host(path):
    times = defaultdict(list)
    with open(path) as f:
        for r in csv.DictReader(line for line in f if line.strip() and not line.startswith("#")):
            times[(r["routine"], r["path"], int(r["n"]))].append(float(r["time_ms"]))
    return {k: statistics.median(v) for k, v in times.items()}


def fmt_range(values):
    lo, hi = min(values), max(values)
    return "%.2f" % lo if "%.2f" % lo == "%.2f" % hi else "%.2f-%.2f" % (lo, hi)


def fmt_shape(routine, trans, m, n, k):
    return "%s %d x %d" % (trans, m, n) if routine == "sgemv" else "%s %d x %d x %d" % (trans, m, n, k)


def path_name(choice):
    return "cuBLAS" if choice == "cublas" else "`%s`" % choice[len("kernel:"):]


def fmt_ms(t):
    return "%.4f" % t if t < 0.01 else "%.3f" % t if t < 10 else "%.1f" % t


def block(devices):
    lines = [BEGIN, "<!-- generated by bench/perf_summary.py from the result files it names; edit the script, "
             "not this block -->"]
    for dev in devices:
        runs = dev["device_runs"]
        first = results_path(runs[0])
        gpu = header_value(first, r"device: ([^;(]+?) \(")
        rev = header_value(first, r"\(rev (\w+)\)")
        s = device_summary(dev)
        lines += ["", "**%s, device pointers** (library %s; `bench_blas --quality`, %d runs: %s). "
                  "Ratio = t_cuBLAS / t_path, cuBLAS called directly in the same process; *table* is the "
                  "path the dispatch table picks, called directly; *auto* is the library as a program "
                  "calls it." % (gpu, rev, len(runs), ", ".join("[%s](bench/results/%s)" % (r[:-4].split("-")[-1], r)
                                                                 for r in runs)),
                  "",
                  "| routine | shape | beta | table picks | cuBLAS us | table us | auto us | table ratio | auto ratio |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for key in SHOW:
            if key not in s:
                sys.exit("perf_summary: %s not measured in %s" % (key, runs))
            e = s[key]
            lines.append("| %s | %s | %g | %s | %.1f | %.1f | %.1f | %s | %s |" % (
                key[0], fmt_shape(*key[:5]), key[5], path_name(e["choice_name"]), e["cublas"], e["choice"],
                e["auto"], fmt_range(e["choice_ratio"]), fmt_range(e["auto_ratio"])))
        n_kernel = sum(1 for e in s.values() if e["choice_name"] != "cublas")
        lines += ["", "Over all %d device shapes measured, the table picks our kernel on %d; there the table "
                  "ratio is %s (worst run of each shape)." % (
                      len(s), n_kernel,
                      fmt_range([min(e["choice_ratio"]) for e in s.values() if e["choice_name"] != "cublas"]))]
        host = dev.get("host_run")
        if host:
            h = read_host(results_path(host))
            hrev = header_value(results_path(host), r"revision: (\w+)")
            lines += ["", "**%s, host arrays** (library %s; [%s](bench/results/%s); end to end, median of "
                      "rounds; each path its own process). *OpenBLAS*: dlopened as installed (0.3.21, which "
                      "picks its SSE3 kernels on that host's CPU); *SkylakeX*: the same with "
                      "`OPENBLAS_CORETYPE=SkylakeX` (OpenBLAS HGEMM: widen to FP32, SGEMM, round, in the calling "
                      "program); NVBLAS over the same OpenBLAS; ratio = the faster OpenBLAS / myblas." % (dev["name"], hrev, host, host),
                      "",
                      "| routine | n (square) | myblas ms | OpenBLAS ms | SkylakeX ms | NVBLAS ms | ratio |",
                      "|---|---|---|---|---|---|---|"]
            for routine, n in HOST_SHOW:
                me = h.get((routine, "myblas", n))
                ob = h.get((routine, "openblas", n))
                tu = h.get((routine, "openblas_tuned", n))
                nv = h.get((routine, "nvblas", n))
                if me is None:
                    sys.exit("perf_summary: host %s %d not in %s" % (routine, n, host))
                best = min(t for t in (ob, tu) if t) if (ob or tu) else None
                lines.append("| %s | %d | %s | %s | %s | %s | %s |" % (
                    routine, n, fmt_ms(me), fmt_ms(ob) if ob else "-", fmt_ms(tu) if tu else "-",
                    fmt_ms(nv) if nv else "-", "%.2f" % (best / me) if best else "-"))
        if dev.get("plot"):
            lines += ["", "![%s: t_cuBLAS / t_path per device shape](bench/results/%s)" % (dev["name"], dev["plot"])]
    lines.append(END)
    return "\n".join(lines)


def draw(dev):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("perf_summary: matplotlib missing (apt-get install python3-matplotlib): plot not drawn")
        return
    s = device_summary(dev)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), sharey=True,
                             gridspec_kw={"width_ratios": [2.2, 1.4, 0.8]})
    for ax, routine in zip(axes, ["sgemv", "sgemm", "hgemm"]):
        keys = sorted((k for k in s if k[0] == routine), key=lambda k: (k[1], k[5], k[2] * k[3] * max(k[4], 1)))
        xs = range(len(keys))
        table = [min(s[k]["choice_ratio"]) for k in keys]
        auto = [min(s[k]["auto_ratio"]) for k in keys]
        colors = ["tab:blue" if s[k]["choice_name"] != "cublas" else "tab:gray" for k in keys]
        ax.bar(xs, table, color=colors, width=0.8)
        ax.plot(xs, auto, "k.", markersize=4)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_title(routine.upper())
        ax.set_xticks([])
        ax.set_xlabel("%d shapes (by transpose, beta, size)" % len(keys))
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("t_cuBLAS / t_path (worst run)")
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    axes[0].legend(handles=[Patch(color="tab:blue", label="table picks our kernel"),
                            Patch(color="tab:gray", label="table picks cuBLAS"),
                            Line2D([], [], color="black", marker=".", linestyle="none", label="auto as called")],
                   loc="upper right", fontsize=8)
    fig.suptitle("%s, device pointers: %s" % (dev["name"], ", ".join(dev["device_runs"])), fontsize=10)
    fig.tight_layout()
    fig.savefig(results_path(dev["plot"]), dpi=100)
    print("perf_summary: wrote %s/%s" % (RESULTS, dev["plot"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    with open(args.readme) as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        sys.exit("perf_summary: %s has no %s ... %s block" % (args.readme, BEGIN, END))
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = head + block(DEVICES) + tail
    if args.check:
        sys.exit(0 if new == text else "perf_summary: README.md's block is out of date")
    with open(args.readme, "w") as f:
        f.write(new)
    for dev in DEVICES:
        if dev.get("plot"):
            draw(dev)


if __name__ == "__main__":
    main()
