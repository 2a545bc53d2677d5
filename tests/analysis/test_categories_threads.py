#!/usr/bin/env python3
"""The categories walk split over two threads adds up exactly what one thread adds up, on paths whose timelines
were built on two threads (split between tasks).

rsp_categories_compute hands the depth-0 elements of the control paths to two threads when there are many
(a shared counter: which thread takes which element varies from run to run) and merges their sums and
preemptor tallies. The oracle is the same walk on one thread (RSP_THREADS=1): every number of
`rsp-summary --categories --waits --format=json` must be the same, on every recording of the fixtures, with the
bar for two threads lowered to 2 elements (and to 2 for the paths' timelines and children index) so that small recordings
are split too, and run several times; and `--categories --paths` prints the same paths.
"""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUMMARY = os.environ.get('RSP_SUMMARY')
FILES = sorted(glob.glob(os.path.join(ROOT, 'tests', 'model', 'data', 'wl-*.data')) +
               glob.glob(os.path.join(ROOT, 'tests', 'model', 'data', 'links-*.data')) +
               glob.glob(os.path.join(ROOT, 'bench', 'real', 'data', '*', 'rec.data')))
failures = 0


def run(path, threads):
    env = dict(os.environ, RSP_THREADS=str(threads), RSP_CATEGORIES_THREAD_ROOTS='2', RSP_PATHS_THREAD_ITEMS='2')
    p = subprocess.run([SUMMARY, '--categories', '--waits', '--format=json', path], capture_output=True,
                       text=True, timeout=300, env=env)
    q = subprocess.run([SUMMARY, '--categories', '--paths', path], capture_output=True, text=True, timeout=300,
                       env=env)
    return p.returncode, p.stdout + q.stdout


if not FILES:
    print('FAIL: no recordings found')
    sys.exit(1)
for path in FILES:
    rc1, one = run(path, 1)
    if rc1 != 0 or not one:
        print('FAIL: %s: one thread exited %d' % (path, rc1))
        failures += 1
        continue
    for attempt in range(3):
        rc2, two = run(path, 2)
        if rc2 != rc1 or two != one:
            print('FAIL: %s: two threads (attempt %d) differ from one' % (path, attempt + 1))
            failures += 1
            break
    else:
        print('ok: %s: one thread and two agree' % os.path.relpath(path, ROOT))
# RSP_TIMINGS (the steps' wall times on stderr, for bench/) changes nothing on stdout
path = FILES[0]
plain = subprocess.run([SUMMARY, '--categories', path], capture_output=True, text=True, timeout=300)
timed = subprocess.run([SUMMARY, '--categories', path], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, RSP_TIMINGS='1'))
if timed.stdout != plain.stdout or 'timings: model' not in timed.stderr or 'control paths' not in timed.stderr \
        or 'timings' in plain.stderr:
    print('FAIL: RSP_TIMINGS: same output, and the timings on stderr only when set')
    failures += 1
else:
    print('ok: RSP_TIMINGS prints the timings on stderr and changes nothing else')
sys.exit(1 if failures else 0)
