#!/usr/bin/env bash
# Wall times of several commands run alternately, one of each per round, so that a shared machine's drift (this
# VM's times vary by 30% from run to run) falls on all of them alike. Prints per command the min and the median.
# Usage: bench/alternate.sh ROUNDS 'COMMAND 1' 'COMMAND 2' ...   (each command a string run by bash, its output
# thrown away), e.g.
#   bench/alternate.sh 10 "OLD/src/tools/rsp-summary --categories F" "NEW/src/tools/rsp-summary --categories F" \
#     "NEW/src/tools/rsp-dump --stats F" "perf sched timehist -s -i F"
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,7p' "$0" >&2
  exit 2
fi
rounds=$1
shift
python3 - "$rounds" "$@" <<'PY'
import statistics, subprocess, sys, time
rounds, cmds = int(sys.argv[1]), sys.argv[2:]
walls = [[] for _ in cmds]
for _ in range(rounds):
    for i, c in enumerate(cmds):
        t = time.monotonic()
        p = subprocess.run(['bash', '-c', c], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls[i].append(time.monotonic() - t)
        if p.returncode != 0:
            print(f'exit {p.returncode}: {c}', file=sys.stderr)
for c, w in zip(cmds, walls):
    print(f'min {min(w):7.3f} s  median {statistics.median(w):7.3f} s  {c}')
PY
