#!/usr/bin/env python3
"""Oracle (b): rsp-dump delivers the samples in the order perf script prints them, with the same
(time, cpu, pid, tid, event): perf script -F pid,tid,cpu,time,event --ns. Samples that share a timestamp may come in
any order among themselves. Also checks that the whole jsonl stream (records included) never goes back in time."""
import oracle

res = oracle.Result('sample sequence')
for path in oracle.fixtures():
    where = oracle.name(path)
    events = oracle.rsp_events(path)
    want = oracle.perf_sample_keys(path)
    got = [oracle.sequence_key(ev) for ev in events if oracle.is_sample(ev)]
    diff = oracle.compare_sequences(want, got)
    res.check(diff is None, where, diff or f'{len(got)} samples in the same order, same (time, cpu, pid, tid, event)')
    # Global time order, over the samples and the kernel records that carry a time (sample_id_all).
    timed = [ev for ev in events if oracle.is_sample(ev) or
             ev['event'][len(oracle.RECORD_PREFIX):] in oracle.DELIVERED_RECORDS]
    untimed = [ev for ev in timed if type(ev.get('time')) is not int]
    res.check(not untimed, where, f'{len(untimed)} event(s) without an integer time' +
              (f', first: {untimed[0]}' if untimed else ''))
    timed = [ev for ev in timed if type(ev.get('time')) is int]
    back = [(a, b) for a, b in zip(timed, timed[1:]) if b['time'] < a['time']]
    res.check(not back, where, f'{len(back)} step(s) back in time in the jsonl stream' +
              (f', first: {back[0][0]} then {back[0][1]}' if back else ''))
res.finish()
