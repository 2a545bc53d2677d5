#!/usr/bin/env python3
"""Symbols a user can get (issue 16, part 5): when samples ran in code no symbol names, rsp says so once per
binary, how many samples, why and what to do. The chain recording (tests/analysis/data/chain) was made from
/tmp/rsp-chain-fixture/chain-client; this test puts there (1) the binary itself, (2) a stripped copy, (3) nothing.
The oracle for the count: perf script's samples of the chain processes whose ip is in that binary.
(1) no note for it; (2) 'N samples ran in .../chain-client without a symbol: it is stripped ... -dbgsym ...
DEBUGINFOD_URLS'; (3) '... not on this machine ...'; (4) a copy whose build id (readelf -n) differs from the
recorded one: '... another build than the one recorded ...', and none of its symbols used."""
import os
import re
import shutil
import subprocess
import sys

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

CHAIN = os.path.join(SRC, 'tests', 'analysis', 'data', 'chain')
PROG = '/tmp/rsp-chain-fixture/chain-client'
failures = []


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def notes(data):
    p = subprocess.run([SUMMARY, data], capture_output=True, text=True)
    return [l for l in (p.stdout + p.stderr).splitlines() if PROG in l and 'without a symbol' in l]


def main():
    if not shutil.which('strip') or not shutil.which('readelf'):
        print('skipped: no strip or readelf (binutils)')
        sys.exit(77)
    data = os.path.join(CHAIN, 'chain.data')
    os.makedirs(os.path.dirname(PROG), exist_ok=True)
    shutil.copy(os.path.join(CHAIN, 'chain-client'), PROG)
    out = oracle.perf(['script', '-F', 'event,ip,dso', '-G'], data)
    want = sum(1 for l in out.splitlines() if 'cpu-clock' in l and f'({PROG})' in l)
    ok(want > 100, f'perf script: {want} samples ran in the chain binary')
    ok(not notes(data), 'with the binary in place: no note')
    try:
        subprocess.run(['strip', '--strip-all', PROG], check=True)
        n = notes(data)
        m = re.match(r'note: (\d+) samples? ran in ' + re.escape(PROG), n[0]) if n else None
        ok(len(n) == 1 and m and int(m.group(1)) == want and 'stripped' in n[0] and 'dbgsym' in n[0] and
           'DEBUGINFOD_URLS' in n[0], f'stripped: one note, {want} samples, why and what to do: {n}')
        os.remove(PROG)
        n = notes(data)
        ok(len(n) == 1 and 'not on this machine' in n[0], f'missing: one note saying so: {n}')
        # another build: the build id note's bits changed (as a rebuild changes them), the code the same
        blob = bytearray(open(os.path.join(CHAIN, 'chain-client'), 'rb').read())
        rd = subprocess.run(['readelf', '-n', os.path.join(CHAIN, 'chain-client')], capture_output=True, text=True)
        m = re.search(r'Build ID: ([0-9a-f]+)', rd.stdout)
        at = blob.find(bytes.fromhex(m.group(1))) if m else -1
        ok(at > 0, f'the binary\'s build id found by readelf -n: {m.group(1) if m else None}')
        if at > 0:
            blob[at] ^= 0xff
            with open(PROG, 'wb') as f:
                f.write(blob)
            n = notes(data)
            m = re.match(r'note: (\d+) samples? ran in ' + re.escape(PROG), n[0]) if n else None
            ok(len(n) == 1 and m and int(m.group(1)) == want and 'another build' in n[0],
               f'another build: one note, {want} samples, saying so: {n}')
    finally:
        shutil.copy(os.path.join(CHAIN, 'chain-client'), PROG)
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
