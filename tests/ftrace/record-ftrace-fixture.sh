#!/usr/bin/env bash
# Records tests/ftrace/data/coldgrep.data: perf record (-k CLOCK_MONOTONIC, --switch-events) of a
# cold-cache grep with a tracefs instance on the mono clock recording the same block, irq and
# wakeup events beside it (coldgrep.data.ftrace/), and `perf stat -a` counting those events over
# the same run (coldgrep.stat: what really occurred, the oracle of the merge test).
# Run as root on the project's VM; re-run to refresh. Kept small: a few hundred files read.
set -euo pipefail
cd "$(dirname "$0")/data"
out=coldgrep.data
events=(block:block_rq_issue block:block_rq_complete sched:sched_waking sched:sched_wakeup irq:softirq_entry)
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T
inst=$T/instances/rsp-fixture-$$
rm -rf "$out" "$out.ftrace" coldgrep.stat
mkdir "$inst"
trap 'echo 0 > "$inst/tracing_on" 2>/dev/null; rmdir "$inst" 2>/dev/null || true' EXIT
echo mono > "$inst/trace_clock"
echo 2048 > "$inst/buffer_size_kb"
mkdir -p "$out.ftrace/events"
cp $T/events/header_page "$out.ftrace/"
for e in "${events[@]}"; do
  sys=${e%%:*}; name=${e#*:}
  echo 1 > "$inst/events/$sys/$name/enable"
  mkdir -p "$out.ftrace/events/$sys/$name"
  cp "$T/events/$sys/$name/format" "$out.ftrace/events/$sys/$name/"
done
ev=$(IFS=,; echo "${events[*]}")
workload='sync; echo 3 > /proc/sys/vm/drop_caches; grep -r zzzqqq /usr/share/doc/apt /usr/share/doc/bash /usr/share/doc/coreutils /usr/share/doc/perl >/dev/null; true'
echo 1 > "$inst/tracing_on"
perf stat -a -x, -e "$ev" -o coldgrep.stat -- \
  perf record -q -o "$out" -a -k CLOCK_MONOTONIC --switch-events -e "$ev,sched:sched_switch" -- sh -c "$workload"
echo 0 > "$inst/tracing_on"
ncpu=$(nproc)
for ((c = 0; c < ncpu; c++)); do
  # trace_pipe_raw blocks when empty: read what is there and stop
  timeout 2 cat "$inst/per_cpu/cpu$c/trace_pipe_raw" > "$out.ftrace/cpu$c.raw" || true
done
ls -la "$out" "$out.ftrace" coldgrep.stat
