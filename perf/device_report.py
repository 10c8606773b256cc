#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Ratio table and plots from device_bench's JSON (Google Benchmark, medians of repetitions).

  perf/device_report.py perf/results/<date>-h200-device_bench.json [--latest LATEST.json] [--plots DIR]

--latest: the same bench built against a second CCCL (perf/run's *_cub_latest.json); its
cub_latest rows join the main JSON's (its other rows are ignored: the main binary has them).
Per algorithm and size: tilekit's time, its ratio to the toolkit's CUB (cub), to the
second CUB (cub_latest), to the faster of the two (best CUB: the one to beat; cub alone
without --latest) and to Thrust (>1: tilekit faster; - where absent), and its bandwidth
as % of the best measured limit of the same size (the faster of copy and streaming read
for reduce and histograms, copy for the others; it can pass 100% where an algorithm
reads faster than the simple limit kernels). The CUB columns are named by the versions
the JSON's context records (cub_version). With --plots, one PNG per algorithm (needs matplotlib, Debian:
python3-matplotlib): bandwidth against size for tilekit, both CUBs, Thrust and the limit.
"""
import argparse
import collections
import json
import lzma
import os


def load(path):
    data = json.load(lzma.open(path, "rt") if path.endswith(".xz") else open(path))  # results keep their JSON xz-compressed
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


def merge_latest(rows, latest_rows):
    """Adds latest_rows' cub_latest entries to the rows (algorithm, type and size) of the main JSON."""
    for key, sizes in latest_rows.items():
        for log_n, impls in sizes.items():
            if "cub_latest" in impls and log_n in rows.get(key, {}):
                rows[key][log_n]["cub_latest"] = impls["cub_latest"]


def cub_names(context, latest_context):
    """Column names of the two CUBs: their versions where the JSON's context records them."""
    return (f"CUB {context['cub_version']}" if "cub_version" in context else "CUB",
            f"CUB {latest_context['cub_version']}" if "cub_version" in latest_context else "CUB latest")


def limit_of(med, algo, log_n):
    copy = med[f"limit/copy/{log_n}"]["GBps"]
    read = med[f"limit/read/{log_n}"]["GBps"]
    reads = algo in ("reduce", "argmin") or algo.startswith(("histogram", "distinct"))
    return max(copy, read) if reads else copy


def table(title, med, rows, names):
    print(f"# {title}\n")
    print(f"| algorithm | items | tilekit µs | / {names[0]} | / {names[1]} | / best CUB | / Thrust | tilekit GB/s | % of limit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (algo, ty), sizes in rows.items():
        for log_n, impls in sizes.items():
            tk = impls["tilekit"]
            cubs = [impls[i] for i in ("cub", "cub_latest") if i in impls]
            best = min(cubs, key=lambda b: b["real_time"]) if cubs else None
            ratios = [f"{o['real_time'] / tk['real_time']:.2f}" if o else "-"
                      for o in (impls.get("cub"), impls.get("cub_latest"), best, impls.get("thrust"))]
            print(f"| {algo} {ty} | 2^{log_n} | {tk['real_time'] / 1e3:.2f} | {' | '.join(ratios)} | "
                  f"{tk['GBps']:.0f} | {100 * tk['GBps'] / limit_of(med, algo, log_n):.0f}% |")


def plots(directory, med, rows, names):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(directory, exist_ok=True)
    for (algo, ty), sizes in rows.items():
        logs = list(sizes)
        fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
        for impl, style, label in (("tilekit", "o-", "tilekit"), ("cub", "s--", names[0]),
                                   ("cub_latest", "d-.", names[1]), ("thrust", "^:", "Thrust")):
            if all(impl in sizes[n] for n in logs):
                ax.plot(logs, [sizes[n][impl]["GBps"] for n in logs], style, label=label)
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
    parser.add_argument("--latest", metavar="JSON", help="the same bench against a second CCCL (cub_latest rows)")
    parser.add_argument("--plots", metavar="DIR")
    args = parser.parse_args()
    context, med, rows = load(args.json)
    latest_context = {}
    title = f"{args.json}: {context.get('date', '')}"
    if args.latest:
        latest_context, _, latest_rows = load(args.latest)
        merge_latest(rows, latest_rows)
        title = f"{args.json} + {args.latest}: {context.get('date', '')}"
    names = cub_names(context, latest_context)
    if args.plots:
        plots(args.plots, med, rows, names)
    else:
        table(title, med, rows, names)


if __name__ == "__main__":
    main()
