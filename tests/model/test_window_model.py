#!/usr/bin/env python3
"""A model of a time window (rsp-summary --range T0:T1, rsp_model_options.window) against the model of the whole
recording cut to the same range (--load-all, the oracle): every task's run time inside [T0, T1] within 0.1 ms, so
T0:T1 means the same with and without the window. On a model fixture with switch records, one without (runs from
sched:sched_switch) and the webmail and dovecot recordings of bench/real with their ftrace side stream, a window
in the middle of each."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ['RSP_SUMMARY']
TOLERANCE_MS = 0.1
failures = []


def check(cond, what):
    print('ok  ' if cond else 'FAIL', what, flush=True)
    if not cond:
        failures.append(what)


def summary(path, *args):
    p = subprocess.run([SUMMARY, '--tasks', '--format=json', *args, path], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f'rsp-summary {" ".join(args)} {path}: exit {p.returncode}\n{p.stderr[-3000:]}')
    return {(r['pid'], r['tid'], r['comm'], r['generation']): r for r in json.loads(p.stdout)}


def compare(where, path, t0_ms, t1_ms):
    rng = f'--range={t0_ms}ms:{t1_ms}ms'
    win = summary(path, rng)
    full = summary(path, rng, '--load-all')
    bad = []
    total = 0.0
    for key in set(win) | set(full):
        a = win.get(key, {}).get('runtime_ms', 0.0)
        b = full.get(key, {}).get('runtime_ms', 0.0)
        total += b
        if abs(a - b) > TOLERANCE_MS:
            bad.append((key, a, b))
    check(not bad and total > 0, f'{where} [{t0_ms} ms, {t1_ms} ms]: run time of {len(full)} tasks ({total:.3f} ms) '
          f'as the whole model cut there' + (f'; {len(bad)} differ, first {sorted(bad)[:3]}' if bad else ''))


def span_ms(path):
    """The recording's span from rsp-summary's whole model: the sum of nothing, so from perf's header instead."""
    dump = os.environ.get('RSP_DUMP')
    out = subprocess.run([dump, '--header', path], capture_output=True, text=True, check=True).stdout
    h = json.loads(out)
    return (h['sample_time_last'] - h['sample_time_first']) / 1e6


tmp = tempfile.mkdtemp(prefix='rsp-window-')
try:
    cases = []
    for rel in ('tests/model/data/wl-grep.data', 'tests/model/data/wl-make-noswitch.data'):
        copy = os.path.join(tmp, os.path.basename(rel))  # the windowed reads write FILE.rsp-index beside FILE
        shutil.copy(os.path.join(SRC, rel), copy)
        cases.append((rel, copy))
    for name in ('webmail', 'dovecot'):
        d = os.path.join(SRC, 'bench/real/data', name)
        if not shutil.which('zstd') or not os.path.exists(os.path.join(d, 'rec.data.zst')):
            continue
        out = os.path.join(tmp, name + '.data')
        subprocess.run(['zstd', '-dqf', os.path.join(d, 'rec.data.zst'), '-o', out], check=True)
        if os.path.isdir(os.path.join(d, 'rec.data.ftrace')):
            os.symlink(os.path.join(d, 'rec.data.ftrace'), out + '.ftrace')
        cases.append((f'bench/real/data/{name}', out))
    for where, path in cases:
        span = span_ms(path)
        a, b = round(span / 3, 3), round(2 * span / 3, 3)
        compare(where, path, a, b)
        compare(where, path, round(span / 2, 3), round(span / 2 + 20, 3))  # a short one
finally:
    shutil.rmtree(tmp)
sys.exit(1 if failures else 0)
