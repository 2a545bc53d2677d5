#!/usr/bin/env python3
"""Separate debug files with compressed sections, and their inflated copies in rsp's cache (debug-cache.c).
tests/model/data/debug-cache/ holds inline-prog (built with -O2 -g, its hot code inlined) and inline-fp.data, recorded
from /tmp/rsp-debug-cache-fixture/inline-prog (record.sh). The test puts the binary there stripped of everything, its
debug info in a separate file whose sections are compressed (objcopy --compress-debug-sections=zlib), found by its
.gnu_debuglink, as distributions ship them. The truth: the frames rsp gives with the whole binary in place (functions
and the functions inlined there, which test_inline_frames.py checks against addr2line -i on the same kind of binary).
- with the split debug info and an empty cache, the frames are the truth's, and the cache then holds one file, named
  by the binary's build id, with that build id, whose sections are none of them compressed (readelf -S);
- a second run uses the copy: with the compressed debug file gone, the frames are still the truth's, and the copy's
  time is brought forward;
- a copy cut short is not used: it is written again from the debug file, the frames unchanged; writing it removes
  the copies unused for 30 days and the temporary files of a writer that died, a day on, and nothing else;
- RSP_DEBUG_CACHE=off writes nothing, the frames are the truth's."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
DUMP = os.environ.get('RSP_DUMP', os.path.join(SRC, 'build', 'src', 'tools', 'rsp-dump'))
HERE = os.path.join(SRC, 'tests', 'model', 'data', 'debug-cache')
DATA = os.path.join(HERE, 'inline-fp.data')
DIR = '/tmp/rsp-debug-cache-fixture'
PROG = os.path.join(DIR, 'inline-prog')
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

failures = []


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def frames(cache):
    """Per sample (by time): PROG's frames as (function, inlined), innermost first."""
    env = dict(os.environ, RSP_DEBUG_CACHE=cache)
    env.pop('DEBUGINFOD_URLS', None)
    p = subprocess.run([DUMP, '--format=jsonl', '--stacks', DATA], capture_output=True, text=True, env=env,
                       timeout=120)
    ok(p.returncode == 0, f'rsp-dump (RSP_DEBUG_CACHE={cache}): exit {p.returncode} {p.stderr[-200:]}')
    return oracle.prog_frames(p.stdout, PROG)


def build_id(path):
    out = subprocess.run(['readelf', '-n', path], capture_output=True, text=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    return m.group(1) if m else None


def compressed_sections(path):
    """The names of PATH's sections with the C (SHF_COMPRESSED) flag."""
    out = subprocess.run(['readelf', '-S', '-W', path], capture_output=True, text=True).stdout
    names = []
    for line in out.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+([A-Za-z]*)\s', line)
        if m and 'C' in m.group(2):
            names.append(m.group(1))
    return names


def main():
    for tool in ('objcopy', 'strip', 'readelf'):
        if not shutil.which(tool):
            print(f'skipped: no {tool} (package binutils)')
            sys.exit(77)
    os.makedirs(DIR, exist_ok=True)
    shutil.copy(os.path.join(HERE, 'inline-prog'), PROG)
    truth = frames('off')
    n_inlined = sum(1 for f in truth.values() if any(i for _, i in f))
    ok(len(truth) >= 50 and n_inlined >= len(truth) // 2,
       f'the whole binary: {len(truth)} samples, {n_inlined} with an inlined frame of it')

    # the binary stripped, its debug info apart with compressed sections, found by its debuglink
    debug = PROG + '.debug'
    subprocess.run(['objcopy', '--only-keep-debug', '--compress-debug-sections=zlib', os.path.join(HERE, 'inline-prog'),
                    debug], check=True)
    subprocess.run(['strip', '--strip-all', PROG], check=True)
    subprocess.run(['objcopy', '--add-gnu-debuglink=' + debug, PROG], check=True)
    ok(compressed_sections(debug) != [], f'the debug file has compressed sections: {compressed_sections(debug)}')
    ok(compressed_sections(PROG) == [] and '.symtab' not in subprocess.run(
        ['readelf', '-S', '-W', PROG], capture_output=True, text=True).stdout, 'the binary has no symbols left')
    bid = build_id(PROG)
    ok(bid is not None and bid == build_id(debug), f'binary and debug file share the build id {bid}')

    cache = tempfile.mkdtemp(prefix='rsp-debug-cache-')
    try:
        ok(frames('off') == truth, 'RSP_DEBUG_CACHE=off: the frames of the whole binary')
        ok(os.listdir(cache) == [], 'RSP_DEBUG_CACHE=off: nothing written')

        ok(frames(cache) == truth, 'split debug info, empty cache: the frames of the whole binary')
        copy = os.path.join(cache, f'{bid}.debug')
        ok(f'{bid}.debug' in os.listdir(cache) and not [n for n in os.listdir(cache) if not n.endswith('.debug')],
           f'the cache holds the copy named by the build id (and those of the other debug files used): {os.listdir(cache)}')
        ok(os.path.exists(copy) and build_id(copy) == bid, 'the copy has the build id')
        ok(os.path.exists(copy) and compressed_sections(copy) == [],
           f'the copy has no compressed section: {compressed_sections(copy) if os.path.exists(copy) else None}')
        ok(os.path.exists(copy) and os.path.getsize(copy) > os.path.getsize(debug),
           'the copy is larger than the compressed debug file')

        os.rename(debug, debug + '.away')
        t = time.time() - 10 * 86400
        os.utime(copy, (t, t))
        ok(frames(cache) == truth, 'the compressed debug file gone: the frames of the whole binary, from the copy')
        ok(time.time() - os.path.getmtime(copy) < 3600, 'a copy used has its time brought forward (not pruned)')
        os.rename(debug + '.away', debug)

        # what a copy's writing prunes: copies unused for 30 days, what a writer that died left a day on
        old = {name: days for name, days in (('0' * 40 + '.debug', 40), ('1' * 40 + '.debug', 20),
                                             ('2' * 40 + '.debug.Ab12Cd', 2), ('3' * 40 + '.debug.Ef34Gh', 0),
                                             ('notes.txt', 90))}
        for name, days in old.items():
            with open(os.path.join(cache, name), 'wb') as f:
                f.write(b'x')
            t = time.time() - days * 86400 - 60
            os.utime(os.path.join(cache, name), (t, t))

        with open(copy, 'r+b') as f:
            f.truncate(64)
        ok(frames(cache) == truth, 'a copy cut short: the frames of the whole binary')
        ok(os.path.getsize(copy) > 64 and build_id(copy) == bid and compressed_sections(copy) == [],
           'a copy cut short is written again')
        left = set(os.listdir(cache))
        gone = {n for n in old if n not in left}
        ok(gone == {'0' * 40 + '.debug', '2' * 40 + '.debug.Ab12Cd'},
           f'writing it removed the copy unused for 40 days and the 2-day-old leftover, no other: {sorted(gone)}')
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.copy(os.path.join(HERE, 'inline-prog'), PROG)
        if os.path.exists(debug):
            os.unlink(debug)

    if failures:
        print(f'{len(failures)} failed')
        sys.exit(1)


if __name__ == '__main__':
    main()
