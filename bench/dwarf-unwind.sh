#!/usr/bin/env bash
# DWARF unwinding speed: rsp-dump --stacks (which unwinds each sample's user stack copy with libdwfl) beside
# perf script (which does the same with its own libdw unwinder) on a -g dwarf recording; samples per second.
# Usage: bench/dwarf-unwind.sh [FILE]   (default: tests/model/data/dwarf/dwarf.data, its binary put back
# where it was recorded from)
set -euo pipefail
cd "$(dirname "$0")/.."
f=${1:-tests/model/data/dwarf/dwarf.data}
if [ $# -eq 0 ]; then mkdir -p /tmp/rsp-dwarf-fixture; cp tests/model/data/dwarf/dwarf-prog /tmp/rsp-dwarf-fixture/; fi
n=$(perf script -i "$f" -F event 2>/dev/null | grep -c . || true)
t() { local s=$(date +%s.%N); "$@" >/dev/null 2>&1; echo "$(date +%s.%N) - $s" | bc; }
for i in 1 2 3; do
  r=$(t build/src/tools/rsp-dump --stacks "$f"); p=$(t perf script -i "$f")
  printf 'run %d: %d samples; rsp-dump --stacks %.3f s (%.0f samples/s); perf script %.3f s (%.0f samples/s)\n' \
    "$i" "$n" "$r" "$(echo "$n / $r" | bc -l)" "$p" "$(echo "$n / $p" | bc -l)"
done
