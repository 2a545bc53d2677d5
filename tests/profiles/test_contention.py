#!/usr/bin/env python3
"""rsp-diff on a pair with known CPU contention (tests/profiles/data/contention-{a,b}.data, recorded by record.sh):
a pipe ping-pong (pingpong.c: parent pinned to CPU 0, child to CPU 1) alone, then beside a busy loop pinned to CPU 0
(cpuhog.c, outside the recorded command's tree), so the parent's wakeups wait for the CPU.

The oracle is perf's own data through perf script, not rsp: for every task named pingpong, the delay from its
sched:sched_waking to its next PERF_RECORD_SWITCH IN (a switch OUT in between cancels it), and the number of its
switch OUT records flagged preempt. It must confirm the workload's truth (B's median wakeup delay at least twice
A's); then rsp-diff --format=json must rank first a scheduler class of the ping-pong (sched-delay or preemption),
changed in the direction the oracle's matching quantity changed, its totals within 15% of the oracle's, and the
categories table's scheduler overhead grown by the oracle's growth of wakeup delay (within 15%). The text report
must rank the same class first. The ping-pong's waits (rsp-summary --profiles) must be other_path as many
times (within 2%) as perf script shows a sleep of one ping-pong task woken by the other. Skipped (77) without perf.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
DIFF = os.environ.get('RSP_DIFF', os.path.join(BUILD, 'src', 'tools', 'rsp-diff'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
DATA = os.path.join(SRC, 'tests', 'profiles', 'data')
A, B = os.path.join(DATA, 'contention-a.data'), os.path.join(DATA, 'contention-b.data')
LINE = re.compile(r'^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+)(.*)$')
WAKING = re.compile(r'comm=(\S+) pid=(\d+)')
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL:', msg)


def oracle(path, comm='pingpong'):
    """The ping-pong tasks' wakeup delays (ns) and preemption count, from perf script."""
    out = subprocess.run(['perf', 'script', '-i', path, '--ns', '-F', 'comm,pid,tid,cpu,time,event,trace',
                          '--show-switch-events'], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PERF_BUILDID_DIR='/nonexistent')).stdout
    waking, delays, preemptions, tids = {}, [], 0, set()
    asleep, woken_by, by_peer, sleeps = set(), {}, 0, 0  # blocking sleeps; who fired the first waking in each
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        t = int(m[5]) * 10**9 + int(m[6].ljust(9, '0'))
        event, rest = m[7], m[8].split()
        if event == 'sched:sched_waking:':
            w = WAKING.search(m[8])
            if w and w[1] == comm:
                waking.setdefault(int(w[2]), t)
                if int(w[2]) in asleep:
                    woken_by.setdefault(int(w[2]), (m[1], int(m[3])))
        elif event.startswith('PERF_RECORD_SWITCH') and m[1] == comm and rest:
            tid = int(m[3])
            tids.add(tid)
            if rest[0] == 'IN':
                if tid in asleep:
                    sleeps += 1
                    waker = woken_by.pop(tid, None)
                    by_peer += waker is not None and waker[0] == comm and waker[1] != tid
                    asleep.discard(tid)
                if tid in waking:
                    delays.append(t - waking.pop(tid))
            elif rest[0] == 'OUT':
                waking.pop(tid, None)
                woken_by.pop(tid, None)
                preemptions += 'preempt' in rest
                if 'preempt' not in rest:
                    asleep.add(tid)
    return {'delays': delays, 'sched-delay': sum(delays), 'preemption': preemptions, 'tids': tids,
            'sleeps': sleeps, 'woken_by_peer': by_peer}


def main():
    if not shutil.which('perf'):
        print('perf not found: skipped')
        return 77
    oa, ob = oracle(A), oracle(B)
    for name, o in (('A', oa), ('B', ob)):
        print(f'oracle {name}: tasks {sorted(o["tids"])}, {len(o["delays"])} wakeups, delay total '
              f'{o["sched-delay"] / 1e6:.3f} ms, median {statistics.median(o["delays"]) / 1e3:.1f} us, '
              f'{o["preemption"]} preemptions')
    check(len(oa['tids']) == 2 and len(ob['tids']) == 2, 'oracle: the ping-pong is not two tasks')
    check(len(oa['delays']) >= 500 and len(ob['delays']) >= 500, 'oracle: fewer than 500 wakeups')
    check(statistics.median(ob['delays']) >= 2 * statistics.median(oa['delays']),
          'oracle: the hog did not delay the wakeups (B median < 2 x A median)')

    out = subprocess.run([DIFF, '--format=json', A, B], capture_output=True, text=True)
    check(out.returncode == 0, f'rsp-diff --format=json: exit {out.returncode}: {out.stderr}')
    report = json.loads(out.stdout)
    pairs = report['pairs']
    check(len(pairs) > 0, 'nothing ranked')
    if pairs:
        top = pairs[0]
        print(f'rsp-diff rank 1: {top["class"]} of {top["process"]}, distance {top["distance"]}, '
              f'A {top["a"]}, B {top["b"]}: {top["why"]}')
        check(top['process'] == 'pingpong', f'rank 1 is of {top["process"]}, not the ping-pong')
        check(top['class'] in ('sched-delay', 'preemption'), f'rank 1 is {top["class"]}, not a scheduler class')
        if top['class'] in ('sched-delay', 'preemption') and top['a'] and top['b']:
            key = 'total_ns' if top['class'] == 'sched-delay' else 'count'
            mine_a, mine_b = top['a'][key], top['b'][key]
            truth_a, truth_b = oa[top['class']], ob[top['class']]
            print(f'{top["class"]} {key}: rsp {mine_a} -> {mine_b}, perf script {truth_a} -> {truth_b}')
            check((mine_b > mine_a) == (truth_b > truth_a) and mine_b != mine_a,
                  f'{top["class"]}: rsp says {mine_a} -> {mine_b}, perf script {truth_a} -> {truth_b}')
            slack = 0.15 if key == 'total_ns' else 0.25
            for mine, truth, side in ((mine_a, truth_a, 'A'), (mine_b, truth_b, 'B')):
                check(abs(mine - truth) <= slack * truth + 2,
                      f'{top["class"]} {side}: rsp {mine}, perf script {truth}')
    # the categories of the recorded command's paths: scheduler overhead grew by what the wakeup delays grew
    cats = report.get('categories', {})
    grow = ob['sched-delay'] - oa['sched-delay']
    sched = cats.get('scheduler')
    mine = sched['b_ns'] - sched['a_ns'] if sched else None
    print(f'scheduler overhead growth: rsp {mine / 1e6 if sched else "-"} ms, perf script wakeup delays '
          f'{grow / 1e6:.3f} ms')
    check(sched is not None and abs(mine - grow) <= 0.15 * grow, 'scheduler overhead growth differs from the oracle')
    # the waits' causes (the categories of rsp-summary --categories): a sleep of the ping-pong woken by the other
    # ping-pong task (the task that fired its sched_waking, in perf script) is a wait on another control path
    for path, o in ((A, oa), (B, ob)):
        out = subprocess.run([SUMMARY, '--profiles', '--format=json', path], capture_output=True, text=True)
        check(out.returncode == 0, f'rsp-summary --profiles {path}: exit {out.returncode}: {out.stderr}')
        causes = {}
        for p in json.loads(out.stdout) if out.returncode == 0 else []:
            if p['process'] == 'pingpong' and p['class'].startswith('wait'):
                for b in p['buckets']:
                    for k, v in b['causes'].items():
                        causes[k] = causes.get(k, 0) + v
        n = causes.get('other_path', 0)
        print(f'{os.path.basename(path)}: pingpong waits by cause {causes}; perf script: {o["sleeps"]} sleeps, '
              f'{o["woken_by_peer"]} woken by the other ping-pong task')
        check(o['woken_by_peer'] >= 0.9 * o['sleeps'], 'oracle: the ping-pong\'s sleeps are not woken by its peer')
        check(abs(n - o['woken_by_peer']) <= 0.02 * o['woken_by_peer'] + 2,
              f'{path}: {n} other_path waits, perf script {o["woken_by_peer"]} woken by the peer')
    # the text report ranks the same class first
    text = subprocess.run([DIFF, A, B], capture_output=True, text=True)
    ranked = [l for l in text.stdout.splitlines() if re.match(r'^\s+\d+\s+(\d|inf)', l)]
    check(bool(ranked) and pairs and re.match(r'^\s+1\s+\S+\s+' + re.escape(pairs[0]['class']) + r'\s+pingpong\b',
                                              ranked[0]) is not None, 'text and json rank different classes first')
    bad = subprocess.run([DIFF, '--format=xml', A, B], capture_output=True, text=True)
    check(bad.returncode == 2 and 'xml' in bad.stderr, '--format=xml accepted')
    if failures:
        print(f'{len(failures)} failures')
        return 1
    print('contention pair against perf script: all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
