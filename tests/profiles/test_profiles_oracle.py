#!/usr/bin/env python3
"""Latency profiles of real recordings (tests/profiles/data/, recorded by record.sh with rsp-record) against
oracles that do not use rsp: perf script's text of perf's own switch records, and the workload's known truth.

(a) sleeps.data: profsleep sleeps 600 us x 200 then 12 ms x 20. The oracle: per tid, every interval from a
    PERF_RECORD_SWITCH_CPU_WIDE OUT that is not a preemption to the tid's next IN, bucketed by floor(r log2 ns)
    computed here. rsp-summary --profiles --pid --format=json, its wait profiles summed, must hold the same
    histogram (within 2 instances in all, the exec splitting nothing here), at r = 1 and 2; its largest wait
    profile must show exactly two peaks, at the buckets of 600 us (+ slack) and 12 ms, holding the workload's
    200 and 20 sleeps, a wait site naming nanosleep and the cause timed_out. Run lengths (IN to OUT) against rsp's run profile: the same histogram within 3 instances
    (rsp splits a run at the exec and leaves out the runs cut by the recording's ends).
(b) base.data / added-5ms.data: the same command with 40 added 5 ms sleeps. The oracle confirms the change
    (sleeps of [4.19 ms, 8.39 ms) only in B); rsp-diff, by each method, must rank profsleep's waits first, and
    its categories table must show the timed-out waits grown by what profsleep's sleeps grew in perf script.
(c) The timer tick rsp measures (the lattice of kernel threads' timed-out wakeups) against CONFIG_HZ of the
    running kernel (/proc/config.gz), on the fixtures recorded on this kernel (perf's "os release" header).
(d) Disk service times (block_rq_issue -> block_rq_complete of the same dev and sector, from perf script's
    tracepoint text) of tests/data/sched-block-irq-sock.data, bucketed here per device and direction, against
    rsp's system-wide disk-service profiles (within 2 instances each); and rsp's median disk service time
    against the median of those intervals (within 1%).
Skipped (77) without perf.
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
DIFF = os.environ.get('RSP_DIFF', os.path.join(BUILD, 'src', 'tools', 'rsp-diff'))
DATA = os.path.join(SRC, 'tests', 'profiles', 'data')
LINE = re.compile(r'^\s*(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+)(.*)$')
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL:', msg)


def bucket(ns, r):
    """floor(r log2 ns), exactly: the largest b with 2^b <= ns^r (integers)."""
    ns = max(ns, 1)
    b = r * (ns.bit_length() - 1)
    while ns ** r >= 2 ** (b + 1):
        b += 1
    return b


def switch_intervals(path):
    """Per tid: its sleeps (OUT not preempted -> next IN) and its runs (IN -> OUT), from perf script."""
    out = subprocess.run(['perf', 'script', '-i', path, '--ns', '-F', 'pid,tid,cpu,time,event',
                          '--show-switch-events'], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PERF_BUILDID_DIR='/nonexistent')).stdout
    sleeps, runs = defaultdict(list), defaultdict(list)
    asleep, running = {}, {}
    pids = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m or not m[6].startswith('PERF_RECORD_SWITCH'):
            continue
        pid, tid, t, rest = int(m[1]), int(m[2]), int(m[4]) * 10**9 + int(m[5].ljust(9, '0')), m[7].split()
        if tid <= 0:
            continue
        pids[tid] = pid
        if rest[0] == 'IN':
            if tid in asleep:
                sleeps[tid].append(t - asleep.pop(tid))
            running[tid] = t
        else:
            if tid in running:
                runs[tid].append(t - running.pop(tid))
            if 'preempt' not in rest:
                asleep[tid] = t
            else:
                asleep.pop(tid, None)
    return sleeps, runs, pids


def summary_json(path, pid, r):
    pid_args = ['--pid', str(pid)] if pid >= 0 else []
    out = subprocess.run([SUMMARY, '--profiles', '--format=json', '--resolution', str(r)] + pid_args + [path],
                         capture_output=True, text=True)
    check(out.returncode == 0, f'rsp-summary --profiles {path}: exit {out.returncode}: {out.stderr}')
    return json.loads(out.stdout)


def histogram(profiles, kind):
    h = Counter()
    for p in profiles:
        if p['class'] == kind or p['class'].startswith(kind + ' '):
            for b in p['buckets']:
                h[b['index']] += b['count']
    return h


def distance(h1, h2):
    return sum(abs(h1[k] - h2[k]) for k in set(h1) | set(h2))


def test_sleeps():
    path = os.path.join(DATA, 'sleeps.data')
    sleeps, runs, pids = switch_intervals(path)
    # the workload: the tid with 220 sleeps of which 200 are near 600 us
    tid = max(sleeps, key=lambda t: sum(1 for d in sleeps[t] if 500_000 < d < 1_000_000))
    check(sum(1 for d in sleeps[tid] if 500_000 < d < 1_048_576) >= 195, f'oracle: tid {tid} is not the sleeper')
    pid = pids[tid]
    for r in (1, 2):
        oracle = Counter(bucket(d, r) for d in sleeps[tid])
        profiles = summary_json(path, pid, r)
        mine = histogram(profiles, 'wait')
        print(f'r={r} waits: oracle {sorted(oracle.items())}\n        rsp    {sorted(mine.items())}')
        check(distance(oracle, mine) <= 2, f'r={r}: wait histogram differs from perf script by {distance(oracle, mine)}')
        waits = [p for p in profiles if p['class'].startswith('wait')]
        main = max(waits, key=lambda p: p['count']) if waits else None
        check(main is not None, 'no wait profile for the sleeper')
        if main:
            b600, b12 = bucket(600_000 + 50_000, r), bucket(12_000_000 + 50_000, r)
            peaks = [(k['index'], k['count']) for k in main['peaks']]
            print(f'r={r} peaks of {main["class"]!r}: {peaks}, expected at {b600} and {b12}')
            check(len(peaks) == 2, f'r={r}: {len(peaks)} peaks, expected 2')
            check([p[0] for p in peaks] == [b600, b12], f'r={r}: peaks at {[p[0] for p in peaks]}')
            if len(peaks) == 2:
                check(peaks[0][1] == sum(1 for d in sleeps[tid] if 524_288 <= d < 2_000_000)
                      and abs(peaks[0][1] - 200) <= 2, f'r={r}: first peak holds {peaks[0][1]}')
                check(peaks[1][1] == sum(1 for d in sleeps[tid] if 8_388_608 <= d < 16_777_216)
                      and abs(peaks[1][1] - 20) <= 1, f'r={r}: second peak holds {peaks[1][1]}')
            # the workload's truth: every sleep is a nanosleep that expired
            check('nanosleep' in main['class'], f'wait site {main["class"]!r} is not nanosleep')
            for k in main['peaks']:
                check(k['cause'] == 'timed_out' and k['cause_count'] >= k['count'] - 1,
                      f'r={r}: peak at {k["index"]} mostly {k["cause"]} ({k["cause_count"]} of {k["count"]})')
            # every bucket's causes sum to its count
            for b in main['buckets']:
                check(sum(b['causes'].values()) == b['count'], f'bucket {b["index"]}: causes do not sum')
        oracle_runs = Counter(bucket(d, r) for d in runs[tid])
        mine_runs = histogram(profiles, 'run')
        print(f'r={r} runs: oracle {sorted(oracle_runs.items())}\n       rsp    {sorted(mine_runs.items())}')
        check(distance(oracle_runs, mine_runs) <= 3, f'r={r}: run histogram differs by {distance(oracle_runs, mine_runs)}')
    # time-sampled (--time-slices): the columns sum to the buckets, and the 600 us sleeps all come before the
    # 12 ms ones, as profsleep does them (the oracle's order agrees: checked here on perf script's intervals)
    out = subprocess.run([SUMMARY, '--profiles', '--format=json', '--time-slices', '0.02', '--pid', str(pid), path],
                         capture_output=True, text=True)
    check(out.returncode == 0, f'--time-slices: exit {out.returncode}')
    main = max((p for p in json.loads(out.stdout) if p['class'].startswith('wait')), key=lambda p: p['count'])
    tl = main['timeline']
    for b in main['buckets']:
        col = b['index'] - tl['min_index']
        check(sum(row[col] for row in tl['counts']) == b['count'], f'timeline column {b["index"]} does not sum')
    rows19 = [i for i, row in enumerate(tl['counts']) if row[19 - tl['min_index']]]
    rows23 = [i for i, row in enumerate(tl['counts']) if row[23 - tl['min_index']]]
    long_first = next(i for i, d in enumerate(sleeps[tid]) if d >= 8_388_608)
    check(all(d < 2_000_000 for d in sleeps[tid][:long_first]), 'oracle: short sleeps after the long ones')
    check(rows19 and rows23 and max(rows19) <= min(rows23), f'timeline: 600 us rows {rows19}, 12 ms rows {rows23}')
    # --export draws the profile (tests/profiles/test-histogram-view.c checks the drawing by pixels)
    png = os.path.join(BUILD, 'profiles-export-test.png')
    out = subprocess.run([SUMMARY, '--profiles', '--pid', str(pid), '--class', main['class'], '--export', png, path],
                         capture_output=True, text=True)
    if 'no cairo' not in out.stderr:
        check(out.returncode == 0 and open(png, 'rb').read(8) == b'\x89PNG\r\n\x1a\n', '--export wrote no PNG')
        out = subprocess.run([SUMMARY, '--profiles', '--export', '/nonexistent/dir/x.png', path], capture_output=True,
                             text=True)
        check(out.returncode != 0 and 'x.png' in out.stderr, '--export to a bad path did not fail')
    out = subprocess.run([SUMMARY, '--profiles', '--class', 'no such class', path], capture_output=True, text=True)
    check(out.returncode == 1 and 'no such class' in out.stderr, '--class of nothing did not fail')
    # a pid with no task is an error naming it
    out = subprocess.run([SUMMARY, '--profiles', '--pid', '999999999', path], capture_output=True, text=True)
    check(out.returncode != 0 and '999999999' in out.stderr, 'rsp-summary --profiles --pid 999999999 did not fail')
    out = subprocess.run([SUMMARY, '--profiles', '--resolution', '3', path], capture_output=True, text=True)
    check(out.returncode != 0, '--resolution 3 accepted')
    # the text form: one line per bucket with the bucket's range and dominant cause
    out = subprocess.run([SUMMARY, '--profiles', '--pid', str(pid), path], capture_output=True, text=True)
    check(out.returncode == 0 and re.search(r'\b19 \[\s*524 us,\s*1\.05 ms\) #+\s+\d+\s+\w+', out.stdout) is not None,
          'text histogram line for bucket 19 missing')


def test_diff():
    a, b = os.path.join(DATA, 'base.data'), os.path.join(DATA, 'added-5ms.data')
    sa, _, _ = switch_intervals(a)
    sb, _, _ = switch_intervals(b)
    in_5ms = lambda s: max(sum(1 for d in v if 4_194_304 <= d < 8_388_608) for v in s.values())
    check(in_5ms(sb) >= 38, f'oracle: B has {in_5ms(sb)} sleeps of 4-8 ms in one task')
    for method in ('emd', 'chi2', 'ops', 'latency'):
        out = subprocess.run([DIFF, '--method', method, a, b], capture_output=True, text=True)
        check(out.returncode == 0, f'rsp-diff --method {method}: exit {out.returncode}: {out.stderr}')
        ranked = [l for l in out.stdout.splitlines() if re.match(r'^\s+\d+\s+(\d|inf)', l)]
        print(f'{method}: {ranked[0] if ranked else "(nothing ranked)"}')
        check(bool(ranked) and re.match(r'^\s+1\s+\S+\s+wait\b.*\bprofsleep\b', ranked[0]) is not None,
              f'{method}: first ranked is not profsleep\'s waits')
    # the categories of both control paths side by side: the timed-out waits grew by what the oracle's
    # sleeps of profsleep grew (perf script: the sum of its sleeps in B minus in A), within 2%
    grow = sum(max(sb.values(), key=len)) - sum(max(sa.values(), key=len))
    out = subprocess.run([DIFF, a, b], capture_output=True, text=True)
    m = re.search(r'^Waits that timed out\s+\S+\s+\S+\s+([+-][\d.]+)$', out.stdout, re.M)
    print(f'timed-out waits delta: rsp {m[1] if m else "-"} ms, perf script sleeps {grow / 1e6:.3f} ms')
    check(m is not None and abs(float(m[1]) * 1e6 - grow) <= 0.02 * grow, 'categories delta differs from the oracle')
    out = subprocess.run([DIFF, '--method', 'cosine', a, b], capture_output=True, text=True)
    check(out.returncode == 2, 'unknown method accepted')
    out = subprocess.run([DIFF, a, os.path.join(DATA, 'missing.data')], capture_output=True, text=True)
    check(out.returncode == 1 and 'missing.data' in out.stderr, 'missing file not reported')


def kernel_hz():
    import gzip
    try:
        with gzip.open('/proc/config.gz', 'rt') as f:
            for line in f:
                if line.startswith('CONFIG_HZ='):
                    return int(line.split('=')[1])
    except OSError:
        return None
    return None


def test_tick():
    hz = kernel_hz()
    if not hz:
        print('no /proc/config.gz: tick not checked')
        return
    release = os.uname().release
    checked = 0
    for rel in ('tests/model/data/grep-pingpong.data', 'tests/data/sched-block-irq-sock.data', 'tests/data/zstd.data'):
        path = os.path.join(SRC, rel)
        if not os.path.exists(path):
            continue
        hdr = subprocess.run(['perf', 'report', '--header-only', '-i', path], capture_output=True, text=True).stdout
        m = re.search(r'# os release : (\S+)', hdr)
        if not m or m[1] != release:
            print(f'{rel}: recorded on {m[1] if m else "?"}, not {release}: tick not checked')
            continue
        out = subprocess.run([SUMMARY, '--profiles', path], capture_output=True, text=True).stdout
        t = re.search(r'timer tick ([\d.]+) ms', out)
        print(f'{rel}: timer tick {t[1] if t else "-"} ms, CONFIG_HZ={hz}')
        check(t is not None and abs(float(t[1]) - 1000 / hz) < 0.01, f'{rel}: timer tick is not 1/{hz} s')
        checked += 1
    print(f'tick checked on {checked} fixtures')


BLOCK = re.compile(r'^\s*(\d+)\.(\d+):\s+block:(block_rq_issue|block_rq_complete): (\d+),(\d+) (\S+) (?:\d+ )?\(\S*\) (\d+) \+ (\d+)')


def test_disk():
    path = os.path.join(SRC, 'tests', 'data', 'sched-block-irq-sock.data')
    if not os.path.exists(path):
        print('no sched-block-irq-sock.data: disk not checked')
        return
    out = subprocess.run(['perf', 'script', '-i', path, '--ns', '-F', 'time,event,trace'], capture_output=True,
                         text=True, check=True, env=dict(os.environ, PERF_BUILDID_DIR='/nonexistent')).stdout
    issued = {}
    service = defaultdict(list)
    for line in out.splitlines():
        m = BLOCK.match(line)
        if not m:
            continue
        t = int(m[1]) * 10**9 + int(m[2].ljust(9, '0'))
        key = (int(m[4]), int(m[5]), int(m[7]))
        rwbs = m[6]
        direction = 'W' if 'W' in rwbs else 'R' if 'R' in rwbs else 'D' if 'D' in rwbs else 'F'
        if m[3] == 'block_rq_issue':
            issued[key] = (t, direction)
        elif key in issued:
            start, d = issued.pop(key)
            service[f'{key[0]}:{key[1]} {d}'].append(t - start)
    check(sum(len(v) for v in service.values()) >= 50, 'oracle: fewer than 50 disk requests')
    profiles = summary_json(path, -1, 1)
    for site, durations in service.items():
        oracle = Counter(bucket(d, 1) for d in durations)
        mine = Counter()
        for p in profiles:
            if p['class'] == 'disk-service ' + site and p['process'] == '*':
                for b in p['buckets']:
                    mine[b['index']] += b['count']
        print(f'disk-service {site}: oracle {sorted(oracle.items())}\n                  rsp    {sorted(mine.items())}')
        check(distance(oracle, mine) <= 2, f'disk-service {site}: differs from perf script by {distance(oracle, mine)}')
    allv = sorted(d for v in service.values() for d in v)
    text = subprocess.run([SUMMARY, '--profiles', path], capture_output=True, text=True).stdout
    m = re.search(r'disk service ([\d.]+) (us|ms)', text)
    median = allv[len(allv) // 2]
    print(f'median disk service: rsp {m[0] if m else "-"}, perf script {median} ns')
    check(m is not None and abs(float(m[1]) * (1000 if m[2] == 'us' else 10**6) - median) <= 0.01 * median + 1000,
          'median disk service time differs')


def main():
    if not shutil.which('perf'):
        print('perf not found: skipped')
        return 77
    test_sleeps()
    test_diff()
    test_tick()
    test_disk()
    if failures:
        print(f'{len(failures)} failures')
        return 1
    print('profiles against perf script: all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
