#!/usr/bin/env python3
"""rsp-diff --flame-out on real recordings (tests/profiles/data/, recorded by record.sh with rsp-record):
base.data is profsleep sleeping 600 us x 200, added-5ms.data the same plus 40 sleeps of 5 ms. The truth:
B's process of interest slept at least 40 x 5 ms = 200 ms more, all of it in clock_nanosleep (profsleep
calls nothing else that sleeps), and nothing else changed much.

- base vs added-5ms --flame-out out.svg exits 0; its printed table has the clock_nanosleep frame grown by
  200 ms to 200 ms + 40 x 2 ms of timer slack and wakeup latency; when perf is installed, also by what
  profsleep's sleeps grew in perf script's switch records (within 2%);
- the SVG parses as XML; its bottom row (the process, depth 0) and the clock_nanosleep row (depth 2) each
  hold a red ("grew") frame nearly as wide as the drawing (profsleep's sleeps are nearly all of its time);
- base vs base: nothing changed, so no frame is red or blue and the table says "(none)";
- --flame-out out.png writes a PNG of the SVG's size;
- an unwritable --flame-out, a name that is not .svg/.png and a --pid-a with no process fail with a clear
  message (naming the file or pid) and a non-zero exit.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
DIFF = os.environ.get('RSP_DIFF', os.path.join(BUILD, 'src', 'tools', 'rsp-diff'))
DATA = os.path.join(SRC, 'tests', 'profiles', 'data')
A, B = os.path.join(DATA, 'base.data'), os.path.join(DATA, 'added-5ms.data')
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL:', msg)


def run(*args):
    return subprocess.run([DIFF, *args], capture_output=True, text=True)


def table(stdout):
    """The printed frames: {path: (a_ms, b_ms, delta_ms)}."""
    rows = {}
    part = stdout.split('differential consolidated flame graph', 1)
    for line in (part[1] if len(part) > 1 else '').splitlines():
        m = re.match(r'^\s+([\d.]+)\s+([\d.]+)\s+([+-][\d.]+)\s+(\S.*)$', line)
        if m:
            rows[m[4]] = (float(m[1]), float(m[2]), float(m[3]))
    return rows


RGB = re.compile(r'fill:\s*rgb\(([\d.]+)%,\s*([\d.]+)%,\s*([\d.]+)%\)')
RECT = re.compile(r'^M ([\d.]+) ([\d.]+) L ([\d.]+) ([\d.]+) L ([\d.]+) ([\d.]+) L ([\d.]+) ([\d.]+) Z')


def frames(svg_path):
    """Filled axis-aligned rectangles of the SVG (cairo writes a fill as a path): [(x0, y0, x1, y1, rgb)]."""
    root = ET.parse(svg_path).getroot()
    width = float(root.get('viewBox').split()[2])
    out = []
    for el in root.iter('{http://www.w3.org/2000/svg}path'):
        m, r = RGB.search(el.get('style', '')), RECT.match(el.get('d', ''))
        if not m or not r:
            continue
        xs, ys = [float(r[i]) for i in (1, 3, 5, 7)], [float(r[i]) for i in (2, 4, 6, 8)]
        rgb = tuple(float(m[i]) / 100 for i in (1, 2, 3))
        out.append((min(xs), min(ys), max(xs), max(ys), rgb))
    return width, out


def reddish(c):
    return c[0] > c[1] + 0.15 and c[0] > c[2] + 0.15


def bluish(c):
    return c[2] > c[0] + 0.15 and c[2] > c[1] + 0.1


def perf_growth():
    """What profsleep's sleeps grew from A to B in perf's own switch records, ns (None without perf)."""
    if not shutil.which('perf'):
        return None
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import test_profiles_oracle as oracle
    sa, _, _ = oracle.switch_intervals(A)
    sb, _, _ = oracle.switch_intervals(B)
    return sum(max(sb.values(), key=len)) - sum(max(sa.values(), key=len))


def main():
    tmp = tempfile.mkdtemp(prefix='rsp-diff-flame-')
    try:
        svg = os.path.join(tmp, 'out.svg')
        out = run(A, B, '--flame-out', svg)
        check(out.returncode == 0, f'rsp-diff --flame-out: exit {out.returncode}: {out.stderr}')
        rows = table(out.stdout)
        sleep = [(p, v) for p, v in rows.items() if re.search(r'(^|;)clock_nanosleep[^;]*$', p)]
        check(len(sleep) == 1, f'no single clock_nanosleep frame in the table: {list(rows)[:5]}')
        if sleep:
            path, (a_ms, b_ms, d_ms) = sleep[0]
            print(f'{path}: A {a_ms} ms, B {b_ms} ms, delta {d_ms:+} ms')
            check(path.startswith('profsleep;'), f'{path} is not on profsleep')
            check(200 <= d_ms <= 280, f'clock_nanosleep grew by {d_ms} ms, not 200-280')
            grow = perf_growth()
            if grow is not None:
                print(f'perf script: profsleep slept {grow / 1e6:.3f} ms more')
                check(abs(d_ms * 1e6 - grow) <= 0.02 * grow, f'delta {d_ms} ms vs perf script {grow / 1e6:.3f} ms')
        proc = rows.get('profsleep')
        check(proc is not None and 200 <= proc[2] <= 280, f'profsleep frame: {proc}')

        width, rects = frames(svg)
        red = [f for f in rects if reddish(f[4])]
        check(len(red) >= 3, f'{len(red)} red frames in the SVG')
        # rows of frames: the bottom one (largest y) is depth 0; row pitch from the frames' own tops
        tops = sorted({round(f[1]) for f in rects if f[2] - f[0] > 0 and round(f[3] - f[1]) == 12}, reverse=True)
        check(len(tops) >= 3, f'frame rows: {tops}')
        if len(tops) >= 3:
            pitch = tops[0] - tops[1]
            for depth, what in ((0, 'profsleep'), (2, 'clock_nanosleep')):
                y = tops[0] - depth * pitch
                wide = [f for f in red if round(f[1]) == y and f[2] - f[0] >= 0.9 * width]
                check(bool(wide), f'no red frame of {what} (depth {depth}, y {y}) across the drawing')

        same = os.path.join(tmp, 'same.svg')
        out = run(A, A, '--flame-out', same)
        check(out.returncode == 0, f'A vs A: exit {out.returncode}')
        check('(none)' in out.stdout, 'A vs A: some frame printed as changed')
        _, rects = frames(same)
        check(len(rects) >= 3 and not any(reddish(f[4]) or bluish(f[4]) for f in rects),
              'A vs A: a red or blue frame')

        png = os.path.join(tmp, 'out.png')
        out = run(A, B, '--flame-out', png)
        check(out.returncode == 0, f'--flame-out out.png: exit {out.returncode}')
        with open(png, 'rb') as f:
            head = f.read(24)
        check(head[:8] == b'\x89PNG\r\n\x1a\n', 'out.png is not a PNG')
        check(int.from_bytes(head[16:20], 'big') == round(width), 'PNG width differs from the SVG')

        bad = os.path.join(tmp, 'no-such-dir', 'out.svg')
        out = run(A, B, '--flame-out', bad)
        check(out.returncode != 0 and bad in out.stderr and 'cannot write' in out.stderr,
              f'unwritable path: exit {out.returncode}, {out.stderr!r}')
        out = run(A, B, '--flame-out', os.path.join(tmp, 'out.txt'))
        check(out.returncode != 0 and 'out.txt' in out.stderr, f'.txt accepted: {out.returncode}')
        check(not os.path.exists(os.path.join(tmp, 'out.txt')), '.txt: a file was left')
        nopid = os.path.join(tmp, 'nopid.svg')
        out = run(A, B, '--flame-out', nopid, '--pid-a', '999999')
        check(out.returncode == 1 and '999999' in out.stderr and 'base.data' in out.stderr,
              f'--pid-a 999999: exit {out.returncode}, {out.stderr!r}')
        check(not os.path.exists(nopid), '--pid-a 999999: an empty file was left')
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f'{len(failures)} failures')
        return 1
    print('rsp-diff --flame-out: all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
