#!/usr/bin/env python3
"""rsp-export --to speedscope (issue 19) on the make sample, curl against nginx and the chain:
- speedscope's own importer loads it (the speedscope npm package's bundle run headless in node by
  speedscope-import.js; the package from RSP_SPEEDSCOPE_DIR, else `npm install speedscope` into a temporary
  directory; skipped with a reason when node, npm or the registry is not there): every profile imports, each
  evented profile's non-idle time is the time its events cover, each sampled profile's weight its samples, and a
  file with a frame closed out of order is refused;
- the file validates against speedscope's own schema (file-format-schema.json of the speedscope npm package,
  copied beside this test; skipped with a reason when python's jsonschema is missing), and obeys what speedscope's
  evented importer requires ("Tried to leave frame X while frame Y was at the top"): each close matches the top
  of the stack, times never go back, every stack is closed at the end, frame indexes are valid;
- the sampled profiles hold, per process, exactly the cpu-clock samples perf script prints for it (the oracle),
  for every process on the paths (rsp-summary --categories' processes);
- the evented profiles' time in layers rooted at their own thread (the paths' base level) adds up to the
  categories' total over the same paths (rsp-summary --categories), within 1%;
- on the chain, a worker's stack stands on the server's, which stands on the client's."""
import copy
import json
import os
import shutil
import subprocess
import tempfile

import exportlib as X

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, 'speedscope-file-format-schema.json')


def validate_schema(doc, name):
    try:
        import jsonschema
    except ImportError:
        print(f'SKIP {name}: schema check: python3 has no jsonschema module')
        return
    with open(SCHEMA) as f:
        schema = json.load(f)
    try:
        jsonschema.validate(doc, schema)
        X.check(True, f'{name}: valid against speedscope\'s file-format-schema.json')
    except jsonschema.ValidationError as e:
        X.check(False, f'{name}: schema: {e.message[:200]} at {list(e.absolute_path)[:6]}')


def speedscope_package(tmp):
    """The speedscope npm package's directory, or None (with the reason printed)."""
    given = os.environ.get('RSP_SPEEDSCOPE_DIR')
    if given:
        return given
    if not shutil.which('node') or not shutil.which('npm'):
        print('SKIP speedscope importer: node or npm not installed')
        return None
    try:
        p = subprocess.run(['npm', 'install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', tmp, 'speedscope'],
                           capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        print('SKIP speedscope importer: npm install speedscope timed out')
        return None
    pkg = os.path.join(tmp, 'node_modules', 'speedscope')
    if p.returncode != 0 or not os.path.isdir(pkg):
        why = [l for l in (p.stderr + p.stdout).splitlines() if l.strip()]
        print(f'SKIP speedscope importer: npm install speedscope failed (exit {p.returncode}): '
              f'{" / ".join(why[:2]) or "no message"}')
        return None
    return pkg


def import_with_speedscope(pkg, files):
    """speedscope's importer's view of FILES: {file: result}, or None when it could not run (reason printed)."""
    p = subprocess.run(['node', os.path.join(HERE, 'speedscope-import.js'), pkg, *files], capture_output=True,
                       text=True, timeout=300)
    if p.returncode == 77:
        print(f'SKIP speedscope importer: {p.stdout.strip()}')
        return None
    if not X.check(p.returncode == 0, f'speedscope-import.js ran (exit {p.returncode}; {p.stderr.strip()[-300:]})'):
        return None
    return {r['file']: r for r in map(json.loads, p.stdout.splitlines())}


def evented(profile, frames, name):
    """Replays the events as speedscope's importer does; returns [(start, end, stack)] of the leaf segments."""
    stack, last, segs, errors = [], None, [], []
    for ev in profile['events']:
        at, fr = ev['at'], ev['frame']
        if not 0 <= fr < len(frames):
            errors.append(f'frame {fr} out of range')
            break
        if last is not None and at < last:
            errors.append(f'time goes back at {at}')
            break
        if not profile['startValue'] <= at <= profile['endValue']:
            errors.append(f'at {at} outside [{profile["startValue"]}, {profile["endValue"]}]')
            break
        if stack and last is not None and at > last:
            segs.append((last, at, tuple(stack)))
        if ev['type'] == 'O':
            stack.append(fr)
        elif not stack or stack[-1] != fr:
            errors.append(f'tried to leave frame {fr} while {stack[-1] if stack else None} was at the top')
            break
        else:
            stack.pop()
        last = at
    if stack and not errors:
        errors.append(f'{len(stack)} frames left open')
    X.check(not errors, f'{name}: {profile["name"]}: {len(profile["events"])} events replay cleanly {errors[:1]}')
    return segs


def main():
    tmp = tempfile.TemporaryDirectory(prefix='rsp-speedscope-')
    covered = {}  # file -> {profile name: ns its events cover, or its samples}
    for rel in X.FILES:
        path = X.path_of(rel)
        name = os.path.basename(path)
        out = os.path.join(tmp.name, name + '.speedscope.json')
        if not X.export(path, 'speedscope', out):
            continue
        with open(out) as f:
            doc = json.load(f)
        validate_schema(doc, name)
        frames = doc['shared']['frames']
        cats = X.categories(path)
        pids = {pr['pid'] for pr in cats['processes']}
        per_pid, _ = X.perf_cpu_clock(path)

        # sampled: per process, as perf script
        got = {}
        for p in doc['profiles']:
            if p['type'] != 'sampled':
                continue
            pid = int(p['name'].split('(pid ')[1].split(')')[0])
            X.check(len(p['samples']) == len(p['weights']) and all(0 <= i < len(frames) for s in p['samples']
                                                                     for i in s),
                    f'{name}: {p["name"]}: samples and weights pair up, frame indexes valid')
            got[pid] = sum(p['weights'])
        want = {pid: n for pid, n in per_pid.items() if pid in pids}
        X.check(got == want, f'{name}: sampled profiles: {sum(got.values())} samples in {len(got)} processes, perf '
                f'script {sum(want.values())} in {len(want)} (differ: '
                f'{ {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)} })')

        # evented: the base level adds up to the categories' total
        process_frames = {i for i, f in enumerate(frames) if 'file' not in f and f['name'] not in
                          ('disk', 'network', '[no stack]')}
        base_ns, chained = 0, False
        covered[out] = {p['name']: sum(p['weights']) for p in doc['profiles'] if p['type'] == 'sampled'}
        for p in doc['profiles']:
            if p['type'] != 'evented':
                continue
            comm = p['name'].rsplit(' (pid ', 1)[0]
            covered[out][p['name']] = 0
            for start, end, stack in evented(p, frames, name):
                covered[out][p['name']] += end - start
                procs = [frames[i]['name'] for i in stack if i in process_frames]
                if procs == [comm]:
                    base_ns += end - start
                if procs[:3] == ['chain-client', 'chain-server', 'chain-worker']:
                    chained = True
        total_ms = cats['total_ms']
        X.check(abs(base_ns / 1e6 - total_ms) <= 0.01 * total_ms,
                f'{name}: evented base-level time {base_ns / 1e6:.3f} ms, categories\' total {total_ms:.3f} ms')
        if name == 'chain.data':
            X.check(chained, f'{name}: a chain-worker stack stands on chain-server\'s, on chain-client\'s')
            # the same file with one frame closed out of order, which speedscope must refuse
            bad = copy.deepcopy(doc)
            events = next(p for p in bad['profiles'] if p['type'] == 'evented' and len(p['events']) > 4)['events']
            i = next(k for k in range(len(events) - 1) if events[k]['type'] == 'O' and events[k + 1]['type'] == 'O')
            events.insert(i + 2, {'type': 'C', 'frame': events[i]['frame'], 'at': events[i + 1]['at']})
            with open(os.path.join(tmp.name, 'misnested.json'), 'w') as f:
                json.dump(bad, f)

    pkg = speedscope_package(os.path.join(tmp.name, 'npm'))
    results = import_with_speedscope(pkg, list(covered) + [os.path.join(tmp.name, 'misnested.json')]) if pkg else None
    for out, want in covered.items() if results else ():
        r = results.get(out, {'error': 'no result'})
        name = os.path.basename(out)
        if not X.check('error' not in r, f'{name}: speedscope\'s importer loads it ({r.get("error")})'):
            continue
        got = {p['name']: p['nonIdle'] for p in r['profiles']}
        X.check(got == want, f'{name}: speedscope imports {len(got)} profiles, each with the time its events cover '
                f'(the samples of a sampled one) (differ: {[k for k in set(got) | set(want) if got.get(k) != want.get(k)][:3]})')
    if results:
        r = results.get(os.path.join(tmp.name, 'misnested.json'), {})
        X.check('error' in r, f'a frame closed out of order: speedscope refuses it ({r.get("error", "")[:100]})')
    X.check_errors('speedscope')
    X.finish()


main()
