#!/usr/bin/env bash
# Records inline-fp.data (frame-pointer call chains) and inline-dwarf.data (--call-graph dwarf) of inline.c,
# whose hot code is inlined (always_inline) at the sampled ips and at return addresses. The binary is kept here
# (inline-prog) and was recorded from /tmp/rsp-inline-fixture/inline-prog: tests copy it there, so its DWARF
# is found on any machine. Run as root or with perf_event_paranoid <= 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gcc -O2 -g -fno-omit-frame-pointer -o "$here/inline-prog" "$here/inline.c"
mkdir -p /tmp/rsp-inline-fixture
cp "$here/inline-prog" /tmp/rsp-inline-fixture/inline-prog
perf record -q -e cpu-clock -F 499 -g -o "$here/inline-fp.data" -- /tmp/rsp-inline-fixture/inline-prog 4 8000000
perf record -q -e cpu-clock -F 299 --call-graph dwarf,2048 -o "$here/inline-dwarf.data" -- \
  /tmp/rsp-inline-fixture/inline-prog 4 4000000
