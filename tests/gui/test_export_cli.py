"""rsp-view --export on real recordings, without any display: PNG and SVG written with the
requested size; bad input gives a message naming the file and a non-zero exit."""
import os
import struct
import subprocess
import sys
import tempfile

view = os.environ["RSP_VIEW"]
root = os.environ["RSP_SOURCE_ROOT"]
rec = os.path.join(root, "data/sample.perf.data")
env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
failures = 0

def check(cond, what):
    global failures
    if not cond:
        print("FAIL", what)
        failures += 1

def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "v.png")
    p = subprocess.run([view, "--export", out, "--width", "900", "--height", "500", rec], env=env,
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"export png: {p.returncode} {p.stderr}")
    check(os.path.exists(out) and png_size(out) == (900, 500), "png size 900x500")
    out2 = os.path.join(d, "v.svg")
    p = subprocess.run([view, "--export", out2, "--range", "10ms:20ms", rec], env=env,
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f"export svg: {p.returncode} {p.stderr}")
    check(os.path.exists(out2) and b"<svg" in open(out2, "rb").read(4096), "svg written")
    p = subprocess.run([view, "--export", out, "--range", "20ms:10ms", rec], env=env,
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and "--range" in p.stderr, f"bad range: {p.returncode} {p.stderr}")
    missing = os.path.join(d, "missing.data")
    p = subprocess.run([view, "--export", out, missing], env=env, capture_output=True, text=True, timeout=60)
    check(p.returncode != 0 and "missing.data" in p.stderr, f"missing file: {p.returncode} {p.stderr}")
    p = subprocess.run([view, "--export", os.path.join(d, "v.jpg"), rec], env=env, capture_output=True, text=True,
                       timeout=60)
    check(p.returncode != 0 and ".png or .svg" in p.stderr, f"bad extension: {p.returncode} {p.stderr}")
    p = subprocess.run([view, "--export", out, "--flame", "999999", rec], env=env, capture_output=True, text=True,
                       timeout=60)
    check(p.returncode == 1 and "999999" in p.stderr, f"flame view of a pid not in the file: {p.returncode} {p.stderr}")
    flame_rec = os.path.join(root, "tests/analysis/data/shell-sleep-dd-python.data")
    out3 = os.path.join(d, "flame.png")
    p = subprocess.run([view, "--export", out3, "--flame", "20241", "-W", "1000", "-H", "300", flame_rec], env=env,
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and os.path.exists(out3) and png_size(out3) == (1000, 300),
          f"flame export: {p.returncode} {p.stderr}")
    out4 = os.path.join(d, "cons.svg")
    p = subprocess.run([view, "--export", out4, "--flame", "20241", "--consolidated", flame_rec], env=env,
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and b"<svg" in open(out4, "rb").read(4096), f"consolidated export: {p.returncode} {p.stderr}")
    p = subprocess.run([view, "--export", out4, "--consolidated", flame_rec], env=env,
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and "--flame" in p.stderr, "--consolidated without --flame refused")
print("failures:", failures)
sys.exit(1 if failures else 0)
