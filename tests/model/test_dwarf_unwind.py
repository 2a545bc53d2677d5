#!/usr/bin/env python3
"""DWARF call stacks (issue 16, part 4): tests/model/data/dwarf/dwarf.data is dwarf.c built without frame
pointers and recorded with perf record --call-graph dwarf (record.sh). perf script unwinds each sample's copy
of the user stack; so must rsp. The oracle: perf script's frames per sample (matched by time). Compared are the
frames in the fixture's own binary (copied to the path it was recorded from, so both tools read the same file;
frames in libc depend on this host's libc): in >= 90% of the samples rsp's sequence of functions equals perf's,
and in most of them it reaches main (on the old code every sample had only its ip).
Stack copies with bytes flipped at random unwind to what they can, without a crash or a hang."""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
DUMP = os.environ.get('RSP_DUMP', os.path.join(SRC, 'build', 'src', 'tools', 'rsp-dump'))
HERE = os.path.join(SRC, 'tests', 'model', 'data', 'dwarf')
PROG = '/tmp/rsp-dwarf-fixture/dwarf-prog'
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

failures = []


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def rsp_stacks(path):
    p = subprocess.run([DUMP, '--format=jsonl', '--stacks', path], capture_output=True, text=True)
    ok(p.returncode == 0, f'rsp-dump {os.path.basename(path)}: exit {p.returncode} {p.stderr[-200:]}')
    out = {}
    for line in p.stdout.splitlines():
        e = json.loads(line)
        if e.get('event', '').startswith('cpu-clock'):
            out[e['time']] = [f.get('sym') for f in e.get('stack', []) if f.get('dso') == PROG]
    return out


def perf_stacks(path):
    text = oracle.perf(['script', '-F', 'time,ip,sym,dso', '--ns'], path)
    out = {}
    for block in text.split('\n\n'):
        lines = [l for l in block.splitlines() if l.strip()]
        if not lines:
            continue
        t = oracle.parse_time(lines[0].strip().rstrip(':'))
        frames = []
        for l in lines[1:]:
            f = l.split()
            if len(f) >= 3 and f[-1] == f'({PROG})':
                frames.append(f[1].split('+')[0])
        out[t] = frames
    return out


def main():
    os.makedirs(os.path.dirname(PROG), exist_ok=True)
    shutil.copy(os.path.join(HERE, 'dwarf-prog'), PROG)
    data = os.path.join(HERE, 'dwarf.data')
    ours, theirs = rsp_stacks(data), perf_stacks(data)
    common = sorted(set(ours) & set(theirs))
    ok(len(common) == len(theirs) and len(theirs) > 100, f'{len(theirs)} samples in perf script, {len(common)} '
       f'matched by time in rsp-dump')
    same = sum(ours[t] == theirs[t] for t in common)
    deep = sum(len(ours[t]) >= 3 and 'main' in ours[t] for t in common)
    ok(common and same >= 0.9 * len(common), f'the same functions as perf script in {same} of {len(common)} samples '
       f'(first differing: {[(ours[t], theirs[t]) for t in common if ours[t] != theirs[t]][:2]})')
    ok(common and deep >= 0.8 * len(common), f'{deep} of {len(common)} samples unwound to main')

    # damaged user stacks: bytes flipped at random (a fixed seed) over the file's second half, most of which is
    # the samples' stack copies: garbage return addresses and frame data must not crash or hang the unwinder
    import random
    rng = random.Random(16)
    clean = open(data, 'rb').read()
    with tempfile.TemporaryDirectory() as tmp:
        crashed = []
        for k in range(12):
            raw = bytearray(clean)
            for _ in range(200):
                i = rng.randrange(len(raw) // 2, len(raw))
                raw[i] = rng.randrange(256)
            bad = os.path.join(tmp, f'bad{k}.data')
            open(bad, 'wb').write(raw)
            try:
                q = subprocess.run([DUMP, '--format=jsonl', '--stacks', bad], capture_output=True, text=True, timeout=60)
                if q.returncode < 0 or q.returncode > 1 or 'Sanitizer' in q.stderr or 'runtime error' in q.stderr:
                    crashed.append((k, q.returncode, q.stderr[-200:]))
            except subprocess.TimeoutExpired:
                crashed.append((k, 'timeout'))
        ok(not crashed, f'12 files with bytes flipped in their stack copies: no crash or hang ({crashed[:2]})')
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
