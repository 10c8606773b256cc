#!/usr/bin/env python3
"""Ratio table from device_bench's JSON (Google Benchmark, medians of repetitions).

  perf/device_report.py perf/results/<date>-h200-device_bench.json

Per algorithm and size: tilekit's time, its ratio to CUB and Thrust (>1: tilekit
faster), and its bandwidth as % of the best measured limit of the same size
(the faster of copy and streaming read for reduce and histograms, copy for the
others; it can pass
100% where an algorithm reads faster than the simple limit kernels).
"""
import collections
import json
import sys


def main(path):
    data = json.load(open(path))
    med = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            name = b["run_name"].replace("/manual_time", "").replace("/iterations:25", "")
            med[name] = b
    rows = collections.OrderedDict()
    for name, b in med.items():
        parts = name.split("/")
        if parts[0].startswith("device_"):
            rows.setdefault((parts[0][7:], parts[1], int(parts[2])), {})[parts[3]] = b
    print(f"# {path}: {data['context'].get('date', '')}\n")
    print("| algorithm | items | tilekit µs | / CUB | / Thrust | tilekit GB/s | % of limit |")
    print("|---|---|---|---|---|---|---|")
    for (algo, ty, log_n), impls in rows.items():
        tk, cub, th = impls["tilekit"], impls.get("cub"), impls.get("thrust")
        copy = med[f"limit/copy/{log_n}"]["GBps"]
        read = med[f"limit/read/{log_n}"]["GBps"]
        limit = max(copy, read) if algo == "reduce" or algo.startswith("histogram") else copy
        vs_thrust = f"{th['real_time'] / tk['real_time']:.2f}" if th else "-"
        print(f"| {algo} {ty} | 2^{log_n} | {tk['real_time'] / 1e3:.2f} | {cub['real_time'] / tk['real_time']:.2f} | "
              f"{vs_thrust} | {tk['GBps']:.0f} | {100 * tk['GBps'] / limit:.0f}% |")


if __name__ == "__main__":
    main(sys.argv[1])
