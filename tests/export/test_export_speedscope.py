#!/usr/bin/env python3
"""rsp-export --to speedscope (issue 19) on the make sample, curl against nginx and the chain:
- the file validates against speedscope's own schema (file-format-schema.json of the speedscope npm package,
  copied beside this test; skipped with a reason when python's jsonschema is missing), and obeys what speedscope's
  evented importer requires ("Tried to leave frame X while frame Y was at the top"): each close matches the top
  of the stack, times never go back, every stack is closed at the end, frame indexes are valid;
- the sampled profiles hold, per process, exactly the cpu-clock samples perf script prints for it (the oracle),
  for every process on the paths (rsp-summary --categories' processes);
- the evented profiles' time in layers rooted at their own thread (the paths' base level) adds up to the
  categories' total over the same paths (rsp-summary --categories), within 1%;
- on the chain, a worker's stack stands on the server's, which stands on the client's."""
import json
import os
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
        for p in doc['profiles']:
            if p['type'] != 'evented':
                continue
            comm = p['name'].rsplit(' (pid ', 1)[0]
            for start, end, stack in evented(p, frames, name):
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
    X.finish()


main()
