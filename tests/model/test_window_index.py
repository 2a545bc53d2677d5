#!/usr/bin/env python3
"""FILE.rsp-index (src/reader/file-index.c): a windowed read (rsp-dump --window) delivers the same events with the
index as without it (--no-index, a scan from the start), up to the window's end; the first windowed read writes it,
the next uses it (rsp-dump --stats says so); a stale index (the file touched, its size in the index wrong) or a
corrupt one is not trusted but rebuilt; a directory where the index cannot be written changes nothing; files it does
not cover (compressed, pipe mode) are read without one. On copies of the fixtures in a temporary directory."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
DUMP = os.environ['RSP_DUMP']
failures = []


def check(cond, what):
    print('ok  ' if cond else 'FAIL', what, flush=True)
    if not cond:
        failures.append(what)


def dump(path, window, *args):
    p = subprocess.run([DUMP, f'--window={window}', '--no-ftrace', *args, path], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f'rsp-dump {window} {args} {path}: exit {p.returncode}\n{p.stderr[-3000:]}')
    return p.stdout


def stats(path, window, *args):
    return json.loads(dump(path, window, '--stats', '--format=json', *args))['window']


def events(path, window, *args):
    """The jsonl events up to the window's end (after it, where each reading stops differs)."""
    hi = stats(path, window, '--no-index')['hi']
    return [line for line in dump(path, window, '--format=jsonl', *args).splitlines()
            if json.loads(line)['time'] <= hi]


tmp = tempfile.mkdtemp(prefix='rsp-index-')
try:
    cases = []
    for rel in ('tests/model/data/wl-grep.data', 'tests/data/sched-block-irq-sock.data', 'data/sample.perf.data'):
        dst = os.path.join(tmp, os.path.basename(rel))
        shutil.copy(os.path.join(SRC, rel), dst)
        cases.append((rel, dst, True))
    zst = os.path.join(SRC, 'bench/real/data/webmail/rec.data.zst')
    if shutil.which('zstd') and os.path.exists(zst):
        dst = os.path.join(tmp, 'webmail.data')
        subprocess.run(['zstd', '-dqf', zst, '-o', dst], check=True)
        cases.append(('bench/real/data/webmail', dst, True))
    for rel in ('tests/data/zstd.data', 'tests/data/pipe-mode.data'):  # no index for these
        dst = os.path.join(tmp, os.path.basename(rel))
        shutil.copy(os.path.join(SRC, rel), dst)
        cases.append((rel, dst, False))
    for where, path, indexed in cases:
        index = path + '.rsp-index'
        full = stats(path, '+0:100000000000000', '--no-index')
        span = full['hi'] - full['recording_start']
        window = f'+{span // 2}:{span // 2 + span // 10}'
        scan = events(path, window, '--no-index')
        check(not os.path.exists(index), f'{where}: --no-index writes no index')
        first = stats(path, window)
        check(first['index_written'] == indexed and os.path.exists(index) == indexed,
              f'{where}: the first windowed read ' + ('writes the index' if indexed else 'writes no index (not covered)'))
        again = stats(path, window)
        check(again['index_used'] == indexed and not again['index_written'],
              f'{where}: the next one ' + ('uses it' if indexed else 'reads without one'))
        check(events(path, window) == scan, f'{where}: {len(scan)} events up to the window\'s end, with the index '
              'as without')
        if not indexed:
            continue
        # stale: the file touched
        time.sleep(0.01)
        os.utime(path)
        st = stats(path, window)
        check(st['index_written'] and events(path, window) == scan, f'{where}: touched, the index is rebuilt')
        # stale: another size in the index (its second u64)
        with open(index, 'r+b') as f:
            f.seek(8)
            size = int.from_bytes(f.read(8), 'little')
            f.seek(8)
            f.write((size + 8).to_bytes(8, 'little'))
        st = stats(path, window)
        check(st['index_written'] and events(path, window) == scan, f'{where}: a wrong size, the index is rebuilt')
        # corrupt: its round offsets overwritten
        with open(index, 'r+b') as f:
            f.seek(96)
            f.write(os.urandom(64))
        st = stats(path, window)
        check(st['index_written'] and events(path, window) == scan, f'{where}: a corrupt index is rebuilt')
        # cannot be written: a directory in its place (root writes anywhere; a read-only directory for the others).
        # (the scan that would have written it still serves the read that made it)
        os.unlink(index)
        os.mkdir(index)
        ro = os.path.join(tmp, 'ro')
        os.makedirs(ro, exist_ok=True)
        ro_path = os.path.join(ro, os.path.basename(path))
        shutil.copy(path, ro_path)
        os.chmod(ro, 0o555)
        st = stats(path, window)
        ok = not st['index_written'] and events(path, window) == scan
        ok = ok and events(ro_path, window) == scan
        check(ok, f'{where}: where the index cannot be written, the same events, nothing written')
        os.chmod(ro, 0o755)
        shutil.rmtree(ro)
        os.rmdir(index)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failures else 0)
