#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# compare.py DIR NAME...: for each DIR/NAME.*.json or .json.xz (repeated runs NAME.1.json, NAME.2.json), the median time per row;
# prints per benchmark (algo/type/log) tilekit time and cub/tilekit ratio for each NAME.
import json, lzma, sys, glob, statistics, collections
d = sys.argv[1]; names = sys.argv[2:]
rows = collections.defaultdict(dict)
for nm in names:
    vals = collections.defaultdict(list)
    for f in sorted(glob.glob(f"{d}/{nm}.*.json") + glob.glob(f"{d}/{nm}.*.json.xz")):
        try: js = json.load(lzma.open(f, "rt") if f.endswith(".xz") else open(f))
        except Exception as e: print("bad", f, e); continue
        for b in js["benchmarks"]:
            if b.get("aggregate_name") not in (None, "median"): continue
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median": continue
            vals[b["run_name"] if "run_name" in b else b["name"]].append(b["real_time"])
    for k, v in vals.items():
        parts = [p for p in k.split("/") if not p.startswith("iterations") and p != "manual_time"]
        key = "/".join(parts[:-1]); impl = parts[-1]
        rows[key].setdefault(nm, {})[impl] = statistics.median(v)
print("%-40s" % "row" + "".join("%18s" % n for n in names))
for key in sorted(rows, key=lambda k: (k.split('/')[0], k.split('/')[1], int(k.split('/')[2]) if k.split('/')[2].isdigit() else 0)):
    line = "%-40s" % key
    for nm in names:
        r = rows[key].get(nm, {})
        t = r.get("tilekit"); c = r.get("cub") or r.get("cub_latest")
        line += "%18s" % (("%.1fus %.3f" % (t / 1000, c / t)) if t and c else "-")  # real_time is in ns
    print(line)
