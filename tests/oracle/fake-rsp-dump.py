#!/usr/bin/env python3
"""A stand-in for rsp-dump built on perf itself, to check the oracle tests' perf-side parsing and that they fail on
wrong output:

    RSP_DUMP=tests/oracle/fake-rsp-dump.py python3 tests/oracle/test_stats.py           # must pass
    FAKE_RSP_CORRUPT=time RSP_DUMP=tests/oracle/fake-rsp-dump.py python3 tests/oracle/test_sample_sequence.py

It implements the rsp-dump interface the tests use (--format=jsonl [--stacks] FILE|-, --stats --format=json FILE).
FAKE_RSP_CORRUPT=MODE damages the output the way a wrong reader would:
  drop   one sample left out            time   one sample 1 ns late          swap  two samples out of order
  event  one sample under another name  field  one sched_switch prev_state    comm  one sample's comm
  sym    2% of the kernel symbols       addr   one frame's address           stats one COMM record too many
  stdin  one line less when reading standard input
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oracle  # noqa: E402

CORRUPT = os.environ.get('FAKE_RSP_CORRUPT', '')
_RECORD = re.compile(r'^(-?\d+) (-?\d+) 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_([A-Z0-9_]+)')


def records(path):
    out = []
    for line in oracle.perf(['report', '-D'], path).splitlines():
        m = _RECORD.match(line)
        if m and m.group(3) in oracle.DELIVERED_RECORDS:
            out.append({'time': max(int(m.group(2)), 0), 'cpu': int(m.group(1)), 'pid': -1, 'tid': -1, 'comm': None,
                        'event': oracle.RECORD_PREFIX + m.group(3)})
    return out


def jsonl(path, stacks, from_stdin):
    samples = []
    for ev in oracle.perf_dump(path, kallsyms=True):
        out = {k: ev[k] for k in ('time', 'cpu', 'pid', 'tid', 'comm', 'event')}
        if 'fields' in ev:
            out['fields'] = {k: (bytes.fromhex(v['bytes']).split(b'\0', 1)[0].decode('utf-8', 'replace')
                                 if isinstance(v, dict) else v) for k, v in ev['fields'].items()}
        if stacks:
            out['stack'] = [{'addr': ip, 'sym': sym, 'dso': dso} for ip, sym, dso in ev['stack']]
        samples.append(out)
    n = len(samples) // 2
    if CORRUPT == 'drop':
        del samples[n]
    elif CORRUPT == 'time':
        samples[n]['time'] += 1
    elif CORRUPT == 'swap':
        i = next(i for i in range(n, len(samples) - 1) if samples[i]['time'] != samples[i + 1]['time'])
        samples[i]['time'], samples[i + 1]['time'] = samples[i + 1]['time'], samples[i]['time']
    elif CORRUPT == 'event':
        samples[n]['event'] = 'sched:sched_switch' if samples[n]['event'] != 'sched:sched_switch' else 'sched:x'
    elif CORRUPT == 'field':
        next(s for s in samples if s['event'] == 'sched:sched_switch')['fields']['prev_state'] += 1
    elif CORRUPT == 'comm':
        samples[n]['comm'] = 'wrong'
    elif CORRUPT == 'sym' and stacks:
        kernel = [f for s in samples for f in s['stack'] if f['addr'] >= 0xffff800000000000 and f['sym']]
        for f in kernel[::50]:
            f['sym'] += '_'
    elif CORRUPT == 'addr' and stacks:
        for s in samples:
            if s['stack']:
                s['stack'][0]['addr'] += 1
                break
    events = sorted(records(path) + samples, key=lambda e: e['time'])
    lines = [json.dumps(e) for e in events]
    if CORRUPT == 'stdin' and from_stdin:
        del lines[len(lines) // 3]
    return ''.join(line + '\n' for line in lines)


def stats(path):
    counts, lost, lost_samples = oracle.perf_record_counts(path)
    if CORRUPT == 'stats':
        counts['COMM'] += 1
    return json.dumps({'records': {oracle.RECORD_PREFIX + k: n for k, n in counts.items()},
                       'events': dict(oracle.perf_event_counts(path)), 'lost': lost, 'lost_samples': lost_samples})


def main(argv):
    opts = {a for a in argv if a.startswith('--')}
    files = [a for a in argv if not a.startswith('--')]
    if len(files) != 1 or '--format=jsonl' not in opts and '--format=json' not in opts:
        sys.exit('usage: fake-rsp-dump.py --format=jsonl [--stacks] FILE|- | --stats --format=json FILE')
    path, from_stdin = files[0], files[0] == '-'
    if from_stdin:
        path = os.path.join(oracle.TMP, 'stdin.data')
        with open(path, 'wb') as f:
            shutil.copyfileobj(sys.stdin.buffer, f)
    sys.stdout.write(stats(path) + '\n' if '--stats' in opts else jsonl(path, '--stacks' in opts, from_stdin))


if __name__ == '__main__':
    main(sys.argv[1:])
