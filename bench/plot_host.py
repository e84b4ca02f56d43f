#!/usr/bin/env python3
"""Plots host-array GFLOP/s against n (square) per path from a bench_host CSV (median of rounds).
usage: bench/plot_host.py RESULTS.csv OUT.png"""
import csv
import statistics
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
for ax, routine in zip(axes, ["sgemm", "hgemm", "sgemv"]):
    paths = sorted({r["path"] for r in rows if r["routine"] == routine})
    for path in paths:
        by_n = {}  # several rounds: the median
        for r in rows:
            if r["routine"] == routine and r["path"] == path:
                by_n.setdefault(int(r["n"]), []).append(float(r["gflops"]))
        pts = sorted((n, statistics.median(v)) for n, v in by_n.items())
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=path)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (square)")
    ax.set_ylabel("GFLOP/s, end to end")
    ax.set_title(routine + " on host arrays")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
fig.suptitle("H100 host (16 cores): myblas (auto dispatch) vs OpenBLAS, the GPU pipeline, NVBLAS")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=90)
