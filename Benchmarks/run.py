#!/usr/bin/env python3
"""PushMedia's benchmark suite: PushMedia and the tools a user would script instead, side by side
in one run on the same generated inputs, with medians and "PushMedia ÷ peer" ratios.

Run it through `Benchmarks/run` (installs the peers first). Standard library + pyvips + Pillow.

    Benchmarks/run [--quick] [--cases 1,2,…] [--wait-quiet SECONDS] [--no-write]

--quick uses tiny inputs and few runs to debug the harness; its report goes to
Benchmarks/.work/BENCHMARKS.quick.md, never to BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "Benchmarks"
WORK = BENCH / ".work"
PUSHMEDIA = Path(os.environ.get("BENCH_PUSHMEDIA") or ROOT / ".build" / "release" / "pushmedia")  # override to test the harness
QUEUE_PKG = BENCH / "QueueOverhead"
QUEUE_BIN = QUEUE_PKG / ".build" / "release" / "QueueOverhead"
SIGMA = 14  # noise of the texture: ~10 MB for a 12 MP JPEG at quality 90
CPUS = "0,1"  # every contender gets the same two cores
CONVERT = "/usr/bin/convert"  # Debian's ImageMagick (a stand-in may sit earlier on PATH)
ANALYSIS_MARK = "<!-- hand-written analysis below: kept by Benchmarks/run.py -->"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------
# Running and timing


def bench_env() -> dict:
    env = dict(os.environ)
    env.pop("VIPS_CONCURRENCY", None)  # libvips' default (one thread per core) for PushMedia and pyvips alike
    env.pop("PUSHMEDIA_CONCURRENCY", None)
    env.pop("PUSHMEDIA_PROFILE", None)
    env.pop("PUSHMEDIA_OUT", None)
    env.pop("PUSHMEDIA_BASE_URL", None)
    env["LC_ALL"] = "C"
    return env


ENV = bench_env()


class Run:
    def __init__(self, seconds: float, rss_kb: int | None, stdout: str, stderr: str):
        self.seconds = seconds
        self.rss_kb = rss_kb
        self.stdout = stdout
        self.stderr = stderr


def run(cmd: list[str] | str, *, ok_codes=(0,), measure_rss=True) -> Run:
    """Runs one command pinned to CPUS (through /usr/bin/time -v for the peak RSS) and times it."""
    shell = isinstance(cmd, str)
    argv = ["bash", "-c", cmd] if shell else list(cmd)
    rss_file = WORK / "time-v.txt"
    full = ["taskset", "-c", CPUS]
    if measure_rss:
        full += ["/usr/bin/time", "-v", "-o", str(rss_file)]
    full += argv
    start = time.perf_counter()
    p = subprocess.run(full, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if p.returncode not in ok_codes:
        raise RuntimeError(f"command failed ({p.returncode}): {cmd}\n{p.stderr[-3000:]}")
    rss = None
    if measure_rss and rss_file.exists():
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", rss_file.read_text())
        rss = int(m.group(1)) if m else None
    return Run(seconds, rss, p.stdout, p.stderr)


def div(a, b):
    return None if a is None or not b else a / b


def le(x, limit) -> bool | None:
    return None if x is None else x <= limit


def fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


class Contender:
    """One way of doing a case's work: a name, a command and an optional set-up (not timed)."""

    def __init__(self, name: str, cmd, setup=None, check=None):
        self.name = name
        self.cmd = cmd  # list/str or a callable returning one
        self.setup = setup
        self.check = check
        self.runs: list[Run] = []
        self.failed: str | None = None  # why it failed; a failed contender is not run again

    def once(self) -> Run:
        if self.setup:
            self.setup()
        cmd = self.cmd() if callable(self.cmd) else self.cmd
        r = run(cmd, ok_codes=(0, 1) if self.check else (0,))
        if self.check:
            self.check(r)
        return r

    @property
    def median(self) -> float | None:
        return statistics.median(r.seconds for r in self.runs) if self.runs and not self.failed else None

    @property
    def times(self) -> list[float]:
        return [r.seconds for r in self.runs]

    @property
    def max_rss_mb(self) -> float | None:
        vals = [r.rss_kb for r in self.runs if r.rss_kb]
        return max(vals) / 1024 if vals else None


def measure(contenders: list[Contender], runs: int, warmup: int, label: str) -> None:
    """Warm-up rounds, then `runs` rounds; each round runs every contender once (interleaved, so
    a change in background load hits all of them alike)."""
    def attempt(c: Contender) -> Run | None:
        if c.failed:
            return None
        try:
            return c.once()
        except Exception as e:  # recorded and reported; the other contenders go on
            c.failed = str(e).strip().splitlines()[-1][:300] if str(e).strip() else repr(e)
            log(f"  [{label}] {c.name} FAILED: {e}")
            return None

    for i in range(warmup):
        for c in contenders:
            log(f"  [{label}] warm-up {i + 1}/{warmup}: {c.name}")
            attempt(c)
    for i in range(runs):
        for c in contenders:
            r = attempt(c)
            if r:
                c.runs.append(r)
                log(f"  [{label}] run {i + 1}/{runs}: {c.name}: {r.seconds:.3f} s")


def pushmedia_cmd(inp: Path, out: Path, jobs: int) -> list[str]:
    return [str(PUSHMEDIA), "process", str(inp), "--out", str(out), "--jobs", str(jobs)]


def manifest_items(out: Path) -> list[dict]:
    return json.loads((out / "manifest.json").read_text())["items"]


def check_all_ok(out: Path, expected: int):
    def check(_r: Run):
        items = manifest_items(out)
        bad = [i for i in items if i.get("status") != "ok"]
        if len(items) != expected or bad:
            why = "; ".join(f"{i.get('source')}: {(i.get('error') or {}).get('code')}: {(i.get('error') or {}).get('message')}" for i in bad[:3])
            raise RuntimeError(f"PushMedia: {len(items)} items (expected {expected}), {len(bad)} not ok: {why}")

    return check


# ----------------------------------------------------------------------------------------------
# Inputs


class Inputs:
    def __init__(self, quick: bool):
        import pyvips  # noqa: F401  (fail early when missing)

        self.quick = quick
        self.dir = WORK / ("inputs-quick" if quick else "inputs")
        self.dir.mkdir(parents=True, exist_ok=True)
        self._texture = None

    # A high-detail texture: smooth colour waves, saturated discs (subjects for the attention
    # crop) and per-channel Gaussian noise, so JPEGs of it are really big (~0.8 byte/pixel at Q90).
    def texture(self):
        import pyvips

        if self._texture is None:
            w, h = (1200, 900) if self.quick else (8640, 5760)
            log(f"==> generating a {w}×{h} texture")
            xyz = pyvips.Image.xyz(w, h)
            x, y = xyz[0], xyz[1]
            # (libvips' sin/cos take degrees)
            r = (x * 0.75).sin() * 60 + (y * 1.2).cos() * 40 + ((x + y) * 0.23).sin() * 25 + 128
            g = (x * 0.31 + y * 0.52).sin() * 70 + (y * 0.09).cos() * 30 + 120
            b = ((x - y) * 0.44).cos() * 60 + (x * 0.05).sin() * 45 + 110
            img = r.bandjoin([g, b])
            noise = pyvips.Image.gaussnoise(w, h, mean=0, sigma=SIGMA)
            noise = noise.bandjoin([pyvips.Image.gaussnoise(w, h, mean=0, sigma=SIGMA), pyvips.Image.gaussnoise(w, h, mean=0, sigma=SIGMA)])
            img = (img + noise).cast("uchar").copy_memory()
            rnd = random.Random(7)
            for _ in range(40 if not self.quick else 8):
                r = rnd.randint(w // 120, w // 40)
                ink = rnd.choice([[230, 30, 40], [250, 200, 20], [30, 200, 60], [240, 120, 200]])
                img = img.draw_circle(ink, rnd.randint(0, w), rnd.randint(0, h), r, fill=True)
            self._texture = img.copy_memory()
        return self._texture

    def crop(self, index: int, w: int, h: int):
        """A distinct w×h picture: a region of the texture chosen by index, tinted by index."""
        import pyvips  # noqa: F401

        tex = self.texture()
        rnd = random.Random(1000 + index)
        if w > tex.width or h > tex.height:
            img = tex.resize(max(w / tex.width, h / tex.height) * 1.001)
        else:
            img = tex
        left = rnd.randint(0, img.width - w)
        top = rnd.randint(0, img.height - h)
        part = img.crop(left, top, w, h)
        gain = [rnd.uniform(0.85, 1.1) for _ in range(3)]
        return part.linear(gain, [rnd.uniform(-10, 10) for _ in range(3)]).cast("uchar")

    def _jpegs(self, name: str, count: int, w: int, h: int, q: int) -> Path:
        d = self.dir / name
        marker = d / ".done"
        if marker.exists():
            return d
        fresh(d)
        log(f"==> generating {count} JPEG(s) {w}×{h} in {d.relative_to(ROOT)}")
        for i in range(count):
            self.crop(sum(name.encode()) * 31 + i, w, h).jpegsave(str(d / f"img-{i:04d}.jpg"), Q=q)
        marker.touch()
        return d

    def case1(self, count: int) -> Path:
        return self._jpegs(f"c1-12mp-{count}", count, *((800, 600) if self.quick else (4000, 3000)), q=90)

    def large(self, mp: int) -> Path:
        size = {24: (6000, 4000), 50: (8640, 5760)}[mp]
        if self.quick:
            size = (size[0] // 8, size[1] // 8)
        return self._jpegs(f"c2-{mp}mp", 1, *size, q=90)

    def small_batch(self, count: int) -> Path:
        w, h = (160, 120) if self.quick else (640, 480)
        return self._jpegs(f"c7-small-{count}", count, w, h, q=85)

    def mixed(self, count: int) -> Path:
        """count mixed images: 60 % JPEG 2–6 MP, 20 % PNG (half with alpha), 15 % WebP, 5 % animated GIF."""
        import pyvips

        d = self.dir / f"c3-mixed-{count}"
        if (d / ".done").exists():
            return d
        fresh(d)
        log(f"==> generating {count} mixed images in {d.relative_to(ROOT)}")
        rnd = random.Random(3)
        scale = 0.2 if self.quick else 1.0
        for i in range(count):
            kind = i % 20
            if kind < 12:
                w, h = rnd.choice([(1920, 1080), (2400, 1600), (3000, 2000), (2000, 2000), (1600, 2400)])
                img = self.crop(5000 + i, int(w * scale), int(h * scale))
                img.jpegsave(str(d / f"m-{i:04d}.jpg"), Q=rnd.choice([80, 85, 90]))
            elif kind < 16:
                w, h = rnd.choice([(1200, 800), (1000, 1000), (1600, 900)])
                img = self.crop(5000 + i, int(w * scale), int(h * scale))
                if kind % 2:
                    alpha = pyvips.Image.xyz(img.width, img.height)[0].linear(255 / img.width, 0).cast("uchar")
                    img = img.bandjoin(alpha)
                img.pngsave(str(d / f"m-{i:04d}.png"), compression=3)
            elif kind < 19:
                img = self.crop(5000 + i, int(1920 * scale), int(1280 * scale))
                img.webpsave(str(d / f"m-{i:04d}.webp"), Q=80)
            else:
                self._gif(d / f"m-{i:04d}.gif", frames=10, w=int(480 * scale) or 48, h=int(360 * scale) or 36, seed=i)
        (d / ".done").touch()
        return d

    def _gif(self, path: Path, frames: int, w: int, h: int, seed: int) -> None:
        """An animated GIF: a disc moving over a textured background, different in every frame."""
        import pyvips

        rnd = random.Random(seed)
        # GIF-like content (flat colours and soft gradients, not photo noise): a blurred crop of
        # the texture, posterised to 16 levels per channel, saved without dithering.
        base = (self.crop(9000 + seed, w, h).gaussblur(6) / 16).cast("uchar").linear(16, 8).cast("uchar")
        pages = []
        for f in range(frames):
            t = f / max(1, frames - 1)
            frame = base.linear([1, 1, 1], [20 * (f % 5) - 40, 0, 0]).cast("uchar")
            cx = int(w * (0.15 + 0.7 * t))
            cy = int(h * (0.5 + 0.3 * ((f % 20) / 20 - 0.5)))
            frame = frame.draw_circle([255, 40, 40], cx, cy, max(3, h // 8), fill=True)
            frame = frame.draw_circle([20, 20, 240], w - cx, h - cy, max(2, h // 12), fill=True)
            pages.append(frame)
        anim = pyvips.Image.arrayjoin(pages, across=1).copy()
        anim.set_type(pyvips.GValue.gint_type, "page-height", h)
        anim.set_type(pyvips.GValue.array_int_type, "delay", [40] * frames)
        anim.set_type(pyvips.GValue.gint_type, "loop", 0)
        anim.gifsave(str(path), dither=0)
        del rnd

    def gif_size(self) -> tuple[int, int]:
        return (160, 120) if self.quick else (480, 360)

    def gif(self, frames: int) -> Path:
        d = self.dir / f"c4-gif-{frames}"
        if (d / ".done").exists():
            return d
        fresh(d)
        w, h = self.gif_size()
        log(f"==> generating a {frames}-frame {w}×{h} GIF")
        self._gif(d / "anim.gif", frames=frames, w=w, h=h, seed=42)
        (d / ".done").touch()
        return d

    def video(self, name: str, seconds: int, total_bytes: int) -> Path:
        """A 1080p30 H.264 + AAC MP4 of `seconds` whose size is about total_bytes (noise keeps the
        rate control at its target)."""
        d = self.dir / name
        clip = d / "clip.mp4"
        if (d / ".done").exists():
            return d
        fresh(d)
        size = "320x180" if self.quick else "1920x1080"
        audio = 96_000
        video_rate = int(total_bytes * 8 / seconds) - audio - 20_000
        log(f"==> generating {clip.relative_to(ROOT)}: {seconds} s {size} H.264 at {video_rate // 1000} kbit/s (ffmpeg CLI)")
        subprocess.run(
            ["ffmpeg", "-v", "error", "-y",
             "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=30,noise=alls=14:allf=t",
             "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
             "-t", str(seconds), "-c:v", "libx264", "-preset", "superfast", "-pix_fmt", "yuv420p",
             "-b:v", str(video_rate), "-maxrate", str(video_rate), "-bufsize", str(video_rate * 2),
             "-c:a", "aac", "-b:a", str(audio), "-movflags", "+faststart", str(clip)],
            check=True, env=ENV)
        (d / ".done").touch()
        return d


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


# ----------------------------------------------------------------------------------------------
# Cases


class Suite:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.inputs = Inputs(args.quick)
        self.results: dict = {}
        self.out = WORK / "out"
        self.fast_runs, self.fast_warmup = (2, 0) if args.quick else (5, 1)
        self.slow_runs = 2 if args.quick else 3
        self.gif_runs = 2 if args.quick else 3

    def o(self, name: str) -> Path:
        return self.out / name

    # Case 1 ------------------------------------------------------------------------------------
    def case1(self):
        n = 3 if self.quick else 8
        src = self.inputs.case1(n)
        one = WORK / "inputs-quick" / "c1-one" if self.quick else WORK / "inputs" / "c1-one"
        if not (one / "img-0000.jpg").exists():
            fresh(one)
            shutil.copy(src / "img-0000.jpg", one / "img-0000.jpg")
        files = sorted(src.glob("*.jpg"))
        sizes = [f.stat().st_size for f in files]
        dims = self._dims(files[0])
        twice, once, pil = peer_script("pyvips_twice", PYVIPS_TWICE), peer_script("pyvips_once", PYVIPS_ONCE), peer_script("pillow", PILLOW)
        contenders = []

        def pm(name, inp, count):
            out = self.o(name)
            return Contender(name, pushmedia_cmd(inp, out, 1), setup=lambda: fresh(out), check=check_all_ok(out, count))

        def py(name, script):
            out = self.o(name)
            return Contender(name, ["python3", str(script), str(src), str(out)], setup=lambda: fresh(out))

        contenders.append(pm("pushmedia", src, n))
        contenders.append(pm("pushmedia-1-image", one, 1))
        contenders.append(py("pyvips-thumbnail-twice", twice))
        contenders.append(py("pyvips-decode-once", once))
        contenders.append(py("pillow-draft-fit", pil))
        im_out = self.o("imagemagick")
        contenders.append(Contender(
            "imagemagick", f'for f in "{src}"/*.jpg; do b=$(basename "$f" .jpg); '
            f'{CONVERT} -define jpeg:size=1200x900 "$f" -auto-orient -strip -quality 80 '
            f'\\( +clone -thumbnail "1200x600^" -gravity center -extent 1200x600 -write "{im_out}/$b-expanded.jpg" +delete \\) '
            f'-thumbnail "300x300^" -gravity center -extent 300x300 "{im_out}/$b-thumb.jpg"; done',
            setup=lambda: fresh(im_out)))
        vt_out = self.o("vipsthumbnail")
        contenders.append(Contender(
            "vipsthumbnail-two-passes",
            f'vipsthumbnail "{src}"/*.jpg -s 300x300 -m attention -o "{vt_out}/%s-thumb.jpg[Q=80,optimize_coding,strip]" && '
            f'vipsthumbnail "{src}"/*.jpg -s 1200x600 -m attention -o "{vt_out}/%s-expanded.jpg[Q=80,optimize_coding,strip]"',
            setup=lambda: fresh(vt_out)))
        contenders.append(Contender(
            "djpeg-scale-1/2 (decode floor)",
            f'for f in "{src}"/*.jpg; do djpeg -scale 1/2 -outfile /dev/null "$f"; done'))
        measure(contenders, self.fast_runs, self.fast_warmup, "case 1")
        by = {c.name: c for c in contenders}
        pm_total = by["pushmedia"].median
        startup = by["pushmedia-1-image"].median
        per_image = div(pm_total, n)
        marginal = div(pm_total - startup, n - 1) if pm_total and startup else None
        rows = []
        for c in contenders:
            if c.name == "pushmedia-1-image":
                continue
            row = {"name": c.name, "median_s": c.median, "per_image_s": div(c.median, n), "times": c.times, "failed": c.failed}
            if c.name.startswith("py") and c.runs and not c.failed:
                row["in_process_per_image_s"] = statistics.median(work_seconds(r) for r in c.runs) / n
            row["ratio"] = div(per_image, div(c.median, n)) if c.name != "pushmedia" else 1.0
            rows.append(row)
        self.results["case1"] = {
            "n": n, "dims": dims, "mb_each": [s / 1e6 for s in sizes], "rows": rows,
            "pushmedia_per_image_s": per_image, "pushmedia_one_image_s": startup,
            "pushmedia_marginal_s": marginal, "pushmedia_rss_mb": by["pushmedia"].max_rss_mb,
        }

    # Case 2 ------------------------------------------------------------------------------------
    def case2(self):
        once, pil = peer_script("pyvips_once", PYVIPS_ONCE), peer_script("pillow", PILLOW)
        out = {}
        for mp in (24, 50):
            src = self.inputs.large(mp)
            f = next(src.glob("*.jpg"))
            pm_out, pv_out, pl_out = self.o(f"c2-{mp}-pm"), self.o(f"c2-{mp}-pyvips"), self.o(f"c2-{mp}-pil")
            w, h = self._dims(f)
            # the DCT scaling a decode to the working size (≥ 1200×600 after the 2:1 crop) allows
            need = max(1200 / w, 600 / h, 300 / min(w, h))
            denom = max(d for d in (1, 2, 4, 8) if 1 / d >= need)
            cs = [
                Contender("pushmedia", pushmedia_cmd(src, pm_out, 1), setup=lambda o=pm_out: fresh(o), check=check_all_ok(pm_out, 1)),
                Contender("pyvips-decode-once", ["python3", str(once), str(src), str(pv_out)], setup=lambda o=pv_out: fresh(o)),
                Contender("pillow-draft-fit", ["python3", str(pil), str(src), str(pl_out)], setup=lambda o=pl_out: fresh(o)),
                Contender(f"djpeg -scale 1/{denom} (decode floor)", ["djpeg", "-scale", f"1/{denom}", "-outfile", "/dev/null", str(f)]),
            ]
            measure(cs, self.slow_runs, 1, f"case 2, {mp} MP")
            out[str(mp)] = {
                "dims": self._dims(f), "mb": f.stat().st_size / 1e6,
                "rows": [{"name": c.name, "median_s": c.median, "rss_mb": c.max_rss_mb, "times": c.times, "failed": c.failed} for c in cs],
            }
        self.results["case2"] = out

    # Case 3 ------------------------------------------------------------------------------------
    def case3(self):
        n = 40 if self.quick else 200
        src = self.inputs.mixed(n)
        warm = WORK / ("inputs-quick" if self.quick else "inputs") / "c3-warm"
        if not warm.exists():
            fresh(warm)
            for f in sorted(p for p in src.iterdir() if not p.name.startswith("."))[:10]:
                shutil.copy(f, warm / f.name)
        warm_out = self.o("c3-warm")
        run(pushmedia_cmd(warm, fresh(warm_out), 2))  # warm-up: binary, libraries, a few inputs
        cs = []
        for jobs in (1, 2):
            o = self.o(f"c3-jobs{jobs}")
            cs.append(Contender(f"pushmedia --jobs {jobs}", pushmedia_cmd(src, o, jobs), setup=lambda o=o: fresh(o), check=check_all_ok(o, n)))
        measure(cs, self.slow_runs, 0, "case 3")
        kinds: dict[str, int] = {}
        for p in src.iterdir():
            if not p.name.startswith("."):
                kinds[p.suffix] = kinds.get(p.suffix, 0) + 1
        rows = [{"name": c.name, "median_s": c.median, "images_per_s": div(n, c.median), "rss_mb": c.max_rss_mb, "times": c.times, "failed": c.failed} for c in cs]
        self.results["case3"] = {"n": n, "kinds": kinds, "mb_total": sum(p.stat().st_size for p in src.iterdir()) / 1e6,
                                 "rows": rows, "scaling": div(rows[1]["images_per_s"], rows[0]["images_per_s"])}

    # Case 4 ------------------------------------------------------------------------------------
    def case4(self):
        frames = 40 if self.quick else 200
        src = self.inputs.gif(frames)
        gif = src / "anim.gif"
        w, h = self.inputs.gif_size()
        # The same two outputs as PushMedia: a 300×300 centre-cropped thumbnail and the 2:1
        # expanded variant at the source width (PushMedia never upscales: 480×240).
        ew, eh = w, w // 2
        side = min(w, h)
        im_out, gs_out, pm_out = self.o("c4-im"), self.o("c4-gifsicle"), self.o("c4-pm")
        cs = [
            Contender("pushmedia", pushmedia_cmd(src, pm_out, 1), setup=lambda: fresh(pm_out), check=check_all_ok(pm_out, 1)),
            Contender("imagemagick", f'{CONVERT} "{gif}" -coalesce '
                      f'\\( -clone 0--1 -gravity center -crop {ew}x{eh}+0+0 +repage -layers optimize -write "{im_out}/expanded.gif" -delete 0--1 \\) '
                      f'-resize "300x300^" -gravity center -extent 300x300 -layers optimize "{im_out}/thumb.gif"',
                      setup=lambda: fresh(im_out)),
            Contender("gifsicle", f'gifsicle -O2 --crop 0,{(h - eh) // 2}+{ew}x{eh} "{gif}" -o "{gs_out}/expanded.gif" && '
                      f'gifsicle -O2 --crop {(w - side) // 2},{(h - side) // 2}+{side}x{side} --resize 300x300 "{gif}" -o "{gs_out}/thumb.gif"',
                      setup=lambda: fresh(gs_out)),
        ]
        measure(cs, self.gif_runs, 1, "case 4")
        raised = None
        if cs[0].failed:
            # Default limits fail; measure it once more with the per-item time limit raised, to
            # know how long it takes (reported apart, clearly labelled).
            prof = WORK / "profile-timeout600.json"
            prof.write_text(json.dumps({"limits": {"timeoutSeconds": 600}}))
            raised = Contender("pushmedia (limits.timeoutSeconds: 600)", pushmedia_cmd(src, pm_out, 1) + ["--profile", str(prof)],
                               setup=lambda: fresh(pm_out), check=check_all_ok(pm_out, 1))
            measure([raised], 1, 0, "case 4, time limit raised")
            cs.append(raised)
        item = manifest_items(pm_out)[0]
        atts = [{"role": a.get("role"), "w": a.get("width"), "h": a.get("height"), "bytes": a.get("bytes"),
                 "encoding": a.get("encoding")} for a in item.get("attachments", [])]
        sizes = {"imagemagick": sum(p.stat().st_size for p in im_out.iterdir()),
                 "gifsicle": sum(p.stat().st_size for p in gs_out.iterdir())}
        pm = cs[0].median or (raised.median if raised else None)
        self.results["case4"] = {
            "default_failed": cs[0].failed, "raised": bool(raised),
            "frames": frames, "dims": [w, h], "mb": gif.stat().st_size / 1e6, "pushmedia_attachments": atts,
            "peer_output_bytes": sizes,
            "rows": [{"name": c.name, "median_s": c.median, "ratio": div(pm, c.median), "times": c.times, "failed": c.failed} for c in cs],
        }

    # Case 5 ------------------------------------------------------------------------------------
    def case5(self):
        secs = 6 if self.quick else 60
        kept = self.inputs.video("c5-kept-8mb", secs, 8_000_000 if not self.quick else 800_000)
        big = self.inputs.video("c5-transcode-20mb", secs, 20_000_000 if not self.quick else 14_000_000)
        # (quick: the "big" clip is 14 MB over 6 s, so that it is over the 10 MB budget too)
        kept_clip, big_clip = kept / "clip.mp4", big / "clip.mp4"

        # a) probe + poster (the clip is kept as is)
        pm_out = self.o("c5-pm-kept")
        run(pushmedia_cmd(kept, fresh(pm_out), 1))
        item = manifest_items(pm_out)[0]
        media = next(a for a in item["attachments"] if a.get("role") == "media")
        action = media["media"]["action"]
        poster_t = (media.get("options") or {}).get("thumbnailTime") or 0
        cli_out = self.o("c5-cli-poster")

        def cli_poster(clip: Path, out: Path, t: float) -> str:
            return (f'ffprobe -v error -show_format -show_streams -of json "{clip}" > "{out}/probe.json" && '
                    f'ffmpeg -v error -y -ss {t:.3f} -i "{clip}" -filter_complex '
                    f'"[0:v]split=2[a][b];[a]scale=1200:600:force_original_aspect_ratio=increase,crop=1200:600[e];'
                    f'[b]scale=300:300:force_original_aspect_ratio=increase,crop=300:300[t]" '
                    f'-map "[e]" -frames:v 1 -q:v 4 "{out}/expanded.jpg" -map "[t]" -frames:v 1 -q:v 4 "{out}/thumb.jpg"')

        cs = [
            Contender("pushmedia (probe + poster, kept)", pushmedia_cmd(kept, pm_out, 1), setup=lambda: fresh(pm_out), check=check_all_ok(pm_out, 1)),
            Contender("ffprobe + ffmpeg -ss -frames:v 1", cli_poster(kept_clip, cli_out, poster_t), setup=lambda: fresh(cli_out)),
        ]
        measure(cs, self.fast_runs, self.fast_warmup, "case 5a")
        poster = {"action": action, "thumbnail_time": poster_t, "mb": kept_clip.stat().st_size / 1e6,
                  "rows": [{"name": c.name, "median_s": c.median, "times": c.times, "failed": c.failed} for c in cs],
                  "ratio": div(cs[0].median, cs[1].median)}

        # b) transcode to 720p within 10 MB
        pm_t = self.o("c5-pm-transcode")
        run(pushmedia_cmd(big, fresh(pm_t), 1))
        item = manifest_items(pm_t)[0]
        media = next(a for a in item["attachments"] if a.get("role") == "media")
        m = media["media"]
        vrate = m["videoBitRate"]
        arate = m.get("audioBitRate") or 128_000
        tpost = (media.get("options") or {}).get("thumbnailTime") or 0
        ow, oh = media.get("width"), media.get("height")
        cli_t = self.o("c5-cli-transcode")
        transcode = (f'ffmpeg -v error -y -i "{big_clip}" -c:v libx264 -preset veryfast -profile:v high '
                     f'-b:v {vrate} -maxrate {vrate * 3 // 2} -bufsize {vrate * 2} -vf "scale={ow}:{oh},fps=fps=\'min(source_fps,30)\'" '
                     f'-pix_fmt yuv420p -c:a aac -b:a {arate} -movflags +faststart "{cli_t}/out.mp4"')
        cs2 = [
            Contender("pushmedia (probe + poster + transcode)", pushmedia_cmd(big, pm_t, 1), setup=lambda: fresh(pm_t), check=check_all_ok(pm_t, 1)),
            Contender("ffmpeg transcode only", transcode, setup=lambda: fresh(cli_t)),
            Contender("ffprobe + poster + ffmpeg transcode", lambda: cli_poster(big_clip, cli_t, tpost) + " && " + transcode, setup=lambda: fresh(cli_t)),
        ]
        measure(cs2, self.slow_runs, 0, "case 5b")
        pm_bytes = media.get("bytes")
        cli_bytes = (cli_t / "out.mp4").stat().st_size
        self.results["case5"] = {
            "seconds": secs, "poster": poster,
            "transcode": {"mb_in": big_clip.stat().st_size / 1e6, "media": m, "pm_bytes": pm_bytes, "cli_bytes": cli_bytes,
                          "width": media.get("width"), "height": media.get("height"),
                          "rows": [{"name": c.name, "median_s": c.median, "times": c.times, "failed": c.failed} for c in cs2],
                          "ratio_transcode_only": div(cs2[0].median, cs2[1].median),
                          "ratio_same_outputs": div(cs2[0].median, cs2[2].median)},
        }

    # Case 6 ------------------------------------------------------------------------------------
    def case6(self):
        if not QUEUE_BIN.exists():
            log("==> building Benchmarks/QueueOverhead (release)")
            subprocess.run(["swift", "build", "-c", "release", "--package-path", str(QUEUE_PKG),
                            "--scratch-path", str(QUEUE_PKG / ".build")], check=True)
        n_sqlite = 100 if self.quick else 2000
        n_pg = 100 if self.quick else 1000
        rows = []
        qdir = fresh(WORK / "queue")
        targets = [("sqlite", n_sqlite)]
        pg = os.environ.get("PUSHMEDIA_TEST_POSTGRES_URL")
        if pg:
            targets.append(("postgres", n_pg))
        for backend, n in targets:
            per, per_enq = [], []
            for i in range(self.fast_runs + 1):
                if backend == "sqlite":
                    url = f"sqlite:{qdir / f'q{i}.sqlite'}"
                else:
                    url = f"{pg}?prefix=bench{uuid.uuid4().hex[:8]}_"
                r = run([str(QUEUE_BIN), url, str(n), "1"])
                data = json.loads(r.stdout.strip().splitlines()[-1])
                log(f"  [case 6] {backend} run {i}: {data['ms_per_job']:.3f} ms/job")
                if i == 0:
                    continue  # warm-up
                per.append(data["ms_per_job"])
                per_enq.append(data["ms_per_job_with_enqueue"])
            rows.append({"backend": backend, "jobs": n, "ms_per_job": statistics.median(per),
                         "ms_per_job_with_enqueue": statistics.median(per_enq), "all": per})
        self.results["case6"] = {"rows": rows, "postgres": bool(pg)}

    # Case 7 ------------------------------------------------------------------------------------
    def case7(self):
        n = 200 if self.quick else 1000
        src = self.inputs.small_batch(n)
        out = fresh(self.o("c7"))
        cmd = ["taskset", "-c", CPUS] + pushmedia_cmd(src, out, 2)
        progress: list[tuple[float, int]] = []
        samples: list[tuple[float, int]] = []
        start = time.perf_counter()
        p = subprocess.Popen(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

        def reader():
            for line in p.stderr:
                m = re.match(r"\[(\d+)/(\d+)\]", line)
                if m:
                    progress.append((time.perf_counter(), int(m.group(1))))

        t = threading.Thread(target=reader, daemon=True)
        t.start()
        status = Path(f"/proc/{p.pid}/status")
        while p.poll() is None:
            try:
                m = re.search(r"VmRSS:\s+(\d+) kB", status.read_text())
                if m:
                    samples.append((time.perf_counter(), int(m.group(1))))
            except (FileNotFoundError, ProcessLookupError):
                break
            time.sleep(0.1)
        p.wait()
        t.join()
        total = time.perf_counter() - start
        if p.returncode != 0:
            raise RuntimeError(f"case 7: pushmedia exited {p.returncode}")
        check_all_ok(out, n)(None)

        def done_at(ts: float) -> int:
            d = 0
            for when, k in progress:
                if when <= ts:
                    d = max(d, k)
                else:
                    break
            return d

        tagged = [(done_at(ts), kb) for ts, kb in samples]
        window = n // 10
        first = [kb for d, kb in tagged if 1 <= d < window]
        last = [kb for d, kb in tagged if n - window <= d < n]
        mean_first = statistics.mean(first) / 1024 if first else None
        mean_last = statistics.mean(last) / 1024 if last else None
        change = (mean_last / mean_first - 1) if mean_first and mean_last else None
        self.results["case7"] = {
            "n": n, "window": window, "seconds": total, "samples": len(samples), "first_samples": len(first),
            "last_samples": len(last), "mean_first_mb": mean_first, "mean_last_mb": mean_last, "change": change,
            "peak_mb": max(kb for _, kb in samples) / 1024 if samples else None,
            "dims": self._dims(next(src.glob("*.jpg"))),
            # RSS by tenths of the batch, to show the shape
            "by_tenth_mb": [
                (statistics.mean(kb for d, kb in tagged if i * window <= d < (i + 1) * window) / 1024)
                if any(i * window <= d < (i + 1) * window for d, _ in tagged) else None
                for i in range(10)],
        }

    # Profiles ----------------------------------------------------------------------------------
    def profile(self):
        """perf record of PushMedia on one 12 MP JPEG, the GIF and the kept clip: top symbols."""
        if not shutil.which("perf"):
            self.results["profile"] = {"error": "perf not installed"}
            return
        out = {}
        one = WORK / ("inputs-quick" if self.quick else "inputs") / "c1-one"
        targets = [("one 12 MP JPEG", one), ("200-frame GIF", self.inputs.gif(40 if self.quick else 200)),
                   ("kept 60 s clip (probe + poster)", self.inputs.video("c5-kept-8mb", 6 if self.quick else 60, 800_000 if self.quick else 8_000_000))]
        for label, src in targets:
            if not src.exists():
                continue
            po = fresh(self.o("perf"))
            data = WORK / "perf.data"
            rec = subprocess.run(["taskset", "-c", CPUS, "perf", "record", "-F", "999", "-g", "-o", str(data), "--",
                                  str(PUSHMEDIA), "process", str(src), "--out", str(po), "--jobs", "1"],
                                 env=ENV, capture_output=True, text=True)
            if rec.returncode != 0:
                out[label] = {"error": rec.stderr[-500:]}
                continue
            rep = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children", "--sort", "dso,sym",
                                  "--percent-limit", "1.5", "-g", "none"], capture_output=True, text=True)
            lines = [ln.rstrip() for ln in rep.stdout.splitlines() if re.match(r"\s+\d+\.\d+%", ln)]
            dso = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children", "--sort", "dso",
                                  "--percent-limit", "1", "-g", "none"], capture_output=True, text=True)
            dlines = [ln.rstrip() for ln in dso.stdout.splitlines() if re.match(r"\s+\d+\.\d+%", ln)]
            out[label] = {"symbols": lines[:18], "dsos": dlines[:10]}
        self.results["profile"] = out

    # ---------------------------------------------------------------------------------------------
    def _dims(self, f: Path) -> list[int]:
        import pyvips

        im = pyvips.Image.new_from_file(str(f))
        return [im.width, im.height]


# ----------------------------------------------------------------------------------------------
# Machine description


def sh(cmd: str) -> str:
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
    return (p.stdout + p.stderr).strip()


def machine() -> dict:
    cpu = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text())
    mem = re.search(r"MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text())
    osr = re.search(r'PRETTY_NAME="(.*)"', Path("/etc/os-release").read_text())
    import pyvips
    import PIL

    return {
        "cpu": cpu.group(1) if cpu else platform.processor(),
        "cores": os.cpu_count(),
        "ram_gib": round(int(mem.group(1)) / 1024 / 1024, 1) if mem else None,
        "os": f"{osr.group(1) if osr else platform.system()}, kernel {platform.release()}",
        "versions": {
            "pushmedia": sh(f"{PUSHMEDIA} version").splitlines()[0] if PUSHMEDIA.exists() else "?",
            "swift": sh("swift --version 2>&1 | head -n 1"),
            "libvips": sh("pkg-config --modversion vips"),
            "FFmpeg libs (libavformat / libavcodec)": sh("pkg-config --modversion libavformat") + " / " + sh("pkg-config --modversion libavcodec"),
            "libx264": sh("dpkg-query -W -f='${Version}' 'libx264-*' 2>/dev/null | head -c 40"),
            "ffmpeg CLI": sh("ffmpeg -version | head -n 1"),
            "vipsthumbnail": sh("vipsthumbnail --vips-version 2>&1 | head -n 1"),
            "ImageMagick": sh(f"{CONVERT} -version | head -n 1"),
            "gifsicle": sh("gifsicle --version | head -n 1"),
            "libjpeg-turbo (djpeg)": sh("dpkg-query -W -f='${Version}' libjpeg-turbo-progs"),
            "Python": platform.python_version(),
            "pyvips": f"{pyvips.__version__} (libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)})",
            "Pillow": PIL.__version__,
        },
    }


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def wait_quiet(max_seconds: int) -> tuple[bool, float]:
    deadline = time.time() + max_seconds
    while True:
        la = loadavg()
        if la < 1.0:
            return True, la
        if time.time() >= deadline:
            return False, la
        log(f"==> load average {la:.2f} ≥ 1.0; waiting 30 s (until quiet, at most {int(deadline - time.time())} s more)")
        time.sleep(30)


# ----------------------------------------------------------------------------------------------
# Report


def fmt_s(s):
    return "–" if s is None else (f"{s * 1000:.0f} ms" if s < 10 else f"{s:.1f} s")


def fmt_mb(v):
    return "–" if v is None else f"{v:.0f} MB"


def fmt_n(v):
    return "–" if v is None else f"{v:.2f}"


def fmt_x(r):
    return "–" if r is None else f"{r:.2f}×"


def verdict(ok: bool | None) -> str:
    return "–" if ok is None else ("**met**" if ok else "**not met**")


def report(results: dict, meta: dict) -> str:
    L: list[str] = []
    a = L.append
    a("# PushMedia benchmarks")
    a("")
    a(f"Measured {meta['date']} with `{meta['command']}` (full run: {meta['duration_min']:.1f} min). "
      f"Generated by `Benchmarks/run.py`; see [docs/benchmarks.md](docs/benchmarks.md) for what each case does.")
    a("")
    m = meta["machine"]
    a("## Machine")
    a("")
    a(f"- CPU: {m['cpu']}, {m['cores']} cores (every contender pinned to CPUs {CPUS} with `taskset`; `VIPS_CONCURRENCY` unset)")
    a(f"- RAM: {m['ram_gib']} GiB; OS: {m['os']}")
    a(f"- Load average (1 min) when the run started: {meta['load_start']:.2f}; at the end: {meta['load_end']:.2f}. {meta['quiet_note']}")
    a("- Versions:")
    for k, v in m["versions"].items():
        a(f"  - {k}: {v}")
    a("")
    targets: list[tuple[str, str, bool | None]] = []

    c1 = results.get("case1")
    if c1:
        a(f"## 1. High-detail 12 MP JPEGs → 300² thumbnail + 1200×600 expanded")
        a("")
        a(f"{c1['n']} JPEGs {c1['dims'][0]}×{c1['dims'][1]}, {min(c1['mb_each']):.1f}–{max(c1['mb_each']):.1f} MB each "
          f"(texture + noise, quality 90). Each contender is one process over the folder (ImageMagick and djpeg: "
          f"one process per file, as a script would run them). Medians of {len(c1['rows'][0]['times'])} runs after 1 warm-up. "
          f"Ratio = PushMedia's time per image ÷ the peer's (below 1: PushMedia is faster).")
        a("")
        a("| contender | median, whole folder | per image | in-process per image | PushMedia ÷ peer |")
        a("|---|---:|---:|---:|---:|")
        for r in c1["rows"]:
            a(f"| {r['name']} | {fmt_s(r['median_s']) if not r.get('failed') else 'failed: ' + r['failed']} | {fmt_s(r['per_image_s'])} | {fmt_s(r.get('in_process_per_image_s'))} | "
              f"{fmt_x(r['ratio']) if r['name'] != 'pushmedia' else '1'} |")
        a("")
        a(f"PushMedia per image (total ÷ {c1['n']}): **{fmt_s(c1['pushmedia_per_image_s'])}**; a 1-image run takes "
          f"{fmt_s(c1['pushmedia_one_image_s'])} (start-up, queue, manifest and preview included); the marginal cost of one more image "
          f"((T{c1['n']} − T1) ÷ {c1['n'] - 1}) is {fmt_s(c1['pushmedia_marginal_s'])}. Peak RSS {fmt_mb(c1['pushmedia_rss_mb'])}.")
        a("")
        by = {r["name"]: r for r in c1["rows"]}
        floor = by.get("djpeg-scale-1/2 (decode floor)")
        t = floor["ratio"] if floor else None
        targets.append(("1: ≤ 1.6× the decode floor (djpeg -scale 1/2)", fmt_x(t), le(t, 1.6)))
        for name in ("pillow-draft-fit", "pyvips-thumbnail-twice", "pyvips-decode-once"):
            if name in by:
                targets.append((f"1: ≤ 0.5× {name}", fmt_x(by[name]["ratio"]), le(by[name]["ratio"], 0.5)))

    c2 = results.get("case2")
    if c2:
        a("## 2. Large JPEGs: time and peak RSS")
        a("")
        a(f"One file per run, `--jobs 1`; peak RSS from `/usr/bin/time -v` (\"Maximum resident set size\"). "
          f"Medians of {len(next(iter(c2.values()))['rows'][0]['times'])} runs after 1 warm-up.")
        a("")
        a("| input | contender | median | peak RSS |")
        a("|---|---|---:|---:|")
        for mp, d in c2.items():
            for r in d["rows"]:
                a(f"| {mp} MP ({d['dims'][0]}×{d['dims'][1]}, {d['mb']:.1f} MB) | {r['name']} | {fmt_s(r['median_s']) if not r.get('failed') else 'failed: ' + r['failed']} | "
                  f"{fmt_mb(r['rss_mb'])} |")
        a("")
        pm50 = next(r for r in c2["50"]["rows"] if r["name"] == "pushmedia")
        targets.append(("2: 50 MP peak RSS ≤ 150 MB", fmt_mb(pm50["rss_mb"]), le(pm50["rss_mb"], 150)))

    c3 = results.get("case3")
    if c3:
        a(f"## 3. A batch of {c3['n']} mixed images")
        a("")
        kinds = ", ".join(f"{v} {k}" for k, v in sorted(c3["kinds"].items()))
        a(f"{kinds} ({c3['mb_total']:.0f} MB in all; JPEG 2–6 MP, PNG 0.9–1.4 MP half with alpha, WebP 2.5 MP, "
          f"animated GIF 480×360 × 10 frames). Medians of {len(c3['rows'][0]['times'])} runs (warm-up: one run on 10 of the files).")
        a("")
        a("| run | median | images/s | peak RSS |")
        a("|---|---:|---:|---:|")
        for r in c3["rows"]:
            a(f"| {r['name']} | {fmt_s(r['median_s']) if not r.get('failed') else 'failed: ' + r['failed']} | {fmt_n(r['images_per_s'])} | {fmt_mb(r['rss_mb'])} |")
        a("")
        a(f"Scaling from 1 to 2 jobs: **{fmt_x(c3['scaling'])}** (libvips already uses both cores inside one job, "
          f"so 2× is not expected).")
        a("")

    c4 = results.get("case4")
    if c4:
        a(f"## 4. A {c4['frames']}-frame GIF → animated thumbnail + expanded")
        a("")
        a(f"{c4['dims'][0]}×{c4['dims'][1]}, {c4['frames']} frames, {c4['mb']:.1f} MB. Every contender makes the same two outputs: "
          f"300×300 and {c4['dims'][0]}×{c4['dims'][0] // 2} (PushMedia never upscales). ImageMagick: one `convert` with "
          f"`-coalesce`, crops/`-resize` and `-layers optimize`; gifsicle: two commands (`--crop`, `--resize`, `-O2`). "
          f"Peers crop at the centre; PushMedia picks the subject (attention on a representative frame) and checks the 5 MB budget. "
          f"Medians of {len(c4['rows'][0]['times'])} runs after 1 warm-up.")
        a("")
        a("| contender | median | PushMedia ÷ peer | output bytes |")
        a("|---|---:|---:|---:|")
        pm_bytes = sum(x["bytes"] or 0 for x in c4["pushmedia_attachments"])
        for r in c4["rows"]:
            b = pm_bytes if r["name"] == "pushmedia" else c4["peer_output_bytes"].get(r["name"])
            a(f"| {r['name']} | {fmt_s(r['median_s']) if not r.get('failed') else 'failed: ' + r['failed']} | {fmt_x(r['ratio']) if not r['name'].startswith('pushmedia') else '1'} | "
              f"{(b or 0) / 1e6:.2f} MB |")
        a("")
        a("PushMedia's attachments: " + "; ".join(
            f"{x['role']} {x['w']}×{x['h']} {(x['bytes'] or 0) / 1e6:.2f} MB (encoding {json.dumps(x['encoding'])})"
            for x in c4["pushmedia_attachments"]))
        a("")
        im = next(r for r in c4["rows"] if r["name"] == "imagemagick")
        if c4.get("default_failed"):
            a(f"**With the default profile PushMedia fails this GIF**: `{c4['default_failed']}`. "
              + ("The ratios above use a run with `limits.timeoutSeconds` raised to 600 s." if c4.get("raised") else ""))
            a("")
        targets.append(("4: ≥ 2× faster than ImageMagick (ratio ≤ 0.5)" + (" — default profile fails (timeout)" if c4.get("default_failed") else ""),
                        fmt_x(im["ratio"]), False if c4.get("default_failed") else le(im["ratio"], 0.5)))

    c5 = results.get("case5")
    if c5:
        p, t = c5["poster"], c5["transcode"]
        a(f"## 5. A {c5['seconds']} s 1080p30 H.264 clip")
        a("")
        a(f"**a) probe + poster.** A {p['mb']:.1f} MB clip, within the 10 MB budget, so PushMedia keeps it (`{p['action']}`): its run is "
          f"probe + poster frame (24 candidates scored in the first 10 s) + thumbnail and expanded poster. The CLI does "
          f"`ffprobe` + one `ffmpeg -ss {p['thumbnail_time']:.2f}` (PushMedia's chosen poster time, a seek — no choice) "
          f"writing the same two crops. Medians of {len(p['rows'][0]['times'])} runs after 1 warm-up.")
        a("")
        a("| contender | median |")
        a("|---|---:|")
        for r in p["rows"]:
            a(f"| {r['name']} | {fmt_s(r['median_s']) if not r.get('failed') else 'failed: ' + r['failed']} |")
        a("")
        a(f"PushMedia ÷ CLI: **{fmt_x(p['ratio'])}**")
        a("")
        mm = t["media"]
        a(f"**b) transcode.** A {t['mb_in']:.1f} MB clip, over budget, so PushMedia transcodes it to "
          f"{t['width']}×{t['height']} H.264 at {mm.get('videoBitRate', 0) / 1000:.0f} kbit/s video + "
          f"{(mm.get('audioBitRate') or 0) / 1000:.0f} kbit/s AAC ({mm.get('attempts')} attempt(s); output {(t['pm_bytes'] or 0) / 1e6:.2f} MB). "
          f"The CLI runs libx264 with the same settings (`-preset veryfast -profile:v high -b:v {mm.get('videoBitRate')} "
          f"-maxrate 1.5× -bufsize 2× -vf scale={t['width']}:{t['height']}` (PushMedia's output size), ≤ 30 fps, AAC, `+faststart`; output {t['cli_bytes'] / 1e6:.2f} MB). "
          f"PushMedia's run also probes and makes the poster, so the fair peer is the CLI doing all three. "
          f"Medians of {len(t['rows'][0]['times'])} runs, no warm-up (the clip is in the page cache from the first, untimed, PushMedia run).")
        a("")
        a("| contender | median |")
        a("|---|---:|")
        for r in t["rows"]:
            a(f"| {r['name']} | {fmt_s(r['median_s']) if not r.get('failed') else 'failed: ' + r['failed']} |")
        a("")
        a(f"PushMedia ÷ CLI (same outputs: probe + poster + transcode): **{fmt_x(t['ratio_same_outputs'])}**; "
          f"÷ the transcode alone: {fmt_x(t['ratio_transcode_only'])}.")
        a("")
        targets.append(("5a: probe + poster ≤ 1.1× the CLI", fmt_x(p["ratio"]), le(p["ratio"], 1.1)))
        targets.append(("5b: transcode ≤ 1.1× the CLI (same outputs)", fmt_x(t["ratio_same_outputs"]), le(t["ratio_same_outputs"], 1.1)))
        targets.append(("5b: transcode ≤ 1.1× the CLI (transcode alone)", fmt_x(t["ratio_transcode_only"]), le(t["ratio_transcode_only"], 1.1)))

    c6 = results.get("case6")
    if c6:
        a("## 6. Queue overhead per no-op job")
        a("")
        a("`Benchmarks/QueueOverhead` (release) enqueues N jobs and drains them with `QueueWorker.runUntilDrained`, "
          "one slot, a handler that returns `.succeeded` at once; the worker is configured as `pushmedia process` configures its own. "
          "Per job = drain time ÷ N (claim + complete + bookkeeping); the enqueue is shown apart. Medians of "
          f"{len(c6['rows'][0]['all'])} runs after 1 warm-up, each on a fresh database/table prefix.")
        a("")
        img = (c1 or {}).get("pushmedia_per_image_s")
        a("| backend | jobs per run | ms per job (drain) | ms per job incl. enqueue | ÷ median image job (case 1) |")
        a("|---|---:|---:|---:|---:|")
        for r in c6["rows"]:
            share = r["ms_per_job"] / 1000 / img if img else None
            a(f"| {r['backend']} | {r['jobs']} | {r['ms_per_job']:.3f} | {r['ms_per_job_with_enqueue']:.3f} | "
              f"{'–' if share is None else f'{share * 100:.2f} %'} |")
            if share is not None:
                targets.append((f"6: queue overhead ≤ 2 % of an image job ({r['backend']})", f"{share * 100:.2f} %", share <= 0.02))
        if not c6["postgres"]:
            a("")
            a("PostgreSQL was not available (PUSHMEDIA_TEST_POSTGRES_URL unset): its row is missing.")
        a("")

    c7 = results.get("case7")
    if c7:
        a(f"## 7. RSS over a {c7['n']}-image batch")
        a("")
        a(f"{c7['n']} distinct {c7['dims'][0]}×{c7['dims'][1]} JPEGs, `pushmedia process --jobs 2`, one run "
          f"({fmt_s(c7['seconds'])}); VmRSS sampled from /proc every 100 ms ({c7['samples']} samples) and placed on the "
          f"progress by the `[n/N]` lines on stderr.")
        a("")
        a("| window | samples | mean RSS |")
        a("|---|---:|---:|")
        a(f"| items 1–{c7['window']} | {c7['first_samples']} | {fmt_mb(c7['mean_first_mb'])} |")
        a(f"| items {c7['n'] - c7['window']}–{c7['n']} | {c7['last_samples']} | {fmt_mb(c7['mean_last_mb'])} |")
        a("")
        tenths = ", ".join("–" if v is None else f"{v:.0f}" for v in c7["by_tenth_mb"])
        ch = c7["change"]
        a(f"Change: **{'–' if ch is None else f'{ch * 100:+.1f} %'}**; peak {fmt_mb(c7['peak_mb'])}; mean RSS by tenth of the batch (MB): {tenths}.")
        a("")
        targets.append(("7: RSS flat within ±10 % (first vs last 100 items)", "–" if ch is None else f"{ch * 100:+.1f} %",
                        None if ch is None else abs(ch) <= 0.10))

    a("## Targets")
    a("")
    a("| target | measured | |")
    a("|---|---:|---|")
    for name, val, ok in targets:
        a(f"| {name} | {val} | {verdict(ok)} |")
    a("")

    prof = results.get("profile")
    if prof:
        a("## Profiles (perf, PushMedia alone)")
        a("")
        a("`perf record -F 999 -g` of `pushmedia process --jobs 1`, self time, entries ≥ 1.5 %:")
        a("")
        if "error" in prof:
            a(f"perf failed: {prof['error']}")
        for label, d in prof.items():
            if not isinstance(d, dict):
                continue
            a(f"**{label}**")
            a("")
            if "error" in d:
                a(f"perf failed: `{d['error'].strip()}`")
                a("")
                continue
            a("```")
            a("by library:")
            L.extend(d["dsos"])
            a("by symbol:")
            L.extend(d["symbols"])
            a("```")
            a("")
    return "\n".join(L) + "\n"


# ----------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="tiny inputs and few runs, to debug the harness")
    ap.add_argument("--cases", default="1,2,3,4,5,6,7,profile", help="comma-separated cases (default: all)")
    ap.add_argument("--wait-quiet", type=int, default=0, metavar="SECONDS",
                    help="wait up to SECONDS for a 1-minute load average below 1.0 before measuring (polls every 30 s)")
    ap.add_argument("--no-write", action="store_true", help="print the report, write no file")
    ap.add_argument("--command", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    WORK.mkdir(parents=True, exist_ok=True)
    if not PUSHMEDIA.exists():
        log("==> building PushMedia (swift build -c release --product pushmedia)")
        subprocess.run(["swift", "build", "-c", "release", "--product", "pushmedia"], cwd=ROOT, check=True)

    started = time.time()
    suite = Suite(args)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    # Inputs first (generation is not measured), then the measurements.
    log("==> preparing inputs")
    if "1" in cases or "profile" in cases:
        suite.inputs.case1(3 if args.quick else 8)
    if "2" in cases:
        suite.inputs.large(24), suite.inputs.large(50)
    if "3" in cases:
        suite.inputs.mixed(40 if args.quick else 200)
    if "4" in cases or "profile" in cases:
        suite.inputs.gif(40 if args.quick else 200)
    if "5" in cases or "profile" in cases:
        secs = 6 if args.quick else 60
        suite.inputs.video("c5-kept-8mb", secs, 800_000 if args.quick else 8_000_000)
        suite.inputs.video("c5-transcode-20mb", secs, 14_000_000 if args.quick else 20_000_000)
    if "7" in cases:
        suite.inputs.small_batch(200 if args.quick else 1000)
    suite.inputs._texture = None

    quiet_note = ""
    if args.wait_quiet:
        quiet, la = wait_quiet(args.wait_quiet)
        quiet_note = ("The machine was quiet (load < 1.0) when measuring began." if quiet else
                      f"**The machine never got quiet within {args.wait_quiet} s (load {la:.2f}): measured anyway; "
                      f"another job shared the cores, so absolute times are inflated (ratios less so: contenders are interleaved).**")
    load_start = loadavg()
    measured_from = time.time()
    for case in cases:
        log(f"==> case {case}")
        getattr(suite, f"case{case}" if case != "profile" else "profile")()
        (WORK / ("results-quick.json" if args.quick else "results.json")).write_text(json.dumps(suite.results, indent=1))
    meta = {
        "date": dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "command": args.command or "Benchmarks/run " + " ".join(sys.argv[1:]),
        "duration_min": (time.time() - started) / 60,
        "measured_min": (time.time() - measured_from) / 60,
        "load_start": load_start, "load_end": loadavg(), "quiet_note": quiet_note,
        "machine": machine(),
    }
    text = report(suite.results, meta)
    if args.no_write:
        print(text)
        return 0
    target = WORK / "BENCHMARKS.quick.md" if args.quick else ROOT / "BENCHMARKS.md"
    if target.exists() and not args.quick:
        old = target.read_text()
        if ANALYSIS_MARK in old:
            text += "\n" + ANALYSIS_MARK + old.split(ANALYSIS_MARK, 1)[1]
    target.write_text(text)
    print(text)
    log(f"==> wrote {target} ({meta['duration_min']:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
