#!/usr/bin/env bash
# Records inline-fp.data: ../inline/inline.c (its hot code inlined at the sampled ips and at return addresses) built
# with -O2 -g and run from /tmp/rsp-debug-cache-fixture/inline-prog, with frame-pointer chains. The binary is kept
# here (inline-prog, with its debug info); test_debug_cache.py puts it at that path stripped, its debug info in a
# separate file with compressed sections beside it, as distributions ship them. Run as root or with
# perf_event_paranoid <= 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gcc -O2 -g -fno-omit-frame-pointer -o "$here/inline-prog" "$here/../inline/inline.c"
mkdir -p /tmp/rsp-debug-cache-fixture
cp "$here/inline-prog" /tmp/rsp-debug-cache-fixture/inline-prog
perf record -q -e cpu-clock -F 499 -g -o "$here/inline-fp.data" -- /tmp/rsp-debug-cache-fixture/inline-prog 4 8000000
