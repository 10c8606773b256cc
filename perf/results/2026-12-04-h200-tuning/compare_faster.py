#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# compare_faster.py DIR BASE LATEST: per row, tilekit (mean of the runs' medians, both builds), CUB 3.0.1 (BASE.*),
# CUB 3.5 (LATEST.*, rows named cub_latest) and tilekit / the faster CUB.
import json, sys, glob, collections, statistics, lzma
d, base, latest = sys.argv[1:4]
vals = collections.defaultdict(list)
for nm in (base, latest):
    for f in glob.glob(f"{d}/{nm}.*.json") + glob.glob(f"{d}/{nm}.*.json.xz"):
        js = json.load(lzma.open(f, "rt") if f.endswith(".xz") else open(f))
        for b in js["benchmarks"]:
            if b.get("aggregate_name") != "median": continue
            parts = [p for p in b["run_name"].split("/") if not p.startswith("iterations") and p != "manual_time"]
            if len(parts) < 4: continue
            vals[("/".join(parts[:-1]), parts[-1])].append(b["real_time"])
keys = sorted({k for k, _ in vals}, key=lambda k: (k.split('/')[0], int(k.split('/')[2])))
print("%-44s %9s %9s %9s %7s" % ("row", "tilekit", "cub", "cub3.5", "ratio"))
for k in keys:
    t = vals.get((k, "tilekit")); c = vals.get((k, "cub")); l = vals.get((k, "cub_latest"))
    t = statistics.mean(t) if t else None; c = statistics.mean(c) if c else None; l = statistics.mean(l) if l else None
    best = min(x for x in (c, l) if x) if (c or l) else None
    print("%-44s %9.1f %9.1f %9.1f %7.3f" % (k, t/1e3, (c or 0)/1e3, (l or 0)/1e3, best / t if best and t else 0))
