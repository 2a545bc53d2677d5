#!/usr/bin/env bash
# Records the profiles tests' fixtures with rsp's own recorder (build/src/tools/rsp-record, root):
#
#   sudo bash tests/profiles/data/record.sh [BUILD_DIR] [SET...]     SET: sleeps, diff, contention (default: all)
#
# profsleep.c sleeps known lengths with nanosleep. The lengths sit in the middle of their log2 buckets
# (600 us + the timer slack in [524 us, 1.05 ms), 12 ms in [8.39 ms, 16.8 ms), 5 ms in [4.19 ms, 8.39 ms))
# so that a few microseconds of scheduling noise cannot move them across a bucket boundary.
#
#   sleeps.data       600 us x 200 then 12 ms x 20: the sleeper's waits must show two peaks, at buckets 19 and 23
#   base.data         600 us x 200
#   added-5ms.data    600 us x 200 then 5 ms x 40: rsp-diff base.data added-5ms.data must rank the sleeper's
#                     waits first
#
#   contention-a.data  pingpong.c alone: a parent (pinned to CPU 0) and its child (CPU 1) pass a byte back and
#                      forth over two pipes 300 times, each side computing 100 us after every read
#   contention-b.data  the same while cpuhog.c spins pinned to CPU 0 (started before, killed after the recording,
#                      so not part of the recorded command's tree): the parent's wakeups wait for CPU 0. rsp-diff
#                      must rank the ping-pong's scheduler delay first, grown as perf script's sched_waking ->
#                      switch-in delays of the ping-pong's tasks grew (test_profiles_oracle.py, test_contention)
#
# The minimal probe set (scheduler events and cpu-clock samples, with call stacks) keeps the files small.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build}
rec=$build/src/tools/rsp-record
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O1 -fno-omit-frame-pointer -o "$tmp/profsleep" "$here/profsleep.c"
gcc -O1 -fno-omit-frame-pointer -o "$tmp/pingpong" "$here/pingpong.c"
gcc -O1 -o "$tmp/cpuhog" "$here/cpuhog.c"
record() {
  local out=$1; shift
  "$rec" -q --probes=minimal -o "$here/$out" -- "$@"
}
sets=${*:2}
wanted() { [[ -z $sets || " $sets " == *" $1 "* ]]; }
if wanted sleeps; then
  record sleeps.data "$tmp/profsleep" 200 600 20 12000
fi
if wanted diff; then
  record base.data "$tmp/profsleep" 200 600
  record added-5ms.data "$tmp/profsleep" 200 600 40 5000
fi
if wanted contention; then
  record contention-a.data "$tmp/pingpong" 300 100 0 1
  taskset -c 0 "$tmp/cpuhog" &
  hog=$!
  sleep 0.3
  record contention-b.data "$tmp/pingpong" 300 100 0 1
  kill "$hog"
  wait "$hog" 2>/dev/null || true
fi
chmod 644 "$here"/*.data
ls -l "$here"
