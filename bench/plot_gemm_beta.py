#!/usr/bin/env python3
"""Plot bench_gemm_beta's CSV: each path's ratio to raw cublasGemmEx (same beta) per shape, one
panel per routine and beta (> 1: faster than raw cuBLAS). cublas-raw-sync, the raw call and a
synchronise, is auto's anchor on equal terms (a default-stream libmyblas call returns complete).
Usage: /usr/bin/python3 plot_gemm_beta.py RESULTS.csv OUT.png [DEVICE]   (DEVICE: default H100)"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"cublas-raw-sync": "tab:purple", "cublas-once": "tab:gray", "kernel": "tab:blue",
          "wsplit": "tab:green", "stream": "tab:olive", "auto": "tab:orange"}


def main():
    src, out = sys.argv[1], sys.argv[2]
    device = sys.argv[3] if len(sys.argv) > 3 else "H100"
    rows = list(csv.DictReader(line for line in open(src) if not line.startswith("#")))
    panels = []
    for r in rows:
        key = (r["routine"], r["beta"])
        if key not in panels:
            panels.append(key)
    fig, axes = plt.subplots(len(panels), 1, figsize=(14, 3.2 * len(panels)), squeeze=False)
    for ax, (routine, beta) in zip(axes[:, 0], panels):
        sel = [r for r in rows if r["routine"] == routine and r["beta"] == beta]
        shapes = []
        for r in sel:
            s = "%s %sx%sx%s" % (r["trans"], r["m"], r["n"], r["k"])
            if s not in shapes:
                shapes.append(s)
        paths = [p for p in COLORS if any(r["path"].split(":")[0] == p for r in sel)]
        width = 0.8 / max(1, len(paths))
        for pi, p in enumerate(paths):
            xs, ys = [], []
            for r in sel:
                if r["path"].split(":")[0] != p:
                    continue
                xs.append(shapes.index("%s %sx%sx%s" % (r["trans"], r["m"], r["n"], r["k"])) + pi * width)
                ys.append(float(r["ratio_vs_raw"]))
            ax.bar(xs, ys, width=width, color=COLORS[p], label=p)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(0.95, color="red", linewidth=0.6, linestyle="--")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(shapes))])
        ax.set_xticklabels(shapes, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("t(raw cuBLAS) / t")
        ax.set_title("%s, beta %s (%s, device pointers)" % (routine, beta, device), fontsize=9)
        ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
