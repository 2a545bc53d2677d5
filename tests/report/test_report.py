#!/usr/bin/env python3
"""rsp-report (issue 19): one self-contained HTML file, checked part by part against the tools that print the same
analysis, on data/sample.perf.data, tests/model/data/wl-nginx.data and the chain (tests/analysis/data/chain):
- nothing external: no src= at all, href= only to the page's own fragments, no <link>, no url()/@import in the style,
  and a Content-Security-Policy that forbids fetching;
- the explanation's sentences are rsp-summary --explain's (JSON list and text line);
- the categories table's numbers are rsp-summary --categories --format=json's (to the microsecond);
- the consolidated flame view's SVG: each frame's <text> and the names of the top stacks of rsp-export --to folded
  (consolidated), each frame's path a folded stack's prefix, its width proportional to the folded values (within 1 px:
  a stack's own time at most its width, its width at most its subtree's total);
- the flame and running views and the histograms are SVG with <text> (the process, the profiles' classes in
  rsp-summary --profiles' order), the loss notes the model's warnings, the loss check rsp-summary's lines;
- in headless Chromium (when installed; skipped with a reason otherwise) the page renders to a screenshot that is not
  blank."""
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
REPORT = os.environ.get('RSP_REPORT', os.path.join(BUILD, 'src', 'tools', 'rsp-report'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
EXPORT = os.environ.get('RSP_EXPORT', os.path.join(BUILD, 'src', 'tools', 'rsp-export'))

failures = []


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)
    return cond


class Page(html.parser.HTMLParser):
    """The report's parts: every tag's attributes, the explanation's sentences, the categories' rows, each SVG's frames
    and texts, the histograms' titles, the loss notes, the style text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []          # open elements: (tag, attrs)
        self.attrs = []          # (tag, attrs) of every element
        self.sentences = []
        self.rows = {}           # data-key -> (attrs, [cell texts])
        self.svgs = {}           # id -> {'attrs', 'frames': [...], 'texts': [...]}
        self.hist_titles = []
        self.notes = []
        self.loss_check = []
        self.style = ''
        self.file_line = ''      # the header's line under the title: the file, its duration, the command
        self.scripts = []
        self._text = None        # where the current text goes: a list to append to
        self._row = None
        self._svg = None
        self._frame = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.attrs.append((tag, a))
        if tag not in ('meta', 'input', 'br', 'img', 'link'):  # HTML's void elements; SVG's close
            self.stack.append((tag, a))
        cls = a.get('class', '').split()
        if tag == 'span' and 'sentence' in cls:
            self.sentences.append('')
            self._text = ('sentence', len(self.sentences) - 1)
        elif tag == 'tr' and 'data-key' in a:
            self._row = a['data-key']
            self.rows[self._row] = (a, [])
        elif tag == 'td' and self._row:
            self.rows[self._row][1].append('')
            self._text = ('td', self._row)
        elif tag == 'svg' and 'id' in a:
            self._svg = {'attrs': a, 'frames': [], 'texts': []}
            self.svgs[a['id']] = self._svg
        elif tag == 'g' and 'f' in cls and self._svg is not None:
            self._frame = {'attrs': a, 'texts': [], 'width': None}
            self._svg['frames'].append(self._frame)
        elif tag == 'svg' and self._frame is not None and self._frame['width'] is None:
            self._frame['width'] = float(a['width'])
        elif tag == 'text' and self._svg is not None:
            self._svg['texts'].append('')
            self._text = ('svgtext', cls)
        elif tag == 'text' and 'htitle' in cls:
            self.hist_titles.append('')
            self._text = ('htitle', None)
        elif tag == 'li' and 'note' in cls:
            self.notes.append('')
            self._text = ('note', None)
        elif tag == 'li' and 'loss-check' in cls:
            self.loss_check.append('')
            self._text = ('loss-check', None)
        elif tag == 'style':
            self._text = ('style', None)
        elif tag == 'p' and 'file' in cls:
            self._text = ('file', None)
        elif tag == 'script':
            self.scripts.append(a)

    def handle_endtag(self, tag):
        while self.stack:
            t, a = self.stack.pop()
            if t == 'svg' and self._svg is not None and a is self._svg['attrs']:
                self._svg = None
            if t == 'g' and self._frame is not None and a is self._frame['attrs']:
                self._frame = None
            if t == tag:
                break
        if tag in ('span', 'td', 'text', 'li', 'style', 'p'):
            self._text = None
        if tag == 'tr':
            self._row = None

    def handle_data(self, data):
        if not self._text:
            return
        kind, key = self._text
        if kind == 'sentence':
            self.sentences[key] += data
        elif kind == 'td':
            self.rows[key][1][-1] += data
        elif kind == 'svgtext':
            self._svg['texts'][-1] += data
            if self._frame is not None:
                self._frame['texts'].append(data)
        elif kind == 'htitle':
            self.hist_titles[-1] += data
        elif kind == 'note':
            self.notes[-1] += data
        elif kind == 'loss-check':
            self.loss_check[-1] += data
        elif kind == 'style':
            self.style += data
        elif kind == 'file':
            self.file_line += data


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=240)
    return p


def folded_frame(name):
    """A label as rsp-export writes it in a folded stack."""
    name = name or '[unknown]'
    return re.sub(r'[ \n\t]', '_', name.replace(';', ':'))


def check_external(name, page):
    refs = [(t, k, v) for t, a in page.attrs for k, v in a.items() if k in ('src', 'href', 'xlink:href', 'action',
                                                                         'data', 'poster', 'srcset')]
    bad = [r for r in refs if not (r[1] == 'href' and r[2].startswith('#'))]
    ok(not bad, f'{name}: no external reference (src/href outside the page): {bad[:5]}')
    ok(not any(t in ('link', 'img', 'iframe', 'object', 'embed', 'image', 'use') for t, _ in page.attrs),
       f'{name}: no <link>, <img>, <iframe>, <image> or <use>')
    ok('url(' not in page.style and '@import' not in page.style, f'{name}: the style fetches nothing')
    ok(all('src' not in a for a in page.scripts), f'{name}: the script is inline')
    csp = [a.get('content', '') for t, a in page.attrs if t == 'meta' and
           a.get('http-equiv', '').lower() == 'content-security-policy']
    ok(csp and "default-src 'none'" in csp[0], f'{name}: a Content-Security-Policy forbids fetching ({csp})')


def check_explanation(name, page, data, pid):
    pj = run(SUMMARY, '--explain', '--format=json', '--pid', str(pid), data)
    pt = run(SUMMARY, '--explain', '--pid', str(pid), data)
    if not ok(pj.returncode == 0 and pt.returncode == 0, f'{name}: rsp-summary --explain ran'):
        return
    want = json.loads(pj.stdout)['explanation']['text']
    ok(page.sentences == want, f'{name}: the explanation is rsp-summary --explain\'s {len(want)} sentences '
       f'(report {len(page.sentences)})')
    lines = pt.stdout.split('\n')
    # text output: "Process of interest: ...", a blank line, the sentences on one line
    ok(len(lines) > 2 and lines[2] == ' '.join(page.sentences), f'{name}: and its text line')


def check_categories(name, page, cats):
    keys = {'total': cats['total_ms'], 'wall': cats['wall_ms'], 'guessed': cats['guessed_ms'],
            'accounted': cats['accounted_ms'], 'unaccounted': cats['unaccounted_ms']}
    keys.update(cats['categories'])
    ok(set(cats['categories']) <= set(page.rows), f'{name}: every category has a row '
       f'(missing {set(cats["categories"]) - set(page.rows)})')
    bad = []
    for key, want in keys.items():
        if key not in page.rows:
            bad.append((key, 'missing'))
            continue
        attrs, cells = page.rows[key]
        got = float(attrs['data-ms'])
        shown = cells[1].strip()
        if abs(got - want) > 1e-6 or shown != f'{want:.3f} ms':
            bad.append((key, got, shown, want))
    ok(not bad, f'{name}: {len(keys)} times equal rsp-summary --categories --format=json ({bad[:4]})')
    counts = {'n_processes': cats['n_processes'], 'paths': cats['paths']}
    bad = [(k, page.rows.get(k, ({}, []))[0].get('data-value'), v) for k, v in counts.items()
           if k not in page.rows or int(page.rows[k][0]['data-value']) != v or page.rows[k][1][1].strip() != str(v)]
    ok(not bad, f'{name}: processes and paths {counts} ({bad})')
    pa = page.rows.get('percent_accounted')
    ok(pa and abs(float(pa[0]['data-value']) - cats['percent_accounted']) < 0.0006,
       f'{name}: percent accounted {pa and pa[0].get("data-value")} vs {cats["percent_accounted"]}')
    ok(page.notes == cats['warnings'], f'{name}: the loss notes are the model\'s warnings ({len(cats["warnings"])})')


def check_loss_check(name, page, data):
    """rsp-record's count of what perf record dropped (FILE.meta), as rsp-summary --categories prints it."""
    p = run(SUMMARY, '--categories', data)
    want = [line[len('loss check: '):] for line in p.stdout.splitlines() if line.startswith('loss check: ')]
    got = page.loss_check
    same = len(got) == len(want) and all(g == w or (g.split(' (rsp-record')[0] == w.split('; see ')[0])
                                         for g, w in zip(got, want))
    ok(same, f'{name}: the loss check is rsp-summary\'s {len(want)} lines ({got[:1]} vs {want[:1]})')


def check_consolidated(name, page, data, pid):
    svg = page.svgs.get('consolidated-svg')
    if not ok(svg is not None and svg['frames'], f'{name}: a consolidated flame view SVG with frames'):
        return
    p = run(EXPORT, '--to', 'folded', '--pid', str(pid), data)
    if not ok(p.returncode == 0, f'{name}: rsp-export --to folded {p.stderr[-200:]}'):
        return
    folded = {}
    for line in p.stdout.splitlines():
        stack, value = line.rsplit(' ', 1)
        folded[tuple(stack.split(';'))] = int(value)
    total_us = int(svg['attrs']['data-total-ns']) / 1000
    plot_w = float(svg['attrs']['data-plot-width'])
    scale = plot_w / total_us if total_us else 0  # px per us
    frames = {}
    for f in svg['frames']:
        path = tuple(folded_frame(x) for x in f['attrs']['data-stack'].split(';'))
        frames[path] = frames.get(path, 0) + f['width']
        # the drawing agrees with its own numbers
        if abs(f['width'] - int(f['attrs']['data-ns']) / 1000 * scale) > 0.01:
            ok(False, f'{name}: frame {path[-1]} width {f["width"]} vs its data-ns')
            return
    texts = {folded_frame(t) for t in svg['texts']}
    total = sum(folded.values())
    top = sorted(folded.items(), key=lambda kv: -kv[1])[:5]
    top = [(s, v) for s, v in top if v >= 0.01 * total]
    missing = [(s, n) for s, v in top for n in s if n not in texts]
    ok(top and not missing, f'{name}: the top {len(top)} folded stacks\' processes and functions are <text> in the '
       f'SVG ({missing[:3]})')
    ok(all(s in frames for s, v in top), f'{name}: each top stack is a frame of the SVG')
    # widths: a stack's own time <= its frame's width <= its subtree's total (folded values of the stacks under it)
    prefix_total = {}
    for s, v in folded.items():
        for k in range(1, len(s) + 1):
            prefix_total[s[:k]] = prefix_total.get(s[:k], 0) + v
    extended = {s[:k] for s in folded for k in range(1, len(s))}
    bad, leaves = [], 0
    for s, v in folded.items():
        if s not in frames:
            if v * scale >= 1 and len(s) <= 160:  # a stack a pixel wide is drawn (unless deeper than the 160 rows)
                bad.append(('not drawn', s[-1], v))
            continue
        w = frames[s]
        if w < v * scale - 1 or w > prefix_total[s] * scale + 1:
            bad.append((s[-1], w, v * scale, prefix_total[s] * scale))
        if s not in extended:
            leaves += 1
            if abs(w - v * scale) > 1:
                bad.append(('leaf', s[-1], w, v * scale))
    ok(not bad, f'{name}: {len(folded)} folded stacks ({leaves} leaves) drawn at widths proportional to their values '
       f'within 1 px ({bad[:3]})')


def check_views(name, page, data, pid, comm):
    flame, running = page.svgs.get('flame-svg'), page.svgs.get('running-svg')
    ok(flame and flame['frames'] and any(comm in t for t in flame['texts']),
       f'{name}: a flame view SVG with frames and {comm} in its <text>')
    ok(running and any(t.startswith(comm + ' ') for t in running['texts']),
       f'{name}: a running view SVG with {comm}\'s threads named in <text>')
    p = run(SUMMARY, '--profiles', '--pid', str(pid), '--format=json', data)
    if ok(p.returncode == 0, f'{name}: rsp-summary --profiles'):
        want = [x['class'] for x in json.loads(p.stdout)][:6]
        ok(page.hist_titles == want, f'{name}: the histograms are the largest profiles {want} ({page.hist_titles})')


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit non-interlaced PNG."""
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:8] != b'\x89PNG\r\n\x1a\n':
        return None
    pos, idat, hdr = 8, b'', None
    while pos < len(raw):
        n, kind = struct.unpack('>I4s', raw[pos:pos + 8])
        body = raw[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            hdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    w, h, depth, color, _, _, interlace = hdr
    if depth != 8 or interlace:
        return None
    bpp = {2: 3, 6: 4, 0: 1, 4: 2}[color]
    data = zlib.decompress(idat)
    rows, prev, stride = [], bytearray(w * bpp), w * bpp
    for y in range(h):
        ft = data[y * (stride + 1)]
        line = bytearray(data[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def check_browser(name, report, tmp):
    browser = shutil.which('chromium') or shutil.which('chromium-browser')
    if not browser:
        print(f'skip {name}: the browser check: no chromium installed (apt-get install chromium)')
        return
    shot = os.path.join(tmp, name + '.png')
    try:
        p = subprocess.run([browser, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
                            f'--user-data-dir={os.path.join(tmp, "chromium-profile")}', f'--screenshot={shot}',
                            '--window-size=1400,2000', 'file://' + os.path.abspath(report)],
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        ok(False, f'{name}: chromium took more than 120 s')
        return
    if not ok(os.path.exists(shot) and os.path.getsize(shot) > 0, f'{name}: chromium wrote a screenshot '
              f'(exit {p.returncode}) {p.stderr[-300:] if not os.path.exists(shot) else ""}'):
        return
    px = png_pixels(shot)
    if not ok(px is not None, f'{name}: the screenshot is an 8-bit PNG'):
        return
    w, h, rows, bpp = px
    values = [sum(r[x * bpp:x * bpp + 3]) / 3 for r in rows[::7] for x in range(0, w, 7)]
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    ok(w == 1400 and h == 2000 and var > 100, f'{name}: the screenshot {w}x{h} is not blank (pixel variance '
       f'{var:.0f})')


def meta_command(data):
    """The workload's command rsp-record wrote in DATA.meta ([recording] command, a GKeyFile string), or None."""
    try:
        with open(data + '.meta', encoding='utf-8') as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    section = None
    for line in lines:
        if line.startswith('['):
            section = line.strip('[]')
        elif section == 'recording' and line.startswith('command='):
            v = line[len('command='):]
            return re.sub(r'\\(.)', lambda m: {'s': ' ', 'n': '\n', 't': '\t', 'r': '\r'}.get(m.group(1), m.group(1)), v)
    return None


def check_command(name, page, data):
    """The header names the recorded command: perf's command line, or rsp-record's (FILE.meta) when perf's has none
    (rsp-record starts the workload itself: its reports said no command at all)."""
    cmd = meta_command(data)
    if cmd:
        ok(f', command: {cmd}' in page.file_line, f'{name}: the header names the command of {data}.meta '
           f'({cmd!r} in {page.file_line!r})')


def check(name, data, tmp):
    report = os.path.join(tmp, name + '.html')
    p = run(REPORT, data, '-o', report)
    if not ok(p.returncode == 0 and os.path.exists(report), f'{name}: rsp-report exit {p.returncode} '
              f'{p.stderr[-300:]}'):
        return
    cj = run(SUMMARY, '--categories', '--format=json', data)
    if not ok(cj.returncode == 0, f'{name}: rsp-summary --categories --format=json'):
        return
    cats = json.loads(cj.stdout)
    pid = cats['pid']
    page = Page()
    with open(report, encoding='utf-8') as f:
        page.feed(f.read())
    page.close()
    comm = next((x['comm'] for x in cats['processes'] if x['pid'] == pid), '?')
    check_external(name, page)
    check_command(name, page, data)
    check_explanation(name, page, data, pid)
    check_categories(name, page, cats)
    check_loss_check(name, page, data)
    check_consolidated(name, page, data, pid)
    check_views(name, page, data, pid, comm)
    check_browser(name, report, tmp)
    return page


def main():
    fixture = '/tmp/rsp-chain-fixture/chain-client'  # where the chain was recorded from (record.sh): its symbols
    chain_dir = os.path.join(SRC, 'tests', 'analysis', 'data', 'chain')
    try:
        os.makedirs(os.path.dirname(fixture), exist_ok=True)
        shutil.copy(os.path.join(chain_dir, 'chain-client'), fixture)
    except OSError as e:
        print(f'note: cannot place the chain binary at {fixture}: {e}')
    with tempfile.TemporaryDirectory() as tmp:
        check('sample', os.path.join(SRC, 'data', 'sample.perf.data'), tmp)
        check('nginx', os.path.join(SRC, 'tests', 'model', 'data', 'wl-nginx.data'), tmp)
        page = check('chain', os.path.join(chain_dir, 'chain.data'), tmp)
        if page:
            texts = page.svgs.get('consolidated-svg', {}).get('texts', [])
            ok(all(n in texts for n in ('chain-client', 'chain-server', 'chain-worker', 'compute_digest')),
               'chain: the consolidated view names chain-client, chain-server, chain-worker and compute_digest')
        # errors: a missing -o, a pid that is not there
        p = run(REPORT, os.path.join(chain_dir, 'chain.data'))
        ok(p.returncode == 2 and '-o' in p.stderr, f'no -o: exit 2 saying so ({p.returncode} {p.stderr.strip()})')
        p = run(REPORT, '--pid', '999999', os.path.join(chain_dir, 'chain.data'), '-o', os.path.join(tmp, 'x.html'))
        ok(p.returncode == 1 and '999999' in p.stderr, f'no such pid: exit 1 naming it ({p.stderr.strip()})')
    if failures:
        print(f'{len(failures)} failures')
        sys.exit(1)


if __name__ == '__main__':
    main()
