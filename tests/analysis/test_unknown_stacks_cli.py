#!/usr/bin/env python3
"""rsp-summary --categories on a perf.data written byte by byte (tests/unit/synthetic_perf.py), whose truth is its
construction: why running time has no function (issue 15, item 6).

Process 42 (its COMM and MMAP2 records synthesized, time 0, as perf writes those of running processes) runs on cpu 0
from 1 ms to 3 ms (switch records), sampled every 0.25 ms with user callchains:
  - 4 samples in /nonexistent/rsp-test/libgone.so (mapped by an MMAP2 record, not on any host): binary_missing;
  - 2 samples in anonymous executable memory (//anon, a JIT without a perf map): no_map;
  - 2 samples whose chain goes round one address 20 times: loop.
The run's 2 ms are shared by its 8 samples: unknown_stack 2 ms = 1 ms binary_missing + 0.5 no_map + 0.5 loop,
understood 0, percent accounted 0. The recording names this host (hostname, osrelease) so that the symbolizer looks
the mapped file up (a recording of another host is not looked up: that would say no_symbol)."""
import json
import os
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
SUMMARY = os.environ.get('RSP_SUMMARY')
sys.path.insert(0, os.path.join(SRC, 'tests', 'unit'))
import synthetic_perf as sp  # noqa: E402

check = sp.Checks()
PID = 42
MS = 1_000_000
GONE = '/nonexistent/rsp-test/libgone.so'
GONE_AT, ANON_AT = 0x7f0000000000, 0x7e0000000000
FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_EVENT_DESC = 3, 4, 12


def write(path):
    clock = sp.cpu_clock_with_switches()
    chains = [[GONE_AT + 0x1234]] * 4 + [[ANON_AT + 0x40]] * 2 + [[GONE_AT + 0x2000] + [ANON_AT + 0x80] * 20] * 2
    maps = [(GONE_AT, 0x10000, GONE), (ANON_AT, 0x10000, '//anon')]
    data = sp.one_sampled_task(clock, PID, 'gone-test', maps, chains, 1 * MS, 3 * MS)
    u = os.uname()
    feats = {FEAT_EVENT_DESC: sp.event_desc([clock]), FEAT_HOSTNAME: sp.perf_string(u.nodename),
             FEAT_OSRELEASE: sp.perf_string(u.release)}
    with open(path, 'wb') as f:
        f.write(sp.perf_data_file([clock], data, feats))


def main():
    if not SUMMARY:
        print('RSP_SUMMARY not set')
        return 77
    if os.path.exists(GONE):
        print(f'{GONE} exists here: skipped')
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'gone.data')
        write(path)
        p = subprocess.run([SUMMARY, '--categories', '--pid', str(PID), '--format=json', path], capture_output=True,
                           text=True, timeout=60)
        check(p.returncode == 0, f'rsp-summary exits 0 ({p.stderr.strip()[:300]})')
        if p.returncode:
            return 1
        d = json.loads(p.stdout)
        cats, why = d['categories'], d['unknown_stack_by_reason']
        check(abs(d['total_ms'] - 2) < 1e-6, f'total 2 ms ({d["total_ms"]})')
        check(abs(cats['unknown_stack'] - 2) < 1e-6, f'unknown_stack 2 ms ({cats["unknown_stack"]})')
        check(cats['understood'] == 0, f'understood 0 ({cats["understood"]})')
        check(abs(why.get('binary_missing', 0) - 1) < 1e-6, f'binary_missing 1 ms ({why})')
        check(abs(why.get('no_map', 0) - 0.5) < 1e-6, f'no_map 0.5 ms ({why})')
        check(abs(why.get('loop', 0) - 0.5) < 1e-6, f'loop 0.5 ms ({why})')
        check(d['percent_accounted'] == 0 and d['accounted_ms'] == 0, f'nothing accounted ({d["accounted_ms"]})')
        check([pr['run_ms'] for pr in d['processes'] if pr['pid'] == PID] == [2.0], f'run_ms 2 ({d["processes"]})')
        p = subprocess.run([SUMMARY, '--categories', '--pid', str(PID), path], capture_output=True, text=True,
                           timeout=60)
        check('Unknown stacks, the mapped binary is missing: 1.000 ms' in p.stdout, 'the text table says why')
        # --explain's notes: the missing file's samples (innermost frame there: the 4, and the 2 looping), and the
        # JIT's as code in anonymous memory, not as a file 'not read (the recording was made on another machine)'
        p = subprocess.run([SUMMARY, '--explain', '--pid', str(PID), path], capture_output=True, text=True, timeout=60)
        notes = [ln for ln in p.stdout.splitlines() if ln.startswith('note: ') and 'without a symbol' in ln]
        check(any(f'6 samples ran in {GONE} without a symbol: the file is not on this machine' in ln for ln in notes),
              f'a note says the 6 samples of {GONE} have no file here ({notes})')
        check(any('2 samples ran in //anon without a symbol: it is memory that is no file' in ln and 'JIT' in ln and
                  'perf map' in ln
                  for ln in notes) and not any('//anon' in ln and 'not read' in ln for ln in notes),
              f'a note says the 2 samples in //anon are JIT code needing a perf map, none that its file was not read '
              f'({notes})')
    return check.status()


if __name__ == '__main__':
    sys.exit(main())
