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

def png_pixels(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG, decoded here (no PIL)."""
    import zlib
    data = open(path, "rb").read()
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev, stride = zlib.decompress(idat), [], bytearray(w * bpp), w * bpp
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows

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
    # --search outlines the matching flame frames in the match colour (#ffd900), only then
    match = (255, 217, 0)
    counts = {}
    for search in (None, "poll"):
        out5 = os.path.join(d, f"flame-{search}.png")
        args = [view, "--export", out5, "--flame", "20195", "--range", "45ms:70ms", "-W", "1000", "-H", "400"]
        p = subprocess.run(args + (["--search", search] if search else []) + [flame_rec], env=env,
                           capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, f"flame export with --search {search}: {p.returncode} {p.stderr}")
        _, _, rows = png_pixels(out5)
        counts[search] = sum(px == match for row in rows for px in row)
    check(counts[None] == 0 and counts["poll"] > 50, f"--search poll outlines frames in the flame export: {counts}")
    out6 = os.path.join(d, "cons-search.png")
    p = subprocess.run([view, "--export", out6, "--flame", "20195", "--consolidated", "--search", "poll", "-W", "1000",
                        flame_rec], env=env, capture_output=True, text=True, timeout=120)
    _, _, rows = png_pixels(out6)
    check(p.returncode == 0 and sum(px == match for row in rows for px in row) > 50,
          f"--search poll outlines frames in the consolidated export: {p.returncode} {p.stderr}")
    out4 = os.path.join(d, "cons.svg")
    p = subprocess.run([view, "--export", out4, "--flame", "20241", "--consolidated", flame_rec], env=env,
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0 and b"<svg" in open(out4, "rb").read(4096), f"consolidated export: {p.returncode} {p.stderr}")
    p = subprocess.run([view, "--export", out4, "--consolidated", flame_rec], env=env,
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and "--flame" in p.stderr, "--consolidated without --flame refused")
print("failures:", failures)
sys.exit(1 if failures else 0)
