#!/usr/bin/env bash
# Percent of the control paths' total time that rsp-summary --categories accounts for, on every real
# recording committed in the repository (and any FILE given), with the model's loss warnings count, then
# where the time that is least explained went: per recording, the categories that absorb waits nobody
# explained by a recorded cause (unaccounted, misc_kernel: D sleeps that ended for no recorded reason;
# hardware: woken from an interrupt with no disk or network operation found; scheduler) and their three
# largest wait sites (rsp-summary --waits: the sleeps' own time, children not taken out).
# The issue's goal: >= 99% without event loss, >= 95% on this machine. See bench/README.md.
# Usage: bash bench/percent-accounted.sh [FILE...]
set -euo pipefail
cd "$(dirname "$0")/.."
summary=${RSP_SUMMARY:-build/src/tools/rsp-summary}
[ -x "$summary" ] || { echo "build first: bash scripts/build.sh" >&2; exit 1; }
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(ls data/*.perf.data tests/data/*.data tests/*/data/*.data 2>/dev/null)
fi
# STRICT: percent accounted without misc_kernel and hardware, the two categories that name no recorded cause
printf '%-48s %5s %5s %9s %9s %8s %8s %8s %8s %8s %8s  %s\n' FILE PROCS PATHS WALL_ms TOTAL_ms PERCENT STRICT \
  UNACC_ms MISC_ms HW_ms SCHED_ms "SWITCH RECORDS / LARGEST CATEGORY"
details=()
for f in "${files[@]}"; do
  if ! out=$("$summary" --categories --waits --format=json "$f" 2>/dev/null); then
    printf '%-48s (no process of interest / not modelled)\n' "$f"
    continue
  fi
  sw=no
  perf evlist -v -i "$f" 2>/dev/null | grep -q 'context_switch: 1' && sw=yes
  line=$(python3 - "$f" "$out" "$sw" <<'PY'
import json, sys
f, d, sw = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3]
cats = d['categories']
top = max((k for k in cats if k != 'unaccounted'), key=cats.get)
strict = 100 * (d['accounted_ms'] - cats['misc_kernel'] - cats['hardware']) / d['total_ms'] if d['total_ms'] else 0
print('%-48s %5d %5d %9.3f %9.3f %7.2f%% %7.2f%% %8.3f %8.3f %8.3f %8.3f  %s; %s %.3f ms; %d warnings' % (
    f, d['n_processes'], d['paths'], d['wall_ms'], d['total_ms'], d['percent_accounted'], strict, cats['unaccounted'],
    cats['misc_kernel'], cats['hardware'], cats['scheduler'], sw, top, cats[top], len(d.get('warnings', []))))
PY
  )
  echo "$line"
  details+=("$(python3 - "$f" "$out" <<'PY'
import json, sys
f, d = sys.argv[1], json.loads(sys.argv[2])
by = d.get('wait_sites_by_category', {})
tot = d['total_ms'] or 1
parts = []
for cat in ('unaccounted', 'misc_kernel', 'hardware', 'scheduler'):
    ms = d['categories'].get(cat, 0)
    if ms < 0.0005:
        continue
    sites = ', '.join('%s %.3f' % (w['site'], w['ms']) for w in by.get(cat, [])[:3]) or '(runs or children)'
    parts.append('  %-11s %8.3f ms (%4.1f%%): %s' % (cat, ms, 100 * ms / tot, sites))
inf = d.get('inferred_end_ms', 0)
if inf >= 0.0005:
    parts.append('  %-11s %8.3f ms (%4.1f%%): sleeps on the paths whose end cause was guessed (in the categories above '
                 'or others)' % ('guessed', inf, 100 * inf / tot))
if parts:
    print(f + '\n' + '\n'.join(parts))
PY
  )")
done
echo
echo "Least explained time (category, share of the total, largest wait sites in ms):"
for d in "${details[@]}"; do
  [ -n "$d" ] && echo "$d"
done
