#!/usr/bin/env bash
# An example CI job: record the workload on the base and on the change, and fail the job when the change
# made it slower past the bounds (rsp-diff --gate, see rsp-diff(1)). Run as root (rsp-record records
# system-wide). Usage: data/ci-gate.sh BASE_COMMAND... -- NEW_COMMAND...
set -euo pipefail
base=() new=() side=base
for a in "$@"; do
  if [ "$a" = -- ] && [ $side = base ]; then side=new; continue; fi
  if [ $side = base ]; then base+=("$a"); else new+=("$a"); fi
done
[ ${#base[@]} -gt 0 ] && [ ${#new[@]} -gt 0 ] || { echo "usage: $0 BASE_COMMAND... -- NEW_COMMAND..." >&2; exit 2; }
out=${RSP_GATE_DIR:-$(mktemp -d)}
rsp-record -o "$out/base.data" -- "${base[@]}"
rsp-record -o "$out/new.data" -- "${new[@]}"
exec rsp-diff --gate "${RSP_GATE:-total:+5%,blocking_io:+10%,profile:fsync:+20%}" "$out/base.data" "$out/new.data"
