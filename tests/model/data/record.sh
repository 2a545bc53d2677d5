#!/usr/bin/env bash
# Records the model tests' own perf.data fixtures (tests/model/test_runtime_oracle.py) with the real perf on this
# machine; the tests only read them.
#
#   sudo bash tests/model/data/record.sh
#
# Needs root (system-wide recording, drop_caches), perf and python3. The workload exercises what the model infers:
# a pipe ping-pong between two python processes that each compute for ~3 ms per message (runs long enough for
# cpu-clock samples, and a cpu going idle at each hand-over, whose switch back from idle this kernel does not
# trace), then a cold-cache grep (short runs between D sleeps, woken from the disk interrupt on an idle cpu).
#
#   grep-pingpong.data              --switch-events: runs from perf's switch records, checked against perf script
#   grep-pingpong-tracepoints.data  the same workload without --switch-events: runs from sched:sched_switch, the
#                                   missing switch-ins inferred; checked against cpu-clock samples x period
#
# No -g (small files), a large buffer (-m 1024: no LOST records on a busy machine); tracepoints at period 1 and the frequency on cpu-clock alone
# (/work/shared/platform/perf-loss.md); CLOCK_MONOTONIC as rsp expects; -N leaves the build-id cache alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-/usr/bin/python3}
GREP_DIRS=${GREP_DIRS:-/usr/share/doc/[a-c]*}

read -r -d '' PINGPONG <<'PYEOF' || true
import os, sys, time
rounds = int(sys.argv[1])

def burn(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

a_r, a_w = os.pipe()
b_r, b_w = os.pipe()
if os.fork() == 0:
    for _ in range(rounds):
        os.read(a_r, 1)
        burn(0.003)
        os.write(b_w, b'y')
    os._exit(0)
for _ in range(rounds):
    burn(0.003)
    os.write(a_w, b'x')
    os.read(b_r, 1)
os.wait()
PYEOF

workload() {
  sync
  echo 3 > /proc/sys/vm/drop_caches
  "$PY" -c "$PINGPONG" 40
  # shellcheck disable=SC2086
  grep -r zzzqqq $GREP_DIRS > /dev/null || true
}
export -f workload
export PY PINGPONG GREP_DIRS

events=(-e sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_wakeup_new -e 'cpu-clock/freq=997/')
common=(-a -k CLOCK_MONOTONIC -N -q -m 1024)
perf record "${common[@]}" --switch-events "${events[@]}" -o "$here/grep-pingpong.data" -- bash -c workload
perf record "${common[@]}" "${events[@]}" -o "$here/grep-pingpong-tracepoints.data" -- bash -c workload
rm -f "$here"/*.data.old  # perf record keeps the previous file as FILE.old
chmod 644 "$here"/*.data
ls -l "$here"/*.data
