#!/usr/bin/env bash
# Model-building speed and memory beside perf sched timehist, on the same large recording.
# Usage: bench/model-throughput.sh [FILE]
#   FILE defaults to bench/out/large.data, the recording bench/reader-throughput.sh makes (recorded here, the same
#   way, when missing: a python pipe ping-pong, system-wide, with stacks, perf's switch records, the sched
#   tracepoints and cpu-clock; about 1.5M events):
#     perf record -a -g -k CLOCK_MONOTONIC --switch-events -e sched:sched_switch,sched:sched_wakeup,sched:sched_waking \
#       -e cpu-clock/freq=997/ -o FILE -- python3 pingpong.py SECONDS
# Prints, for `rsp-summary --tasks` (runs from the switch records, then with --no-switch-records from the tracepoint),
# `rsp-dump --stats` (the reader alone, to separate decoding from model building), the whole model with and
# without stacks (tests/model/model-json --quiet [--no-stacks]) and `perf sched timehist -s`
# (perf's own per-task runtime summary): wall time (best of 3; perf once), events/s, peak RSS and peak RSS per
# million events.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/out
file=${1:-$out/large.data}
summary=${RSP_SUMMARY:-build/src/tools/rsp-summary}
dump=${RSP_DUMP:-build/src/tools/rsp-dump}
[ -x "$summary" ] && [ -x "$dump" ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
if [ ! -f "$file" ]; then
  mkdir -p "$(dirname "$file")"
  pp=$out/pingpong.py
  mkdir -p $out
  [ -f $pp ] || cat > $pp <<'PY'
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
  perf record -q -o "$file" -a -g -k CLOCK_MONOTONIC --switch-events \
    -e sched:sched_switch,sched:sched_wakeup,sched:sched_waking -e cpu-clock/freq=997/ \
    -- python3 $pp 6 2>/dev/null
  cat /proc/kallsyms > "$file.kallsyms"
fi

model_json=${RSP_MODEL_JSON:-build/tests/model/model-json}
python3 - "$summary" "$dump" "$file" "$model_json" <<'PY'
import json, os, re, subprocess, sys
sys.path.insert(0, 'bench')
summary, dump, path, model_json = sys.argv[1:]

from measure import measure  # bench/measure.py

p = subprocess.run([summary, '--tasks', path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True)
m = re.search(r'runs from .*: (\d+) runs, (\d+) sleeps, (\d+) switch events, (\d+) events', p.stdout)
runs, sleeps, switches, n = (int(x) for x in m.groups())
tasks = sum(1 for line in p.stdout.splitlines()[1:] if re.match(r'\s+-?\d+\s+\d+ ', line))
print(f'{path}: {os.path.getsize(path) / 1e6:.1f} MB, {n} events ({switches} switch records), '
      f'model: {tasks} tasks with runs, {runs} runs, {sleeps} sleeps')
kallsyms = [f'--kallsyms={path}.kallsyms'] if os.path.exists(path + '.kallsyms') else []
rows = [
    ('rsp-summary --tasks', [summary, '--tasks', path], 3),
    ('rsp-summary --tasks --no-switch-records', [summary, '--tasks', '--no-switch-records', path], 3),
    ('rsp-dump --stats (reader alone)', [dump, '--stats', path], 3),
]
if os.access(model_json, os.X_OK):
    # the whole model (stacks, links, sleep ends, disk and network) with and without symbolizing
    rows += [
        ('model (tests/model/model-json --quiet)', [model_json, path, '--quiet'], 3),
        ('model without stacks (--no-stacks)', [model_json, path, '--quiet', '--no-stacks'], 3),
    ]
rows += [
    ('perf sched timehist -s', ['perf', 'sched', 'timehist', '-s', '-i', path] + kallsyms, 1),
]
results = [(label, *measure(cmd, runs)) for label, cmd, runs in rows]
perf_wall = results[-1][1]
print(f'  {"":42s} {"wall":>8s} {"M events/s":>11s} {"x perf":>8s} {"peak RSS":>10s} {"RSS/M events":>13s}')
for label, wall, rss in results:
    print(f'  {label:42s} {wall:7.3f}s {n / wall / 1e6:11.2f} {perf_wall / wall:7.1f}x {rss / 1024:8.1f}MB '
          f'{rss / 1024 / (n / 1e6):11.1f}MB')
model_s = results[0][1] - results[2][1]  # rsp-summary minus rsp-dump
print(f'  model building alone (rsp-summary minus the reader): {model_s:.3f} s, '
      f'{n / model_s / 1e6 if model_s > 0 else float("inf"):.2f} M events/s')
PY
