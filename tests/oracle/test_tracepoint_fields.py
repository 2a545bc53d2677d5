#!/usr/bin/env python3
"""Oracle (c): the tracepoint fields rsp-dump gives equal those perf's own python scripting hands by name
(perf script -s perf_dump.py), field by field, for every tracepoint sample (sched_switch, sched_wakeup,
sched_waking, block_rq_*, sock:*, irq:*, sched_process_*), and the sample's comm equals perf's.

Values: numbers must be equal numbers. Strings (char arrays, __data_loc char[]) must be equal strings. A char array
that perf does not take for a string (bytes after the terminating NUL, or a u8 array such as inet_sock_set_state's
saddr) perf hands as bytes: rsp-dump may give it as the C string it holds (the bytes up to the first NUL) or as the
list of its byte values."""
import collections

import oracle

MAX_SHOWN = 8


def same(perf_value, rsp_value):
    if isinstance(perf_value, dict) and 'bytes' in perf_value:
        raw = bytes.fromhex(perf_value['bytes'])
        if isinstance(rsp_value, str):
            return raw.split(b'\0', 1)[0].decode('utf-8', 'replace') == rsp_value
        return isinstance(rsp_value, list) and rsp_value == list(raw)
    if isinstance(perf_value, str) and isinstance(rsp_value, list):
        # perf took an all-NUL or printable u8 array for a string; rsp-dump gave the bytes
        return all(type(b) is int for b in rsp_value) and \
            bytes(rsp_value).split(b'\0', 1)[0].decode('utf-8', 'replace') == perf_value
    if type(perf_value) is int:
        return type(rsp_value) is int and perf_value == rsp_value
    return perf_value == rsp_value


res = oracle.Result('tracepoint fields')
for path in oracle.fixtures():
    where = oracle.name(path)
    want = [ev for ev in oracle.perf_dump(path) if 'fields' in ev]
    tracepoints = {ev['event'] for ev in want}
    got = [ev for ev in oracle.rsp_samples(path) if ev['event'] in tracepoints]
    pairs, only_perf, only_rsp = oracle.pair_samples(want, got)
    res.check(not only_perf and not only_rsp, where,
              f'{len(pairs)} tracepoint samples paired by (time, cpu, tid, event); unpaired: perf {len(only_perf)}, '
              f'rsp-dump {len(only_rsp)}' + (f', first perf-only {oracle.sample_key(only_perf[0])}' if only_perf else '')
              + (f', first rsp-only {oracle.sample_key(only_rsp[0])}' if only_rsp else ''))
    checked = collections.Counter()
    bad = collections.Counter()
    shown = 0
    for p, r in pairs:
        event = p['event']
        pf, rf = p['fields'], r.get('fields')
        problems = []
        if not isinstance(rf, dict):
            problems.append(f'fields is {rf!r}')
        else:
            if set(pf) != set(rf):
                problems.append(f'field names: perf {sorted(pf)}, rsp-dump {sorted(rf)}')
            problems += [f'{k}: perf {pf[k]!r}, rsp-dump {rf[k]!r}' for k in pf if k in rf and not same(pf[k], rf[k])]
        if p['comm'] != r.get('comm'):
            problems.append(f'comm: perf {p["comm"]!r}, rsp-dump {r.get("comm")!r}')
        checked[event] += 1
        if problems:
            bad[event] += 1
            if shown < MAX_SHOWN:
                shown += 1
                print(f'  {where} {event} t={p["time"]} cpu={p["cpu"]} tid={p["tid"]}: ' + '; '.join(problems))
    for event in sorted(checked):
        res.check(not bad[event], where, f'{event}: {checked[event] - bad[event]}/{checked[event]} samples with '
                  'the same fields and comm')
res.finish()
