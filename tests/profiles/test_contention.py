#!/usr/bin/env python3
"""rsp-diff on a pair with known CPU contention (tests/profiles/data/contention-{a,b}.data, recorded by record.sh):
a pipe ping-pong (pingpong.c: parent pinned to CPU 0, child to CPU 1) alone, then beside a busy loop pinned to CPU 0
(cpuhog.c, outside the recorded command's tree), so the parent's wakeups wait for the CPU.

The oracle is perf's own data through perf script, not rsp: for every task named pingpong, the delay from its
sched:sched_waking to its next PERF_RECORD_SWITCH IN (a switch OUT in between cancels it), and the number of its
switch OUT records flagged preempt. It must confirm the workload's truth (B's median wakeup delay at least twice
A's); then rsp-diff --format=json must rank first a scheduler class of the ping-pong (sched-delay or preemption),
changed in the direction the oracle's matching quantity changed, its totals within 15% of the oracle's, and the
categories table's time behind other tasks (contention) grown by the oracle's growth of the wakeup delays' time in
which another process ran on the cpu the woken task then ran on, and its scheduler overhead by the growth of the rest
(the cpu idle), within 15% of the growth of the delays; cpuhog must be B's top preemptor, its time within 15% of the
oracle's (the switch records' occupancy of the cpu during the delays). The text report
must rank the same class first. The ping-pong's waits (rsp-summary --profiles) must be other_path as many
times (within 2%) as perf script shows a sleep of one ping-pong task woken by the other. Skipped (77) without perf.
"""
import bisect
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
    spans = []  # (cpu, waking, switch-in) of each delay
    occupant = {}  # cpu -> [(time, comm of the task switched in there, or None when switched out)]
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
        elif event.startswith('PERF_RECORD_SWITCH') and rest and rest[0] in ('IN', 'OUT'):
            occupant.setdefault(int(m[4]), []).append((t, m[1] if rest[0] == 'IN' else None))
        if event.startswith('PERF_RECORD_SWITCH') and m[1] == comm and rest:
            tid = int(m[3])
            tids.add(tid)
            if rest[0] == 'IN':
                if tid in asleep:
                    sleeps += 1
                    waker = woken_by.pop(tid, None)
                    by_peer += waker is not None and waker[0] == comm and waker[1] != tid
                    asleep.discard(tid)
                if tid in waking:
                    delays.append(t - waking[tid])
                    spans.append((int(m[4]), waking.pop(tid), t))
            elif rest[0] == 'OUT':
                waking.pop(tid, None)
                woken_by.pop(tid, None)
                preemptions += 'preempt' in rest
                if 'preempt' not in rest:
                    asleep.add(tid)
    # who held the cpu during each delay: the time of each other process, the rest idle
    behind = {}
    for cpu, a, b in spans:
        occ = occupant.get(cpu, [])
        i = max(bisect.bisect_right(occ, (a, '\uffff')) - 1, 0)
        while i < len(occ) and occ[i][0] < b:
            x, y = max(occ[i][0], a), min(occ[i + 1][0] if i + 1 < len(occ) else b, b)
            if y > x and occ[i][1] not in (None, comm):
                behind[occ[i][1]] = behind.get(occ[i][1], 0) + y - x
            i += 1
    return {'delays': delays, 'sched-delay': sum(delays), 'preemption': preemptions, 'tids': tids,
            'sleeps': sleeps, 'woken_by_peer': by_peer, 'behind': behind}


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
    # the categories of the recorded command's paths: the delays' growth is behind other processes (contention),
    # the rest scheduler overhead
    cats = report.get('categories', {})
    grow = ob['sched-delay'] - oa['sched-delay']
    grow_behind = sum(ob['behind'].values()) - sum(oa['behind'].values())
    print(f'oracle: wakeup delays grew {grow / 1e6:.3f} ms, {grow_behind / 1e6:.3f} ms of it behind other processes; '
          f'B behind cpuhog {ob["behind"].get("cpuhog", 0) / 1e6:.3f} ms')
    check(grow_behind >= 0.8 * grow, 'oracle: the delays did not grow behind other processes')
    for key, truth in (('contention', grow_behind), ('scheduler', grow - grow_behind)):
        cat = cats.get(key)
        mine = cat['b_ns'] - cat['a_ns'] if cat else None
        print(f'{key} growth: rsp {mine / 1e6 if cat else "-"} ms, perf script {truth / 1e6:.3f} ms')
        check(cat is not None and abs(mine - truth) <= 0.15 * grow, f'{key} growth differs from the oracle')
    out = subprocess.run([SUMMARY, '--categories', B], capture_output=True, text=True)
    top = re.search(r'^Top preemptors.*\n\s+(\d+) (\S+)\s+([\d.]+) ms', out.stdout, re.M)
    hog = ob['behind'].get('cpuhog', 0)
    print(f'B top preemptor: {top.group(2) if top else None} {top.group(3) if top else "-"} ms, perf script '
          f'{hog / 1e6:.3f} ms during the delays')
    check(top is not None and top.group(2) == 'cpuhog' and abs(float(top.group(3)) * 1e6 - hog) <= 0.15 * hog,
          'B: cpuhog is not the top preemptor by the oracle\'s time')
    # the answer names the other work on the machine as the biggest lever, cpuhog the most of it
    out = subprocess.run([SUMMARY, '--explain', '--format=json', B], capture_output=True, text=True)
    check(out.returncode == 0, f'rsp-summary --explain --format=json {B}: exit {out.returncode}: {out.stderr[-2000:]}')
    lever = json.loads(out.stdout)['explanation'].get('contention_lever') if out.returncode == 0 else None
    behind = sum(ob['behind'].values())
    print(f'B --explain contention_lever: {lever}; perf script: {behind / 1e6:.3f} ms behind other processes')
    check(lever is not None and lever['top_comm'] == 'cpuhog' and abs(lever['top_ms'] * 1e6 - hog) <= 0.15 * hog and
          abs(lever['ms'] * 1e6 - behind) <= 0.15 * behind, 'B: --explain does not name the contention lever')
    out = subprocess.run([SUMMARY, '--explain', B], capture_output=True, text=True)
    check(out.returncode == 0, f'rsp-summary --explain {B}: exit {out.returncode}: {out.stderr[-2000:]}')
    check('The biggest lever: other work on the machine' in out.stdout and 'cpuhog [' in out.stdout,
          'B: the text does not name the contention lever')
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
