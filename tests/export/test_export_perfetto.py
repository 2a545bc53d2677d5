#!/usr/bin/env python3
"""rsp-export --to perfetto (issue 19) on the README's sample, curl against nginx and the chain fixture, decoded by
Debian's protoc against the subset schema tests/export/perfetto_subset.proto (Perfetto's own field numbers), then
checked as a Perfetto viewer would see it (each track's events sorted by time, slices paired by nesting):
- every slice begun is ended on its track, nothing ends what was not begun;
- every thread with runs (rsp-summary --tasks) has a thread track, and its Running slices add up to its runtime
  within 0.5%;
- the CPU tracks hold the same runtime, no run inside another;
- every flow has one source and one end; the end is a Running slice; each wakeup flow starts on the waker's track
  at the time of a sched_waking/sched_wakeup perf script prints from that thread for the woken tid (the oracle);
- one PerfSample per sample rsp-summary --tasks counts, each one perf script prints (tid, time), its cpu_mode
  as its ip (kernel or user address), its callstack resolved through interned frames to function names;
- the critical-path track's depth-0 slices add up to rsp-summary --categories' total within 0.5%;
- on the chain: the worker's compute_digest is sampled, the worker wakes the server and the server the client,
  the client's recv waits on the server's read, which waits on the worker's running, and the fsync's disk
  requests have their queue and service inside them."""
import collections
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
SCHEMA = os.path.join(SRC, 'tests', 'export', 'perfetto_subset.proto')
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

FILES = ['data/sample.perf.data', 'tests/model/data/wl-nginx.data', 'tests/analysis/data/chain/chain.data']
failures = []


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


# ------------------------------------------------------------------------------------------ protoc's text format
TOKEN = re.compile(r'\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*(.*))|(\}))\s*$')


def unquote(text):
    """A protoc text-format string literal ("..." with C escapes, octal bytes) to bytes."""
    body = text[1:-1]
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != '\\':
            out += c.encode()
            i += 1
            continue
        n = body[i + 1]
        if n in '01234567':
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in '01234567':
                j += 1
            out.append(int(body[i + 1:j], 8))
            i = j
        elif n == 'x':
            j = i + 2
            while j < len(body) and j < i + 4 and body[j] in '0123456789abcdefABCDEF':
                j += 1
            out.append(int(body[i + 2:j], 16))
            i = j
        else:
            out += {'n': b'\n', 't': b'\t', 'r': b'\r', '"': b'"', "'": b"'", '\\': b'\\'}.get(n, n.encode())
            i += 2
    return bytes(out)


def parse_text(text):
    """protoc --decode's output to nested dicts: field name -> list of values (dicts for messages)."""
    root = collections.defaultdict(list)
    stack = [root]
    for line in text.splitlines():
        m = TOKEN.match(line)
        if not m:
            raise SystemExit(f'protoc output: cannot read {line!r}')
        if m.group(4):
            stack.pop()
        elif m.group(2) == '{':
            msg = collections.defaultdict(list)
            stack[-1][m.group(1)].append(msg)
            stack.append(msg)
        else:
            v = m.group(3)
            if v.startswith('"'):
                v = unquote(v).decode('utf-8', 'replace')
            elif re.fullmatch(r'-?\d+', v):
                v = int(v)
            stack[-1][m.group(1)].append(v)
    return root


def one(msg, field, default=None):
    v = msg.get(field)
    return v[0] if v else default


# ------------------------------------------------------------------------------------------ the trace as a viewer sees it
class Trace:
    def __init__(self, packets):
        self.threads = {}     # uuid -> (pid, tid, name)
        self.processes = {}   # uuid -> (pid, name)
        self.named = {}       # uuid -> (name, parent uuid)
        self.events = collections.defaultdict(list)  # track uuid -> [(ts, file index, track_event)]
        self.samples = []     # (ts, perf_sample)
        self.callstacks, self.frames, self.functions = {}, {}, {}
        for i, p in enumerate(packets):
            for td in p.get('track_descriptor', []):
                uuid = one(td, 'uuid')
                if 'thread' in td:
                    t = td['thread'][0]
                    self.threads[uuid] = (one(t, 'pid'), one(t, 'tid'), one(t, 'thread_name', ''))
                elif 'process' in td:
                    pr = td['process'][0]
                    self.processes[uuid] = (one(pr, 'pid'), one(pr, 'process_name', ''))
                else:
                    self.named[uuid] = (one(td, 'name', ''), one(td, 'parent_uuid'))
            for idata in p.get('interned_data', []):
                for s in idata.get('function_names', []):
                    self.functions[one(s, 'iid')] = one(s, 'str', '')
                for f in idata.get('frames', []):
                    self.frames[one(f, 'iid')] = f
                for c in idata.get('callstacks', []):
                    self.callstacks[one(c, 'iid')] = c.get('frame_ids', [])
            for te in p.get('track_event', []):
                self.events[one(te, 'track_uuid')].append((one(p, 'timestamp'), i, te))
            for ps in p.get('perf_sample', []):
                self.samples.append((one(p, 'timestamp'), ps))
        # each track's slices: (start, end, depth, begin event, its packet's index) after sorting by time, then by
        # place in the file, as trace_processor does
        self.slices = {}
        self.errors = []
        for uuid, evs in self.events.items():
            evs.sort(key=lambda e: (e[0], e[1]))
            open_, out = [], []
            for ts, i, te in evs:
                kind = one(te, 'type')
                if kind == 'TYPE_SLICE_BEGIN':
                    open_.append((ts, te, i))
                elif kind == 'TYPE_SLICE_END':
                    if not open_:
                        self.errors.append(f'track {uuid}: an end at {ts} with no slice open')
                        continue
                    start, b, bi = open_.pop()
                    out.append((start, ts, len(open_), b, bi))
                elif kind == 'TYPE_INSTANT':
                    out.append((ts, ts, len(open_), te, i))
            if open_:
                self.errors.append(f'track {uuid}: {len(open_)} slices never ended')
            self.slices[uuid] = out

    def stack_functions(self, iid):
        return [self.functions.get(one(self.frames.get(f, {}), 'function_name_id'), None)
                for f in self.callstacks.get(iid, [])]


def export(path, out):
    p = subprocess.run([EXPORT, '--to', 'perfetto', path, '-o', out], capture_output=True, text=True)
    check(p.returncode == 0 and os.path.getsize(out) > 0,
          f'{os.path.basename(path)}: rsp-export --to perfetto -o (exit {p.returncode}; {p.stderr[-300:]})')
    d = subprocess.run(['protoc', f'--proto_path={os.path.dirname(SCHEMA)}', '--decode=perfetto.protos.Trace',
                        os.path.basename(SCHEMA)], stdin=open(out, 'rb'), capture_output=True)
    check(d.returncode == 0, f'{os.path.basename(path)}: protoc --decode=perfetto.protos.Trace '
          f'(exit {d.returncode}; {d.stderr.decode(errors="replace")[-300:]})')
    text = d.stdout.decode('utf-8', 'replace')
    # numbers protoc prints alone on a line are fields the schema does not name: the subset must cover them all
    unknown = [l for l in text.splitlines() if re.match(r'\s*\d+[:{ ]', l)]
    check(not unknown, f'{os.path.basename(path)}: every field is in the subset schema ({unknown[:3]})')
    return Trace(parse_text(text).get('packet', []))


def perf_wakeups(path):
    """(waker tid, time ns, woken tid) of every sched_waking and sched_wakeup(_new) in perf script, and the time of
    the last one (perf script leaves out the last records of a cpu's ring on some recordings that rsp reads)."""
    out = oracle.perf(['script', '--ns', '-F', 'tid,time,event,trace'], path)
    got = set()
    for l in out.splitlines():
        m = re.match(r'\s*(-?\d+)\s+(\d+\.\d+):\s+sched:sched_wak\w*:.*?\bpid=(\d+)', l)
        if m:
            got.add((int(m.group(1)), oracle.parse_time(m.group(2)), int(m.group(3))))
    return got, max((t for _, t, _ in got), default=0)


def perf_samples(path):
    """(tid, time ns) -> whether the sample's ip is a kernel address, for every sample of a sampling event (not a
    tracepoint) perf script prints. A sample perf prints with tid -1 (taken in a task's exit, past release_task, its
    pid detached) is the cpu's current task's: the tid of that cpu's last record before it (its switch-in, the exiting
    task's own tracepoints)."""
    out = oracle.perf(['script', '--ns', '-G', '--show-switch-events', '-F', 'tid,cpu,time,event,ip'], path)
    got = {}
    current = {}
    for l in out.splitlines():
        m = re.match(r'\s*(-?\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(\S+)', l)
        if not m:
            continue
        tid, cpu = int(m.group(1)), int(m.group(2))
        if tid > 0:
            current[cpu] = tid
        s = re.match(r'\s*(-?\d+)\s+\[\d+\]\s+(\d+\.\d+):\s+(\S+):\s+([0-9a-f]+)\s*$', l)
        if s and ':' not in s.group(3) and not s.group(3).startswith('PERF_RECORD'):
            if tid < 0 and cpu in current:
                tid = current[cpu]
            got[(tid, oracle.parse_time(s.group(2)))] = int(s.group(4), 16) >= 0xffff800000000000
        if 'PERF_RECORD_SWITCH' in l and ' OUT' in l:
            current.pop(cpu, None)
    return got


def main():
    if not shutil.which('protoc'):
        print('SKIP: protoc not found (Debian: protobuf-compiler)')
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix='rsp-perfetto-')
    fixture = '/tmp/rsp-chain-fixture/chain-client'  # where the chain was recorded from (record.sh): its symbols
    try:
        os.makedirs(os.path.dirname(fixture), exist_ok=True)
        shutil.copy(os.path.join(SRC, 'tests', 'analysis', 'data', 'chain', 'chain-client'), fixture)
    except OSError as e:
        print(f'note: cannot place the chain binary at {fixture}: {e}')
    for rel in FILES:
        path = os.path.join(SRC, rel)
        name = os.path.basename(path)
        tr = export(path, os.path.join(tmp, name + '.pftrace'))
        check(not tr.errors, f'{name}: every slice begun is ended, in time order per track ({tr.errors[:3]})')

        tasks = json.loads(subprocess.run([SUMMARY, '--tasks', '--format=json', path], capture_output=True,
                                          text=True).stdout)
        runtime = collections.Counter()
        nsamples = 0
        for t in tasks:
            pid = t['pid'] if t['pid'] >= 0 else t['tid']
            if t['runs']:
                runtime[(pid, t['tid'])] += t['runtime_ms']
            nsamples += t['samples']
        by_thread = {(pid, tid): uuid for uuid, (pid, tid, _) in tr.threads.items()}
        missing = [k for k in runtime if k not in by_thread]
        check(runtime and not missing, f'{name}: {len(runtime)} threads with runs, each has a thread track '
              f'(missing: {missing[:5]})')
        bad = []
        for key, ms in runtime.items():
            got = sum(e - s for s, e, _, te, _ in tr.slices.get(by_thread.get(key), [])
                      if one(te, 'name') == 'Running') / 1e6
            if abs(got - ms) > max(0.005 * ms, 0.000002):
                bad.append((key, round(got, 6), ms))
        check(not bad, f'{name}: Running slices add up to each thread\'s --tasks runtime within 0.5% '
              f'({sum(runtime.values()):.3f} ms over {len(runtime)} threads; off: {bad[:4]})')

        # the scheduler's view: each cpu's runs side by side, none inside another
        cpus = [u for u, (n, parent) in tr.named.items() if n.startswith('CPU ') and tr.named.get(parent, ('',))[0] == 'CPUs']
        cpu_ms = sum(e - s for u in cpus for s, e, _, _, _ in tr.slices.get(u, [])) / 1e6
        nested = sum(1 for u in cpus for _, _, d, _, _ in tr.slices.get(u, []) if d)
        total = sum(runtime.values())
        check(cpus and not nested and abs(cpu_ms - total) <= 0.005 * total,
              f'{name}: {len(cpus)} CPU tracks, {cpu_ms:.3f} ms of runs against --tasks\' {total:.3f} ms, '
              f'{nested} nested')

        # flows: one source (an instant on the waker's track), one end (a Running slice of the woken)
        src, dst = collections.defaultdict(list), collections.defaultdict(list)
        for uuid, sl in tr.slices.items():
            for s, e, _, te, i in sl:
                for f in te.get('flow_ids', []):
                    src[f].append((uuid, s, te, i))
                for f in te.get('terminating_flow_ids', []):
                    dst[f].append((uuid, s, te, i))
        dup = [f for f in set(src) | set(dst) if len(src.get(f, [])) != 1 or len(dst.get(f, [])) != 1]
        check(src and not dup, f'{name}: {len(src)} flows, each with one source and one end (not: {dup[:5]})')
        late = [f for f in src if f in dst and ((src[f][0][1], src[f][0][3]) > (dst[f][0][1], dst[f][0][3])
                                                or one(dst[f][0][2], 'name') != 'Running')]
        check(not late, f'{name}: each flow ends at a Running slice begun after its source, in time then file order '
              f'(trace_processor ignores an end seen before its start) ({late[:5]})')
        wakes, perf_last = perf_wakeups(path)
        wake_flows = [f for f in src if one(src[f][0][2], 'name') == 'wakeup' and f in dst]
        unmatched = []
        for f in wake_flows:
            uuid, ts, _, _ = src[f][0]
            waker = tr.threads.get(uuid, (None, None))[1]
            woken = tr.threads.get(dst[f][0][0], (None, None))[1]
            if (waker, ts, woken) not in wakes and ts <= perf_last:
                unmatched.append((waker, ts, woken))
        check(wake_flows and not unmatched, f'{name}: {len(wake_flows)} wakeup flows, each a sched_waking/wakeup '
              f'perf script prints from the waker for the woken, up to its last ({len(unmatched)} not: {unmatched[:3]})')

        # samples
        nostack = [ps for _, ps in tr.samples if not tr.stack_functions(one(ps, 'callstack_iid'))]
        unnamed = [ps for _, ps in tr.samples if None in tr.stack_functions(one(ps, 'callstack_iid'))]
        check(len(tr.samples) == nsamples, f'{name}: {len(tr.samples)} PerfSamples, --tasks counts {nsamples}')
        modes = collections.Counter(one(ps, 'cpu_mode') for _, ps in tr.samples if one(ps, 'callstack_iid'))
        perf_ips = perf_samples(path)
        wrong = [(one(ps, 'tid'), ts, one(ps, 'cpu_mode')) for ts, ps in tr.samples
                 if (one(ps, 'tid'), ts) not in perf_ips
                 or ('MODE_KERNEL' if perf_ips[(one(ps, 'tid'), ts)] else 'MODE_USER') != one(ps, 'cpu_mode')]
        check(set(modes) <= {'MODE_USER', 'MODE_KERNEL'} and not wrong,
              f'{name}: each sample is one perf script prints (tid, time), user or kernel as its ip ({dict(modes)}; '
              f'not: {wrong[:3]})')
        check(not unnamed and len(nostack) < max(1, len(tr.samples) // 20),
              f'{name}: each sample\'s callstack resolves to interned frames and names '
              f'({len(unnamed)} unresolved, {len(nostack)} without a stack)')

        # the critical path
        cats = json.loads(subprocess.run([SUMMARY, '--categories', '--format=json', path], capture_output=True,
                                         text=True).stdout)
        tops = [u for u, (n, parent) in tr.named.items() if n.startswith('Critical path') and not parent]
        check(len(tops) == 1, f'{name}: one critical-path track ({[tr.named[u][0] for u in tops]})')
        lanes = [u for u, (_, parent) in tr.named.items() if tops and parent == tops[0]]
        total_ms = sum(e - s for u in lanes for s, e, depth, _, _ in tr.slices.get(u, []) if depth == 0) / 1e6
        check(lanes and abs(total_ms - cats['total_ms']) <= 0.005 * cats['total_ms'],
              f'{name}: the critical path\'s {len(lanes)} tracks add up to {total_ms:.3f} ms, the categories\' '
              f'total {cats["total_ms"]:.3f} ms')

        if name == 'chain.data':
            chain_checks(tr, wake_flows, src, dst, lanes)
    shutil.rmtree(tmp, ignore_errors=True)

    for args in (['--to', 'perfetto'], ['--to', 'perfettoo', os.path.join(SRC, FILES[0])]):
        p = subprocess.run([EXPORT, *args], capture_output=True, text=True)
        check(p.returncode == 2 and 'rsp-export' in p.stderr, f'{args}: refused with exit 2 ({p.stderr.strip()[:120]})')
    sample = os.path.join(SRC, FILES[0])
    p = subprocess.run([EXPORT, '--to', 'perfetto', '--pid', '999999', sample, '-o', os.devnull], capture_output=True,
                       text=True)
    check(p.returncode == 1 and '999999' in p.stderr, f'--pid 999999: exit 1 naming the pid ({p.stderr.strip()[:160]})')
    if os.path.exists('/dev/full'):
        p = subprocess.run([EXPORT, '--to', 'perfetto', sample, '-o', '/dev/full'], capture_output=True, text=True)
        check(p.returncode == 1 and '/dev/full' in p.stderr, f'-o /dev/full: exit 1 naming it ({p.stderr.strip()[:160]})')
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


def chain_checks(tr, wake_flows, src, dst, lanes):
    """The fixture's design (tests/analysis/data/chain/chain.c): client -> server -> worker and back."""
    comm = {uuid: n for uuid, (_, _, n) in tr.threads.items()}
    worker_fns = collections.Counter()
    for _, ps in tr.samples:
        uuid = next((u for u, (pid, tid, _) in tr.threads.items() if tid == one(ps, 'tid')), None)
        if comm.get(uuid) == 'chain-worker':
            worker_fns.update(set(tr.stack_functions(one(ps, 'callstack_iid'))))
    check(worker_fns['compute_digest'] > 100, f'chain: {worker_fns["compute_digest"]} chain-worker samples in '
          f'compute_digest (its digest loop)')
    pairs = collections.Counter((comm.get(src[f][0][0]), comm.get(dst[f][0][0])) for f in wake_flows)
    check(pairs[('chain-worker', 'chain-server')] >= 1 and pairs[('chain-server', 'chain-client')] >= 1,
          f'chain: wakeup flows worker -> server and server -> client ({dict(pairs.most_common(6))})')
    names = [(depth, one(te, 'name')) for u in lanes for _, _, depth, te, _ in tr.slices.get(u, [])]
    client = [d for d, n in names if n == 'chain-client: wait __libc_recv']
    server = [d for d, n in names if n == 'chain-server: wait read']
    worker = [d for d, n in names if n in ('chain-worker: running', 'chain-worker: preempted in compute_digest')]
    check(client and server and worker and min(client) < min(server) < min(worker),
          f'chain: on the critical path the client waits in recv, the server in read under it, the worker runs '
          f'(or is preempted in compute_digest) under that (depths {min(client, default=None)}, '
          f'{min(server, default=None)}, {min(worker, default=None)})')
    disk = [u for u, (n, _) in tr.named.items() if n.startswith('disk ')]
    reqs = [(s, e, [(s2, e2, one(t2, 'name')) for s2, e2, d2, t2, _ in tr.slices[u] if d2 == 1 and s <= s2 and e2 <= e])
            for u in disk for s, e, d, te, _ in tr.slices.get(u, []) if d == 0]
    ok = [r for r in reqs if r[2] and r[2][-1][2] == 'service' and r[2][-1][1] == r[1]
          and sum(e2 - s2 for s2, e2, _ in r[2]) == r[1] - r[0]]
    check(reqs and len(ok) == len(reqs), f'chain: {len(reqs)} disk requests (the fsync), each its queue and '
          f'service end to end ({len(ok)} so)')


main()
