"""Issue 7 in rsp-view, under Xvfb and headless.

The histograms pane (rsp-view --self-test FILE drives it in-process: the profiles listed and sorted,
a bucket clicked lists instances of that bucket's length and highlights them in the running view,
the heat map's cells add up to the profile, a process and a time range selected filter the
profiles) and the compare window (rsp-view --self-test --diff A B) open, stay up and close with
exit 0. The oracle for the compare window is how tests/profiles/data/record.sh made the pair:
added-5ms.data is base.data (600 us x 200) plus 40 sleeps of 5 ms, so the sleeper's waits must
rank first, with 200 instances in bucket 19 [524 us, 1.05 ms) in both and 40 in bucket 22
[4.19 ms, 8.39 ms) in B only. The --export options must write images of the promised size, and bad
input must fail naming the file or the option."""
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

# rsp-view remembers its settings in $XDG_CONFIG_HOME: a directory of the test's own, not $HOME
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="rsp-view-config-")

view = os.environ["RSP_VIEW"]
root = os.environ["RSP_SOURCE_ROOT"]
data = os.path.join(root, "tests/profiles/data")
base, added = os.path.join(data, "base.data"), os.path.join(data, "added-5ms.data")
failures = 0


def fail(msg):
    global failures
    print("FAIL", msg)
    failures += 1


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def gui(args):
    env = dict(os.environ, NO_AT_BRIDGE="1", GDK_BACKEND="x11")
    env.pop("DISPLAY", None)
    return subprocess.run(["xvfb-run", "-n", "300", "-a", "-s", "-screen 0 1280x800x24", view, "--self-test"] + args,
                          capture_output=True, text=True, timeout=240, env=env)


def self_test_lines(p, what):
    print(p.stdout)
    print(p.stderr, file=sys.stderr)
    lines = [l for l in p.stdout.splitlines() if l.startswith("self-test:")]
    bad = [l for l in lines if "FAILED" in l]
    if p.returncode != 0 or bad:
        fail(f"{what}: exit {p.returncode}, failed: {bad}")
    if "CRITICAL" in p.stderr:
        fail(f"{what}: GLib criticals on stderr")
    return lines


# ---- headless export (no display needed) ----
with tempfile.TemporaryDirectory() as d:
    cls = "wait clock_nanosleep@GLIBC_2.2.5"
    out = os.path.join(d, "h.png")
    p = subprocess.run([view, "--export", out, "--histogram", cls, added], capture_output=True, text=True)
    size = png_size(out) if os.path.exists(out) else None
    if p.returncode != 0 or not size or size[0] != 1000 or size[1] < 420:  # 420 + the loss warnings' banner
        fail(f"--histogram export: exit {p.returncode}, size {size}, {p.stderr}")
    p = subprocess.run([view, "--export", out, "--histogram", cls, "--pid", "29176", "-W", "640", "-H", "300", added],
                       capture_output=True, text=True)
    if p.returncode != 0 or png_size(out) != (640, 300):
        fail(f"--histogram --pid -W -H export: exit {p.returncode}, size {png_size(out)}, {p.stderr}")
    p = subprocess.run([view, "--export", out, "--histogram", cls, "--pid", "1", added], capture_output=True, text=True)
    if p.returncode == 0 or "added-5ms.data" not in p.stderr:
        fail(f"--histogram --pid of a process with no such profile: exit {p.returncode}, {p.stderr!r}")
    out = os.path.join(d, "m.png")
    p = subprocess.run([view, "--export", out, "--heatmap", cls, "--slice", "50ms", "-W", "700", added],
                       capture_output=True, text=True)
    size = png_size(out) if os.path.exists(out) else None
    if p.returncode != 0 or not size or size[0] != 700 or size[1] < 320:
        fail(f"--heatmap export: exit {p.returncode}, size {size}, {p.stderr}")
    out = os.path.join(d, "m.svg")
    p = subprocess.run([view, "--export", out, "--heatmap", cls, added], capture_output=True, text=True)
    if p.returncode != 0 or b"<svg" not in open(out, "rb").read(400):
        fail(f"--heatmap SVG export: exit {p.returncode}, {p.stderr}")
    out = os.path.join(d, "d.png")
    p = subprocess.run([view, "--export", out, "--diff", base, added], capture_output=True, text=True)
    size = png_size(out) if os.path.exists(out) else None
    if p.returncode != 0 or not size or size[0] != 1200:
        fail(f"--diff export: exit {p.returncode}, size {size}, {p.stderr}")
    p = subprocess.run([view, "--export", os.path.join(d, "x.png"), "--histogram", "no such class", added],
                       capture_output=True, text=True)
    if p.returncode == 0 or "added-5ms.data" not in p.stderr or "no such class" not in p.stderr:
        fail(f"unknown class: exit {p.returncode}, {p.stderr!r}")
    p = subprocess.run([view, "--export", os.path.join(d, "x.png"), "--heatmap", cls, "--slice", "soon", added],
                       capture_output=True, text=True)
    if p.returncode != 2 or "--slice" not in p.stderr:
        fail(f"bad --slice: exit {p.returncode}, {p.stderr!r}")
    p = subprocess.run([view, "--export", os.path.join(d, "x.png"), "--diff", base], capture_output=True, text=True)
    if p.returncode != 2 or "--diff" not in p.stderr:
        fail(f"--diff with one file: exit {p.returncode}, {p.stderr!r}")
    missing = os.path.join(d, "missing.data")
    p = subprocess.run([view, "--export", os.path.join(d, "x.png"), "--diff", base, missing], capture_output=True,
                       text=True)
    if p.returncode == 0 or "missing.data" not in p.stderr:
        fail(f"--diff with a missing file: exit {p.returncode}, {p.stderr!r}")

if not shutil.which("xvfb-run"):
    print("xvfb-run not installed: the window checks skipped")
    print("failures:", failures)
    sys.exit(1 if failures else 77)

# ---- the histograms pane in the main window ----
for rec in [added, os.path.join(root, "data/sample.perf.data")]:
    p = gui([rec])
    lines = self_test_lines(p, rec)
    for want in ["the histograms pane is on screen", "filters the histograms",
                 "the histograms pane lists the profiles", "the profiles are sorted by total latency",
                 "lists its", "every instance listed lasts within the bucket's range",
                 "the heat map's cells add up to the profile's count", "every profile listed is of that process",
                 "every instance begins in it", "highlighted in the running view",
                 "double-clicking an instance shows it in the running view",
                 "accessible name of profiles_view", "accessible name of histogram_area",
                 "accessible name of heatmap_area", "accessible name of instances_view"]:
        if not any(l.startswith("self-test: ok:") and want in l for l in lines):
            fail(f"{rec}: no passing check '{want}'")
    if "self-test: done, closing" not in lines:
        fail(f"{rec}: did not close")

# ---- the compare window ----
p = gui(["--diff", base, added])
lines = self_test_lines(p, "--diff")
oks = [l for l in lines if l.startswith("self-test: ok:")]
if len(oks) < 15 or "self-test: compare window done, closing" not in lines:
    fail(f"--diff: {len(oks)} checks passed, closed: {'self-test: compare window done, closing' in lines}")
top = [l for l in lines if l.startswith("self-test: top pair:")]
if not top or "clock_nanosleep" not in top[0] or "profsleep" not in top[0]:
    fail(f"--diff: the sleeper's waits are not ranked first: {top}")
buckets = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
           for m in (re.match(r"self-test: bucket (-?\d+): A (\d+) B (\d+)", l) for l in lines) if m}
if buckets.get(19) != (200, 200) or buckets.get(22) != (0, 40):
    fail(f"--diff: the top pair's buckets are not the recordings' known sleeps: {buckets}")

# without the self-test, each window stays up on its own and its key closes it with exit 0: the main
# window with the histograms pane (Ctrl+Q), the compare window (Ctrl+W)
STAY_UP = r"""
"$VIEW" "$@" & pid=$!
sleep 4
kill -0 $pid || { echo "exited on its own"; exit 3; }
wid=$(xdotool search --name "$TITLE" | head -1)
[ -n "$wid" ] || { echo "no window named $TITLE"; kill $pid; exit 4; }
xdotool windowfocus --sync "$wid"; xdotool key "$KEY"
for i in $(seq 50); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
kill -0 $pid 2>/dev/null && { echo "still up after $KEY"; kill $pid; exit 5; }
wait $pid
"""
if shutil.which("xdotool"):
    for args, title, key in [([added], "rsp-view — ", "ctrl+q"),
                             (["--diff", base, added], "base.data vs added-5ms.data", "ctrl+w")]:
        env = dict(os.environ, NO_AT_BRIDGE="1", GDK_BACKEND="x11", VIEW=view, TITLE=title, KEY=key)
        env.pop("DISPLAY", None)
        p = subprocess.run(["xvfb-run", "-n", "350", "-a", "-s", "-screen 0 1280x800x24", "sh", "-c", STAY_UP, "sh"] + args,
                           capture_output=True, text=True, timeout=120, env=env)
        if p.returncode != 0 or "CRITICAL" in p.stderr or "WARNING" in p.stderr:
            fail(f"{args}: left up, then {key}: exit {p.returncode}, {p.stdout!r} {p.stderr!r}")
else:
    print("xdotool not installed: the stay-up-and-close checks skipped")

with tempfile.TemporaryDirectory() as d:
    p = gui(["--diff", base, os.path.join(d, "missing.data")])
    if p.returncode == 0 or "missing.data" not in p.stderr:
        fail(f"--diff with a missing file under Xvfb: exit {p.returncode}, {p.stderr!r}")

print("failures:", failures)
sys.exit(1 if failures else 0)
