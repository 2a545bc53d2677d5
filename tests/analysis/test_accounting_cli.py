#!/usr/bin/env python3
"""rsp-summary --accounting (issue 20, the Linux Trace Toolkit's per-process table) on a make, curl against nginx
and the README's sample:
- each process's columns add up to its life (its tasks' first run start to last run end, summed);
- the samples it calls user-mode and kernel-mode are, per process, perf script's cpu-clock samples of that pid whose
  ip is in user space and in the kernel (the oracle: perf's own ip field; the idle task is no process);
- its running columns add up to the runtime rsp-summary --tasks gives its tasks (checked against perf's switch
  records by model-runtime-oracle), and no life is longer than the recording's samples and switches span."""
import collections
import json
import os
import re
import subprocess
import sys

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

FILES = ['data/sample.perf.data', 'tests/model/data/wl-make.data', 'tests/model/data/wl-nginx.data']
COLS = ['user', 'kernel', 'running_unsampled', 'io_wait', 'waiting', 'runnable', 'untraced']
KERNEL_START = 0xffff800000000000
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def main():
    for rel in FILES:
        path = os.path.join(SRC, rel)
        name = os.path.basename(path)
        p = subprocess.run([SUMMARY, '--accounting', '--format=json', path], capture_output=True, text=True)
        check(p.returncode == 0, f'{name}: --accounting exit {p.returncode} {p.stderr[-200:]}')
        rows = json.loads(p.stdout)
        bad = [r for r in rows if abs(sum(r[c + '_ms'] for c in COLS) - r['life_ms']) > 1e-5 * max(1, r['life_ms'])]
        check(rows and not bad, f'{name}: {len(rows)} processes, each one\'s columns add up to its life '
              f'(off: {[(r["pid"], r["comm"]) for r in bad[:3]]})')

        out = oracle.perf(['script', '-F', 'pid,event,ip', '-G'], path)
        user, kernel = collections.Counter(), collections.Counter()
        for l in out.splitlines():
            f = l.split()
            if len(f) >= 3 and f[1].startswith('cpu-clock') and f[0] != '0':  # pid 0: the idle task, no process
                (kernel if int(f[2], 16) >= KERNEL_START else user)[int(f[0])] += 1
        got_u = {r['pid']: r['user_samples'] for r in rows if r['user_samples']}
        got_k = {r['pid']: r['kernel_samples'] for r in rows if r['kernel_samples']}
        check(got_u == dict(user), f'{name}: user-mode samples per process as perf script ({sum(user.values())}): '
              f'{sorted(set(got_u.items()) ^ set(user.items()))[:4]}')
        check(got_k == dict(kernel), f'{name}: kernel-mode samples per process as perf script '
              f'({sum(kernel.values())}): {sorted(set(got_k.items()) ^ set(kernel.items()))[:4]}')

        tasks = json.loads(subprocess.run([SUMMARY, '--tasks', '--format=json', path], capture_output=True,
                                          text=True).stdout)
        runtime = collections.Counter()
        for t in tasks:
            runtime[t['pid'] if t['pid'] >= 0 else t['tid']] += t['runtime_ms']
        off = [r['pid'] for r in rows
               if abs(r['user_ms'] + r['kernel_ms'] + r['running_unsampled_ms'] - runtime[r['pid']]) > 0.001]
        check(not off, f'{name}: running columns = --tasks runtime per process (off: {off[:4]})')
        # each task's running time split by perf's shares of its samples in each mode (a sample stands for a sampling
        # period, not for the run it fell in: short runs hold none most of the time). A task is perf script's
        # (pid, tid, comm); a process is checked when each of its tasks has a comm of its own
        out = oracle.perf(['script', '-F', 'comm,pid,tid,event,ip', '-G'], path)
        tu, tk = collections.Counter(), collections.Counter()
        for l in out.splitlines():
            mt = re.match(r'^\s*(.*?)\s+(\d+)/(\d+)\s+(\S+):\s+([0-9a-f]+)', l)
            if mt and mt.group(4).startswith('cpu-clock') and mt.group(2) != '0':
                key = (int(mt.group(2)), int(mt.group(3)), mt.group(1))
                (tk if int(mt.group(5), 16) >= KERNEL_START else tu)[key] += 1
        by_task = collections.defaultdict(list)
        for t in tasks:
            by_task[(t['pid'] if t['pid'] >= 0 else t['tid'], t['tid'], t['comm'])].append(t['runtime_ms'])
        want = collections.Counter()
        single = set(r['pid'] for r in rows)
        for key, rts in by_task.items():
            if len(rts) > 1:
                single.discard(key[0])
            n = tu[key] + tk[key]
            if n:
                want[key[0]] += rts[0] * tu[key] / n
        for key in set(tu) | set(tk):
            if key not in by_task:  # perf names a task's samples by a comm rsp does not give it: not comparable
                single.discard(key[0])
        split = [(r['pid'], r['comm'], round(r['user_ms'], 3), round(want[r['pid']], 3)) for r in rows
                 if r['pid'] in single and user[r['pid']] + kernel[r['pid']] >= 3]
        bad = [x for x in split if abs(x[2] - x[3]) > 0.002 + 1e-6 * x[3]]
        check(len(split) >= 3 and not bad, f'{name}: {len(split)} processes with samples: user time = each task\'s '
              f'runtime x perf\'s user-mode share of its samples (off: {bad[:3]})')
        times = [oracle.parse_time(t) for t in re.findall(r'\b(\d+\.\d{9}):', oracle.perf(
            ['script', '--show-switch-events', '-F', 'time', '--ns'], path))]
        span = (max(times) - min(times)) / 1e6
        longest = max(rows, key=lambda r: r['life_ms'] / r['tasks'])
        check(longest['life_ms'] / longest['tasks'] <= span + 0.001,
              f'{name}: no task lives longer than the recording ({longest["comm"]}: '
              f'{longest["life_ms"] / longest["tasks"]:.3f} <= {span:.3f} ms)')
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
