# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# A/B of two builds' device benches: medians per row, each side's lowest median over its rounds.
#   ab.py DIR PREFIX   reads DIR/PREFIX_old*.json and DIR/PREFIX_new*.json (or .json.xz)
import glob, json, lzma, re, sys
from collections import defaultdict

def load(path):
    opener = lzma.open if path.endswith('.xz') else open
    with opener(path, 'rt') as f:
        return json.load(f)['benchmarks']

def medians(paths):
    best = defaultdict(list)
    for p in paths:
        for b in load(p):
            if b.get('aggregate_name') != 'median': continue
            name = re.sub(r'/iterations:\d+/manual_time.*', '', b['run_name'])
            best[name].append(b['real_time'] / 1e3)  # us
    return best

d, prefix = sys.argv[1], sys.argv[2]
old = medians(sorted(glob.glob(f'{d}/{prefix}_old*.json*')))
new = medians(sorted(glob.glob(f'{d}/{prefix}_new*.json*')))
print(f'| row | old us | new us | change | CUB us (old / new run) | old / CUB | new / CUB |')
print('|---|---|---|---|---|---|---|')
for name in new:
    parts = name.split('/')
    if parts[-1] != 'tilekit' or name not in old: continue
    cub = '/'.join(parts[:-1] + ['cub'])
    o, n = min(old[name]), min(new[name])
    co, cn = min(old.get(cub, [float('nan')])), min(new.get(cub, [float('nan')]))
    c = min(co, cn)
    print(f'| {"/".join(parts[:-1])} | {o:.2f} | {n:.2f} | {100 * (n / o - 1):+.1f}% | {co:.2f} / {cn:.2f} | {c / o:.2f} | {c / n:.2f} |')
