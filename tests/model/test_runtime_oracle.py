#!/usr/bin/env python3
"""rsp-summary --tasks runtime per thread against perf's own switch records.

(b) For each fixture recorded with --switch-events, the oracle is `perf script --show-switch-events`: per tid, the
sum of the intervals from a PERF_RECORD_SWITCH_CPU_WIDE IN to that tid's next OUT (an OUT without an IN counts
nothing; an IN still open at the end runs to the last timestamp perf prints). rsp-summary's runtime, summed over the
generations (execs) of each tid, must match within 0.5% or 100 us. perf writes the last OUT of an exited task with
pid/tid -1/-1; the oracle gives it to the task switched in on that cpu.

(d) On the same fixtures, per tid: time asleep in state S, in state D (I/O wait) and the scheduler delay, from the
same records and perf's own text of the tracepoints (a sleep runs from an OUT to the tid's next IN; its state is the
prev_state of the last sched:sched_switch with that prev_pid before the OUT; the delay runs from the last
sched_waking/sched_wakeup naming the tid during the sleep to the IN). Same tolerance.

(c) With --no-switch-records rsp builds runs from sched:sched_switch alone and infers the switch-ins this kernel does
not trace; for each task with >= 50 cpu-clock samples (counted by perf script) the runtime must be within 15% of
samples x period (perf's sampling period in ns, from the sample's period field).
Skipped (77) without perf.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ.get('RSP_SUMMARY')
FIXTURES = ['tests/data/sched-block-irq-sock.data', 'tests/data/zstd.data', 'tests/data/pipe-mode.data',
            'data/sample.perf.data']
LINE = re.compile(r'^\s*(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+)(.*)$')


def perf_lines(path, *extra, fields='pid,tid,cpu,time,event,period'):
    out = subprocess.run(['perf', 'script', '-i', path, '--ns', '-F', fields] + list(extra),
                         capture_output=True, text=True, check=True,
                         env=dict(os.environ, PERF_BUILDID_DIR='/nonexistent')).stdout
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            yield (int(m[1]), int(m[2]), int(m[3]), int(m[4]) * 10**9 + int(m[5].ljust(9, '0')), m[6], m[7])


def oracle_runtimes(path):
    runtime = defaultdict(int)
    current = {}  # cpu -> (tid, IN time)
    last = 0
    n_switch = 0
    for pid, tid, cpu, t, event, rest in perf_lines(path, '--show-switch-events'):
        last = max(last, t)
        if not event.startswith('PERF_RECORD_SWITCH'):
            continue
        n_switch += 1
        if rest.split()[0] == 'IN':
            if tid > 0:
                current[cpu] = (tid, t)
            else:
                current.pop(cpu, None)
        elif cpu in current and (tid == current[cpu][0] or tid == -1):
            # perf writes the last OUT of an exited task with pid/tid -1/-1: it is the task switched in there
            tid, start = current.pop(cpu)
            runtime[tid] += t - start
    for tid, start in current.values():
        runtime[tid] += last - start
    assert n_switch > 100, f'{path}: only {n_switch} switch records in perf script output'
    return runtime


def oracle_sleeps(path):
    """Per tid: sleep time (from a switch-out to the tid's next switch-in) in state S and in state D, the state
    being the prev_state of the last sched:sched_switch with that prev_pid before the OUT record, and the scheduler
    delay (the last sched_waking/sched_wakeup of the tid during the sleep to the switch-in)."""
    s_ns, d_ns, delay = defaultdict(int), defaultdict(int), defaultdict(int)
    current = {}   # cpu -> tid switched in there
    last_state = {}  # tid -> prev_state of its last sched_switch
    asleep = {}    # tid -> (OUT time, state, last wakeup or None)
    for pid, tid, cpu, t, event, rest in perf_lines(path, '--show-switch-events',
                                                      fields='pid,tid,cpu,time,event,trace'):
        if event.startswith('PERF_RECORD_SWITCH'):
            if rest.split()[0] == 'IN':
                if tid > 0 and tid in asleep:
                    start, state, wake = asleep.pop(tid)
                    if state == 'S':
                        s_ns[tid] += t - start
                    elif state == 'D':
                        d_ns[tid] += t - start
                    if wake is not None:
                        delay[tid] += t - wake
                current[cpu] = tid
            else:
                if tid == -1:
                    tid = current.get(cpu, -1)
                if tid > 0:
                    asleep[tid] = (t, last_state.pop(tid, None), None)
                current.pop(cpu, None)
        elif event == 'sched:sched_switch:':
            f = dict(kv.split('=', 1) for kv in rest.split() if '=' in kv)
            last_state[int(f['prev_pid'])] = f['prev_state']
        elif event in ('sched:sched_waking:', 'sched:sched_wakeup:'):
            f = dict(kv.split('=', 1) for kv in rest.split() if '=' in kv)
            target = int(f['pid'])
            if target in asleep:
                start, state, _ = asleep[target]
                asleep[target] = (start, state, t)
    return s_ns, d_ns, delay


def oracle_samples(path):
    """cpu-clock samples per tid and their summed period (ns)."""
    n = defaultdict(int)
    ns = defaultdict(int)
    for pid, tid, cpu, t, event, rest in perf_lines(path):
        # with the period field perf prints "PERIOD  EVENT:" after the time
        if rest.strip().startswith('cpu-clock') and tid > 0:
            n[tid] += 1
            ns[tid] += int(event)
    return n, ns


def summary(path, *extra):
    p = subprocess.run([SUMMARY, '--tasks', '--format=json'] + list(extra) + [path], capture_output=True, text=True)
    assert p.returncode == 0, f'rsp-summary {path} failed ({p.returncode}): {p.stderr}'
    rows = json.loads(p.stdout)
    by_tid = defaultdict(float)
    comm = {}
    for r in rows:
        by_tid[r['tid']] += r['runtime_ms'] * 1e6
        comm.setdefault(r['tid'], r['comm'])
    summary.rows = rows
    return by_tid, comm, p.stderr


def main():
    if not shutil.which('perf') or not SUMMARY:
        print('perf or RSP_SUMMARY missing: skipped')
        return 77
    failures = []
    for rel in FIXTURES:
        path = os.path.join(SRC, rel)
        want = oracle_runtimes(path)
        got, comm, _ = summary(path)
        checked = worst = 0
        for tid in sorted(set(want) | set(got)):
            w, g = want.get(tid, 0), got.get(tid, 0.0)
            diff = abs(g - w)
            if diff > max(0.005 * w, 100_000):
                failures.append(f'{rel}: tid {tid} ({comm.get(tid, "?")}): rsp {g / 1e6:.3f} ms, perf {w / 1e6:.3f} ms')
            worst = max(worst, diff)
            checked += 1
        # (d) sleeps by state and scheduler delay, against the same switch records and perf's tracepoint text
        s_ns, d_ns, delay = oracle_sleeps(path)
        rs, rd, rdelay = defaultdict(float), defaultdict(float), defaultdict(float)
        for r in summary.rows:
            rs[r['tid']] += r['sleep_s_ms'] * 1e6
            rd[r['tid']] += r['iowait_ms'] * 1e6
            rdelay[r['tid']] += r['sched_delay_ms'] * 1e6
        for name, w_by, g_by in (('S sleep', s_ns, rs), ('I/O wait', d_ns, rd), ('sched delay', delay, rdelay)):
            for tid in sorted(set(w_by) | set(g_by)):
                w, g = w_by.get(tid, 0), g_by.get(tid, 0.0)
                if abs(g - w) > max(0.005 * w, 100_000):
                    failures.append(f'{rel}: tid {tid} ({comm.get(tid, "?")}): {name} rsp {g / 1e6:.3f} ms, '
                                    f'perf {w / 1e6:.3f} ms')
            print(f'(d) {rel}: {name} total rsp {sum(g_by.values()) / 1e6:.3f} ms, '
                  f'perf {sum(w_by.values()) / 1e6:.3f} ms')
        total_w, total_g = sum(want.values()), sum(got.values())
        print(f'(b) {rel}: {checked} threads, total runtime rsp {total_g / 1e6:.3f} ms, perf {total_w / 1e6:.3f} ms, '
              f'worst thread difference {worst / 1e3:.1f} us')

    rel = 'tests/data/sched-block-irq-sock.data'
    path = os.path.join(SRC, rel)
    n, ns = oracle_samples(path)
    got, comm, stderr = summary(path, '--no-switch-records')
    checked = 0
    for tid in sorted(n):
        if n[tid] < 50:
            continue
        checked += 1
        g, w = got.get(tid, 0.0), ns[tid]
        ratio = g / w if w else float('inf')
        print(f'(c) {rel} --no-switch-records: tid {tid} ({comm.get(tid, "?")}): {n[tid]} samples x period = '
              f'{w / 1e6:.3f} ms, rsp runtime {g / 1e6:.3f} ms ({(ratio - 1) * 100:+.1f}%)')
        if abs(ratio - 1) > 0.15:
            failures.append(f'(c) tid {tid}: runtime {g / 1e6:.3f} ms vs samples {w / 1e6:.3f} ms')
    print('(c) ' + stderr.strip().replace('\n', '\n(c) '))
    if not checked:
        failures.append('(c) no task with >= 50 cpu-clock samples')
    for f in failures:
        print('FAIL', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
