#!/usr/bin/env python3
"""Oracle (e): a pipe-mode recording (perf record -o -) reads the same from a path and from stdin
(rsp-dump --format=jsonl - < FILE), with and without --stacks, and agrees with perf script: the same samples in the
same order, with the same (time, cpu, pid, tid, event). Read from stdin, rsp-dump cannot find FILE.kallsyms[.zst]
beside the file, so the test names the snapshot with --kallsyms: the host's /proc/kallsyms must never be used."""
import os
import oracle

res = oracle.Result('pipe mode')
pipes = [p for p in oracle.fixtures() if oracle.is_pipe(p)]
if not pipes:
    raise SystemExit('no pipe-mode fixture among ' + ', '.join(map(oracle.name, oracle.fixtures())))
for path in pipes:
    where = oracle.name(path)
    from_stdin = {}
    for extra in ([], ['--stacks']):
        args = ['--format=jsonl'] + extra
        by_path = oracle.rsp_dump(args + [path])
        snapshot = [path + s for s in ('.kallsyms', '.kallsyms.zst') if os.path.exists(path + s)]
        kallsyms = ['--kallsyms=' + snapshot[0]] if snapshot else []
        by_stdin = from_stdin[bool(extra)] = oracle.rsp_dump(args + kallsyms + ['-'], stdin_path=path)
        lines = by_path.count(b'\n')
        if by_path == by_stdin:
            res.ok(where, f'{" ".join(args)}: path and stdin give the same {lines} lines')
        else:
            a, b = by_path.splitlines(), by_stdin.splitlines()
            i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            res.fail(where, f'{" ".join(args)}: path gives {len(a)} lines, stdin {len(b)}; first difference at line '
                     f'{i + 1}:\n    path:  {a[i][:200] if i < len(a) else "(end)"}\n'
                     f'    stdin: {b[i][:200] if i < len(b) else "(end)"}')
    samples = [ev for ev in oracle.parse_jsonl(from_stdin[False], 'rsp-dump --format=jsonl - < ' + where)
               if oracle.is_sample(ev)]
    diff = oracle.compare_sequences(oracle.perf_sample_keys(path), [oracle.sequence_key(ev) for ev in samples])
    res.check(diff is None, where, diff or f'{len(samples)} samples from stdin, as perf script gives them')
res.finish()
