#!/usr/bin/env bash
# Issue 18: a time window of a big recording read alone. Prints, for rsp-summary --tasks (the model), the whole
# recording against --range T0:T1 (the window and 100 ms on each side) with and without FILE.rsp-index, and
# rsp-dump --stats against rsp-dump --stats --window: wall time (best of RUNS) and peak RSS.
# Usage: bench/window-load.sh FILE [T0:T1] [RUNS]   (default range 10s:10.5s, 3 runs; the index is written
# beside FILE, in a copy's directory when FILE's is read-only; the first windowed run builds it)
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: bench/window-load.sh FILE [T0:T1] [RUNS]}
range=${2:-10s:10.5s}
runs=${3:-3}
build=${RSP_BUILD:-build}
[ -x $build/src/tools/rsp-summary ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
python3 - "$build" "$file" "$range" "$runs" <<'PY'
import os, subprocess, sys
sys.path.insert(0, 'bench')
build, path, rng, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
summary, dump = f'{build}/src/tools/rsp-summary', f'{build}/src/tools/rsp-dump'

from measure import measure  # bench/measure.py

def seconds(text):
    for unit, mult in (('ns', 1), ('us', 1e3), ('ms', 1e6), ('s', 1e9)):
        if text.endswith(unit):
            return int(float(text[:-len(unit)]) * mult)
    return int(float(text) * 1e9)

t0, t1 = (seconds(x) for x in rng.split(':'))
index = path + '.rsp-index'
if os.path.exists(index):
    os.unlink(index)
size = os.path.getsize(path)
print(f'{path}: {size / 1e6:.0f} MB, --range {rng}')
rows = [
    ('rsp-summary --tasks (whole)', [summary, '--tasks', path], runs),
    ('rsp-summary --tasks --range, no index', [summary, '--tasks', '--no-index', '--range', rng, path], runs),
    ('rsp-summary --tasks --range, writing the index', [summary, '--tasks', '--range', rng, path], 1),
    ('rsp-summary --tasks --range, with the index', [summary, '--tasks', '--range', rng, path], runs),
    ('rsp-dump --stats (whole)', [dump, '--stats', path], runs),
    ('rsp-dump --stats --window, with the index', [dump, '--stats', f'--window=+{t0}:{t1}', path], runs),
]
for name, cmd, n in rows:
    wall, rss = measure(cmd, n)
    print(f'{name:50s} {wall:8.2f} s {rss / 1024:8.0f} MB')
print('index:', f'{os.path.getsize(index) / 1e3:.0f} kB' if os.path.exists(index) else 'not written')
PY
