#!/usr/bin/env python3
"""End-to-end tests of rsp-record: real recordings of the whole system with perf (root, perf,
tracefs). Each test is one function; `record_test.py NAME` runs one (exit 77: skipped).

perf script is the oracle of decodability; rsp-dump is used as well when it decodes a known-good
fixture (it is being written beside this). Every test records into its own temporary directory
and checks that nothing is left behind: no perf process of it, no ftrace instance, no rsp_ probe.
"""
import configparser
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

RECORD = os.environ.get("RSP_RECORD", "rsp-record")
DUMP = os.environ.get("RSP_DUMP", "")
SOURCE_ROOT = os.environ.get("RSP_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
TRACEFS = "/sys/kernel/tracing"
SKIP = 77

PINGPONG = r"""
import os, sys
rounds = int(sys.argv[1])
a_r, a_w = os.pipe()
b_r, b_w = os.pipe()
pid = os.fork()
if pid == 0:
    for _ in range(rounds):
        os.read(a_r, 1)
        os.write(b_w, b'y')
    os._exit(0)
for _ in range(rounds):
    os.write(a_w, b'x')
    os.read(b_r, 1)
os.waitpid(pid, 0)
print("pingpong", os.getpid(), pid, flush=True)
"""


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


def run(args, timeout=120, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout, **kw)


def record(out, *args, timeout=120):
    """rsp-record -o OUT ARGS...; returns the CompletedProcess."""
    p = run([RECORD, "-o", out, *args], timeout=timeout)
    sys.stderr.write(p.stderr)
    return p


def read_meta(data):
    cp = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",),
                                   comment_prefixes=("#",))
    cp.optionxform = str
    with open(data + ".meta") as f:
        cp.read_file(f)
    return cp


def meta_list(meta, group, key):
    return [x for x in meta.get(group, key, fallback="").split(";") if x]


def loss(meta, event):
    rec, occ = meta.get("loss", event).split(";")
    return int(rec), int(occ)


def perf_script(data, fields="comm,pid,tid,event,trace"):
    p = run(["perf", "script", "-i", data, "-F", fields], timeout=300)
    check(p.returncode == 0, f"perf script fails on {data}: {p.stderr[-2000:]}")
    return p.stdout


def event_counts(data):
    counts = {}
    for line in perf_script(data, "event").splitlines():
        ev = line.strip().rstrip(":").strip()
        if ev:
            counts[ev] = counts.get(ev, 0) + 1
    return counts


def dump_works():
    """rsp-dump decodes a known-good fixture: then it is an oracle too."""
    if not DUMP or not os.access(DUMP, os.X_OK):
        return False
    fixture = os.path.join(SOURCE_ROOT, "tests", "data", "sched-block-irq-sock.data")
    if not os.path.exists(fixture):
        return False
    try:
        return run([DUMP, "--stats", fixture], timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def check_dump(data, meta=None):
    """rsp-dump decodes the recording (and merges the ftrace capture, when it does that): its
    count of sched_switch, an event perf keeps whole, is the one perf record kept."""
    if dump_works():
        # the reader's own leaks are its tests' business, not this one's
        env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
        p = run([DUMP, "--stats", data], timeout=300, env=env)
        check(p.returncode == 0, f"rsp-dump --stats fails on {data}: {p.stderr[-2000:]}")
        m = re.search(r"^sched:sched_switch\s+(\d+)\s*$", p.stdout, re.M)
        check(m, f"rsp-dump --stats: no sched_switch line:\n{p.stdout}")
        if meta is not None:
            rec, _ = loss(meta, "sched:sched_switch")
            check(int(m.group(1)) == rec, f"rsp-dump counts {m.group(1)} sched_switch, perf record kept {rec}")
    else:
        check(False, "rsp-dump does not decode the known-good fixture: the reader is broken")


def ftrace_stats(data):
    p = run([RECORD, "--ftrace-stats", data])
    check(p.returncode == 0, f"rsp-record --ftrace-stats {data}: status {p.returncode}: {p.stderr}{p.stdout}")
    counts = {}
    for line in p.stdout.splitlines():
        if line.startswith("#"):
            continue
        name, n = line.split()
        counts[name] = int(n)
    return counts


def check_side_files(data, meta):
    check(os.path.getsize(data) > 0, f"{data} is empty")
    ks = data + ".kallsyms.zst"
    check(os.path.exists(ks), f"{ks} missing")
    if shutil.which("zstd"):
        p = subprocess.run(["zstd", "-dc", ks], stdout=subprocess.PIPE, timeout=60)
        check(p.returncode == 0 and b" T _text\n" in p.stdout, f"{ks} is not a kallsyms snapshot")
    rec = meta["recording"]
    check(rec.get("clock") == "CLOCK_MONOTONIC", "meta: clock")
    check("sched:sched_switch" in meta_list(meta, "recording", "events"), "meta: events")
    check(rec.get("start_time"), "meta: start_time")
    check("--switch-events" in rec.get("perf_command", ""), "meta: perf_command lacks --switch-events")
    check(re.search(r"-e \S*cpu-clock/freq=\d+/|-e \S*cycles/freq=\d+/", rec.get("perf_command", "")),
          "meta: the sampling event has no frequency of its own")
    check(" -F " not in rec.get("perf_command", ""), "meta: a global -F puts tracepoints in frequency mode")
    check(meta.has_section("loss") and meta.has_option("loss", "sched:sched_switch"), "meta: [loss]")


def check_nothing_left(data, pid=None):
    # no perf of ours
    for _ in range(50):
        ps = run(["ps", "-eo", "pid,args"]).stdout
        mine = [l for l in ps.splitlines() if "perf " in l and data in l]
        if not mine:
            break
        time.sleep(0.1)
    check(not mine, f"perf processes left: {mine}")
    insts = glob.glob(os.path.join(TRACEFS, "instances", "rsp-*"))
    if pid is not None:
        check(not os.path.exists(os.path.join(TRACEFS, "instances", f"rsp-{pid}")),
              f"instance rsp-{pid} left")
    # instances of live rsp-records (another test run) are theirs; dead ones are leftovers. Another run's rsp-record
    # removes its instance and then exits: seen between the two, its instance looks dead for a moment (a fresh
    # Debian run beside a host run saw rsp-2032 so), so a dead one must still be there a second later
    dead = [i for i in insts if not os.path.exists("/proc/" + i.rsplit("-", 1)[1])]
    if dead:
        time.sleep(1)
        dead = [i for i in dead if os.path.exists(i)]
    check(not dead, f"ftrace instances left: {dead}")
    for f in ("kprobe_events", "uprobe_events"):
        path = os.path.join(TRACEFS, f)
        if os.path.exists(path) and not other_rsp_record_running():
            with open(path) as fh:
                left = [l for l in fh.read().splitlines() if re.match(r"^[pr]:rsp_", l)]
            check(not left, f"{f}: probes left: {left}")


def other_rsp_record_running():
    ps = run(["ps", "-eo", "args"]).stdout
    return any(l.split()[0].endswith("rsp-record") for l in ps.splitlines() if l.strip())


# ---- the tests ----------------------------------------------------------------------------

def test_true(tmp):
    data = os.path.join(tmp, "perf.data")
    p = record(data, "--", "true")
    check(p.returncode == 0, f"rsp-record -- true: status {p.returncode}")
    meta = read_meta(data)
    check_side_files(data, meta)
    check(meta["recording"].get("command") == "true", "meta: command")
    check(meta["recording"].getint("exit_status") == 0, "meta: exit_status")
    counts = event_counts(data)
    check(counts.get("sched:sched_switch", 0) > 0, f"no sched_switch in {data}: {counts}")
    # our own count of the file agrees with perf script's
    for ev in meta_list(meta, "recording", "events"):
        rec, _ = loss(meta, ev)
        check(rec == counts.get(ev, 0), f"{ev}: meta says {rec} recorded, perf script counts {counts.get(ev, 0)}")
    # the ftrace capture decodes, and holds at least what perf kept of its events
    if meta["recording"].get("ftrace"):
        ft = ftrace_stats(data)
        for ev in meta_list(meta, "recording", "ftrace_events"):
            check(ft.get(ev, 0) >= counts.get(ev, 0), f"ftrace has fewer {ev} ({ft.get(ev, 0)}) than perf ({counts.get(ev, 0)})")
        check(ft.get("missed", 0) == 0, "ftrace capture missed events")
    check_dump(data, meta)
    check_nothing_left(data)


def test_pingpong(tmp):
    data = os.path.join(tmp, "pp.data")
    rounds = 3000
    p = record(data, "--", sys.executable, "-c", PINGPONG, str(rounds))
    check(p.returncode == 0, f"status {p.returncode}")
    m = re.search(r"pingpong (\d+) (\d+)", p.stdout)
    check(m, f"the workload's output did not come through: {p.stdout!r}")
    parent, child = m.group(1), m.group(2)
    meta = read_meta(data)
    check_side_files(data, meta)
    check(meta["recording"].get("workload_pid") == parent, "meta: workload_pid")
    text = perf_script(data)
    switched_out = {parent: 0, child: 0}
    woken = {parent: 0, child: 0}
    for line in text.splitlines():
        ms = re.search(r"sched:sched_switch:.*prev_pid=(\d+)", line)
        if ms and ms.group(1) in switched_out:
            switched_out[ms.group(1)] += 1
        mw = re.search(r"sched:sched_wak(?:eup|ing):.*pid=(\d+)", line)
        if mw and mw.group(1) in woken:
            woken[mw.group(1)] += 1
    for pid in (parent, child):
        check(switched_out[pid] >= rounds // 2, f"pid {pid} switched out {switched_out[pid]} times only")
        check(woken[pid] > 0, f"no wakeup of pid {pid} in {data}")
    # rsp's own reader finds the same two processes, their switches and their wakeups
    p = run([DUMP, "--format=jsonl", data], timeout=300)
    check(p.returncode == 0, f"rsp-dump fails on {data}: {p.stderr[-2000:]}")
    r_out = {parent: 0, child: 0}
    r_woken = {parent: 0, child: 0}
    for line in p.stdout.splitlines():
        e = json.loads(line)
        f = e.get("fields", {})
        if e["event"] == "sched:sched_switch" and str(f.get("prev_pid")) in r_out:
            r_out[str(f["prev_pid"])] += 1
        elif e["event"] in ("sched:sched_waking", "sched:sched_wakeup") and str(f.get("pid")) in r_woken:
            r_woken[str(f["pid"])] += 1
    # the reader finds rsp-record's metadata beside the file, and rsp-summary shows the loss check
    h = json.loads(run([DUMP, "--header", data], timeout=60).stdout)
    check(h.get("metadata", {}).get("recording", {}).get("workload_pid") == parent,
          "rsp-dump --header: no metadata with the workload pid")
    summary = os.environ.get("RSP_SUMMARY")
    if summary:
        out = run([summary, "--tasks", data], timeout=300).stdout
        rec, occ = loss(meta, "sched:sched_switch")
        check(re.search(r"^loss check: perf record kept \d+ of \d+ tracepoint events", out, re.M),
              f"rsp-summary does not show the loss check:\n{out[-1500:]}")
    for pid in (parent, child):
        check(r_out[pid] == switched_out[pid], f"rsp-dump: pid {pid} switched out {r_out[pid]} times, perf script {switched_out[pid]}")
        check(r_woken[pid] >= woken[pid] > 0, f"rsp-dump: pid {pid} woken {r_woken[pid]} times, perf script {woken[pid]}")
    rec, occ = loss(meta, "sched:sched_switch")
    print(f"sched_switch: recorded {rec}, perf stat counted {occ}")
    check(occ >= 2 * rounds, f"perf stat counted {occ} sched_switch only")
    check(abs(rec - occ) <= 0.05 * occ, f"sched_switch: recorded {rec} vs counted {occ}: more than 5% apart")
    # the wakeups perf drops, the ftrace capture has
    ft = ftrace_stats(data)
    _, waking = loss(meta, "sched:sched_waking")
    print(f"sched_waking: perf stat counted {waking}, ftrace holds {ft.get('sched:sched_waking', 0)}")
    check(ft.get("sched:sched_waking", 0) >= 0.95 * waking, "the ftrace capture lacks wakeups")
    check(ft.get("sched:sched_waking", 0) >= rounds, "fewer wakings than rounds in the ftrace capture")
    check_dump(data, meta)
    check_nothing_left(data)


def test_exit_status(tmp):
    data = os.path.join(tmp, "perf.data")
    p = record(data, "--", "sh", "-c", "exit 3")
    check(p.returncode == 3, f"rsp-record -- sh -c 'exit 3' exited {p.returncode}")
    check(read_meta(data)["recording"].getint("exit_status") == 3, "meta: exit_status")
    # a killed workload: its status, the file readable, cleanup done; the first recording moves to .old
    p = record(data, "--", "sh", "-c", "kill -9 $$")
    check(p.returncode == 128 + 9, f"a workload killed by SIGKILL: rsp-record exited {p.returncode}")
    for suffix in ("", ".meta", ".kallsyms.zst", ".ftrace"):
        check(os.path.exists(data + ".old" + suffix), f"{data}.old{suffix} missing (the previous recording)")
        check(os.path.exists(data + suffix), f"{data}{suffix} missing")
    check(read_meta(data + ".old")["recording"].getint("exit_status") == 3, "perf.data.old.meta is not the first recording's")
    perf_script(data, "event")
    check_nothing_left(data)
    # command not found: 127, and nothing recorded
    p = record(os.path.join(tmp, "nf.data"), "--", "/nonexistent/command")
    check(p.returncode == 127, f"a missing command: status {p.returncode}")
    check(not os.path.exists(os.path.join(tmp, "nf.data")), "a recording was made for a missing command")


def wait_for(pred, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_sigint(tmp):
    data = os.path.join(tmp, "int.data")
    errf = open(os.path.join(tmp, "stderr"), "w+")
    proc = subprocess.Popen([RECORD, "-o", data, "--", "sleep", "30"], stdout=subprocess.PIPE,
                            stderr=errf, text=True, start_new_session=True)
    inst = os.path.join(TRACEFS, "instances", f"rsp-{proc.pid}")
    started = wait_for(lambda: "recording the whole system" in open(errf.name).read(), 60)
    check(started, "rsp-record did not start recording")
    check(os.path.isdir(inst), f"no ftrace instance {inst} while recording")
    time.sleep(0.5)
    # Ctrl-C in a terminal: SIGINT to the foreground process group (rsp-record and sleep)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        rc = proc.wait(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Failure("rsp-record did not stop after SIGINT")
    errf.seek(0)
    sys.stderr.write(errf.read())
    check(rc == 128 + signal.SIGINT, f"after SIGINT rsp-record exited {rc} (the command's status, 130, expected)")
    meta = read_meta(data)
    check(meta["recording"].getboolean("interrupted"), "meta: interrupted")
    counts = event_counts(data)
    check(counts.get("sched:sched_switch", 0) > 0, "the interrupted recording has no sched_switch")
    ftrace_stats(data)
    check_nothing_left(data, proc.pid)

    # SIGTERM to rsp-record alone (kill PID): passed on to the command
    data2 = os.path.join(tmp, "term.data")
    errf2 = open(os.path.join(tmp, "stderr2"), "w+")
    proc = subprocess.Popen([RECORD, "-o", data2, "--", "sleep", "30"], stdout=subprocess.PIPE,
                            stderr=errf2, text=True, start_new_session=True)
    check(wait_for(lambda: "recording the whole system" in open(errf2.name).read(), 60), "no start")
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    rc = proc.wait(timeout=90)
    errf2.seek(0)
    sys.stderr.write(errf2.read())
    check(rc == 128 + signal.SIGTERM, f"after SIGTERM rsp-record exited {rc}")
    perf_script(data2, "event")
    check_nothing_left(data2, proc.pid)


def test_missing_event(tmp):
    probes = os.path.join(tmp, "missing.probes")
    with open(probes, "w") as f:
        f.write("rsp-probes 1\nversion 7\ndescription a set naming events this kernel lacks\n"
                "include minimal\n"
                "tracepoint sched:sched_no_such_event      # not on any kernel\n"
                "tracepoint nosuchsystem:nosuchevent ftrace\n")
    data = os.path.join(tmp, "perf.data")
    p = record(data, "--probes", probes, "--", "true")
    check(p.returncode == 0, f"status {p.returncode}")
    for ev in ("sched:sched_no_such_event", "nosuchsystem:nosuchevent"):
        check(ev in p.stderr, f"{ev} not listed as skipped on stderr")
    meta = read_meta(data)
    skipped = meta.get("recording", "skipped")
    check("sched:sched_no_such_event" in skipped and "nosuchsystem:nosuchevent" in skipped, "meta: skipped")
    check(meta["recording"].getint("probes_version") == 7, "meta: probes_version")
    check("sched:sched_no_such_event" not in meta_list(meta, "recording", "events"), "meta: events")
    check(event_counts(data).get("sched:sched_switch", 0) > 0, "nothing recorded")
    check_nothing_left(data)


def test_unprivileged(tmp):
    os.chmod(tmp, 0o777)
    data = os.path.join(tmp, "nobody.data")
    if shutil.which("setpriv"):
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", RECORD, "-o", data, "--", "true"]
    else:
        cmd = ["su", "nobody", "-s", "/bin/sh", "-c", f"'{RECORD}' -o '{data}' -- true"]
    p = run(cmd)
    sys.stderr.write(p.stderr)
    check(p.returncode != 0, "rsp-record as nobody succeeded")
    check("root" in p.stderr and "perf_event_paranoid" in p.stderr,
          f"no clear message about root and perf_event_paranoid: {p.stderr!r}")
    check(not os.path.exists(data), "a file was written")


SPIN = """
import hashlib, os, threading, time
os.nice(-10)
b = bytes(1 << 22)
def spin():
    t = time.time() + 6
    while time.time() < t:
        hashlib.sha256(b).digest()
ts = [threading.Thread(target=spin) for _ in range(2)]
for x in ts:
    x.start()
for x in ts:
    x.join()
"""


def test_duration(tmp):
    data = os.path.join(tmp, "a.data")
    t0 = time.time()
    # a process that spins on both cpus all through the recording (two threads hashing, which frees the GIL; at nice
    # -10 beside the tests run in parallel): with no workload, the busiest process is the guess
    spin = subprocess.Popen([sys.executable, "-c", SPIN])
    try:
        p = record(data, "-a", "--duration", "0.5", "--probes", "minimal")
    finally:
        spin.kill()
        spin.wait()
    check(p.returncode == 0, f"-a --duration: status {p.returncode}")
    meta = read_meta(data)
    check(meta["recording"].get("mode") == "all", "meta: mode")
    d = float(meta["recording"].get("duration_s"))
    check(0.45 <= d <= 1.5, f"recorded {d} s for --duration 0.5")
    check(time.time() - t0 < 60, "too slow")
    check(event_counts(data).get("sched:sched_switch", 0) > 0, "nothing recorded")
    summary = os.environ.get("RSP_SUMMARY")
    if summary:
        out = run([summary, "--categories", "--format=json", data], timeout=300)
        poi = json.loads(out.stdout).get("process_of_interest", {}) if out.returncode == 0 else {}
        check(poi.get("pid") == spin.pid and poi.get("chosen_by") == "busiest",
              f"-a: the process of interest is {poi}, not the spinning process {spin.pid} (the busiest)")
    check_nothing_left(data)


def test_options(tmp):
    """Usage errors, --help, the probe sets, --dry-run: no recording."""
    for args in (["--call-graph", "lbr", "--", "true"], ["-p", "1", "--", "true"], [],
                 ["--duration", "1", "--", "true"]):
        p = run([RECORD, *args])
        check(p.returncode == 2, f"rsp-record {args}: status {p.returncode}, 2 expected")
    p = run([RECORD, "--", "true"], env=dict(os.environ, PATH="/nonexistent"))
    check(p.returncode == 125 and "perf is not installed" in p.stderr, f"no perf: {p.returncode} {p.stderr!r}")
    p = run([RECORD, "--help"])
    check(p.returncode == 0 and "root" in p.stdout and "sched_switch" in p.stdout, "--help")
    # the man page describes every option --help lists
    opts = re.findall(r"^\s+(?:-\w, )?(--[\w-]+)", p.stdout, re.M)
    check(len(opts) >= 10, f"--help lists {opts}")
    man = open(os.path.join(SOURCE_ROOT, "data", "rsp-record.1")).read().replace("\\-", "-")
    missing = [o for o in opts if o not in man]
    check(not missing, f"options missing in data/rsp-record.1: {missing}")
    p = run([RECORD])
    check(p.returncode == 2 and "--help" in p.stderr and "COMMAND" in p.stderr, f"no arguments: {p.stderr!r}")
    p = run([RECORD, "--list-probes"])
    for s in ("default", "sched", "minimal"):
        check(re.search(rf"^{s}\s", p.stdout, re.M), f"--list-probes lacks {s}")
    bad = os.path.join(tmp, "bad.probes")
    with open(bad, "w") as f:
        f.write("rsp-probes 1\ntracepoint sched:sched_switch\nfrobnicate everything\n")
    p = run([RECORD, "-n", "--probes", bad, "--", "true"])
    check(p.returncode != 0 and f"{bad}:3:" in p.stderr, f"a syntax error is not located: {p.stderr!r}")
    p = run([RECORD, "-n", "--probes", "default", "--", "true"])
    check(p.returncode == 0, f"--dry-run: {p.stderr}")
    check("record  sched:sched_switch" in p.stdout and "(+ftrace)" in p.stdout, "--dry-run output")
    check("perf command: perf record -a -k CLOCK_MONOTONIC --switch-events" in p.stdout, "--dry-run perf command")
    if not os.path.exists(os.path.join(TRACEFS, "kprobe_events")):
        check("sock:sk_data_ready" in p.stdout, "no kprobes: the fallback network tracepoints are not used")


def test_killed_recorder(tmp):
    """rsp-record itself killed (SIGKILL): its perf still writes a readable file (it gets SIGTERM
    when rsp-record dies), and the next rsp-record removes the instance and probes left behind."""
    data = os.path.join(tmp, "k.data")
    uprobes = os.path.exists(os.path.join(TRACEFS, "uprobe_events"))
    args = [RECORD, "-o", data] + (["--libc-probes"] if uprobes else []) + ["--", "sleep", "2"]
    settings = ["/proc/sys/kernel/perf_event_paranoid", "/proc/sys/kernel/perf_event_mlock_kb",
                os.path.join(TRACEFS, "tracing_on"), os.path.join(TRACEFS, "current_tracer"),
                os.path.join(TRACEFS, "trace_clock")]
    before = {f: open(f).read() for f in settings if os.path.exists(f)}
    errf = open(os.path.join(tmp, "stderr"), "w+")
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=errf, start_new_session=True)
    check(wait_for(lambda: "recording the whole system" in open(errf.name).read(), 60), "no start")
    inst = os.path.join(TRACEFS, "instances", f"rsp-{proc.pid}")
    time.sleep(0.3)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    check(os.path.isdir(inst), "no instance left by a killed rsp-record: the test proves nothing")
    # its perf finishes on its own
    check(wait_for(lambda: not [l for l in run(["ps", "-eo", "args"]).stdout.splitlines()
                                if l.startswith("perf ") and data in l], 60), "the orphaned perf does not exit")
    check(event_counts(data).get("sched:sched_switch", 0) > 0, "the killed rsp-record's file is unreadable")
    data2 = os.path.join(tmp, "next.data")
    p = record(data2, "--probes", "minimal", "--", "true")
    check(p.returncode == 0, f"the next rsp-record: status {p.returncode}")
    # (another helper's rsp-record that got the lock first may have removed them instead)
    check("leftover" in p.stderr or "another rsp-record" in p.stderr,
          "the next rsp-record did not report removing the leftovers")
    check(not os.path.exists(inst), f"{inst} still there")
    check_nothing_left(data2)
    # the lock of the killed one (flock, dropped by the kernel at its death) did not stop the next
    check(f"another rsp-record (pid {proc.pid})" not in p.stderr,
          f"the next rsp-record waited for the dead one: {p.stderr}")
    after = {f: open(f).read() for f in before}
    check(after == before, f"settings changed: {before} -> {after}")


def test_tracefs_unmounted(tmp):
    """tracefs not mounted: rsp-record mounts it, records, unmounts it (in a private mount namespace,
    so the machine's own mount is not touched)."""
    if not shutil.which("unshare"):
        print("skipped: no unshare")
        sys.exit(SKIP)
    # A private mount namespace cannot be made where / is not a mount point (a chroot, some containers):
    # unshare says "cannot change root filesystem propagation". Then there is nothing to test here.
    probe = run(["unshare", "-m", "--propagation", "private", "true"])
    if probe.returncode != 0:
        print("skipped: no private mount namespace here: " + (probe.stderr.strip() or f"status {probe.returncode}"))
        sys.exit(SKIP)
    data = os.path.join(tmp, "mnt.data")
    script = ("umount /sys/kernel/tracing || exit 90; "
              f"'{RECORD}' --probes minimal -o '{data}' -- true; rc=$?; "
              "if grep -q ' /sys/kernel/tracing ' /proc/self/mounts; then exit 91; fi; exit $rc")
    p = run(["unshare", "-m", "--propagation", "private", "sh", "-c", script])
    sys.stderr.write(p.stderr)
    if p.returncode == 90:
        print("skipped: cannot unmount tracefs in a mount namespace here")
        sys.exit(SKIP)
    check(p.returncode != 91, "tracefs left mounted")
    check(p.returncode == 0, f"status {p.returncode}")
    check("mounted it on /sys/kernel/tracing" in p.stderr, "no note that tracefs was mounted")
    check(event_counts(data).get("sched:sched_switch", 0) > 0, "nothing recorded")
    check(os.path.isdir(os.path.join(TRACEFS, "events")), "the machine's tracefs is gone")


def probe_definitions(set_file, kind):
    """The probe lines a set file asks for, parsed here independently of rsp-record:
    {group/name: (target, args)}."""
    out = {}
    for line in open(os.path.join(SOURCE_ROOT, "probes", set_file)):
        words = line.split("#", 1)[0].split()
        if len(words) >= 3 and words[0] == kind:
            # the set's own keywords are not part of the kernel's definition
            out[words[1].replace(":", "/")] = [w for w in words[2:] if w not in ("ftrace", "nostack", "fallback")]
    return out


def elf_file_offset(lib, func):
    """A function's file offset from readelf (symbol value mapped through the LOAD segments)."""
    sym = [l.split() for l in run(["readelf", "-Ws", "--dyn-syms", lib]).stdout.splitlines()]
    rows = [w for w in sym if len(w) >= 8 and w[7].split("@")[0] == func and w[3] == "FUNC"]
    if len({w[1] for w in rows}) > 1:  # versioned twice: the default version (@@) is what callers get
        rows = [w for w in rows if "@@" in w[7]]
    vals = {int(w[1], 16) for w in rows}
    check(len(vals) == 1, f"readelf: {func} in {lib}: {vals}")
    val = vals.pop()
    for l in run(["readelf", "-lW", lib]).stdout.splitlines():
        w = l.split()
        if w and w[0] == "LOAD":
            off, vaddr, memsz = int(w[1], 16), int(w[2], 16), int(w[5], 16)
            if vaddr <= val < vaddr + memsz:
                return val - vaddr + off
    raise Failure(f"{func} at {val:#x} is in no LOAD segment of {lib}")


def test_fake_tracefs(tmp):
    """The kprobe and uprobe paths on a tracefs root of plain files (RSP_TRACEFS): this kernel has
    no kprobes, so this is where the network probes' lines are checked. perf cannot use probes
    that the kernel never made, so each run ends in perf's error: the error path must take back
    every line it wrote."""
    root = os.path.join(tmp, "tracefs")
    os.makedirs(os.path.join(root, "events"))
    os.makedirs(os.path.join(root, "instances"))
    for f in ("kprobe_events", "uprobe_events"):
        open(os.path.join(root, f), "w").close()
    env = dict(os.environ, RSP_TRACEFS=root)

    def adds_removes(f):
        text = open(os.path.join(root, f)).read()
        adds = re.findall(r"p:([\w]+/[\w]+) ", text)
        removes = re.findall(r"-:([\w]+/[\w]+)", text)
        return adds, removes, text

    # kprobes: the network set
    p = run([RECORD, "--probes", "net", "--no-ftrace", "-o", os.path.join(tmp, "k.data"), "--", "true"],
            env=env)
    check(p.returncode != 0, "perf cannot record probes the kernel never made: rsp-record should fail")
    want = probe_definitions("net.probes", "kprobe")
    check(len(want) >= 6, f"net.probes has {len(want)} kprobes")
    adds, removes, text = adds_removes("kprobe_events")
    check(sorted(adds) == sorted(want), f"kprobes written {adds}, the set has {sorted(want)}")
    check(sorted(removes) == sorted(want), f"kprobes removed {removes}, written {adds}")
    for name, (func, *args) in want.items():
        line = f"p:{name} {func} {' '.join(args)}"
        check(line in text, f"kprobe_events lacks {line!r}: {text!r}")
    # each removal comes after its definition
    for name in want:
        check(text.index(f"p:{name} ") < text.index(f"-:{name}"), f"{name} removed before it was made")
    check(not os.listdir(os.path.join(root, "instances")), "an ftrace instance left in the fake root")
    # a kernel without kprobe_events: the fallback tracepoints, no kprobe written anywhere
    os.unlink(os.path.join(root, "kprobe_events"))
    fallbacks = [l.split()[1] for l in open(os.path.join(SOURCE_ROOT, "probes", "net.probes"))
                 if l.startswith("tracepoint ") and "fallback" in l.split("#")[0].split()]
    check(fallbacks, "net.probes has no fallback tracepoints")
    for ev in fallbacks:
        d = os.path.join(root, "events", *ev.split(":"))
        os.makedirs(d)
        open(os.path.join(d, "id"), "w").write("1\n")
    p = run([RECORD, "--probes", "net", "--dry-run", "-o", os.path.join(tmp, "d.data"), "--", "true"], env=env)
    check(p.returncode == 0, f"dry run without kprobes: {p.returncode} {p.stderr}")
    check("no kprobes on this kernel" in p.stdout + p.stderr, f"no kprobes not reported: {p.stdout}{p.stderr}")
    recorded = [l.split()[1] for l in p.stdout.splitlines() if l.startswith("record ")]
    check(sorted(recorded) == sorted(fallbacks), f"without kprobes it records {recorded}, fallbacks {fallbacks}")
    check(not os.path.exists(os.path.join(root, "kprobe_events")), "kprobe_events created")

    # uprobes: the libc set, offsets checked against readelf
    p = run([RECORD, "--probes", "libc", "--libc-probes", "--no-ftrace", "-o", os.path.join(tmp, "u.data"),
             "--", "true"], env=env)
    check(p.returncode != 0, "perf cannot record probes the kernel never made: rsp-record should fail")
    want = probe_definitions("libc.probes", "uprobe")
    adds, removes, text = adds_removes("uprobe_events")
    check(adds and sorted(removes) == sorted(adds), f"uprobes removed {removes}, written {adds}")
    check(set(adds) <= set(want), f"uprobes written {adds} not in the set {sorted(want)}")
    check("rsp_libc/poll" in adds, f"no poll uprobe: {text!r}")
    for m in re.finditer(r"p:rsp_libc/(\w+) (/[^:]+):0x([0-9a-f]+)", text):
        func, lib, off = m.group(1), m.group(2), int(m.group(3), 16)
        check(off == elf_file_offset(lib, want[f"rsp_libc/{func}"][1]),
              f"{func}: offset {off:#x} in {lib}, readelf says {elf_file_offset(lib, func):#x}")
    # a bad root is an error, not a fallback to the real one
    p = run([RECORD, "--dry-run", "--", "true"], env=dict(os.environ, RSP_TRACEFS=os.path.join(tmp, "none")))
    check(p.returncode != 0 and "RSP_TRACEFS" in p.stderr, f"bad RSP_TRACEFS: {p.returncode} {p.stderr}")


PINGPONG_TIMED = r"""
import os, sys, time
secs, nap = float(sys.argv[1]), float(sys.argv[2])
a_r, a_w = os.pipe()
b_r, b_w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(a_w)
    os.close(b_r)
    while os.read(a_r, 1):
        os.write(b_w, b'y')
    os._exit(0)
os.close(a_r)
os.close(b_w)
print("pingpong", os.getpid(), pid, flush=True)
end = time.time() + secs
n = 0
while time.time() < end:
    os.write(a_w, b'x')
    os.read(b_r, 1)
    n += 1
    if nap:
        time.sleep(nap)
os.close(a_w)
os.waitpid(pid, 0)
print("rounds", n, flush=True)
"""


def pid_oracle(data, pids):
    """perf script's view of PIDS: switch-outs (sched_switch prev_pid), wakeups, exits."""
    out = {p: {"switch": 0, "woken": 0, "exit": 0} for p in pids}
    for line in perf_script(data).splitlines():
        m = re.search(r"sched:sched_switch:.*prev_pid=(\d+)", line)
        if m and m.group(1) in out:
            out[m.group(1)]["switch"] += 1
        m = re.search(r"sched:sched_wak(?:eup|ing):.*pid=(\d+)", line)
        if m and m.group(1) in out:
            out[m.group(1)]["woken"] += 1
        m = re.search(r"sched:sched_process_exit:.*pid=(\d+)", line)
        if m and m.group(1) in out:
            out[m.group(1)]["exit"] += 1
    # perf's own switch records (--switch-events; its tracking event is on for all of perf's
    # life, not only the -D window): one OUT a run ended
    p = run(["perf", "script", "-i", data, "--show-switch-events", "-F", "tid"], timeout=300)
    check(p.returncode == 0, f"perf script --show-switch-events fails: {p.stderr[-2000:]}")
    for p_ in pids:
        out[p_]["switch_records"] = 0
    for line in p.stdout.splitlines():
        w = line.split()
        if len(w) >= 3 and w[1].startswith("PERF_RECORD_SWITCH") and w[2] == "OUT" and w[0] in out:
            out[w[0]]["switch_records"] += 1
    return out


def check_pid_recording(data, parent, child):
    """The recording of -p PARENT: rsp's reader and rsp-summary find PARENT and CHILD with the
    scheduler events perf script finds for them."""
    meta = read_meta(data)
    check_side_files(data, meta)
    check(meta["recording"].get("mode") == "pid", "meta: mode")
    check(meta["recording"].get("workload_pid") == parent, "meta: workload_pid")
    want = pid_oracle(data, (parent, child))
    for pid in (parent, child):
        check(want[pid]["switch"] >= 100, f"perf script: pid {pid} switched out {want[pid]['switch']} times only")
        check(want[pid]["woken"] > 0, f"perf script: pid {pid} never woken")
    p = run([DUMP, "--format=jsonl", data], timeout=300)
    check(p.returncode == 0, f"rsp-dump fails on {data}: {p.stderr[-2000:]}")
    got = {parent: 0, child: 0}
    for line in p.stdout.splitlines():
        e = json.loads(line)
        f = e.get("fields", {})
        if e["event"] == "sched:sched_switch" and str(f.get("prev_pid")) in got:
            got[str(f["prev_pid"])] += 1
    for pid in (parent, child):
        check(got[pid] == want[pid]["switch"], f"rsp-dump: pid {pid} switched out {got[pid]} times, perf script {want[pid]['switch']}")
    summary = os.environ.get("RSP_SUMMARY")
    check(summary, "RSP_SUMMARY not set")
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    p = run([summary, "--tasks", "--format=json", data], timeout=300, env=env)
    check(p.returncode == 0, f"rsp-summary fails on {data}: {p.stderr[-2000:]}")
    tasks = {str(t["tid"]): t for t in json.loads(p.stdout) if str(t["pid"]) in (parent, child)}
    for pid in (parent, child):
        check(pid in tasks, f"rsp-summary has no task {pid}")
        t = tasks[pid]
        n = want[pid]["switch_records"]
        print(f"pid {pid}: perf script: {want[pid]['switch']} sched_switch out, {n} switch records OUT; "
              f"rsp-summary: {t['runs']} runs, {t['sleeps']} sleeps")
        # rsp-summary builds runs from perf's switch records: each OUT record ends a run (the
        # first or last may be cut by the recording's ends)
        check(abs(t["runs"] - n) <= 2, f"rsp-summary: task {pid} has {t['runs']} runs, perf script {n} switch records OUT")
        check(n >= want[pid]["switch"], f"fewer switch records than sched_switch for {pid}: {want[pid]}")
        check(t["sleeps"] > 0 and t["runtime_ms"] > 0, f"rsp-summary: task {pid}: {t}")
    check_dump(data, meta)
    return want


def test_pid(tmp):
    """rsp-record -p PID: a ping-pong pair started beforehand, recorded for --duration 1 while it
    runs on; then another recorded until it exits by itself."""
    work = subprocess.Popen([sys.executable, "-c", PINGPONG_TIMED, "30", "0.0005"], stdout=subprocess.PIPE, text=True)
    try:
        parent, child = work.stdout.readline().split()[1:3]
        check(parent == str(work.pid), "the workload printed another pid")
        data = os.path.join(tmp, "p.data")
        t0 = time.time()
        p = record(data, "-p", parent, "--duration", "1", timeout=120)
        check(p.returncode == 0, f"rsp-record -p {parent} --duration 1: status {p.returncode}")
        check(work.poll() is None, "the workload ended before the duration: the test proves nothing")
        d = float(read_meta(data)["recording"].get("duration_s"))
        check(0.95 <= d <= 2.0, f"recorded {d} s for --duration 1")
        print(f"-p --duration 1: {time.time() - t0:.2f} s in all")
        want = check_pid_recording(data, parent, child)
        check(want[parent]["exit"] == 0, "the process exited inside the --duration 1 window?")
        check(work.poll() is None, "rsp-record -p ended the process it recorded")
    finally:
        work.kill()
        work.wait()
    check_nothing_left(data)

    # until it exits: the recording holds the process's exit, and stops soon after
    work = subprocess.Popen([sys.executable, "-c", PINGPONG_TIMED, "6", "0.0005"], stdout=subprocess.PIPE, text=True)
    try:
        parent, child = work.stdout.readline().split()[1:3]
        data = os.path.join(tmp, "e.data")
        proc = subprocess.Popen([RECORD, "-o", data, "-p", parent], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        rounds = int(work.stdout.readline().split()[1])
        work.wait(timeout=60)
        t_exit = time.time()
        out, err = proc.communicate(timeout=120)
        sys.stderr.write(err)
        check(proc.returncode == 0, f"rsp-record -p {parent}: status {proc.returncode}")
        check(f"process {parent} ended" in err, "rsp-record did not say the process ended")
        check(time.time() - t_exit < 30, "rsp-record took long to notice the process ended")
    finally:
        if work.poll() is None:
            work.kill()
            work.wait()
    want = check_pid_recording(data, parent, child)
    check(want[parent]["exit"] >= 1 and want[child]["exit"] >= 1,
          f"the recording lacks the exits of {parent} and {child}: {want}")
    check(want[parent]["switch"] <= 3 * rounds + 10, f"more switch-outs of {parent} than rounds: {want} {rounds}")
    check_nothing_left(data)


# ---- cleanup of kprobes and uprobes, on a fake tracefs root -------------------------------
#
# This kernel may have no kprobes, and the real probes would need a real workload to prove
# anything: the cleanup cases run rsp-record on a fake tracefs root (RSP_TRACEFS) whose
# kprobe_events/uprobe_events are plain files, with a perf wrapper first in PATH
# (tests/record/fake_perf.py) that drops the rsp_* probe events from perf's -e lists and logs
# what the probe files held when perf started. A plain file is append-only where the kernel's
# is a set: the kernel's set is replayed from it here ("p:"/"r:" adds, "-:" removes).

def probe_replay(text):
    """The probes the kernel would hold after the writes in TEXT, and the errors it would give
    (removing a probe that is not there, defining one twice)."""
    live, errors = {}, []
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"^([pr-]):(?:(\w+)/)?(\w+)(?:\s+(.*))?$", line)
        if not m:
            if line:
                errors.append(f"not a probe command: {line!r}")
            continue
        op, group, name, rest = m.groups()
        key = f"{group}/{name}" if group else name
        if op == "-":
            if key in live:
                del live[key]
            else:
                errors.append(f"removes {key}, which is not defined")
        elif key in live:
            errors.append(f"defines {key} twice")
        else:
            live[key] = line
    return live, errors


def kernel_settings():
    files = ["/proc/sys/kernel/perf_event_paranoid", "/proc/sys/kernel/perf_event_mlock_kb",
             "/proc/sys/kernel/kptr_restrict", "/proc/sys/kernel/nmi_watchdog"]
    files += [os.path.join(TRACEFS, f) for f in ("tracing_on", "current_tracer", "trace_clock",
                                                  "kprobe_events", "uprobe_events", "buffer_size_kb")]
    out = {}
    for f in files:
        try:
            out[f] = open(f).read()
        except OSError:
            pass
    return out


class FakeTracefs:
    """A tracefs root of plain files, the perf wrapper, and what the recording must leave as it was."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.root = os.path.join(tmp, "tracefs")
        os.makedirs(os.path.join(self.root, "instances"))
        # the tracepoints are the kernel's: rsp-record checks that each exists under events/
        os.symlink(os.path.join(TRACEFS, "events"), os.path.join(self.root, "events"))
        for f in ("kprobe_events", "uprobe_events"):
            open(os.path.join(self.root, f), "w").close()
        self.bin = os.path.join(tmp, "bin")
        os.makedirs(self.bin)
        self.log = os.path.join(tmp, "perf-log")
        os.makedirs(self.log)
        real = shutil.which("perf")
        wrapper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_perf.py")
        with open(os.path.join(self.bin, "perf"), "w") as f:
            f.write(f"#!/bin/sh\nexec '{sys.executable}' '{wrapper}' \"$@\"\n")
        os.chmod(os.path.join(self.bin, "perf"), 0o755)
        self.env = dict(os.environ, RSP_TRACEFS=self.root, RSP_FAKE_PERF_LOG=self.log,
                        RSP_REAL_PERF=real, PATH=self.bin + os.pathsep + os.environ.get("PATH", ""))
        self.kprobes = probe_definitions("net.probes", "kprobe")
        self.uprobes = probe_definitions("libc.probes", "uprobe")
        check(len(self.kprobes) >= 6 and len(self.uprobes) >= 6, "the net/libc sets lost their probes")
        self.settings = kernel_settings()

    def args(self, data):
        # the default set: the paper's tcp/udp kprobes (the fake root has kprobe_events), and the
        # libc uprobes; no ftrace instance, which would be made in the fake root
        return [RECORD, "-o", data, "--libc-probes", "--no-ftrace"]

    def start(self, data, command):
        for f in os.listdir(self.log):
            os.unlink(os.path.join(self.log, f))
        errf = open(os.path.join(self.tmp, os.path.basename(data) + ".stderr"), "w+")
        proc = subprocess.Popen(self.args(data) + ["--", *command], env=self.env, stdout=subprocess.PIPE,
                                stderr=errf, text=True, start_new_session=True)
        return proc, errf

    def wait_recording(self, errf):
        check(wait_for(lambda: "recording the whole system" in open(errf.name).read(), 60),
              f"rsp-record did not start recording: {open(errf.name).read()}")
        m = re.search(r"recording the whole system while \S+ runs \(pid (\d+)\)", open(errf.name).read())
        check(m, "rsp-record did not say the command's pid")
        return int(m.group(1))

    def finish(self, proc, errf, timeout=120):
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise Failure("rsp-record did not end")
        errf.seek(0)
        err = errf.read()
        sys.stderr.write(err)
        return rc, err

    def check_all(self, data, rc, want_rc, err, recorded=True):
        """The cleanup is complete and (RECORDED) the recording is whole."""
        check(rc == want_rc, f"rsp-record exited {rc}, {want_rc} expected")
        check("rsp-record: error" not in err, "rsp-record reported an error")
        logs = [json.load(open(os.path.join(self.log, f))) for f in sorted(os.listdir(self.log))]
        records = [l for l in logs if l["argv"][0] == "record"]
        check(len(records) == 1, f"{len(records)} perf record started, 1 expected")
        check(any(l["argv"][0] == "stat" for l in logs), "no perf stat started (the loss check)")
        # during the recording the probes were there, all of the set's kprobes, libc uprobes
        for f, want, kind in (("kprobe_events", self.kprobes, "kprobe"), ("uprobe_events", self.uprobes, "uprobe")):
            live, errors = probe_replay(records[0]["files"][f])
            check(not errors, f"{f} at perf's start: {errors}")
            rsp = sorted(k for k in live if k.startswith("rsp_"))
            if kind == "kprobe":
                check(rsp == sorted(want), f"{f} at perf's start holds {rsp}, the net set has {sorted(want)}")
            else:
                check(rsp and set(rsp) <= set(want) and "rsp_libc/poll" in rsp,
                      f"{f} at perf's start holds {rsp}, the libc set has {sorted(want)}")
            # and perf was asked to record them (the wrapper took them out of its -e)
            dropped = {d.split("/")[0].replace(":", "/") for d in records[0]["dropped"]}
            check(set(rsp) <= dropped, f"perf record was not asked for {set(rsp) - dropped}")
        # after it: none left, and no removal the kernel would have refused
        for f in ("kprobe_events", "uprobe_events"):
            text = open(os.path.join(self.root, f)).read()
            live, errors = probe_replay(text)
            check(not errors, f"{f}: {errors}")
            left = [k for k in live if k.startswith("rsp_")]
            check(not left, f"{f}: probes left behind: {left}")
            # what the kernel's file would read now, for the next case
            with open(os.path.join(self.root, f), "w") as fh:
                fh.write("".join(l + "\n" for l in live.values()))
        check(not os.listdir(os.path.join(self.root, "instances")), "an ftrace instance in the fake root")
        # no perf process left: the wrapper's pids are the perf processes' (exec)
        pids = [l["pid"] for l in logs]
        check(wait_for(lambda: not [p for p in pids if os.path.exists(f"/proc/{p}")], 10),
              f"perf processes left: {[p for p in pids if os.path.exists(f'/proc/{p}')]}")
        p = run(["pgrep", "-f", f"perf record .*{re.escape(data)}"])
        check(p.stdout.strip() == "", f"pgrep finds a perf record of {data}: {p.stdout}")
        after = kernel_settings()
        if other_rsp_record_running():  # its probes are its own business
            for f in ("kprobe_events", "uprobe_events"):
                after.pop(os.path.join(TRACEFS, f), None)
        changed = {k: (v, after.get(k)) for k, v in self.settings.items() if k in after and after.get(k) != v}
        check(not changed, f"settings changed: {changed}")
        if not recorded:
            return None
        # the recording decodes: perf script and rsp's reader agree on sched_switch
        meta = read_meta(data)
        counts = event_counts(data)
        check(counts.get("sched:sched_switch", 0) > 0, f"no sched_switch in {data}: {counts}")
        rec, _ = loss(meta, "sched:sched_switch")
        check(rec == counts["sched:sched_switch"], f"meta: {rec} sched_switch, perf script {counts['sched:sched_switch']}")
        check_dump(data, meta)
        kp = [x.split("=", 1)[0] for x in meta_list(meta, "recording", "kprobes")]
        check(sorted(kp) == sorted(k.replace("/", ":") for k in self.kprobes), f"meta: kprobes {kp}")
        return meta


def real_uprobes_case(tmp, name, stop):
    """The same on this machine's own tracefs, where it has uprobes: the libc uprobes are in
    uprobe_events while rsp-record records, and gone after STOP(rsp-record's Popen, the
    command's pid) ends the recording. Returns rsp-record's status."""
    if not os.path.exists(os.path.join(TRACEFS, "uprobe_events")):
        print("no uprobes on this kernel: the real-tracefs case is skipped")
        return None
    data = os.path.join(tmp, name + ".data")
    errf = open(os.path.join(tmp, name + ".stderr"), "w+")
    before = kernel_settings()
    proc = subprocess.Popen([RECORD, "-o", data, "--libc-probes", "--", "sleep", "30"],
                            stdout=subprocess.PIPE, stderr=errf, text=True, start_new_session=True)
    check(wait_for(lambda: "recording the whole system" in open(errf.name).read(), 90),
          f"rsp-record did not start recording: {open(errf.name).read()}")
    work = int(re.search(r"runs \(pid (\d+)\)", open(errf.name).read()).group(1))
    during = [l for l in open(os.path.join(TRACEFS, "uprobe_events")).read().splitlines()
              if l.startswith("p:rsp_libc/")]
    check(any(l.startswith("p:rsp_libc/poll ") for l in during), f"no libc uprobe while recording: {during}")
    time.sleep(0.3)
    stop(proc, work)
    try:
        rc = proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Failure("rsp-record did not end")
    errf.seek(0)
    sys.stderr.write(errf.read())
    check(not os.path.exists(f"/proc/{work}"), f"the command (pid {work}) still runs")
    check_nothing_left(data, proc.pid)
    if not other_rsp_record_running():
        left = [l for l in open(os.path.join(TRACEFS, "uprobe_events")).read().splitlines() if "rsp_" in l]
        check(not left, f"uprobes left: {left}")
        after = kernel_settings()
        after.pop(os.path.join(TRACEFS, "uprobe_events"), None)
        before.pop(os.path.join(TRACEFS, "uprobe_events"), None)
        check(after == before, f"settings changed: {before} -> {after}")
    meta = read_meta(data)
    up = [x.split("=", 1)[0] for x in meta_list(meta, "recording", "uprobes")]
    check("rsp_libc:poll" in up, f"meta: uprobes {up}")
    check_dump(data, meta)
    return rc


def test_cleanup_end(tmp):
    """A normal end: the command exits (status 3), every probe is removed."""
    fk = FakeTracefs(tmp)
    data = os.path.join(tmp, "end.data")
    proc, errf = fk.start(data, ["sh", "-c", "for i in 1 2 3 4 5; do ls / >/dev/null; sleep 0.05; done; exit 3"])
    rc, err = fk.finish(proc, errf)
    meta = fk.check_all(data, rc, 3, err)
    check(meta["recording"].getint("exit_status") == 3, "meta: exit_status")
    check(not meta["recording"].getboolean("interrupted"), "meta: interrupted")


def test_cleanup_sigint(tmp):
    """Ctrl-C in mid-recording: SIGINT to rsp-record's process group (the command's too); then to
    rsp-record alone (kill -INT), which passes it on. 130 both times, every probe removed."""
    fk = FakeTracefs(tmp)
    for i, group in enumerate((True, False)):
        data = os.path.join(tmp, f"int{i}.data")
        proc, errf = fk.start(data, ["sleep", "30"])
        work = fk.wait_recording(errf)
        time.sleep(0.5)
        t0 = time.time()
        if group:
            os.killpg(proc.pid, signal.SIGINT)
        else:
            os.kill(proc.pid, signal.SIGINT)
        rc, err = fk.finish(proc, errf)
        check(time.time() - t0 < 30, "rsp-record took the command's whole time after SIGINT")
        check(not os.path.exists(f"/proc/{work}"), f"the command (pid {work}) still runs")
        meta = fk.check_all(data, rc, 128 + signal.SIGINT, err)
        check(meta["recording"].getboolean("interrupted"), "meta: interrupted")
        check(meta["recording"].getint("exit_status") == 128 + signal.SIGINT, "meta: exit_status")
    rc = real_uprobes_case(tmp, "real-int", lambda proc, work: os.killpg(proc.pid, signal.SIGINT))
    check(rc in (None, 128 + signal.SIGINT), f"real tracefs, SIGINT: rsp-record exited {rc}")


def test_cleanup_early_sigint(tmp):
    """SIGINT while perf is still starting (after the probes are made, before the recording is
    on): 130, nothing recorded, and still every probe removed and perf gone."""
    fk = FakeTracefs(tmp)
    data = os.path.join(tmp, "early.data")
    proc, errf = fk.start(data, ["sleep", "30"])
    # the wrapper logs perf stat and perf record as it starts them: the probes are made by then
    def started():
        subs = set()
        for f in os.listdir(fk.log):
            try:
                subs.add(json.load(open(os.path.join(fk.log, f)))["argv"][0])
            except (OSError, ValueError):
                pass  # being written
        return {"record", "stat"} <= subs
    check(wait_for(started, 60), "perf record and perf stat were not started")
    os.killpg(proc.pid, signal.SIGINT)
    rc, err = fk.finish(proc, errf)
    if "recording the whole system" in err:
        print("the recording was on before SIGINT came: this run checks a normal SIGINT")
        fk.check_all(data, rc, 128 + signal.SIGINT, err)
        return
    check("interrupted while perf" in err, f"rsp-record did not say it was interrupted while starting: {err}")
    check(not os.path.exists(data + ".meta"), "a .meta for a recording that never started")
    fk.check_all(data, rc, 128 + signal.SIGINT, err, recorded=False)


def test_cleanup_killed_workload(tmp):
    """The command killed by SIGKILL from outside: rsp-record ends with 128+9 (as a shell
    reports it), the recording whole, every probe removed."""
    fk = FakeTracefs(tmp)
    data = os.path.join(tmp, "kill.data")
    proc, errf = fk.start(data, ["sleep", "30"])
    work = fk.wait_recording(errf)
    time.sleep(0.5)
    os.kill(work, signal.SIGKILL)
    rc, err = fk.finish(proc, errf)
    meta = fk.check_all(data, rc, 128 + signal.SIGKILL, err)
    check(meta["recording"].getint("exit_status") == 128 + signal.SIGKILL, "meta: exit_status")
    check(not meta["recording"].getboolean("interrupted"), "meta: interrupted (nobody interrupted rsp-record)")
    rc = real_uprobes_case(tmp, "real-kill", lambda proc, work: os.kill(work, signal.SIGKILL))
    check(rc in (None, 128 + signal.SIGKILL), f"real tracefs, workload killed: rsp-record exited {rc}")


TESTS = {name[len("test_"):].replace("_", "-"): fn for name, fn in globals().items() if name.startswith("test_")}


def main():
    name = sys.argv[1]
    if name not in TESTS:
        print(f"unknown test {name}; tests: {' '.join(TESTS)}", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("skipped: rsp-record tests record the whole system and need root")
        return SKIP
    if not shutil.which("perf"):
        print("skipped: no perf")
        return SKIP
    if not os.path.isdir(os.path.join(TRACEFS, "events")):
        # not mounted here (a fresh chroot, a container): mount it in a private mount namespace of this test
        # only, so the host's mounts stay as they are
        if not os.environ.get("RSP_RECORD_TEST_MOUNTED") and shutil.which("unshare"):
            # only where / is a mount point ("--propagation private" fails in a chroot; there perf also reads
            # back no trace data from a tracefs mounted this way: the suite is skipped)
            probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"], capture_output=True)
            if probe.returncode == 0:
                env = dict(os.environ, RSP_RECORD_TEST_MOUNTED="1")
                script = ('mount -t tracefs nodev "$1" || '
                          '{ echo "skipped: cannot mount tracefs on $1 in a private mount namespace"; exit 77; }; '
                          'shift; exec "$@"')
                p = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh",
                                    TRACEFS, sys.executable, os.path.abspath(__file__), name], env=env)
                return p.returncode
        print("skipped: tracefs is not mounted on /sys/kernel/tracing (and mounting it in a private mount "
              "namespace failed)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix=f"rsp-record-test-{name}-")
    try:
        TESTS[name](tmp)
    except Failure as e:
        print(f"FAIL {name}: {e}", file=sys.stderr)
        print(f"(files kept in {tmp})", file=sys.stderr)
        return 1
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"ok {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
