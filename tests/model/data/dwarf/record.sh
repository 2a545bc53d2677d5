#!/usr/bin/env bash
# Records dwarf.data: dwarf.c built without frame pointers, sampled on cpu-clock with DWARF call graphs
# (perf record --call-graph dwarf). The binary is kept here (dwarf-prog) and was recorded from
# /tmp/rsp-dwarf-fixture/dwarf-prog: tests copy it there, so its symbols and .eh_frame are found on any
# machine. Run as root or with perf_event_paranoid <= 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gcc -O2 -g -fomit-frame-pointer -o "$here/dwarf-prog" "$here/dwarf.c"
mkdir -p /tmp/rsp-dwarf-fixture
cp "$here/dwarf-prog" /tmp/rsp-dwarf-fixture/dwarf-prog
perf record -q -e cpu-clock -F 499 --call-graph dwarf,4096 -o "$here/dwarf.data" -- /tmp/rsp-dwarf-fixture/dwarf-prog 3 30000000
