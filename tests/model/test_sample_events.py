#!/usr/bin/env python3
"""Any sampling event is a sample source, not only cpu-clock (issue: a machine with a PMU samples cycles).

A recording of this VM (cpu-clock) is rewritten into the recordings a user with a PMU would have made:
cycles, instructions, ref-cycles, a raw PMU event (type 4), task-clock, and cycles at a fixed period
(retype_sampling.py changes the attr and its name, nothing else). For each:
- perf script reads it and names the event as rewritten (the rewrite is what perf sees);
- the samples rsp attaches to each thread are perf script's samples of that event for that thread
  (samples of tid 0, the idle task, are no thread's);
- the categories are the original's, with "understood" > 0: the same instants were sampled;
- rsp-summary says which event the runs' samples came from.
A synthetic file with two sampling events (cycles and instructions, each with its own samples) uses
cycles and names instructions as not used; one with no sampling event warns that no run has a stack."""
import collections
import json
import os
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ['RSP_SUMMARY']
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'unit'))
sys.path.insert(0, os.path.dirname(__file__))
import oracle  # noqa: E402
import retype_sampling  # noqa: E402
import synthetic_perf as sp  # noqa: E402

FIXTURE = os.path.join(SRC, 'tests', 'model', 'data', 'wl-sqlite.data')
CPU_CLOCK = (1, 0)
VARIANTS = [  # (type, config), name as perf would print it, fixed period
    ((0, 0), 'cycles', None),
    ((0, 1), 'instructions', None),
    ((0, 9), 'ref-cycles', None),
    ((4, 0x3c), 'cpu/event=0x3c/', None),
    ((1, 1), 'task-clock', None),
    ((0, 0), 'cycles', 100003),
]

failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def summary(*args):
    p = subprocess.run([SUMMARY] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f'rsp-summary {" ".join(args)}: exit {p.returncode}\n{p.stderr[-3000:]}')
    return p.stdout


def link_beside(src, dst):
    """The kallsyms snapshot, .meta and .ftrace capture of SRC beside DST, so both build the same model."""
    for suffix in ('.kallsyms.zst', '.kallsyms', '.meta', '.ftrace'):
        if os.path.exists(src + suffix):
            os.symlink(os.path.abspath(src + suffix), dst + suffix)


def samples_by_tid(tasks_json):
    out = collections.Counter()
    for t in json.loads(tasks_json):
        if t['samples']:
            out[t['tid']] += t['samples']
    return out


def perf_samples_by_tid(path, event):
    out = oracle.perf(['script', '-F', 'tid,event', '-G'], path)
    counts, names = collections.Counter(), collections.Counter()
    for line in out.splitlines():
        words = line.split()
        if len(words) != 2:
            continue
        name = oracle.strip_colon(words[1])
        names[name] += 1
        if name == event and int(words[0]) != 0:
            counts[int(words[0])] += 1
    return counts, names


def categories(path):
    c = json.loads(summary('--categories', '--format=json', path))
    return c


def real_recordings(tmp):
    base = categories(FIXTURE)
    check(base['sample_event'].startswith('cpu-clock'), f'the fixture samples cpu-clock: {base["sample_event"]}')
    base_tasks = samples_by_tid(summary('--tasks', '--format=json', FIXTURE))
    for new, name, period in VARIANTS:
        label = name + (f' period={period}' if period else '')
        dst = os.path.join(tmp, f'{name.replace("/", "_")}-{period or "freq"}.data')
        n = retype_sampling.retype(FIXTURE, dst, CPU_CLOCK, new, new_name=name, period=period)
        check(n >= 2, f'{label}: the attr rewritten in the attrs section and EVENT_DESC ({n})')
        link_beside(FIXTURE, dst)
        perf_counts, perf_names = perf_samples_by_tid(dst, name)
        check(perf_names[name] > 0 and not any(k.startswith('cpu-clock') for k in perf_names),
              f'{label}: perf script sees {dict(perf_names.most_common(3))}')
        rsp_counts = samples_by_tid(summary('--tasks', '--format=json', dst))
        diff = {tid: (rsp_counts[tid], perf_counts[tid]) for tid in set(rsp_counts) | set(perf_counts)
                if rsp_counts[tid] != perf_counts[tid]}
        check(not diff and sum(rsp_counts.values()) > 0,
              f'{label}: samples per thread as perf script has them ({sum(rsp_counts.values())} samples, '
              f'{len(rsp_counts)} threads; differences (rsp, perf): {dict(list(diff.items())[:5])})')
        check(rsp_counts == base_tasks, f'{label}: the same samples per thread as the cpu-clock original')
        c = categories(dst)
        check(c['sample_event'] == name, f'{label}: sample_event is {c["sample_event"]!r}')
        same = all(abs(c['categories'][k] - base['categories'][k]) < 1e-6 for k in base['categories'])
        check(same and c['categories']['understood'] > 0,
              f'{label}: categories as the original (understood {c["categories"]["understood"]:.3f} ms, '
              f'original {base["categories"]["understood"]:.3f} ms)')
        text = summary('--categories', dst)
        check(any(line.startswith('Run samples from') and name in line for line in text.splitlines()),
              f'{label}: the table names the event the samples came from')


def synthetic(tmp):
    """One task runs 0-10 ms on cpu 0 (switch records); cycles samples it at 1, 3, 5 ms, instructions at 2, 4 ms."""
    st = sp.IP | sp.TID | sp.TIME | sp.CPU | sp.PERIOD | sp.IDENTIFIER
    cycles = sp.Attr('cycles', sp.attr(0, 0, st, period=4000), [10])
    instr = sp.Attr('instructions', sp.attr(0, 1, st, period=4000), [11])
    switch_attr = sp.Attr('dummy:u', sp.attr(1, 9, st, flags=sp.SAMPLE_ID_ALL | 1 << 26), [12])
    ms = 1_000_000

    def switch(out, time, tid, next_tid):
        misc = 0x2000 if out else 0  # PERF_RECORD_MISC_SWITCH_OUT
        body = struct_pack_ii(next_tid, next_tid) + switch_attr.trailer(tid, tid, time, 12, 0)
        return sp.record(sp.REC['SWITCH_CPU_WIDE'], body, misc=misc)

    data = b''
    data += switch(False, 0, 42, 0)
    for t, attr, id_ in [(1, cycles, 10), (2, instr, 11), (3, cycles, 10), (4, instr, 11), (5, cycles, 10)]:
        data += sp.Sample(attr, id=id_, ip=0x401000, pid=42, tid=42, time=t * ms, cpu=0, period=4000).bytes()
    data += switch(True, 10 * ms, 42, 0)
    for with_samples in (True, False):
        attrs = [cycles, instr, switch_attr] if with_samples else [switch_attr]
        body = data if with_samples else switch(False, 0, 42, 0) + switch(True, 10 * ms, 42, 0)
        path = os.path.join(tmp, f'two-events-{with_samples}.data')
        with open(path, 'wb') as f:
            f.write(sp.perf_data_file(attrs, body, {12: sp.event_desc(attrs)}))
        p = subprocess.run([SUMMARY, '--tasks', '--format=json', path], capture_output=True, text=True)
        if p.returncode != 0:
            check(False, f'synthetic ({with_samples}): rsp-summary --tasks exit {p.returncode}: {p.stderr[-500:]}')
            continue
        tasks = {t['tid']: t for t in json.loads(p.stdout)}
        if with_samples:
            check(tasks.get(42, {}).get('samples') == 3, f'two sampling events: the 3 cycles samples go to the run, '
                  f'not the 2 instructions ones: {tasks.get(42, {}).get("samples")}')
            check('instructions' in p.stderr and 'not used' in p.stderr,
                  f'two sampling events: the unused one is named: {p.stderr.strip()[-300:]!r}')
        else:
            check('no sampling event' in p.stderr, f'no sampling event: said so: {p.stderr.strip()[-300:]!r}')


def group_read(tmp):
    """perf record -e '{cycles,instructions}:S': the leader's samples carry both counts. perf script shows one
    sample per member whose count moved, the difference as period; rsp-dump must show the same, and the
    model samples runs with the leader."""
    st = sp.IP | sp.TID | sp.TIME | sp.CPU | sp.PERIOD | sp.READ | sp.IDENTIFIER
    rf = sp.FMT_GROUP | sp.FMT_ID
    cyc = sp.Attr('cycles', sp.attr(0, 0, st, read_format=rf, period=4000), [10, 20])
    ins = sp.Attr('instructions', sp.attr(0, 1, st, read_format=rf, period=0), [11, 21])
    vals = collections.Counter()
    data = b''
    steps = [(0, 10, 11, 4000, 9000), (1, 20, 21, 4000, 0), (0, 10, 11, 4100, 7000), (1, 20, 21, 4000, 5000)]
    for i, (cpu, ci, ii, dc, di) in enumerate(steps):
        vals[ci] += dc
        vals[ii] += di
        data += sp.Sample(cyc, id=ci, ip=0xffffffff81000000 + i, pid=42, tid=42 + cpu, time=(i + 1) * 1_000_000,
                          cpu=cpu, period=4000, read=[2, vals[ci], ci, vals[ii], ii]).bytes()
    path = os.path.join(tmp, 'group-read.data')
    with open(path, 'wb') as f:
        f.write(sp.perf_data_file([cyc, ins], data, {12: sp.event_desc([cyc, ins])}))
    want = []
    for line in oracle.perf(['script', '-F', 'tid,time,event,period', '--ns'], path).splitlines():
        w = line.split()
        if len(w) == 4:
            want.append((int(w[0]), oracle.parse_time(w[1].rstrip(':')), oracle.strip_colon(w[3]), int(w[2])))
    got = [(ev['tid'], ev['time'], ev['event'], ev.get('period'))
           for ev in oracle.parse_jsonl(oracle.rsp_dump(['--format=jsonl', path]), 'rsp-dump group-read')
           if oracle.is_sample(ev)]
    check(len(want) == 7 and got == want, f'group read split per member as perf script does: rsp {got} perf {want}')


def struct_pack_ii(a, b):
    import struct
    return struct.pack('<ii', a, b)


def main():
    oracle.perf_path()
    with tempfile.TemporaryDirectory() as tmp:
        real_recordings(tmp)
        synthetic(tmp)
        group_read(tmp)
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
