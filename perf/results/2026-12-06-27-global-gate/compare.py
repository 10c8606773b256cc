# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The A/B tables of this folder's README: python3 compare.py call1 (or call2). Per row, the lowest of a binary's
# rounds' medians, us: v_old* is main's (8afe169), v_new* the variant of that call (call1: early relaxed global add,
# fence at the merge; call2: one acquire add at the merge), v_load* (call1) the early add with an acquire load at the
# merge. Ratios are against the faster CUB: 3.0.1's rows of every file and 3.5's of v_latest*.
import collections, glob, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
import device_report  # perf/device_report.py: load() reads a JSON or JSON.xz into medians by row name


def medians(path):
    unit = {'ns': 1e-3, 'us': 1.0, 'ms': 1e3}
    return {name: b['real_time'] * unit[b['time_unit']] for name, b in device_report.load(path)[1].items()}


folder = sys.argv[1] if len(sys.argv) > 1 else 'call1'
sides = {s: collections.defaultdict(list) for s in ('old', 'new', 'load')}
cub = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(folder, 'v_*.json.xz'))):
    side = re.match(r'v_([a-z]+)', os.path.basename(path)).group(1)  # v_old2.json.xz: old
    for name, us in medians(path).items():
        if '/tilekit' in name and side in sides:
            sides[side][name.replace('/tilekit', '')].append(us)
        elif '/cub' in name:
            cub[name.replace('/cub_latest', '').replace('/cub', '')].append(us)
shown = [s for s in ('new', 'load') if sides[s]]
print('| row | n | main us | ' + ' | '.join(f'{s} us | {s} change' for s in shown) + ' | main / CUB | ' +
      ' | '.join(f'{s} / CUB' for s in shown) + ' |')
print('|---|---|---|' + '---|---|' * len(shown) + '---|' + '---|' * len(shown))
for name in sorted(sides['old'], key=lambda k: (k.split('/')[0], int(k.split('/')[2]))):
    o, c = min(sides['old'][name]), min(cub[name])
    v = {s: min(sides[s][name]) for s in shown}
    row, _, log = name.split('/')
    print(f'| {row.replace("device_", "")} | 2^{log} | {o:.2f} | ' +
          ' | '.join(f'{v[s]:.2f} | {(v[s] / o - 1) * 100:+.1f}%' for s in shown) + f' | {c / o:.2f} | ' +
          ' | '.join(f'{c / v[s]:.2f}' for s in shown) + ' |')
