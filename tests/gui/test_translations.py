"""The French translation (po/fr.po) is complete and is what rsp-view shows under LANGUAGE=fr: every message of
po/rsp.pot has a translation (msgcmp), the .po is valid (msgfmt -c), --help's summary line and the window's
accessible names are the .po's msgstr for their English msgid (read here from the .po itself), and the app runs and
closes cleanly in French under Xvfb. RSP_LOCALEDIR points rsp-view at the build tree's compiled catalogues."""
import os
import re
import shutil
import subprocess
import sys

import tempfile as _tempfile
# rsp-view remembers its settings in $XDG_CONFIG_HOME: a directory of the test's own, not $HOME
os.environ["XDG_CONFIG_HOME"] = _tempfile.mkdtemp(prefix="rsp-view-config-")

view = os.environ["RSP_VIEW"]
root = os.environ["RSP_SOURCE_ROOT"]
build = os.environ["RSP_BUILD_ROOT"]
po = os.path.join(root, "po", "fr.po")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def po_entries(path):
    """msgid -> msgstr of a .po file (singular entries; escapes kept as written)."""
    text = open(path, encoding="utf-8").read()
    out = {}
    for m in re.finditer(r'^msgid ((?:"(?:[^"\\]|\\.)*"\n)+)msgstr ((?:"(?:[^"\\]|\\.)*"\n?)+)', text, re.M):
        join = lambda s: "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', s))
        out[join(m.group(1))] = join(m.group(2))
    return out


for tool in ("msgcmp", "msgfmt"):
    if not shutil.which(tool):
        print(f"{tool} not installed (gettext)")
        sys.exit(77)
p = subprocess.run(["msgcmp", po, os.path.join(root, "po", "rsp.pot")], capture_output=True, text=True)
check(p.returncode == 0, f"msgcmp: messages of rsp.pot missing from fr.po: {p.stderr[-600:]}")
p = subprocess.run(["msgfmt", "-c", "--statistics", "-o", os.devnull, po], capture_output=True, text=True)
check(p.returncode == 0 and "untranslated" not in p.stderr and "fuzzy" not in p.stderr, f"msgfmt: {p.stderr}")
fr = po_entries(po)
check(len(fr) > 100, f"only {len(fr)} entries in fr.po")
catalogue = os.path.join(build, "po", "fr", "LC_MESSAGES", "rsp.mo")
check(os.path.exists(catalogue), f"{catalogue} not built")

env = dict(os.environ, RSP_LOCALEDIR=os.path.join(build, "po"), LANGUAGE="fr", LC_ALL="C.UTF-8")
p = subprocess.run([view, "--help"], capture_output=True, text=True, env=env)
summary = fr["[FILE] - the views of an rsp recording"]
check(p.returncode == 0 and summary in p.stdout, f"--help in French should show {summary!r}: {p.stdout[:300]!r}")
check("Draw the view into" not in p.stdout, "--help still English")
p = subprocess.run([view, "--help"], capture_output=True, text=True, env=dict(env, LANGUAGE="", LC_ALL="C"))
check("[FILE] - the views of an rsp recording" in p.stdout, "--help in the C locale should stay English")

if shutil.which("xvfb-run"):
    xenv = dict(env, NO_AT_BRIDGE="1", GDK_BACKEND="x11")
    xenv.pop("DISPLAY", None)
    p = subprocess.run(["xvfb-run", "-n", "400", "-a", "-s", "-screen 0 1280x800x24", view, "--self-test",
                        os.path.join(root, "data", "sample.perf.data")],
                       capture_output=True, text=True, timeout=240, env=xenv)
    check(p.returncode == 0 and "self-test: done, closing" in p.stdout,
          f"French self-test: exit {p.returncode} {p.stdout[-500:]} {p.stderr[-500:]}")
    names = dict(re.findall(r'accessible name of (\w+) is "([^"]*)"', p.stdout))
    for wid, english in (("open_button", "Open recording"), ("search_entry", "Search"),
                         ("zoom_in_button", "Zoom in"), ("filter_entry", "Filter processes")):
        check(names.get(wid) == fr[english].replace("\\\"", "\""),
              f"{wid}: accessible name {names.get(wid)!r}, fr.po says {fr[english]!r}")
else:
    print("xvfb-run not installed: the window part is not checked")

print("failures:", len(failures))
sys.exit(1 if failures else 0)
