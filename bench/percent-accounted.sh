#!/usr/bin/env bash
# Percent of the control paths' total time that rsp-summary --categories accounts for, on every real
# recording committed in the repository (and any FILE given), with the model's loss warnings count, then
# where the time that is least explained went: per recording, the categories that absorb waits nobody
# explained by a recorded cause (unaccounted, misc_kernel: D sleeps that ended for no recorded reason;
# hardware: woken from an interrupt with no disk or network operation found; scheduler) and their three
# largest wait sites (rsp-summary --waits: the sleeps' own time, children not taken out); the time in a category on a
# guess (guessed_ms: not accounted), running time whose stacks name no function (unknown_stack: not accounted, by
# reason) and who took the cpu from preempted sleeps (preempted_by_path, contention, the top preemptors).
# Percent accounted counts neither guessed nor unknown-stack time (issue 15); NAMED is the share in a named category
# (total - unaccounted), what PERCENT meant before. The goal: >= 99% without event loss, >= 95% on this machine.
# See bench/README.md.
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
printf '%-48s %5s %5s %9s %9s %8s %8s %8s %8s %8s %8s %8s %8s %8s  %s\n' FILE PROCS PATHS WALL_ms TOTAL_ms PERCENT STRICT \
  NAMED UNACC_ms GUESS_ms UNKSTK_ms MISC_ms HW_ms SCHED_ms "SWITCH RECORDS / LARGEST CATEGORY"
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
g = d.get('guessed_by_category', {})
# misc_kernel and hardware not on a guess (the guessed part is out of accounted already)
sure = sum(cats[k] - g.get(k, 0) for k in ('misc_kernel', 'hardware'))
strict = 100 * (d['accounted_ms'] - sure) / d['total_ms'] if d['total_ms'] else 0
named = 100 * (d['total_ms'] - d['unaccounted_ms']) / d['total_ms'] if d['total_ms'] else 0
print('%-48s %5d %5d %9.3f %9.3f %7.2f%% %7.2f%% %7.2f%% %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f  %s; %s %.3f ms; %d warnings' % (
    f, d['n_processes'], d['paths'], d['wall_ms'], d['total_ms'], d['percent_accounted'], strict, named,
    cats['unaccounted'], d['guessed_ms'], cats['unknown_stack'], cats['misc_kernel'], cats['hardware'],
    cats['scheduler'], sw, top, cats[top], len(d.get('warnings', []))))
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
if d['guessed_ms'] >= 0.0005:
    parts.append('  %-11s %8.3f ms (%4.1f%%): in a category on a guess: %s' % (
        'guessed', d['guessed_ms'], 100 * d['guessed_ms'] / tot,
        ', '.join('%s %.3f' % kv for kv in sorted(d['guessed_by_category'].items(), key=lambda kv: -kv[1]))))
unk = d['categories'].get('unknown_stack', 0)
if unk >= 0.0005:
    parts.append('  %-11s %8.3f ms (%4.1f%%): running, stacks naming no function: %s' % (
        'unknown_stk', unk, 100 * unk / tot,
        ', '.join('%s %.3f' % kv for kv in sorted(d['unknown_stack_by_reason'].items(), key=lambda kv: -kv[1]))))
pre = [d['categories'].get(k, 0) for k in ('preempted_by_path', 'contention', 'involuntary')]
if sum(pre) >= 0.0005:
    parts.append('  %-11s %8.3f ms (%4.1f%%): behind the paths %.3f, contention %.3f, nothing else seen %.3f; top: %s' % (
        'preempted', sum(pre), 100 * sum(pre) / tot, *pre,
        ', '.join('%s %d %.3f%s' % (p['comm'], p['pid'], p['ms'], '*' if p['on_path'] else '')
                  for p in d['preemptors'][:4])))
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
