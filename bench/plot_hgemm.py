#!/usr/bin/env python3
"""Plot bench_hgemm's CSV: the kernel ladder at 4096^3 and 8192^3 NN (TFLOP/s beside
cublasGemmEx) and the best kernel's ratio to cuBLAS per shape.
Usage: /usr/bin/python3 plot_hgemm.py RESULTS.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, out = sys.argv[1], sys.argv[2]
    rows = [r for r in csv.reader(line for line in open(src) if not line.startswith("#"))]
    head, rows = rows[0], rows[1:]
    rows = [dict(zip(head, r)) for r in rows]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 5))
    labels, vals, colors = [], [], []
    for size, color in (("4096", "tab:blue"), ("8192", "tab:orange")):
        for r in rows:
            if r["trans"] == "NN" and r["m"] == r["n"] == r["k"] == size:
                name = r["path"].replace("kernel:", "")
                labels.append("%s  %s^3" % (name, size))
                vals.append(float(r["gflops"]) / 1000)
                colors.append("gray" if name == "cublas" else color)
    ax1.barh(labels, vals, color=colors)
    ax1.set_xlabel("TFLOP/s (FP16 in/out, FP32 accumulate)")
    ax1.set_title("HGEMM ladder, NN, H100")
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
    ax2.set_title("ratio to cublasGemmEx (>1: faster)")
    ax2.invert_yaxis()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
