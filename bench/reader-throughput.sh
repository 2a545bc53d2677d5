#!/usr/bin/env bash
# Reader speed beside perf script, on the same large recording, measured in one run.
#
# Usage: bench/reader-throughput.sh [SECONDS]      (run as root, after building rsp-dump)
#   SECONDS   length of the workload of the large recording (default 6: ~2M events with stacks)
#   RSP_DUMP  the rsp-dump to measure (default build/src/tools/rsp-dump; copied to the work dir
#             first, so a rebuild during the run changes nothing)
#   RSP_BENCH_OUT  work dir (default bench/out/, git-ignored); recordings there are reused,
#             delete them (or set RSP_BENCH_RERECORD=1) to record anew
#   RSP_BENCH_RUNS  runs per rsp-dump measurement, the fastest counts (default 3)
#
# Records, system-wide with callchains, a context-switch-heavy workload (a pipe ping-pong between
# two processes, beside a `find` over /usr): large.data (>= 1M events) and half.data (half the
# workload), each with FILE.kallsyms beside it. Then prints, per file: its size and event count,
# events/s of `rsp-dump --stats` (decode only), of `rsp-dump --stats --symbolize` (every frame
# resolved) and of `perf script` (default output, to /dev/null; large file only), the ratios,
# peak RSS of each (getrusage of a child that runs only that command), and the targets.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-6}
out=${RSP_BENCH_OUT:-bench/out}
runs=${RSP_BENCH_RUNS:-3}
mkdir -p "$out"
src_dump=${RSP_DUMP:-build/src/tools/rsp-dump}
[ -x "$src_dump" ] || { echo "no rsp-dump at $src_dump: build first (bash scripts/build.sh)" >&2; exit 1; }
command -v perf > /dev/null || { echo "perf is not installed" >&2; exit 1; }
dump=$out/rsp-dump
cp "$src_dump" "$dump"

cat > "$out/pingpong.py" <<'PY'
# Two processes bounce one byte through two pipes: two context switches per round trip.
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
cat > "$out/workload.sh" <<'SH'
# the ping-pong, and a find over /usr (many short syscalls, page cache, a few processes)
python3 "$(dirname "$0")/pingpong.py" "$1" &
end=$(( $(date +%s) + ${1%.*} ))
while [ "$(date +%s)" -lt "$end" ]; do find /usr -xdev -name '*.so*' > /dev/null 2>&1 || true; done
wait
SH

record() { # FILE SECONDS
  echo "recording $1 ($2 s of workload)..." >&2
  perf record -q -o "$1" -a -g -k CLOCK_MONOTONIC --switch-events \
    -e sched:sched_switch,sched:sched_wakeup,sched:sched_waking -e cpu-clock/freq=997/ \
    -- bash "$out/workload.sh" "$2" > /dev/null 2>&1
  cat /proc/kallsyms > "$1.kallsyms"
}
for f in large half; do
  [ -z "${RSP_BENCH_RERECORD:-}" ] && [ -f "$out/$f.data" ] && [ -f "$out/$f.data.kallsyms" ] && continue
  if [ $f = large ]; then record "$out/large.data" "$secs"; else record "$out/half.data" "$(( (secs + 1) / 2 ))"; fi
done

python3 - "$dump" "$out/large.data" "$out/half.data" "$runs" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, 'bench')
dump, large, half, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

from measure import measure  # bench/measure.py

def stats(path):
    p = subprocess.run([dump, '--stats', '--format=json', path], stdout=subprocess.PIPE, check=True)
    return json.loads(p.stdout)

results = {}
for path, with_perf in ((large, True), (half, False)):
    st = stats(path)
    n = st['total_events']
    samples = st['records'].get('SAMPLE', 0)
    size = os.path.getsize(path)
    print('\n%s: %.1f MB, %d events (%d samples with callchains, %d switch records)'
          % (path, size / 1e6, n, samples, st['records'].get('SWITCH_CPU_WIDE', 0)))
    if path == large and n < 1_000_000:
        print('  WARNING: fewer than 1M events; run with more SECONDS and RSP_BENCH_RERECORD=1')
    rows = [('rsp-dump --stats (decode)', [dump, '--stats', path], runs),
            ('rsp-dump --stats --symbolize', [dump, '--stats', '--symbolize', path], runs)]
    if with_perf:
        rows.append(('perf script (default output)',
                     ['perf', 'script', '-i', path, '--kallsyms', path + '.kallsyms'], 1))
    got = {}
    for label, cmd, k in rows:
        got[label] = measure(cmd, k)
    results[path] = (n, size, got)
    perf = got.get('perf script (default output)')
    for label, (wall, rss) in got.items():
        rate = n / wall
        line = '  %-30s %8.3f s %9.2f M events/s' % (label, wall, rate / 1e6)
        if perf and not label.startswith('perf'):
            line += '  %6.1fx perf script' % (perf[0] / wall)
        else:
            line += '  %19s' % ''
        line += '  peak RSS %7.1f MB' % (rss / 1024)
        if label.startswith('rsp-dump --stats (decode)'):
            ok = rate >= 10e6 and (not perf or perf[0] / wall >= 20)
            line += '   target >= 10 M events/s%s: %s' % (' and >= 20x perf script' if perf else '',
                                                          'met' if ok else 'NOT MET')
        elif label.startswith('rsp-dump --stats --symbolize'):
            line += '   target >= 2 M events/s: %s' % ('met' if rate >= 2e6 else 'NOT MET')
        print(line)

(nl, sl, gl), (nh, sh, gh) = results[large], results[half]
print('\npeak RSS, %.1f MB file vs %.1f MB file (target: does not grow with the file):' % (sl / 1e6, sh / 1e6))
for label in ('rsp-dump --stats (decode)', 'rsp-dump --stats --symbolize'):
    a, b = gl[label][1], gh[label][1]
    print('  %-30s %7.1f MB vs %7.1f MB  (x%.2f for x%.2f the events)' % (label, a / 1024, b / 1024, a / b, nl / nh))
PY
