#!/usr/bin/env python3
"""Animated GIFs: PushMedia's expanded GIF against gifsicle, and peak memory against frame count.

    /usr/bin/python3 Benchmarks/gif.py [--pushmedia PATH] [--runs N] [--frames 100,200,400] [--skip-rss]

Needs Debian's gifsicle, python3-numpy, python3-pil, python3-skimage and libvips-tools (vips CLI,
only for `--old`). Inputs are generated here (seeded), all 2:1 so that the expanded crop is the
whole frame: PushMedia and gifsicle encode the same pixels at the same size.

For each input it reports bytes and SSIM (mean and minimum over the source's frames, each source
frame compared with the output frame shown at the same time, so dropped or merged frames count)
for: PushMedia (`pushmedia process`), gifsicle -O3, gifsicle -O3 --lossy=80, and, with --old, the
GIF saver settings PushMedia used before (bitdepth 8, effort 3, dither 1, no inter-frame
optimisation). Times are CPU (user+sys of the child) and wall, medians of --runs. Then peak RSS
(VmHWM via /usr/bin/time) of `pushmedia process` on a folder holding one 1200x1200 GIF of 100, 200
and 400 frames.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageSequence
from skimage.metrics import structural_similarity

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "Benchmarks" / ".work" / "gif"


# ---- inputs ----------------------------------------------------------------------------------

def _save(frames: list[Image.Image], delays: list[int], path: Path) -> None:
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=delays, loop=0, optimize=False)


def _product_background(w: int, h: int, rng: random.Random) -> Image.Image:
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    base = np.stack([200 - 60 * y / h, 190 - 40 * x / w, 170 + 50 * y / h], axis=2)
    # A shaded "product": a sphere lit from the top left.
    cx, cy, r = w * 0.42, h * 0.5, min(w, h) * 0.33
    d = np.sqrt((x - cx) ** 2 + (y - cy) ** 2)
    inside = d < r
    shade = np.clip(1.1 - ((x - cx + r * 0.4) ** 2 + (y - cy + r * 0.4) ** 2) ** 0.5 / (1.6 * r), 0.15, 1)
    sphere = np.stack([40 + 180 * shade, 70 + 120 * shade, 160 + 90 * shade], axis=2)
    base = np.where(inside[..., None], sphere, base)
    npr = np.random.default_rng(rng.randrange(1 << 30))
    base += npr.normal(0, 6, base.shape)  # sensor-like grain
    return Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))


def product_badge(path: Path, w=960, h=480, frames=120, delay=40) -> None:
    """A still product shot with a small badge moving and pulsing in one corner."""
    rng = random.Random(1)
    bg = _product_background(w, h, rng)
    out = []
    for i in range(frames):
        im = bg.copy()
        d = ImageDraw.Draw(im)
        t = i / frames * 2 * math.pi
        bx, by = int(w * 0.78 + 30 * math.cos(t)), int(h * 0.25 + 20 * math.sin(t))
        rad = int(h * 0.09 * (1 + 0.12 * math.sin(3 * t)))
        d.ellipse([bx - rad, by - rad, bx + rad, by + rad], fill=(220, 30, 40))
        d.text((bx - rad // 2, by - 6), "SALE", fill=(255, 255, 255))
        out.append(im)
    _save(out, [delay] * frames, path)


def text_banner(path: Path, w=960, h=480, frames=90, delay=50) -> None:
    """A gradient banner whose headline types in letter by letter, then a price blinks."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    grad = np.stack([30 + 80 * x / w, 40 + 30 * y / h, 110 + 100 * x / w], axis=2)
    bg = Image.fromarray(grad.astype(np.uint8))
    text = "SPRING SALE  -  UP TO 50% OFF EVERYTHING"
    out = []
    for i in range(frames):
        im = bg.copy()
        d = ImageDraw.Draw(im)
        shown = text[: min(len(text), i)]
        for k in range(3):
            d.text((40, 60 + 40 * k), shown, fill=(255, 255, 255))
        if i > len(text) and (i // 8) % 2 == 0:
            d.rectangle([40, 300, 360, 380], fill=(250, 200, 40))
            d.text((60, 330), "NOW 19.99", fill=(20, 20, 20))
        out.append(im)
    _save(out, [delay] * frames, path)


def screen_recording(path: Path, w=960, h=480, frames=150, delay=33) -> None:
    """A flat UI (sidebar, rows of text) with a cursor moving and rows being highlighted."""
    bg = Image.new("RGB", (w, h), (245, 246, 248))
    d = ImageDraw.Draw(bg)
    d.rectangle([0, 0, 180, h], fill=(38, 44, 56))
    for k in range(12):
        d.text((20, 20 + 30 * k), f"Menu item {k}", fill=(200, 205, 215))
        d.text((200, 20 + 36 * k), f"Row {k}: order #{1000 + 7 * k} shipped to customer {k * 13}", fill=(40, 40, 40))
    out = []
    for i in range(frames):
        im = bg.copy()
        dd = ImageDraw.Draw(im)
        row = (i // 15) % 12
        dd.rectangle([190, 14 + 36 * row, w - 10, 44 + 36 * row], outline=(60, 120, 230), width=2)
        cx, cy = 300 + int(400 * (i % 75) / 75), 30 + 36 * row
        dd.polygon([(cx, cy), (cx, cy + 18), (cx + 5, cy + 14), (cx + 12, cy + 14)], fill=(0, 0, 0))
        out.append(im)
    _save(out, [delay] * frames, path)


def noisy(path: Path, w=480, h=240, frames=40, delay=60) -> None:
    """Every pixel changes every frame: the worst case."""
    rng = np.random.default_rng(7)
    out = [Image.fromarray(rng.integers(0, 256, (h, w, 3), dtype=np.uint8)) for _ in range(frames)]
    _save(out, [delay] * frames, path)


def big_square(path: Path, frames: int, side=1200) -> None:
    """The memory test's GIF (as in GIFEncodingTests): the landscape fixture at side x side with a
    red badge sliding across, 25 fps, one palette, ordered dithering (FFmpeg: fast to make)."""
    photo, palette = str(ROOT / "Fixtures" / "photos" / "landscape.jpg"), path.parent.parent / f"palette-{side}.png"
    scale = f"scale={side}:{side},setsar=1"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-i", photo, "-vf", f"{scale},palettegen", str(palette)], check=True)
    speed = (side - side // 10 - 20) * 25 / frames
    graph = f"[0]{scale}[bg];[bg][1]overlay=x='10+{speed}*t':y={side // 8}[v];[v][2]paletteuse=dither=bayer"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", photo, "-f", "lavfi", "-i",
                    f"color=c=red:s={side // 10}x{side // 20}:r=25", "-i", str(palette), "-filter_complex", graph,
                    "-frames:v", str(frames), str(path)], check=True)


# ---- transparency-heavy inputs (issue 40): stickers over see-through backgrounds -----------------

def _save_rgba(frames: list[Image.Image], delays: list[int], path: Path, disposal=2) -> None:
    """RGBA frames as a GIF with one transparent index; Pillow's own frame differencing, the
    given disposal (a list: per frame)."""
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=delays, loop=0, disposal=disposal,
                   optimize=False)


def _gear(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, teeth: int, angle: float, fill) -> None:
    points = []
    for k in range(teeth * 4):
        a = angle + k * math.pi * 2 / (teeth * 4)
        rr = r if (k // 2) % 2 == 0 else r * 0.78
        points.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    d.polygon(points, fill=fill)
    d.ellipse([cx - r * 0.3, cy - r * 0.3, cx + r * 0.3, cy + r * 0.3], fill=(0, 0, 0, 0))


def gears(path: Path, w=480, h=240, frames=36, delay=60) -> None:
    """Two gears turning on a see-through background (every frame clears what the teeth left)."""
    out = []
    for i in range(frames):
        im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        t = i / frames * 2 * math.pi / 4
        _gear(d, w * 0.35, h * 0.5, h * 0.4, 12, t, (90, 110, 130, 255))
        _gear(d, w * 0.35 + h * 0.69, h * 0.42, h * 0.3, 9, -t * 12 / 9 + 0.2, (200, 140, 40, 255))
        out.append(im)
    _save_rgba(out, [delay] * frames, path)


def envelope(path: Path, w=480, h=240, frames=40, delay=50) -> None:
    """An envelope sliding into a slot over see-through: the slot stays, the envelope moves."""
    out = []
    for i in range(frames):
        im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        d.rectangle([w * 0.6, h * 0.15, w * 0.64, h * 0.85], fill=(60, 60, 70, 255))  # the slot
        x = int(w * 0.05 + (w * 0.5) * min(1, i / (frames * 0.8)))
        ew, eh = int(w * 0.22), int(h * 0.4)
        y = int(h * 0.3)
        d.rectangle([x, y, x + ew, y + eh], fill=(245, 240, 225, 255), outline=(150, 120, 90, 255), width=3)
        d.line([x, y, x + ew // 2, y + eh // 2, x + ew, y], fill=(150, 120, 90, 255), width=3)
        if x + ew > w * 0.6:  # what went into the slot is hidden
            d.rectangle([w * 0.6, y - 2, x + ew + 4, y + eh + 4], fill=(0, 0, 0, 0))
            d.rectangle([w * 0.6, h * 0.15, w * 0.64, h * 0.85], fill=(60, 60, 70, 255))
        out.append(im)
    _save_rgba(out, [delay] * frames, path)


def wave(path: Path, w=480, h=240, frames=30, delay=70) -> None:
    """A hand waving over see-through: a palm and fingers swinging about the wrist."""
    out = []
    for i in range(frames):
        im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        a = math.sin(i / frames * 2 * math.pi) * 0.5
        wx, wy = w * 0.5, h * 0.95

        def at(dx, dy):
            return (wx + dx * math.cos(a) - dy * math.sin(a), wy + dx * math.sin(a) + dy * math.cos(a))

        skin, shade = (240, 190, 140, 255), (200, 150, 100, 255)
        d.polygon([at(-30, 0), at(30, 0), at(40, -90), at(-40, -90)], fill=skin, outline=shade)
        for k, dx in enumerate([-33, -12, 9, 30]):
            top = -170 + abs(k - 1.5) * 12
            d.polygon([at(dx - 9, -85), at(dx + 9, -85), at(dx + 8, top), at(dx - 8, top)], fill=skin, outline=shade)
        d.polygon([at(-38, -40), at(-45, -50), at(-80, -95), at(-68, -102), at(-30, -70)], fill=skin, outline=shade)
        out.append(im)
    _save_rgba(out, [delay] * frames, path)


def blink(path: Path, w=480, h=240, frames=24, delay=100) -> None:
    """A badge that appears, pulses and disappears: some frames are see-through but for a pixel."""
    out = []
    for i in range(frames):
        im = Image.new("RGBA", (w, h), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        phase = i % 8
        if phase < 5:
            r = int(h * (0.25 + 0.04 * phase))
            d.ellipse([w / 2 - r, h / 2 - r, w / 2 + r, h / 2 + r], fill=(230, 40, 60, 255))
            d.text((w / 2 - 14, h / 2 - 6), "NEW", fill=(255, 255, 255, 255))
        else:  # one pixel left: Pillow 9.4 writes a second GIF header for a wholly see-through frame
            d.point((0, 0), fill=(230, 40, 60, 255))
        out.append(im)
    _save_rgba(out, [delay] * frames, path)


TRANSPARENT_INPUTS = {"gears": gears, "envelope": envelope, "wave": wave, "blink": blink}

INPUTS = {"product-badge": product_badge, "text-banner": text_banner, "screen-recording": screen_recording, "noisy": noisy}
ALL_INPUTS = {**INPUTS, **TRANSPARENT_INPUTS}


# ---- reading and comparing ---------------------------------------------------------------------

def frames_with_times(path: Path) -> tuple[list[np.ndarray], list[int]]:
    im = Image.open(path)
    frames, delays = [], []
    for frame in ImageSequence.Iterator(im):
        frames.append(np.asarray(frame.convert("RGB")))
        delays.append(frame.info.get("duration", 100) or 100)
    return frames, delays


def ssim(source: Path, output: Path) -> tuple[float, float, float]:
    """Mean and min SSIM over the source frames (each against the output frame shown at its start
    time, resized to the output size if needed), and output duration / source duration."""
    src, sd = frames_with_times(source)
    out, od = frames_with_times(output)
    ends = np.cumsum(od)
    scores, t = [], 0
    for frame, delay in zip(src, sd):
        k = min(int(np.searchsorted(ends, t, side="right")), len(out) - 1)
        o = out[k]
        if o.shape != frame.shape:
            frame = np.asarray(Image.fromarray(frame).resize((o.shape[1], o.shape[0]), Image.LANCZOS))
        scores.append(structural_similarity(frame, o, channel_axis=2, data_range=255))
        t += delay
    return float(np.mean(scores)), float(np.min(scores)), sum(od) / sum(sd)


def timed(cmd: list[str], **kw) -> tuple[float, float]:
    """(CPU user+sys of the child, wall) seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def pushmedia_expanded(pushmedia: Path, source: Path, work: Path) -> tuple[Path, float, float, dict]:
    folder, out = work / "in", work / "out"
    shutil.rmtree(work, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copy(source, folder / source.name)
    cpu, wall = timed([str(pushmedia), "process", str(folder), "--out", str(out), "--jobs", "1"])
    manifest = json.loads((out / "manifest.json").read_text())
    item = manifest["items"][0]
    expanded = next(a for a in item["attachments"] if a["role"] == "expanded")
    return out / expanded["file"], cpu, wall, expanded


def peak_rss_mb(cmd: list[str]) -> float:
    run = subprocess.run(["/usr/bin/time", "-v", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)
    return int(match.group(1)) / 1024 if match else float("nan")


def main() -> None:
    if len(sys.argv) >= 3 and sys.argv[1] == "--make":
        # Fixtures for tests: --make NAME OUT [WIDTH HEIGHT FRAMES]
        sizes = [int(v) for v in sys.argv[4:7]]
        ALL_INPUTS[sys.argv[2]](Path(sys.argv[3]), *sizes) if sys.argv[2] in ALL_INPUTS else big_square(Path(sys.argv[3]), *sizes)
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushmedia", default=str(ROOT / ".build" / "release" / "pushmedia"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--frames", default="100,200,400")
    parser.add_argument("--skip-rss", action="store_true")
    parser.add_argument("--old", action="store_true", help="also encode with the old gifsave settings (vips CLI)")
    parser.add_argument("--before", default="", help="a pushmedia binary from before issue 14 parts 3-4, measured the same way")
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    pushmedia = Path(args.pushmedia)
    WORK.mkdir(parents=True, exist_ok=True)

    rows = []
    for name, make in INPUTS.items():
        if args.only and name not in args.only.split(","):
            continue
        source = WORK / f"{name}.gif"
        if not source.exists():
            make(source)
        results = {}
        runs = []
        for _ in range(args.runs):
            path, cpu, wall, attachment = pushmedia_expanded(pushmedia, source, WORK / "pm")
            runs.append((cpu, wall))
        kept = WORK / f"{name}.pushmedia.gif"
        shutil.copy(path, kept)
        results["pushmedia"] = (kept, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs))
        if args.before:
            before_runs = [pushmedia_expanded(Path(args.before), source, WORK / "before") for _ in range(args.runs)]
            before = WORK / f"{name}.before.gif"
            shutil.copy(before_runs[-1][0], before)
            results["before"] = (before, statistics.median(r[1] for r in before_runs), statistics.median(r[2] for r in before_runs))
        w, h = Image.open(kept).size
        for label, extra in [("gifsicle -O3", []), ("gifsicle -O3 --lossy=80", ["--lossy=80"])]:
            out = WORK / f"{name}.{label.replace(' ', '').replace('=', '')}.gif"
            times = [timed(["gifsicle", "-O3", *extra, "--resize", f"{w}x{h}", str(source), "-o", str(out)]) for _ in range(args.runs)]
            results[label] = (out, statistics.median(t[0] for t in times), statistics.median(t[1] for t in times))
        if args.old:
            out = WORK / f"{name}.old.gif"
            times = [timed(["vips", "gifsave", str(source) + "[n=-1]", str(out) + f"[bitdepth=8,effort=3,strip]"]) for _ in range(args.runs)]
            results["old settings (vips)"] = (out, statistics.median(t[0] for t in times), statistics.median(t[1] for t in times))
        src_bytes = source.stat().st_size
        print(f"\n{name}: {Image.open(source).size[0]}x{Image.open(source).size[1]}, {getattr(Image.open(source), 'n_frames', 1)} frames, {src_bytes} bytes; PushMedia encoding: {attachment.get('encoding')}")
        for label, (out, cpu, wall) in results.items():
            mean, low, duration = ssim(source, out)
            rows.append((name, label, out.stat().st_size, mean, low, duration, cpu, wall))
            print(f"  {label:28} {out.stat().st_size:>9} B  SSIM mean {mean:.4f} min {low:.4f}  duration x{duration:.3f}  cpu {cpu:.2f}s wall {wall:.2f}s", flush=True)

    if not args.skip_rss:
        print("\npeak RSS of `pushmedia process` on a folder holding one 1200x1200 GIF:")
        for frames in [int(f) for f in args.frames.split(",")]:
            folder = WORK / f"rss-{frames}"
            source = folder / f"square-{frames}.gif"
            if not source.exists():
                folder.mkdir(parents=True, exist_ok=True)
                big_square(source, frames)
            out = WORK / f"rss-{frames}-out"
            shutil.rmtree(out, ignore_errors=True)
            rss = peak_rss_mb([str(pushmedia), "process", str(folder), "--out", str(out)])
            line = f"  {frames:4} frames ({source.stat().st_size} B): {rss:.0f} MB"
            if args.before:
                shutil.rmtree(out, ignore_errors=True)
                line += f"; before: {peak_rss_mb([args.before, 'process', str(folder), '--out', str(out)]):.0f} MB"
            print(line, flush=True)


if __name__ == "__main__":
    main()
