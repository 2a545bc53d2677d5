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
import random
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


def pages(path, size=4096):
    data = open(path, 'rb').read()
    return [data[i:i + size] for i in range(0, len(data) - size + 1, size)]


def page_events(page, stop_after=None):
    """The events with a payload of a ring-buffer page: [(offset of the header from the events' start, size)], and
    their times."""
    u32 = lambda o: int.from_bytes(page[16 + o:16 + o + 4], 'little')
    ts = int.from_bytes(page[0:8], 'little')
    commit = int.from_bytes(page[8:16], 'little') & ((1 << 27) - 1)
    found, times, at = [], [], 0
    while at < commit:
        w = u32(at)
        type_len, delta, nxt = w & 31, w >> 5, at + 4
        if type_len == 29:
            length = u32(nxt)
        elif type_len in (30, 31):
            t = (u32(nxt) << 27) + delta
            nxt += 4
            length, delta = 0, t
            if type_len == 31:
                ts, delta = t | (ts & (0xf8 << 56)), 0
        elif type_len == 0:
            length = (u32(nxt) - 4 + 3) & ~3
            nxt += 4
        else:
            length = type_len * 4
        ts += delta
        if type_len < 29:
            found.append((at, length))
            times.append(ts)
            if stop_after is not None and len(found) > stop_after:
                break
        at = nxt + length
    return found, times


def irq_handlers():
    """Fixture coldirq.data (record-irq-fixture.sh: rsp-record of a cold-cache grep, its ftrace capture and loss check
    beside it): irq 36's handler fires 752 times, each hit the same fields (irq=36 name=virtio1-req.0), and perf kept
    650 of them. Truths: a cpu runs its hardware interrupt handlers with its interrupts off, so they never nest: per
    cpu, the merged entries and exits alternate; and no hit is delivered twice or dropped: the merged stream holds as
    many as the ftrace capture (which lost none) inside perf's recording. A twin taken by the first same hit in the
    window instead of the nearest took a hit perf lost as the copy of the next: that next came twice (22 places)."""
    data = os.path.join(HERE, 'data', 'coldirq.data')
    import configparser
    meta = configparser.ConfigParser(delimiters=('=',), interpolation=None, strict=False)
    meta.optionxform = str
    meta.read(data + '.meta')
    kept, occurred = (int(x) for x in meta['loss']['irq:irq_handler_entry'].split(';'))
    captured = int(meta['ftrace']['irq:irq_handler_entry'])
    events = [json.loads(line) for line in dump('--format=jsonl', data=data).splitlines()]
    seq = collections.defaultdict(list)
    for e in events:
        if e['event'] in ('irq:irq_handler_entry', 'irq:irq_handler_exit'):
            seq[e['cpu']].append('E' if e['event'].endswith('entry') else 'X')
    entries = sum(s.count('E') for s in seq.values())
    nested = sum(1 for s in seq.values() for a, b in zip(s, s[1:]) if a == b)
    check(nested == 0, 'irq handlers: per cpu, entries and exits alternate (%d places where two follow each other)'
          % nested)
    check(kept < entries and abs(entries - captured) <= 2 and entries <= occurred + 2,
          'irq handlers: %d entries merged, perf kept %d, the capture holds %d, perf stat counted %d'
          % (entries, kept, captured, occurred))


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

    # the pages read against the kernel's ring-buffer format, parsed here (each page: its time, a long whose low 27
    # bits count the bytes of events; each event a 32-bit word of type_len (5 bits) and time delta, then per type a
    # payload, a length word, a padding length or a time word): every event with a payload is read once
    d = DATA + '.ftrace'
    total = sum(len(page_events(page)[0]) for name in sorted(os.listdir(d)) if name.startswith('cpu')
                for page in pages(os.path.join(d, name)))
    check(total == merged['ftrace']['read'], 'every event of the capture is read once (%d parsed here, %d read)'
          % (total, merged['ftrace']['read']))
    times = [t for name in sorted(os.listdir(d)) if name.startswith('cpu')
             for page in pages(os.path.join(d, name)) for t in page_events(page)[1]]
    ftrace_times = sorted(e['time'] for e in events if e.get('source') == 'ftrace')
    check(set(ftrace_times) <= set(times), 'the added events carry the times of their pages\' events')

    # a malformed event (a length past its page's events) drops the rest of its page, counted as lost: no read past
    # the page, no crash, the other pages read as before
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'coldgrep.data')
        os.symlink(DATA, copy)
        shutil.copytree(DATA + '.ftrace', copy + '.ftrace')
        raw = os.path.join(copy + '.ftrace', 'cpu1.raw')
        data = bytearray(open(raw, 'rb').read())
        page = data[4096:8192]
        kept, _ = page_events(page, stop_after=3)
        offset = 4096 + 16 + kept[-1][0]  # the fourth event with a payload: its header
        data[offset:offset + 4] = (0).to_bytes(4, 'little')  # type_len 0: a length word follows
        data[offset + 4:offset + 8] = (1 << 30).to_bytes(4, 'little')  # ... far past the page
        open(raw, 'wb').write(bytes(data))
        lost = len(page_events(page)[0]) - 3
        out = subprocess.run([RSP_DUMP, '--stats', '--format=json', copy], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        check(out.returncode == 0, 'a malformed ring-buffer event is no error: %s' % out.stderr.strip())
        bad = json.loads(out.stdout)['ftrace'] if out.returncode == 0 else {}
        check(bad.get('missed') == 1 and bad.get('read') == merged['ftrace']['read'] - lost,
              'the rest of its page is dropped (%d events) and counted as lost: %s' % (lost, bad))

    # perf's own events come through the merge untouched: each once, in the same order as without the capture (the
    # twins are the capture's copies; perf's are never dropped), also when the capture is damaged or lacks a cpu
    def perf_events(*args, data=DATA):
        out = subprocess.run([RSP_DUMP, '--format=jsonl', *args, data], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        if out.returncode != 0:
            return None, out.stderr.strip()
        lines = out.stdout.splitlines()
        return [l for l in lines if '"source":"ftrace"' not in l], [json.loads(l) for l in lines
                                                                   if '"source":"ftrace"' in l]
    alone_events, _ = perf_events('--no-ftrace')
    merged_perf, merged_ftrace = perf_events()
    check(merged_perf == alone_events, "perf's %d events are delivered as without the capture, each once"
          % len(alone_events))
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'coldgrep.data')
        os.symlink(DATA, copy)
        shutil.copytree(DATA + '.ftrace', copy + '.ftrace')
        os.rename(os.path.join(copy + '.ftrace', 'cpu0.raw'), os.path.join(tmp, 'cpu0.raw'))
        got_perf, got_ftrace = perf_events(data=copy)
        check(got_perf == alone_events, "without cpu 0's capture, perf's events are delivered as without a capture")
        check(bool(got_ftrace) and got_ftrace == [e for e in merged_ftrace if e['cpu'] == 1],
              "without cpu 0's capture, cpu 1's events are added as before (%d; cpu 0 had none to add)"
              % len(got_ftrace or []))
        os.rename(os.path.join(tmp, 'cpu0.raw'), os.path.join(copy + '.ftrace', 'cpu0.raw'))
        rng = random.Random(18)
        raw = os.path.join(copy + '.ftrace', 'cpu0.raw')
        clean = open(raw, 'rb').read()
        for case in range(12):
            data = bytearray(clean)
            for _ in range(rng.choice((1, 8, 64))):
                at = rng.randrange(len(data))
                data[at] = rng.randrange(256)
            if case % 4 == 3:
                data = data[:rng.randrange(len(data))]
            open(raw, 'wb').write(bytes(data))
            got_perf, err = perf_events(data=copy)
            check(got_perf == alone_events, "capture damaged (case %d): no error, perf's events as without it%s"
                  % (case, '' if isinstance(err, list) else ': ' + str(err)))
    irq_handlers()
    print('%d passed, %d failed' % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
