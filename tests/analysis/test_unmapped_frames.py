#!/usr/bin/env python3
"""User frames at addresses no recorded mapping holds, on a perf.data written byte by byte (tests/unit/synthetic_perf.py),
whose truth is its construction: a frame-pointer walk through code built without frame pointers reads stack words as
return addresses, each one different; perf names every such frame "[unknown]", and so must rsp, as one frame, or every
sample makes a frame and a stack of its own (a meson build recorded with rsp-record: 338,000 frames, 286,000 stacks).

Process 42 (COMM, one //anon mapping) runs on cpu 0 from 1 ms to 3 ms (switch records), sampled every 0.25 ms:
  - 6 samples: the //anon address, then two garbage words, different in each sample;
  - 2 samples: the //anon address, then 20 different garbage words (a long walk off the rails: no loop).
Truth: rsp-export's folded on-cpu stacks are two lines, the first counted 6 (//anon, [unknown], [unknown]), the second 2
(//anon, 20 [unknown]); rsp-summary --categories counts the run's 2 ms as unknown stacks of code in no file (no_map),
none of it a loop."""
import json
import os
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ.get('RSP_SUMMARY')
EXPORT = os.environ.get('RSP_EXPORT')
sys.path.insert(0, os.path.join(SRC, 'tests', 'unit'))
import synthetic_perf as sp  # noqa: E402

check = sp.Checks()
PID = 42
MS = 1_000_000
ANON_AT = 0x7e0000000000
NOWHERE = 0x7ffd00000000  # stack words: no mapping holds them
FEAT_EVENT_DESC = 12


def write(path):
    clock = sp.cpu_clock_with_switches()
    word = iter(range(NOWHERE + 0x18, NOWHERE + 0x100000, 0x38))
    chains = [[ANON_AT + 0x40, next(word), next(word)] for _ in range(6)]
    chains += [[ANON_AT + 0x40] + [next(word) for _ in range(20)] for _ in range(2)]
    data = sp.one_sampled_task(clock, PID, 'unmapped-test', [(ANON_AT, 0x10000, '//anon')], chains, 1 * MS, 3 * MS)
    with open(path, 'wb') as f:
        f.write(sp.perf_data_file([clock], data, {FEAT_EVENT_DESC: sp.event_desc([clock])}))


def main():
    if not SUMMARY or not EXPORT:
        print('RSP_SUMMARY or RSP_EXPORT not set')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'unmapped.data')
        write(path)
        p = subprocess.run([EXPORT, '--to=folded', '--stacks=on-cpu', '--pid', str(PID), path], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, f'rsp-export exits 0 ({p.stderr.strip()[:300]})')
        lines = sorted(p.stdout.split('\n')[:-1], key=lambda line: -int(line.rsplit(' ', 1)[1]))
        print('\n'.join(lines))
        folded = [(line.rsplit(' ', 1)[0].split(';'), int(line.rsplit(' ', 1)[1])) for line in lines]
        check(len(folded) == 2, f'two stacks, not one a sample ({len(folded)})')
        if len(folded) == 2:
            (short, n_short), (long, n_long) = folded
            check(n_short == 6 and n_long == 2, f'counted 6 and 2 ({n_short}, {n_long})')
            check(short[1:3] == ['[unknown]'] * 2, f'the garbage words are [unknown] frames ({short})')
            check(long[1:21] == ['[unknown]'] * 20, f'all 20 of the long walk are [unknown] ({long})')
            check(short[3:] == long[21:] and len(short) == 4, f'then the //anon frame ({short[3:]}, {long[21:]})')
        p = subprocess.run([SUMMARY, '--categories', '--pid', str(PID), '--format=json', path], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 0, f'rsp-summary exits 0 ({p.stderr.strip()[:300]})')
        if p.returncode:
            return 1
        d = json.loads(p.stdout)
        why = d['unknown_stack_by_reason']
        check(abs(d['categories']['unknown_stack'] - 2) < 1e-6, f'unknown_stack 2 ms ({d["categories"]})')
        check(abs(why.get('no_map', 0) - 2) < 1e-6, f'no_map 2 ms ({why})')
        check(why.get('loop', 0) == 0, f'no loop: the 20 [unknown] frames were different words ({why})')
    return check.status()


if __name__ == '__main__':
    sys.exit(main())
