#!/usr/bin/env python3
"""rsp-export --to pprof (issue 19) on the make sample, curl against nginx and the chain:
- the file is gzip, and Debian's protoc decodes it as perftools.profiles.Profile against profile.proto (beside this
  test: pprof's messages with their published field numbers); skipped with a reason when protoc is missing;
- its structure is what pprof requires: string_table[0] is "", every sample has one value per sample type and
  names existing locations, every location an existing function and mapping, every index a valid string;
- the samples/count values add up, per process, to perf script's cpu-clock samples (the oracle);
- rebuilt as folded stacks (root first, the comm at the root), the samples/count values are exactly
  rsp-export --to folded --stacks on-cpu, and the off-cpu nanoseconds, rounded per stack to microseconds, exactly
  --stacks off-cpu; the off-cpu total is rsp-summary --tasks' sleep time of those processes;
- pprof itself reads it: Debian's golang-github-google-pprof-dev (pprof's source) built with Debian's Go into a
  temporary directory (RSP_PPROF names a pprof binary instead; skipped with a reason when neither is there), and
  `pprof -raw` gives the same samples per process and the same off-cpu total."""
import ast
import collections
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

import exportlib as X

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_text(text):
    """protoc's text format as nested dicts of lists."""
    root, stack = collections.defaultdict(list), []
    cur = root
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == '}':
            cur = stack.pop()
        elif line.endswith('{'):
            child = collections.defaultdict(list)
            cur[line[:-1].strip()].append(child)
            stack.append(cur)
            cur = child
        else:
            key, _, value = line.partition(': ')
            if value.startswith('"'):
                value = ast.literal_eval('b' + value).decode('utf-8', 'replace')
            elif value in ('true', 'false'):
                value = value == 'true'
            else:
                value = int(value)
            cur[key].append(value)
    return root


def one(msg, key, default=0):
    return msg.get(key, [default])[0]


def folded_frame(name):
    """As rsp-export --to folded writes a frame."""
    name = name or '[unknown]'
    return ''.join(':' if c == ';' else '_' if c in ' \n\t' else c for c in name)


def folded(path, stacks):
    p = subprocess.run([X.EXPORT, '--to', 'folded', '--stacks', stacks, path], capture_output=True, text=True)
    return {l.rsplit(' ', 1)[0]: int(l.rsplit(' ', 1)[1]) for l in p.stdout.splitlines()}


GOPATH = '/usr/share/gocode'  # where Debian's golang-*-dev packages put their sources


def pprof_binary(tmp):
    """A pprof to read the files with, or None (the reason printed)."""
    if os.environ.get('RSP_PPROF'):
        return os.environ['RSP_PPROF']
    if not shutil.which('go') or not os.path.isdir(os.path.join(GOPATH, 'src', 'github.com', 'google', 'pprof')):
        print('SKIP pprof: no pprof (Debian: golang-go and golang-github-google-pprof-dev to build it)')
        return None
    out = os.path.join(tmp, 'pprof')
    env = dict(os.environ, GOPATH=GOPATH, GO111MODULE='off', GOCACHE=os.path.join(tmp, 'gocache'), GOFLAGS='')
    p = subprocess.run(['go', 'build', '-o', out, 'github.com/google/pprof'], capture_output=True, text=True, env=env,
                       cwd=tmp, timeout=400)
    if p.returncode != 0:
        print(f'SKIP pprof: building Debian\'s pprof source failed: {p.stderr.strip()[-300:]}')
        return None
    return out


def pprof_raw(pprof, path):
    """`pprof -raw`'s samples: [(count, off-cpu ns, {label: value})]."""
    p = subprocess.run([pprof, '-raw', path], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        return None, p.stderr.strip()[-300:]
    samples, inside = [], False
    for line in p.stdout.splitlines():
        if line.startswith('Samples:'):
            inside = True
        elif line and not line[0].isspace() and inside and not line.startswith('samples/count'):
            inside = False
        elif inside and ':' in line and line.split(':')[0].strip().replace(' ', '').isdigit():
            values = line.split(':')[0].split()
            samples.append((int(values[0]), int(values[1]), {}))
        elif inside and samples and '[' in line:
            for item in line.split():
                key, _, value = item.partition(':[')
                samples[-1][2][key] = value.rstrip(']')
    return samples, p.stderr


def main():
    protoc = shutil.which('protoc')
    if not protoc:
        print('SKIP: protoc not installed (Debian package protobuf-compiler)')
        sys.exit(77)
    tmp = tempfile.TemporaryDirectory(prefix='rsp-pprof-')
    pprof = pprof_binary(tmp.name)
    for rel in X.FILES:
        path = X.path_of(rel)
        name = os.path.basename(path)
        out = os.path.join(tmp.name, name + '.pb.gz')
        if not X.export(path, 'pprof', out):
            continue
        with open(out, 'rb') as f:
            raw = f.read()
        if not X.check(raw[:2] == b'\x1f\x8b', f'{name}: gzip magic'):
            continue
        p = subprocess.run([protoc, '--decode=perftools.profiles.Profile', '-I', HERE,
                            os.path.join(HERE, 'profile.proto')], input=gzip.decompress(raw), capture_output=True)
        if not X.check(p.returncode == 0, f'{name}: protoc decodes it ({p.stderr.decode()[-200:]})'):
            continue
        prof = parse_text(p.stdout.decode())
        strings = prof['string_table']
        types = [(strings[one(t, 'type')], strings[one(t, 'unit')]) for t in prof['sample_type']]
        X.check(strings[:1] == [''] and types == [('samples', 'count'), ('off-cpu', 'nanoseconds')],
                f'{name}: string_table[0] empty, sample types {types}')
        functions = {one(f, 'id'): f for f in prof['function']}
        mappings = {one(m, 'id'): m for m in prof['mapping']}
        locations = {one(l, 'id'): l for l in prof['location']}
        bad = [f for f in prof['function'] if not all(0 <= one(f, k) < len(strings) for k in ('name', 'filename'))]
        bad += [m for m in prof['mapping'] if not 0 <= one(m, 'filename') < len(strings)]
        bad += [l for l in prof['location'] if (one(l, 'mapping_id') and one(l, 'mapping_id') not in mappings)
                or not l['line'] or any(one(ln, 'function_id') not in functions for ln in l['line'])]
        bad += [s for s in prof['sample'] if len(s['value']) != 2 or not s['location_id']
                or any(i not in locations for i in s['location_id'])]
        X.check(not bad and 0 not in functions and 0 not in locations,
                f'{name}: {len(prof["sample"])} samples, {len(locations)} locations, {len(functions)} functions, '
                f'{len(mappings)} mappings, every reference valid ({len(bad)} bad)')
        if bad:
            continue

        def fname(loc):
            return strings[one(functions[one(locations[loc]['line'][0], 'function_id')], 'name')]

        on, off_ns, per_pid = collections.Counter(), collections.Counter(), collections.Counter()
        for s in prof['sample']:
            line = ';'.join(folded_frame(fname(l)) for l in reversed(s['location_id']))
            labels = {strings[one(lb, 'key')]: lb for lb in s['label']}
            count, ns = s['value']
            if count:
                on[line] += count
                per_pid[one(labels['pid'], 'num')] += count
            if ns:
                off_ns[line] += ns
        cats = X.categories(path)
        pids = {pr['pid'] for pr in cats['processes']}
        perf_pid, _ = X.perf_cpu_clock(path)
        want = {pid: n for pid, n in perf_pid.items() if pid in pids}
        X.check(dict(per_pid) == want, f'{name}: samples/count {sum(per_pid.values())} in {len(per_pid)} processes, '
                f'perf script {sum(want.values())} in {len(want)}')
        f_on = folded(path, 'on-cpu')
        X.check(dict(on) == f_on, f'{name}: as folded stacks, the samples are --to folded --stacks on-cpu '
                f'({len(on)} stacks, folded {len(f_on)}; differ: {[k for k in set(on) | set(f_on) if on.get(k) != f_on.get(k)][:2]})')
        off_us = {k: (v + 500) // 1000 for k, v in off_ns.items() if (v + 500) // 1000}
        f_off = folded(path, 'off-cpu')
        X.check(off_us == f_off, f'{name}: as folded stacks, off-cpu is --to folded --stacks off-cpu '
                f'({len(off_us)} stacks, folded {len(f_off)})')
        tasks = X.summary(path, '--tasks')
        sleep_ms = sum(t['sleep_ms'] for t in tasks if t['pid'] in pids)
        total_ms = sum(off_ns.values()) / 1e6
        X.check(abs(total_ms - sleep_ms) <= 0.001 * len(tasks) + 0.001,
                f'{name}: off-cpu {total_ms:.3f} ms, rsp-summary --tasks sleep time {sleep_ms:.3f} ms')
        if pprof:
            raw, err = pprof_raw(pprof, out)
            if X.check(raw is not None and raw, f'{name}: pprof -raw reads it ({err if raw is None else ""})'):
                pp_pid = collections.Counter()
                for count, _, labels in raw:
                    if count:
                        pp_pid[int(labels.get('pid', -1))] += count
                X.check(dict(pp_pid) == want, f'{name}: pprof\'s samples per process are perf script\'s '
                        f'({sum(pp_pid.values())} in {len(pp_pid)})')
                pp_ns = sum(ns for _, ns, _ in raw)
                X.check(pp_ns == sum(off_ns.values()), f'{name}: pprof\'s off-cpu total {pp_ns / 1e6:.3f} ms is the '
                        f'sleeps\' {total_ms:.3f} ms')
    X.check_errors('pprof')
    X.finish()


main()
