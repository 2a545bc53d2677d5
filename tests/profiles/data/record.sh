#!/usr/bin/env bash
# Records the profiles tests' fixtures with rsp's own recorder (build/src/tools/rsp-record, root):
#
#   sudo bash tests/profiles/data/record.sh [BUILD_DIR]
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
# The minimal probe set (scheduler events and cpu-clock samples, with call stacks) keeps the files small.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../../build}
rec=$build/src/tools/rsp-record
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O1 -fno-omit-frame-pointer -o "$tmp/profsleep" "$here/profsleep.c"
record() {
  local out=$1; shift
  "$rec" -q --probes=minimal -o "$here/$out" -- "$tmp/profsleep" "$@"
}
record sleeps.data 200 600 20 12000
record base.data 200 600
record added-5ms.data 200 600 40 5000
chmod 644 "$here"/*.data
ls -l "$here"
