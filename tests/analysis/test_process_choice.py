#!/usr/bin/env python3
"""Which process rsp-summary --categories analyses, and why, on perf.data files written byte by byte
(tests/unit/synthetic_perf.py) with no FILE.meta. The truth is the file's construction:

  perf's header (HEADER_CMDLINE): perf record -e cpu-clock -a -- make -j2
  pid 1000 "sh" execs "worker" at 1.1 ms (the first exec of the recording: the old guess) and runs 1-4 ms;
  pid 2000 "worker", threads 2000 (4-4.5 ms) and 2001 (4.5-5 ms);
  pid 3000 "perf-exec" (synthesized, as perf names the child it forks) execs "make" at 5.2 ms, runs 5-6 ms.

So: the workload is 3000 (perf's child that exec'd the recorded command), not 1000; --comm worker is 1000
(3 ms against 2000's 1 ms, the other listed); --pid 2001 is a thread of 2000; --tolerance-us=0 and
--poll-gap-us=0 are zero, not the default. A second file without the perf-exec child and with a command line
naming no command (rsp-record's own perf, which enables later, system-wide) falls back to the process that ran the
most (1000: 3 ms against 1 ms each for 2000 and 3000), and says it guessed (tests/model/test-tasks.c has a busiest
process that is not the first exec)."""
import json
import os
import struct
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ['RSP_SUMMARY']
sys.path.insert(0, os.path.join(SRC, 'tests', 'unit'))
import synthetic_perf as sp  # noqa: E402

MS = 1_000_000
CONTEXT_SWITCH, COMM, TASK = 1 << 26, 1 << 9, 1 << 13
MISC_SWITCH_OUT = MISC_COMM_EXEC = 1 << 13
failures = []


def check(cond, what):
    print(('ok: ' if cond else 'FAIL: ') + what)
    if not cond:
        failures.append(what)


def write(path, cmdline, perf_exec=True):
    st = sp.IP | sp.TID | sp.TIME | sp.CPU | sp.PERIOD | sp.IDENTIFIER
    clock = sp.Attr('cpu-clock', sp.attr(1, 0, st, flags=sp.SAMPLE_ID_ALL | CONTEXT_SWITCH | COMM | TASK), [10])

    def comm(pid, tid, name, t, exec_=False):
        body = struct.pack('<II', pid, tid) + sp.pad8(name.encode() + b'\0')
        return sp.record(sp.REC['COMM'], body + clock.trailer(pid, tid, t, 10, 0), misc=MISC_COMM_EXEC if exec_ else 0)

    def switch(out, pid, tid, other_pid, other_tid, t):
        body = struct.pack('<II', other_pid, other_tid) + clock.trailer(pid, tid, t, 10, 0)
        return sp.record(sp.REC['SWITCH_CPU_WIDE'], body, misc=MISC_SWITCH_OUT if out else 0)

    recs = [comm(1000, 1000, 'sh', 0), comm(2000, 2000, 'worker', 0), comm(2000, 2001, 'worker', 0)]
    recs.append(comm(3000, 3000, 'perf-exec' if perf_exec else 'bash', 0))
    runs = [(1000, 1000, 1.0, 4.0), (2000, 2000, 4.0, 4.5), (2000, 2001, 4.5, 5.0), (3000, 3000, 5.0, 6.0)]
    events = []
    prev = (0, 0)
    for pid, tid, a, b in runs:
        events.append((int(a * MS), 0, switch(True, *prev, pid, tid, int(a * MS)) if prev[1] else None))
        events.append((int(a * MS), 1, switch(False, pid, tid, *prev, int(a * MS))))
        prev = (pid, tid)
    events.append((6 * MS, 0, switch(True, 3000, 3000, 0, 0, 6 * MS)))
    events.append((int(1.1 * MS), 2, comm(1000, 1000, 'worker', int(1.1 * MS), True)))
    events.append((int(5.2 * MS), 2, comm(3000, 3000, 'make', int(5.2 * MS), True)))
    for t, _, r in sorted(events, key=lambda e: (e[0], e[1])):
        if r:
            recs.append(r)
    data = b''.join(recs)
    feats = {12: sp.event_desc([clock]), 11: sp.cmdline(cmdline)}
    with open(path, 'wb') as f:
        f.write(sp.perf_data_file([clock], data, feats))


def summary(*args):
    p = subprocess.run([SUMMARY, '--categories', *args], capture_output=True, text=True, timeout=60)
    if p.returncode:
        print(p.stdout, p.stderr)
    return p


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'choice.data')
        write(path, ['/usr/bin/perf', 'record', '-e', 'cpu-clock', '-a', '--', 'make', '-j2'])
        p = summary('--format=json', path)
        check(p.returncode == 0, f'--categories exits 0 ({p.stderr.strip()[:200]})')
        if p.returncode == 0:
            j = json.loads(p.stdout)
            poi = j['process_of_interest']
            check(j['pid'] == 3000 and poi['pid'] == 3000, f'the workload is perf\'s child 3000, got {poi}')
            check(poi['chosen_by'] == 'perf-exec', f'chosen by perf-exec: {poi}')
            check(poi.get('recorded_command') == 'make -j2', f'recorded command: {poi}')
            check(j['tolerance_ns'] == 100000 and j['poll_gap_ns'] == 100000, 'defaults when not given')
        p = summary(path)
        first = p.stdout.splitlines()[0] if p.stdout else ''
        check(first.startswith('Process of interest: pid 3000 (make): ') and 'perf-exec' in first
              and 'make -j2' in first, f'one line says which and why: {first!r}')

        p = summary('--comm', 'worker', '--format=json', path)
        if p.returncode == 0:
            poi = json.loads(p.stdout)['process_of_interest']
            check(poi['pid'] == 1000 and poi['chosen_by'] == 'comm', f'--comm worker: the longest-running, 1000: {poi}')
            others = poi.get('others', [])
            check([o['pid'] for o in others] == [2000] and abs(others[0]['runtime_ms'] - 1.0) < 1e-6,
                  f'--comm worker lists 2000 (1 ms): {others}')
        else:
            check(False, f'--comm worker exits {p.returncode}')
        p = summary('--comm', 'worker', path)
        first = p.stdout.splitlines()[0] if p.stdout else ''
        check(first.startswith('Process of interest: pid 1000 (worker): ') and '2000 (1.000 ms)' in first
              and '3.000 ms' in first, f'--comm text line: {first!r}')

        p = summary('--pid', '2001', '--format=json', path)
        poi = json.loads(p.stdout)['process_of_interest'] if p.returncode == 0 else {}
        check(poi.get('pid') == 2000 and poi.get('chosen_by') == 'thread', f'--pid 2001 is a thread of 2000: {poi}')
        p = summary('--pid', '4242', path)
        check(p.returncode == 1 and 'no process with pid 4242' in p.stderr, f'--pid 4242: {p.returncode} {p.stderr!r}')

        p = summary('--tolerance-us=0', '--poll-gap-us', '0', '--format=json', path)
        j = json.loads(p.stdout) if p.returncode == 0 else {}
        check(j.get('tolerance_ns') == 0 and j.get('poll_gap_ns') == 0, f'0 means zero: {j.get("tolerance_ns")} '
              f'{j.get("poll_gap_ns")}')
        p = summary('--tolerance-us=-1', path)
        check(p.returncode == 2, f'a negative tolerance is refused ({p.returncode})')

        guess = os.path.join(tmp, 'guess.data')
        write(guess, ['/usr/bin/perf', 'record', '-a', '-k', 'CLOCK_MONOTONIC', '-e', 'cpu-clock', '-D', '-1',
                      '--control', 'fd:9,15'], perf_exec=False)
        p = summary('--format=json', guess)
        poi = json.loads(p.stdout)['process_of_interest'] if p.returncode == 0 else {}
        check(poi.get('pid') == 1000 and poi.get('chosen_by') == 'busiest' and 'guess' in poi.get('reason', '')
              and 'recorded_command' not in poi, f'system-wide, no command, no perf-exec: the busiest, a guess: {poi}')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
