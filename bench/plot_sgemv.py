#!/usr/bin/env python3
"""Draws SGEMV bandwidth (GB/s, A + x + y counted once) against matrix size from a
bench_sgemv CSV: cuBLAS beside our kernel for each shape, N and T side by side.

"ours" is the kernel the dispatch table picks for the shape (--table, default
data/dispatch-sm_90.csv; where the table keeps cuBLAS, the best production kernel of the
run is drawn hollow so that the gap stays visible). Shapes are ordered by the size of A; the
x axis is labelled with m x n.

usage: bench/plot_sgemv.py RUN.csv OUT.png [--table data/dispatch-sm_90.csv] [--title T]
"""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PRODUCTION = {"n_rowblock", "n_rowblock_split", "n_rowblock_lastblock", "n_rowblock_cluster", "n_colsweep",
              "n_lanes", "n_sweep", "t_lanegroup", "t_lanegroup_split", "t_lanegroup_lastblock",
              "t_lanegroup_cluster", "t_lanegroup_blocksplit", "warp_per_column"}


def read_table(path):
    """(trans, m, n) -> kernel name, or None where the table keeps cuBLAS (device SGEMV rows)."""
    table = {}
    with open(path) as f:
        for r in csv.DictReader(line for line in f if line.strip() and not line.startswith("#")):
            if r["routine"] == "sgemv" and r["mem"] == "device":
                table[(r["trans"], int(r["m"]), int(r["n"]))] = r["kernel"] if r["path"] == "kernels" else None
    return table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("out")
    ap.add_argument("--table", default="data/dispatch-sm_90.csv")
    ap.add_argument("--title", default="SGEMV on the H100: ours (dispatch table's kernel) vs cublasSgemv")
    a = ap.parse_args()
    table = read_table(a.table)
    rows = {}
    with open(a.csv) as f:
        for r in csv.DictReader(line for line in f if not line.startswith("#")):
            if r["routine"] == "sgemv":
                rows[(r["trans"], int(r["m"]), int(r["n"]), r["path"])] = float(r["gbps"])

    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2), sharey=True)
    for ax, t in zip(axes, "NT"):
        shapes = sorted({(m, n) for (tt, m, n, p) in rows if tt == t}, key=lambda s: (s[0] * s[1], s[0]))
        xs = list(range(len(shapes)))
        cub = [rows.get((t, m, n, "cublas"), float("nan")) for m, n in shapes]
        ours, hollow = [], []
        for m, n in shapes:
            k = table.get((t, m, n))
            if k is None:  # cuBLAS kept, or shape not in the table: best production kernel
                cands = [(v, p) for (tt, mm, nn, p), v in rows.items()
                         if tt == t and (mm, nn) == (m, n) and p[len("kernel:"):] in PRODUCTION]
                ours.append(max(cands)[0] if cands else float("nan"))
                hollow.append(True)
            else:
                ours.append(rows.get((t, m, n, "kernel:" + k), float("nan")))
                hollow.append(False)
        ax.plot(xs, cub, "s-", color="tab:gray", label="cublasSgemv")
        ax.plot(xs, ours, "-", color="tab:blue")
        ax.scatter([x for x, h in zip(xs, hollow) if not h], [o for o, h in zip(ours, hollow) if not h],
                   marker="o", color="tab:blue", zorder=3, label="ours (kernel the table picks)")
        if any(hollow):
            ax.scatter([x for x, h in zip(xs, hollow) if h], [o for o, h in zip(ours, hollow) if h],
                       marker="o", facecolors="white", edgecolors="tab:blue", zorder=3,
                       label="ours, best kernel (table keeps cuBLAS)")
        for x, o, c in zip(xs, ours, cub):
            ax.annotate("%.2fx" % (o / c), (x, o), textcoords="offset points", xytext=(0, 7),
                        ha="center", fontsize=8, color="tab:blue")
        ax.set_xticks(xs)
        ax.set_xticklabels(["%d x %d" % s for s in shapes], rotation=35, ha="right", fontsize=8)
        ax.set_title("y = A%s x" % ("" if t == "N" else "^T"))
        ax.set_xlabel("m x n (ordered by size of A)")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    axes[0].set_ylabel("GB/s (A + x + y once; launch included)")
    fig.suptitle(a.title)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
