#!/usr/bin/env python3
"""Plots t_CPU / t_GPU per routine against n from bench/run_host_l3_bench.sh's CSV (its sweep: the
paths "cpu" and "best_gpu"): one line per routine, one panel per element type; above 1 the GPU
path is faster on host arrays.
usage: plot_host_l3.py RUN.csv OUT.png   (needs matplotlib: /usr/bin/python3 on Debian)"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    rows = [r for r in csv.reader(line for line in open(sys.argv[1]) if not line.startswith("#"))][1:]
    t = {}
    for r in rows:
        t.setdefault((r[0], int(r[2])), {})[r[1]] = float(r[5])
    fig, axes = plt.subplots(1, 4, figsize=(16, 4), sharey=True)
    for ax, letter in zip(axes, "sdcz"):
        routines = sorted({rt for (rt, _), d in t.items() if rt[0] == letter and "cpu" in d and "best_gpu" in d})
        for rt in routines:
            pts = sorted((n, d["cpu"] / d["best_gpu"]) for (r2, n), d in t.items()
                         if r2 == rt and "cpu" in d and "best_gpu" in d)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=rt)
        ax.axhline(1.0, color="gray", linewidth=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title({"s": "FP32", "d": "FP64", "c": "complex FP32", "z": "complex FP64"}[letter])
        ax.set_xlabel("n (square, k = n)")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("t_CPU / t_GPU (host arrays)")
    fig.suptitle("Host arrays on the H100 machine: OpenBLAS (16 threads) over the GPU path, end to end")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
