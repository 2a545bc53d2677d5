#!/usr/bin/env bash
# Percent of the control paths' total time that rsp-summary --categories accounts for, on every real
# recording committed in the repository (and any FILE given), with the largest category and the
# model's loss warnings count. The issue's goal: >= 99% without event loss, >= 95% on this machine.
# Usage: bash bench/percent-accounted.sh [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
summary=${RSP_SUMMARY:-build/src/tools/rsp-summary}
[ -x "$summary" ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(ls data/*.perf.data tests/*/data/*.data 2>/dev/null)
fi
printf '%-52s %6s %6s %10s %10s %8s  %s\n' FILE PROCS PATHS WALL_ms TOTAL_ms PERCENT "LARGEST CATEGORY"
for f in "${files[@]}"; do
  if ! out=$("$summary" --categories --format=json "$f" 2>/dev/null); then
    printf '%-52s (no process of interest / not modelled)\n' "$f"
    continue
  fi
  python3 - "$f" "$out" <<'PY'
import json, sys
f, d = sys.argv[1], json.loads(sys.argv[2])
cats = d['categories']
top = max(cats, key=cats.get)
print('%-52s %6d %6d %10.3f %10.3f %7.1f%%  %s %.3f ms; %d warnings' % (
    f, d['n_processes'], d['paths'], d['wall_ms'], d['total_ms'], d['percent_accounted'], top, cats[top],
    len(d.get('warnings', []))))
PY
done
