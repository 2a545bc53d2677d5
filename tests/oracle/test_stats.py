#!/usr/bin/env python3
"""Oracle (f): rsp-dump --stats --format=json against perf.
- events: the samples per event name that perf script prints (names perf has no sample of may be absent or 0);
- records: the counts of the kernel record types perf report -D reads (COMM, FORK, EXIT, MMAP, MMAP2,
  SWITCH_CPU_WIDE, SAMPLE, LOST, ...; type names with or without the PERF_RECORD_ prefix);
- lost, lost_samples: the sums of the lost counters of the LOST and LOST_SAMPLES records;
and the jsonl stream delivers as many COMM, FORK, EXIT, MMAP2 and SWITCH_CPU_WIDE records as perf reads."""
import collections

import oracle

res = oracle.Result('stats')
for path in oracle.fixtures():
    where = oracle.name(path)
    stats = oracle.rsp_stats(path)
    if not all(isinstance(stats.get(k), t) for k, t in (('records', dict), ('events', dict), ('lost', int),
                                                          ('lost_samples', int))):
        res.fail(where, f'--stats output lacks records/events/lost/lost_samples: {str(stats)[:300]}')
        continue
    events = oracle.perf_event_counts(path)
    for event in sorted(set(events) | set(stats['events'])):
        res.check(stats['events'].get(event, 0) == events[event], where,
                  f'events[{event}]: perf {events[event]}, rsp-dump {stats["events"].get(event, 0)}')
    records, lost, lost_samples = oracle.perf_record_counts(path)
    got = collections.Counter()
    for kind, n in stats['records'].items():
        got[kind[len(oracle.RECORD_PREFIX):] if kind.startswith(oracle.RECORD_PREFIX) else kind] += n
    for kind in oracle.COUNTED_RECORDS:
        if records[kind] or got[kind]:
            res.check(records[kind] == got[kind], where, f'records[{kind}]: perf {records[kind]}, rsp-dump {got[kind]}')
    res.check(stats['lost'] == lost, where, f'lost: perf {lost}, rsp-dump {stats["lost"]}')
    res.check(stats['lost_samples'] == lost_samples, where,
              f'lost_samples: perf {lost_samples}, rsp-dump {stats["lost_samples"]}')
    delivered = collections.Counter(ev['event'] for ev in oracle.rsp_events(path) if not oracle.is_sample(ev))
    for kind in oracle.DELIVERED_RECORDS:
        n = delivered[oracle.RECORD_PREFIX + kind]
        res.check(n == records[kind], where, f'jsonl {oracle.RECORD_PREFIX}{kind} lines: perf {records[kind]}, '
                  f'rsp-dump {n}')
res.finish()
