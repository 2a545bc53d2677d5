#!/usr/bin/env python3
"""rsp-export --to folded (issue 19) on recordings of a make, of curl against nginx and the README's sample:
- on-cpu: the counts add up, per process, to the cpu-clock samples perf script prints for the processes on the
  process of interest's paths (the oracle), and each line starts with the sample's comm;
- consolidated: every line is a cross-process pseudo-stack rooted at a process, and the values (us) add up to the
  categories' total over the same control paths (rsp-summary --categories: the consolidated view lets a child
  overflow its sleep by the tolerance, so within 1%); beside them, 'kernel_work_for_COMM;doer' lines of the paths'
  processes, at most the categories' kernel_work_ms (what the paths already draw is not in them);
- off-cpu: the values add up to the sleep time rsp-summary --tasks gives those processes (1 us rounding per line);
- folded syntax: 'frame;frame VALUE', no blank frame, no space inside a frame; bad options exit 2."""
import collections
import json
import os
import re
import subprocess
import sys

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
EXPORT = os.environ.get('RSP_EXPORT', os.path.join(BUILD, 'src', 'tools', 'rsp-export'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

FILES = ['data/sample.perf.data', 'tests/model/data/wl-make.data', 'tests/model/data/wl-nginx.data']
LINE = re.compile(r'^([^ ;]+(;[^ ;]+)*) (\d+)$')
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def export(path, stacks):
    p = subprocess.run([EXPORT, '--to', 'folded', '--stacks', stacks, path], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    bad = [l for l in lines if not LINE.match(l)]
    check(p.returncode == 0 and lines and not bad, f'{os.path.basename(path)} {stacks}: {len(lines)} folded lines '
          f'(exit {p.returncode}; malformed: {bad[:2]}; {p.stderr[-200:]})')
    return [(l.rsplit(' ', 1)[0].split(';'), int(l.rsplit(' ', 1)[1])) for l in lines if LINE.match(l)]


def main():
    for rel in FILES:
        path = os.path.join(SRC, rel)
        name = os.path.basename(path)
        cats = json.loads(subprocess.run([SUMMARY, '--categories', '--format=json', path], capture_output=True,
                                         text=True).stdout)
        pids = {pr['pid'] for pr in cats['processes']}
        comms = {c for pr in cats['processes'] for c in pr['comms']}

        on = export(path, 'on-cpu')
        # perf script: the sampling event's samples of those processes
        out = oracle.perf(['script', '-F', 'pid,event', '--kallsyms', oracle.kallsyms_file(path)], path)
        want = collections.Counter()
        for l in out.splitlines():
            f = l.split()
            if len(f) >= 2 and f[1].startswith('cpu-clock') and int(f[0]) in pids:
                want[int(f[0])] += 1
        got = sum(v for _, v in on)
        check(got == sum(want.values()), f'{name} on-cpu: {got} samples, perf script {sum(want.values())} of pids '
              f'{sorted(pids)[:8]}')
        check(all(st[0] in comms for st, _ in on), f'{name} on-cpu: each stack starts with a comm of the paths')

        co = export(path, 'consolidated')
        # beside the paths' stacks, the kernel work done for their processes that the paths do not draw
        kwork = [(st, v) for st, v in co if st[0].startswith('kernel_work_for_')]
        co = [(st, v) for st, v in co if not st[0].startswith('kernel_work_for_')]
        total_us = sum(v for _, v in co)
        check(abs(total_us / 1000 - cats['total_ms']) <= 0.01 * cats['total_ms'] + len(co) * 0.001,
              f'{name} consolidated: {total_us / 1000:.3f} ms, the categories\' total {cats["total_ms"]:.3f} ms')
        check(all(st[0] in comms for st, _ in co), f'{name} consolidated: each stack is rooted at a process')
        kw_us = sum(v for _, v in kwork)
        check(all(len(st) == 2 and st[0][len('kernel_work_for_'):] in {c.replace(' ', '_') for c in comms}
                  for st, _ in kwork) and kw_us / 1000 <= cats['kernel_work_ms'] + len(kwork) * 0.001,
              f'{name} consolidated: "kernel work for" stacks of the paths\' processes, {kw_us / 1000:.3f} ms, within '
              f'the categories\' kernel_work_ms {cats["kernel_work_ms"]:.3f}')

        off = export(path, 'off-cpu')
        tasks = json.loads(subprocess.run([SUMMARY, '--tasks', '--format=json', path], capture_output=True,
                                          text=True).stdout)
        sleep_ms = sum(t['sleep_ms'] for t in tasks if t['pid'] in pids)
        off_ms = sum(v for _, v in off) / 1000
        check(abs(off_ms - sleep_ms) <= len(off) * 0.001 + 0.001,
              f'{name} off-cpu: {off_ms:.3f} ms, --tasks sleep time of those processes {sleep_ms:.3f} ms')

    for args in (['--to', 'nosuchformat'], ['--to', 'folded', '--stacks', 'sideways'], ['--to', 'folded']):
        p = subprocess.run([EXPORT, *args, *([] if args[-1] == 'folded' else [os.path.join(SRC, FILES[0])])],
                           capture_output=True, text=True)
        check(p.returncode == 2 and 'rsp-export' in p.stderr, f'{args}: refused with exit 2 ({p.stderr.strip()[:120]})')
    p = subprocess.run([EXPORT, '--to', 'folded', '--pid', '999999', os.path.join(SRC, FILES[0])],
                       capture_output=True, text=True)
    check(p.returncode == 1 and '999999' in p.stderr, f'--pid 999999: exit 1 naming the pid ({p.stderr.strip()[:160]})')
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
