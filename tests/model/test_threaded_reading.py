#!/usr/bin/env python3
"""The reader on a second thread (src/model/event-pipeline.c) builds the same model as reading on one thread
(RSP_THREADS=1, the path every other oracle test checks against perf): on every fixture of tests/data and
tests/model/data (ftrace side streams and zstd-compressed records included), model-json's whole model,
rsp-summary's --tasks and --categories JSON and rsp-export's folded stacks (symbolized on a thread of their own:
src/model/stack-thread.c) are byte-identical, and so are stderr and the exit status; on files cut
short (a truncated recording) the reader's error comes out the same way, after the same events, and so does the error
of a sample that does not decode (on two threads the model's thread decodes it: rsp_reader_defer_decoding)."""
import glob
import json
import struct
import os
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
SUMMARY = os.environ['RSP_SUMMARY']
DUMP = os.environ['RSP_DUMP']
MODEL_JSON = os.path.join(BUILD, 'tests', 'model', 'model-json')

failures = []


EXPORT = os.path.join(os.path.dirname(SUMMARY), 'rsp-export')


def run(threads, args, extra=None):
    env = dict(os.environ, RSP_THREADS=str(threads), **(extra or {}))
    p = subprocess.run(args, capture_output=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def compare(args, what, extra=None):
    one = run(1, args)
    two = run(2, args, extra)
    if one != two:
        failures.append(what)
        print('FAIL', what, 'exit', one[0], two[0], 'stdout same' if one[1] == two[1] else 'stdout differs',
              'stderr same' if one[2] == two[2] else 'stderr differs')
        sys.stdout.write(two[2].decode(errors='replace')[:2000])
    return one


def main():
    fixtures = sorted(glob.glob(os.path.join(SRC, 'tests', 'data', '*.data')) +
                      glob.glob(os.path.join(SRC, 'tests', 'model', 'data', '*.data')))
    if not fixtures:
        print('no fixtures')
        return 1
    nonempty = 0
    for path in fixtures:
        name = os.path.relpath(path, SRC)
        code, out, _ = compare([MODEL_JSON, path], f'model-json {name}')
        if code == 0 and len(out) > 1000:
            nonempty += 1
        compare([SUMMARY, '--tasks', '--format=json', path], f'--tasks {name}')
        compare([SUMMARY, '--categories', '--format=json', path], f'--categories {name}')
        # every sample's whole stack: symbolized and interned on the stacks' thread (stack-thread.c), with its blocks
        # of 256 KB, and of 64 bytes (a block handed over at nearly every message, and grown for most)
        compare([EXPORT, '--to=folded', path], f'folded stacks {name}')
        compare([EXPORT, '--to=folded', '--stacks=off-cpu', path], f'off-cpu stacks {name}',
                {'RSP_STACK_BLOCK_BYTES': '64'})
        compare([SUMMARY, '--categories', '--waits', '--format=json', path], f'--waits {name}, small blocks',
                {'RSP_STACK_BLOCK_BYTES': '64'})
    # the comparison must have compared something: whole models of real recordings
    if nonempty < len(fixtures) // 2:
        failures.append(f'only {nonempty} of {len(fixtures)} fixtures gave a model')
    with tempfile.TemporaryDirectory() as tmp:
        for rel in ['tests/data/sched-block-irq-sock.data', 'tests/data/zstd.data',
                    'tests/model/data/links-tcp.data']:
            data = open(os.path.join(SRC, rel), 'rb').read()
            for frac in (0.3, 0.55, 0.8):
                cut = os.path.join(tmp, 'cut.data')
                with open(cut, 'wb') as f:
                    f.write(data[:int(len(data) * frac) | 3])  # mid-record, most likely
                code, _, err = compare([MODEL_JSON, cut], f'model-json {rel} cut at {frac}')
                compare([SUMMARY, '--tasks', '--format=json', cut], f'--tasks {rel} cut at {frac}')
                if code == 0 and frac == 0.55:
                    failures.append(f'{rel} cut at {frac}: no error')
        # a sample in the middle whose call chain runs past its record's end
        src = os.path.join(SRC, 'tests', 'data', 'sched-block-irq-sock.data')
        data = bytearray(open(src, 'rb').read())
        dump = subprocess.run([DUMP, '--unordered', '--format=jsonl', src], capture_output=True, text=True,
                              timeout=120).stdout.splitlines()
        samples = [json.loads(line)['offset'] for line in dump if '"event":"PERF_RECORD' not in line]
        patched = None
        for off in samples[len(samples) // 2:]:
            rtype, _, size = struct.unpack_from('<IHH', data, off)
            words = [struct.unpack_from('<Q', data, off + at)[0] for at in range(8, size - 7, 8)]
            # the chain's length: a small number followed by a PERF_CONTEXT_KERNEL or _USER marker
            for i in range(len(words) - 1):
                if rtype == 9 and 1 <= words[i] < 512 and words[i + 1] in (0xffffffffffffff80, 0xfffffffffffffe00):
                    struct.pack_into('<Q', data, off + 8 + 8 * i, 100000)
                    patched = off
                    break
            if patched is not None:
                break
        if patched is None:
            failures.append('no sample with a call chain to break in sched-block-irq-sock.data')
        else:
            bad = os.path.join(tmp, 'bad-chain.data')
            with open(bad, 'wb') as f:
                f.write(data)
            for args in ([SUMMARY, '--tasks', '--format=json', bad], [SUMMARY, '--categories', bad]):
                code, _, err = compare(args, f'{args[1]} with a broken call chain at {patched}')
                if code == 0 or b'CALLCHAIN runs past' not in err:
                    failures.append(f'{args[1]} with a broken call chain: exit {code}, {err[:200]!r}')
    print(f'{len(fixtures)} fixtures, {nonempty} models compared')
    for f in failures:
        print('FAIL', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
