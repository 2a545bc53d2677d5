#!/usr/bin/env python3
"""Symbols through debuginfod (issue 16, part 5): the chain recording's binary (tests/analysis/data/chain,
recorded from /tmp/rsp-chain-fixture/chain-client) is put there stripped, and its debug info
(objcopy --only-keep-debug) is served by a local debuginfod (elfutils' server, scanning a directory). Truth: the
functions perf script names in the unstripped binary's samples.
- DEBUGINFOD_URLS unset: the binary's samples have no symbol, the note says it is stripped;
- DEBUGINFOD_URLS at the server: the functions come back (those of perf script on the unstripped binary), no note;
- DEBUGINFOD_URLS at a port nobody listens on: no hang (done within 20 s), the note says stripped and that the
  servers had nothing."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
DUMP = os.environ.get('RSP_DUMP', os.path.join(BUILD, 'src', 'tools', 'rsp-dump'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

CHAIN = os.path.join(SRC, 'tests', 'analysis', 'data', 'chain')
DATA = os.path.join(CHAIN, 'chain.data')
PROG = '/tmp/rsp-chain-fixture/chain-client'
failures = []


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def run(env_extra):
    env = dict(os.environ)
    env.pop('DEBUGINFOD_URLS', None)
    # no inflated copies of debug info (debug-cache.c): one kept from the server's run would answer the others
    env['RSP_DEBUG_CACHE'] = 'off'
    env.update(env_extra)
    t = time.monotonic()
    dump = subprocess.run([DUMP, '--format=jsonl', '--stacks', '--no-inline', DATA], capture_output=True, text=True,
                          env=env, timeout=120)
    summary = subprocess.run([SUMMARY, DATA], capture_output=True, text=True, env=env, timeout=120)
    took = time.monotonic() - t
    funcs = set()
    for line in dump.stdout.splitlines():
        funcs.update(f.get('sym') for f in json.loads(line).get('stack', []) if f.get('dso') == PROG)
    funcs.discard(None)
    notes = [l for l in (summary.stdout + summary.stderr).splitlines() if PROG in l and 'without a symbol' in l]
    return dump.returncode == 0 and summary.returncode == 0, funcs, notes, took


def main():
    for tool in ('debuginfod', 'objcopy', 'strip'):
        if not shutil.which(tool):
            print(f'skipped: no {tool} (packages debuginfod, binutils)')
            sys.exit(77)
    # the truth: the functions of the binary perf script names with the unstripped binary in place
    os.makedirs(os.path.dirname(PROG), exist_ok=True)
    shutil.copy(os.path.join(CHAIN, 'chain-client'), PROG)
    out = oracle.perf(['script', '-F', 'ip,sym,dso'], DATA)
    truth = {l.split()[1].split('+')[0] for l in out.splitlines() if f'({PROG})' in l and len(l.split()) >= 3}
    truth.discard('[unknown]')
    ok(len(truth) >= 2, f'perf script names {len(truth)} functions in the chain binary: {sorted(truth)}')
    tmp = tempfile.mkdtemp(prefix='rsp-debuginfod-')
    server = None
    try:
        os.makedirs(os.path.join(tmp, 'served'))
        subprocess.run(['objcopy', '--only-keep-debug', os.path.join(CHAIN, 'chain-client'),
                        os.path.join(tmp, 'served', 'chain-client.debug')], check=True)
        subprocess.run(['strip', '--strip-all', '-o', PROG, os.path.join(CHAIN, 'chain-client')], check=True)
        rd = subprocess.run(['readelf', '-n', PROG], capture_output=True, text=True)
        bid = re.search(r'Build ID: ([0-9a-f]+)', rd.stdout)
        ok(bid is not None, 'the stripped binary keeps its build id')

        fine, funcs, notes, took = run({})
        ok(fine and not (truth & funcs) and len(notes) == 1 and 'stripped' in notes[0],
           f'no DEBUGINFOD_URLS: none of its functions ({sorted(truth & funcs)}), a note: {notes}')

        port = free_port()
        server = subprocess.Popen(['debuginfod', '-F', '-p', str(port), '-d', os.path.join(tmp, 'db.sqlite'),
                                   os.path.join(tmp, 'served')], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        url = f'http://127.0.0.1:{port}'
        ready = False
        for _ in range(120):  # the server scans its directory after it starts listening
            try:
                with urllib.request.urlopen(f'{url}/buildid/{bid.group(1)}/debuginfo', timeout=2) as r:
                    ready = r.status == 200
            except Exception:
                pass
            if ready:
                break
            time.sleep(0.5)
        ok(ready, f'debuginfod serves the debug info of build id {bid.group(1) if bid else None}')
        cache = {'DEBUGINFOD_CACHE_PATH': os.path.join(tmp, 'cache')}
        fine, funcs, notes, took = run({'DEBUGINFOD_URLS': url, **cache})
        ok(fine and truth <= funcs and not notes, f'DEBUGINFOD_URLS={url}: perf\'s functions {sorted(truth)} named '
           f'(missing {sorted(truth - funcs)}), no note ({notes})')

        dead = f'http://127.0.0.1:{free_port()}'
        cache = {'DEBUGINFOD_CACHE_PATH': os.path.join(tmp, 'cache2')}
        fine, funcs, notes, took = run({'DEBUGINFOD_URLS': dead, **cache})
        ok(fine and took < 20 and not (truth & funcs) and len(notes) == 1 and 'debuginfod servers' in notes[0],
           f'DEBUGINFOD_URLS={dead} (nobody there): done in {took:.1f} s, a note: {notes}')
    finally:
        if server:
            server.terminate()
            server.wait(timeout=10)
        shutil.copy(os.path.join(CHAIN, 'chain-client'), PROG)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
