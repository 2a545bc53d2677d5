"""Writes perf.data files whose every byte we chose, with the truth beside them.

perf on the project's machines cannot produce branch stacks, AUX data, group reads, weights or
text pokes (no PMU), so these files are how every sample_type bit and record type perf 6.x
writes gets checked. The layouts follow linux/perf_event.h and tools/perf/util/header.c.
"""
import struct
import subprocess

# sample_type bits
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = [1 << i for i in range(11)]
BRANCH_STACK, REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENTIFIER = [1 << i for i in range(11, 17)]
TRANSACTION, REGS_INTR, PHYS_ADDR, AUX, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE = [
    1 << i for i in range(17, 24)]
# read_format bits
FMT_ENABLED, FMT_RUNNING, FMT_ID, FMT_GROUP, FMT_LOST = 1, 2, 4, 8, 16
BRANCH_HW_INDEX = 1 << 17
SAMPLE_ID_ALL = 1 << 18

REC = dict(MMAP=1, LOST=2, COMM=3, EXIT=4, THROTTLE=5, UNTHROTTLE=6, FORK=7, READ=8, SAMPLE=9,
           MMAP2=10, AUX=11, ITRACE_START=12, LOST_SAMPLES=13, SWITCH=14, SWITCH_CPU_WIDE=15,
           NAMESPACES=16, KSYMBOL=17, BPF_EVENT=18, CGROUP=19, TEXT_POKE=20,
           FINISHED_ROUND=68, ID_INDEX=69, THREAD_MAP=73, CPU_MAP=74, EVENT_UPDATE=78,
           TIME_CONV=79, COMPRESSED=81, FINISHED_INIT=82)


def attr(type_, config, sample_type, read_format=0, flags=SAMPLE_ID_ALL, branch_sample_type=0,
         regs_user=0, stack_user=0, regs_intr=0, period=1, aux_sample_size=0):
    a = struct.pack('<IIQQQQQIIQQQQIiQIHHIIQ', type_, 128, config, period, sample_type, read_format,
                    flags, 0, 0, 0, 0, branch_sample_type, regs_user, stack_user, 0, regs_intr, 0,
                    0, 0, aux_sample_size, 0, 0)
    assert len(a) == 128
    return a


def perf_string(s):
    b = s.encode() + b'\0'
    b += b'\0' * ((-len(b)) % 64)
    return struct.pack('<I', len(b)) + b


class Attr:
    def __init__(self, name, raw_attr, ids):
        self.name = name
        self.raw = raw_attr
        self.ids = ids
        (_t, _s, _c, _p, self.sample_type, self.read_format) = struct.unpack_from('<IIQQQQ', raw_attr)
        self.flags, = struct.unpack_from('<Q', raw_attr, 40)
        self.branch_sample_type, self.regs_user, = struct.unpack_from('<QQ', raw_attr, 72)
        self.regs_intr, = struct.unpack_from('<Q', raw_attr, 96)

    def trailer(self, pid, tid, time, id_, cpu, stream_id=0):
        t = self.sample_type
        out = b''
        if t & TID: out += struct.pack('<ii', pid, tid)
        if t & TIME: out += struct.pack('<Q', time)
        if t & ID: out += struct.pack('<Q', id_)
        if t & STREAM_ID: out += struct.pack('<Q', stream_id)
        if t & CPU: out += struct.pack('<II', cpu, 0)
        if t & IDENTIFIER: out += struct.pack('<Q', id_)
        return out


def record(type_, body, misc=0):
    size = 8 + len(body)
    assert size % 8 == 0, (type_, size)
    return struct.pack('<IHH', type_, misc, size) + body


def pad8(b):
    return b + b'\0' * ((-len(b)) % 8)


class Sample:
    """All values of one sample; bytes() lays them out in the kernel's order."""

    def __init__(self, attr_, **v):
        self.attr = attr_
        self.v = v

    def bytes(self):
        a, v, t = self.attr, self.v, self.attr.sample_type
        out = b''
        if t & IDENTIFIER: out += struct.pack('<Q', v['id'])
        if t & IP: out += struct.pack('<Q', v['ip'])
        if t & TID: out += struct.pack('<ii', v['pid'], v['tid'])
        if t & TIME: out += struct.pack('<Q', v['time'])
        if t & ADDR: out += struct.pack('<Q', v['addr'])
        if t & ID: out += struct.pack('<Q', v['id'])
        if t & STREAM_ID: out += struct.pack('<Q', v['stream_id'])
        if t & CPU: out += struct.pack('<II', v['cpu'], 0)
        if t & PERIOD: out += struct.pack('<Q', v['period'])
        if t & READ: out += struct.pack('<%dQ' % len(v['read']), *v['read'])
        if t & CALLCHAIN: out += struct.pack('<Q%dQ' % len(v['callchain']), len(v['callchain']), *v['callchain'])
        if t & RAW:
            raw = v['raw']
            out += pad8(struct.pack('<I', len(raw)) + raw)
        if t & BRANCH_STACK:
            out += struct.pack('<Q', len(v['branches']))
            if a.branch_sample_type & BRANCH_HW_INDEX:
                out += struct.pack('<Q', v['branch_hw_idx'])
            for f, to, fl in v['branches']:
                out += struct.pack('<QQQ', f, to, fl)
        if t & REGS_USER:
            out += struct.pack('<Q', v['regs_user_abi'])
            if v['regs_user_abi']:
                out += struct.pack('<%dQ' % len(v['regs_user']), *v['regs_user'])
        if t & STACK_USER:
            out += struct.pack('<Q', len(v['stack_user']))
            if v['stack_user']:
                out += v['stack_user'] + struct.pack('<Q', v['stack_user_dyn_size'])
        if t & WEIGHT: out += struct.pack('<Q', v['weight'])
        if t & DATA_SRC: out += struct.pack('<Q', v['data_src'])
        if t & TRANSACTION: out += struct.pack('<Q', v['transaction'])
        if t & REGS_INTR:
            out += struct.pack('<Q', v['regs_intr_abi'])
            if v['regs_intr_abi']:
                out += struct.pack('<%dQ' % len(v['regs_intr']), *v['regs_intr'])
        if t & PHYS_ADDR: out += struct.pack('<Q', v['phys_addr'])
        if t & CGROUP: out += struct.pack('<Q', v['cgroup'])
        if t & DATA_PAGE_SIZE: out += struct.pack('<Q', v['data_page_size'])
        if t & CODE_PAGE_SIZE: out += struct.pack('<Q', v['code_page_size'])
        if t & AUX:
            out += struct.pack('<Q', len(v['aux'])) + v['aux']
        return record(REC['SAMPLE'], pad8(out), misc=v.get('misc', 1))


def zstd_compress(data):
    return subprocess.run(['zstd', '-q', '-c', '-3'], input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def perf_data_file(attrs, data, features):
    """File mode: header, attrs with their ids, data, feature table and sections."""
    attr_size = 128 + 16
    header_size = 104
    ids_off = header_size
    ids_blob = b''
    id_sections = []
    for a in attrs:
        id_sections.append((ids_off + len(ids_blob), 8 * len(a.ids)))
        ids_blob += struct.pack('<%dQ' % len(a.ids), *a.ids)
    attrs_off = ids_off + len(ids_blob)
    attrs_blob = b''
    for a, (o, s) in zip(attrs, id_sections):
        attrs_blob += a.raw + struct.pack('<QQ', o, s)
    data_off = attrs_off + len(attrs_blob)
    feat_table_off = data_off + len(data)
    feats = sorted(features.items())
    sections = b''
    payload = b''
    payload_off = feat_table_off + 16 * len(feats)
    bitmap = [0, 0, 0, 0]
    for f, body in feats:
        bitmap[f // 64] |= 1 << (f % 64)
        sections += struct.pack('<QQ', payload_off + len(payload), len(body))
        payload += body
    header = struct.pack('<QQQ', 0x32454c4946524550, header_size, attr_size)
    header += struct.pack('<QQQQQQ', attrs_off, len(attrs_blob), data_off, len(data), 0, 0)
    header += struct.pack('<4Q', *bitmap)
    assert len(header) == header_size
    return header + ids_blob + attrs_blob + data + sections + payload


def event_desc(attrs):
    out = struct.pack('<II', len(attrs), 128)
    for a in attrs:
        out += a.raw + struct.pack('<I', len(a.ids)) + perf_string(a.name)
        out += struct.pack('<%dQ' % len(a.ids), *a.ids)
    return out


def cmdline(args):
    return struct.pack('<I', len(args)) + b''.join(perf_string(x) for x in args)


class Checks:
    """A test's checks: each printed ok or FAIL, the failures counted for its exit status."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        print(('ok: ' if cond else 'FAIL: ') + what)
        if not cond:
            self.failures.append(what)

    def status(self):
        print(f'{len(self.failures)} failures')
        return 1 if self.failures else 0


CONTEXT_USER = (1 << 64) - 512
MISC_USER, MISC_SWITCH_OUT = 2, 1 << 13
ATTR_CONTEXT_SWITCH = 1 << 26


def cpu_clock_with_switches(id_=10):
    """A cpu-clock event sampling ip, tid, time, cpu, period and the callchain, with perf's switch records."""
    st = IP | TID | TIME | CPU | PERIOD | IDENTIFIER | CALLCHAIN
    return Attr('cpu-clock', attr(1, 0, st, flags=SAMPLE_ID_ALL | ATTR_CONTEXT_SWITCH), [id_])


def one_sampled_task(clock, pid, comm, maps, chains, start, end):
    """The records of process PID (COMM, the MMAP2 records MAPS of (start, length, path), all at time 0, as perf writes
    those of running processes) running on cpu 0 from START to END ns (switch records), then exiting; sampled by CLOCK
    with the user CHAINS (lists of addresses, innermost first), evenly spread over the run, each standing for an equal
    share of it."""
    id_ = clock.ids[0]

    def trailer(time):
        return clock.trailer(pid, pid, time, id_, 0)

    data = record(REC['COMM'], pad8(struct.pack('<ii', pid, pid) + comm.encode() + b'\0') + trailer(0))
    for at, length, path in maps:
        body = struct.pack('<iiQQQIIQQII', pid, pid, at, length, 0, 0, 0, 0, 0, 5, 2)  # PROT_READ|EXEC, PRIVATE
        data += record(REC['MMAP2'], pad8(body + path.encode() + b'\0') + trailer(0))
    data += record(REC['SWITCH_CPU_WIDE'], struct.pack('<ii', 0, 0) + trailer(start))  # in
    share = (end - start) // len(chains)
    for i, chain in enumerate(chains):
        data += Sample(clock, id=id_, ip=chain[0], pid=pid, tid=pid, time=start + share // 2 + i * share, cpu=0,
                       period=share, callchain=[CONTEXT_USER] + chain, misc=MISC_USER).bytes()
    data += record(REC['SWITCH_CPU_WIDE'], struct.pack('<ii', 0, 0) + trailer(end), MISC_SWITCH_OUT)
    data += record(REC['EXIT'], struct.pack('<iiiiQ', pid, pid, pid, pid, end) + trailer(end))
    return data
