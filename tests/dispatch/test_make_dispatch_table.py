#!/usr/bin/env python3
"""bench/make_dispatch_table.py's host rows from paired runs (bench_host_l3 --paired): one crossover
per routine, placed where the measured times lose least with each size's loss capped at 2x; sizes
where one setting was not run get no row; the ratio column stays the measured t_cpu / t_gpu.
usage: test_make_dispatch_table.py ROOT"""
import importlib.util
import os
import sys
import tempfile

root = sys.argv[1]
spec = importlib.util.spec_from_file_location("mdt", os.path.join(root, "bench", "make_dispatch_table.py"))
mdt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mdt)

failures = []


def check(name, got, want):
    if got != want:
        failures.append("%s: got %r, want %r" % (name, got, want))


def rows_for(lines):
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write("# paired test data (sm_90)\n")
        f.write("paired,routine,n,auto_ms,cpu_ms,gpu_ms,auto_path,ratio,q1,q3\n")
        for routine, n, cpu, gpu in lines:
            f.write("paired,%s,%d,0,%s,%s,cpu,1,1,1\n" % (routine, n, cpu, gpu))
        path = f.name
    try:
        return mdt.host_rows([path])
    finally:
        os.unlink(path)


def paths(rows, routine):
    return [(r[3], r[7]) for r in rows if r[0] == routine]


# A clean series: the CPU up to 256, the GPU from 512 on.
rows = rows_for([("dsyrk", 128, 0.1, 0.3), ("dsyrk", 256, 0.3, 0.5), ("dsyrk", 512, 1.0, 0.6),
                 ("dsyrk", 1024, 4.0, 1.2)])
check("clean series", paths(rows, "dsyrk"),
      [(128, "cpu"), (256, "cpu"), (512, "cublas"), (1024, "cublas")])
check("ratio column is measured", [round(r[10], 6) for r in rows], [round(0.1 / 0.3, 6), 0.6, round(1.0 / 0.6, 6),
                                                                      round(4.0 / 1.2, 6)])
check("time of the chosen path", [round(r[9], 3) for r in rows], [100.0, 300.0, 600.0, 1200.0])

# One wild measurement at the smallest size (the CPU 40x slower once) does not move the crossover
# below four sizes where the CPU won.
rows = rows_for([("dsymm", 64, 6.2, 0.13), ("dsymm", 128, 0.05, 0.2), ("dsymm", 181, 0.12, 0.23),
                 ("dsymm", 256, 0.16, 0.59), ("dsymm", 362, 0.42, 0.55), ("dsymm", 724, 1.9, 0.97)])
check("outlier capped", [p for _, p in paths(rows, "dsymm")], ["cpu"] * 5 + ["cublas"])

# A size where one setting was not run ("-") gets no row; GEMV rows have k = 0.
rows = rows_for([("zgemv", 64, 0.006, 0.08), ("zgemv", 128, 0.0066, "-")])
check("dash skipped", [(r[3], r[5], r[7]) for r in rows], [(64, 0, "cpu")])

# Only the GPU side ever faster: GPU from the first size.
rows = rows_for([("cgemm", 64, 0.2, 0.1), ("cgemm", 128, 0.5, 0.2)])
check("all GPU", [p for _, p in paths(rows, "cgemm")], ["cublas", "cublas"])

for f in failures:
    print("FAIL", f)
print("%d checks failed" % len(failures) if failures else "all checks passed")
sys.exit(1 if failures else 0)
