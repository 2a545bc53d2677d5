#!/usr/bin/env python3
"""The ftrace side stream fills what perf record lost, and adds nothing twice.

Fixture (record-ftrace-fixture.sh): a cold-cache grep recorded by perf and, beside it, by a tracefs
instance on the mono clock; perf stat counted the same events over the run. On this machine perf
record keeps almost no block_rq_complete or interrupt-context wakeups. Truths used:
- every block request issued during the recording completes (reads of a cold cache), so merged
  issues and completions must pair up by sector, each exactly once;
- every sched_waking is followed by its sched_wakeup;
- nothing can be seen more often than perf stat counted it over a window that contains the recording;
- the merged stream stays in time order, and without the merge the losses are plain.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile

RSP_DUMP = os.environ.get('RSP_DUMP', 'build/src/tools/rsp-dump')
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, 'data', 'coldgrep.data')
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def dump(*args, data=DATA):
    out = subprocess.run([RSP_DUMP, *args, data], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        print(out.stderr)
        sys.exit(1)
    return out.stdout


def main():
    stat = {}
    with open(os.path.join(HERE, 'data', 'coldgrep.stat')) as f:
        for line in f:
            parts = line.strip().split(',')
            if len(parts) > 3 and parts[0].isdigit():
                stat[parts[2]] = int(parts[0])
    merged = json.loads(dump('--stats', '--format=json'))
    alone = json.loads(dump('--stats', '--format=json', '--no-ftrace'))
    check(merged.get('ftrace', {}).get('merged') is True, 'the ftrace capture beside the file is merged')
    for name, occurred in sorted(stat.items()):
        m, a = merged['events'].get(name, 0), alone['events'].get(name, 0)
        print('  %-26s perf stat %5d   perf record %5d   merged %5d' % (name, occurred, a, m))
        check(a <= m <= occurred, '%s: perf alone <= merged <= perf stat' % name)
    check(alone['events']['block:block_rq_complete'] < alone['events']['block:block_rq_issue'] / 2,
          'without the merge most completions are missing (the loss this fixes)')

    events = [json.loads(line) for line in dump('--format=jsonl').splitlines()]
    times = [e['time'] for e in events if e['time']]
    check(all(b >= a for a, b in zip(times, times[1:])), 'the merged stream is in time order')
    # per sector, a request is issued then completed, again and again: a twin would break that
    per_sector = collections.defaultdict(list)
    for e in events:
        if e['event'] in ('block:block_rq_issue', 'block:block_rq_complete'):
            per_sector[e['fields']['sector']].append('I' if e['event'].endswith('issue') else 'C')
    broken = [s for s, seq in per_sector.items() if ''.join(seq) != 'IC' * (len(seq) // 2) + 'I' * (len(seq) % 2)]
    check(len(broken) <= 2, 'per sector, issues and completions alternate (%d sectors do not; at most 2 '
          'at the edges): no request is lost or seen twice' % len(broken))
    check(sum(len(v) for v in per_sector.values()) >= 2 * len(per_sector) - 2, 'requests pair up')
    wakings = sum(1 for e in events if e['event'] == 'sched:sched_waking')
    wakeups = sum(1 for e in events if e['event'] == 'sched:sched_wakeup')
    check(abs(wakings - wakeups) <= 2, 'every sched_waking has its sched_wakeup (%d vs %d)' % (wakings, wakeups))
    added = sum(1 for e in events if e.get('source') == 'ftrace')
    check(added == merged['ftrace']['added'] and added > 0, '%d events came from ftrace' % added)

    # the capture's files are found by listing its directory: a cpu without a file (offline) is a hole, an empty
    # file holds nothing, and only names cpuN.raw as the kernel writes N count (a cpu01.raw copy of cpu1.raw
    # would add every event of cpu 1 twice)
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'coldgrep.data')
        os.symlink(DATA, copy)
        shutil.copytree(DATA + '.ftrace', copy + '.ftrace')
        d = copy + '.ftrace'
        for decoy in ('cpu01.raw', 'cpu1.raw.bak', 'cpux.raw', 'cpu4096.raw', 'xcpu1.raw'):
            shutil.copy(os.path.join(d, 'cpu1.raw'), os.path.join(d, decoy))
        open(os.path.join(d, 'cpu7.raw'), 'wb').close()
        again = json.loads(dump('--stats', '--format=json', data=copy))
        check(again['ftrace'] == merged['ftrace'] and again['events'] == merged['events'],
              'a hole, an empty cpu file and files not named cpuN.raw change nothing: %s' % again['ftrace'])
    print('%d passed, %d failed' % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
