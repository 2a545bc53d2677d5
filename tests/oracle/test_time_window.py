#!/usr/bin/env python3
"""Oracle (g): a time window read alone (rsp-dump --window T0:T1, rsp_reader_options.window) delivers every sample and
switch record perf script shows inside [T0, T1], as the same multiset of (time, tid, event), and none outside (margin
0); the records of every other type (COMM, FORK, EXIT, MMAP...) are all delivered, before the window too; the
same without FILE.rsp-index, writing it and reading with it. T0 and T1
are a third and two thirds into perf's span of each fixture: tests/data/*.data, data/sample.perf.data, a model
fixture and the webmail recording of bench/real (decompressed into a temporary directory)."""
import collections
import json
import os
import shutil
import subprocess
import oracle

SWITCH = 'PERF_RECORD_SWITCH'


def perf_keys(path):
    """(time, tid, event) of perf script's samples and switch records (-F pid,tid,cpu,time,event --ns)."""
    out = oracle.perf(['script', '-F', 'pid,tid,cpu,time,event', '--ns', '-G', '--show-switch-events'], path)
    keys = []
    for n, line in enumerate(out.splitlines(), 1):
        if not line.strip():
            continue
        m = oracle._SAMPLE_LINE.match(line)
        if not m:
            raise SystemExit(f'perf script output line {n} not understood: {line!r}')
        _pid, tid, _cpu, time, event = m.groups()
        event = event.split()[0] if event.startswith(SWITCH) else oracle.strip_colon(event)
        keys.append((oracle.parse_time(time), int(tid), event))
    return keys


def rsp_key(ev):
    return (ev['time'], ev['tid'], ev['event'])


def is_per_event(ev):
    return oracle.is_sample(ev) or ev['event'].startswith(SWITCH)


def fixtures():
    """Copies in a temporary directory: the windowed reads write FILE.rsp-index beside FILE."""
    found = []
    for path in oracle.fixtures() + [os.path.join(oracle.SOURCE_ROOT, 'tests', 'model', 'data', 'wl-grep.data')]:
        copy = os.path.join(oracle.TMP, os.path.basename(path))
        shutil.copy(path, copy)
        found.append(copy)
    zst = os.path.join(oracle.SOURCE_ROOT, 'bench', 'real', 'data', 'webmail', 'rec.data.zst')
    if os.path.exists(zst) and shutil.which('zstd'):
        out = os.path.join(oracle.TMP, 'webmail.data')
        subprocess.run(['zstd', '-dqf', zst, '-o', out], check=True)
        found.append(out)
    return found


res = oracle.Result('time window')
for path in fixtures():
    where = os.path.basename(path)
    perf = perf_keys(path)
    times = [k[0] for k in perf if k[0]]
    if len(times) < 10:
        res.ok(where, 'too few timed events for a window: skipped')
        continue
    lo, hi = min(times), max(times)
    t0, t1 = lo + (hi - lo) // 3, lo + 2 * (hi - lo) // 3
    want = collections.Counter(k for k in perf if t0 <= k[0] <= t1)
    # without FILE.rsp-index, then writing it, then reading with it: the last is checked, all must agree
    runs = [oracle.rsp_dump(['--format=jsonl', '--no-ftrace', f'--window={t0}:{t1}', *args, path])
            for args in (['--no-index'], [], [])]
    hi = max(t1, max((k[0] for k in perf if k[0] <= t1), default=t1))
    upto = [[line for line in out.decode().splitlines() if json.loads(line)['time'] <= hi] for out in runs]
    res.check(upto[0] == upto[1] == upto[2], where, 'the same events up to the window\'s end without FILE.rsp-index, '
              'writing it and reading with it')
    got_events = oracle.parse_jsonl(runs[2], 'rsp-dump --window')
    per_event = [ev for ev in got_events if is_per_event(ev)]
    got = collections.Counter(rsp_key(ev) for ev in per_event if t0 <= ev['time'] <= t1)
    outside = [ev for ev in per_event if not t0 <= ev['time'] <= t1]
    missing, extra = want - got, got - want
    res.check(not missing and not extra, where,
              f'{sum(got.values())} samples and switch records in [{t0}, {t1}] as perf script shows them' if not
              missing and not extra else
              f'{sum(missing.values())} missing (first {sorted(missing)[:3]}), {sum(extra.values())} extra '
              f'(first {sorted(extra)[:3]})')
    res.check(not outside, where, f'{len(outside)} samples or switch records outside the window' +
              (f', first: {outside[0]}' if outside else ''))
    # every other record, before, inside and after the window up to where the reading stopped
    full = oracle.parse_jsonl(oracle.rsp_dump(['--format=jsonl', '--no-ftrace', path]), 'rsp-dump')
    others = collections.Counter(rsp_key(ev) for ev in full if not is_per_event(ev) and ev['time'] <= t1)
    got_others = collections.Counter(rsp_key(ev) for ev in got_events if not is_per_event(ev))
    lacking = others - got_others
    res.check(not lacking, where, f'{sum(others.values())} other records up to the window\'s end all delivered' if
              not lacking else f'{sum(lacking.values())} other records not delivered, first {sorted(lacking)[:3]}')
    # the order holds
    timed = [ev['time'] for ev in got_events if ev['time']]
    res.check(timed == sorted(timed), where, 'in time order')
res.finish()
