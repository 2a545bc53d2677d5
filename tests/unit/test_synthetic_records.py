#!/usr/bin/env python3
"""Every sample_type bit and every record type perf 6.x writes, in a file whose truth we built.

The file has two attrs (one with all sample_type bits, group reads, hw-index branch stacks, user
and interrupt registers, user stack, AUX samples; one minimal), three rounds with records out of
time order, a zstd stream split across two COMPRESSED records, and unknown record types. The
expected delivery order follows perf's ordered-events rule: at each FINISHED_ROUND, what is not
newer than the previous round's newest record goes, sorted by time then file order; the rest at
the end.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import synthetic_perf as sp  # noqa: E402

RSP_DUMP = os.environ.get('RSP_DUMP', 'build/src/tools/rsp-dump')
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL:', what)


ALL = (sp.IDENTIFIER | sp.IP | sp.TID | sp.TIME | sp.ADDR | sp.ID | sp.STREAM_ID | sp.CPU |
       sp.PERIOD | sp.READ | sp.CALLCHAIN | sp.RAW | sp.BRANCH_STACK | sp.REGS_USER |
       sp.STACK_USER | sp.WEIGHT | sp.DATA_SRC | sp.TRANSACTION | sp.REGS_INTR | sp.PHYS_ADDR |
       sp.CGROUP | sp.DATA_PAGE_SIZE | sp.CODE_PAGE_SIZE | sp.AUX)
MIN = sp.IDENTIFIER | sp.TID | sp.TIME | sp.CPU | sp.PERIOD
A = sp.Attr('synthetic-all', sp.attr(1, 0, ALL, read_format=sp.FMT_GROUP | sp.FMT_ID | sp.FMT_LOST |
                                     sp.FMT_ENABLED | sp.FMT_RUNNING,
                                     branch_sample_type=sp.BRANCH_HW_INDEX, regs_user=0b1011,
                                     stack_user=64, regs_intr=0b11, aux_sample_size=16),
            [101, 102])
B = sp.Attr('synthetic-min', sp.attr(1, 9, MIN), [201])


def full_sample(time, tid, cpu, n):
    return dict(id=101 + (n % 2), ip=0xffffffff81000000 + n, pid=tid, tid=tid, time=time,
                addr=0x7f0000001000 + n, stream_id=77 + n, cpu=cpu, period=1000 + n,
                # group read: nr=2, enabled, running, then (value, id, lost) x 2; the counts grow with time
                read=[2, 500 + n, 400 + n, time, 101, 0, 2 * time, 102, 1],
                callchain=[0xffffffffffffff80, 0xffffffff81000010, 0xfffffffffffffe00, 0x401000 + n],
                raw=bytes(range(5 + n)),
                branches=[(0x401000, 0x402000, 3), (0x403000, 0x404000 + n, 5)], branch_hw_idx=9,
                regs_user_abi=2, regs_user=[1, 2, 3 + n], stack_user=bytes([n + 1]) * 64,
                stack_user_dyn_size=48, weight=33 + n, data_src=0x1234, transaction=6,
                regs_intr_abi=2, regs_intr=[7, 8], phys_addr=0xabc000, cgroup=4242,
                data_page_size=4096, code_page_size=2097152, aux=bytes(16))


def min_sample(time, tid, cpu):
    return dict(id=201, pid=tid, tid=tid, time=time, cpu=cpu, period=1)


def trailer(attr_, time, pid=10, tid=10, cpu=0):
    return attr_.trailer(pid, tid, time, attr_.ids[0], cpu)


def main():
    entries = []  # (kind, bytes, time, expectation dict or None)

    def add(rec, time, expect):
        entries.append(('rec', rec, time, expect))

    def finished_round():
        entries.append(('round', sp.record(sp.REC['FINISHED_ROUND'], b''), None, None))

    # ---- round 1
    add(sp.record(sp.REC['COMM'], sp.pad8(struct.pack('<ii', 10, 10) + b'worker\0') + trailer(B, 100)),
        100, dict(event='PERF_RECORD_COMM', fields=dict(pid=10, tid=10, exec=False, comm='worker')))
    add(sp.record(sp.REC['FORK'], struct.pack('<iiiiQ', 11, 10, 11, 10, 110) + trailer(B, 110)),
        110, dict(event='PERF_RECORD_FORK', fields=dict(pid=11, ppid=10, tid=11, ptid=10)))
    s1 = full_sample(150, 10, 1, 1)
    add(sp.Sample(A, **s1).bytes(), 150, dict(event='synthetic-all', sample=s1, cpu=1, tid=10))
    bid = bytes(range(1, 21))
    body = struct.pack('<iiQQQ', 10, 10, 0x400000, 0x1000, 0) + struct.pack('<BBH', 20, 0, 0) + bid[:20]
    body = body[:32] + struct.pack('<BBH', 20, 0, 0) + bid + struct.pack('<II', 5, 2)
    body = sp.pad8(body + b'/usr/bin/worker\0')
    add(sp.record(sp.REC['MMAP2'], body + trailer(B, 120), misc=2 | (1 << 14)), 120,
        dict(event='PERF_RECORD_MMAP2', fields=dict(pid=10, tid=10, start=0x400000, len=0x1000,
                                                     pgoff=0, prot=5, flags=2,
                                                     build_id=bid.hex(), filename='/usr/bin/worker')))
    body = struct.pack('<iiQQQIIQQII', 10, 10, 0x7f0000000000, 0x2000, 0x1000, 8, 1, 123456, 7, 5, 2)
    body = sp.pad8(body + b'/lib/libc.so.6\0')
    add(sp.record(sp.REC['MMAP2'], body + trailer(B, 125), misc=2), 125,
        dict(event='PERF_RECORD_MMAP2', fields=dict(maj=8, min=1, ino=123456, pgoff=0x1000,
                                                     filename='/lib/libc.so.6', build_id='')))
    body = sp.pad8(struct.pack('<iiQQQ', 10, 10, 0x500000, 0x3000, 0) + b'[vdso]\0')
    add(sp.record(sp.REC['MMAP'], body + trailer(B, 126), misc=2), 126,
        dict(event='PERF_RECORD_MMAP', fields=dict(start=0x500000, len=0x3000, filename='[vdso]')))
    s2 = min_sample(130, 11, 0)
    add(sp.Sample(B, **s2).bytes(), 130, dict(event='synthetic-min', tid=11, cpu=0))
    add(sp.record(sp.REC['COMM'], sp.pad8(struct.pack('<ii', 11, 11) + b'newprog\0') + trailer(B, 160, 11, 11),
                  misc=1 << 13), 160,
        dict(event='PERF_RECORD_COMM', fields=dict(pid=11, tid=11, exec=True, comm='newprog')))
    finished_round()
    # ---- round 2
    s3 = full_sample(140, 10, 0, 2)
    add(sp.Sample(A, **s3).bytes(), 140, dict(event='synthetic-all', sample=s3))
    add(sp.record(sp.REC['LOST'], struct.pack('<QQ', 101, 7) + trailer(B, 170)), 170,
        dict(event='PERF_RECORD_LOST', fields=dict(id=101, lost=7)))
    add(sp.record(sp.REC['LOST_SAMPLES'], struct.pack('<Q', 3) + trailer(B, 171)), 171,
        dict(event='PERF_RECORD_LOST_SAMPLES', fields=dict(lost=3)))
    add(sp.record(sp.REC['THROTTLE'], struct.pack('<QQQ', 172, 101, 5) + trailer(B, 172)), 172,
        dict(event='PERF_RECORD_THROTTLE', fields=dict(time=172, id=101, stream_id=5)))
    add(sp.record(sp.REC['UNTHROTTLE'], struct.pack('<QQQ', 173, 101, 5) + trailer(B, 173)), 173,
        dict(event='PERF_RECORD_UNTHROTTLE'))
    add(sp.record(sp.REC['SWITCH'], trailer(B, 174), misc=(1 << 13) | (1 << 14)), 174,
        dict(event='PERF_RECORD_SWITCH', fields=dict(out=True, preempt=True)))
    add(sp.record(sp.REC['SWITCH_CPU_WIDE'], struct.pack('<ii', 20, 21) + trailer(B, 175)), 175,
        dict(event='PERF_RECORD_SWITCH_CPU_WIDE', fields=dict(out=False, preempt=False,
                                                              next_prev_pid=20, next_prev_tid=21)))
    add(sp.record(sp.REC['KSYMBOL'], sp.pad8(struct.pack('<QIHH', 0xffffffffc0001000, 256, 1, 0) +
                                             b'bpf_prog_x\0') + trailer(B, 176)), 176,
        dict(event='PERF_RECORD_KSYMBOL', fields=dict(addr=0xffffffffc0001000, len=256, name='bpf_prog_x')))
    add(sp.record(sp.REC['BPF_EVENT'], struct.pack('<HHI', 1, 0, 42) + bytes(8) + trailer(B, 177)), 177,
        dict(event='PERF_RECORD_BPF_EVENT', fields=dict(type=1, flags=0, id=42)))
    add(sp.record(sp.REC['CGROUP'], sp.pad8(struct.pack('<Q', 5) + b'/sys/fs\0') + trailer(B, 178)), 178,
        dict(event='PERF_RECORD_CGROUP', fields=dict(id=5, path='/sys/fs')))
    add(sp.record(sp.REC['TEXT_POKE'], sp.pad8(struct.pack('<QHH', 0xffffffff81001000, 2, 3) + b'\x90' * 5) +
                  trailer(B, 179)), 179,
        dict(event='PERF_RECORD_TEXT_POKE', fields=dict(addr=0xffffffff81001000, old_len=2, new_len=3)))
    add(sp.record(sp.REC['AUX'], struct.pack('<QQQ', 4096, 512, 1) + trailer(B, 180)), 180,
        dict(event='PERF_RECORD_AUX', fields=dict(aux_offset=4096, aux_size=512, flags=1)))
    add(sp.record(sp.REC['ITRACE_START'], struct.pack('<ii', 10, 12) + trailer(B, 181)), 181,
        dict(event='PERF_RECORD_ITRACE_START', fields=dict(pid=10, tid=12)))
    add(sp.record(sp.REC['NAMESPACES'], struct.pack('<iiQ', 10, 10, 0) + trailer(B, 182)), 182,
        dict(event='PERF_RECORD_NAMESPACES'))
    add(sp.record(sp.REC['READ'], struct.pack('<ii', 10, 13) + struct.pack('<9Q', 2, 1, 1, 5, 101, 0, 6, 102, 0) +
                  trailer(B, 183)), 183, dict(event='PERF_RECORD_READ', pid=10, tid=13))
    add(sp.record(sp.REC['EXIT'], struct.pack('<iiiiQ', 11, 10, 11, 10, 184) + trailer(B, 184)), 184,
        dict(event='PERF_RECORD_EXIT', fields=dict(pid=11, ppid=10, tid=11, ptid=10)))
    # unknown types: counted and skipped
    entries.append(('skip', sp.record(60, bytes(8)), None, None))
    entries.append(('skip', sp.record(99, bytes(16)), None, None))
    # perf's user records, consumed by the reader
    entries.append(('skip', sp.record(sp.REC['ID_INDEX'], struct.pack('<Q', 1) + struct.pack('<4Q', 102, 0, 0, 10)), None, None))
    entries.append(('skip', sp.record(sp.REC['THREAD_MAP'], struct.pack('<Q', 1) + struct.pack('<Q', 10) + bytes(16)), None, None))
    entries.append(('skip', sp.record(sp.REC['CPU_MAP'], struct.pack('<HHI', 0, 2, 0) + struct.pack('<HH', 0, 1) + bytes(4)), None, None))
    entries.append(('skip', sp.record(sp.REC['TIME_CONV'], struct.pack('<QQQ', 0, 0, 0)), None, None))
    finished_round()
    # ---- round 3: a zstd stream split over two COMPRESSED records, with a record older than
    # anything delivered (perf calls it out of order and still delivers it)
    inner_entries = []
    s4 = min_sample(190, 12, 1)
    inner_entries.append((sp.Sample(B, **s4).bytes(), 190, dict(event='synthetic-min', tid=12, cpu=1)))
    inner_entries.append((sp.record(sp.REC['COMM'], sp.pad8(struct.pack('<ii', 12, 12) + b'zz\0') + trailer(B, 185, 12, 12)),
                          185, dict(event='PERF_RECORD_COMM', fields=dict(comm='zz'))))
    s5 = full_sample(200, 12, 1, 3)
    inner_entries.append((sp.Sample(A, **s5).bytes(), 200, dict(event='synthetic-all', sample=s5)))
    s6 = min_sample(50, 13, 0)
    inner_entries.append((sp.Sample(B, **s6).bytes(), 50, dict(event='synthetic-min', tid=13)))
    stream = sp.zstd_compress(b''.join(r for r, _, _ in inner_entries))
    cut = len(stream) // 2
    for part in (stream[:cut], stream[cut:]):
        # like perf, COMPRESSED records are not padded: what follows them may be unaligned
        entries.append(('skip', struct.pack('<IHH', sp.REC['COMPRESSED'], 0, 8 + len(part)) + part, None, None))
    for r, t, e in inner_entries:
        entries.append(('inner', None, t, e))
    data = b''
    for kind, rec, t, e in entries:
        if rec is not None:
            data += rec

    features = {
        3: sp.perf_string('synthhost'), 4: sp.perf_string('6.18.0-synth'),
        5: sp.perf_string('6.1.0'), 6: sp.perf_string('x86_64'),
        7: struct.pack('<II', 2, 2), 11: sp.cmdline(['perf', 'record', '-a']),
        12: sp.event_desc([A, B]), 21: struct.pack('<QQ', 50, 200),
        23: struct.pack('<Q', 1), 29: struct.pack('<IIQQ', 1, 1, 1795387771450120000, 225667803219),
        27: struct.pack('<5I', 0, 1, 3, 4, 2048),
    }
    blob = sp.perf_data_file([A, B], data, features)
    if os.environ.get('RSP_SYNTHETIC_OUT'):  # tests/fuzz/make-corpus.sh keeps it as a seed
        with open(os.environ['RSP_SYNTHETIC_OUT'], 'wb') as f:
            f.write(blob)

    # expected delivery order
    order = []
    queue = []
    next_flush = 0
    max_t = 0
    seq = 0
    for kind, rec, t, e in entries:
        if kind in ('rec', 'inner'):
            queue.append((t, seq, e))
            seq += 1
            max_t = max(max_t, t)
        elif kind == 'round':
            ready = sorted(x for x in queue if x[0] <= next_flush)
            queue = [x for x in queue if x[0] > next_flush]
            order += ready
            next_flush = max_t
    order += sorted(queue)
    # A group read is handed out once per member whose count moved since that id's last sample, with the
    # member's id and the difference as period, as perf does (session.c, deliver_sample_group)
    last = {}
    split = []
    for t, sq, e in order:
        if 'sample' not in e or e['event'] != 'synthetic-all':
            split.append((t, sq, e))
            continue
        r = e['sample']['read']
        for value, id_ in ((r[3], r[4]), (r[6], r[7])):
            delta = value - last.get(id_, 0)
            last[id_] = value
            if delta:
                split.append((t, sq, dict(e, sample=dict(e['sample'], id=id_, period=delta))))
    order = split

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'synthetic.data')
        with open(path, 'wb') as f:
            f.write(blob)
        # the zstd stream must really be split: fail loudly if the COMPRESSED padding broke it
        out = subprocess.run([RSP_DUMP, '--format=jsonl', '--details', path], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        check(out.returncode == 0, 'rsp-dump exit %d: %s' % (out.returncode, out.stderr.strip()))
        got = [json.loads(line) for line in out.stdout.splitlines()]
        check(len(got) == len(order), 'delivered %d events, expected %d' % (len(got), len(order)))
        for i, ((t, _, e), g) in enumerate(zip(order, got)):
            where = 'event %d (%s at %d)' % (i, e['event'], t)
            check(g['time'] == t, '%s: time %d' % (where, g['time']))
            check(g['event'] == e['event'], '%s: event %s' % (where, g['event']))
            for k in ('cpu', 'pid', 'tid'):
                if k in e:
                    check(g[k] == e[k], '%s: %s %r != %r' % (where, k, g[k], e[k]))
            for k, v in e.get('fields', {}).items():
                check(g.get('fields', {}).get(k) == v, '%s: field %s %r != %r' % (where, k, g.get('fields', {}).get(k), v))
            if 'sample' in e:
                s, d = e['sample'], g['sample']
                for k in ('id', 'ip', 'addr', 'stream_id', 'period', 'weight', 'data_src', 'transaction',
                          'phys_addr', 'cgroup', 'data_page_size', 'code_page_size', 'branch_hw_idx',
                          'regs_user_abi', 'regs_intr_abi', 'callchain', 'regs_user', 'regs_intr'):
                    check(d[k] == s[k], '%s: sample.%s %r != %r' % (where, k, d[k], s[k]))
                check(d['read'] == s['read'], '%s: read %r' % (where, d['read']))
                check(d['raw'] == s['raw'].hex(), '%s: raw %s' % (where, d['raw']))
                check(d['branches'] == [list(b) for b in s['branches']], '%s: branches %r' % (where, d['branches']))
                check(d['stack_user_size'] == 64 and d['stack_user_dyn_size'] == 48 and
                      d['stack_user_sum'] == 2 * s['stack_user'][0], '%s: stack_user' % where)
                check(d['aux_size'] == 16, '%s: aux_size %d' % (where, d['aux_size']))

        st = subprocess.run([RSP_DUMP, '--stats', '--format=json', path], stdout=subprocess.PIPE, text=True)
        stats = json.loads(st.stdout)
        check(stats['events'] == {'synthetic-all': 6, 'synthetic-min': 3}, 'event counts %r' % stats['events'])
        check(stats['lost'] == 7 and stats['lost_samples'] == 3, 'lost %r' % stats)
        rec = stats['records']
        for name, n in (('SAMPLE', 6), ('COMM', 3), ('COMPRESSED', 2), ('FINISHED_ROUND', 2), ('MMAP2', 2),
                        ('ID_INDEX', 1), ('UNKNOWN', 2), ('TEXT_POKE', 1), ('NAMESPACES', 1)):
            check(rec.get(name) == n, 'records[%s] = %r, expected %d' % (name, rec.get(name), n))
        check(stats.get('out_of_order') == 1, 'out_of_order %r' % stats.get('out_of_order'))

        hd = subprocess.run([RSP_DUMP, '--header', '--format=json', path], stdout=subprocess.PIPE, text=True)
        h = json.loads(hd.stdout)
        for k, v in (('hostname', 'synthhost'), ('osrelease', '6.18.0-synth'), ('perf_version', '6.1.0'),
                     ('arch', 'x86_64'), ('nr_cpus_online', 2), ('cmdline', ['perf', 'record', '-a']),
                     ('clockid_res_ns', 1), ('clock_tod_ns', 1795387771450120000),
                     ('clock_ref_ns', 225667803219), ('compression', 'zstd'), ('sample_time_first', 50)):
            check(h.get(k) == v, 'header %s = %r, expected %r' % (k, h.get(k), v))
        check([e['name'] for e in h['events']] == ['synthetic-all', 'synthetic-min'], 'evsel names %r' % h['events'])
        check(h['events'][0]['ids'] == [101, 102], 'evsel ids %r' % h['events'][0]['ids'])

    print('%d passed, %d failed' % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
