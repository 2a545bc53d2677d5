#!/usr/bin/env python3
"""src/export's JSON writer (json-writer.c) against Python's json module, an independent reader: every string,
whatever its bytes (quotes, backslashes, each control character, DEL, NUL, valid UTF-8 up to non-BMP characters,
and invalid UTF-8: stray continuation bytes, truncated, overlong and surrogate sequences, past U+10FFFF), must
come back as its valid UTF-8 characters with each byte that is not UTF-8 read as U+00XX (the writer's \\u00XX);
the output must be strict UTF-8 with no raw control character; the commas of nested objects and arrays must
parse to the structure written; FILE and GString output must be the same bytes. TEST_JSON_WRITER: the driver."""
import json
import os
import subprocess
import sys

DRIVER = os.environ.get('TEST_JSON_WRITER') or os.path.join(
    os.environ.get('RSP_BUILD_ROOT', 'build'), 'tests', 'export', 'test-json-writer')

STRINGS = [
    b'', b'plain ascii', b'"', b'\\', b'a"b\\c"', b'/ stays',
    bytes(range(0x00, 0x20)) + b'\x7f', b'line\nbreak\ttab\rreturn\x08\x0c',
    b'caf\xc3\xa9', b'\xe2\x82\xac uro', b'\xef\xbf\xbf', b'\xf0\x9f\x98\x80 grin', b'\xf4\x8f\xbf\xbf max',
    b'\xff', b'\xfe\xff', b'\xc3', b'\xc3(', b'\x80', b'\xbf\x80', b'\xc0\x80', b'\xc1\xbf', b'\xe0\x80\x80',
    b'\xed\xa0\x80', b'\xed\xbf\xbf', b'\xf4\x90\x80\x80', b'\xf8\x88\x80\x80\x80', b'\xe2\x82', b'\xf0\x9f\x98',
    b'NUL\x00inside', b'mixed \xf0\x9f\x98\x80\xff\n\t\x7f\xc3\xa9\xe2\x82\x00end',
]


def expected(b):
    """What a JSON reader must get back: valid UTF-8 as its characters, any other byte as U+00XX."""
    s = b.decode('utf-8', 'surrogateescape')
    return ''.join(chr(ord(c) - 0xdc00) if 0xdc80 <= ord(c) <= 0xdcff else c for c in s)


def main():
    if not os.path.exists(DRIVER):
        print(f'{DRIVER} missing: skipped')
        return 77
    out = subprocess.run([DRIVER] + [b.hex() for b in STRINGS], capture_output=True, check=True).stdout
    lines = out.split(b'\n')
    assert lines[-1] == b'' and len(lines) == 5, lines
    failures = []
    docs = {}
    for line in lines[:-1]:
        sink, _, doc = line.partition(b' ')
        spaced = doc.startswith(b'{"strings": [')
        mode = 'spaced' if spaced else 'plain'
        if not spaced and not doc.startswith(b'{"strings":['):
            failures.append(f'{sink} {mode}: starts {doc[:20]!r}')
        if any(c < 0x20 or c == 0x7f for c in doc):  # JSON allows a raw DEL; the writer escapes it all the same
            failures.append(f'{sink} {mode}: a raw control character or DEL')
        try:
            text = doc.decode('utf-8')  # strict: JSON must be UTF-8
            v = json.loads(text)
        except ValueError as e:
            failures.append(f'{sink} {mode}: not JSON: {e}')
            continue
        docs.setdefault(mode, []).append(doc)
        got = v['strings']
        if len(got) != len(STRINGS):
            failures.append(f'{sink} {mode}: {len(got)} strings for {len(STRINGS)}')
        for b, g in zip(STRINGS, got):
            if g != expected(b):
                failures.append(f'{sink} {mode}: {b!r} read back as {g!r}, not {expected(b)!r}')
        keys = {expected(b): i for i, b in enumerate(STRINGS) if b'\x00' not in b}
        if v['keys'] != keys:
            failures.append(f'{sink} {mode}: keys {v["keys"]!r}')
        if v['numbers'] != [0, 2**64 - 1, -2**63, -1, 1.5, -0.125, None, None]:
            failures.append(f'{sink} {mode}: numbers {v["numbers"]!r}')
        nested = {'empty_array': [], 'empty_object': {}, 'matrix': [[1, 2], [], [{'x': 3}]], 'yes': True,
                  'no': False, 'none': None, 'absent': None, 'raw': ['as it is']}
        if v['nested'] != nested:
            failures.append(f'{sink} {mode}: nested {v["nested"]!r}')
        # the escapes themselves: newline and tab short in the tools' flavour, \u00XX in the exports'
        short = b'"line\\nbreak\\ttab\\u000dreturn\\u0008\\u000c"'
        long_ = b'"line\\u000abreak\\u0009tab\\u000dreturn\\u0008\\u000c"'
        if (short if spaced else long_) not in doc:
            failures.append(f'{sink} {mode}: newline/tab escapes')
        if b'"1.500000' not in doc.replace(b' ', b'') and b'1.500000' not in doc:
            failures.append(f'{sink} {mode}: 1.5 not written with 6 decimals')
        if spaced and b'"matrix": [[1, 2], [], [{"x": 3}]]' not in doc:
            failures.append(f'{sink} {mode}: spaced layout')
        if not spaced and b'"matrix":[[1,2],[],[{"x":3}]]' not in doc:
            failures.append(f'{sink} {mode}: compact layout')
    for mode, d in docs.items():
        if len(d) != 2 or d[0] != d[1]:
            failures.append(f'{mode}: FILE and GString output differ')
    for f in failures:
        print('FAIL', f)
    print(f'{len(STRINGS)} strings, {len(lines) - 1} documents: {"ok" if not failures else "FAILED"}')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
