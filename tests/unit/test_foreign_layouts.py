#!/usr/bin/env python3
"""What perf.data files from elsewhere hold that rsp's own recordings never do, in files whose truth the test
builds (issue 16 part 3; tests/foreign runs the real ones):
  - attrs named nowhere in the file (no EVENT_DESC: old pipe streams, simpleperf): perf 6.1's generic names,
    modifiers included, one per attr, the same from run to run; HEADER_EVENT_TYPE names in a pipe stream;
  - an empty optional feature section (cpudesc): a warning naming the file and offset, the file read;
  - a fixed sampling period without PERF_SAMPLE_PERIOD: the attr's period;
  - junk after a pipe stream's last record (perf's '[ perf record: ...]' lines): every event, then one error
    line naming the junk's offset, status 1;
  - MMAP2 records without prot and flags (Red Hat 3.10 kernels): the file name read where it is;
  - a sample without a callchain: its ip as a one-frame stack, in rsp-dump --stacks and in the model (model-json);
    kernel module frames named as perf names them ([ext4] from kallsyms, [foo_bar] from the module's map).
Where perf is installed, the generic names and the period are also checked against perf script."""
import collections
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import synthetic_perf as sp  # noqa: E402

RSP_DUMP = os.environ.get('RSP_DUMP', 'build/src/tools/rsp-dump')
RSP_SUMMARY = os.environ.get('RSP_SUMMARY', 'build/src/tools/rsp-summary')
TMP = tempfile.mkdtemp(prefix='rsp-foreign-layouts-')
failures = []

EXCLUDE_USER, EXCLUDE_KERNEL, EXCLUDE_HV = 1 << 4, 1 << 5, 1 << 6
EXCLUDE_GUEST = 1 << 20
T = sp.IDENTIFIER | sp.IP | sp.TID | sp.TIME | sp.CPU


def check(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what, flush=True)
    if not cond:
        failures.append(what)


def write(name, blob):
    path = os.path.join(TMP, name)
    with open(path, 'wb') as f:
        f.write(blob)
    return path


def rsp(*args):
    p = subprocess.run([RSP_DUMP, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def jsonl(path, *extra):
    rc, out, err = rsp('--format=jsonl', *extra, path)
    return rc, [json.loads(x) for x in out.splitlines()], err


def samples(events):
    return [e for e in events if not e['event'].startswith('PERF_RECORD_')]


def perf_script(path, fields):
    perf = shutil.which('perf')
    if not perf:
        return None
    env = dict(os.environ, PERF_PAGER='cat', PERF_BUILDID_DIR=os.path.join(TMP, 'buildid'))
    p = subprocess.run([perf, 'script', '-f', '-i', path, '-F', fields], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, env=env)
    return p.stdout if p.returncode == 0 else None


def sample_records(attr_, n0, count, **extra):
    return b''.join(sp.Sample(attr_, id=attr_.ids[0], ip=0x401000 + i, pid=7, tid=7, time=n0 + i, cpu=0,
                              **extra).bytes() for i in range(count))


def pipe_stream(records):
    return struct.pack('<QQ', 0x32454c4946524550, 16) + b''.join(records)


def header_attr(a):
    return sp.record(64, a.raw + struct.pack('<%dQ' % len(a.ids), *a.ids))


def test_generic_names():
    attrs = [  # (attr, perf 6.1's name)
        (sp.Attr('', sp.attr(0, 0, T), [11]), 'cycles:HG'),
        (sp.Attr('', sp.attr(1, 0, T, flags=sp.SAMPLE_ID_ALL | EXCLUDE_GUEST), [12]), 'cpu-clock'),
        (sp.Attr('', sp.attr(3, 0x10000, T, flags=sp.SAMPLE_ID_ALL | EXCLUDE_GUEST), [13]),
         'L1-dcache-load-misses'),
        (sp.Attr('', sp.attr(4, 0x1234, T, flags=sp.SAMPLE_ID_ALL | EXCLUDE_KERNEL | EXCLUDE_GUEST), [14]),
         'raw 0x1234:uhH'),
        (sp.Attr('', sp.attr(0, 1, T, flags=sp.SAMPLE_ID_ALL | EXCLUDE_KERNEL | EXCLUDE_HV), [15]), 'instructions:u'),
    ]
    data = b''.join(sample_records(a, 1000 * (k + 1), k + 1) for k, (a, _) in enumerate(attrs))
    path = write('generic-names.data', sp.perf_data_file([a for a, _ in attrs], data, {}))
    want = collections.Counter({name: k + 1 for k, (_, name) in enumerate(attrs)})
    runs = []
    for _ in range(2):
        rc, events, err = jsonl(path)
        runs.append(collections.Counter(e['event'] for e in samples(events)))
        check(rc == 0, f'generic names: rsp-dump exit {rc} {err.strip()}')
    check(runs[0] == want, f'generic names, one per attr: {dict(runs[0])} (want {dict(want)})')
    check(runs[0] == runs[1], 'generic names: the same in a second run')
    out = perf_script(path, 'event')
    if out is not None:
        got = collections.Counter(x.strip()[:-1] for x in out.splitlines() if x.strip())
        check(got == want, f'generic names as perf script names them: {dict(got)}')


def test_event_type_names():
    raw = sp.Attr('', sp.attr(4, 0x1a, T), [21])
    hw = sp.Attr('', sp.attr(0, 1, T, flags=sp.SAMPLE_ID_ALL | EXCLUDE_GUEST), [22])
    recs = [header_attr(raw), header_attr(hw),
            sp.record(65, struct.pack('<Q', 0x1a) + b'r1a'.ljust(64, b'\0')),
            sample_records(raw, 100, 2), sample_records(hw, 200, 3)]
    path = write('event-types.pipe.data', pipe_stream(recs))
    rc, events, err = jsonl(path)
    got = collections.Counter(e['event'] for e in samples(events))
    check(rc == 0 and got == {'r1a': 2, 'instructions': 3},
          f'pipe stream: HEADER_EVENT_TYPE names the raw event, the other has perf\'s name: {dict(got)} {err.strip()}')
    junk = b'[ perf record: Woken up 1 times to write data ]\n[ perf record: Captured and wrote 0.030 MB - ]\n'
    stream = pipe_stream(recs)
    path = write('junk-tail.pipe.data', stream + junk)
    rc, events, err = jsonl(path)
    lines = err.strip().splitlines()
    check(rc == 1 and len(samples(events)) == 5, f'junk after a pipe stream: all 5 samples ({len(samples(events))}), '
          f'status 1 ({rc})')
    check(len(lines) == 1 and path in lines[0] and f'at byte offset {len(stream)} ' in lines[0]
          and '[ perf record: Woken up' in lines[0], f'junk after a pipe stream: one error line at its offset: {lines}')
    rc, out, err = rsp('--stats', '--format=json', path)
    try:
        counted = json.loads(out)['events']
    except ValueError:
        counted = None
    check(rc == 1 and counted == {'r1a': 2, 'instructions': 3},
          f'--stats on it: the counts before the error ({out.strip()[:120]})')


def test_empty_feature_and_period():
    a = sp.Attr('', sp.attr(1, 0, T, flags=sp.SAMPLE_ID_ALL | EXCLUDE_GUEST, period=5000), [31])
    data = sample_records(a, 100, 3)
    features = {8: b'', 11: sp.cmdline(['perf', 'record'])}  # cpudesc of zero bytes
    path = write('empty-cpudesc.data', sp.perf_data_file([a], data, features))
    rc, events, err = jsonl(path)
    lines = err.strip().splitlines()
    check(rc == 0 and len(samples(events)) == 3, f'empty cpudesc: read (exit {rc}, {len(samples(events))} samples)')
    check(len(lines) == 1 and 'warning' in lines[0] and path in lines[0] and 'at byte offset' in lines[0]
          and 'cpudesc' in lines[0], f'empty cpudesc: one warning naming file and offset: {lines}')
    periods = [e['period'] for e in samples(events)]
    check(periods == [5000] * 3, f'fixed period without PERF_SAMPLE_PERIOD: {periods}')
    out = perf_script(path, 'period')
    if out is not None:
        check([int(x) for x in out.split()] == [5000] * 3, f'... as perf script prints it: {out.split()}')


def test_warning_in_summary():
    """What the reader tolerated reaches the tools' notes (rsp-summary), not only rsp-dump: a recording with
    switch records (tid 7 runs 1000-2000 and 3000-4000 ns on cpu 0) and an empty cpudesc."""
    context_switch = 1 << 26
    a = sp.Attr('', sp.attr(1, 0, T | sp.PERIOD, flags=sp.SAMPLE_ID_ALL | EXCLUDE_GUEST | context_switch), [31])
    out_misc = 0x2000
    recs = []
    for t0, t1 in ((1000, 2000), (3000, 4000)):
        recs.append(sp.record(sp.REC['SWITCH_CPU_WIDE'], struct.pack('<ii', 0, 0) + a.trailer(7, 7, t0, 31, 0)))
        recs.append(sp.Sample(a, id=31, ip=0x401000, pid=7, tid=7, time=t0 + 500, cpu=0, period=1).bytes())
        recs.append(sp.record(sp.REC['SWITCH_CPU_WIDE'], struct.pack('<ii', 0, 0) + a.trailer(7, 7, t1, 31, 0),
                              misc=out_misc))
    features = {8: b'', 11: sp.cmdline(['perf', 'record'])}
    path = write('warning-summary.data', sp.perf_data_file([a], b''.join(recs), features))
    p = subprocess.run([RSP_SUMMARY, '--tasks', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    notes = [x for x in (p.stdout + p.stderr).splitlines() if 'reading the file' in x]
    check(p.returncode == 0 and len(notes) == 1 and 'cpudesc' in notes[0] and 'at byte offset' in notes[0],
          f'rsp-summary notes the reader\'s warning (exit {p.returncode}): {notes or p.stderr[-300:]}')


def mmap2_old(pid, start, length, pgoff, name):
    body = struct.pack('<iiQQQIIQQ', pid, pid, start, length, pgoff, 8, 1, 1234, 5) + sp.pad8(name.encode() + b'\0')
    return sp.record(10, body, misc=2)


def mmap2_new(pid, start, length, pgoff, name):
    body = struct.pack('<iiQQQIIQQII', pid, pid, start, length, pgoff, 8, 1, 1234, 5, 5, 2)
    return sp.record(10, body + sp.pad8(name.encode() + b'\0'), misc=2)


def test_mmap2_without_prot():
    a = sp.Attr('', sp.attr(1, 0, T | sp.PERIOD, flags=EXCLUDE_GUEST), [41])
    data = (mmap2_old(7, 0x400000, 0x6000, 0, '/usr/bin/true') +
            mmap2_old(7, 0x7f0000000000, 0x222000, 0, '/usr/lib64/ld-2.17.so') +
            mmap2_new(7, 0x7f1000000000, 0x1000, 0x2000, '/usr/lib64/libc-2.17.so') +
            sample_records(a, 100, 1, period=1))
    path = write('mmap2-rhel7.data', sp.perf_data_file([a], data, {}))
    rc, events, err = jsonl(path, '--unordered')
    maps = [(e['fields']['start'], e['fields']['len'], e['fields']['filename'])
            for e in events if e['event'] == 'PERF_RECORD_MMAP2']
    want = [(0x400000, 0x6000, '/usr/bin/true'), (0x7f0000000000, 0x222000, '/usr/lib64/ld-2.17.so'),
            (0x7f1000000000, 0x1000, '/usr/lib64/libc-2.17.so')]
    check(rc == 0 and maps == want, f'MMAP2 without prot/flags beside a current one: {maps} {err.strip()}')


def test_one_frame_stacks():
    a = sp.Attr('', sp.attr(1, 0, T, flags=sp.SAMPLE_ID_ALL | EXCLUDE_GUEST), [51])
    module_map = sp.record(1, struct.pack('<iiQQQ', -1, 0, 0xffffffffc0100000, 0x4000, 0) +
                           sp.pad8(b'/lib/modules/6.1.0/kernel/fs/foo-bar.ko.xz\0') + a.trailer(-1, 0, 0, 51, 0),
                           misc=1)
    ips = [(0xffffffffc0001010, 1, 'ext4_foo', '[ext4]'), (0xffffffff81000010, 1, 'start_kernel', '[kernel.kallsyms]'),
           (0xffffffffc0100020, 1, None, '[foo_bar]')]
    data = module_map + b''.join(sp.Sample(a, id=51, ip=ip, pid=7, tid=7, time=100 + k, cpu=0, misc=misc).bytes()
                                 for k, (ip, misc, _, _) in enumerate(ips))
    path = write('one-frame.data', sp.perf_data_file([a], data, {}))
    with open(path + '.kallsyms', 'w') as f:
        f.write('ffffffff81000000 T _text\nffffffff81000000 T start_kernel\nffffffff81001000 T other\n'
                'ffffffffc0001000 t ext4_foo\t[ext4]\nffffffffc0002000 t ext4_bar\t[ext4]\n')
    rc, events, err = jsonl(path, '--stacks')
    stacks = [[(f['addr'], f['sym'], f['dso']) for f in e['stack']] for e in samples(events)]
    want = [[(ip, sym, dso)] for ip, _, sym, dso in ips]
    check(rc == 0 and stacks == want, f'no callchain: the ip as one frame, modules named as perf does: {stacks} '
          f'{err.strip()}')
    # ... and in the model: each sample has a stack (three ips, three stacks)
    model_json = os.path.join(os.environ.get('RSP_BUILD_ROOT', 'build'), 'tests', 'model', 'model-json')
    if os.access(model_json, os.X_OK):
        p = subprocess.run([model_json, path, '--quiet'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode == 0 and '3 stacks, 3 samples' in p.stdout,
              f'no callchain: the model has a stack per sample: {p.stdout.strip()} {p.stderr.strip()[:200]}')


def main():
    test_generic_names()
    test_event_type_names()
    test_empty_feature_and_period()
    test_mmap2_without_prot()
    test_one_frame_stacks()
    test_warning_in_summary()
    if failures:
        print(f'\n{len(failures)} failure(s)')
        return 1
    print('\nall passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
