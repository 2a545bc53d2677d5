#!/usr/bin/env python3
"""Kernel work charged to whom it served (issue 20, pkprof), checked against truths built into the workloads
(tests/analysis/data/kwork/record.sh; each workload's own log, FILE.truth, names its pids and what it did):
- kwork-fsync: two writers appending 64 KiB and fsyncing on a journaled ext4 (a loop device), 20 and 5 times: the
  kernel work charged to each (jbd2's commits, the loop device's kworkers, the block completions) is in proportion
  to its fsyncs within 15%, each is charged jbd2 work, and one jbd2 commit per fsync (within 15%);
- kwork-udp: 480 and 120 datagrams sent on loopback to two receivers: the NET_RX softirq time charged to each is
  in proportion within 15%, the softirqs charged are its datagrams within 15%, and the sender, in whose context
  the loopback softirqs ran, is charged (nearly) none of them;
- chain (tests/analysis/data/chain: chain-worker fsyncs its digest): kworker or jbd2 work is charged to chain-worker;
- the same figures in every output: --accounting (text and JSON), --tasks JSON (summed per process), --categories
  JSON (kernel_work_ms per process), and the accounting columns still add up to each life;
- the flame views' "kernel work for X" frame, in rsp-export --to folded (built from the consolidated stacks, as the
  consolidated view): each writer's is there, in proportion to its fsyncs within 15%; jbd2's commits, which end
  the fsyncs, are on the writer's path (its frames there) and not in the frame again, and the frame plus the
  kernel threads' time on the path is the writer's kernel_work_ms (10%); the block completions, which run in
  interrupt context beside the paths, are in it whole; a process with no kernel work has no such frame.
Uses only the committed fixtures (decompressed into a temporary directory); skipped (77) without zstd."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
EXPORT = os.environ.get('RSP_EXPORT', os.path.join(BUILD, 'src', 'tools', 'rsp-export'))
KTHREAD = re.compile(r'(jbd2/|kworker/|ksoftirqd/)')
DATA = os.path.join(SRC, 'tests', 'analysis', 'data')
COLS = ['user', 'kernel', 'running_unsampled', 'io_wait', 'waiting', 'runnable', 'untraced']

failures = []


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def summary(*args):
    p = subprocess.run([SUMMARY, *args], capture_output=True, text=True)
    ok(p.returncode == 0, f'rsp-summary {" ".join(args[:-1])} {os.path.basename(args[-1])}: exit {p.returncode}'
       + (f' {p.stderr[-300:]}' if p.returncode else ''))
    return p.stdout


def truth(path):
    """FILE.truth: 'NAME pid=P key=N ...' per line, as the workload printed it."""
    t = {}
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        name, *kv = line.split()
        t[name] = {k: int(v) for k, v in (x.split('=') for x in kv)}
    return t


def unpack(tmp, name):
    src = os.path.join(DATA, 'kwork')
    for f in os.listdir(src):
        if f.startswith(name + '.') and not f.endswith('.data.zst'):
            p = os.path.join(src, f)
            (shutil.copytree if os.path.isdir(p) else shutil.copy)(os.path.realpath(p), os.path.join(tmp, f))
    data = os.path.join(tmp, name)
    subprocess.run(['zstd', '-q', '-d', os.path.join(src, name + '.zst'), '-o', data], check=True)
    return data


def within(got, want, tol=0.15):
    return want > 0 and abs(got - want) <= tol * want


def accounting(path):
    rows = json.loads(summary('--accounting', '--format=json', path))
    bad = [r['pid'] for r in rows if abs(sum(r[c + '_ms'] for c in COLS) - r['life_ms']) > 1e-5 * max(1, r['life_ms'])]
    ok(rows and not bad, f'{os.path.basename(path)}: the accounting columns still add up to each life (off: {bad[:3]})')
    return {r['pid']: r for r in rows}


def by(row, doer_prefix, field='ms'):
    return sum(b[field] for b in row['kernel_work']['by'] if b['doer'].startswith(doer_prefix))


def consistent(path, rows, pids):
    """--tasks JSON summed per process and the --accounting text show the same kernel work as --accounting JSON."""
    tasks = json.loads(summary('--tasks', '--format=json', path))
    text = summary('--accounting', path)
    for pid in pids:
        want = rows[pid]['kernel_work_ms']
        got = sum(t['kernel_work_ms'] for t in tasks if (t['pid'] if t['pid'] >= 0 else t['tid']) == pid)
        ok(abs(got - want) < 0.01, f'{os.path.basename(path)}: pid {pid}: --tasks kernel_work_ms summed {got:.3f} = '
           f'--accounting {want:.3f}')
        line = re.search(rf'^\s*{pid}\s.*\|\s+([\d.]+)\s*$', text, re.M)
        ok(line and abs(float(line.group(1)) - want) < 0.002, f'{os.path.basename(path)}: pid {pid}: the text '
           f'table\'s KWORK column ({line.group(1) if line else None}) = {want:.3f}')
        ok(re.search(rf'^kernel work for \S+ \({pid}\): ', text, re.M), f'{os.path.basename(path)}: pid {pid}: a '
           '"kernel work for" line says by whom')


def folded(path, pid):
    """rsp-export --to folded (consolidated stacks) of PID: [(frames, us)]."""
    p = subprocess.run([EXPORT, '--to', 'folded', '--pid', str(pid), path], capture_output=True, text=True)
    ok(p.returncode == 0, f'rsp-export --to folded --pid {pid} {os.path.basename(path)}: exit {p.returncode}'
       + (f' {p.stderr[-300:]}' if p.returncode else ''))
    out = []
    for line in p.stdout.splitlines():
        stack, value = line.rsplit(' ', 1)
        out.append((stack.split(';'), int(value)))
    return out


def kwork_frame(stacks, comm):
    """The "kernel work for COMM" frame's children: {doer: us} (folded frames have '_' for ' ')."""
    root = 'kernel_work_for_' + comm
    by_doer = {}
    for frames, v in stacks:
        if frames[0] == root and len(frames) == 2:
            by_doer[frames[1]] = by_doer.get(frames[1], 0) + v
        elif frames[0] == root:
            ok(False, f'{root}: a frame under a doer: {frames}')
    return by_doer


def frame_case(data, t, rows):
    """The "kernel work for" frame of each writer in the consolidated stacks (folded export)."""
    got = {}
    for name in ('fsync-fast', 'fsync-slow'):
        pid = t[name]['pid']
        stacks = folded(data, pid)
        frame = kwork_frame(stacks, name)
        cats = json.loads(summary('--categories', '--format=json', '--pid', str(pid), data))
        k = cats['kernel_work_ms'] * 1000
        f = sum(frame.values())
        # the kernel threads' runs on its path, drawn there: the self time of the stacks ending in a kernel thread's
        # row (their runs are unsampled and kernel threads have no user stack to borrow)
        r = sum(v for frames, v in stacks if KTHREAD.match(frames[-1]))
        ok(frame and f <= k + 2, f'fsync: {name}: a "kernel work for {name}" frame, {f} us, within its kernel_work_ms '
           f'{k:.0f} us ({frame})')
        ok(within(f + r, k, 0.10), f'fsync: {name}: the frame {f} us + the kernel threads\' runs on its path {r} us = '
           f'{f + r} us, its kernel_work_ms {k:.0f} us (10%): drawn once, nothing lost')
        ok(not any(d.startswith('jbd2/') for d in frame) and any(f.startswith('jbd2/') for fr, _ in stacks
                                                                  for f in fr),
           f'fsync: {name}: jbd2 (whose commit ends each fsync) is on the path and not in the frame again')
        irq = by(rows[pid], 'softirq BLOCK') * 1000
        ok(within(frame.get('softirq_BLOCK', 0), irq, 0.05), f'fsync: {name}: the frame\'s softirq BLOCK '
           f'{frame.get("softirq_BLOCK", 0)} us = the block completions charged to it {irq:.0f} us (5%)')
        got[name] = f
    want = t['fsync-fast']['fsyncs'] / t['fsync-slow']['fsyncs']
    ratio = got['fsync-fast'] / got['fsync-slow'] if got['fsync-slow'] else 0
    ok(within(ratio, want), f'fsync: "kernel work for" frames fsync-fast / fsync-slow = {got["fsync-fast"]} / '
       f'{got["fsync-slow"]} us = {ratio:.2f}, their fsyncs {want:.2f} (15%)')
    # a process nothing was done for: no frame of its own (its paths' other processes may have one)
    none = [r for r in rows.values() if r['kernel_work_ms'] == 0 and r['life_ms'] > 1 and r['comm']
            and not KTHREAD.match(r['comm'])]
    ok(none, 'fsync: a process with no kernel work in the recording')
    if none:
        r = none[0]
        stacks = folded(data, r['pid'])
        mine = [fr for fr, _ in stacks if fr[0] == 'kernel_work_for_' + r['comm'].replace(' ', '_')]
        ok(stacks and not mine, f'fsync: {r["comm"]} ({r["pid"]}), charged no kernel work, has no "kernel work for" '
           f'frame ({len(stacks)} stacks)')


def fsync_case(tmp):
    data = unpack(tmp, 'kwork-fsync.data')
    t = truth(os.path.join(DATA, 'kwork', 'kwork-fsync.data.truth'))
    fast, slow = t['fsync-fast'], t['fsync-slow']
    rows = accounting(data)
    rf, rs = rows.get(fast['pid']), rows.get(slow['pid'])
    ok(rf and rs, f'fsync: both writers in the table ({fast["pid"]}, {slow["pid"]})')
    if not (rf and rs):
        return
    want = fast['fsyncs'] / slow['fsyncs']
    got = rf['kernel_work_ms'] / rs['kernel_work_ms'] if rs['kernel_work_ms'] else 0
    ok(within(got, want), f'fsync: kernel work fsync-fast / fsync-slow = {rf["kernel_work_ms"]:.3f} / '
       f'{rs["kernel_work_ms"]:.3f} ms = {got:.2f}, their fsyncs {fast["fsyncs"]} / {slow["fsyncs"]} = {want:.2f} '
       '(15%)')
    for name, r, w in (('fsync-fast', rf, fast), ('fsync-slow', rs, slow)):
        j = by(r, 'jbd2/', 'count')
        ok(by(r, 'jbd2/') > 0 and within(j, w['fsyncs']), f'fsync: {name}: jbd2 commits charged {j:.1f}, its fsyncs '
           f'{w["fsyncs"]} (15%); jbd2 {by(r, "jbd2/"):.3f} ms')
        ok(by(r, 'kworker') > 0 and by(r, 'softirq') + by(r, 'hardirq') > 0,
           f'fsync: {name}: kworker ({by(r, "kworker"):.3f} ms) and interrupt work '
           f'({by(r, "softirq") + by(r, "hardirq"):.3f} ms) charged too')
    consistent(data, rows, [fast['pid'], slow['pid']])
    frame_case(data, t, rows)
    # the answer says it: --explain of the fast writer names jbd2 among the doers, with the paths' kernel work
    story = json.loads(summary('--explain', '--format=json', '--pid', str(fast['pid']), data))
    cats = json.loads(summary('--categories', '--format=json', '--pid', str(fast['pid']), data))
    text = ' '.join(story['explanation']['text']) if isinstance(story['explanation']['text'], list) \
        else story['explanation']['text']
    m = re.search(r'Interrupts and kernel threads did ([\d.]+) ms of work for them beside \(([^)]*)\)', text)
    ok(m and abs(float(m.group(1)) - cats['kernel_work_ms']) <= 0.05 + 1e-9 and 'jbd2/' in m.group(2),
       f'fsync: --explain of fsync-fast says the kernel work done for it ({m and m.group(0)}; categories '
       f'{cats["kernel_work_ms"]:.3f} ms)')


def udp_case(tmp):
    data = unpack(tmp, 'kwork-udp.data')
    t = truth(os.path.join(DATA, 'kwork', 'kwork-udp.data.truth'))
    fast, slow, send = t['udp-fast'], t['udp-slow'], t['udp-send']
    ok(fast['datagrams'] == send['sent1'] and slow['datagrams'] == send['sent2'], 'udp: every datagram sent arrived '
       '(the workload\'s own counts)')
    rows = accounting(data)
    rf, rs, rsend = rows.get(fast['pid']), rows.get(slow['pid']), rows.get(send['pid'])
    ok(rf and rs and rsend, 'udp: the receivers and the sender in the table')
    if not (rf and rs and rsend):
        return
    nf, ns = by(rf, 'softirq NET_RX'), by(rs, 'softirq NET_RX')
    want = fast['datagrams'] / slow['datagrams']
    ok(ns > 0 and within(nf / ns, want), f'udp: NET_RX softirq time udp-fast / udp-slow = {nf:.3f} / {ns:.3f} ms = '
       f'{nf / ns if ns else 0:.2f}, their datagrams {fast["datagrams"]} / {slow["datagrams"]} = {want:.2f} (15%)')
    for name, r, w in (('udp-fast', rf, fast), ('udp-slow', rs, slow)):
        c = by(r, 'softirq NET_RX', 'count')
        ok(within(c, w['datagrams']), f'udp: {name}: NET_RX softirqs charged {c:.1f}, datagrams received '
           f'{w["datagrams"]} (15%)')
    s = by(rsend, 'softirq NET_RX')
    ok(s <= 0.05 * (nf + ns), f'udp: the sender, whose context ran the loopback softirqs, is charged {s:.3f} ms of '
       f'NET_RX (<= 5% of the receivers\' {nf + ns:.3f})')
    consistent(data, rows, [fast['pid'], slow['pid']])


def chain_case():
    data = os.path.join(DATA, 'chain', 'chain.data')
    rows = accounting(data)
    worker = [r for r in rows.values() if r['comm'] == 'chain-worker']
    ok(len(worker) == 1, 'chain: one chain-worker')
    if not worker:
        return
    w = worker[0]
    k = by(w, 'kworker') + by(w, 'jbd2/')
    ok(k > 0, f'chain: kworker/jbd2 work charged to chain-worker (its fsync): {k:.3f} ms '
       f'({[(b["doer"], round(b["ms"], 3)) for b in w["kernel_work"]["by"]]})')
    cats = json.loads(summary('--categories', '--format=json', '--comm', 'chain-client', data))
    procs = {p['pid']: p for p in cats['processes']}
    p = procs.get(w['pid'])
    ok(p is not None and abs(p['kernel_work_ms'] - w['kernel_work_ms']) < 0.001,
       f'chain: --categories JSON: chain-worker\'s kernel_work_ms {p and p["kernel_work_ms"]} = --accounting\'s '
       f'{w["kernel_work_ms"]:.3f}')
    total = sum(v for v in cats['categories'].values())
    ok(abs(total - cats['total_ms']) < 0.01 * max(1, cats['total_ms']) and 'kernel_work_ms' in cats,
       f'chain: the categories still sum to total_ms ({total:.3f} / {cats["total_ms"]:.3f}); kernel work beside them '
       f'({cats.get("kernel_work_ms")})')
    text = summary('--categories', '--comm', 'chain-client', data)
    row = re.search(r'^Kernel work done for them\s+([\d.]+) ms', text, re.M)
    ok(row and abs(float(row.group(1)) - cats['kernel_work_ms']) < 0.001 and
       cats['kernel_work_ms'] >= p['kernel_work_ms'] - 0.001,
       f'chain: --categories text row "Kernel work done for them" {row and row.group(1)} = JSON kernel_work_ms '
       f'{cats["kernel_work_ms"]:.3f} (chain-worker\'s {p["kernel_work_ms"]:.3f} in it)')


def main():
    if not shutil.which('zstd'):
        print('skipped: zstd missing')
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        fsync_case(tmp)
        udp_case(tmp)
    chain_case()
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
