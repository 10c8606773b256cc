# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Several builds' device benches side by side: each row's lowest median (us) over a build's rounds,
# the change against the first build, and each build's ratio to the fastest CUB seen in any process.
#   abn.py DIR NAME...   reads DIR/c_NAME<round>.json (or .json.xz), e.g. abn.py call1 old new w8 nocl
import glob, json, lzma, re, sys
from collections import defaultdict

def medians(paths):
    best = defaultdict(list)
    for p in paths:
        with (lzma.open if p.endswith('.xz') else open)(p, 'rt') as f:
            for b in json.load(f)['benchmarks']:
                if b.get('aggregate_name') == 'median':
                    best[re.sub(r'/iterations:\d+/manual_time.*', '', b['run_name'])].append(b['real_time'] / 1e3)
    return {k: min(v) for k, v in best.items()}

d, names = sys.argv[1], sys.argv[2:]
runs = {n: medians(sorted(glob.glob(f'{d}/c_{n}[0-9]*.json*'))) for n in names}
print('| row | ' + ' | '.join(f'{n} us' for n in names) + ' | CUB us | ' + ' | '.join(f'{n} / CUB' for n in names) + ' |')
print('|---' * (2 * len(names) + 2) + '|')
for row in runs[names[0]]:
    parts = row.split('/')
    if parts[-1] != 'tilekit' or not all(row in runs[n] for n in names): continue
    cub_row = '/'.join(parts[:-1] + ['cub'])
    cub = min(runs[n].get(cub_row, float('nan')) for n in names)
    base = runs[names[0]][row]
    cells = [f'{runs[names[0]][row]:.2f}'] + [f'{runs[n][row]:.2f} ({100 * (runs[n][row] / base - 1):+.1f}%)' for n in names[1:]]
    print(f'| {"/".join(parts[:-1])} | ' + ' | '.join(cells) + f' | {cub:.2f} | ' + ' | '.join(f'{cub / runs[n][row]:.2f}' for n in names) + ' |')
