#!/usr/bin/env python3
"""Tables and a plot from bench_batched's CSV files (bench/run_batched_gpu.sh writes them).

Usage: /usr/bin/python3 bench/plot_batched.py OUT_PREFIX FILE.csv [FILE.csv ...]
Writes OUT_PREFIX.md (one table per kind: every row with its ratio to the anchor measured in the
same process: cuBLAS's strided-batched call for device operands, the loop of OpenBLAS sgemm_ or
dgemm_ calls for host arrays; and, per device row, pointer arrays beside the strided form) and, when
matplotlib is there, OUT_PREFIX.png (device: ratio to cuBLAS against n per type and backend; host:
ratio to the OpenBLAS loop per type and path)."""
import csv
import sys
from collections import defaultdict


def read(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            rows += list(csv.DictReader(line for line in f if not line.startswith("#")))
    return rows


def tables(rows):
    out = []
    dev = [r for r in rows if r["kind"] == "device"]
    floors = [r for r in rows if r["kind"] == "floor"]
    if floors:
        out.append("## Device-to-device copy (cudaMemcpy, bytes read + written): the memory floor\n")
        for r in floors:
            out.append("- %s run: %.0f GB/s (%.1f us)" % (r["backend"], float(r["gbps"]), float(r["us"])))
        out.append("")
    if dev:
        out.append("## Device operands: square n, beta = 0, batch ~256 MB per operand\n")
        out.append("| backend | type | n | count | path | us | GB/s (floor bytes) | TFLOP/s | x cuBLAS | "
                   "pointers / strided time |")
        out.append("|---|---|---:|---:|---|---:|---:|---:|---:|---:|")
        strided = {(r["backend"], r["type"], r["n"]): float(r["us"]) for r in dev
                   if r["path"] == "myblas-batch-strided"}
        for r in dev:
            ptr = ""
            if r["path"] == "myblas-batch-pointers":
                s = strided.get((r["backend"], r["type"], r["n"]))
                ptr = "%.3f" % (float(r["us"]) / s) if s else ""
            out.append("| %s | %s | %s | %s | %s | %.1f | %.0f | %.2f | %.3f | %s |" % (
                r["backend"], r["type"], r["n"], r["count"], r["path"], float(r["us"]), float(r["gbps"]),
                float(r["tflops"]), float(r["ratio_vs_anchor"]), ptr))
    grp = [r for r in rows if r["kind"] == "group"]
    if grp:
        out.append("\n## Groups of two sizes (FP32, n = 16 and 32, 64 MB per operand each)\n")
        out.append("| backend | path | us | x two raw cuBLAS calls |")
        out.append("|---|---|---:|---:|")
        for r in grp:
            out.append("| %s | %s | %.1f | %.3f |" % (r["backend"], r["path"], float(r["us"]),
                                                   float(r["ratio_vs_anchor"])))
    host = [r for r in rows if r["kind"] == "host"]
    if host:
        out.append("\n## Host arrays: n^3 products\n")
        out.append("| backend | type | n | count | path | ms | TFLOP/s | x OpenBLAS loop |")
        out.append("|---|---|---:|---:|---|---:|---:|---:|")
        for r in host:
            out.append("| %s | %s | %s | %s | %s | %.2f | %.2f | %.3f |" % (
                r["backend"], r["type"], r["n"], r["count"], r["path"], float(r["us"]) / 1e3, float(r["tflops"]),
                float(r["ratio_vs_anchor"])))
        # The better of CPU and GPU per type and size, and each backend's strided call against it.
        best = defaultdict(lambda: float("inf"))
        for r in host:
            if r["path"].startswith("myblas-batch-strided"):
                best[(r["type"], r["n"])] = min(best[(r["type"], r["n"])], float(r["us"]))
        out.append("\n| backend | type | n | strided call / best of the backends |")
        out.append("|---|---|---:|---:|")
        for r in host:
            if r["path"].startswith("myblas-batch-strided"):
                out.append("| %s | %s | %s | %.3f |" % (r["backend"], r["type"], r["n"],
                                                       best[(r["type"], r["n"])] / float(r["us"])))
    bad = [r for r in rows if float(r["verify_err"]) > 1.0]
    if bad:
        out.append("\nVERIFICATION FAILED in %d rows: %s" % (len(bad), ", ".join(
            "%s %s n=%s %s" % (r["backend"], r["type"], r["n"], r["path"]) for r in bad)))
    return "\n".join(out) + "\n"


def plot(rows, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not found: no plot")
        return
    dev = [r for r in rows if r["kind"] == "device" and r["path"].startswith("myblas")]
    host = [r for r in rows if r["kind"] == "host"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    ax = axes[0]
    series = defaultdict(list)
    for r in dev:
        series[(r["type"], r["backend"], r["path"])].append((int(r["n"]), float(r["ratio_vs_anchor"])))
    for (t, b, p), pts in sorted(series.items()):
        pts.sort()
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker="o" if "strided" in p else "x",
                label="%s %s %s" % (t.upper(), b, p.replace("myblas-batch-", "")))
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (square products, ~256 MB per operand)")
    ax.set_ylabel("time of cuBLAS strided-batched / ours")
    ax.set_title("Device operands: ratio to cublas<T>gemmStridedBatched")
    ax.legend(fontsize=6)
    ax = axes[1]
    mine = [r for r in host if r["path"].startswith("myblas")]
    labels = ["%s %s n=%s %s" % (r["type"].upper(), r["backend"], r["n"], r["path"]) for r in mine]
    ax.barh(labels, [float(r["ratio_vs_anchor"]) for r in mine])
    ax.axvline(1.0, color="gray", lw=0.8)
    ax.axvline(3.0, color="tab:red", lw=0.8, ls="--")
    ax.set_xlabel("time of a loop of OpenBLAS ?gemm_ / ours (dashed: 3x)")
    ax.set_title("Host arrays, 10^4 products")
    ax.tick_params(axis="y", labelsize=6)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    prefix, paths = sys.argv[1], sys.argv[2:]
    rows = read(paths)
    text = tables(rows)
    with open(prefix + ".md", "w") as f:
        f.write(text)
    print(text)
    plot(rows, prefix + ".png")


if __name__ == "__main__":
    main()
