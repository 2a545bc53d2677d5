#!/usr/bin/env python3
"""rsp-export --comm and --range (issue 19: `rsp-export --to FORMAT [--pid|--comm] [--range T0:T1]`), on the
chain recording (client -> server -> worker) and the README's sample (a make).
- --comm chain-worker: the worker is the process of interest; its on-cpu lines are its samples, as many as perf
  script prints for it; an unknown name exits 1 naming it;
- --range T0:T1 (from the recording's first event, which perf script prints first too): the on-cpu samples of the
  process of interest are those perf script prints inside the window (the oracle), for a window in the middle;
  consolidated time of [0, X) and [X, end) adds up to the whole (each line rounded to 1 us); pprof's and
  speedscope's sampled totals shrink to the window's; a bad range exits 2."""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import exportlib as X  # noqa: E402

# a copy: a --range read writes FILE.rsp-index beside FILE (the recording's side files come along)
_COPY = tempfile.mkdtemp(prefix='rsp-export-range-')
shutil.copytree(X.path_of('tests/analysis/data/chain'), os.path.join(_COPY, 'chain'), symlinks=True)
CHAIN = os.path.join(_COPY, 'chain', 'chain.data')
PROG = '/tmp/rsp-chain-fixture/chain-client'


def folded(path, *args):
    p = subprocess.run([X.EXPORT, '--to', 'folded', *args, path], capture_output=True, text=True)
    lines = [l.rsplit(' ', 1) for l in p.stdout.splitlines()]
    return p.returncode, p.stderr, [(s, int(v)) for s, v in lines]


def perf_samples(path, comm):
    """perf script's cpu-clock samples of COMM (times in ns) and the time of the first event it prints (any kind)."""
    out = X.oracle.perf(['script', '-F', 'comm,time,event', '--ns', '--show-task-events', '--show-mmap-events',
                         '--show-switch-events', '--kallsyms', X.oracle.kallsyms_file(path)], path)
    first, times = None, []
    for line in out.splitlines():
        f = line.split()
        t = next((X.oracle.parse_time(x.rstrip(':')) for x in f if x.rstrip(':').replace('.', '').isdigit()
                  and '.' in x), None)
        if t is None:
            continue
        if t > 0 and (first is None or t < first):
            first = t
        if f[0] == comm and 'cpu-clock' in line:
            times.append(t)
    return first, times


def main():
    os.makedirs(os.path.dirname(PROG), exist_ok=True)
    shutil.copy(X.path_of('tests/analysis/data/chain/chain-client'), PROG)
    first, worker = perf_samples(CHAIN, 'chain-worker')
    X.check(first and len(worker) > 100, f'perf script: {len(worker)} samples of chain-worker')

    rc, err, lines = folded(CHAIN, '--stacks', 'on-cpu', '--comm', 'chain-worker')
    mine = sum(v for s, v in lines if s.split(';')[0] == 'chain-worker')
    X.check(rc == 0 and mine == len(worker), f'--comm chain-worker: {mine} on-cpu samples of it, perf script '
            f'{len(worker)}')
    rc, err, _ = folded(CHAIN, '--comm', 'no-such-process')
    X.check(rc == 1 and 'no-such-process' in err, f'--comm no-such-process: exit {rc}, naming it ({err.strip()})')

    # a window over the middle of the worker's samples
    lo, hi = worker[len(worker) // 4] - first, worker[3 * len(worker) // 4] - first
    a, b = lo // 1000 * 1000, hi // 1000 * 1000  # whole microseconds
    want = sum(1 for t in worker if first + a <= t < first + b)
    rc, err, lines = folded(CHAIN, '--stacks', 'on-cpu', '--comm', 'chain-worker', '--range', f'{a // 1000}us:{b // 1000}us')
    got = sum(v for s, v in lines if s.split(';')[0] == 'chain-worker')
    X.check(rc == 0 and got == want and 0 < want < len(worker), f'--range {a // 1000}us:{b // 1000}us: {got} samples '
            f'of chain-worker in it, perf script {want} (of {len(worker)})')

    for path in (CHAIN, X.path_of(X.FILES[0])):
        name = os.path.basename(path)
        _, _, whole = folded(path)
        total = sum(v for _, v in whole)
        span_ms = 10000
        both = 0
        for split in ('50ms', '100ms', '200ms'):
            # --load-all: the paths of the whole recording, cut (a window read alone has only its own paths)
            _, _, left = folded(path, '--range', f'0:{split}', '--load-all')
            _, _, right = folded(path, '--range', f'{split}:{span_ms}ms', '--load-all')
            l, r = sum(v for _, v in left), sum(v for _, v in right)
            slack = len(left) + len(right) + len(whole)
            both += l > 0 and r > 0
            X.check(abs(l + r - total) <= slack,
                    f'{name}: consolidated [0, {split}) {l} us + [{split}, end) {r} us = {l + r}, whole {total} '
                    f'(rounding slack {slack})')
        X.check(both > 0, f'{name}: some split has time on both sides')

    # pprof and speedscope: the samples of the window only
    with tempfile.TemporaryDirectory() as tmp:
        rng = f'{a // 1000}us:{b // 1000}us'
        out = os.path.join(tmp, 'p.pb.gz')
        p = subprocess.run([X.EXPORT, '--to', 'speedscope', '--comm', 'chain-worker', '--range', rng, CHAIN, '-o',
                            os.path.join(tmp, 's.json')], capture_output=True, text=True)
        ss = json.load(open(os.path.join(tmp, 's.json'))) if p.returncode == 0 else {}
        sampled = [pr for pr in ss.get('profiles', []) if pr.get('type') == 'sampled' and
                   'chain-worker' in pr.get('name', '')]
        n = sum(len(pr['samples']) for pr in sampled)
        X.check(p.returncode == 0 and n == want, f'speedscope --range {rng}: {n} samples of chain-worker, perf script '
                f'{want} ({p.stderr.strip()[-200:]})')
        p = subprocess.run([X.EXPORT, '--to', 'pprof', '--comm', 'chain-worker', '--range', rng, CHAIN, '-o', out],
                           capture_output=True, text=True)
        X.check(p.returncode == 0 and gzip.open(out).read(2), f'pprof --range {rng}: written ({p.stderr.strip()})')
        for bad in ('5ms:3ms', 'x:y', '3ms'):
            p = subprocess.run([X.EXPORT, '--to', 'folded', '--range', bad, CHAIN], capture_output=True, text=True)
            X.check(p.returncode == 2 and bad in p.stderr, f'--range {bad}: exit {p.returncode} ({p.stderr.strip()})')
    X.finish()


try:
    main()
finally:
    shutil.rmtree(_COPY, ignore_errors=True)
