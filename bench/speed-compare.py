#!/usr/bin/env python3
"""rsp-summary --categories (two threads and RSP_THREADS=1) against perf sched timehist -s on one recording:
ROUNDS rounds, interleaved (each round runs every command once), wall time from time.monotonic, user+sys and
max RSS from wait4's rusage; prints best / median of each.
Usage: bench/speed-compare.py [FILE [ROUNDS [OTHER-RSP-SUMMARY]]]  (default bench/out/large.data, 7)"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
data = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, 'out', 'large.data')
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
summary = os.path.join(HERE, '..', 'build', 'src', 'tools', 'rsp-summary')
cmds = {'rsp-summary --categories (default: 2 threads)': [summary, '--categories', data],
        'RSP_THREADS=1 rsp-summary --categories': ['env', 'RSP_THREADS=1', summary, '--categories', data]}
if len(sys.argv) > 3:
    cmds[sys.argv[3] + ' --categories'] = [sys.argv[3], '--categories', data]
cmds['perf sched timehist -s'] = ['perf', 'sched', 'timehist', '-s', '-i', data]
res = {k: [] for k in cmds}
for _ in range(rounds):
    for k, c in cmds.items():
        pid = os.fork()
        if pid == 0:
            fd = os.open('/dev/null', os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execvp(c[0], c)
        t = time.monotonic()
        _, status, ru = os.wait4(pid, 0)
        res[k].append((time.monotonic() - t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024))
print(open('/proc/loadavg').read().split()[:3], 'load average')
print('| command | wall best / median | user+sys best / median | max RSS |')
for k, v in res.items():
    ws = sorted(x[0] for x in v)
    cs = sorted(x[1] for x in v)
    ms = sorted(x[2] for x in v)
    m = len(v) // 2
    print(f'| {k} | {ws[0]:.3f} / {ws[m]:.3f} s | {cs[0]:.3f} / {cs[m]:.3f} s | {ms[m]:.0f} MB |')
