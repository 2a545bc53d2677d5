#!/usr/bin/env python3
"""rsp-dump on broken perf.data files: cut, flipped, foreign, absurd. Never a crash, a hang or a
sanitizer report; a broken structure gives exit status 1 and exactly one error line naming the
file and a byte offset. Damage inside payloads may decode (status 0): that is no failure.

Cases per fixture (tests/data): cut at record boundaries (every Nth, from the file's own offsets)
and inside records, cut at random offsets, single flipped bytes, and hand-made absurdities
(wrong magic, absurd header sizes and sections, record sizes 0/7/65535, a garbage COMPRESSED
record, a huge pipe-mode HEADER_TRACING_DATA). Fixed seed, so a failure is reproducible.
"""
import json
import os
import random
import struct
import subprocess
import sys
import tempfile

RSP_DUMP = os.environ.get('RSP_DUMP', 'build/src/tools/rsp-dump')
ROOT = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
FIXTURES = ['sched-block-irq-sock.data', 'pipe-mode.data', 'zstd.data']
PER_KIND = int(os.environ.get('RSP_BADINPUT_CASES', '60'))
rng = random.Random(20261122)
failures = []
runs = 0


def fail(what):
    failures.append(what)
    print('FAIL', what)


def run(path, data, label, must_fail):
    """Writes DATA to PATH and checks what rsp-dump --stats makes of it."""
    global runs
    runs += 1
    with open(path, 'wb') as f:
        f.write(data)
    try:
        p = subprocess.run([RSP_DUMP, '--stats', '--format=json', path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=60)
    except subprocess.TimeoutExpired:
        fail('%s: hang (no exit within 60 s)' % label)
        return
    err = p.stderr.decode('utf-8', 'replace')
    if 'Sanitizer' in err or 'runtime error' in err:
        fail('%s: sanitizer report:\n%s' % (label, err[:3000]))
        return
    if p.returncode < 0:
        fail('%s: killed by signal %d' % (label, -p.returncode))
        return
    if p.returncode not in (0, 1):
        fail('%s: exit status %d' % (label, p.returncode))
        return
    if must_fail and p.returncode != 1:
        fail('%s: accepted (exit 0), expected an error' % label)
        return
    if p.returncode == 1:
        lines = err.strip().splitlines()
        if len(lines) != 1 or path not in lines[0] or 'byte offset' not in lines[0]:
            fail('%s: error is not one line naming the file and the byte offset: %r' % (label, err))


def offsets_of(path):
    """Record offsets of the data section, from the file itself."""
    out = subprocess.run([RSP_DUMP, '--format=jsonl', '--unordered', path], stdout=subprocess.PIPE, check=True)
    offs = sorted({json.loads(l)['offset'] for l in out.stdout.splitlines()})
    return offs


def main():
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, 'broken.data')
        for name in FIXTURES:
            src = os.path.join(ROOT, 'tests', 'data', name)
            if not os.path.exists(src):
                fail('%s: fixture missing' % src)
                continue
            blob = open(src, 'rb').read()
            pipe = struct.unpack_from('<Q', blob, 8)[0] == 16
            offs = offsets_of(src)
            # cuts at record boundaries and inside records
            step = max(1, len(offs) // PER_KIND)
            for off in offs[::step]:
                # a file-mode header still announces the whole data section: any cut is an error;
                # a pipe stream cut between records is a shorter valid stream
                run(bad, blob[:off], '%s cut at record boundary %d' % (name, off), must_fail=not pipe)
                run(bad, blob[:off + 5], '%s cut inside the record at %d' % (name, off), must_fail=True)
            if not pipe:
                # perf killed before writing the header back: data size 0, read to the end
                unfinished = bytearray(blob)
                struct.pack_into('<Q', unfinished, 48, 0)
                for off in offs[::step * 2]:
                    run(bad, bytes(unfinished[:off + 9]), '%s unfinished, cut at %d+9' % (name, off), must_fail=True)
            for _ in range(PER_KIND):
                off = rng.randrange(1, len(blob))
                run(bad, blob[:off], '%s cut at random offset %d' % (name, off), must_fail=not pipe)
            for _ in range(PER_KIND * 2):
                b = bytearray(blob)
                pos = rng.randrange(0, len(b))
                b[pos] ^= 1 << rng.randrange(8)
                run(bad, bytes(b), '%s byte %d flipped' % (name, pos), must_fail=False)
            # record sizes 0, 7 and 65535 at a record in the middle
            mid = offs[len(offs) // 2]
            for size in (0, 7, 65535):
                b = bytearray(blob)
                struct.pack_into('<H', b, mid + 6, size)
                run(bad, bytes(b), '%s record at %d with size %d' % (name, mid, size), must_fail=size in (0, 7))
            # a COMPRESSED record of garbage where that record was
            b = bytearray(blob)
            struct.pack_into('<IHH', b, mid, 81, 0, 64)
            b[mid + 8:mid + 64] = bytes(rng.randrange(256) for _ in range(56))
            run(bad, bytes(b), '%s garbage COMPRESSED record at %d' % (name, mid), must_fail=False)
            if pipe:
                # a HEADER_TRACING_DATA announcing 4 GiB
                b = blob[:16] + struct.pack('<IHHI', 66, 0, 16, 0xffffffff) + b'\0' * 4 + blob[16:]
                run(bad, b, '%s huge HEADER_TRACING_DATA' % name, must_fail=True)
            else:
                for field, value, what in ((16, 7, 'attr_size 7'), (16, 1 << 40, 'attr_size 2^40'),
                                           (24, 1 << 62, 'attrs offset 2^62'), (32, 1 << 62, 'attrs size 2^62'),
                                           (40, len(blob) + 8, 'data offset past the end'),
                                           (48, 1 << 62, 'data size 2^62'), (8, 8, 'header size 8')):
                    b = bytearray(blob)
                    struct.pack_into('<Q', b, field, value)
                    run(bad, bytes(b), '%s %s' % (name, what), must_fail=True)
        # foreign files
        run(bad, b'', 'empty file', must_fail=True)
        run(bad, b'PERFILE2', 'only the magic', must_fail=True)
        run(bad, b'\x7fELF' + bytes(200), 'an ELF file', must_fail=True)
        run(bad, struct.pack('>Q', 0x32454c4946524550) + bytes(200), 'a big-endian perf.data', must_fail=True)
        run(bad, b'PERFFILE' + bytes(200), 'a version 1 perf.data', must_fail=True)
        run(bad, bytes(rng.randrange(256) for _ in range(4096)), 'random bytes', must_fail=True)
    # a file that does not exist
    p = subprocess.run([RSP_DUMP, '--stats', '/nonexistent/perf.data'], stderr=subprocess.PIPE)
    if p.returncode != 1 or b'/nonexistent/perf.data' not in p.stderr:
        fail('missing file: exit %d, %r' % (p.returncode, p.stderr))
    print('%d runs' % runs)
    print('%d passed, %d failed' % (0 if failures else 1, 1 if failures else 0))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
