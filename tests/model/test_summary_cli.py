#!/usr/bin/env python3
"""rsp-summary's command line: --help, a bad file (the reader's error, exit 1), a recording without scheduler
events (a clear message, exit 1), text and JSON output on a fixture, a sampled-tracepoint warning, and the choice of
where runs come from (switch records when the file has them, else sched:sched_switch)."""
import json
import os
import re
import shutil
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
    keys = {'pid', 'tid', 'comm', 'comms', 'generation', 'parent_pid', 'parent_tid', 'runtime_ms', 'sleep_ms',
            'sleep_s_ms', 'sleep_other_ms', 'sched_delay_ms', 'iowait_ms', 'preempted_ms', 'samples', 'runs', 'sleeps',
            'inferred_starts', 'sleeps_without_wakeup'}
    check(rows and all(keys <= set(r) for r in rows), 'json keys')
    check(all(abs(r['sleep_ms'] - r['sleep_s_ms'] - r['iowait_ms'] - r['sleep_other_ms']) < 1e-5 for r in rows),
          'sleep = S + D + other')
    check(all(r['preempted_ms'] <= r['sleep_other_ms'] + 1e-9 for r in rows), 'preempted is part of other')
    check(all(r['comm'] == r['comms'][-1] for r in rows if r['comms']), 'comm is the last of comms')
    check(any(r['generation'] > 0 for r in rows), 'an exec made a second generation (the fixture runs commands)')
    check(any(r['parent_tid'] > 0 for r in rows), 'parents from FORK')
    check([r['runtime_ms'] for r in rows] == sorted((r['runtime_ms'] for r in rows), reverse=True), 'json order')
    check(all(r['iowait_ms'] <= r['sleep_ms'] + 1e-9 for r in rows), 'iowait <= sleep')
    check(any(r['iowait_ms'] > 0 for r in rows), 'some task waited on I/O (the fixture reads cold files)')
    check('runs from PERF_RECORD_SWITCH records' in p.stderr, f'source with switch records: {p.stderr!r}')
    p = run('--tasks', '--no-switch-records', fixture)
    check(p.returncode == 0 and 'runs from sched:sched_switch' in p.stdout, '--no-switch-records')
    # recordings without switch records: runs from the tracepoint, without being told
    for rel in ('tests/model/data/grep-pingpong-tracepoints.data',):
        path = os.path.join(SRC, rel)
        if os.path.exists(path):
            p = run('--tasks', path)
            check(p.returncode == 0 and 'runs from sched:sched_switch' in p.stdout and 'inferred' in p.stdout,
                  f'{rel}: {p.returncode} {p.stdout[-400:]!r} {p.stderr!r}')
    # plain `perf record -- CMD` (no rsp-record metadata): the process of interest is the child perf forked, which
    # perf script shows named "perf-exec" before it execs CMD (not the first exec of some other process)
    for rel in ('tests/model/data/grep-pingpong-tracepoints.data', 'tests/model/data/grep-pingpong.data'):
        path = os.path.join(SRC, rel)
        perf = shutil.which('perf')
        if not (os.path.exists(path) and perf):
            continue
        ps = subprocess.run([perf, 'script', '-i', path, '--show-task-events'], capture_output=True, text=True).stdout
        m = re.search(r'PERF_RECORD_COMM: perf-exec:(\d+)/', ps)
        check(m is not None, f'{rel}: perf script shows no perf-exec child')
        p = run('--categories', '--format=json', path)
        check(p.returncode == 0, f'{rel}: --categories exit {p.returncode}: {p.stderr}')
        if m and p.returncode == 0:
            j = json.loads(p.stdout)
            pids = [q['pid'] for q in j['processes']]
            check(int(m.group(1)) in pids and j['wall_ms'] > 0,
                  f'{rel}: process of interest should be the perf-exec child {m.group(1)}, got {pids[:5]}')
    p = run('--tasks', fixture)
    check(p.returncode == 0 and 'RUN ms' in p.stdout and 'loss:' in p.stdout, 'text output')
    print(p.stdout.splitlines()[1] if p.returncode == 0 else p.stderr)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
