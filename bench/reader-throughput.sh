#!/usr/bin/env bash
# Reader speed beside perf script, on the same large recording, measured in one run.
# Usage: bench/reader-throughput.sh [SECONDS_OF_PINGPONG] (default 6: at least 1M events with stacks)
# Makes bench/out/large.data (and a half-size one, to show that peak RSS does not grow with the
# file), then prints events/s of `rsp-dump --stats` (decode), `rsp-dump --stats --symbolize`
# (every frame resolved), and `perf script` (default output), the ratios, and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-6}
out=bench/out
mkdir -p $out
dump=${RSP_DUMP:-build/src/tools/rsp-dump}
[ -x "$dump" ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
cat > $out/pingpong.py <<'PY'
import os, sys, time
r1, w1 = os.pipe(); r2, w2 = os.pipe()
end = time.time() + float(sys.argv[1])
if os.fork() == 0:
    while os.read(r1, 1) == b'x':
        os.write(w2, b'x')
    os._exit(0)
while time.time() < end:
    os.write(w1, b'x'); os.read(r2, 1)
os.write(w1, b'q'); os.wait()
PY
record() { # FILE SECONDS
  perf record -q -o "$1" -a -g -k CLOCK_MONOTONIC --switch-events \
    -e sched:sched_switch,sched:sched_wakeup,sched:sched_waking -e cpu-clock/freq=997/ \
    -- python3 $out/pingpong.py "$2" 2>/dev/null
  cat /proc/kallsyms > "$1.kallsyms"
}
[ -f $out/large.data ] || record $out/large.data "$secs"
[ -f $out/half.data ] || record $out/half.data "$(python3 -c "print($secs/2)")"

python3 - "$dump" $out/large.data $out/half.data <<'PY'
import json, os, resource, subprocess, sys, time
dump, large, half = sys.argv[1:]

def measure(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE if '--stats' in cmd else subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    wall = time.monotonic() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # max over children so far
    return wall, rss, p.stdout

def events(path):
    return json.loads(subprocess.run([dump, '--stats', '--format=json', path], stdout=subprocess.PIPE).stdout)['total_events']

for path in (large, half):
    n = events(path)
    size = os.path.getsize(path)
    print(f'\n{path}: {size / 1e6:.1f} MB, {n} events')
    # each measurement in a fresh child so ru_maxrss is its own
    rows = []
    for label, cmd in (('rsp-dump --stats (decode)', [dump, '--stats', path]),
                       ('rsp-dump --stats --symbolize', [dump, '--stats', '--symbolize', path]),
                       ('perf script (default output)', ['perf', 'script', '-i', path, '--kallsyms', path + '.kallsyms'])):
        code = ('import resource,subprocess,sys,time;t=time.monotonic();'
                'subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);'
                'print(time.monotonic()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)')
        best = None
        for _ in range(2 if 'perf' not in cmd[0] else 1):
            o = subprocess.run([sys.executable, '-c', code, *cmd], stdout=subprocess.PIPE, text=True).stdout.split()
            wall, rss = float(o[0]), int(o[1])
            if best is None or wall < best[0]:
                best = (wall, rss)
        rows.append((label, best[0], best[1]))
    perf_rate = n / rows[2][1]
    for label, wall, rss in rows:
        rate = n / wall
        print(f'  {label:32s} {wall:7.3f} s {rate / 1e6:8.2f} M events/s  x{rate / perf_rate:6.1f} perf script  peak RSS {rss / 1024:7.1f} MB')
print('\ntargets: decode >= 10 M events/s and >= 20x perf script; symbolized >= 2 M events/s;'
      ' peak RSS not growing with file size (compare the two files)')
PY
