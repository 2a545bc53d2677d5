#!/usr/bin/env python3
"""The model's links, sleep end causes, disk and network operations on real recordings, against perf script's
text of the same file (perf's own decoding of the tracepoints and task records; nothing of rsp's).

The model is read through tests/model/model-json (RSP_BUILD_ROOT). Fixtures: tests/data/sched-block-irq-sock.data
(tests/data/record-fixtures.sh: a pipe ping-pong and a loopback TCP exchange between python processes, fork/exec of
short commands, a cold-cache cat and an fsync'd dd, with -g) and tests/model/data/links-*.data (record.sh, made
with rsp-record: FILE.meta gives the workload pid).

(1) Wakeups. Every WAKEUP link's (time, waker tid, wakee tid) is a sched_waking or sched_wakeup perf script prints
    (fired in the waker's context naming the wakee). For the pipe ping-pong pair, the links each way number at
    least 85% of perf's sched_waking events between them (a waking of a task not yet asleep ends no sleep) and no
    more than them: one link per sleep end, the waking and wakeup of one sleep give one link.
(2) Fork, exec, exit. Every FORK record after the start (perf script --show-task-events) whose child ran has a
    FORK link at that time from the parent tid to the child; every exec COMM record an EXEC link at its time to
    that tid; every sched_waking of a parent fired in the context of its child after the child's EXIT record gives
    an EXIT_WAIT link from the child to the parent; and every EXIT_WAIT link is between a child with an EXIT
    record and its forking parent (or a thread of the parent's process).
(3) Disk. perf's block_rq_issue / block_rq_complete lines, paired by (dev, sector) (the last issue before each
    completion): every pair is a model op with those exact issue and completion times; every block_rq_insert
    followed by an issue of the same (dev, sector) gives that op's insert time. The D sleeps of the reading tasks
    (cat, dd, grep) that contain a completion of a request they issued, at most 200 us before the sleep ends,
    ended with DISK for at least 90% of them, each pointing at an op completed inside the sleep.
(4) Network. Every model op that starts with a send starts at a sock_send_length line of that task and socket
    address; the ops of the client's socket have dport = the listening port perf printed (inet_sock_set_state
    newstate=TCP_LISTEN), those of the accepted socket sport = that port, and remote 127.0.0.1:port for the
    client. For each request of the client (a sock_send_length followed by a sock_recv_length on the same
    socket), a sleep of the client inside that interval ended with NETWORK for at least 85% of such sleeps.
(5) Workload pid: FILE.meta's workload_pid (rsp-record fixtures) else the pid of the first exec COMM record.
Skipped (77) without perf or model-json.
"""
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict, Counter

SRC = os.environ.get('RSP_SOURCE_ROOT', os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('RSP_BUILD_ROOT', os.path.join(SRC, 'build'))
MODEL_JSON = os.path.join(BUILD, 'tests', 'model', 'model-json')
LINE = re.compile(r'^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+)(.*)$')

failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print('FAIL:', msg)


def perf_events(path):
    out = subprocess.run(['perf', 'script', '-i', path, '--ns', '-F', 'comm,pid,tid,cpu,time,event,trace',
                          '--show-task-events'], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PERF_BUILDID_DIR='/nonexistent')).stdout
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            yield dict(comm=m[1].strip(), pid=int(m[2]), tid=int(m[3]), cpu=int(m[4]),
                       time=int(m[5]) * 10**9 + int(m[6].ljust(9, '0')), event=m[7].rstrip(':'), rest=m[8])


def model_of(path):
    out = subprocess.run([MODEL_JSON, path], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def check_wakeups(name, m, ev):
    wakes = set()
    waking_pairs = Counter()
    for e in ev:
        if e['event'] in ('sched:sched_waking', 'sched:sched_wakeup', 'sched:sched_wakeup_new'):
            target = int(re.search(r'\bpid=(\d+)', e['rest'])[1])
            wakes.add((e['time'], e['tid'], target))
            if e['event'] == 'sched:sched_waking':
                waking_pairs[(e['tid'], target)] += 1
    links = [l for l in m['links'] if l['kind'] == 'wakeup']
    bad = [l for l in links if (l['time'], l['from_tid'], l['to_tid']) not in wakes]
    check(not bad, f'{name}: {len(bad)} of {len(links)} wakeup links match no perf wake event: {bad[:3]}')
    # the pipe ping-pong: the python3 pair with the most wakings between them
    py = {e['tid'] for e in ev if e['comm'] == 'python3'}
    pairs = [(n, a, b) for (a, b), n in waking_pairs.items() if a in py and b in py and a != b]
    if not pairs:
        check(False, f'{name}: no python3 wakings found')
        return
    n, a, b = max(pairs)
    for x, y in ((a, b), (b, a)):
        perf_n = waking_pairs[(x, y)]
        model_n = sum(1 for l in links if l['from_tid'] == x and l['to_tid'] == y)
        print(f'{name}: wakeups {x} -> {y}: perf sched_waking {perf_n}, model links {model_n}')
        check(0.85 * perf_n <= model_n <= perf_n, f'{name}: wakeup links {x}->{y} {model_n} vs perf {perf_n}')
    per_sleep = Counter(l['sleep'] for l in m['links'] if l['sleep'] >= 0 and l['kind'] != 'wakeup')
    ended = Counter(l['sleep'] for l in links)
    check(all(v == 1 for v in ended.values()), f'{name}: a sleep with two wakeup links')


def check_tasks(name, m, ev):
    forks, execs, exits = [], [], {}
    parent = {}
    for e in ev:
        if e['event'].startswith('PERF_RECORD_FORK'):
            mm = re.match(r'PERF_RECORD_FORK\((\d+):(\d+)\):\((\d+):(\d+)\)', e['event'] + e['rest'])
            if mm:
                child, ptid, ppid = int(mm[2]), int(mm[4]), int(mm[3])
                parent[child] = (ppid, ptid)
                if e['time'] > 0:
                    forks.append((e['time'], ptid, child))
        elif e['event'].startswith('PERF_RECORD_COMM') and 'exec' in e['event'] + e['rest']:
            mm = re.search(r':(\d+)/(\d+)', e['rest'])
            if mm and e['time'] > 0:
                execs.append((e['time'], int(mm[2]), int(mm[1])))
        elif e['event'].startswith('PERF_RECORD_EXIT'):
            mm = re.match(r'PERF_RECORD_EXIT\((\d+):(\d+)\)', e['event'] + e['rest'])
            if mm and e['time'] > 0:
                exits.setdefault(int(mm[2]), e['time'])
    ran = defaultdict(int)
    for t in m['tasks']:
        ran[t['tid']] += t['runs']
    links = defaultdict(set)
    for l in m['links']:
        links[l['kind']].add((l['time'], l['from_tid'], l['to_tid']))
    # the model dates a fork by the FORK record's own time field, perf script prints its sample_id time (a few
    # hundred ns earlier): 20 us apart at most
    for t, p, c in forks:
        if ran[c]:
            check(any(abs(l[0] - t) <= 20000 and l[1:] == (p, c) for l in links['fork']),
                  f'{name}: no fork link {p} -> {c} at {t}')
    for t, tid, pid in execs:
        if ran[tid]:
            check(any(abs(l[0] - t) <= 20000 and l[2] == tid for l in links['exec']),
                  f'{name}: no exec link to {tid} at {t}')
    print(f'{name}: {len(forks)} forks, {len(execs)} execs; model fork {len(links["fork"])}, '
          f'exec {len(links["exec"])}, exit_wait {len(links["exit_wait"])}')
    # exit -> wait from perf's events: a waking of the parent in the exited child's context
    expected = set()
    for e in ev:
        if e['event'] == 'sched:sched_waking' and e['tid'] in exits and e['time'] >= exits[e['tid']]:
            target = int(re.search(r'\bpid=(\d+)', e['rest'])[1])
            pp = parent.get(e['tid'])
            if pp and target in (pp[1],):
                expected.add((e['tid'], target))
    got = {(l[1], l[2]) for l in links['exit_wait']}
    for c, p in expected:
        check((c, p) in got, f'{name}: no exit_wait link {c} -> {p}')
    pid_of = {}
    for t in m['tasks']:
        pid_of[t['tid']] = t['pid']
    for _, c, p in links['exit_wait']:
        check(c in exits, f'{name}: exit_wait link from {c}, which has no EXIT record')
        pp = parent.get(c)
        check(pp is not None and (pp[1] == p or pid_of.get(p) == pp[0]),
              f'{name}: exit_wait link {c} -> {p}, but {c} was forked by {pp}')
    check(len(expected) > 0, f'{name}: the fixture shows no exit -> wait')


READERS = ('cat', 'dd', 'grep')


def dev_of(text):
    a, b = text.split(',')
    return int(a) << 20 | int(b)


def check_disk(name, m, ev):
    last_issue, last_insert, pairs = {}, {}, []
    completes, finals, pending = [], [], {}
    n_d = Counter()
    for e in ev:
        if e['event'] == 'sched:sched_switch' and 'prev_state=D' in e['rest'] and e['comm'] in READERS:
            n_d[e['tid']] += 1
        if not e['event'].startswith('block:block_rq_'):
            continue
        mm = re.match(r'\s*(\d+,\d+)\s+\S+\s+(?:\d+\s+)?\(\S*\)\s+(\d+)\s+\+\s+(\d+)', e['rest'])
        if not mm:
            continue
        key = (dev_of(mm[1]), int(mm[2]))
        kind = e['event'][len('block:block_rq_'):]
        if kind in ('insert', 'complete') and key in pending:
            finals.append((key, pending.pop(key)))
        if kind == 'insert':
            last_insert[key] = e['time']
        elif kind == 'issue':
            last_issue[key] = (e['time'], e['tid'], last_insert.pop(key, None))
            pending[key] = e['time']  # a requeue issues again: the last issue counts
        elif kind == 'complete':
            completes.append((e['time'], key))
            if key in last_issue:
                it, tid, ins = last_issue.pop(key)
                pairs.append((key, it, e['time'], tid, ins))
    finals += list(pending.items())
    issued = {(o['dev'], o['sector'], o['issue']) for o in m['disk_ops']}
    missing_issues = [f for f in finals if (f[0][0], f[0][1], f[1]) not in issued]
    check(finals and not missing_issues,
          f'{name}: {len(missing_issues)} of {len(finals)} perf issues not in the model: {missing_issues[:3]}')
    ops = {(o['dev'], o['sector'], o['issue'], o['complete']): o for o in m['disk_ops']}
    missing = [p for p in pairs if (p[0][0], p[0][1], p[1], p[2]) not in ops]
    print(f'{name}: perf: {len(finals)} issues, {len(completes)} completions, {len(pairs)} with their issue; '
          f'model {len(m["disk_ops"])} ops, {sum(1 for o in m["disk_ops"] if o["complete"])} completed')
    check(not missing, f'{name}: {len(missing)} issue/complete pairs not in the model: {missing[:3]}')
    for key, it, ct, tid, ins in pairs:
        o = ops.get((key[0], key[1], it, ct))
        if o and ins is not None:
            check(o['insert'] == ins, f'{name}: op {key} insert {o["insert"]} != perf {ins}')
    # D sleeps of the readers: perf's sched_switch prev_state=D count them; most end by the disk (the rest wait
    # on a lock or a page another task reads), each pointing at an op completed inside it that the reader issued
    readers = {t['id'] for t in m['tasks'] if t['comm'] in READERS}
    tid_of = {t['id']: t['tid'] for t in m['tasks']}
    disk = [s for s in m['sleeps'] if s['task'] in readers and s['cause'] == 'disk']
    for s in disk:
        o = m['disk_ops'][s['disk_op']]
        check(s['start'] <= o['complete'] <= s['end'], f'{name}: DISK sleep whose op completed outside it')
    total_d = sum(n_d.values())
    summary = os.environ.get('RSP_SUMMARY')
    if summary and os.access(summary, os.X_OK) and m.get('_path'):
        # rsp-summary --tasks --format=json: sleep_ends per task add up, the readers' disk ends as above
        rows = json.loads(subprocess.run([summary, '--tasks', '--format=json', m['_path']], capture_output=True,
                                         text=True, check=True).stdout)
        for r in rows:
            check(sum(r['sleep_ends'].values()) == r['sleeps'], f'{name}: rsp-summary sleep_ends of {r["tid"]}')
        check(sum(r['sleep_ends']['disk'] for r in rows if r['comm'] in READERS) == len(disk),
              f'{name}: rsp-summary disk ends of the readers')
    print(f'{name}: D switch-outs of the readers (perf): {total_d}, model sleeps ended DISK: {len(disk)}')
    check(total_d > 0 and 0.8 * total_d <= len(disk) <= total_d,
          f'{name}: {len(disk)} DISK sleeps for {total_d} D switch-outs')


def check_network(name, m, ev):
    sends = set()
    listen_port = None
    requests = defaultdict(list)  # sk -> [(send time, tid)]
    intervals = []
    last_send = {}
    for e in ev:
        if e['event'] == 'sock:sock_send_length':
            sk = int(re.search(r'sk address = (0x[0-9a-f]+)', e['rest'])[1], 16)
            sends.add((e['time'], e['tid'], sk))
            last_send[(sk, e['tid'])] = e['time']
        elif e['event'] == 'sock:sock_recv_length':
            sk = int(re.search(r'sk address = (0x[0-9a-f]+)', e['rest'])[1], 16)
            t0 = last_send.pop((sk, e['tid']), None)
            if t0 is not None:
                intervals.append((e['tid'], t0, e['time']))
        elif e['event'] == 'sock:inet_sock_set_state' and 'newstate=TCP_LISTEN' in e['rest']:
            listen_port = int(re.search(r'sport=(\d+)', e['rest'])[1])
    check(listen_port is not None, f'{name}: no listening socket in perf script')
    tid_of = {t['id']: t['tid'] for t in m['tasks']}
    ops = m['net_ops']
    with_send = [o for o in ops if (o['start'], o['tid'], o['sk']) in sends]
    no_send_flag = [o for o in ops if o['flags'] & 1] if ops and 'flags' in ops[0] else []
    print(f'{name}: {len(sends)} sends in perf, model {len(ops)} net ops, {len(with_send)} starting at a send')
    check(len(with_send) > 0, f'{name}: no net op starts at a perf sock_send_length')
    client_ops = [o for o in with_send if o['dport'] == listen_port]
    server_ops = [o for o in with_send if o['sport'] == listen_port]
    check(len(client_ops) > 0 and len(server_ops) > 0,
          f'{name}: ops on the client ({len(client_ops)}) and server ({len(server_ops)}) side of port {listen_port}')
    for o in client_ops:
        check(o['remote'] == f'127.0.0.1:{listen_port}', f'{name}: client op remote {o["remote"]}')
    for o in ops:
        check(o['remote'] is None or o['remote'] == '' or o['remote'].endswith(f':{o["dport"]}'),
              f'{name}: op remote {o["remote"]} with dport {o["dport"]}')
    # sleeps of a task inside one of its request/response intervals
    n = ok = 0
    for s in m['sleeps']:
        tid = tid_of[s['task']]
        if s['cause'] == 'preempted':
            continue
        if any(t == tid and t0 < s['start'] and s['end'] < t1 for t, t0, t1 in intervals):
            n += 1
            ok += s['cause'] == 'network'
    print(f'{name}: sleeps inside a send -> recv interval: {n}, ended NETWORK: {ok}')
    check(n > 0 and ok >= 0.85 * n, f'{name}: only {ok} of {n} sleeps in request intervals ended with NETWORK')


def check_workload(name, path, m, ev):
    meta = path + '.meta'
    if os.path.exists(meta):
        want = int(re.search(r'^workload_pid=(\d+)$', open(meta).read(), re.M)[1])
    else:
        execs = [e for e in ev if e['event'].startswith('PERF_RECORD_COMM') and 'exec' in e['event'] + e['rest']
                 and e['time'] > 0]
        want = int(re.search(r':(\d+)/', execs[0]['rest'])[1]) if execs else -1
    check(m['workload_pid'] == want, f'{name}: workload pid {m["workload_pid"]}, expected {want}')


def main():
    if not shutil.which('perf') or not os.access(MODEL_JSON, os.X_OK):
        print('perf or model-json missing: skipped')
        return 77
    fixtures = {
        'tests/data/sched-block-irq-sock.data': ('wakeups', 'tasks', 'disk', 'network'),
        'tests/model/data/links-pingpong.data': ('wakeups',),
        'tests/model/data/links-coldread.data': ('disk',),
        'tests/model/data/links-shell.data': ('tasks',),
        'tests/model/data/links-tcp.data': ('network',),
    }
    ran = 0
    for rel, checks in fixtures.items():
        path = os.path.join(SRC, rel)
        if not os.path.exists(path):
            print(f'{rel}: missing, skipped')
            continue
        ran += 1
        m = model_of(path)
        m['_path'] = path
        ev = list(perf_events(path))
        name = os.path.basename(rel)
        if 'wakeups' in checks:
            check_wakeups(name, m, ev)
        if 'tasks' in checks:
            check_tasks(name, m, ev)
        if 'disk' in checks:
            check_disk(name, m, ev)
        if 'network' in checks:
            check_network(name, m, ev)
        check_workload(name, path, m, ev)
    if not ran:
        return 77
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
