#!/usr/bin/env python3
"""The whole model (stacks, links, sleep ends, disk and network) on damaged recordings: random byte and bit flips
in the data of real fixtures (tracepoint payloads: absurd sectors, socket addresses, pids, callchains) and cuts.
model-json must end with status 0 or 1, never by a signal or a sanitizer report (run from the ASan build directory
to have one: RSP_BUILD_ROOT). Fixed seed; RSP_MODEL_BADINPUT_CASES cases (default 60).
"""
import os
import random
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
MODEL_JSON = os.path.join(BUILD, 'tests', 'model', 'model-json')
FIXTURES = ['tests/data/sched-block-irq-sock.data', 'tests/model/data/links-tcp.data',
            'tests/model/data/links-coldread.data']
CASES = int(os.environ.get('RSP_MODEL_BADINPUT_CASES', '60'))


def main():
    if not os.access(MODEL_JSON, os.X_OK):
        return 77
    env = dict(os.environ)
    env['ASAN_OPTIONS'] = ':'.join(filter(None, [env.get('ASAN_OPTIONS'), 'exitcode=86']))
    env['UBSAN_OPTIONS'] = ':'.join(filter(None, [env.get('UBSAN_OPTIONS'), 'print_stacktrace=1',
                                                   'halt_on_error=1']))
    rng = random.Random(20261123)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for rel in FIXTURES:
            data = open(os.path.join(SRC, rel), 'rb').read()
            for case in range(CASES):
                b = bytearray(data)
                start = 4096 if len(b) > 8192 else 0
                kind = case % 3
                if kind == 0:
                    for _ in range(rng.randint(1, 20)):
                        i = rng.randrange(start, len(b))
                        b[i] ^= 1 << rng.randrange(8)
                elif kind == 1:
                    for _ in range(rng.randint(1, 8)):
                        i = rng.randrange(start, len(b) - 8)
                        b[i:i + 8] = rng.randbytes(8)
                else:
                    b = b[:rng.randrange(start, len(b))]
                path = os.path.join(tmp, 'case.data')
                open(path, 'wb').write(bytes(b))
                args = [MODEL_JSON, path] + (['--no-stacks'] if case % 2 else [])
                p = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, timeout=120)
                err = p.stderr.decode(errors='replace')
                if p.returncode not in (0, 1) or 'Sanitizer' in err or 'runtime error' in err:
                    bad += 1
                    keep = os.path.join(tempfile.gettempdir(), f'model-badinput-{os.path.basename(rel)}-{case}')
                    open(keep, 'wb').write(bytes(b))
                    print(f'{rel} case {case}: status {p.returncode}, kept {keep}\n{err[-2000:]}')
    print(f'{len(FIXTURES) * CASES} damaged files, {bad} failures')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
