#!/usr/bin/env python3
"""Check rsp's answer on bench/real recordings against a truth obtained without rsp.

For each workload directory (bench/out/real/NAME, made by bench/real/NAME.sh) it prints the categories
table of `rsp-summary --categories --format=json` beside the truth:
  - perf's own switch records (perf script --show-switch-events): every task's on-CPU time, clipped to the
    client's window (its first switch-in to its last switch-out), and the fork tree (sched_process_fork);
  - /proc/PID/task/TID/schedstat before and after the recorded run (long-lived server tasks' CPU time);
  - strace -f -T -tt of a second run (nanosleeps and their requested times; the socket syscalls that blocked);
  - the workload's design (truth.json: which process does the work, which are related to the task).
and PASS/FAIL lines for the issue's criteria:
  C1 the process that did the work is on the paths with its running time within 10% of the truth
  C2 no process unrelated to the task is on its paths
  C3 a nanosleep is timed out however loaded the machine
  C4 loopback and close wakeups name the sending process
  C5 no wait site's total exceeds the paths' total
Usage: check.py [--markdown FILE] [--json FILE] DIR...
"""
import json, os, re, subprocess, sys, collections

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = os.environ.get('RSP_SUMMARY', os.path.join(REPO, 'build/src/tools/rsp-summary'))
CATS = ['understood', 'blocking_io', 'unsampled', 'unknown_stack', 'io_queue', 'scheduler', 'hardware',
        'preempted_by_path', 'contention', 'involuntary', 'misc_kernel', 'timed_out', 'other_path', 'network',
        'unaccounted']
# what a waking's call stack says woke the task: the first kind any of whose frames it has
WAKE_KINDS = [('timer', re.compile(r'\b(hrtimer_wakeup|process_timeout)\b')),
              ('signal', re.compile(r'send_signal|complete_signal|signal_wake_up')),
              ('futex', re.compile(r'\bfutex_wake')),
              ('socket', re.compile(r'\b(sock_def_readable|sock_def_wakeup|sk_data_ready|sock_def_write_space|unix_\w+|tcp_\w+|inet_\w+|__sock_\w+|sock_\w+)\b')),
              ('pipe', re.compile(r'\bpipe_\w+')),
              ('disk', re.compile(r'blk_mq_|bio_endio|end_page|folio_wake'))]


def wake_kind(stack):
    for kind, pat in WAKE_KINDS:
        if pat.search(stack):
            return kind
    return 'other'
KERNEL_HELPERS = r'^(jbd2/.*|kworker/.*|ksoftirqd/.*|rcu.*|migration/.*|swapper.*|kdamond\..*|kswapd.*)$'
NANOSLEEP_SITE = re.compile(r'nanosleep|usleep|\bsleep\b', re.I)
SOCKET_SITE = re.compile(r'recv|poll|select|epoll|accept|sock|tcp|connect', re.I)


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors='replace')
    return p.returncode, p.stdout, p.stderr


# ---------------------------------------------------------------- truth from perf's own records
SW = re.compile(r'^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+([\d.]+):\s+PERF_RECORD_SWITCH_CPU_WIDE (IN|OUT)( preempt)?')
EV = re.compile(r'^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(sched:sched_process_fork|sched:sched_waking):\s*(.*)$')


class PerfTruth:
    """From perf's own records: per tid on-CPU intervals, its switch-outs (time, preempted), the wakings that
    target it (time, waker pid, waker comm: the context the event fired in, which on loopback is the sender),
    tgid and comms per task, and the fork tree."""
    def __init__(self, data):
        cache = data + '.perf-script.txt'     # perf script is the slow part: kept beside small recordings
        use_cache = not os.environ.get('RSP_CHECK_NO_CACHE')  # (tests: nothing written beside their fixtures)
        if use_cache and os.path.exists(cache) and os.path.getmtime(cache) >= os.path.getmtime(data):
            out = open(cache, errors='replace').read()
        else:
            cmd = ['perf', 'script', '-i', data, '--show-switch-events', '-F', 'comm,pid,tid,cpu,time,event,trace,ip,sym']
            ksyms = data + '.kallsyms.zst'      # the recording's kernel symbols, never this host's
            tmp = None
            if os.path.exists(ksyms):
                import tempfile
                tmp = tempfile.NamedTemporaryFile(suffix='.kallsyms')
                with open(ksyms, 'rb') as z:   # through stdin: zstd ignores a symbolic link given as a file
                    subprocess.run(['zstd', '-qdc'], stdin=z, stdout=tmp, check=True)
                tmp.flush()
                cmd += ['--kallsyms', tmp.name]
            rc, out, err = run(cmd)
            if tmp:
                tmp.close()
            if rc != 0:
                raise RuntimeError('perf script failed: ' + err[:300])
            if use_cache and os.path.getsize(data) < 32 << 20 and os.access(os.path.dirname(os.path.abspath(data)), os.W_OK):
                open(cache, 'w').write(out)
        oncpu = {}
        self.iv = collections.defaultdict(list)
        self.outs = collections.defaultdict(list)
        self.wakings = collections.defaultdict(list)
        self.tgid, self.comms = {}, collections.defaultdict(set)
        self.children = collections.defaultdict(set)
        self.first_in = {}
        last = None      # the waking whose call stack follows: a timer's (hrtimer_wakeup, process_timeout) is a timeout
        for line in out.splitlines():
            if line.startswith('\t') or not line.strip():
                if last is not None:
                    last[3] += line.strip().split(' ')[-1] + ' '
                continue
            last = None
            m = SW.match(line)
            if m:
                comm, pid, tid, cpu, t, d = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), float(m.group(5)), m.group(6)
                if tid <= 0:
                    continue
                self.tgid[tid] = pid
                self.comms[pid].add(comm)
                if d == 'IN':
                    oncpu[cpu] = (tid, t)
                    self.first_in.setdefault(pid, t)
                else:
                    self.outs[tid].append((t, bool(m.group(7))))
                    s = oncpu.pop(cpu, None)
                    if s and s[0] == tid:
                        self.iv[tid].append((s[1], t))
                continue
            m = EV.match(line)
            if not m:
                continue
            f = m.group(7)
            if m.group(6) == 'sched:sched_process_fork':
                c = re.search(r'child_pid=(\d+)', f)
                if c:
                    self.children[int(m.group(2))].add(int(c.group(1)))
            else:
                c = re.search(r'comm=(.*?) pid=(\d+)', f)
                if c:
                    last = [float(m.group(5)), int(m.group(2)), m.group(1), '']
                    self.wakings[int(c.group(2))].append(last)


def cpu_in(iv, tids, w0, w1):
    tot = 0.0
    for tid in tids:
        for a, b in iv.get(tid, ()):
            a, b = max(a, w0), min(b, w1)
            if b > a:
                tot += b - a
    return tot * 1e3


def schedstat(path):
    d = {}
    try:
        for line in open(path):
            f = line.split()
            if len(f) == 4:
                d[(int(f[0]), int(f[1]))] = (f[2], int(f[3]))
    except OSError:
        pass
    return d


def strace_truth(path):
    """nanosleeps (requested ms, elapsed ms) and blocking socket-ish syscalls (name, ms) of a strace -f -T -tt log."""
    sleeps, blocks = [], collections.Counter()
    if not os.path.exists(path):
        return sleeps, blocks
    for line in open(path, errors='replace'):
        m = re.search(r'(clock_nanosleep|nanosleep)\((.*?)tv_sec=(\d+), tv_nsec=(\d+).*<([\d.]+)>\s*$', line)
        if m:
            took = float(m.group(5)) * 1e3
            # TIMER_ABSTIME (python's time.sleep): the request is a deadline, so what it asked for is what it took
            req = took if 'ABSTIME' in m.group(2) else int(m.group(3)) * 1e3 + int(m.group(4)) / 1e6
            sleeps.append((req, took))
            continue
        m = re.search(r'\s(\w+)\(.*<([\d.]+)>\s*$', line)
        if m and re.match(r'(recv|read|poll|ppoll|select|pselect|epoll_wait|epoll_pwait|accept|wait4|futex|fsync|fdatasync)', m.group(1)):
            if float(m.group(2)) >= 0.0005:
                blocks[m.group(1)] += float(m.group(2)) * 1e3
    return sleeps, blocks


# ---------------------------------------------------------------- rsp's answer
PATHLINE = re.compile(r'^(\s*)(run|sleep)\s+(.*?) (-?\d+)/(-?\d+) ([\d.]+)-([\d.]+) ms \(([\d.]+)\)(.*)$')
WAITLINE = re.compile(r'^\s*([\d.]+)\s+(\d+)\s+(\S+)\s+(.*)$')


def rsp_paths(data):
    rc, out, err = run([SUMMARY, '--paths', data])
    lines = []
    for l in out.splitlines():
        m = PATHLINE.match(l)
        if m:
            lines.append(dict(depth=len(m.group(1)), kind=m.group(2), comm=m.group(3), pid=int(m.group(4)),
                              tid=int(m.group(5)), t0=float(m.group(6)), t1=float(m.group(7)), ms=float(m.group(8)),
                              rest=m.group(9).strip()))
        elif l.startswith('path '):
            lines.append(dict(depth=-1, kind='path', text=l))
    return lines, out


def rsp_waits(data):
    rc, out, err = run([SUMMARY, '--waits', data])
    w = []
    for l in out.splitlines():
        m = WAITLINE.match(l)
        if m and not l.strip().startswith('TOTAL'):
            w.append(dict(ms=float(m.group(1)), count=int(m.group(2)), end=m.group(3), site=m.group(4)))
    return w, out


def sleep_children(lines, i):
    """Lines nested under sleep line i."""
    d = lines[i]['depth']
    out = []
    for l in lines[i + 1:]:
        if l['kind'] == 'path' or l['depth'] <= d:
            break
        out.append(l)
    return out


def check(d):
    truth = json.load(open(os.path.join(d, 'truth.json')))
    data = os.path.join(d, 'rec.data')
    if not os.path.exists(data) and os.path.exists(data + '.zst'):   # a committed recording (bench/real/data/)
        subprocess.run(['zstd', '-q', '-d', '-f', data + '.zst', '-o', data], check=True)
    r = dict(name=truth['name'], dir=d, design=truth.get('design', ''), criteria={}, notes=[])
    rc, out, err = run([SUMMARY, '--categories', '--format=json', data])
    if rc != 0:
        r['error'] = 'rsp-summary --categories failed: ' + (err.strip().splitlines() or ['?'])[-1]
        return r
    cat = json.loads(out)
    r['cat'] = cat
    client = int(open(os.path.join(d, 'client.pid')).read())
    pt = PerfTruth(data)
    iv, tgid, comms, children = pt.iv, pt.tgid, pt.comms, pt.children
    ctids = [t for t, p in tgid.items() if p == client]
    pts = [x for t in ctids for x in iv.get(t, ())]
    w0, w1 = (min(a for a, b in pts), max(b for a, b in pts)) if pts else (0, 0)
    r['window_ms'] = (w1 - w0) * 1e3
    # descendants of the client (fork tree from perf), by tgid
    desc, todo = set(), [client]
    while todo:
        p = todo.pop()
        if p in desc:
            continue
        desc.add(p)
        for c in children.get(p, ()):
            todo.append(tgid.get(c, c))
    # workers: by comm during the window (any of the task's comms)
    wre = [re.compile(w['comm']) for w in truth['workers']]
    def pid_comms(p):
        return comms.get(p, set())
    worker_pids = {p for p in comms if any(x.search(c) for x in wre for c in pid_comms(p))}
    if truth.get('workers_are_client_tree'):
        worker_pids = {p for p in worker_pids if p in desc}
    wtids = [t for t, p in tgid.items() if p in worker_pids]
    truth_cpu = cpu_in(iv, wtids, w0, w1)
    r['worker_label'] = ', '.join(w['label'] for w in truth['workers'])
    r['worker_pids'] = sorted(worker_pids)
    r['truth_cpu_ms'] = truth_cpu
    # schedstat cross-check (tasks alive before and after: long-lived servers)
    b, a = schedstat(os.path.join(d, 'schedstat.before')), schedstat(os.path.join(d, 'schedstat.after'))
    ss = sum(a[k][1] - b[k][1] for k in a if k in b and k[0] in worker_pids) / 1e6
    r['schedstat_cpu_ms'] = ss if any(k[0] in worker_pids for k in a if k in b) else None
    # rsp: the worker's runs on the paths, and its runtime in the model (--tasks)
    lines, ptext = rsp_paths(data)
    rsp_on = any(p['pid'] in worker_pids for p in cat['processes'])
    # the measure: the worker's run_ms in the categories JSON's processes list: its runs on the
    # paths, and what else it ran while a task of the paths was runnable behind it (the hand-off
    # preemptions: Xvfb over the xterm that woke it), each ns once
    rsp_run = sum(p['run_ms'] for p in cat['processes'] if p['pid'] in worker_pids)
    preempting = sum(p.get('run_ms', 0) - p.get('paths_run_ms', 0) for p in cat['processes'] if p['pid'] in worker_pids)
    r['rsp_worker_preempting_ms'] = preempting
    r['rsp_worker_run_ms'] = rsp_run
    r['rsp_worker_on_paths'] = rsp_on
    rc, tout, _ = run([SUMMARY, '--tasks', '--format=json', data])
    try:
        tasks = json.loads(tout)
        r['rsp_worker_model_ms'] = sum(t['runtime_ms'] for t in tasks if t['pid'] in worker_pids)
    except ValueError:
        tasks = []
        r['rsp_worker_model_ms'] = None
    r['truth_worker_total_ms'] = cpu_in(iv, wtids, -1e18, 1e18)
    # the worker's CPU time while the client's main thread was off the cpu (waiting or preempted), the rest ran
    # in parallel with it
    runs = sorted(iv.get(client, ()))
    r['truth_cpu_client_off_ms'] = sum(cpu_in(iv, wtids, a[1], b[0]) for a, b in zip(runs, runs[1:]))
    ok = rsp_on and truth_cpu > 0 and abs(rsp_run - truth_cpu) <= 0.10 * truth_cpu
    r['criteria']['C1'] = (ok, 'worker %s pids %s: truth %.1f ms on cpu in the client window (%.1f of them while the client was off the cpu; %.1f ms over the recording; schedstat %s), '
                           'rsp: %s the paths, run_ms %.1f (%.1f of it beside its runs on the paths, preempting a task of them; model --tasks: %s ms)' % (
                               r['worker_label'], r['worker_pids'][:6], truth_cpu, r['truth_cpu_client_off_ms'], r['truth_worker_total_ms'],
                               '%.1f ms' % ss if r['schedstat_cpu_ms'] is not None else 'n/a',
                               'on' if rsp_on else 'NOT on', rsp_run, preempting,
                               '%.1f' % r['rsp_worker_model_ms'] if r['rsp_worker_model_ms'] is not None else '?'))
    # why: the client's sleeps during which the worker ran, and what rsp nests in them
    first = next((l for l in lines if l['kind'] != 'path'), None)
    base = pt.first_in[client] * 1e3 - first['t0'] if first and first['pid'] == client and client in pt.first_in else None
    r['rsp_base_ms'] = base
    where = []
    if base is not None and truth_cpu > 0:
        for i, l in enumerate(lines):
            if l['kind'] != 'sleep' or l['pid'] != client or l['depth'] != 2:
                continue
            c = cpu_in(iv, wtids, (l['t0'] + base) / 1e3, (l['t1'] + base) / 1e3)
            if c >= 0.5:
                kids = sleep_children(lines, i)
                kw = sum(k['ms'] for k in kids if k['kind'] == 'run' and k['pid'] in worker_pids)
                where.append('client sleep %.1f-%.1f ms (%.1f ms) [%s]: worker ran %.1f ms in it, rsp nests %.1f ms of worker runs and %s' % (
                    l['t0'], l['t1'], l['ms'], l['rest'][1:28], c, kw,
                    ','.join(sorted({'%s[%d]' % (k['comm'], k['pid']) for k in kids})) or 'nothing'))
    r['worker_where'] = where
    if where:
        ok, why = r['criteria']['C1']
        r['criteria']['C1'] = (ok, why + '; ' + '; '.join(sorted(where, key=lambda x: -float(re.search(r'worker ran ([\d.]+)', x).group(1)))[:3]))
    # C2: unrelated processes on the paths
    rel = re.compile(truth['related'])
    # kernel threads that do the task's own work (journal commits, block completions, softirqs) or really hold
    # what it waits for (kdamond: DAMON's scan holds the task's mmap_lock, the rwsem wakeup names it) are allowed
    kh = re.compile('(%s)|(%s)' % (truth.get('kernel_helpers', r'^$'), KERNEL_HELPERS))
    unrelated, helpers = [], []
    for p in cat['processes']:
        names = set(p.get('comms', [])) | {p['comm']}
        if p['pid'] in desc or p['pid'] in worker_pids or any(rel.search(n) for n in names):
            continue
        if any(kh.search(n) for n in names):
            helpers.append('%s[%d]' % (p['comm'], p['pid']))
        else:
            # its time on the paths
            ms = sum(l['ms'] for l in lines if l['kind'] != 'path' and l['pid'] == p['pid'])
            unrelated.append('%s[%d] %.1f ms' % (p['comm'], p['pid'], ms))
    r['unrelated'] = unrelated
    r['helpers'] = helpers
    r['criteria']['C2'] = (not unrelated, '%d processes on the paths; unrelated: %s; kernel helpers (allowed): %s' % (
        len(cat['processes']), ', '.join(unrelated[:8]) + (' ...' if len(unrelated) > 8 else '') or 'none',
        ', '.join(helpers[:6]) or 'none'))
    # C3: nanosleeps timed out
    waits, wtext = rsp_waits(data)
    ssleeps, sblocks = strace_truth(os.path.join(d, 'strace.log'))
    ns = [w for w in waits if NANOSLEEP_SITE.search(w['site'])]
    # each nanosleep sleep on the paths, and what followed it: a nanosleep interrupted by preemption counts twice
    nsl = [l for l in lines if l['kind'] == 'sleep' and NANOSLEEP_SITE.search(l['rest'])]
    want = truth.get('nanosleep_min_ms')
    if want is None:
        r['criteria']['C3'] = (None, 'no nanosleep in the design; --waits nanosleep sites: %s' % (
            ', '.join('%s %.1f ms x%d' % (w['end'], w['ms'], w['count']) for w in ns) or 'none'))
    else:
        to = sum(w['ms'] for w in ns if w['end'] == 'timeout')
        bad = [w for w in ns if w['end'] != 'timeout']
        ok = bool(ns) and not bad and to >= 0.9 * want
        r['criteria']['C3'] = (ok, 'strace: %d nanosleeps (%s requested); rsp --waits: %s' % (
            len(ssleeps), ', '.join('%.1f ms' % s[0] for s in ssleeps[:4]) or 'none',
            ', '.join('%s %.1f ms x%d [%s]' % (w['end'], w['ms'], w['count'], w['site'][:40]) for w in ns) or 'no nanosleep site'))
    # C4: every voluntary socket wait on the paths (client's or a server's): rsp must nest the process that woke it (perf: the context of the
    # sched_waking that ended the sleep; on loopback that is the sending process, even inside its NET_RX softirq)
    if truth.get('socket_waits'):
        base = None
        first = next((l for l in lines if l['kind'] != 'path'), None)
        if first and first['pid'] == client and client in pt.first_in:
            base = pt.first_in[client] * 1e3 - first['t0']
        tot, named, bad, timers = 0, 0, [], 0
        others = collections.Counter()
        for i, l in enumerate(lines):
            if l['kind'] != 'sleep' or l['ms'] < 0.5 or base is None:
                continue
            if not SOCKET_SITE.search(l['rest']) or NANOSLEEP_SITE.search(l['rest']):
                continue
            tp0, tp1 = (l['t0'] + base) / 1e3, (l['t1'] + base) / 1e3
            out = [o for o in pt.outs.get(l['tid'], ()) if abs(o[0] - tp0) < 50e-6]
            if out and out[0][1]:
                continue        # preempted, not a wait
            # the first waking of the sleep is the one that ended it (a runnable task fires no sched_waking); one may
            # come a few us before the switch-out record (after sched_switch: the task was going to sleep)
            wk = [w for w in pt.wakings.get(l['tid'], ()) if tp0 - 5e-6 <= w[0] <= tp1 + 5e-6]
            if not wk:
                continue
            t, wpid, wcomm, stack = wk[0]
            kind = wake_kind(stack)
            if kind == 'timer':
                timers += 1
                continue        # ended by a timer (perf's stack of the waking): a timeout, nobody sent anything
            wpid = tgid.get(wpid, wpid)
            if kind != 'socket':    # a futex, a signal, ...: not a loopback or close wakeup (counted apart)
                if wpid != l['pid'] and not (l['pid'] not in desc and wpid in desc):
                    others[kind] += 1
                    if any(k['pid'] == wpid for k in sleep_children(lines, i)):
                        others[kind + ' named'] += 1
                continue
            if wpid == l['pid']:
                continue        # woken by its own process (another thread): not a loopback wakeup
            if l['pid'] not in desc and wpid in desc:
                continue        # a server waiting for the client's next request: the client is not its cause
            tot += 1
            kids = sleep_children(lines, i)
            # nested under the wait, or, drawn on another path already, named on the wait's line ("by COMM PID/TID (path N)")
            by = re.search(r' by (.*) (\d+)/\d+ \(path \d+\)$', l['rest'])
            named_pids = {k['pid'] for k in kids} | ({int(by.group(2))} if by else set())
            # a NET_RX softirq that drained its cpu's backlog (process_backlog) delivered every loopback packet
            # queued there, whoever sent it: perf's context is one of the senders, not necessarily this one's
            backlog = 'process_backlog' in stack
            if wpid in named_pids:
                named += 1
            elif backlog and any(re.search(truth.get('senders') or '^$', k['comm']) for k in kids if k['pid'] in named_pids) | \
                    bool(by and re.search(truth.get('senders') or '^$', by.group(1))):
                named += 1
                others['socket (backlog: another sender named)'] += 1
            else:
                bad.append('%s %.1f ms at %.1f [%s] woken by %s[%d], rsp nests: %s' % (
                    l['comm'], l['ms'], l['t0'], l['rest'][1:30], wcomm, wpid,
                    ','.join(sorted({'%s[%d]' % (k['comm'], k['pid']) for k in kids})) or 'nobody'))
        ends = collections.Counter()
        for w in waits:
            if SOCKET_SITE.search(w['site']) and not NANOSLEEP_SITE.search(w['site']):
                ends[w['end']] += w['count']
        ok = tot > 0 and named == tot
        r['criteria']['C4'] = (ok, "socket waits on the paths (voluntary, >= 0.5 ms) woken through a socket by another process: %d (others: %d ended by a timer; by another process through %s), with the process that woke it (perf) nested or named: %d; --waits ends of socket sites: %s%s%s" % (
            tot, timers, dict(others), named, dict(ends), '; missed: ' if bad else '', '; '.join(bad[:4])))
    else:
        r['criteria']['C4'] = (None, 'no loopback waits in the design')
    # C5: each wait site's total vs the paths' total (the issue: "a wait site's total is time on the paths, never
    # more than their total time"; sites nested in one another, curl's poll over nginx's epoll_wait, each count
    # the same stretch once, so their sum may exceed it)
    wsum = sum(w['ms'] for w in waits)
    wmax = max((w['ms'] for w in waits), default=0)
    r['waits_sum_ms'] = wsum
    r['criteria']['C5'] = (wmax <= cat['total_ms'] * 1.001, 'largest --waits site total %.1f ms vs paths total %.1f ms (all sites, nested ones each counted: %.1f ms)' % (
        wmax, cat['total_ms'], wsum))
    r['strace_blocks'] = dict(sblocks.most_common(6))
    return r


def fmt(v):
    return '%.1f' % v if isinstance(v, (int, float)) else str(v)


def print_report(r):
    print('=' * 100)
    print('%s: %s' % (r['name'], r['design']))
    if 'error' in r:
        print('  ERROR', r['error'])
        return
    c = r['cat']
    print('  process of interest %d (%s); %d processes, %d paths; wall %.1f ms, total %.1f ms, accounted %.1f%%' % (
        c['pid'], c['processes'][0]['comm'] if c['processes'] else '?', c['n_processes'], c['paths'], c['wall_ms'], c['total_ms'], c['percent_accounted']))
    print('  %-14s %10s' % ('category', 'ms'))
    for k in CATS:
        print('  %-14s %10.1f' % (k, c['categories'].get(k, 0)))
    print('  truth: client window %.1f ms (perf switch records); strace blocking syscalls (2nd run, ms): %s' % (
        r['window_ms'], ', '.join('%s %.1f' % kv for kv in r['strace_blocks'].items()) or 'none'))
    for k in sorted(r['criteria']):
        ok, why = r['criteria'][k]
        print('  %s %s: %s' % ('SKIP' if ok is None else 'PASS' if ok else 'FAIL', k, why))


def rsp_version():
    rc, out, _ = run(['git', '-C', os.path.dirname(os.path.realpath(SUMMARY)), 'log', '-1', '--format=%h %cs', 'HEAD', '--', ':/src'])
    return out.strip() if rc == 0 and out.strip() else '?'


def markdown(rs):
    out = ['# bench/real results', '', 'rsp-summary: `%s`, built from sources whose last change to src/ is commit %s.' % (
        os.path.relpath(SUMMARY, REPO) if os.path.realpath(SUMMARY).startswith(REPO + '/') else SUMMARY, rsp_version()), '',
           'Made by `bash bench/real/run-all.sh` (`bench/real/check.py`). Times in ms. "truth" is perf\'s own switch records '
           '(`perf script --show-switch-events`) for the worker over the client\'s window; C1..C5 are the issue\'s criteria: '
           'C1 worker on the paths with its running time within 10%; C2 no unrelated process on the paths; C3 nanosleep timed out; '
           'C4 loopback/close wakeups name the sender; C5 each wait site\'s total <= paths total.', '',
           '| workload | wall | total | % acc | guessed | understood | blk I/O | unsampled | unknown stack | I/O queue | sched | hardware | preempted by path | contention | involuntary | misc | timed out | other path | network | unacc. | worker | worker CPU truth (client off cpu) | rsp run on paths | C1 | C2 | C3 | C4 | C5 |',
           '|---|' + '---:|' * 19 + '---|---:|---:|---|---|---|---|---|']
    for r in rs:
        if 'error' in r:
            out.append('| %s | %s |' % (r['name'], r['error']))
            continue
        c = r['cat']; k = c['categories']
        cr = ['-' if r['criteria'][x][0] is None else 'PASS' if r['criteria'][x][0] else '**FAIL**' for x in ('C1', 'C2', 'C3', 'C4', 'C5')]
        out.append('| %s | %.1f | %.1f | %.1f | %s | ' % (r['name'], c['wall_ms'], c['total_ms'], c['percent_accounted'], fmt(c.get('guessed_ms', 0))) +
                   '%s | ' * len(CATS) % tuple(fmt(k.get(x, 0)) for x in CATS) + '%s | %.1f (%.1f) | %s%.1f | %s |' % (
            r['worker_label'], r['truth_cpu_ms'], r['truth_cpu_client_off_ms'], '' if r['rsp_worker_on_paths'] else '(not on paths) ', r['rsp_worker_run_ms'], ' | '.join(cr)))
    out.append('')
    for r in rs:
        if 'error' in r:
            continue
        out.append('## %s' % r['name'])
        out.append('')
        out.append(r['design'])
        out.append('')
        for x in sorted(r['criteria']):
            ok, why = r['criteria'][x]
            out.append('- %s %s: %s' % ('SKIP' if ok is None else 'PASS' if ok else '**FAIL**', x, why.replace('|', '/')))
        out.append('')
    return '\n'.join(out) + '\n'


def main(argv):
    md = js = None
    dirs = []
    i = 0
    while i < len(argv):
        if argv[i] == '--markdown':
            md = argv[i + 1]; i += 2
        elif argv[i] == '--json':
            js = argv[i + 1]; i += 2
        else:
            dirs.append(argv[i]); i += 1
    rs = []
    for d in dirs:
        try:
            r = check(d)
        except Exception as e:  # one broken workload must not hide the others
            r = dict(name=os.path.basename(d.rstrip('/')), design='', error='%s: %s' % (type(e).__name__, e))
        rs.append(r)
        print_report(r)
    if md:
        extra = ''
        if os.path.exists(md):
            old = open(md).read()
            if '<!-- notes -->' in old:
                extra = old[old.index('<!-- notes -->'):]
        open(md, 'w').write(markdown(rs) + ('\n' + extra if extra else ''))
    if js:
        json.dump([{k: v for k, v in r.items() if k != 'cat'} | {'categories': r.get('cat', {}).get('categories')} for r in rs],
                  open(js, 'w'), indent=1, default=str)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
