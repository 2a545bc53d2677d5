#!/usr/bin/env python3
"""rsp-summary --explain on multi-threaded programs (tests/analysis/data/threads, recorded with rsp-record on the
project's VM: see its README), checked against perf's own switch records (perf script --show-switch-events):
- every hop of the chain that tells what a process's threads, or one thread, ran over the wait before it (a hop
  through the waker, or one with 'threads') gives the on-cpu time perf's IN/OUT records show for them in that wait's
  [start_ns, end_ns], within 2% (a switch-out recorded with tid -1, the exiting task's last, is the cpu's current
  task's);
- node (pb: 8 pbkdf2 jobs on libuv's pool): the wait said is the main thread's, not a helper thread's idle epoll_pwait,
  and its waits in all are the main thread's blocked off-cpu time in perf's records within 5%;
- java (jv: a pool of 2 threads): the chain goes from the launcher's join through the Java main thread's Future.get
  to a pool thread running;
- rustc (rc): the chain reaches rust-lld, whose last thread woke collect2 with pid/tid -1, and no wait is filed as
  woken by hardware;
- go build (gb): the linker, several threads, ends the chain running; a wait in go's code, which has no symbols, is
  named by the kernel function it waited in and the binary, as perf script shows the sched_switch's call chain (with
  the recording's kallsyms): the innermost kernel frame that is not scheduler machinery, under an [unknown] user
  frame of that binary (a site counts the waits on the paths: no more than perf's sched_switches of that pair); no
  wait site is a bare address;
- curl against python's ThreadingHTTPServer (http): curl's poll goes on through the server, which sent the data
  'over the network';
- python over a socketpair (us): the parent's recv goes on through the child, which sent the data 'over a unix socket'
  (perf's sock:sock_send_length events of the child say family 0x1), not 'over the network', and the latency
  profiles call its operations 'network unix';
- timeout 0.3 sleep 5 (to): timeout's sigsuspend is ended by its own timer, then it kills sleep, whose exit wakes it
  again: the chain says sleep waited 'until timeout [14643] signalled it', and the time from sleep's nanosleep (its
  switch-out in perf's records) to timeout's waking by its timer is 'Waits that timed out', not 'Waits on other
  control paths' (before: 297.3 ms there);
- a waker asleep since before the recording (fl: flock waits for a lock whose holder waits for its child sleep; pg2:
  an UPDATE waits for a row lock held by a session in pg_sleep): the holder H has no event in perf's records before
  its first waking, by a timer, at T. The chain reaches H's 'wait begun before the recording, which timed out', and
  the paths' 'Waits that timed out' is the time from the wait above H that perf's records show begin (its switch-out)
  to T, within 2% (before: 'Scheduler overhead', 84-99% of the wall time).
Skipped (77) without perf or zstd."""
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
DATA = os.path.join(SRC, 'tests', 'analysis', 'data', 'threads')
sys.path.insert(0, os.path.join(SRC, 'tests', 'oracle'))
import oracle  # noqa: E402

failures = []


def ok(cond, what):
    print(('ok   ' if cond else 'FAIL ') + what)
    if not cond:
        failures.append(what)


def unpack(name, tmp):
    path = os.path.join(tmp, name + '.data')
    subprocess.run(['zstd', '-q', '-d', '-f', os.path.join(DATA, name + '.data.zst'), '-o', path], check=True)
    shutil.copy(os.path.join(DATA, name + '.data.meta'), path + '.meta')
    os.symlink(os.path.join(os.path.abspath(DATA), 'kallsyms.zst'), path + '.kallsyms.zst')
    tar = subprocess.run(['zstd', '-q', '-d', '-c', os.path.join(DATA, name + '.data.ftrace.tar.zst')],
                         check=True, capture_output=True).stdout
    subprocess.run(['tar', '-C', tmp, '-xf', '-'], input=tar, check=True)
    return path


class Switches:
    """Each thread's on-cpu intervals from perf's switch records, their process, and each thread's off-cpu periods
    after switch-outs that were not preemptions (perf's OUT without 'preempt')."""

    def __init__(self, path):
        self.on = collections.defaultdict(list)  # tid -> [(in, out)]
        self.pid = {}
        self.blocked = collections.defaultdict(list)  # tid -> [ns off cpu]
        blocked_since = {}  # tid -> its blocking switch-out
        current = {}  # cpu -> (pid, tid, since)
        out = oracle.perf(['script', '--ns', '--show-switch-events', '-F', 'pid,tid,cpu,time,event'], path)
        line = re.compile(r'^\s*(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+\.\d+):\s+PERF_RECORD_SWITCH_CPU_WIDE (IN|OUT)')
        for text in out.splitlines():
            m = line.match(text)
            if not m:
                continue
            pid, tid, cpu, t = int(m.group(1)), int(m.group(2)), int(m.group(3)), oracle.parse_time(m.group(4))
            if m.group(5) == 'IN':
                current[cpu] = (pid, tid, t)
                if tid in blocked_since:
                    self.blocked[tid].append(t - blocked_since.pop(tid))
                continue
            if 'preempt' in text:
                blocked_since.pop(tid, None)
            else:
                blocked_since[tid] = t
            cur = current.pop(cpu, None)
            if tid < 0 and cur:  # an exited task's last switch-out: the cpu's current task
                pid, tid = cur[0], cur[1]
            if cur and cur[1] == tid and tid > 0:
                self.on[tid].append((cur[2], t))
                self.pid[tid] = pid

    def ran(self, lo, hi, pid=None, tid=None):
        """On-cpu ns of thread TID, or of process PID's threads, within [LO, HI)."""
        total = 0
        for t, spans in self.on.items():
            if (tid and t != tid) or (not tid and self.pid.get(t) != pid):
                continue
            total += sum(max(0, min(b, hi) - max(a, lo)) for a, b in spans)
        return total


def check_process_name(name, path, pid):
    """The text output's 'Process of interest: pid P (NAME)' names the process as perf's records name its main thread
    (tid P) last; before: the name of its latest-started thread ('GC Thread#1' for java, 'lto cgu.0' for rustc)."""
    out = oracle.perf(['script', '--tid', str(pid), '-F', 'comm,tid'], path)
    comms = [ln.rsplit(None, 1)[0].strip() for ln in out.splitlines() if ln.strip().endswith(' ' + str(pid))]
    p = subprocess.run([SUMMARY, '--categories', path], capture_output=True, text=True)
    m = re.match(r'Process of interest: pid (\d+) \((.*?)\): ', p.stdout)
    ok(bool(comms) and m is not None and int(m.group(1)) == pid and m.group(2) == comms[-1],
       f'{name}: the process of interest is named {m.group(2) if m else None!r}; perf names its main thread '
       f'{comms[-1] if comms else None!r} last')
    j = subprocess.run([SUMMARY, '--categories', '--format=json', path], capture_output=True, text=True)
    listed = [x['comm'] for x in json.loads(j.stdout)['processes'] if x['pid'] == pid] if j.returncode == 0 else []
    ok(bool(comms) and listed == [comms[-1]], f'{name}: the JSON lists the process of interest as {listed}')


def explain(path):
    p = subprocess.run([SUMMARY, '--explain', '--format=json', path], capture_output=True, text=True)
    ok(p.returncode == 0, f'{os.path.basename(path)}: --explain exit {p.returncode} {p.stderr[-300:]}')
    return json.loads(p.stdout) if p.returncode == 0 else None


def check_hops(name, d, sw):
    """Every hop that says what a process (its threads) or a thread ran over the wait before it."""
    chain = d['explanation']['chain']
    checked = 0
    for i in range(1, len(chain)):
        h, w = chain[i], chain[i - 1]
        if h['kind'] != 'run' or w['kind'] != 'sleep' or not (h.get('via_waker') or h.get('threads')):
            continue
        tid = h.get('tid') if h.get('via_waker') and h.get('tid') else None
        if 'start_ns' not in w:
            ok(False, f'{name}: the wait hop before {h["comm"]} [{h["pid"]}] has no start_ns/end_ns')
            continue
        truth = sw.ran(w['start_ns'], w['end_ns'], pid=h['pid'], tid=tid) / 1e6
        who = f"{h['comm']} [{h['pid']}{'/' + str(tid) if tid else ''}]"
        ok(abs(h['ms'] - truth) <= max(0.02 * truth, 0.2),
           f"{name}: {who} ran {h['ms']:.1f} ms over {w['comm']} [{w['pid']}]'s {w['ms']:.1f} ms wait; perf's switch "
           f"records {truth:.1f} ms")
        checked += 1
    return checked


# The scheduler's own frames above a wait's kernel function (src/model/stacks.c names the same ones).
SCHEDULER = {'schedule', '__schedule', 'schedule_idle', 'schedule_timeout', 'schedule_hrtimeout',
             'schedule_hrtimeout_range', 'schedule_hrtimeout_range_clock', 'schedule_preempt_disabled', 'io_schedule',
             'io_schedule_timeout', 'preempt_schedule', 'preempt_schedule_common', 'preempt_schedule_irq',
             'preempt_schedule_notrace', '__cond_resched', '_cond_resched', 'schedule_timeout_uninterruptible',
             'schedule_timeout_interruptible', 'schedule_timeout_killable', 'bit_wait_io', 'rwsem_down_read_slowpath'}


def unnamed_wait_sites(path, tmp):
    """(kernel function, binary) of every sched_switch whose innermost user frame perf script names no symbol of."""
    kallsyms = os.path.join(tmp, 'kallsyms')
    if not os.path.exists(kallsyms):
        subprocess.run(['zstd', '-q', '-d', '-f', os.path.join(DATA, 'kallsyms.zst'), '-o', kallsyms], check=True)
    out = oracle.perf(['script', '--ns', '--kallsyms', kallsyms, '-F', 'comm,tid,time,event,ip,sym,dso'], path)
    sites = collections.Counter()
    frame = re.compile(r'^\t\s*[0-9a-f]+ (.*) \((.*)\)$')
    blocks, cur = [], None
    for line in out.splitlines():
        if line.startswith('\t'):
            if cur is not None:
                m = frame.match(line)
                if m:
                    cur.append(m.groups())
        else:  # a sample's first line; a sched_switch's frames follow it, one a line
            cur = [] if 'sched:sched_switch:' in line else None
            if cur is not None:
                blocks.append(cur)
    for frames in blocks:
        kernel = [f for f, dso in frames if dso == '[kernel.kallsyms]']
        user = [(f, dso) for f, dso in frames if dso != '[kernel.kallsyms]']
        site = next((f for f in kernel if f not in SCHEDULER and not f.startswith(
            ('__traceiter_', 'perf_trace_', 'trace_event_raw_event_'))), None)
        if user and user[0][0] == '[unknown]' and site:
            sites[(site, user[0][1])] += 1
    return sites


def check_unnamed_sites(path, tmp):
    p = subprocess.run([SUMMARY, '--categories', '--waits', '--format=json', path], capture_output=True, text=True)
    ok(p.returncode == 0, f'gb: --categories --waits exit {p.returncode}')
    if p.returncode:
        return
    waits = json.loads(p.stdout)['waits']
    truth = unnamed_wait_sites(path, tmp)
    named = re.compile(r'^(\S+) \(called from (.*), no symbols\)$')
    called = [named.match(w['site']) for w in waits]
    bad = [(w['site'], w['count']) for w, m in zip(waits, called) if m and w['count'] > truth[m.groups()]]
    ok(sum(1 for m in called if m) >= 3 and not bad,
       f'gb: {sum(1 for m in called if m)} wait sites named by kernel function and binary, each counting no more waits '
       f'than perf script shows with that kernel function under an unnamed frame of that binary (not so: {bad[:3]}; perf: {truth.most_common(3)})')
    raw = [w['site'] for w in waits if w['site'].startswith('0x')]
    ok(not raw, f'gb: no wait site is a bare address ({raw[:3]})')


# The holder asleep since before the recording, in fl and pg2 (tests/analysis/data/threads/README.md).
HOLDER = {'fl': 6161, 'pg2': 9758}


def check_before_start(name, path, d):
    holder = HOLDER[name]
    out = oracle.perf(['script', '--ns', '--show-switch-events', '-F', 'pid,tid,cpu,time,event,trace'], path)
    line = re.compile(r'^\s*(-?\d+)/(-?\d+)\s+\[\d+\]\s+(\d+\.\d+):\s+(\S+)(.*)$')
    first = None
    outs = collections.defaultdict(list)  # tid -> its switch-out times
    for text in out.splitlines():
        m = line.match(text)
        if not m:
            continue
        tid, t, event, rest = int(m.group(2)), oracle.parse_time(m.group(3)), m.group(4), m.group(5)
        if event.startswith('PERF_RECORD_SWITCH') and rest.split()[0] == 'OUT':
            outs[tid].append(t)
        names = tid == holder or re.search(rf'\b(pid|next_pid|prev_pid)={holder}\b', rest) or \
            re.search(rf'pid/tid:\s+\d+/{holder}\s', rest)
        if names and first is None:
            first = (event, t)
    ok(first is not None and first[0] == 'sched:sched_waking:',
       f'{name}: perf\'s first event of {holder} is its waking ({first})')
    if not first:
        return
    waking = first[1]
    chain = d['explanation']['chain']
    at = [i for i, h in enumerate(chain) if h['pid'] == holder and h['kind'] == 'sleep']
    text = ' '.join(d['explanation']['text'])
    ok(bool(at) and chain[at[0]]['site'] == 'a wait begun before the recording' and
       'a wait begun before the recording, which timed out' in text,
       f'{name}: the chain reaches {holder}\'s wait begun before the recording, which timed out '
       f'({[(h["pid"], h.get("site")) for h in chain]})')
    if not at:
        return
    begin = None
    for h in reversed(chain[:at[0]]):  # the wait above the holder that perf's records show begin
        before = [t for t in outs.get(h['tid'], []) if t <= waking]
        if h['kind'] == 'sleep' and before:
            begin = max(before)
            break
    ok(begin is not None, f'{name}: a wait above {holder} begins in perf\'s records')
    if begin is None:
        return
    truth = (waking - begin) / 1e6
    got = d['categories']['timed_out']
    ok(abs(got - truth) <= max(0.02 * truth, 0.2),
       f'{name}: waits that timed out {got:.1f} ms; perf: {truth:.1f} ms from the wait\'s switch-out to {holder}\'s '
       f'waking')
    wall = d['explanation'].get('wall_ms') or d.get('wall_ms') or 0
    ok(d['categories']['scheduler'] <= 0.05 * max(wall, got),
       f'{name}: scheduler overhead {d["categories"]["scheduler"]:.1f} ms of {wall:.1f} ms')


def check_timeout(path, d):
    out = oracle.perf(['script', '--ns', '-F', 'pid,tid,time,event,trace'], path)
    line = re.compile(r'^\s*(-?\d+)/(-?\d+)\s+(\d+\.\d+):\s+(\S+)(.*)$')
    nap = woken = None
    for text in out.splitlines():
        m = line.match(text)
        if not m:
            continue
        tid, t, event, rest = int(m.group(2)), oracle.parse_time(m.group(3)), m.group(4), m.group(5)
        if event == 'sched:sched_switch:' and re.search(r'prev_comm=sleep prev_pid=14644 .*prev_state=S', rest):
            nap = t
        elif event == 'sched:sched_waking:' and 'pid=14643 ' in rest and tid != 14644 and nap and not woken:
            woken = t  # timeout's waking by its timer (the irq's context: whatever ran), before sleep's exit
    ok(nap is not None and woken is not None, f'to: perf shows sleep\'s nanosleep ({nap}) and timeout\'s timer ({woken})')
    if nap is None or woken is None:
        return
    truth = (woken - nap) / 1e6
    text = ' '.join(d['explanation']['text'])
    cat = d['categories']
    ok('until timeout [14643] signalled it' in text, 'to: sleep waited until timeout signalled it')
    ok(cat['timed_out'] >= truth - 0.2 and cat['other_path'] < 1.0,
       f'to: waits that timed out {cat["timed_out"]:.1f} ms (perf: sleep\'s nanosleep to timeout\'s timer {truth:.1f} '
       f'ms), on other control paths {cat["other_path"]:.1f} ms')


def main():
    if not shutil.which('perf') or not shutil.which('zstd'):
        print('skipped: perf or zstd missing')
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        for name in ('pb', 'jv', 'rc', 'gb', 'http', 'us', 'to', 'fl', 'pg2'):
            path = unpack(name, tmp)
            d = explain(path)
            if not d:
                continue
            x = d['explanation']
            chain, text = x['chain'], ' '.join(x['text'])
            sw = Switches(path)
            check_process_name(name, path, d['pid'])
            if name in HOLDER:
                check_before_start(name, path, d)
                continue
            if name == 'to':
                check_timeout(path, d)
                continue
            n = check_hops(name, d, sw)
            ok(n >= 1, f'{name}: the chain tells what a waker or a process of several threads ran ({n} hops)')
            if name == 'pb':
                pid = d['pid']
                ok(chain and chain[0]['tid'] == pid, f'pb: the wait said is the main thread\'s ({chain[0]["tid"]})')
                waits = sw.blocked[pid]
                truth = sum(waits) / 1e6
                got = chain[0].get('thread_waited_ms', 0)
                ok(abs(got - truth) <= 0.05 * truth, f'pb: the main thread waited {got:.1f} ms in all; perf\'s '
                   f'records {truth:.1f} ms in {len(waits)} waits')
                ok(abs(chain[0]['ms'] - max(waits) / 1e6) <= 0.1, f'pb: its longest wait {chain[0]["ms"]:.1f} ms; '
                   f'perf\'s longest {max(waits) / 1e6:.1f} ms')
            elif name == 'jv':
                comms = [h['comm'] for h in chain]
                ok(len(chain) >= 3 and chain[-1]['kind'] == 'run' and chain[-1]['comm'].startswith('pool-'),
                   f'jv: the chain ends with a pool thread running ({comms})')
            elif name == 'rc':
                ok(any(h['comm'] == 'rust-lld' and h['kind'] == 'run' for h in chain),
                   f'rc: the chain reaches rust-lld running ({[h["comm"] for h in chain]})')
                ok(d['categories']['hardware'] < 1.0, f'rc: no wait woken by hardware ({d["categories"]["hardware"]:.1f} ms)')
            elif name == 'gb':
                ok(any(h['comm'] == 'link' and h['kind'] == 'run' and h.get('threads', 0) >= 2 for h in chain),
                   f'gb: the linker ends the chain running in its threads ({[h["comm"] for h in chain]})')
                check_unnamed_sites(path, tmp)
            elif name == 'http':
                ok('python3' in text and 'sent it data over the network' in text,
                   'http: curl\'s poll goes on through the server that sent the data over the network')
            elif name == 'us':
                sender = [h for h in chain if h.get('via_waker')]
                sends = oracle.perf(['script', '--ns', '-F', 'pid,event,trace'], path)
                families = {m.group(1) for m in re.finditer(
                    rf'^\s*{sender[0]["pid"] if sender else -1}\s+sock:sock_send_length:.*family = (\S+)', sends, re.M)}
                ok(bool(sender) and families == {'0x1'} and 'sent it data over a unix socket' in text and
                   chain[0].get('unix_socket'),
                   f'us: the parent\'s recv goes on through the child that sent the data over a unix socket (perf: its '
                   f'sends\' family {families})')
                prof = subprocess.run([SUMMARY, '--profiles', path], capture_output=True, text=True).stdout
                ok(re.search(rf'^network unix\s+\[python3, pid {d["pid"]}\]', prof, re.M) and
                   not re.search(r'^network socket', prof, re.M),
                   'us: the latency profiles name the parent\'s socket operations "network unix"')
    print(f'{len(failures)} failed')
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
