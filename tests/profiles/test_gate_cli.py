#!/usr/bin/env python3
"""rsp-diff --gate, the regression gate (issue 19): base.data is profsleep sleeping 600 us x 200, added-5ms.data
the same plus 40 sleeps of 5 ms (tests/profiles/data/record.sh). The truth, from the workload's design: B's
recorded command took at least 40 x 5 = 200 ms longer, all of it in clock_nanosleep, timed out.
- base vs added-5ms: total:+5% and timed_out:+10% and profile:clock_nanosleep:+20% are crossed (exit 1, one
  CROSSED line each, the growth >= 200 ms); total:+400ms is not (exit 0);
- a recording against itself crosses nothing even at +0;
- a bound that is not one is refused (exit 2, the bound named); --format=json keeps stdout one JSON object."""
import json
import os
import re
import subprocess
import sys

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
DIFF = os.environ.get('RSP_DIFF', os.path.join(BUILD, 'src', 'tools', 'rsp-diff'))
DATA = os.path.join(SRC, 'tests', 'profiles', 'data')
A, B = os.path.join(DATA, 'base.data'), os.path.join(DATA, 'added-5ms.data')
failures = []


def check(cond, msg):
    print(('ok   ' if cond else 'FAIL ') + msg)
    if not cond:
        failures.append(msg)


def gate(spec, a, b, *extra):
    p = subprocess.run([DIFF, '--gate', spec, *extra, a, b], capture_output=True, text=True)
    lines = [l for l in (p.stdout + p.stderr).splitlines() if l.startswith('gate: ')]
    return p, lines


def grown_ms(line):
    m = re.search(r'\(([+-][\d.]+) ms, ', line)
    return float(m.group(1)) if m else None


p, lines = gate('total:+5%,timed_out:+10%,profile:clock_nanosleep:+20%', A, B)
check(p.returncode == 1, f'base vs added-5ms: exit 1 ({p.returncode}: {p.stderr[-300:]})')
crossed = [l for l in lines if l.startswith('gate: CROSSED')]
check(len(crossed) == 3, f'three bounds crossed: {lines}')
check(all((grown_ms(l) or 0) >= 200 for l in crossed), f'each grew by the 40 x 5 ms sleeps at least: {crossed}')
check(all('clock_nanosleep' in l for l in crossed), f'each names the most changed profile (clock_nanosleep)')

p, lines = gate('total:+400ms', A, B)
check(p.returncode == 0 and len(lines) == 1 and lines[0].startswith('gate: ok total'),
      f'total:+400ms holds (exit {p.returncode}: {lines})')

p, lines = gate('total:+0%,wall:+0ms,timed_out:+0%,understood:+0%,profile:clock_nanosleep:+0%', A, A)
check(p.returncode == 0 and len(lines) == 5 and all(l.startswith('gate: ok') for l in lines),
      f'a recording against itself crosses nothing (exit {p.returncode}: {lines})')

for bad in ('bogus:+5%', 'total:5%', 'total:+5', 'profile::+5%', ''):
    p, _ = gate(bad, A, A)
    check(p.returncode == 2 and '--gate' in p.stderr, f'{bad!r} refused with exit 2 ({p.returncode}: {p.stderr[-200:]})')

p, lines = gate('total:+5%', A, B, '--format=json')
try:
    json.loads(p.stdout)
    parsed = True
except ValueError:
    parsed = False
check(p.returncode == 1 and parsed and len(lines) == 1, f'--format=json: stdout is JSON, the gate line on stderr')

print(f'{len(failures)} failed')
sys.exit(1 if failures else 0)
