#!/usr/bin/env python3
"""Oracle (d): the stacks of rsp-dump --stacks against perf's call chains (perf script -s perf_dump.py --no-inline
--kallsyms=SNAPSHOT, with an empty build-id cache), frame by frame: the same address at the same depth, and the
same symbol for >= 99% of the kernel frames and >= 95% of the user frames that perf resolves. A sample without a
callchain is one frame on both sides: its ip, as perf script prints it.

ELF symbol versions are not part of a symbol's name: perf names a .dynsym entry 'sched_setaffinity@@GLIBC_2.3.4',
so a '@VERSION' or '@@VERSION' suffix is dropped on both sides before comparing."""
import re

import oracle

KERNEL_MIN, USER_MIN = 0.99, 0.95
KERNEL_START = 0xffff800000000000
MAX_SHOWN = 6
_VERSION = re.compile(r'@@?[A-Za-z0-9_.]+$')


def plain(sym):
    return _VERSION.sub('', sym) if isinstance(sym, str) else sym


res = oracle.Result('symbols')
for path in oracle.fixtures():
    where = oracle.name(path)
    want = oracle.perf_dump(path, kallsyms=True)
    got = oracle.rsp_samples(path, stacks=True)
    pairs, only_perf, only_rsp = oracle.pair_samples(want, got)
    res.check(not only_perf and not only_rsp, where,
              f'{len(pairs)} samples paired; unpaired: perf {len(only_perf)}, rsp-dump {len(only_rsp)}')
    stats = {'kernel': [0, 0], 'user': [0, 0]}   # [frames perf resolves, of which rsp-dump names the same]
    depth_bad = addr_bad = 0
    shown_depth, shown_sym = [], []
    one_frame = 0
    for p, r in pairs:
        pstack = p['stack']
        if not pstack:
            # no callchain: perf script prints the sample's ip, and rsp-dump gives it as the one frame
            if p.get('ip') is None:
                continue
            pstack = [[p['ip'], p.get('sym'), p.get('dso')]]
            one_frame += 1
        rstack = r.get('stack')
        if not isinstance(rstack, list):
            res.fail(where, f'{p["event"]} t={p["time"]}: stack is {rstack!r}')
            break
        if len(rstack) != len(pstack):
            depth_bad += 1
            if len(shown_depth) < MAX_SHOWN // 2:
                shown_depth.append(f'{p["event"]} t={p["time"]} tid={p["tid"]}: depth perf {len(pstack)}, '
                              f'rsp-dump {len(rstack)}')
        for i, (ip, sym, dso) in enumerate(pstack):
            if sym is None:
                continue
            ring = 'kernel' if ip >= KERNEL_START else 'user'
            stats[ring][0] += 1
            frame = rstack[i] if i < len(rstack) and isinstance(rstack[i], dict) else {}
            if frame.get('addr') != ip:
                addr_bad += 1
            if frame.get('addr') == ip and plain(frame.get('sym')) == plain(sym):
                stats[ring][1] += 1
            elif len(shown_sym) < MAX_SHOWN:
                shown_sym.append(f'{p["event"]} t={p["time"]} tid={p["tid"]} frame {i} {ip:#x}: perf {sym} ({dso}), '
                             f'rsp-dump {frame.get("sym")} ({frame.get("dso")}) at {frame.get("addr", 0):#x}')
    for line in shown_depth + shown_sym:
        print('  ' + line)
    if one_frame:
        res.ok(where, f'{one_frame} samples without a callchain: their ip as the one frame')
    res.check(depth_bad == 0, where, f'{depth_bad} stacks of another depth than perf\'s')
    res.check(addr_bad == 0, where, f'{addr_bad} resolved frames at another address than perf\'s')
    for ring, least in (('kernel', KERNEL_MIN), ('user', USER_MIN)):
        total, same = stats[ring]
        if not total:
            res.ok(where, f'{ring}: no frames perf resolves')
            continue
        res.check(same >= least * total, where,
                  f'{ring}: {same}/{total} frames perf resolves have the same symbol ({100 * same / total:.2f}%, '
                  f'need {100 * least:.0f}%)')
res.finish()
