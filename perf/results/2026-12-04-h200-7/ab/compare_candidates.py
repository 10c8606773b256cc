#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# compare_candidates.py DIR LATEST CAND...: per row, best CUB (cub rows from all CANDs' runs, cub_latest from LATEST) / tilekit of each CAND
import json, sys, glob, collections, statistics, lzma
d, latest, cands = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(nm):
    v = collections.defaultdict(list)
    for f in glob.glob(f"{d}/{nm}.*.json") + glob.glob(f"{d}/{nm}.*.json.xz"):
        for b in json.load(lzma.open(f, "rt") if f.endswith(".xz") else open(f))["benchmarks"]:
            if b.get("aggregate_name") != "median": continue
            parts = [p for p in b["run_name"].split("/") if not p.startswith("iterations") and p != "manual_time"]
            if len(parts) < 4: continue
            v[("/".join(parts[:-1]), parts[-1])].append(b["real_time"])
    return v
L = load(latest); C = {c: load(c) for c in cands}
keys = sorted({k for v in C.values() for k, _ in v}, key=lambda k: (k.split('/')[0], int(k.split('/')[2])))
print("%-40s %8s %8s " % ("row", "cub", "cub3.5") + " ".join("%9s" % c[-9:] for c in cands))
for k in keys:
    cubs = [x for c in cands for x in C[c].get((k, "cub"), [])]
    c = statistics.median(cubs) if cubs else 0
    l = statistics.mean(L.get((k, "cub_latest"), [0])) or 0
    best = min(x for x in (c, l) if x)
    print("%-40s %8.1f %8.1f " % (k, c/1e3, l/1e3) + " ".join("%9.3f" % (best / statistics.mean(C[x][(k, "tilekit")])) if C[x].get((k, "tilekit")) else "        -" for x in cands))
