#!/usr/bin/env python3
"""rsp-dump on broken perf.data files: cut, flipped, foreign, absurd.

Every run must end within a time limit, never by a signal, never with a sanitizer report
(AddressSanitizer, UndefinedBehaviorSanitizer, LeakSanitizer: run the test from the ASan build
directory and RSP_DUMP points at a sanitized binary). A truncated file or a broken structure must
give exit status 1 and exactly one error line that names the file and "at byte offset N", N inside
the file. Damage inside payloads may decode (status 0): that is no failure.

Cases per fixture (tests/data/*.data; a missing fixture is a failure, never a skip):
  - cut at EVERY record boundary (walked from the file's own record sizes, checked against the
    offsets `rsp-dump --format=jsonl --unordered` prints) and at every header, attr, id and
    feature section boundary; file-mode data also as an unfinished recording (data size 0: read
    to the end of the file, so the cut lands inside the record stream) at every record boundary;
    cut inside every second (pipe) or third (unfinished file) record;
  - cut at random offsets, single flipped bits anywhere and in the metadata;
  - absurd values: wrong magic, header/attr sizes, section offsets and sizes past the end or
    overflowing, record sizes 0/7/65535, a garbage COMPRESSED record, a zstd bomb, a huge pipe-mode
    HEADER_TRACING_DATA, absurd pipe-mode attrs.
Each case runs one of several rsp-dump modes (stats, text, jsonl with every field, symbolized
stacks) so the printing and symbolizing paths see broken input too. Fixed seed: a failure is
reproducible; the failing file is kept under $RSP_BADINPUT_KEEP when that is set.

Environment: RSP_DUMP, RSP_SOURCE_ROOT (from meson), RSP_BADINPUT_CASES (random cuts and flips per
fixture, default 200), RSP_BADINPUT_JOBS (parallel runs, default: CPUs), RSP_BADINPUT_TIMEOUT
(seconds per run, default 60).
"""
import concurrent.futures
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

RSP_DUMP = os.environ.get('RSP_DUMP', 'build/src/tools/rsp-dump')
ROOT = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
FIXTURES = ['sched-block-irq-sock.data', 'pipe-mode.data', 'zstd.data', 'nocallchain-switch.data']
CASES = int(os.environ.get('RSP_BADINPUT_CASES', '200'))
JOBS = int(os.environ.get('RSP_BADINPUT_JOBS', str(os.cpu_count() or 2)))
TIMEOUT = float(os.environ.get('RSP_BADINPUT_TIMEOUT', '60'))
# Seconds of the whole run after which no new case starts (CI on 2 busy cores, the ASan build 4x slower):
# the cases run in a shuffled (seeded) order, so a cut-short run still samples every fixture and kind.
BUDGET = float(os.environ.get('RSP_BADINPUT_BUDGET', '480'))
START = time.monotonic()
KEEP = os.environ.get('RSP_BADINPUT_KEEP')
SEED = 20261122

# rsp-dump modes, used in turn: decode only, text, every field as JSON, symbolized stacks (with a
# small kallsyms: loading the whole one would cost 0.1 s a run)
KALLSYMS = '--kallsyms=%s' % os.path.join(tempfile.mkdtemp(prefix='rsp-badinput-ksyms-'), 'kallsyms')
MODES = [['--stats', '--format=json'], ['--stats'], ['--format=jsonl', '--details', '--unordered'],
         ['--stats', '--symbolize', KALLSYMS], ['--stacks', KALLSYMS]]

# sanitizer exit codes distinct from rsp-dump's own 1 and 2, and leak checking on
env = dict(os.environ)
env['ASAN_OPTIONS'] = ':'.join(filter(None, [env.get('ASAN_OPTIONS'), 'exitcode=86', 'detect_leaks=1']))
env['UBSAN_OPTIONS'] = ':'.join(filter(None, [env.get('UBSAN_OPTIONS'), 'print_stacktrace=1']))
env['LSAN_OPTIONS'] = ':'.join(filter(None, [env.get('LSAN_OPTIONS'), 'exitcode=87']))
SANITIZER_RE = re.compile(r'(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|'
                          r'runtime error:|ThreadSanitizer|MemorySanitizer)')
OFFSET_RE = re.compile(r'at byte offset (\d+)\b')

lock = threading.Lock()
failures = []
counts = {'runs': 0, 'exit0': 0, 'exit1': 0}

FEATURE_NAMES = {1: 'TRACING_DATA', 2: 'BUILD_ID', 3: 'HOSTNAME', 4: 'OSRELEASE', 5: 'VERSION',
                 6: 'ARCH', 7: 'NRCPUS', 8: 'CPUDESC', 9: 'CPUID', 10: 'TOTAL_MEM', 11: 'CMDLINE',
                 12: 'EVENT_DESC', 13: 'CPU_TOPOLOGY', 14: 'NUMA_TOPOLOGY', 15: 'BRANCH_STACK',
                 16: 'PMU_MAPPINGS', 17: 'GROUP_DESC', 18: 'AUXTRACE', 19: 'STAT', 20: 'CACHE',
                 21: 'SAMPLE_TIME', 22: 'MEM_TOPOLOGY', 23: 'CLOCKID', 24: 'DIR_FORMAT',
                 25: 'BPF_PROG_INFO', 26: 'BPF_BTF', 27: 'COMPRESSED', 28: 'CPU_PMU_CAPS',
                 29: 'CLOCK_DATA', 30: 'HYBRID_TOPOLOGY', 31: 'PMU_CAPS'}


def fail(what):
    """Prints the first failures in full, then one line each; main() sums them up by kind."""
    with lock:
        failures.append(what)
        if len(failures) <= 25:
            print('FAIL', what, flush=True)
        else:
            print('FAIL', what.split('\n')[0][:300], flush=True)


def failure_kinds():
    kinds = {}
    for f in failures:
        k = re.sub(r'\d+(\.\d+)?', 'N', f.split('\n')[0])[:200]
        kinds[k] = kinds.get(k, 0) + 1
    return sorted(kinds.items(), key=lambda kv: -kv[1])


def check(n, tmp, data, label, must_fail, mode=None, header=False):
    """Writes DATA to a file of its own and checks what rsp-dump makes of it (case number N).
    must_fail: True (exit 1 required), False (0 or 1), None for 'exit 0 required'.
    header: the damage is in the header, attrs or features (so --header must notice it too)."""
    if time.monotonic() - START > BUDGET:
        with lock:
            counts['skipped'] = counts.get('skipped', 0) + 1
        return
    path = os.path.join(tmp, 'case%06d.data' % n)
    with open(path, 'wb') as f:
        f.write(data)
    modes = MODES + [['--header']] if header else MODES
    args = modes[n % len(modes)] if mode is None else mode
    cmd = [RSP_DUMP, *args, path]
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        keep_and_fail(path, '%s [%s]: hang (no exit within %g s)' % (label, ' '.join(args), TIMEOUT))
        return
    wall = time.monotonic() - t
    err = p.stderr.decode('utf-8', 'replace')
    with lock:
        counts['runs'] += 1
        counts['exit%d' % p.returncode] = counts.get('exit%d' % p.returncode, 0) + 1
    what = '%s [rsp-dump %s, %d bytes, %.2f s]' % (label, ' '.join(args), len(data), wall)
    if SANITIZER_RE.search(err):
        keep_and_fail(path, '%s: sanitizer report:\n%s' % (what, err[:4000]))
    elif p.returncode < 0:
        keep_and_fail(path, '%s: killed by signal %d\n%s' % (what, -p.returncode, err[:2000]))
    elif p.returncode not in (0, 1):
        keep_and_fail(path, '%s: exit status %d\n%s' % (what, p.returncode, err[:2000]))
    elif must_fail and p.returncode != 1:
        keep_and_fail(path, '%s: accepted (exit 0), expected an error' % what)
    elif must_fail is None and p.returncode != 0:
        keep_and_fail(path, '%s: rejected a valid file: %r' % (what, err))
    elif p.returncode == 1:
        lines = err.rstrip('\n').split('\n')
        m = OFFSET_RE.search(lines[0]) if len(lines) == 1 else None
        if len(lines) != 1 or path not in lines[0] or not m:
            keep_and_fail(path, '%s: the error is not one line naming the file and "at byte offset N": %r'
                          % (what, err[:2000]))
        elif int(m.group(1)) > len(data):
            keep_and_fail(path, '%s: the error names byte offset %s, past the end of the %d-byte file: %r'
                          % (what, m.group(1), len(data), err))
        else:
            os.unlink(path)
    else:
        os.unlink(path)


def keep_and_fail(path, what):
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
        kept = os.path.join(KEEP, os.path.basename(path))
        shutil.copyfile(path, kept)
        what += '\n  (input kept as %s)' % kept
    fail(what)
    if os.path.exists(path):
        os.unlink(path)


def walk_records(blob, start, end):
    """(offset, type, size) of every record in blob[start:end], by the records' own sizes.
    Pipe-mode HEADER_TRACING_DATA and AUXTRACE carry payload beyond header.size."""
    recs = []
    off = start
    while off + 8 <= end:
        typ, _misc, size = struct.unpack_from('<IHH', blob, off)
        if size < 8:
            raise ValueError('record of size %d at %d' % (size, off))
        total = size
        if typ == 66:
            total += struct.unpack_from('<I', blob, off + 8)[0]
        elif typ == 71:
            total += struct.unpack_from('<Q', blob, off + 8)[0]
        recs.append((off, typ, total))
        off += total
    if off != end:
        raise ValueError('records end at %d, not at %d' % (off, end))
    return recs


class Layout:
    """Where a fixture's structures are: boundaries to cut at, fields to damage."""

    def __init__(self, blob):
        self.blob = blob
        self.pipe = struct.unpack_from('<Q', blob, 8)[0] == 16
        self.bounds = set()   # structure boundaries outside the record stream
        self.meta = []        # (start, end) of metadata ranges, for flips
        if self.pipe:
            self.bounds.update(range(0, 17))
            self.records = walk_records(blob, 16, len(blob))
            self.meta.append((0, 16))
            for off, typ, size in self.records:
                if typ >= 64 and typ not in (68,):  # perf's own HEADER_* and friends
                    self.meta.append((off, off + size))
            return
        (_, self.hsize, self.attr_size, self.attrs_off, self.attrs_size, self.data_off,
         self.data_size) = struct.unpack_from('<7Q', blob, 0)
        self.features = struct.unpack_from('<4Q', blob, 72)
        self.bounds.update(range(0, 105, 8))
        self.bounds.update((1, 4, 7, 103))
        self.meta.append((0, 104))
        self.attrs = []
        for a in range(self.attrs_off, self.attrs_off + self.attrs_size, self.attr_size):
            self.bounds.update((a, a + 8, a + self.attr_size - 16, a + self.attr_size))
            ids_off, ids_size = struct.unpack_from('<QQ', blob, a + self.attr_size - 16)
            self.attrs.append((a, ids_off, ids_size))
            self.bounds.update((ids_off, ids_off + ids_size))
            self.meta.append((ids_off, ids_off + ids_size))
        self.meta.append((self.attrs_off, self.attrs_off + self.attrs_size))
        self.records = walk_records(blob, self.data_off, self.data_off + self.data_size)
        self.feat_table = self.data_off + self.data_size
        self.feature_sections = []  # (feature number, entry offset, section offset, size)
        bits = [b for b in range(256) if self.features[b // 64] >> (b % 64) & 1]
        for i, bit in enumerate(bits):
            entry = self.feat_table + 16 * i
            off, size = struct.unpack_from('<QQ', blob, entry)
            self.feature_sections.append((bit, entry, off, size))
            self.bounds.update((entry, entry + 8, off, off + size))
            if size > 8:
                self.bounds.update((off + 4, off + 8))
        self.bounds.update((self.feat_table, self.feat_table + 16 * len(bits)))
        self.meta.append((self.feat_table, len(blob)))


def record_offsets_from_rsp(path):
    out = subprocess.run([RSP_DUMP, '--format=jsonl', '--unordered', path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=True, env=env)
    return {json.loads(l)['offset'] for l in out.stdout.splitlines()}


def zstd_frame_rle(byte, blocks):
    """A zstd frame of BLOCKS RLE blocks of 128 KiB of BYTE each (no checksum, no content size):
    ~4 bytes per block that expand 32768 times."""
    out = bytearray(struct.pack('<I', 0xFD2FB528))
    out += bytes([0x00, 0x58])  # FHD: single segment 0, no checksum, no dict, FCS 0; window 2^(10+11)=2 MiB
    for i in range(blocks):
        last = 1 if i == blocks - 1 else 0
        bh = last | (1 << 1) | ((128 * 1024) << 3)  # block type RLE, size 128 KiB
        out += struct.pack('<I', bh)[:3] + bytes([byte])
    return bytes(out)


def pad8(b):
    return b + bytes(-len(b) % 8)


def cases_for(name, blob, lay, rng, submit):
    """Submits every case of one fixture."""
    n = len(blob)
    recs = lay.records
    # --- cut at every structure boundary and every record boundary
    cuts = set(o for o in lay.bounds if 0 <= o < n)
    for off, _, _ in recs:
        cuts.add(off)
    rec_offsets = {r[0] for r in recs}
    for off in sorted(cuts):
        if lay.pipe:
            # a pipe stream cut between records is a shorter stream: accepted or rejected
            on_boundary = off in rec_offsets
            submit(blob[:off], '%s cut at %d' % (name, off), False if on_boundary else True)
        else:
            # the header still announces every section: any cut is an error
            submit(blob[:off], '%s cut at %d' % (name, off), True, header=True)
    if lay.pipe:
        # ... and inside every other record
        for off, _, size in recs[::2]:
            k = rng.randrange(1, size) if size > 1 else 1
            submit(blob[:off + k], '%s cut inside the record at %d (+%d)' % (name, off, k), True)
    else:
        # perf killed before it wrote the header back: data size 0 and no features, the records
        # are read up to the end of the file. Cut at every record boundary (a valid, shorter
        # recording) and inside every third record (an error).
        unfinished = bytearray(blob)
        struct.pack_into('<Q', unfinished, 48, 0)
        unfinished = bytes(unfinished)
        for i, (off, _, size) in enumerate(recs):
            submit(unfinished[:off], '%s unfinished, cut at record boundary %d' % (name, off), False)
            if i % 3 == 0:
                k = rng.randrange(1, size)
                submit(unfinished[:off + k], '%s unfinished, cut inside the record at %d (+%d)' % (name, off, k), True)
    # --- random cuts
    for _ in range(CASES):
        off = rng.randrange(0, n)
        submit(blob[:off], '%s cut at random offset %d' % (name, off),
               (off not in rec_offsets) if lay.pipe else True, header=not lay.pipe)
    # --- single flipped bits: anywhere, and in the metadata (header, attrs, features, pipe headers)
    for i in range(CASES + CASES // 4):
        b = bytearray(blob)
        if i < CASES:
            pos = rng.randrange(0, n)
        else:
            lo, hi = rng.choice(lay.meta)
            pos = rng.randrange(lo, max(lo + 1, min(hi, n)))
        bit = rng.randrange(8)
        b[pos] ^= 1 << bit
        submit(bytes(b), '%s bit %d of byte %d flipped' % (name, bit, pos), False, header=True)
    # --- absurd record sizes, at a record in the middle and at the first one
    for off, typ, _ in (recs[len(recs) // 2], recs[0]):
        size = struct.unpack_from('<H', blob, off + 6)[0]
        for bad in (0, 7, 8, 65535, size + 8, size - 8):
            if bad == size:
                continue
            b = bytearray(blob)
            struct.pack_into('<H', b, off + 6, bad & 0xffff)
            submit(bytes(b), '%s record at %d (type %d) with size %d instead of %d' % (name, off, typ, bad, size),
                   True if bad < 8 else False)
    # a record of type 0xffffffff and one of type 0 (unknown / NULL) keep their sizes
    mid = recs[len(recs) // 2][0]
    for typ in (0, 0xffffffff, 200, 127):
        b = bytearray(blob)
        struct.pack_into('<I', b, mid, typ)
        submit(bytes(b), '%s record at %d of type %#x' % (name, mid, typ), False)
    # --- a COMPRESSED record of garbage over a record in the middle (same size), and a
    # COMPRESSED2 one; in the zstd fixture also garbage inside a real COMPRESSED record
    cands = [r for r in recs if r[2] >= 24]
    off, typ, size = cands[len(cands) // 2]
    for ctype in (81, 83):
        b = bytearray(blob)
        struct.pack_into('<IHH', b, off, ctype, 0, size)
        if ctype == 83:
            struct.pack_into('<Q', b, off + 8, size - 16)
            b[off + 16:off + size] = bytes(rng.randrange(256) for _ in range(size - 16))
        else:
            b[off + 8:off + size] = bytes(rng.randrange(256) for _ in range(size - 8))
        submit(bytes(b), '%s garbage %s record at %d' % (name, 'COMPRESSED' if ctype == 81 else 'COMPRESSED2', off),
               False)
        # COMPRESSED2 announcing more data than the record holds
        if ctype == 83:
            for dsize in (size, 1 << 40, (1 << 64) - 1):
                struct.pack_into('<Q', b, off + 8, dsize)
                submit(bytes(b), '%s COMPRESSED2 at %d announcing %d bytes' % (name, off, dsize), True)
    comp = [r for r in recs if r[1] == 81]
    for off, typ, size in comp[:1] + comp[len(comp) // 2:len(comp) // 2 + 1] + comp[-1:]:
        b = bytearray(blob)
        b[off + 8:off + size] = bytes(rng.randrange(256) for _ in range(size - 8))
        submit(bytes(b), '%s real COMPRESSED record at %d filled with garbage' % (name, off), True)
        b = bytearray(blob)
        for p in range(off + 8 + 4, off + size, 37):  # damage inside the zstd frame, keep the magic
            b[p] ^= 0x55
        submit(bytes(b), '%s real COMPRESSED record at %d damaged' % (name, off), False)
    # a zstd bomb: one COMPRESSED record whose ~64 KB expand to GiBs of 0x44 bytes (records of
    # type 0x44444444 and size 0x4444: unknown, but well-formed); must end in bounded time and memory
    bomb_frame = zstd_frame_rle(0x44, 16000)
    bomb = pad8(struct.pack('<IHH', 81, 0, 0) + bomb_frame)
    bomb = struct.pack('<IHH', 81, 0, len(bomb)) + bomb[8:]
    assert len(bomb) < 65536
    bomb_zero = pad8(struct.pack('<IHH', 81, 0, 0) + zstd_frame_rle(0, 3))  # records of size 0
    bomb_zero = struct.pack('<IHH', 81, 0, len(bomb_zero)) + bomb_zero[8:]
    for what, rec, must in (('zstd bomb', bomb, False), ('COMPRESSED of zero bytes', bomb_zero, True)):
        at = recs[len(recs) // 3][0]
        if lay.pipe:
            submit(blob[:at] + rec + blob[at:], '%s: %s inserted at %d' % (name, what, at), must,
                   ['--stats', '--format=json'])
        else:
            b = bytearray(blob[:at] + rec + blob[at:])
            struct.pack_into('<Q', b, 48, lay.data_size + len(rec))
            # the feature table moved by len(rec), and so did every feature section
            for i, (_, entry, foff, fsize) in enumerate(lay.feature_sections):
                struct.pack_into('<Q', b, entry + len(rec), foff + len(rec))
            submit(bytes(b), '%s: %s inserted at %d' % (name, what, at), must, ['--stats', '--format=json'])
    if lay.pipe:
        pipe_cases(name, blob, lay, rng, submit)
    else:
        file_cases(name, blob, lay, rng, submit)


def pipe_cases(name, blob, lay, rng, submit):
    recs = lay.records
    # HEADER_TRACING_DATA announcing a huge size
    td = [r for r in recs if r[1] == 66]
    for off, _, _ in td:
        for size in (0xffffffff, 0x7ffffff8, len(blob), 4):
            b = bytearray(blob)
            struct.pack_into('<I', b, off + 8, size)
            submit(bytes(b), '%s HEADER_TRACING_DATA at %d announcing %d bytes' % (name, off, size), True)
    # and one inserted before everything else
    b = blob[:16] + struct.pack('<IHHII', 66, 0, 16, 0xfffffff8, 0) + blob[16:]
    submit(b, '%s huge HEADER_TRACING_DATA inserted first' % name, True)
    # HEADER_ATTR with absurd attr.size / record sizes
    attrs = [r for r in recs if r[1] == 64]
    off, _, size = attrs[0]
    for asize in (0, 7, 64, size, 0xffffffff):
        b = bytearray(blob)
        struct.pack_into('<I', b, off + 8 + 4, asize)  # perf_event_attr.size
        submit(bytes(b), '%s HEADER_ATTR at %d with attr.size %d' % (name, off, asize), False)
    # a HEADER_FEATURE with an absurd feature number and one with a cut body
    feats = [r for r in recs if r[1] == 80]
    if feats:
        off, _, size = feats[0]
        for num in (0, 255, 1 << 40):
            b = bytearray(blob)
            struct.pack_into('<Q', b, off + 8, num)
            submit(bytes(b), '%s HEADER_FEATURE at %d numbered %d' % (name, off, num), False)
    # the pipe header's own size
    for hsize in (0, 8, 104, 1 << 40):
        b = bytearray(blob)
        struct.pack_into('<Q', b, 8, hsize)
        submit(bytes(b), '%s pipe header size %d' % (name, hsize), True)


def file_cases(name, blob, lay, rng, submit):
    n = len(blob)
    big = (1 << 62, (1 << 64) - 1, (1 << 64) - 8, 1 << 40)
    # a larger header is a newer perf's (rsp reads its first 104 bytes); a smaller one is broken
    fields = [(8, v, 'header size %d' % v, v < 104) for v in (0, 8, 16, 103, 105, 1 << 62)]
    fields += [(16, v, 'attr_size %d' % v, True)
               for v in (0, 7, 8, 16, lay.attr_size - 8, lay.attr_size + 8, 1 << 40, (1 << 64) - 1)]
    fields += [(24, v, 'attrs offset %d' % v, True) for v in big + (n, n - 8)]
    fields += [(32, v, 'attrs size %d' % v, True) for v in big + (n, lay.attrs_size + lay.attr_size)]
    # perf reads attrs.size / attr_size attrs: a remainder is ignored
    fields += [(32, lay.attrs_size - 1, 'attrs size %d' % (lay.attrs_size - 1), False)]
    fields += [(32, 0, 'attrs size 0', False)]
    fields += [(40, v, 'data offset %d' % v, True) for v in big + (n, n + 8, lay.data_off + 1)]
    fields += [(48, v, 'data size %d' % v, True) for v in big + (n, lay.data_size + 8, 3)]
    # event_types is obsolete: perf ignores it
    fields += [(56, v, 'event_types offset %d' % v, False) for v in (1 << 62,)]
    fields += [(64, v, 'event_types size %d' % v, False) for v in (1 << 62,)]
    fields += [(72, (1 << 64) - 1, 'every feature bit set', True),
               (80, (1 << 64) - 1, 'feature bits 64-127 set', True)]
    for off, value, what, must in fields:
        b = bytearray(blob)
        struct.pack_into('<Q', b, off, value)
        # header size 16 makes it a pipe stream, whose records --header does not read
        submit(bytes(b), '%s %s' % (name, what), must, header=(off, value) != (8, 16))
    # the first attr's ids section, and the attr's own size field
    a, ids_off, ids_size = lay.attrs[0]
    for off, value, what, must in ((a + lay.attr_size - 16, 1 << 62, 'ids offset 2^62', True),
                                   (a + lay.attr_size - 16, n, 'ids offset at the end', True),
                                   (a + lay.attr_size - 8, 1 << 62, 'ids size 2^62', True),
                                   (a + lay.attr_size - 8, ids_size + 7, 'ids size not a multiple of 8', False)):
        b = bytearray(blob)
        struct.pack_into('<Q', b, off, value)
        submit(bytes(b), '%s first attr: %s' % (name, what), must, header=True)
    for asize in (0, 7, 0xffffffff, lay.attr_size * 2):
        b = bytearray(blob)
        struct.pack_into('<I', b, a + 4, asize)
        submit(bytes(b), '%s first attr with attr.size %d' % (name, asize), False, header=True)
    # every feature section: offset and size past the end, size 0, size cut in half
    for bit, entry, off, size in lay.feature_sections:
        fname = FEATURE_NAMES.get(bit, str(bit))
        for field, value, what, must in ((0, 1 << 62, 'offset 2^62', True), (0, n, 'offset at the end', True),
                                         (8, 1 << 62, 'size 2^62', True), (8, (1 << 64) - 1, 'size 2^64-1', True),
                                         (8, 0, 'size 0', False), (8, size // 2, 'size halved', False),
                                         (8, 3, 'size 3', False)):
            b = bytearray(blob)
            struct.pack_into('<Q', b, entry + field, value)
            submit(bytes(b), '%s feature %s: %s' % (name, fname, what), must, header=True)
        # the section's first u32/u64 (counts, string lengths) made huge
        if size >= 8:
            for value in (0xffffffff, 0x7fffffff, size * 4):
                b = bytearray(blob)
                struct.pack_into('<I', b, off, value)
                submit(bytes(b), '%s feature %s: first u32 %d' % (name, fname, value), False, header=True)


def foreign(tmp, submit_any):
    rng = random.Random(SEED)

    def submit(data, label, must_fail):
        submit_any(data, label, must_fail, header=True)

    submit(b'', 'empty file', True)
    submit(b'PERFILE2', 'only the magic', True)
    submit(b'PERFILE2' + struct.pack('<Q', 104), 'only magic and header size', True)
    submit(b'\x7fELF' + bytes(200), 'an ELF file', True)
    submit(struct.pack('>Q', 0x32454c4946524550) + bytes(200), 'a big-endian perf.data', True)
    submit(b'PERFFILE' + bytes(200), 'a version 1 perf.data', True)
    submit(b'PERFILE3' + bytes(200), 'magic PERFILE3', True)
    submit(bytes(rng.randrange(256) for _ in range(4096)), 'random bytes', True)
    submit(b'PERFILE2' + bytes(rng.randrange(256) for _ in range(4096)), 'magic then random bytes', True)
    submit_any(b'PERFILE2' + struct.pack('<Q', 16) + bytes(rng.randrange(256) for _ in range(4096)),
               'pipe header then random bytes', True)
    # a minimal valid pipe stream: the header alone, and the header with one FINISHED_ROUND
    submit(b'PERFILE2' + struct.pack('<Q', 16), 'pipe header alone', False)
    submit(b'PERFILE2' + struct.pack('<Q', 16) + struct.pack('<IHH', 68, 0, 8), 'pipe header and a round', False)
    # a file-mode header with every section empty
    hdr = b'PERFILE2' + struct.pack('<6Q', 104, 136, 104, 0, 104, 0) + bytes(48)
    submit(hdr, 'file header, every section empty', False)


def write_small_kallsyms():
    """Every 64th line of the fixtures' kallsyms snapshot (or none when zstd is missing)."""
    path = KALLSYMS.split('=', 1)[1]
    text = b''
    try:
        full = subprocess.run(['zstd', '-dc', os.path.join(ROOT, 'tests', 'data', 'kallsyms.zst')],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
        text = b''.join(l + b'\n' for i, l in enumerate(full.splitlines()) if i % 64 == 0)
    except (OSError, subprocess.CalledProcessError):
        pass
    with open(path, 'wb') as f:
        f.write(text)


def main():
    if not os.access(RSP_DUMP, os.X_OK):
        print('RSP_DUMP=%s is not executable' % RSP_DUMP)
        return 1
    write_small_kallsyms()
    sanitized = b'__asan_init' in open(RSP_DUMP, 'rb').read()
    print('rsp-dump: %s (%s)' % (RSP_DUMP, 'ASan build: leaks and sanitizer reports are failures'
                                 if sanitized else 'no sanitizer'), flush=True)
    t0 = time.monotonic()
    # tens of thousands of files of up to 600 KB each: in memory when possible
    shm = '/dev/shm' if os.access('/dev/shm', os.W_OK) else None
    tmp = tempfile.mkdtemp(prefix='rsp-badinput-', dir=shm)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=JOBS)
    futures = []
    queued = []

    def submit(data, label, must_fail, mode=None, header=False):
        # numbered here, in submission order, so every case gets the same mode in every run
        queued.append((len(queued), data, label, must_fail, mode, header))
        futures.append(None)

    try:
        for name in FIXTURES:
            src = os.path.join(ROOT, 'tests', 'data', name)
            if not os.path.exists(src):
                fail('%s: fixture missing' % src)
                continue
            blob = open(src, 'rb').read()
            try:
                lay = Layout(blob)
            except (ValueError, struct.error) as e:
                fail('%s: cannot walk its records: %s' % (name, e))
                continue
            # the reader's record offsets must be record boundaries
            walked = {r[0] for r in lay.records}
            told = record_offsets_from_rsp(src)
            stray = sorted(told - walked)
            if stray:
                fail('%s: rsp-dump names offsets that are no record boundary: %s' % (name, stray[:10]))
            # the fixture itself decodes in every mode
            for mode in MODES:
                submit(blob, '%s intact' % name, None, mode)
            rng = random.Random('%d %s' % (SEED, name))
            before = len(futures)
            cases_for(name, blob, lay, rng, submit)
            print('%s: %s mode, %d bytes, %d records, %d cases' % (name, 'pipe' if lay.pipe else 'file',
                  len(blob), len(lay.records), len(futures) - before), flush=True)
        foreign(tmp, submit)
        # the intact fixtures first, then the rest in a seeded shuffle (see BUDGET)
        intact = [q for q in queued if q[3] is None]
        rest = [q for q in queued if q[3] is not None]
        random.Random(SEED).shuffle(rest)
        running = [pool.submit(check, n, tmp, data, label, must, mode, header)
                   for n, data, label, must, mode, header in intact + rest]
        queued.clear()
        for f in running:
            f.result()
    finally:
        pool.shutdown(wait=True)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(os.path.dirname(KALLSYMS.split('=', 1)[1]), ignore_errors=True)
    # a file that does not exist
    p = subprocess.run([RSP_DUMP, '--stats', '/nonexistent/perf.data'], stderr=subprocess.PIPE, env=env)
    if p.returncode != 1 or b'/nonexistent/perf.data' not in p.stderr or p.stderr.count(b'\n') != 1:
        fail('missing file: exit %d, %r' % (p.returncode, p.stderr))
    if failures:
        print('\nfailures by kind:')
        for k, c in failure_kinds():
            print('%6d  %s' % (c, k))
    print('%d runs in %.0f s: exit 0: %d, exit 1: %d; %d failures'
          % (counts['runs'], time.monotonic() - t0, counts.get('exit0', 0), counts.get('exit1', 0), len(failures)))
    if counts.get('skipped'):
        print('%d cases not run: the budget of %.0f s (RSP_BADINPUT_BUDGET) was spent' % (counts['skipped'], BUDGET))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
