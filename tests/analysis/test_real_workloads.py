#!/usr/bin/env python3
"""Explanations on real servers (issue 15): the recordings kept in bench/real/data (dovecot's IMAP login with
SHA512-CRYPT, the same on a machine kept busy by a CPU hog, nginx + php-fpm + PostgreSQL, xterm under Xvfb, pgbench -c4 -j2),
checked by bench/real/check.py against truth obtained without rsp: perf's own switch records and wakings (perf
script, with each recording's own kernel symbols), strace of a second run, and the workload's design
(truth.json). Every criterion must pass or not apply:
  C1 the process that did the work is on the paths with its running time within 10% of perf's;
  C2 no process unrelated to the task is on its paths;
  C3 a nanosleep is timed out;
  C4 loopback and close wakeups name the sending process;
  C5 no wait site's total exceeds the paths' total.
Skipped (77) without perf or zstd."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
DATA = os.path.join(SRC, 'bench', 'real', 'data')
CASES = ['dovecot', 'dovecot-hog', 'webmail', 'xterm', 'pgbench']


def main():
    if not shutil.which('perf') or not shutil.which('zstd'):
        print('skipped: perf or zstd missing')
        sys.exit(77)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for name in CASES:
            src = os.path.join(DATA, name)
            dst = os.path.join(tmp, name)
            # the committed files only (not a rec.data or perf script cache a local check.py run left there)
            os.mkdir(dst)
            for f in os.listdir(src):
                if f in ('rec.data', 'rec.data.perf-script.txt'):
                    continue
                p = os.path.join(src, f)
                if os.path.isdir(p):
                    shutil.copytree(p, os.path.join(dst, f))
                else:
                    shutil.copy(os.path.realpath(p), os.path.join(dst, f))
            dirs.append(dst)
        out = os.path.join(tmp, 'results.json')
        p = subprocess.run([sys.executable, os.path.join(SRC, 'bench', 'real', 'check.py'), '--json', out] + dirs,
                           capture_output=True, text=True)
        print(p.stdout[-6000:])
        if p.returncode != 0 or not os.path.exists(out):
            print(p.stderr[-2000:])
            print('FAIL check.py did not run')
            sys.exit(1)
        for r in json.load(open(out)):
            if 'error' in r:
                failures.append(f'{r["name"]}: {r["error"]}')
                continue
            for crit, (ok, why) in sorted(r['criteria'].items()):
                if ok is False:
                    failures.append(f'{r["name"]} {crit}: {why[:600]}')
            print(f'{r["name"]}: ' + ', '.join(f'{c} {"-" if ok is None else "PASS" if ok else "FAIL"}'
                                               for c, (ok, _) in sorted(r['criteria'].items())))
    for f in failures:
        print('FAIL ' + f)
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
