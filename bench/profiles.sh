#!/usr/bin/env bash
# Latency profiles' cost beside the model's, on the same large recording.
# Usage: bench/profiles.sh [FILE]
#   FILE defaults to bench/out/large.data (made by bench/reader-throughput.sh or bench/model-throughput.sh).
# Prints the wall time (best of RSP_BENCH_RUNS, default 3) of
#   rsp-summary --tasks             the model and the per-task table
#   rsp-summary --categories        when this build has it (the issue's reference figure)
#   rsp-summary --profiles          the model and every profile (waits by site, disk, network, scheduler delay,
#                                   runs, preemptions; per process and system-wide) with peaks and characteristic times
#   rsp-summary --profiles --format=json
#   rsp-diff --all FILE FILE        two models, two complete sets of profiles by command, the three phases
# then rsp-diff's ranked output on the contention pair of tests/profiles/data (a pipe ping-pong alone and beside
# a CPU hog on its CPU), with perf script's wakeup delays of the ping-pong beside it,
# and what profiles add over the model alone (target: < 20% over --categories; rsp-diff of two such files < 1 s
# beyond loading them).
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-bench/out/large.data}
summary=${RSP_SUMMARY:-build/src/tools/rsp-summary}
diff=${RSP_DIFF:-build/src/tools/rsp-diff}
runs=${RSP_BENCH_RUNS:-3}
# What rsp-diff ranks on a pair with a known change (tests/profiles/data/record.sh, "contention"), and the
# truth from perf's own records (sched_waking -> switch-in of the ping-pong's tasks, as test_contention.py).
contention_ranking() {
  ca=tests/profiles/data/contention-a.data cb=tests/profiles/data/contention-b.data
  if [ -f "$ca" ] && [ -f "$cb" ]; then
    echo
    echo "rsp-diff $ca $cb:"
    "$diff" "$ca" "$cb" | sed -n '/^RANK/,/^$/p'
    if command -v perf > /dev/null; then
      for f in "$ca" "$cb"; do
        perf script -i "$f" --ns -F comm,tid,time,event,trace --show-switch-events 2>/dev/null | python3 -c '
import re, statistics, sys
waking, d = {}, []
for line in sys.stdin:
    m = re.match(r"^\s*(.*?)\s+(\d+)\s+(\d+)\.(\d+):\s+(\S+)(.*)$", line)
    if not m:
        continue
    t = int(m[3]) * 10**9 + int(m[4].ljust(9, "0"))
    w = re.search(r"comm=pingpong pid=(\d+)", m[6]) if m[5] == "sched:sched_waking:" else None
    if w:
        waking.setdefault(int(w[1]), t)
    elif m[5].startswith("PERF_RECORD_SWITCH") and m[1] == "pingpong":
        tid = int(m[2])
        if m[6].split()[:1] == ["IN"] and tid in waking:
            d.append(t - waking.pop(tid))
        elif m[6].split()[:1] == ["OUT"]:
            waking.pop(tid, None)
print(f"perf script {sys.argv[1]}: {len(d)} wakeups of pingpong, delay total {sum(d) / 1e6:.1f} ms, "
      f"median {statistics.median(d) / 1e3:.1f} us")
' "$f"
      done
    fi
  fi
}

[ -x "$summary" ] && [ -x "$diff" ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
[ -f "$file" ] || { echo "$file: missing; make it with bench/model-throughput.sh" >&2; contention_ranking; exit 1; }

best() { # best wall time of $runs runs of "$@", seconds
  local b=
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N)
    b=$(python3 -c "print(min(float('${b:-1e9}'), $e - $s))")
  done
  echo "$b"
}

events=$(${RSP_DUMP:-build/src/tools/rsp-dump} --stats "$file" 2>/dev/null | awk '/^events / {sub(",", "", $2); print $2; exit}' || true)
echo "file: $file ($(du -h "$file" | cut -f1), ${events:-?} events)"
t_tasks=$(best "$summary" --tasks "$file")
printf '%-40s %8.3f s\n' "rsp-summary --tasks" "$t_tasks"
t_cat=
if "$summary" --help-all 2>/dev/null | grep -q -- '--categories'; then
  t_cat=$(best "$summary" --categories "$file")
  printf '%-40s %8.3f s\n' "rsp-summary --categories" "$t_cat"
fi
t_prof=$(best "$summary" --profiles "$file")
printf '%-40s %8.3f s\n' "rsp-summary --profiles" "$t_prof"
t_json=$(best "$summary" --profiles --format=json "$file")
printf '%-40s %8.3f s\n' "rsp-summary --profiles --format=json" "$t_json"
t_diff=$(best "$diff" --all "$file" "$file")
printf '%-40s %8.3f s\n' "rsp-diff --all FILE FILE" "$t_diff"
python3 - "$t_tasks" "$t_prof" "$t_diff" "${t_cat:-}" <<'PY'
import sys
tasks, prof, diff = map(float, sys.argv[1:4])
cat = float(sys.argv[4]) if sys.argv[4] else None
print(f'profiles add {prof - tasks:.3f} s to the model and task table: {100 * (prof - tasks) / tasks:.1f}%')
if cat:
    print(f'profiles vs --categories: {100 * (prof - cat) / cat:+.1f}% (target < 20%)')
else:
    print('rsp-summary --categories is not in this build: compared with --tasks instead')
print(f'rsp-diff beyond loading two models: {diff - 2 * tasks:.3f} s (target < 1 s)')
PY
contention_ranking
