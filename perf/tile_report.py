#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Ratio tables from tile_bench's, block_bench's or cluster_bench's JSON (Google
Benchmark, medians of repetitions).

  perf/tile_report.py perf/results/<date>-h200/tile_bench.json

Prints, per case (operation, type, sizes): tilekit's throughput and its ratio to each
other implementation measured in the same run (>1: tilekit faster). Where every
variant of a case is tilekit's (cluster_bench: the cluster rung against the block
level plus global memory), the first one registered is compared with the others and
named in the case column.
"""
import collections
import json
import lzma
import sys


def medians(path):
    data = json.load(lzma.open(path, "rt") if path.endswith(".xz") else open(path))  # results keep their JSON xz-compressed
    out = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"].replace("/manual_time", "")] = b["Gops"]
    return data["context"], out


def main(path):
    context, med = medians(path)
    groups = collections.OrderedDict()
    for name, value in med.items():
        parts = name.split("/")
        groups.setdefault("/".join(parts[:-1]), {})[parts[-1]] = value
    print(f"# {path}: {context.get('date', '')}, medians of {context.get('num_cpus', '?')}-core host runs\n")
    print("| case | tilekit G ops/s | ratios (tilekit / other) |")
    print("|---|---|---|")
    for case, impls in groups.items():
        key = next((k for k in ("tilekit", "histogram") if k in impls), None)
        label = case
        if key is None:  # tilekit's variants only: the first against the rest
            key = next(iter(impls))
            label = f"{case} ({key})"
        ours = impls[key]
        others = [f"{k} {ours / v:.2f}" for k, v in impls.items() if k != key and k != "histogram" and v > 0]
        print(f"| {label} | {ours:.4g} | {', '.join(others)} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "perf/results/tile_bench.json")
