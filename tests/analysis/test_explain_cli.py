#!/usr/bin/env python3
"""rsp-summary --explain (issue 17) told truly, checked against truths obtained without rsp:
- the toy chain (tests/analysis/data/chain: chain.c, its design): the chain is chain-client -> chain-server ->
  chain-worker, the worker's work is its CPU time in perf's switch records within 10%, most of it (>= 80%) named
  compute_digest, the disk sentence names fsync, and the biggest lever is compute_digest;
- dovecot (bench/real/data/dovecot: the paper's IMAP login with SHA512-CRYPT, mail_fsync=always): the chain under the
  client's longest wait ends at auth, and the work named for auth is its CPU time in perf's own switch records
  (bench/real/check.py's PerfTruth) within 10%, most of it in libcrypt (the SHA-512); the disk sentence names fdatasync,
  which perf script shows imap blocking in (sched_switch call stacks);
- make (tests/model/data/wl-make.data): the process named first for the work is the one of make's descendants with
  the most CPU time in perf's switch records, and the chain ends at a compiler (cc1, as, ld, collect2);
- a wait with nothing under it says what ended it: profsleep's 220 nanosleeps (its design) are "220 waits in a row that
  timed out"; wl-sqlite's longest wait names a task that perf script shows waking the process;
- the processes named for the work go by their latest comm, as perf script shows it last (cc1, not cc);
- processes of one name, three or more and none half of their time, are named together: wl-nginx's 50 curls (a bash
  loop), as many processes and as much CPU time as perf's switch records give the processes they show as curl, within
  0.5%, the busiest one named; no curl named alone;
- no sentence is given to a preemptor or a guess whose time rounds to 0.0 ms, nor such a kernel thread named;
- the disk sentence names the wait site where the process waited longest for the disk, with the requests it waited on:
  shell-sleep-dd-python's dd fsyncs, woken by a kworker, against perf script's time off the cpu in do_fsync;
- the biggest lever sums a function over processes of one name: wl-nginx's curls, most of whose samples perf script
  shows in one user function (the dynamic loader's);
- profsleep (360 ms of nanosleeps by design) and xterm -e sleep 0.2 (bench/real, strace's 200 ms): the biggest lever
  is the waits that timed out, their time between what was asked for and (profsleep) its time off the cpu in
  do_nanosleep in perf script, their site nanosleep's;
- wl-grep (a cold-cache grep -r): the biggest lever is the disk, its site's figure the --waits table's, its time more than
  any function's running and no more than grep's time off the cpu in D state in perf script;
- JSON: the text is the same sentences; each work entry's run_ms is that process's paths_run_ms in the categories
  (the same paths); a pid that does not exist is an error naming it."""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(BUILD, 'src', 'tools', 'rsp-summary'))
sys.path.insert(0, os.path.join(SRC, 'bench', 'real'))
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import check as real  # noqa: E402
import oracle  # noqa: E402

failures = []
os.environ['RSP_CHECK_NO_CACHE'] = '1'  # PerfTruth writes no cache beside the fixtures


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def explain(path, *extra):
    p = subprocess.run([SUMMARY, '--explain', '--format=json', *extra, path], capture_output=True, text=True)
    ok(p.returncode == 0, f'{os.path.basename(path)}: --explain exit {p.returncode} {p.stderr[-300:]}')
    return json.loads(p.stdout) if p.returncode == 0 else None


def cpu_ms(truth, pids):
    return sum(b - a for t, p in truth.tgid.items() if p in pids for a, b in truth.iv.get(t, ())) * 1e3


def off_cpu_in(path, comm, function):
    """Perf's truth of how long COMM's tasks were off the cpu after switching out with FUNCTION on the sched_switch's
    stack (perf script), each to the task's next switch-in in perf's switch records, in ms."""
    truth, ms, cur = real.PerfTruth(path), 0.0, None
    for line in oracle.perf(['script', '-F', 'comm,tid,time,event,ip,sym'], path).splitlines():
        m = re.match(r'\s*' + re.escape(comm) + r'\s+(\d+)\s+([0-9.]+):\s+sched:sched_switch', line)
        if m or not line.startswith('\t'):
            cur = (int(m.group(1)), float(m.group(2))) if m else None
        elif cur and line.split()[-1] == function:
            ms += (min([a for a, b in truth.iv.get(cur[0], ()) if a >= cur[1]] or [cur[1]]) - cur[1]) * 1e3
            cur = None
    return ms


def unpack_real(name, tmp):
    """bench/real/data/NAME's recording, decompressed into a folder of TMP with what lies beside it."""
    src, dst = os.path.join(SRC, 'bench', 'real', 'data', name), os.path.join(tmp, name)
    os.mkdir(dst)
    for f in os.listdir(src):
        if f not in ('rec.data', 'rec.data.perf-script.txt'):
            p = os.path.join(src, f)
            (shutil.copytree if os.path.isdir(p) else shutil.copy)(os.path.realpath(p), os.path.join(dst, f))
    data = os.path.join(dst, 'rec.data')
    subprocess.run(['zstd', '-q', '-d', data + '.zst', '-o', data], check=True)
    return data


def main():
    if not shutil.which('perf') or not shutil.which('zstd'):
        print('skipped: perf or zstd missing')
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        data = unpack_real('dovecot', tmp)
        d = explain(data)
        if d:
            x = d['explanation']
            truth = real.PerfTruth(data)
            auth = {p for p, names in truth.comms.items() if 'auth' in names}
            chain = [h['comm'] for h in x['chain']]
            ok(chain and chain[-1] == 'auth' and x['chain'][-1]['kind'] == 'run', f'dovecot: the chain ends at auth '
               f'running: {chain}')
            want = cpu_ms(truth, auth)
            got = [w['run_ms'] for w in x['work'] if w['pid'] in auth]
            ok(got and abs(got[0] - want) <= 0.1 * want, f'dovecot: auth\'s work {got} ms, perf\'s switch records '
               f'{want:.1f} ms')
            # auth's SHA-512 runs in libcrypt (stripped: named by its file); the lever is the largest function of the
            # work (which one depends on the symbols this machine has for the client's python)
            aw = [w for w in x['work'] if w['pid'] in auth]
            ok(aw and aw[0]['function'] and 'libcrypt' in aw[0]['function'] and aw[0]['function_ms'] >= 0.8 * want,
               f'dovecot: auth\'s work is named libcrypt (the SHA-512) for most of it ({aw})')
            ok(x['lever'] and abs(x['lever']['ms'] - max(w['function_ms'] for w in x['work'])) < 0.001,
               f'dovecot: the lever is the largest function of the work ({x["lever"]})')
            text = ' '.join(x['text'])
            stacks = oracle.perf(['script', '-F', 'comm,event,ip,sym', '--kallsyms', oracle.kallsyms_file(data)], data)
            imap_fsync = any('fdatasync' in block and block.lstrip().startswith('imap ')
                             for block in stacks.split('\n\n') if 'sched_switch' in block)
            ok(imap_fsync and 'fdatasync' in text, f'dovecot: perf script shows imap blocking in fdatasync '
               f'({imap_fsync}); the answer names it ({"fdatasync" in text})')
            cats = json.loads(subprocess.run([SUMMARY, '--categories', '--format=json', data], capture_output=True,
                                             text=True).stdout)
            paths_run = {pr['pid']: pr['paths_run_ms'] for pr in cats['processes']}
            ok(all(abs(w['run_ms'] - paths_run.get(w['pid'], -1)) < 0.001 for w in x['work']),
               'dovecot: each work entry is the categories\' paths_run_ms of that process')
            t = subprocess.run([SUMMARY, '--explain', data], capture_output=True, text=True).stdout
            ok(all(sent in t.replace('\n', ' ') for sent in x['text']), 'dovecot: the text output holds the sentences')

    chain_dir = os.path.join(SRC, 'tests', 'analysis', 'data', 'chain')
    fixture = '/tmp/rsp-chain-fixture/chain-client'  # where it was recorded from (record.sh): its symbols
    try:
        os.makedirs(os.path.dirname(fixture), exist_ok=True)
        shutil.copy(os.path.join(chain_dir, 'chain-client'), fixture)
    except OSError as e:
        print(f'note: cannot place the chain binary at {fixture}: {e}')
    data = os.path.join(chain_dir, 'chain.data')
    d = explain(data)
    if d:
        x = d['explanation']
        chain = [h['comm'] for h in x['chain']]
        ok(chain == ['chain-client', 'chain-server', 'chain-worker'], f'chain: {chain}')
        truth = real.PerfTruth(data)
        worker = {p for p, names in truth.comms.items() if 'chain-worker' in names}
        want = cpu_ms(truth, worker)
        w = [v for v in x['work'] if v['pid'] in worker]
        ok(w and abs(w[0]['run_ms'] - want) <= 0.1 * want, f'chain: the worker\'s work {w[0]["run_ms"] if w else None} '
           f'ms, perf\'s switch records {want:.1f} ms')
        ok(w and w[0]['function'] == 'compute_digest' and w[0]['function_ms'] >= 0.8 * want,
           f'chain: named compute_digest for most of it ({w[0] if w else None})')
        text = ' '.join(x['text'])
        ok('fsync' in text and x['lever'] and x['lever']['function'] == 'compute_digest',
           f'chain: fsync named, the lever is compute_digest ({x["lever"]})')

    make = os.path.join(SRC, 'tests', 'model', 'data', 'wl-make.data')
    d = explain(make)
    if d:
        x = d['explanation']
        # perf's switch records: CPU time per process among make's descendants
        out = oracle.perf(['script', '--show-switch-events', '-F', 'pid,tid,time,event'], make)
        on, cpu = {}, collections.Counter()
        for line in out.splitlines():
            f = line.split()
            if 'PERF_RECORD_SWITCH' not in line or len(f) < 4:
                continue
            pid = int(f[0].split('/')[0]) if '/' in f[0] else int(f[0])
            tid = int(f[0].split('/')[1]) if '/' in f[0] else int(f[1])
            tm = float([w for w in f if w.endswith(':') and w[:-1].replace('.', '').isdigit()][0][:-1])
            if ' IN ' in f' {line} ' or line.rstrip().split('PERF_RECORD_SWITCH')[1].split()[0] == 'IN':
                on[tid] = (pid, tm)
            elif tid in on:
                p0, t0 = on.pop(tid)
                cpu[p0] += (tm - t0) * 1e3
        work = [w for w in x['work'] if w['pid'] != x['chain'][0]['pid']] if x['chain'] else x['work']
        desc = {pr['pid'] for pr in json.loads(subprocess.run([SUMMARY, '--categories', '--format=json', make],
                                                              capture_output=True, text=True).stdout)['processes']}
        busiest = max((p for p in desc if p != d['pid']), key=lambda p: cpu[p])
        ok(work and abs(work[0]['run_ms'] - cpu[busiest]) <= 0.1 * cpu[busiest] + 1.0,
           f'make: the first process named for the work ({work[0] if work else None}) did as much as the busiest of '
           f'its paths\' processes in perf\'s switch records ({busiest}: {cpu[busiest]:.1f} ms)')
        last = x['chain'][-1]['comm'] if x['chain'] else None
        ok(last in ('cc1', 'as', 'ld', 'collect2', 'cc'), f'make: the chain ends at a compiler ({last})')
    # processes of one name together: wl-nginx (tests/model/data/record-workloads.sh) runs curl 50 times from bash
    nginx = os.path.join(SRC, 'tests', 'model', 'data', 'wl-nginx.data')
    d = explain(nginx)
    if d:
        out = oracle.perf(['script', '--ns', '--show-switch-events', '-F', 'comm,pid,tid,cpu,time,event'], nginx)
        line = re.compile(r'^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+PERF_RECORD_SWITCH_CPU_WIDE (IN|OUT)')
        cur, cpu, comm = {}, collections.Counter(), {}
        for text in out.splitlines():
            m = line.match(text)
            if not m:
                continue
            c, pid, tid, cpu_, t = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), oracle.parse_time(m.group(5))
            if m.group(6) == 'IN':
                cur[cpu_] = (pid, tid, t, c)
                continue
            x0 = cur.pop(cpu_, None)
            if x0 and (x0[1] == tid or tid == -1):  # (-1: an exited task's last switch-out)
                cpu[x0[0]] += t - x0[2]
                comm[x0[0]] = c if tid != -1 else comm.get(x0[0], x0[3])
        curls = [p for p in cpu if comm.get(p) == 'curl']
        truth = sum(cpu[p] for p in curls) / 1e6
        busiest = max(curls, key=lambda p: cpu[p]) if curls else None
        x = d['explanation']
        g = [w for w in x.get('work_groups', []) if w['comm'] == 'curl']
        text = ' '.join(x['text'])
        ok(g and g[0]['processes'] == len(curls) and abs(g[0]['run_ms'] - truth) <= 0.005 * truth and
           g[0]['top_pid'] == busiest and f'curl ({len(curls)} processes) {truth:.1f} ms' in text and
           not re.search(r'(?<!the most )curl \[\d+\] \d', text),
           f'wl-nginx: the curls named together ({g}); perf\'s switch records: {len(curls)} curl processes, '
           f'{truth:.1f} ms, the busiest {busiest}')
        # the biggest lever sums a function over processes of one name: of the curls' cpu-clock samples in perf script,
        # an innermost user function most of them name (the dynamic loader's, 50 curl starts; two tie) is the lever's,
        # more than any one process's function
        frames = oracle.perf(['script', '-F', 'comm,pid,event,ip,sym,dso'], nginx)
        inner, cur = collections.Counter(), None
        for text in frames.splitlines():
            if not text.startswith('\t'):
                cur = 'curl' if text.split() and text.split()[0] == 'curl' and 'cpu-clock' in text else None
                continue
            if cur and '[kernel.kallsyms]' not in text:
                # a named function: what perf cannot name depends on the machine's binaries (a fresh Debian 12's
                # libcrypto.so.3, another build than the recording's, left 34 samples '[unknown]' there)
                if text.split()[1] != '[unknown]':
                    inner[text.split()[1]] += 1
                cur = None
        lever = x.get('lever') or {}
        top = max(inner.values()) if inner else None
        ok(lever.get('comm') == 'curl' and lever.get('processes', 0) >= 2 and inner.get(lever.get('function')) == top and
           all(lever['ms'] >= w['function_ms'] for w in x['work'] if w.get('function_ms') is not None) and
           any('in those processes together' in t for t in x['text'] if t.startswith('The biggest lever')),
           f'wl-nginx: the lever is the curls\' {lever.get("function")} in {lever.get("processes")} processes '
           f'({lever.get("ms")} ms); perf script: the curls\' samples by innermost user frame {inner.most_common(3)}')
    # the processes named for the work go by their latest name (cc1, not the cc they were forked as before the exec):
    # the comm perf script shows last for the pid (data/sample.perf.data: make -j2, gcc forks cc then execs cc1)
    sample = os.path.join(SRC, 'data', 'sample.perf.data')
    d = explain(sample)
    if d:
        out = oracle.perf(['script', '-F', 'pid,comm'], sample)
        last = {}
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 2 and f[-1].isdigit():
                last[int(f[-1])] = ' '.join(f[:-1])
        work = d['explanation']['work']
        wrong = [(w['pid'], w['comm'], last.get(w['pid'])) for w in work if last.get(w['pid']) != w['comm']]
        ok(work and not wrong, f'sample: the processes named for the work by their latest names (wrong: {wrong})')
    # a wait nothing under it explains says what ended it. profsleep (tests/profiles/data/record.sh) sleeps 600 us 200
    # times, then 12 ms 20 times, with nanosleep: its one merged wait timed out 220 times
    x = (explain(os.path.join(SRC, 'tests', 'profiles', 'data', 'sleeps.data')) or {}).get('explanation')
    text = ' '.join(x['text']) if x else ''
    ok('220 waits in a row that timed out' in text, 'profsleep: its wait timed out 220 times, as it was written to')
    # a run that waits out timers is told so: profsleep's nanosleeps (its design: 360 ms asked for) are the biggest
    # lever, not its few milliseconds of running; their time is at least what it asked for and no more than perf
    # script shows it off the cpu after a switch in do_nanosleep (to its next switch-in in perf's switch records)
    sleeps = os.path.join(SRC, 'tests', 'profiles', 'data', 'sleeps.data')
    tl, lever = (x or {}).get('timed_out_lever'), (x or {}).get('lever') or {}
    slept_ms = off_cpu_in(sleeps, 'profsleep', 'do_nanosleep')
    ok(tl and tl['top_comm'] == 'profsleep' and 'nanosleep' in (tl['site'] or '') and 360.0 <= tl['ms'] <= slept_ms + 0.1
       and tl['site_ms'] <= tl['ms'] and tl['ms'] > lever.get('ms', 0)
       and any(t.startswith('The biggest lever: waits that timed out') for t in x.get('text', [])),
       f'profsleep: the biggest lever is its timed-out waits ({tl}), 360 ms asked for, perf: {slept_ms:.1f} ms off the '
       f'cpu in do_nanosleep; its top function {lever.get("ms")} ms')
    # xterm -e sleep 0.2 (bench/real/data/xterm, under Xvfb): the sleep is most of the wall time, and the biggest lever;
    # strace saw the 200 ms asked for
    with tempfile.TemporaryDirectory() as tmp:
        xt = unpack_real('xterm', tmp)
        x = (explain(xt) or {}).get('explanation') or {}
        asked = sum(r for r, took in real.strace_truth(os.path.join(os.path.dirname(xt), 'strace.log'))[0])
        tl = x.get('timed_out_lever') or {}
        ok(asked >= 200 and tl.get('top_comm') == 'sleep' and 'nanosleep' in (tl.get('site') or '')
           and 0.9 * asked <= tl.get('site_ms', 0) <= tl.get('ms', 0) <= x.get('wall_ms', 0),
           f'xterm: the biggest lever is sleep\'s timed-out nanosleep ({tl}), strace: {asked:.1f} ms asked for')
    # wl-sqlite: the longest wait, a read, was ended by a task that perf script shows waking it
    sqlite = os.path.join(SRC, 'tests', 'model', 'data', 'wl-sqlite.data')
    x = (explain(sqlite) or {}).get('explanation')
    text = ' '.join(x['text']) if x else ''
    named = text.split('until ')[1].split(' woke it')[0] if ' woke it' in text and 'until ' in text else None
    tid = x['chain'][0]['pid'] if x and x['chain'] else None
    script = subprocess.run(['perf', 'script', '-i', sqlite, '-F', 'comm,pid,event,trace'], capture_output=True,
                            text=True).stdout
    wakers = {f'{line.split()[0]} [{line.split()[1]}]' for line in script.splitlines()
              if 'sched_waking' in line and f' pid={tid} ' in line + ' '}
    ok(named is not None and named in wakers, f'wl-sqlite: the task named as ending the longest wait ({named}) '
       f'woke the process of interest in perf script ({sorted(wakers)[:5]})')
    # a finding worth a sentence is one its figure shows: no 'preempted most by X (0.0 ms', '0.0 ms of this is a
    # guess' nor a kernel thread's '0.0 ms' (wl-sqlite-noswitch: a kworker's 0.01 ms; wl-grep-noswitch: softirq BLOCK
    # 0.0 ms in its kernel work; wl-sqlite: migration/0)
    for name in ('wl-sqlite-noswitch.data', 'wl-grep-noswitch.data', 'wl-sqlite.data'):
        x = (explain(os.path.join(SRC, 'tests', 'model', 'data', name)) or {}).get('explanation')
        said = [t for t in (x['text'] if x else []) if '(0.0 ms' in t and 'preempted most' in t
                or t.startswith('0.0 ms of this is a guess')
                or t.startswith('Interrupts and kernel threads') and ' 0.0 ms' in t]
        ok(x is not None and not said, f'{name}: no sentence of a finding that rounds to 0.0 ms ({said})')
    # the biggest lever of a disk-bound run is the disk: wl-grep (a cold-cache grep -r) spent longer off the cpu in D
    # state (perf script's sched_switch prev_state=D, to its next switch-in in perf's switch records) than in any
    # function; the lever's disk time is no more than that D time, and it names the disk wait site with --waits' figure
    grep = os.path.join(SRC, 'tests', 'model', 'data', 'wl-grep.data')
    x = (explain(grep) or {}).get('explanation') or {}
    truth = real.PerfTruth(grep)
    tids = {t for t, p in truth.tgid.items() if 'grep' in truth.comms.get(p, ())}
    d_ms = 0.0
    for line in oracle.perf(['script', '-F', 'time,event,trace'], grep).splitlines():
        m = re.search(r'([0-9.]+): +sched:sched_switch: .*prev_pid=(\d+) .*prev_state=D', line)
        if m and int(m.group(2)) in tids:
            t = float(m.group(1))
            d_ms += min([a for a, b in truth.iv.get(int(m.group(2)), ()) if a >= t] or [t]) * 1e3 - t * 1e3
    dl, lever = x.get('disk_lever'), x.get('lever') or {}
    waits = json.loads(subprocess.run([SUMMARY, '--waits', '--format=json', grep], capture_output=True,
                                      text=True).stdout or '{}')
    site_ms = sum(w.get('disk_ms', -1) for w in waits.get('waits', []) if dl and w['site'] == dl['site'])
    ok(d_ms > lever.get('ms', 0) and dl and dl['ms'] > lever.get('ms', 0) and dl['ms'] <= d_ms + 0.1
       and abs(dl['site_ms'] - site_ms) < 0.001 and dl['site_ms'] <= dl['ms']
       and 'read' in dl['site'] and any(t.startswith('The biggest lever: the disk') for t in x.get('text', [])),
       f'wl-grep: the biggest lever is the disk ({dl}), perf shows grep {d_ms:.1f} ms in D, its top function '
       f'{lever.get("ms")} ms')
    # the disk sentence names the wait where the process waited longest for the disk, and that time: a wait's own
    # blocking I/O, or the requests it waited on (its disk children) when longer; shell-sleep-dd-python's dd fsyncs
    # (ext4 without a journal) sleep on their writeback and are woken by a kworker, so none of their own time is the
    # disk's, and the sentence named dd's execve instead. Perf's truth: dd's switch-outs with do_fsync on the stack,
    # off the cpu until its next switch-in
    dd = os.path.join(SRC, 'tests', 'analysis', 'data', 'shell-sleep-dd-python.data')
    x = (explain(dd) or {}).get('explanation') or {}
    fsync_ms = off_cpu_in(dd, 'dd', 'do_fsync')
    said = next((re.search(r'most in (.*) \(([0-9.]+) ms in (\d+) waits?\)', t) for t in x.get('text', [])
                 if t.startswith('It waited for the disk')), None)
    ok(said and said.group(1).startswith('fsync ') and 0.8 * fsync_ms <= float(said.group(2)) <= fsync_ms + 0.05,
       f'shell-sleep-dd-python: the disk was waited for most in dd\'s fsync, perf: {fsync_ms:.2f} ms off the cpu in '
       f'do_fsync; said: {said.group(0) if said else None}')
    p = subprocess.run([SUMMARY, '--explain', '--pid', '999999', make], capture_output=True, text=True)
    ok(p.returncode != 0 and '999999' in p.stderr, f'--pid 999999: an error naming it ({p.stderr.strip()[:100]})')
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


main()
