#!/usr/bin/env python3
"""Ratio table and plots from device_bench's JSON (Google Benchmark, medians of repetitions).

  perf/device_report.py perf/results/<date>-h200-device_bench.json [--plots DIR]

Per algorithm and size: tilekit's time, its ratio to CUB and Thrust (>1: tilekit
faster), and its bandwidth as % of the best measured limit of the same size
(the faster of copy and streaming read for reduce and histograms, copy for the
others; it can pass 100% where an algorithm reads faster than the simple limit
kernels). With --plots, one PNG per algorithm (needs matplotlib, Debian:
python3-matplotlib): bandwidth against size for tilekit, CUB, Thrust and the limit.
"""
import argparse
import collections
import json
import os


def load(path):
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
            rows.setdefault((parts[0][7:], parts[1]), collections.OrderedDict()).setdefault(int(parts[2]), {})[parts[3]] = b
    return data["context"], med, rows


def limit_of(med, algo, log_n):
    copy = med[f"limit/copy/{log_n}"]["GBps"]
    read = med[f"limit/read/{log_n}"]["GBps"]
    reads = algo in ("reduce", "argmin", "distinct") or algo.startswith("histogram")
    return max(copy, read) if reads else copy


def table(path, med, rows, context):
    print(f"# {path}: {context.get('date', '')}\n")
    print("| algorithm | items | tilekit µs | / CUB | / Thrust | tilekit GB/s | % of limit |")
    print("|---|---|---|---|---|---|---|")
    for (algo, ty), sizes in rows.items():
        for log_n, impls in sizes.items():
            tk, cub, th = impls["tilekit"], impls.get("cub"), impls.get("thrust")
            vs_thrust = f"{th['real_time'] / tk['real_time']:.2f}" if th else "-"
            vs_cub = f"{cub['real_time'] / tk['real_time']:.2f}" if cub else "-"
            print(f"| {algo} {ty} | 2^{log_n} | {tk['real_time'] / 1e3:.2f} | {vs_cub} | "
                  f"{vs_thrust} | {tk['GBps']:.0f} | {100 * tk['GBps'] / limit_of(med, algo, log_n):.0f}% |")


def plots(directory, med, rows, context):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    for (algo, ty), sizes in rows.items():
        logs = list(sizes)
        fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
        for impl, style in (("tilekit", "o-"), ("cub", "s--"), ("thrust", "^:")):
            if all(impl in sizes[n] for n in logs):
                ax.plot(logs, [sizes[n][impl]["GBps"] for n in logs], style, label=impl)
        ax.plot(logs, [limit_of(med, algo, n) for n in logs], "k-", linewidth=0.8, label="measured limit")
        ax.set_xlabel("items (log2)")
        ax.set_ylabel("GB/s moved (algorithm bytes / time)")
        ax.set_title(f"device {algo}, {ty}, H200, L2 flushed")
        ax.set_xticks(logs)
        ax.set_yscale("log")  # small sizes are latency, large ones bandwidth: both visible
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        out = os.path.join(directory, f"device_{algo}_{ty}.png")
        fig.savefig(out)
        plt.close(fig)
        print(f"wrote {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--plots", metavar="DIR")
    args = parser.parse_args()
    context, med, rows = load(args.json)
    if args.plots:
        plots(args.plots, med, rows, context)
    else:
        table(args.json, med, rows, context)


if __name__ == "__main__":
    main()
