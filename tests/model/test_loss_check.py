#!/usr/bin/env python3
"""rsp-summary's loss check on rsp-record recordings whose ftrace capture is beside them.

rsp-record counted every traced event with perf stat over the recording window ("occurred") and wrote it,
with what perf record kept and what its ftrace capture holds, into FILE.meta. The oracle here is that
independent count: for each event where perf record lost most of what occurred (interrupt-context events on
an idle CPU, this kernel), the stream the reader delivers after merging the ftrace capture (rsp-dump --stats,
which decodes both files itself) must hold at least 95% of what perf stat counted, and rsp-summary must say so
on that event's line; where perf lost nothing, the merge must not add events perf stat never saw (duplicates
dropped: at most 2% over). The lines' figures must be the .meta's, and the total line's percentage must
follow from them.
"""
import configparser
import os
import re
import subprocess
import sys

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ['RSP_SUMMARY']
DUMP = os.environ['RSP_DUMP']
FIXTURES = ['tests/model/data/wl-grep.data', 'tests/model/data/wl-sqlite.data', 'tests/model/data/links-coldread.data']

failures = []


def check(cond, msg):
    print(('ok: ' if cond else 'FAIL: ') + msg)
    if not cond:
        failures.append(msg)


def merged_counts(path):
    """Per tracepoint, the events the reader delivers (perf's stream with the ftrace capture merged)."""
    out = subprocess.run([DUMP, '--stats', path], capture_output=True, text=True, check=True).stdout
    counts, in_events = {}, False
    for line in out.splitlines():
        if line.startswith('event '):
            in_events = True
            continue
        m = re.match(r'^(\S+:\S+)\s+(\d+)$', line)
        if in_events and m:
            counts[m.group(1)] = int(m.group(2))
    return counts


for rel in FIXTURES:
    path = os.path.join(SRC, rel)
    meta = configparser.ConfigParser(interpolation=None, delimiters=('=',))
    meta.optionxform = str
    meta.read(path + '.meta')
    if 'loss' not in meta or 'ftrace' not in meta:
        check(False, f'{rel}: no [loss] and [ftrace] in its .meta')
        continue
    p = subprocess.run([SUMMARY, '--tasks', path], capture_output=True, text=True)
    check(p.returncode == 0, f'{rel}: rsp-summary --tasks exits 0')
    lines = {m.group(1): m for m in re.finditer(
        r'^loss check: (\S+:\S+): perf record kept (\d+) of (\d+) \(([\d.]+)%\)'
        r'(?:; with the ftrace capture \((\d+) there\) ([\d.]+)%)?$', p.stdout + p.stderr, re.M)}
    merged = merged_counts(path)
    rec_all = occ_all = best_all = 0
    for ev, value in meta['loss'].items():
        rec, occ = (int(x) for x in value.split(';'))
        ft = int(meta['ftrace'][ev]) if ev in meta['ftrace'] else None
        best = max(rec, min(ft, occ)) if ft is not None else rec
        rec_all, occ_all, best_all = rec_all + rec, occ_all + occ, best_all + best
        got = merged.get(ev)
        if rec < occ:
            m = lines.get(ev)
            check(m is not None and int(m.group(2)) == rec and int(m.group(3)) == occ,
                  f'{rel}: {ev}: a loss line with perf record kept {rec} of {occ}')
            if m is not None and ft is not None:
                check(m.group(5) is not None and int(m.group(5)) == ft,
                      f'{rel}: {ev}: the line gives the ftrace capture\'s {ft}')
        else:
            check(ev not in lines, f'{rel}: {ev}: no loss line where perf record kept all {occ}')
        if ft is not None and occ > 20 and rec < 0.5 * occ:
            # the independent part: perf stat counted OCC; the reader really delivers them after the merge
            check(got is not None and got >= 0.95 * occ,
                  f'{rel}: {ev}: perf record kept {rec} of {occ}; the merged stream delivers {got} (>= 95%)')
        if got is not None and occ > 20 and rec >= occ:
            check(got <= 1.02 * occ + 2, f'{rel}: {ev}: merged {got}, perf stat counted {occ}: no duplicates')
    tot = re.search(r'^loss check: perf record kept (\d+) of (\d+) tracepoint events that occurred \(([\d.]+)%\)'
                    r'(?:; with the events only the ftrace capture holds \(the reader merges them\) ([\d.]+)%)?',
                    p.stdout + p.stderr, re.M)
    check(tot is not None and int(tot.group(1)) == rec_all and int(tot.group(2)) == occ_all,
          f'{rel}: the total line: perf record kept {rec_all} of {occ_all}')
    if tot is not None and occ_all:
        check(tot.group(4) is not None and abs(float(tot.group(4)) - 100.0 * best_all / occ_all) < 0.06,
              f'{rel}: with the ftrace capture {100.0 * best_all / occ_all:.1f}% (line: {tot.group(4)})')

# the categories table ends with the same loss check (text only; the JSON has its own lost_events)
for rel in FIXTURES:
    path = os.path.join(SRC, rel)
    out = subprocess.run([SUMMARY, '--categories', path], capture_output=True, text=True).stdout
    check(re.search(r'^Percent accounted.*\n(?:.*\n)*loss check: perf record kept \d+ of \d+ tracepoint events', out, re.M)
          is not None, f'{rel}: rsp-summary --categories ends with the loss check')

if failures:
    print(f'{len(failures)} failure(s)')
    sys.exit(1)
print('all loss-check checks passed')
