# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The A/B table of this folder's README: per row, the lowest of the three rounds' medians for 52bf9ee's binary
# (v_old*) and the one-word gate's (v_new*), and each against the faster CUB (3.0.1's rows of every file and
# 3.5's of v_latest*). Run from this folder: python3 compare.py
import collections, glob, json, lzma


def medians(path):
    with lzma.open(path) as f:
        d = json.load(f)
    unit = {'ns': 1e-3, 'us': 1.0, 'ms': 1e3}
    return {b['run_name'].replace('/iterations:25/manual_time', ''): b['real_time'] * unit[b['time_unit']]
            for b in d['benchmarks'] if b.get('aggregate_name') == 'median'}


old, new, cub = (collections.defaultdict(list) for _ in range(3))
for path in glob.glob('call*/v_*.json.xz'):
    side = old if '/v_old' in path else new
    for name, us in medians(path).items():
        if '/tilekit' in name:
            side[name.replace('/tilekit', '')].append(us)
        elif '/cub' in name:
            cub[name.replace('/cub_latest', '').replace('/cub', '')].append(us)
print('| row | n | 52bf9ee us | one-word gate us | change | 52bf9ee / best CUB | gate / best CUB |')
print('|---|---|---|---|---|---|---|')
for name in sorted(new, key=lambda k: (k.split('/')[0], int(k.split('/')[2]))):
    o, n, c = min(old[name]), min(new[name]), min(cub[name])
    row, _, log = name.split('/')
    print(f'| {row.replace("device_", "")} | 2^{log} | {o:.2f} | {n:.2f} | {(n / o - 1) * 100:+.1f}% | {c / o:.2f} | {c / n:.2f} |')
