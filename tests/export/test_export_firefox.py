#!/usr/bin/env python3
"""rsp-export --to firefox (issue 19): the Gecko profile `perf script report gecko` writes, with rsp's markers, on
the make sample, curl against nginx and the chain:
- structure the Firefox Profiler's Gecko importer relies on: meta (version, categories, markerSchema), per thread
  samples/markers/frameTable/stackTable with their schemas, every stack index valid and every prefix an earlier
  stack, every frame's location a string of the thread's table and its category one of meta's, sample times in
  order, every marker an interval of a known marker type;
- each thread's samples are exactly the cpu-clock samples perf script prints for that tid (the oracle), for every
  thread of the processes on the paths;
- each thread's sleep markers add up to the sleep time rsp-summary --tasks gives that tid, and count, by their
  cause, as its sleep_ends; a thread with sleeps ended by a disk request has at least as many disk markers;
- the Firefox Profiler's own importer (unserializeProfileOfArbitraryFormat: the Gecko upgraders and processing its
  "Load a profile from file" runs) loads it with the same threads, samples and markers: the profiler is neither in
  Debian nor on npm, so RSP_FIREFOX_IMPORTER names the node script firefox-importer.sh builds from a checkout of
  it (skipped with a reason when unset);
- where Debian's perf has `perf script report gecko` (not 6.1), its threads and sample counts are compared too."""
import collections
import json
import os
import shutil
import subprocess
import tempfile

import exportlib as X


def structure(doc, name):
    meta = doc.get('meta', {})
    ncat = len(meta.get('categories', []))
    schemas = {s['name'] for s in meta.get('markerSchema', [])}
    X.check(meta.get('version') == 24 and ncat >= 2 and {'rsp-sleep', 'rsp-disk', 'rsp-network'} <= schemas
            and isinstance(doc.get('threads'), list),
            f'{name}: meta: version {meta.get("version")}, {ncat} categories, marker types {sorted(schemas)}')
    errors = []
    for t in doc['threads']:
        where = f'{t.get("name")} {t.get("tid")}'
        strings = t['stringTable']
        if t['samples']['schema'] != {'stack': 0, 'time': 1, 'responsiveness': 2} or \
           t['stackTable']['schema'] != {'prefix': 0, 'frame': 1} or \
           t['frameTable']['schema'].get('location') != 0 or t['frameTable']['schema'].get('category') != 7 or \
           t['markers']['schema'] != {'name': 0, 'startTime': 1, 'endTime': 2, 'phase': 3, 'category': 4,
                                      'data': 5}:
            errors.append(f'{where}: schemas')
        frames, stacks = t['frameTable']['data'], t['stackTable']['data']
        for i, f in enumerate(frames):
            if not 0 <= f[0] < len(strings) or not 0 <= f[7] < ncat:
                errors.append(f'{where}: frame {i} {f}')
        for i, (prefix, fr) in enumerate(stacks):
            if not 0 <= fr < len(frames) or not (prefix is None or 0 <= prefix < i):
                errors.append(f'{where}: stack {i} ({prefix}, {fr})')
        last = None
        for st, time, _ in t['samples']['data']:
            if not 0 <= st < len(stacks) or (last is not None and time < last):
                errors.append(f'{where}: sample ({st}, {time})')
            last = time
        for mk in t['markers']['data']:
            nm, start, end, phase, cat, data = mk
            if not 0 <= nm < len(strings) or phase != 1 or not 0 <= start <= end or not 0 <= cat < ncat or \
               data.get('type') not in schemas:
                errors.append(f'{where}: marker {mk}')
    X.check(not errors, f'{name}: {len(doc["threads"])} threads: stacks, frames, samples and markers valid '
            f'{errors[:2]}')


def perf_gecko(path, tmp):
    """perf script report gecko's threads -> samples, or None when this perf has no such script."""
    p = subprocess.run([X.oracle.perf_path(), 'script', '-l'], capture_output=True, text=True)
    if 'gecko' not in p.stdout:
        return None
    out = os.path.join(tmp, 'perf-gecko.json')
    p = subprocess.run([X.oracle.perf_path(), 'script', 'report', 'gecko', '--save-only', out, '-i', path],
                       capture_output=True, text=True, env=X.oracle.perf_env(), cwd=tmp)
    if p.returncode != 0 or not os.path.exists(out):
        return None
    with open(out) as f:
        return {t['tid']: len(t['samples']['data']) for t in json.load(f)['threads']}


def main():
    tmp = tempfile.TemporaryDirectory(prefix='rsp-firefox-')
    gecko_note = importer_note = False
    for rel in X.FILES:
        path = X.path_of(rel)
        name = os.path.basename(path)
        out = os.path.join(tmp.name, name + '.gecko.json')
        if not X.export(path, 'firefox', out):
            continue
        with open(out) as f:
            doc = json.load(f)
        structure(doc, name)
        cats = X.categories(path)
        pids = {pr['pid'] for pr in cats['processes']}
        _, per_tid = X.perf_cpu_clock(path)
        tasks = X.summary(path, '--tasks')
        tids = {t['tid'] for t in tasks if t['pid'] in pids}

        got = {t['tid']: len(t['samples']['data']) for t in doc['threads'] if t['samples']['data']}
        want = {tid: n for tid, n in per_tid.items() if tid in tids}
        X.check(got == want, f'{name}: samples of {len(got)} threads, {sum(got.values())} in all; perf script '
                f'{sum(want.values())} in {len(want)} (differ: '
                f'{ {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)} })')
        X.check({t['pid'] for t in doc['threads']} == pids, f'{name}: the threads are of the paths\' processes')

        sleep_ms, ends = collections.Counter(), collections.defaultdict(collections.Counter)
        for t in tasks:
            if t['pid'] in pids:
                sleep_ms[t['tid']] += t['sleep_ms']
                for k, v in t['sleep_ends'].items():
                    if v:
                        ends[t['tid']][k] += v
        bad_ms, bad_ends, bad_disk = [], [], []
        for t in doc['threads']:
            sleeps = [m for m in t['markers']['data'] if m[5]['type'] == 'rsp-sleep']
            ms = sum(m[2] - m[1] for m in sleeps)
            if abs(ms - sleep_ms[t['tid']]) > 0.001 * len(sleeps) + 0.001:
                bad_ms.append((t['tid'], round(ms, 3), sleep_ms[t['tid']]))
            by_cause = collections.Counter(m[5]['endCause'] for m in sleeps)
            if by_cause != ends[t['tid']]:
                bad_ends.append((t['tid'], dict(by_cause), dict(ends[t['tid']])))
            disks = sum(1 for m in t['markers']['data'] if m[5]['type'] == 'rsp-disk')
            if disks < by_cause['disk']:
                bad_disk.append((t['tid'], disks, by_cause['disk']))
        total = sum(m[2] - m[1] for t in doc['threads'] for m in t['markers']['data'] if m[5]['type'] == 'rsp-sleep')
        X.check(not bad_ms, f'{name}: sleep markers {total:.3f} ms, per thread as rsp-summary --tasks\' sleep time '
                f'{sum(sleep_ms.values()):.3f} ms {bad_ms[:3]}')
        X.check(not bad_ends, f'{name}: sleep markers by cause as --tasks\' sleep_ends {bad_ends[:2]}')
        X.check(not bad_disk, f'{name}: a disk marker for each sleep a disk request ended {bad_disk[:2]}')

        importer = os.environ.get('RSP_FIREFOX_IMPORTER')
        if importer and shutil.which('node'):
            p = subprocess.run(['node', importer, out], capture_output=True, text=True, timeout=300)
            r = json.loads(p.stdout or '{"error": "no output"}')
            if X.check('error' not in r, f'{name}: the Firefox Profiler\'s importer loads it (version '
                       f'{r.get("meta", {}).get("version")}; {r.get("error", "")[:200]})'):
                theirs = sorted((t['tid'], t['samples'], t['markers']) for t in r['threads'])
                mine = sorted((t['tid'], len(t['samples']['data']), len(t['markers']['data'])) for t in doc['threads'])
                X.check(theirs == mine, f'{name}: the profiler has the same {len(mine)} threads, samples and markers')
        elif not importer_note:
            print('SKIP Firefox Profiler importer: RSP_FIREFOX_IMPORTER not set (tests/export/firefox-importer.sh '
                  'builds it from a checkout of github.com/firefox-devtools/profiler)' if not importer else
                  'SKIP Firefox Profiler importer: node not installed')
            importer_note = True

        gecko = perf_gecko(path, tmp.name)
        if gecko is None:
            if not gecko_note:
                print('note: this perf has no `perf script report gecko` (added after 6.1): not compared')
                gecko_note = True
        else:
            mine = {tid: n for tid, n in got.items()}
            theirs = {tid: n for tid, n in gecko.items() if tid in tids}
            X.check(mine == theirs, f'{name}: as perf script report gecko\'s threads and samples')
    X.check_errors('firefox')
    X.finish()


main()
