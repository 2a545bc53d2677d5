#!/usr/bin/env python3
"""rsp-summary's command line: --help, a bad file (the reader's error, exit 1), a recording without scheduler
events (a clear message, exit 1), text and JSON output on a fixture, a sampled-tracepoint warning."""
import json
import os
import struct
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ['RSP_SUMMARY']
DUMP = os.environ.get('RSP_DUMP')
sys.path.insert(0, os.path.join(SRC, 'tests', 'unit'))
import synthetic_perf as sp  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL', what)


def run(*args):
    return subprocess.run([SUMMARY] + list(args), capture_output=True, text=True)


def cpu_clock_only(path, tracepoint_period=None):
    """One cpu-clock sample, and optionally an (empty) tracepoint attr with the given period."""
    st = sp.IP | sp.TID | sp.TIME | sp.CPU | sp.PERIOD | sp.IDENTIFIER
    clock = sp.Attr('cpu-clock', sp.attr(1, 0, st), [10])
    attrs = [clock]
    if tracepoint_period:
        attrs.append(sp.Attr('sched:sched_switch', sp.attr(2, 316, st | sp.RAW, period=tracepoint_period), [11]))
    data = sp.Sample(clock, id=10, ip=0xffffffff81000000, pid=42, tid=42, time=1_000_000, cpu=0,
                     period=1_000_000).bytes()
    with open(path, 'wb') as f:
        f.write(sp.perf_data_file(attrs, data, {sp_feat: sp.event_desc(attrs) for sp_feat in [12]}))


def main():
    p = run('--help')
    check(p.returncode == 0 and '--tasks' in p.stdout and '--no-switch-records' in p.stdout, '--help')

    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, 'bad.data')
        with open(bad, 'wb') as f:
            f.write(b'this is not a perf.data file at all')
        p = run('--tasks', bad)
        check(p.returncode == 1, f'bad file: exit {p.returncode}')
        check('not a perf.data file' in p.stderr and bad in p.stderr, f'bad file message: {p.stderr!r}')
        if DUMP:
            d = subprocess.run([DUMP, bad], capture_output=True, text=True)
            reader_msg = d.stderr.strip().split(': ', 1)[-1]
            check(reader_msg and reader_msg in p.stderr, f'not the reader\'s message: {p.stderr!r} vs {d.stderr!r}')

        p = run('--tasks', os.path.join(tmp, 'missing.data'))
        check(p.returncode == 1 and 'missing.data' in p.stderr, f'missing file: {p.returncode} {p.stderr!r}')

        nosched = os.path.join(tmp, 'nosched.data')
        cpu_clock_only(nosched)
        p = run('--tasks', nosched)
        check(p.returncode == 1 and 'no scheduler events' in p.stderr, f'no sched events: {p.returncode} {p.stderr!r}')

        sampled = os.path.join(tmp, 'sampled.data')
        cpu_clock_only(sampled, tracepoint_period=4)
        p = run('--tasks', sampled)
        check('WARNING' in p.stderr and 'sched:sched_switch' in p.stderr, f'sampled tracepoint warning: {p.stderr!r}')

    fixture = os.path.join(SRC, 'tests', 'data', 'sched-block-irq-sock.data')
    p = run('--tasks', '--format=json', fixture)
    check(p.returncode == 0, f'json exit {p.returncode}: {p.stderr}')
    rows = json.loads(p.stdout)
    keys = {'pid', 'tid', 'comm', 'runtime_ms', 'sleep_ms', 'sched_delay_ms', 'iowait_ms', 'samples'}
    check(rows and all(keys <= set(r) for r in rows), 'json keys')
    check([r['runtime_ms'] for r in rows] == sorted((r['runtime_ms'] for r in rows), reverse=True), 'json order')
    check(all(r['iowait_ms'] <= r['sleep_ms'] + 1e-9 for r in rows), 'iowait <= sleep')
    check(any(r['iowait_ms'] > 0 for r in rows), 'some task waited on I/O (the fixture reads cold files)')
    p = run('--tasks', fixture)
    check(p.returncode == 0 and 'RUN ms' in p.stdout and 'loss:' in p.stdout, 'text output')
    print(p.stdout.splitlines()[1] if p.returncode == 0 else p.stderr)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
