#!/usr/bin/env python3
"""Plot and tabulate bench_sgemm_tf32x3's CSVs: speed ratio to cuBLAS FP32 SGEMM per shape, and
the error ratio to FP32 SGEMM against k for each kind of data, for the precision mode and the
cuBLAS-composed variant. Usage:
  plot_sgemm_tf32x3.py SPEED.csv ACCURACY.csv OUT.png [DEVICE]   (writes the plot, prints markdown
  tables; DEVICE names the GPU in the title, default H100)"""
import csv
import sys


def rows(path):
    lines = [l for l in open(path) if not l.startswith("#")]
    return list(csv.DictReader(lines))


def main():
    speed, acc, out = rows(sys.argv[1]), rows(sys.argv[2]), sys.argv[3]
    device = sys.argv[4] if len(sys.argv) > 4 else "H100"
    shapes, table = [], {}
    for r in speed:
        key = "%s %sx%sx%s" % (r["trans"], r["m"], r["n"], r["k"])
        if key not in table:
            shapes.append(key)
            table[key] = {}
        table[key][r["path"]] = r
    print("| shape | cuBLAS FP32 us | mode (ours) us | ratio | composed (cuBLAS TF32) us | ratio | split us |")
    print("|---|---|---|---|---|---|---|")
    for key in shapes:
        t = table[key]
        print("| %s | %.1f | %.1f | %.2fx | %.1f | %.2fx | %.1f |" % (
            key, float(t["cublas_fp32"]["time_us"]), float(t["myblas_tf32x3"]["time_us"]),
            float(t["myblas_tf32x3"]["ratio_vs_cublas_fp32"]), float(t["composed_cublas_tf32x3"]["time_us"]),
            float(t["composed_cublas_tf32x3"]["ratio_vs_cublas_fp32"]), float(t["split_only"]["time_us"])))
    print()
    print("| data | m=n | k | FP32 max / median | mode max / median (ratio) | composed max / median (ratio) |")
    print("|---|---|---|---|---|---|")
    cases, by = [], {}
    for r in acc:
        key = (r["kind"], r["m"], r["k"])
        if key not in by:
            cases.append(key)
            by[key] = {}
        by[key][r["path"]] = r
    for key in cases:
        b = by[key]
        f, o, c = b["cublas_fp32"], b["myblas_tf32x3"], b["composed_cublas_tf32x3"]
        print("| %s | %s | %s | %s / %s | %s / %s (%.2f / %.2f) | %s / %s (%.2f / %.2f) |" % (
            key[0], key[1], key[2], f["max_err"], f["median_err"], o["max_err"], o["median_err"],
            float(o["max_ratio_to_fp32"]), float(o["median_ratio_to_fp32"]), c["max_err"], c["median_err"],
            float(c["max_ratio_to_fp32"]), float(c["median_ratio_to_fp32"])))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 5.5))
    ys = range(len(shapes))
    ax1.barh([y - 0.2 for y in ys], [float(table[k]["myblas_tf32x3"]["ratio_vs_cublas_fp32"]) for k in shapes],
             height=0.4, label="mode: split + our wgmma product (promoted sums)", color="tab:blue")
    ax1.barh([y + 0.2 for y in ys], [float(table[k]["composed_cublas_tf32x3"]["ratio_vs_cublas_fp32"]) for k in shapes],
             height=0.4, label="composed: split + cuBLAS TF32 product", color="tab:gray")
    ax1.axvline(1.0, color="black", lw=0.8)
    ax1.axvline(2.0, color="tab:red", lw=0.8, ls="--")
    ax1.set_yticks(list(ys))
    ax1.set_yticklabels(shapes, fontsize=8)
    ax1.invert_yaxis()
    ax1.set_xlabel("speed / cublasSgemm (FP32), same process")
    ax1.legend(fontsize=8, loc="lower right")
    ax1.set_title("3xTF32 SGEMM on the %s, device pointers" % device)
    colors = {"uniform": "tab:blue", "spread": "tab:orange", "cancel": "tab:green"}
    for kind, col in colors.items():
        ks = [key for key in cases if key[0] == kind and key[1] == "1024"]
        x = [int(key[2]) for key in ks]
        ax2.plot(x, [float(by[key]["myblas_tf32x3"]["max_ratio_to_fp32"]) for key in ks], "-o", color=col,
                 label="%s, mode" % kind)
        ax2.plot(x, [float(by[key]["composed_cublas_tf32x3"]["max_ratio_to_fp32"]) for key in ks], "--s",
                 color=col, alpha=0.6, label="%s, composed" % kind)
    ax2.axhline(2.0, color="tab:red", lw=0.8, ls="--")
    ax2.set_xscale("log", base=2)
    ax2.set_yscale("log", base=2)
    ax2.set_xlabel("k (m = n = 1024)")
    ax2.set_ylabel("largest error / FP32 SGEMM's (e = |C - C64| / |A||B|)")
    ax2.legend(fontsize=7, ncol=2)
    ax2.set_title("accuracy against FP64")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
