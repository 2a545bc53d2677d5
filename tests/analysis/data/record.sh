#!/usr/bin/env bash
# Records the analysis tests' fixture (tests/analysis/test_categories_cli.py) with rsp's own recorder:
#
#   sudo bash tests/analysis/data/record.sh
#
# shell-sleep-dd-python.data: sh -c 'sleep 0.2; dd ... conv=fsync; python3 -c "sum(range(10**7))"'
#   - sleep 0.2: ~200 ms waiting on a timer (timed out)
#   - dd of 20 MiB with fsync to a file on disk: the fsync waits on the disk (blocking I/O, I/O queue)
#   - python summing 5*10**7 integers: ~0.25 s CPU-bound (0.15 s for 3*10**7 measured alone on this VM) (understood: runs with samples)
# Needs root, perf, python3. Writes FILE.meta (the workload pid) beside it; -g fp, default probes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
record=${RSP_RECORD:-$root/build/src/tools/rsp-record}
out=$here/shell-sleep-dd-python.data
tmpf=$(mktemp /var/tmp/rsp-dd.XXXXXX)
"$record" -q -o "$out" -- sh -c "sleep 0.2; dd if=/dev/zero of=$tmpf bs=1M count=20 conv=fsync 2>/dev/null; /usr/bin/python3 -c 'sum(range(5*10**7))'"
rm -f "$tmpf"
# kernel symbols: the shared snapshot of tests/data/ when it is of this boot (it was for the committed fixture)
if [ "$(cat "$root/tests/data/kallsyms.boot_id" 2>/dev/null)" = "$(cat /proc/sys/kernel/random/boot_id)" ]; then
  ln -sfn ../../data/kallsyms.zst "$out.kallsyms.zst"
fi
ls -l "$out"*
