#!/usr/bin/env python3
"""Recordings whose records are each valid but inconsistent with each other (../shared/robustness, README.md
there): rsp must end quickly, without a signal or a sanitizer report, and report no duration beyond the
recording's span.

- view-hang-time-near-max, view-hang-walk: timestamps near 2^64 made rsp-view --export loop forever;
- ubsan-cpu-intmax: a switch record on cpu 0x7fffffff (a signed overflow under UBSan);
- every reproducer: rsp-summary --categories --paths ends, within 4 GiB (a per-cpu table sized by the cpu
  number took 16 GiB on cpu 0x7fffffff);
- relay10k: a wakeup relay 10,000 tasks deep (recursion per path level overflowed the stack);
- every reproducer and relay10k through rsp-export (each format) and rsp-report: they end, within 4 GiB (the
  perfetto writer's per-cpu table on cpu 0x7fffffff; folded and speedscope stacks as deep as the relay made
  their output quadratic: cut at 2048 levels, with a "[deeper]" frame), and relay10k's folded consolidated
  time adds up to its categories' total;
- runtime-gt-span, run-longer-than-span, sleep-gt-span, view-hang-*: a stray synthesized COMM time, exec records
  at time 0, switch-ins moved seconds early, a switch at time 2^64 - 1 (whose task's sleeps ended before they began,
  14,061 s of sleep in a 227 ms recording). Each task's runtime + sleep time must fit in the span of the recording's
  samples and switch records as perf script prints them (the oracle; 1 ms of slack for the task records
  around them), and rsp must say what it cut.
Skipped (77) when ../shared/robustness is absent."""
import json
import lzma
import os
import resource
import re
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ['RSP_SUMMARY']
VIEW = os.environ.get('RSP_VIEW')
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
EXPORT = os.environ.get('RSP_EXPORT', os.path.join(BUILD, 'src', 'tools', 'rsp-export'))
REPORT = os.environ.get('RSP_REPORT', os.path.join(BUILD, 'src', 'tools', 'rsp-report'))
DIR = os.environ.get('RSP_ROBUSTNESS_DIR', os.path.join(SRC, '..', 'shared', 'robustness'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

failures = []
LIMIT = 60  # seconds per command (the ASan build is slow; a hang is endless)
MEMORY = 4 << 30  # address space per command (ASan reserves its shadow beyond it: not under ASan)
def sanitized(path):
    """Whether PATH is built with AddressSanitizer (whose shadow memory no address-space limit allows)."""
    try:
        with open(path, 'rb') as f:
            return b'__asan_init' in f.read()
    except OSError:
        return False


ASAN = bool(os.environ.get('ASAN_OPTIONS')) or sanitized(SUMMARY)


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run(cmd, what, memory=False):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=LIMIT,
                           preexec_fn=limit_memory if memory else None)
    except subprocess.TimeoutExpired:
        check(False, f'{what}: still running after {LIMIT} s')
        return None
    bad = p.returncode < 0 or 'runtime error' in p.stderr or 'AddressSanitizer' in p.stderr
    check(not bad and p.returncode == 0, f'{what}: exit {p.returncode}{" " + p.stderr[-800:] if bad else ""}')
    return p


def exports(path, what, tmp, extra=()):
    """rsp-export in every format and rsp-report on PATH: each ends, without a signal or sanitizer report."""
    for fmt in ('folded', 'perfetto', 'speedscope', 'pprof', 'firefox'):
        if os.path.exists(EXPORT):
            run([EXPORT, '--to', fmt, *extra, path, '-o', os.path.join(tmp, 'out')], f'{what}: rsp-export --to {fmt}',
                memory=not ASAN)
    if os.path.exists(REPORT):
        run([REPORT, *extra, path, '-o', os.path.join(tmp, 'out.html')], f'{what}: rsp-report', memory=not ASAN)


def perf_span_ms(path):
    """First to last time of the samples and switch records, as perf script prints them, but for times past 2^63 ns
    (292 years: no clock's; the view-hang files' one record at 2^64 - 1 or - 2)."""
    out = oracle.perf(['script', '--show-switch-events', '-F', 'time', '--ns'], path)
    times = [t for t in (oracle.parse_time(m) for m in re.findall(r'\b(\d+\.\d{9}):', out)) if t < 1 << 63]
    return (max(times) - min(times)) / 1e6


def main():
    if not os.path.isdir(DIR):
        print(f'skipped: no {DIR}')
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        if VIEW:
            for name in ('view-hang-time-near-max', 'view-hang-walk'):
                png = os.path.join(tmp, name + '.png')
                p = run([VIEW, '--export', png, os.path.join(DIR, name + '.data')], f'{name}: rsp-view --export')
                if p:
                    check(os.path.getsize(png) > 1000, f'{name}: a picture was written')
        run([SUMMARY, '--profiles', os.path.join(DIR, 'ubsan-cpu-intmax.data')], 'ubsan-cpu-intmax: --profiles')
        for name in sorted(f[:-5] for f in os.listdir(DIR) if f.endswith('.data')):
            p = run([SUMMARY, '--categories', '--paths', '--format=json', os.path.join(DIR, name + '.data')],
                    f'{name}: --categories --paths', memory=not ASAN)
            if p and p.returncode == 0:
                cats = json.loads(p.stdout)
                check(0 <= cats['percent_accounted'] <= 100, f'{name}: percent accounted within 0..100')
                total = sum(cats['categories'].values())
                check(abs(total - cats['total_ms']) < 0.01, f'{name}: the categories ({total:.3f} ms) add up to '
                      f'the paths\' total ({cats["total_ms"]:.3f} ms)')
            exports(os.path.join(DIR, name + '.data'), name, tmp)
        relay = os.path.join(DIR, 'relay10k.data.xz')
        if os.path.exists(relay):
            path = os.path.join(tmp, 'relay10k.data')
            with lzma.open(relay) as src, open(path, 'wb') as dst:
                dst.write(src.read())
            p = run([SUMMARY, '--categories', '--paths', '--pid', '29999', path], 'relay10k: --categories --paths')
            if p and p.returncode == 0:
                check('29999' in p.stdout, 'relay10k: the paths of pid 29999 are printed')
            exports(path, 'relay10k', tmp, ('--pid', '29999'))
            cats = run([SUMMARY, '--categories', '--format=json', '--pid', '29999', path], 'relay10k: --categories')
            folded = run([EXPORT, '--to', 'folded', '--pid', '29999', path], 'relay10k: folded') \
                if os.path.exists(EXPORT) else None
            if cats and folded and cats.returncode == 0 and folded.returncode == 0:
                lines = folded.stdout.splitlines()
                us = sum(int(l.rsplit(' ', 1)[1]) for l in lines)
                deepest = max(l.count(';') + 1 for l in lines)
                total = json.loads(cats.stdout)['total_ms'] * 1000
                check(abs(us - total) <= len(lines) + 1 and deepest <= 2050, f'relay10k: folded consolidated '
                      f'{us} us in {len(lines)} lines at most {deepest} frames deep; categories {total:.0f} us')
            if VIEW:
                png = os.path.join(tmp, 'relay.png')
                p = run([VIEW, '--export', png, '--flame', '29999', '--consolidated', path],
                        'relay10k: rsp-view --export --consolidated')
                if p:
                    check(os.path.exists(png) and os.path.getsize(png) > 1000, 'relay10k: a picture was written')
        for name in ('runtime-gt-span', 'run-longer-than-span', 'sleep-gt-span', 'view-hang-time-near-max',
                     'view-hang-walk'):
            path = os.path.join(DIR, name + '.data')
            p = run([SUMMARY, '--tasks', '--format=json', path], f'{name}: --tasks')
            if not p:
                continue
            span = perf_span_ms(path)
            tasks = json.loads(p.stdout)
            worst = max(tasks, key=lambda t: t['runtime_ms'] + t['sleep_ms'])
            total = worst['runtime_ms'] + worst['sleep_ms']
            # the span of the samples and switch records; the task's FORK/COMM/EXIT records may lie a little outside
            check(total <= span + 1.0, f'{name}: the busiest task ({worst["comm"]} {worst["tid"]}) runs and sleeps '
                  f'{total:.3f} ms in a span of {span:.3f} ms')
            check('cut there' in p.stderr or 'stray timestamp' in p.stderr,
                  f'{name}: rsp says what it cut or ignored: {p.stderr.strip()[-300:]!r}')
            run([SUMMARY, '--profiles', path], f'{name}: --profiles')
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
