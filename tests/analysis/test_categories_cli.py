#!/usr/bin/env python3
"""rsp-summary --categories / --waits on a real recording whose truth the workload fixes.

tests/analysis/data/shell-sleep-dd-python.data (recorded by tests/analysis/data/record.sh with rsp-record):
  sh -c 'sleep 0.2; dd if=/dev/zero of=FILE bs=1M count=20 conv=fsync; /usr/bin/python3 -c "sum(range(5*10**7))"'
Truth from the workload, not from rsp:
  - the shell's children run one after the other: sleep, dd, python3 are on the paths of the shell;
  - sleep 0.2 waits 200 ms on a timer: "timed out" is 200 ms (plus at most a few other timer waits);
  - python sums 5*10**7 integers: at least ~150 ms of CPU (3*10**7 took 0.15 s alone on this VM), sampled
    at 997 Hz: "understood" holds it;
  - dd's fsync waits on its 20 MiB of writes: "blocking I/O" is at least the device time of dd's write
    requests (block_rq_issue -> block_rq_complete, read from rsp-dump's raw events) that completed while dd
    was in fsync, and the fsync wait site is among the top waits;
  - every nanosecond is in one category: the categories sum to the total.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'data', 'shell-sleep-dd-python.data')
SUMMARY = os.environ.get('RSP_SUMMARY')
DUMP = os.environ.get('RSP_DUMP')
failures = 0


def check(cond, what):
    global failures
    if not cond:
        print('FAIL:', what)
        failures += 1
    else:
        print('ok:', what)


def run(*args, expect=0):
    p = subprocess.run([SUMMARY, *args], capture_output=True, text=True, timeout=120)
    if p.returncode != expect:
        print(p.stdout, p.stderr)
    check(p.returncode == expect, f'rsp-summary {" ".join(args)} exits {expect} (got {p.returncode})')
    return p


def dd_write_device_intervals(dd_pid):
    """[issue, complete) of the write requests dd's tasks inserted, from the raw block tracepoints."""
    out = subprocess.run([DUMP, '-f', 'jsonl', DATA], capture_output=True, text=True, timeout=120, check=True)
    inserted, issued, spans = set(), {}, []
    for line in out.stdout.splitlines():
        if 'block:block_rq' not in line:
            continue
        e = json.loads(line)
        f = e['fields']
        key = (f['dev'], f['sector'])
        if e['event'] == 'block:block_rq_insert' and e['pid'] == dd_pid and 'W' in f['rwbs']:
            inserted.add(key)
        elif e['event'] == 'block:block_rq_issue' and key in inserted:
            issued[key] = e['time']
        elif e['event'] == 'block:block_rq_complete' and key in issued:
            spans.append((issued.pop(key), e['time']))
            inserted.discard(key)
    return spans


def union(spans):
    total, end = 0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


PINGPONG = os.path.join(HERE, '..', 'model', 'data', 'links-pingpong.data')


def pingpong():
    """tests/model/data/links-pingpong.data (tests/model/data/record.sh links): a python parent writes a byte
    to its forked child and reads the answer, 100 times; the child reads and answers. Each of the parent's
    waits in read() is ended by the child's run that wrote the answer: that run must be the child of the
    wait in the pseudo-stack (recursive stack making), for (nearly) every round trip."""
    import re
    out = run('--paths', PINGPONG).stdout.splitlines()
    reads = answered = 0
    cur = None
    for line in out:
        m = re.match(r'^(\s*)(run|sleep|disk|net)\s+(\S+) (\d+)/(\d+) ', line)
        if not m:
            continue
        depth = (len(m.group(1)) - 2) // 2
        if depth == 0:
            cur = None
            if m.group(2) == 'sleep' and '[read ' in line and m.group(3) == 'python3':
                reads += 1
                cur = m.group(4)
        elif depth == 1 and cur and m.group(2) == 'run' and m.group(4) != cur:
            answered += 1
            cur = None
    check(reads >= 100, f'ping-pong: the parent waited in read() at least 100 times ({reads})')
    check(answered >= 90, f'ping-pong: the child\'s answering run is the child of {answered} of them (>= 90 of 100)')
    d = json.loads(run('--categories', '--format=json', PINGPONG).stdout)
    pys = [p for p in d['processes'] if p['comm'] == 'python3']
    check(len(pys) == 2, f'ping-pong: both python processes on the paths ({d["processes"]})')
    check(abs(sum(d['categories'].values()) - d['total_ms']) < 1e-3, 'ping-pong: categories sum to the total')


def main():
    if not SUMMARY or not DUMP:
        print('RSP_SUMMARY / RSP_DUMP not set')
        return 77
    d = json.loads(run('--categories', '--waits', '--format=json', DATA).stdout)
    cats = d['categories']
    names = {p['comm'] for p in d['processes']}
    check({'sleep', 'dd', 'python3'} <= names, f'sleep, dd and python3 are on the paths ({sorted(names)})')
    check(d['n_processes'] == len(d['processes']), 'process count = listed processes')
    check('lost_events' in d and d['lost_events']['lost_records'] >= 0, 'lost-event counts in the JSON')
    total = sum(cats.values())
    check(abs(total - d['total_ms']) < 1e-3, f'categories sum to the total ({total:.6f} vs {d["total_ms"]:.6f} ms)')
    check(abs(d['accounted_ms'] + d['unaccounted_ms'] + cats['unknown_stack'] + d['guessed_ms'] - d['total_ms']) < 1e-3,
          'accounted + unaccounted + unknown stack + guessed = total')
    check(d['total_ms'] >= d['wall_ms'] - 1e-6, 'total >= wall')
    check(195 <= cats['timed_out'] <= 240, f'timed out ~ the 200 ms sleep ({cats["timed_out"]:.1f} ms)')
    # python's samples name functions only where the symbolizer finds its symbols (a stripped python3 names none of
    # its interpreter loop): understood or unknown_stack, whichever, holds its CPU-bound sum
    check(cats['understood'] + cats['unknown_stack'] >= 150,
          f'understood + unknown stack hold python\'s CPU-bound sum ({cats["understood"]:.1f} + '
          f'{cats["unknown_stack"]:.1f} ms)')
    py = [p for p in d['processes'] if p['comm'] == 'python3']
    check(len(py) == 1 and py[0]['run_ms'] >= 150, f'python3\'s run_ms holds its sum ({py})')
    check(d['wall_ms'] >= 200 + 150, f'wall >= sleep + python ({d["wall_ms"]:.1f} ms)')
    # percent accounted leaves out running time in unknown functions, which depends on the binaries found
    known = d['total_ms'] - cats['unknown_stack']
    check(100 * d['accounted_ms'] / known >= 90, f'percent accounted high, unknown stacks aside '
          f'({100 * d["accounted_ms"] / known:.1f} %; {d["percent_accounted"]:.1f} % of all)')
    dd = [p for p in d['processes'] if p['comm'] == 'dd'][0]
    dev = union(dd_write_device_intervals(dd['pid'])) / 1e6
    check(dev > 1, f'dd wrote through the disk ({dev:.3f} ms of device time)')
    check(cats['blocking_io'] >= 0.9 * dev, f'blocking I/O ({cats["blocking_io"]:.3f} ms) covers dd\'s device time '
          f'({dev:.3f} ms)')
    check(cats['blocking_io'] + cats['io_queue'] <= dev + 20,
          f'blocking I/O + queue not far above the disk time of the workload ({cats["blocking_io"]:.3f} ms)')
    sites = [w['site'] for w in d['waits']]
    check(any(s.startswith('fsync') for s in sites), f'fsync among the top waits ({sites[:6]})')
    check(any(s.startswith('clock_nanosleep') and w['end'] == 'timeout' and 195 <= w['total_ms'] <= 240
              for w in d['waits'] for s in [w['site']]), 'the sleep 0.2 wait site, ended by a timeout')

    # text: the paper's rows
    txt = run('--categories', DATA).stdout
    for row in ('Wall time', 'Total time', 'In understood functions', 'In blocking I/O', 'Waits that timed out',
                'Total accounted', 'Unaccounted', 'Percent accounted', 'Processes', 'Guessed (in the rows above)',
                'Preempted by tasks on the paths', 'Preempted by others (contention)', 'Preempted, no other task seen',
                'Running in unknown functions'):
        check(row in txt, f'text table has "{row}"')

    # another process of interest: dd alone (by name), the sleep alone (by pid)
    ddj = json.loads(run('--categories', '--comm', 'dd', '--format=json', DATA).stdout)
    check(ddj['pid'] == dd['pid'], '--comm dd picks dd')
    check(ddj['categories']['timed_out'] < 20, 'dd did not sleep 200 ms')
    check(ddj['categories']['blocking_io'] >= 0.9 * dev, 'dd\'s own paths hold its blocking I/O')
    sl = [p for p in d['processes'] if p['comm'] == 'sleep'][0]
    slj = json.loads(run('--categories', '--pid', str(sl['pid']), '--format=json', DATA).stdout)
    check(195 <= slj['categories']['timed_out'] <= 205, 'sleep 0.2 alone: 200 ms timed out')
    check(slj['categories']['understood'] < 20, 'sleep 0.2 alone: little CPU')

    # a tight tolerance can only split more paths off
    tight = json.loads(run('--categories', '--tolerance-us', '1', '--format=json', DATA).stdout)
    check(tight['paths'] >= d['paths'], f'--tolerance-us 1: paths {tight["paths"]} >= {d["paths"]}')
    check(abs(sum(tight['categories'].values()) - tight['total_ms']) < 1e-3, '--tolerance-us 1: still sums')
    check(tight['tolerance_ns'] == 1000, 'tolerance reported')

    pingpong()

    # errors
    p = run('--categories', '--pid', '999999', DATA, expect=1)
    check(f'rsp-summary: {DATA}: no process with pid 999999' in p.stderr, f'unknown pid named ({p.stderr.strip()})')
    p = run('--categories', '--comm', 'no-such-comm', DATA, expect=1)
    check('no process named' in p.stderr, 'unknown comm named')
    p = run('--categories', '--tolerance-us', '-3', DATA, expect=2)
    # --tasks still the default
    p = run('--format=json', DATA)
    check(isinstance(json.loads(p.stdout), list), 'the default is still the task table')
    print(f'{failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
