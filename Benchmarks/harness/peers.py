"""Peer scripts (pyvips, Pillow) the cases run as contenders."""

from __future__ import annotations

from harness.common import *  # noqa: F401,F403 (paths, run helpers, standard modules)


# ----------------------------------------------------------------------------------------------
# Peer scripts (pyvips, Pillow), each one process over a folder; they print their in-process time.

PYVIPS_TWICE = r'''
import sys, time, pathlib, json
t0 = time.perf_counter()
import pyvips
src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
t1 = time.perf_counter()
for f in sorted(src.glob("*.jpg")):
    thumb = pyvips.Image.thumbnail(str(f), 300, height=300, crop="attention")
    thumb.jpegsave(str(out / (f.stem + "-thumb.jpg")), Q=80, optimize_coding=True, strip=True)
    exp = pyvips.Image.thumbnail(str(f), 1200, height=600, crop="attention")
    exp.jpegsave(str(out / (f.stem + "-expanded.jpg")), Q=80, optimize_coding=True, strip=True)
print(json.dumps({"import_s": t1 - t0, "work_s": time.perf_counter() - t1}))
'''

# Decode once, like PushMedia: shrink-on-load to the smallest size both crops can be cut from,
# copy to memory, then both attention crops from that one decode.
PYVIPS_ONCE = r'''
import sys, time, pathlib, json
t0 = time.perf_counter()
import pyvips
src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
t1 = time.perf_counter()
for f in sorted(src.glob("*.jpg")):
    head = pyvips.Image.new_from_file(str(f))
    scale = max(1200 / head.width, 600 / head.height, 300 / min(head.width, head.height))
    scale = min(scale, 1.0)
    w, h = round(head.width * scale), round(head.height * scale)
    base = pyvips.Image.thumbnail(str(f), w, height=h, size="down").copy_memory()
    base.smartcrop(min(1200, w), min(600, h, w // 2), interesting="attention").jpegsave(
        str(out / (f.stem + "-expanded.jpg")), Q=80, optimize_coding=True, strip=True)
    base.thumbnail_image(300, height=300, crop="attention").jpegsave(
        str(out / (f.stem + "-thumb.jpg")), Q=80, optimize_coding=True, strip=True)
print(json.dumps({"import_s": t1 - t0, "work_s": time.perf_counter() - t1}))
'''

# Pillow: draft mode (libjpeg DCT scaling) + ImageOps.fit, a centre crop (less work than attention).
PILLOW = r'''
import sys, time, pathlib, json
t0 = time.perf_counter()
from PIL import Image, ImageOps
src, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
t1 = time.perf_counter()
for f in sorted(src.glob("*.jpg")):
    with Image.open(f) as im:
        scale = max(1200 / im.width, 600 / im.height, 300 / min(im.width, im.height))
        im.draft("RGB", (round(im.width * scale), round(im.height * scale)))
        im = ImageOps.exif_transpose(im.convert("RGB"))
        ImageOps.fit(im, (min(1200, im.width), min(600, im.height, im.width // 2))).save(
            out / (f.stem + "-expanded.jpg"), quality=80, optimize=True)
        ImageOps.fit(im, (300, 300)).save(out / (f.stem + "-thumb.jpg"), quality=80, optimize=True)
print(json.dumps({"import_s": t1 - t0, "work_s": time.perf_counter() - t1}))
'''


def peer_script(name: str, text: str) -> Path:
    p = WORK / "peers" / f"{name}.py"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def work_seconds(r: Run) -> float:
    return json.loads(r.stdout.strip().splitlines()[-1])["work_s"]
