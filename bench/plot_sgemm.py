#!/usr/bin/env python3
"""Plot bench_sgemm's CSV: the kernel ladder at 4096^3 NN (GFLOP/s beside cuBLAS) and the
best kernel's ratio to cuBLAS per shape. Usage: plot_sgemm.py RESULTS.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, out = sys.argv[1], sys.argv[2]
    rows = [r for r in csv.reader(l for l in open(src) if not l.startswith("#"))]
    head, rows = rows[0], rows[1:]
    rows = [dict(zip(head, r)) for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    ladder = [r for r in rows if r["trans"] == "NN" and r["m"] == r["n"] == r["k"] == "4096"]
    names = [r["path"].replace("kernel:", "") for r in ladder]
    vals = [float(r["gflops"]) / 1000 for r in ladder]
    ax1.barh(names, vals, color=["gray" if n == "cublas" else "tab:blue" for n in names])
    ax1.set_xlabel("TFLOP/s (FP32)")
    ax1.set_title("4096^3 NN, H100")
    ax1.invert_yaxis()
    best = {}
    for r in rows:
        if r["path"] == "cublas":
            continue
        key = "%s %sx%sx%s" % (r["trans"], r["m"], r["n"], r["k"])
        best[key] = max(best.get(key, 0.0), float(r["ratio_vs_cublas"]))
    keys = list(best)
    ax2.barh(keys, [best[k] for k in keys], color="tab:green")
    ax2.axvline(1.0, color="k", lw=1)
    ax2.set_xlabel("best kernel: t_cublas / t_kernel")
    ax2.set_title("ratio to cublasSgemm (>1: faster)")
    ax2.invert_yaxis()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
