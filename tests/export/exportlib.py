"""What the rsp-export format tests share: the fixtures, running rsp-export and rsp-summary, and perf script's
cpu-clock samples per process and thread (the independent oracle, through tests/oracle/oracle.py)."""
import collections
import json
import os
import subprocess
import sys

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
EXPORT = os.environ.get('RSP_EXPORT', os.path.join(BUILD, 'src', 'tools', 'rsp-export'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

# The README's sample (a make), curl against nginx, and the chain client -> server -> worker.
FILES = ['data/sample.perf.data', 'tests/model/data/wl-nginx.data', 'tests/analysis/data/chain/chain.data']
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


def finish():
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


def path_of(rel):
    return os.path.join(SRC, rel)


def export(path, fmt, out, *extra):
    p = subprocess.run([EXPORT, '--to', fmt, *extra, path, '-o', out], capture_output=True, text=True)
    check(p.returncode == 0 and os.path.getsize(out) > 0,
          f'{os.path.basename(path)}: rsp-export --to {fmt} (exit {p.returncode}; {p.stderr.strip()[-300:]})')
    return p.returncode == 0


def summary(path, *args):
    p = subprocess.run([SUMMARY, *args, '--format=json', path], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f'rsp-summary {args} {path}: exit {p.returncode}: {p.stderr[-400:]}')
    return json.loads(p.stdout)


def categories(path):
    """rsp-summary --categories: the paths' total and the processes on them."""
    return summary(path, '--categories')


def perf_cpu_clock(path):
    """perf script's cpu-clock samples, counted per pid and per tid."""
    out = oracle.perf(['script', '-F', 'pid,tid,event', '--kallsyms', oracle.kallsyms_file(path)], path)
    per_pid, per_tid = collections.Counter(), collections.Counter()
    for line in out.splitlines():
        f = line.replace('/', ' ').split()
        if len(f) >= 3 and f[2].startswith('cpu-clock'):
            per_pid[int(f[0])] += 1
            per_tid[int(f[1])] += 1
    return per_pid, per_tid


def check_errors(fmt):
    """A full disk and a missing directory exit 1 naming the output; a missing pid exits 1 naming it."""
    sample = path_of(FILES[0])
    for out, what in (('/dev/full', 'write error'), ('/nonexistent/dir/out', 'No such file')):
        if out == '/dev/full' and not os.path.exists(out):
            continue
        p = subprocess.run([EXPORT, '--to', fmt, sample, '-o', out], capture_output=True, text=True)
        check(p.returncode == 1 and out in p.stderr and what in p.stderr,
              f'--to {fmt} -o {out}: exit 1 with "{what}" ({p.stderr.strip()[:120]})')
    p = subprocess.run([EXPORT, '--to', fmt, '--pid', '999999', sample], capture_output=True, text=True)
    check(p.returncode == 1 and '999999' in p.stderr, f'--to {fmt} --pid 999999: exit 1 naming the pid')
