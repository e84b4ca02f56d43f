#!/usr/bin/env python3
"""Checks that bench/results stays indexed and that the docs cite only files that are there:
every entry of bench/results (a file, or a folder such as dispatch-sm_90/) has its line in
bench/results/README.md, every file the index names exists, and every result file named in
README.md and docs/*.md exists in bench/results (or one of its folders).
usage: check_results_index.py SOURCE_DIR"""
import glob
import os
import re
import sys

root = sys.argv[1]
results = os.path.join(root, "bench", "results")
index = open(os.path.join(results, "README.md")).read()
problems = []
for entry in sorted(os.listdir(results)):
    if entry == "README.md":
        continue
    name = entry + "/" if os.path.isdir(os.path.join(results, entry)) else entry
    if "`%s`" % name not in index:
        problems.append("bench/results/%s has no line in bench/results/README.md" % name)
for name in re.findall(r"`([A-Za-z0-9][A-Za-z0-9._-]*\.(?:csv|md|png|txt))`", index):
    if not os.path.exists(os.path.join(results, name)):
        problems.append("bench/results/README.md names %s, which is not there" % name)
cited_in = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
result_name = re.compile(r"\b([a-z][a-z0-9]*\d{3}-[A-Za-z0-9._-]*\d{4}-\d{2}-\d{2}[A-Za-z0-9._-]*\.(?:csv|md|png|txt))")
for path in cited_in:
    for name in sorted(set(result_name.findall(open(path).read()))):
        here = [os.path.join(results, name)] + glob.glob(os.path.join(results, "*", name))
        if not any(os.path.exists(p) for p in here):
            problems.append("%s cites %s, which is not in bench/results" % (os.path.relpath(path, root), name))
for p in problems:
    print("check_results_index:", p)
sys.exit(1 if problems else 0)
