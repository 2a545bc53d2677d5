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
#
# With the argument "links" (sudo bash tests/model/data/record.sh links), records instead the fixtures of
# tests/model/test_links_oracle.py with rsp's own recorder (build/src/tools/rsp-record: the default probe set, -g fp,
# the ftrace side capture, FILE.meta with the workload pid), each a short workload:
#
#   links-pingpong.data  a python pipe ping-pong, 100 round trips (wakeup links both ways)
#   links-coldread.data  caches dropped, then cat of 40 cold headers (disk ops, D sleeps ended by the disk)
#   links-shell.data     a shell running children: true, ls, a subshell sleeping 10 ms, cat (fork/exec/exit->wait)
#   links-tcp.data       python3 -m http.server on 127.0.0.1 and 3 curl requests (network ops, ports)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-/usr/bin/python3}
GREP_DIRS=${GREP_DIRS:-/usr/share/doc/[a-c]*}

if [ "${1:-}" = links ]; then
  root=$(cd "$here/../../.." && pwd)
  record=${RSP_RECORD:-$root/build/src/tools/rsp-record}
  tmp=$(mktemp -d)
  cat > "$tmp/pingpong.py" <<'PYEOF'
import os
r1, w1 = os.pipe(); r2, w2 = os.pipe()
if os.fork() == 0:
    for _ in range(100):
        os.read(r1, 1); os.write(w2, b'y')
    os._exit(0)
for _ in range(100):
    os.write(w1, b'x'); os.read(r2, 1)
os.wait()
PYEOF
  cat > "$tmp/coldread.sh" <<'SHEOF'
files=(/usr/include/linux/*.h)
cat "${files[@]:40:40}" > /dev/null
SHEOF
  cat > "$tmp/tcp.sh" <<SHEOF
cd "$tmp"
$PY -m http.server --bind 127.0.0.1 18931 > /dev/null 2>&1 &
srv=\$!
for i in \$(seq 50); do curl -s -o /dev/null http://127.0.0.1:18931/ && break; sleep 0.02; done
for i in 1 2 3; do curl -s -o /dev/null http://127.0.0.1:18931/; done
kill \$srv; wait \$srv 2>/dev/null || true
SHEOF
  rec() { # NAME COMMAND...
    local name=$1; shift
    rm -rf "$here/$name" "$here/$name".*
    "$record" -q -o "$here/$name" -- "$@"
    rm -f "$here/$name.old"
  }
  rec links-pingpong.data "$PY" "$tmp/pingpong.py"
  sync; echo 3 > /proc/sys/vm/drop_caches; sleep 0.3
  rec links-coldread.data bash "$tmp/coldread.sh"
  rec links-shell.data bash -c 'true; ls / > /dev/null; (sleep 0.01); cat /etc/hostname > /dev/null'
  rec links-tcp.data bash "$tmp/tcp.sh"
  rm -rf "$tmp"
  ls -l "$here"/links-*
  exit 0
fi

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
