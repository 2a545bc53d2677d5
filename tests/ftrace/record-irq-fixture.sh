#!/usr/bin/env bash
# Records tests/ftrace/data/coldirq.data: rsp-record (perf record with its ftrace capture and perf stat loss check
# beside it, no call stacks, cpu sampling at 10 Hz to keep it small) of a cold-cache grep, whose disk completions
# fire one interrupt handler (virtio's) hundreds of times with the same fields, perf record losing some of them.
# Run as root on the project's VM from a build; re-run to refresh. The kallsyms snapshot is not kept (not needed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
record="${RSP_RECORD:-$here/../../build/src/tools/rsp-record}"
cd "$here/data"
rm -rf coldirq.data coldirq.data.ftrace coldirq.data.meta
"$record" -q -g none -F 10 -o coldirq.data -- sh -c 'sync; echo 3 > /proc/sys/vm/drop_caches;
  grep -r zzzqqq /usr/share/doc/apt /usr/share/doc/bash /usr/share/doc/coreutils /usr/share/doc/perl /usr/share/doc/git \
  >/dev/null; true'
rm -f coldirq.data.kallsyms.zst
ls -la coldirq.data coldirq.data.ftrace coldirq.data.meta
