"""Shared plumbing of the oracle tests: rsp-dump against perf on the recorded fixtures.

Each test_*.py checks one property of `rsp-dump` (env RSP_DUMP) on every fixture (tests/data/*.data and
data/sample.perf.data under RSP_SOURCE_ROOT), with perf as the oracle, and exits 0 (pass), 1 (fail) or
77 (skip: no perf). RSP_PERF overrides the perf binary.

perf runs with an empty build-id cache (PERF_BUILDID_DIR), so that it resolves user symbols from the binaries on
disk as rsp does, and with --kallsyms pointing at the fixture's own kallsyms snapshot (FILE.kallsyms[.zst]) when
kernel symbols matter.
"""

import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get('RSP_SOURCE_ROOT') or os.path.dirname(os.path.dirname(HERE))
PERF_DUMP_SCRIPT = os.path.join(HERE, 'perf_dump.py')
RECORD_PREFIX = 'PERF_RECORD_'
# Kernel record types whose counts perf report -D gives and rsp-dump --stats must equal (user records such as
# FINISHED_ROUND or ID_INDEX are the writer's bookkeeping, left out). The first five also appear in the jsonl stream.
DELIVERED_RECORDS = ('COMM', 'FORK', 'EXIT', 'MMAP2', 'SWITCH_CPU_WIDE')
COUNTED_RECORDS = DELIVERED_RECORDS + ('MMAP', 'SAMPLE', 'SWITCH', 'LOST', 'LOST_SAMPLES', 'THROTTLE',
                                       'UNTHROTTLE', 'KSYMBOL', 'BPF_EVENT', 'CGROUP', 'TEXT_POKE', 'NAMESPACES')
SKIP = 77
_tmp = tempfile.TemporaryDirectory(prefix='rsp-oracle-')
TMP = _tmp.name


def skip(msg):
    print('SKIP:', msg)
    sys.exit(SKIP)


def fixtures():
    """Every recording the tests run on, as absolute paths."""
    data = os.path.join(SOURCE_ROOT, 'tests', 'data')
    found = sorted(os.path.join(data, f) for f in os.listdir(data) if f.endswith('.data'))
    sample = os.path.join(SOURCE_ROOT, 'data', 'sample.perf.data')
    if os.path.exists(sample):
        found.append(sample)
    if not found:
        raise SystemExit('no fixtures under ' + data)
    return found


def name(path):
    return os.path.relpath(path, SOURCE_ROOT)


def is_pipe(path):
    """True for a pipe-mode recording: magic PERFILE2 followed by a header size of 16."""
    with open(path, 'rb') as f:
        head = f.read(16)
    return head[:8] == b'PERFILE2' and int.from_bytes(head[8:16], 'little') == 16


# ---------------------------------------------------------------------------------------------------------- results

class Result:
    """Collects failures; finish() prints a summary and exits with the test's status."""

    def __init__(self, title):
        self.title = title
        self.failures = []

    def fail(self, where, msg):
        line = f'FAIL {where}: {msg}'
        self.failures.append(line)
        print(line, flush=True)

    def ok(self, where, msg):
        print(f'ok   {where}: {msg}', flush=True)

    def check(self, cond, where, msg):
        (self.ok if cond else self.fail)(where, msg)
        return cond

    def finish(self):
        if self.failures:
            print(f'\n{self.title}: {len(self.failures)} failure(s)')
            sys.exit(1)
        print(f'\n{self.title}: all passed')
        sys.exit(0)


# ---------------------------------------------------------------------------------------------------------- rsp-dump

def rsp_dump_path():
    path = os.environ.get('RSP_DUMP')
    if not path:
        raise SystemExit('RSP_DUMP is not set (run through meson test, or set it to the rsp-dump binary)')
    if not os.access(path, os.X_OK):
        raise SystemExit(f'RSP_DUMP={path} is not an executable')
    return path


def rsp_dump(args, stdin_path=None):
    """Runs rsp-dump ARGS and returns its stdout (bytes); a non-zero exit is an error."""
    cmd = [rsp_dump_path()] + args
    stdin = open(stdin_path, 'rb') if stdin_path else subprocess.DEVNULL
    try:
        p = subprocess.run(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    finally:
        if stdin_path:
            stdin.close()
    if p.returncode != 0:
        raise SystemExit(f'{" ".join(cmd)}: exit status {p.returncode}\n{p.stderr.decode(errors="replace")[-4000:]}')
    return p.stdout


def parse_jsonl(out, what):
    events = []
    for n, line in enumerate(out.decode('utf-8', errors='strict').splitlines(), 1):
        if not line.strip():
            continue
        try:
            ev = json.loads(line)
        except ValueError as e:
            raise SystemExit(f'{what}: line {n} is not JSON ({e}): {line[:200]}')
        if not isinstance(ev, dict):
            raise SystemExit(f'{what}: line {n} is not a JSON object: {line[:200]}')
        events.append(ev)
    return events


def rsp_events(path, stacks=False):
    """rsp-dump --format=jsonl [--stacks] PATH, parsed: every delivered event, records included. Without frames
    for inlined functions: perf script prints none on frame-pointer chains (tests/model/test_inline_frames.py
    checks them against addr2line -i)."""
    args = ['--format=jsonl'] + (['--stacks', '--no-inline'] if stacks else []) + [path]
    return parse_jsonl(rsp_dump(args), 'rsp-dump ' + ' '.join(args))


def prog_frames(jsonl_text, prog):
    """Of rsp-dump --format=jsonl --stacks output: per cpu-clock sample (by time), the frames of the binary PROG as
    (function, inlined), innermost first."""
    out = {}
    for line in jsonl_text.splitlines():
        e = json.loads(line)
        if e.get('event', '').startswith('cpu-clock'):
            out[e['time']] = [(f.get('sym'), bool(f.get('inlined'))) for f in e.get('stack', []) if f.get('dso') == prog]
    return out


def is_sample(ev):
    return not str(ev.get('event', '')).startswith(RECORD_PREFIX)


def rsp_samples(path, stacks=False):
    return [ev for ev in rsp_events(path, stacks) if is_sample(ev)]


def rsp_stats(path):
    out = rsp_dump(['--stats', '--format=json', path])
    try:
        return json.loads(out)
    except ValueError as e:
        raise SystemExit(f'rsp-dump --stats --format=json {path}: not JSON ({e}): {out[:300]!r}')


# ---------------------------------------------------------------------------------------------------------- perf

def perf_path():
    path = os.environ.get('RSP_PERF') or shutil.which('perf')
    if not path:
        skip('perf not found')
    return path


def perf_env():
    env = dict(os.environ)
    # An empty build-id cache: perf then reads the binaries named in the MMAP2 records, as rsp does.
    env['PERF_BUILDID_DIR'] = os.path.join(TMP, 'buildid-cache')
    os.makedirs(env['PERF_BUILDID_DIR'], exist_ok=True)
    env['PERF_PAGER'] = 'cat'
    # perf embeds its own libpython; a pyenv or virtualenv setting would point it at another stdlib.
    for var in ('PYTHONHOME', 'PYTHONPATH'):
        env.pop(var, None)
    return env


def perf(args, path):
    """Runs `perf ARGS -i PATH` and returns stdout (text). Pipe-mode files are read from a path too (perf detects them)."""
    cmd = [perf_path()] + args[:1] + ['-f', '-i', path] + args[1:]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=perf_env(), text=True,
                       errors='replace')
    if p.returncode != 0:
        raise SystemExit(f'{" ".join(cmd)}: exit status {p.returncode}\n{p.stderr[-4000:]}')
    return p.stdout


def strip_colon(event):
    """perf script prints an event name with a trailing colon: 'sched:sched_switch:', 'cpu-clock/freq=997/:'."""
    return event[:-1] if event.endswith(':') else event


def parse_time(text):
    """perf's 'SEC.NSEC' (with --ns, nine digits) to the integer nanoseconds stored in the file."""
    sec, _, nsec = text.partition('.')
    if len(nsec) != 9:
        raise SystemExit(f'perf time {text!r} is not sec.nsec with 9 digits (missing --ns?)')
    return int(sec) * 1_000_000_000 + int(nsec)


_SAMPLE_LINE = re.compile(r'^\s*(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+(.*?)\s*$')


def perf_sample_keys(path):
    """Samples in perf script's (time) order: (time, cpu, pid, tid, event) from -F pid,tid,cpu,time,event --ns."""
    out = perf(['script', '-F', 'pid,tid,cpu,time,event', '--ns', '-G'], path)
    keys = []
    for n, line in enumerate(out.splitlines(), 1):
        if not line.strip():
            continue
        m = _SAMPLE_LINE.match(line)
        if not m:
            raise SystemExit(f'perf script output line {n} not understood: {line!r}')
        pid, tid, cpu, time, event = m.groups()
        keys.append((parse_time(time), int(cpu), int(pid), int(tid), strip_colon(event)))
    return keys


def perf_event_counts(path):
    """Samples per event name, from perf script -F event."""
    out = perf(['script', '-F', 'event', '-G'], path)
    return collections.Counter(strip_colon(line.strip()) for line in out.splitlines() if line.strip())


_DUMP_RECORD = re.compile(r'\[0x[0-9a-f]+\]: PERF_RECORD_([A-Z0-9_]+)(.*)$')
_LOST = re.compile(r'lost:?\s*(\d+)')


def perf_record_counts(path):
    """Record types as perf report -D reads them (records inside PERF_RECORD_COMPRESSED counted, not the wrapper),
    and the sums of the lost counters of LOST and LOST_SAMPLES records."""
    counts = collections.Counter()
    lost = {'LOST': 0, 'LOST_SAMPLES': 0}
    for line in perf(['report', '-D'], path).splitlines():
        m = _DUMP_RECORD.search(line)
        if not m:
            continue
        kind, rest = m.groups()
        counts[kind] += 1
        if kind in lost:
            n = _LOST.findall(rest)
            if not n:
                raise SystemExit(f'perf report -D: no lost count in {line!r}')
            lost[kind] += int(n[-1])
    return counts, lost['LOST'], lost['LOST_SAMPLES']


def kallsyms_file(path):
    """The fixture's kallsyms snapshot as a plain file perf can read (FILE.kallsyms, or FILE.kallsyms.zst unpacked)."""
    plain = path + '.kallsyms'
    if os.path.exists(plain):
        return plain
    packed = plain + '.zst'
    if not os.path.exists(packed):
        return None
    zstd = shutil.which('zstd')
    if not zstd:
        skip('zstd not found (needed to unpack ' + packed + ')')
    out = os.path.join(TMP, os.path.basename(path) + '.kallsyms')
    if not os.path.exists(out):
        subprocess.run([zstd, '-q', '-d', '-f', '-o', out, packed], check=True)
    return out


def perf_dump(path, kallsyms=False):
    """Every sample as perf's python scripting hands it (perf_dump.py): event, time, cpu, pid, tid, comm, fields
    (tracepoints, by name, common_* left out) and stack ([ip, sym, dso] innermost first; sym and dso None where
    perf does not know them)."""
    out = os.path.join(TMP, os.path.basename(path) + ('.perf-k.jsonl' if kallsyms else '.perf.jsonl'))
    args = ['script', '--no-inline']
    if kallsyms:
        ks = kallsyms_file(path)
        if ks:
            args.append('--kallsyms=' + ks)
    perf(args + ['-s', PERF_DUMP_SCRIPT, out], path)
    with open(out, encoding='utf-8') as f:
        return [json.loads(line) for line in f]


# ---------------------------------------------------------------------------------------------------------- matching

def sample_key(ev):
    """What pairs a perf sample with rsp-dump's."""
    return (ev['time'], ev['cpu'], ev['tid'], ev['event'])


def sequence_key(ev):
    """An rsp-dump sample as perf_sample_keys() gives perf's."""
    return (ev['time'], ev['cpu'], ev['pid'], ev['tid'], ev['event'])


def pair_samples(perf_samples, rsp_samples):
    """Pairs perf's samples with rsp's by (time, cpu, tid, event), in order within a key.
    Returns (pairs, perf-only, rsp-only)."""
    by_key = collections.defaultdict(collections.deque)
    for ev in rsp_samples:
        by_key[sample_key(ev)].append(ev)
    pairs, only_perf = [], []
    for ev in perf_samples:
        q = by_key.get(sample_key(ev))
        if q:
            pairs.append((ev, q.popleft()))
        else:
            only_perf.append(ev)
    only_rsp = [ev for q in by_key.values() for ev in q]
    return pairs, only_perf, only_rsp


def compare_sequences(perf_keys, rsp_keys):
    """Compares two time-ordered sequences of (time, ...) tuples. The order among samples with the same time is not
    defined by perf.data, so each run of equal times is compared as a multiset. Returns None or a description of
    the first difference."""
    def runs(keys):
        out, i = [], 0
        while i < len(keys):
            j = i
            while j < len(keys) and keys[j][0] == keys[i][0]:
                j += 1
            out.append((i, sorted(keys[i:j])))
            i = j
        return out

    for name_, keys in (('perf', perf_keys), ('rsp-dump', rsp_keys)):
        for i in range(1, len(keys)):
            if keys[i][0] < keys[i - 1][0]:
                return f'{name_} sample {i} goes back in time: {keys[i - 1]} then {keys[i]}'
    a, b = runs(perf_keys), runs(rsp_keys)
    for (ia, ra), (ib, rb) in zip(a, b):
        if ra != rb:
            return (f'first difference at perf sample {ia} / rsp sample {ib}:\n'
                    f'    perf: {ra[:4]}\n    rsp:  {rb[:4]}')
    if len(perf_keys) != len(rsp_keys):
        return f'perf has {len(perf_keys)} samples, rsp-dump {len(rsp_keys)} (one is a prefix of the other)'
    return None
