#!/usr/bin/env bash
# Issue 18's figures (bench/deep-stacks.sh's, the same commands and targets) on a real build, what `rsp-record -- make`
# makes: rsp-record of a meson setup and ninja of rsp's own sources in a copy of this tree, recorded when FILE is
# missing, as root. Debian's gcc (cc1, lto1, as, ld) is built without frame pointers and stripped: the frame-pointer walks
# of its samples read stack words as return addresses, which no mapping holds, and name no function, so nearly every
# sample's callchain is one never seen before. About 2 minutes on 2 cores, 130 MB, 1.1M events.
# Usage: bench/real-build.sh [FILE]   (default bench/out/build.data; RSP_BENCH_ROUNDS as bench/deep-stacks.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-bench/out/build.data}
build=${RSP_BUILD:-build}
[ -x $build/src/tools/rsp-record ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
if [ ! -f "$file" ]; then
  work=$(mktemp -d)
  tar -c --exclude='./build*' --exclude='./.git' --exclude='./bench/out' . | tar -x -C "$work"
  mkdir -p "$(dirname "$file")"
  $build/src/tools/rsp-record -o "$file" -- sh -c "cd $work && meson setup bd > /dev/null && ninja -C bd > /dev/null" || true
  rm -rf "$work"
fi
RSP_BENCH_MIN_EVENTS=0 exec bash bench/deep-stacks.sh 0 "$file"
