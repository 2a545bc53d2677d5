#!/usr/bin/env python3
"""Oracle (a): per event name, rsp-dump --format=jsonl delivers as many samples as perf script prints."""
import collections

import oracle

res = oracle.Result('sample counts per event')
for path in oracle.fixtures():
    where = oracle.name(path)
    want = oracle.perf_event_counts(path)
    got = collections.Counter(ev['event'] for ev in oracle.rsp_samples(path))
    for event in sorted(set(want) | set(got)):
        res.check(want[event] == got[event], where, f'{event}: perf {want[event]}, rsp-dump {got[event]}')
res.finish()
