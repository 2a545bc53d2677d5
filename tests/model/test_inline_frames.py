#!/usr/bin/env python3
"""Inlined functions as frames (issue 16, part 4): tests/model/data/inline/ holds inline.c built with -O2 -g, its
hot code inlined (always_inline) both at the sampled ips and at return addresses, recorded with frame-pointer
chains (inline-fp.data) and with --call-graph dwarf (inline-dwarf.data) by record.sh. The binary is copied to
the path it was recorded from, so every tool reads the same file.
Oracles, independent of rsp:
- frame pointers: for every frame of the binary perf script prints (its address in the file), addr2line -f -i
  (binutils) names the functions inlined there (at the return address - 1 for callers, as a call's own
  location); rsp's frames are those inlined functions, innermost first, then the function perf names;
- dwarf: perf script itself prints the inlined frames it unwinds; rsp's sequence of functions equals perf's.
In >= 95% of the samples; most samples must hold an inlined frame (the test means something), and
rsp-dump --no-inline gives perf's frames without any."""
import os
import shutil
import subprocess
import sys

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
DUMP = os.environ.get('RSP_DUMP', os.path.join(SRC, 'build', 'src', 'tools', 'rsp-dump'))
HERE = os.path.join(SRC, 'tests', 'model', 'data', 'inline')
PROG = '/tmp/rsp-inline-fixture/inline-prog'
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

failures = []


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def rsp_stacks(path, *extra):
    p = subprocess.run([DUMP, '--format=jsonl', '--stacks', *extra, path], capture_output=True, text=True)
    ok(p.returncode == 0, f'rsp-dump {" ".join(extra)} {os.path.basename(path)}: exit {p.returncode} {p.stderr[-200:]}')
    return oracle.prog_frames(p.stdout, PROG)


def perf_stacks(path):
    """Per sample (by time): the frames of PROG perf script prints, as (file address, name, inlined), innermost
    first, and whether the first of them is the sample's innermost frame (no kernel or other frame before)."""
    text = oracle.perf(['script', '-F', 'time,ip,sym,dso', '--ns'], path)
    out = {}
    for block in text.split('\n\n'):
        lines = [l for l in block.splitlines() if l.strip()]
        if not lines:
            continue
        t = oracle.parse_time(lines[0].strip().rstrip(':'))
        frames, pending = [], []  # an inlined line names no dso: it belongs to the next plain frame's
        for i, l in enumerate(lines[1:]):
            f = l.split()
            if len(f) >= 3 and f[-1] == '(inlined)':
                pending.append((int(f[0], 16), f[1], True, i == 0))
            elif len(f) >= 2:
                # perf prints a function's inlined frames before it, at its address (and a lone "inlined" frame
                # where a symbol's DWARF name differs from it: glibc's __libc_start_main_impl)
                if f[-1] == f'({PROG})':
                    a = int(f[0], 16)
                    frames += [p for p in pending if p[0] == a] + [(a, f[1].split('+')[0], False, i == len(pending))]
                pending = []
        out[t] = frames
    return out


def addr2line(addrs):
    """address -> the functions inlined there, innermost first (without the function holding them)."""
    # -f -i prints (function, file:line) pairs, several for an inlining chain, the last for the function that
    # is not inlined: one address per call splits them
    out = {}
    for a in addrs:
        q = subprocess.run(['addr2line', '-f', '-i', '-e', PROG, hex(a)], capture_output=True, text=True)
        names = q.stdout.splitlines()[0::2]
        out[a] = names[:-1]
    return out


def fp_case():
    data = os.path.join(HERE, 'inline-fp.data')
    ours, theirs = rsp_stacks(data), perf_stacks(data)
    if not shutil.which('addr2line'):
        print('SKIP frame-pointer case: addr2line (binutils) is not installed')
        return
    # perf 6.1 prints no inlined frames on frame-pointer chains; its plain frames and addresses are the basis
    lookups = set()
    for frames in theirs.values():
        for k, (a, _name, inl, first) in enumerate(frames):
            if not inl:
                lookups.add(a if k == 0 and first else a - 1)
    inl = addr2line(lookups)
    expected = {}
    for t, frames in theirs.items():
        seq = []
        for k, (a, name, is_inl, first) in enumerate(frames):
            if is_inl:
                continue
            seq += [(n, True) for n in inl[a if k == 0 and first else a - 1]] + [(name, False)]
        expected[t] = seq
    common = sorted(set(ours) & set(expected))
    ok(len(common) == len(expected) and len(expected) > 50, f'fp: {len(expected)} samples in perf script, '
       f'{len(common)} matched by time in rsp-dump')
    same = sum(ours[t] == expected[t] for t in common)
    with_inl = sum(any(i for _n, i in expected[t]) for t in common)
    ok(common and same >= 0.95 * len(common), f'fp: the frames addr2line -i gives in {same} of {len(common)} samples '
       f'(first differing: {[(ours[t], expected[t]) for t in common if ours[t] != expected[t]][:1]})')
    ok(with_inl >= 0.5 * len(common), f'fp: {with_inl} of {len(common)} samples have inlined frames')
    plain = rsp_stacks(data, '--no-inline')
    ok(all(not i for fr in plain.values() for _n, i in fr) and
       sum(plain.get(t) == [(n, False) for _a, n, _i, _f in theirs[t]] for t in common) >= 0.95 * len(common),
       'fp: --no-inline gives perf script\'s frames, none inlined')


def dwarf_case():
    data = os.path.join(HERE, 'inline-dwarf.data')
    ours, theirs = rsp_stacks(data), perf_stacks(data)
    theirs = {t: [(n, i) for _a, n, i, _f in fr] for t, fr in theirs.items()}
    common = sorted(set(ours) & set(theirs))
    ok(len(common) == len(theirs) and len(theirs) > 50, f'dwarf: {len(theirs)} samples in perf script, '
       f'{len(common)} matched by time in rsp-dump')
    same = sum(ours[t] == theirs[t] for t in common)
    with_inl = sum(any(i for _n, i in theirs[t]) for t in common)
    ok(common and same >= 0.95 * len(common), f'dwarf: perf script\'s frames, inlined ones included, in {same} of '
       f'{len(common)} samples (first differing: {[(ours[t], theirs[t]) for t in common if ours[t] != theirs[t]][:1]})')
    ok(with_inl >= 0.5 * len(common), f'dwarf: {with_inl} of {len(common)} samples have inlined frames in perf script')


def main():
    os.makedirs(os.path.dirname(PROG), exist_ok=True)
    shutil.copy(os.path.join(HERE, 'inline-prog'), PROG)
    fp_case()
    dwarf_case()
    if failures:
        print(f'{len(failures)} failure(s)')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
