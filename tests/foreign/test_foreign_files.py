#!/usr/bin/env python3
"""rsp-dump on perf.data files recorded elsewhere (../shared/foreign beside the source root: 117 files from public
repositories, perf 3.2 to 6.16, x86_64/aarch64/armv7l/i686, pipe and file mode, -z and COMPRESSED2, DWARF/LBR
call chains, branch stacks, tracepoints, Intel PT, perf inject, simpleperf; SOURCES.md there says where each comes
from).

Every file goes through `rsp-dump --format=jsonl --stacks`: it must end in time, never by a signal or with a
sanitizer report, with status 0, or 1 and exactly one error line naming the file and a byte offset inside it
(after the events it could read). Then, against an oracle:
  - where perf reads the file (or the copy that the folder's tools/downgrade.py or tools/decomp2.py makes of it,
    for 136-byte attrs and COMPRESSED2 that perf 6.1 cannot read): samples per event name, and the sequence of
    (time, pid, tid, event) in time order (runs of equal times compared as multisets), against perf script;
  - where perf cannot read it, or delivers other samples for a reason recorded below: the event counts and the
    error recorded in EXPECT.
The folder missing gives status 77 (skip). RSP_FOREIGN_DIR overrides it; --no-perf (given by meson in a sanitizer
build, where the comparisons would only repeat the plain build's) or RSP_FOREIGN_PERF=0 checks rsp-dump alone: its
exits, its errors and the recorded counts."""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'oracle'))
import oracle  # noqa: E402

FOREIGN = os.environ.get('RSP_FOREIGN_DIR') or os.path.normpath(
    os.path.join(oracle.SOURCE_ROOT, '..', 'shared', 'foreign'))
USE_PERF = os.environ.get('RSP_FOREIGN_PERF', '1') != '0' and '--no-perf' not in sys.argv[1:]
TIMEOUT = float(os.environ.get('RSP_FOREIGN_TIMEOUT', '60'))
OFFSET_RE = re.compile(r'at byte offset (\d+) \(0x[0-9a-f]+\)')
SANITIZER_RE = re.compile(r'(AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:)')

# How perf 6.1 gets to read a file it refuses as it is: attrs of 136 bytes cut to 128 (tools/downgrade.py), or
# COMPRESSED2 records expanded (tools/decomp2.py, which also stops at the junk after the last record).
PREPARE = {
    'linux-perf-data__fibo.compressed2.pipe.data': ['decomp2.py'],
    'linux-perf-data__sleep.compressed2.pipe.data': ['decomp2.py'],
    'derived__junk-tail.pipe.data': ['decomp2.py'],
    'linux-perf-data__sleep.compressed2.data': ['decomp2.py', 'downgrade.py'],
    'hotspot__perf.data.PerfFormatLost': ['downgrade.py'],
    'linux-perf-data__sleep.compressed.data': ['downgrade.py'],
    'linux-perf-data__sleep.data': ['downgrade.py'],
    'perfparser__cpp-inlining_cpp-inlining.perf.data': ['downgrade.py'],
    'simpleperf__lbr_perf_lbr.data': ['downgrade.py'],
}

# What rsp-dump must make of the files perf is no oracle for. 'error': the one error line (a regex; exit status 1),
# after the samples 'samples' (per event name; {} for none). 'why': why perf is no oracle here.
EXPECT = {}


JUNK = r'at byte offset %d \(0x[0-9a-f]+\): %d bytes after the last record are no perf record but text: "\[ perf record: '
# simpleperf writes records of its own (types 32769...: kernel symbols, dsos, call chains, unwinding results), its
# tracing data inside the record, 64-byte padded, and event names only in its META_INFO feature: perf 6.1 stops.
# Their counts are rsp-dump's, checked by hand against the SAMPLE records in the file and the META_INFO names.
SIMPLEPERF = 'simpleperf-only records or layout (types 32769+, tracing data inside its record): perf 6.1 refuses the file'


def load_expectations():
    EXPECT.update({
        # perf's stderr lines appended to a pipe stream: every event before them, then the error at their offset
        'derived__junk-tail.pipe.data': dict(error=JUNK % (13618, 107)),
        'linux-perf-data__sleep.compressed2.pipe.data': dict(error=JUNK % (31808, 143)),
        'hotspot__perf.data.true.v1': dict(
            why='perf.data version 1 (PERFFILE, perf 2.6.3x): perf 6.1 reads it, rsp does not',
            error=r'at byte offset 0 \(0x0\): version 1 perf.data \(PERFFILE\) is not supported', samples={}),
        'simpleperf__invalid_perf.data': dict(
            why='not a perf.data file: perf refuses it too',
            error=r'at byte offset 0 \(0x0\): not a perf.data file \(no PERFILE2 magic\)', samples={}),
        'quipper__perf.data.piped.corrupted.zero_size_sample-3.2': dict(
            why='a SAMPLE record of size 0 (corrupted on purpose): perf stops with "bad event header size"',
            error=r'at byte offset 49104 \(0xbfd0\): record of type 9 \(SAMPLE\) with size 0: not a perf record',
            samples={}),
        # an empty cpudesc feature (a u32 length and nothing): said, skipped, the file read
        'quipper__perf.data.armv7.perf_3.14-3.8': dict(
            warning=r'at byte offset 200028 \(0x30d5c\): feature section 8: truncated cpudesc; feature ignored'),
        'quipper__perf.data.piped.intel_pt-4.14': dict(
            why='Intel PT in a pipe stream: perf 6.1 stops with "bad event header size" (an AUXTRACE payload)',
            samples={'cycles': 11}),
        # perf reads it but shows more samples than the file holds: the others it makes itself
        'quipper__perf.data.intel_pt-4.14': dict(
            perf='subset', why='perf decodes the Intel PT trace into psb, cbr and branches samples',
            samples={'cycles': 15}),
        'simpleperf__debug_unwind_small_map_range.data': dict(why=SIMPLEPERF, samples={'cpu-clock:u': 1}),
        'simpleperf__perf_for_build_id_check.data': dict(why=SIMPLEPERF, samples={'cycles:u': 4408}),
        'simpleperf__perf_sched_stat_runtime.data': dict(why=SIMPLEPERF,
                                                         samples={'sched:sched_stat_runtime': 2430}),
        'simpleperf__perf_test_max_stack_and_percent_limit.data': dict(why=SIMPLEPERF, samples={'cycles:u': 121}),
        'simpleperf__perf_with_big_trace_data.data': dict(why=SIMPLEPERF, samples={}),
        'simpleperf__perf_with_callchain_record.data': dict(why=SIMPLEPERF, samples={'cycles:HG': 21}),
        'simpleperf__perf_with_failed_unwinding_debug_info.data': dict(why=SIMPLEPERF, samples={'cycles:HG': 1}),
        'simpleperf__perf_with_trace_offcpu.data': dict(why=SIMPLEPERF,
                                                        samples={'cycles:HG': 2270, 'sched:sched_switch': 99}),
        'simpleperf__perf_with_trace_offcpu_v2.data': dict(why=SIMPLEPERF,
                                                           samples={'cpu-clock:u': 208, 'sched:sched_switch': 96}),
        'simpleperf__perf_with_tracepoint_event.data': dict(why=SIMPLEPERF,
                                                            samples={'sched:sched_switch': 31, 'cycles:HG': 14}),
        'simpleperf__perf_with_tracepoint_event_dynamic_field.data': dict(why=SIMPLEPERF,
                                                                          samples={'kprobes:myopen': 10}),
    })


def skip(msg):
    print('SKIP:', msg)
    sys.exit(77)


def run_rsp(path):
    """rsp-dump --format=jsonl --stacks PATH: (status, events, error line or None, warnings, seconds)."""
    cmd = [oracle.rsp_dump_path(), '--format=jsonl', '--stacks', '--no-inline', path]
    t = time.monotonic()
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, [], f'no exit within {TIMEOUT:g} s', [], TIMEOUT
    wall = time.monotonic() - t
    err = p.stderr.decode('utf-8', 'replace')
    lines = [x for x in err.splitlines() if x]
    warnings = [x for x in lines if x.startswith('rsp-dump: warning: ')]
    errors = [x for x in lines if not x.startswith('rsp-dump: warning: ')]
    events = []
    for line in p.stdout.decode('utf-8', 'replace').splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            errors.append('stdout line is not JSON: ' + line[:200])
            break
    return p.returncode, events, errors, warnings, wall


def perf_copy(name, path, tmp):
    """The file perf 6.1 reads in place of PATH: PATH, or the copy PREPARE's tools make of it."""
    for i, tool in enumerate(PREPARE.get(name, ())):
        out = os.path.join(tmp, f'{name}.{i}')
        subprocess.run([sys.executable, os.path.join(FOREIGN, 'tools', tool), path, out], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        path = out
    return path


def perf_samples(path, tmp):
    """Every sample perf script delivers (perf_dump.py), or (None, why) when perf cannot read the file."""
    out = os.path.join(tmp, os.path.basename(path) + '.perf.jsonl')
    cmd = [oracle.perf_path(), 'script', '-f', '-i', path, '--no-inline', '-s', oracle.PERF_DUMP_SCRIPT, out]
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       env=oracle.perf_env(), text=True, errors='replace', timeout=300)
    if p.returncode != 0 or not os.path.exists(out):
        tail = [x for x in p.stderr.splitlines() if x.strip()][-1:] or ['?']
        return None, f'perf script exit {p.returncode}: {tail[0][:120]}'
    with open(out, encoding='utf-8') as f:
        return [json.loads(line) for line in f], None


def counts(events):
    return collections.Counter(e['event'] for e in events)


def seq(events):
    return [(e['time'], e['pid'], e['tid'], e['event']) for e in events]


def main():
    if not os.path.isdir(FOREIGN):
        skip(f'no foreign perf.data files: {FOREIGN} is not a folder (they live beside the source root, '
             f'in ../shared/foreign; RSP_FOREIGN_DIR names another place)')
    if USE_PERF:
        oracle.perf_path()  # skips without perf
    load_expectations()
    names = sorted(f for f in os.listdir(FOREIGN)
                   if os.path.isfile(os.path.join(FOREIGN, f)) and not f.endswith('.md'))
    if not names:
        skip(f'{FOREIGN} holds no files')
    res = oracle.Result('foreign files')
    t0 = time.monotonic()
    rsp_time = perf_time = 0.0
    tmp = tempfile.mkdtemp(prefix='rsp-foreign-')
    for name in names:
        path = os.path.join(FOREIGN, name)
        size = os.path.getsize(path)
        status, events, errors, warnings, wall = run_rsp(path)
        rsp_time += wall
        where = name
        # --- rsp-dump alone: how it ends
        if status is None or status < 0 or SANITIZER_RE.search('\n'.join(errors)):
            res.fail(where, f'rsp-dump crashed or hung (status {status}): {errors[:3]}')
            continue
        if status not in (0, 1):
            res.fail(where, f'rsp-dump exit status {status}: {errors[:3]}')
            continue
        error = None
        if status == 1:
            m = OFFSET_RE.search(errors[0]) if len(errors) == 1 else None
            if not m or path not in errors[0] or int(m.group(1)) > size:
                res.fail(where, f'exit 1 without one error line naming the file and an offset in it: {errors[:3]}')
                continue
            error = errors[0]
        elif errors:
            res.fail(where, f'exit 0 with errors: {errors[:3]}')
            continue
        samples = [e for e in events if oracle.is_sample(e)]
        got = counts(samples)
        exp = EXPECT.get(name)
        if exp and 'warning' in exp:
            res.check(len(warnings) == 1 and re.search(exp['warning'], warnings[0]) and path in warnings[0], where,
                      f'warnings {warnings} (expected /{exp["warning"]}/)')
        elif warnings:
            res.fail(where, f'unexpected warnings: {warnings}')
        # --- the recorded expectation
        if exp and 'error' in exp:
            res.check(error is not None and re.search(exp['error'], error), where,
                      f'error as expected: {error}' if error else f'no error; expected /{exp["error"]}/')
        elif error and not USE_PERF:
            res.fail(where, f'unexpected error: {error}')
        if exp and exp.get('samples') is not None:
            res.check(got == collections.Counter(exp['samples']), where,
                      f'samples {dict(got)} (expected {exp["samples"]}; {exp["why"]})')
        if not USE_PERF or (exp and 'perf' not in exp and exp.get('samples') is not None):
            continue
        # --- perf as the oracle
        t = time.monotonic()
        want, why = perf_samples(perf_copy(name, path, tmp), tmp)
        perf_time += time.monotonic() - t
        if want is None:
            res.fail(where, f'perf cannot read it ({why}) and no expectation is recorded')
            continue
        if error and not exp:
            res.fail(where, f'rsp-dump: {error}')
        if exp and exp.get('perf') == 'subset':  # perf's own extra samples left out
            want = [e for e in want if e['event'] in got]
        wcount = counts(want)
        res.check(wcount == got, where,
                  f'samples per event: perf {dict(wcount)}' + ('' if wcount == got else f', rsp-dump {dict(got)}'))
        diff = oracle.compare_sequences(seq(want), seq(samples))
        res.check(diff is None, where, f'(time, pid, tid, event) of {len(want)} samples' + (f': {diff}' if diff else ''))
    print(f'\n{len(names)} files in {time.monotonic() - t0:.1f} s (rsp-dump {rsp_time:.1f} s, perf {perf_time:.1f} s)')
    res.finish()


if __name__ == '__main__':
    main()
