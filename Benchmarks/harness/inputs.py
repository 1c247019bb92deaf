"""Inputs: every generated file the cases measure (not timed)."""

from __future__ import annotations

from harness.common import *  # noqa: F401,F403 (paths, run helpers, standard modules)


# ----------------------------------------------------------------------------------------------
# Inputs

# Case 8's designer-size GIFs (file name, ffmpeg lavfi source, frames); Benchmarks/gif_cost.py --make
# writes the same files. The 480-frame one is ~90 MB.
DESIGNER_GIFS = [("cell-1200x200.gif", "cellauto=s=1200x1200:rate=20", 200),
                 ("test-2048x120.gif", "testsrc=s=2048x2048:rate=10", 120),
                 ("test-2048x480.gif", "testsrc=s=2048x2048:rate=10", 480)]
# Small stand-ins for --quick (the same sources, a few seconds each).
DESIGNER_GIFS_QUICK = [("cell-400x40.gif", "cellauto=s=400x400:rate=20", 40),
                       ("test-600x30.gif", "testsrc=s=600x600:rate=10", 30)]


def lavfi_gif(path: Path, source: str, frames: int) -> None:
    """An animated GIF of `frames` frames of an ffmpeg lavfi source, with the ffmpeg CLI's defaults."""
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-frames:v", str(frames), str(path)],
                   check=True)


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

    def fixture_photo(self, name: str) -> Path:
        """A folder holding one photo of Fixtures/photos."""
        d = self.dir / f"fixture-{Path(name).stem}"
        if not (d / name).exists():
            fresh(d)
            shutil.copy(ROOT / "Fixtures" / "photos" / name, d / name)
        return d

    def photos_6mp(self, count: int) -> Path:
        """count distinct noisy 3000×2000 JPEGs (case 9's batch)."""
        w, h = (600, 400) if self.quick else (3000, 2000)
        return self._jpegs(f"c9-photos-{count}", count, w, h, q=85)

    def android_stills(self) -> Path:
        """Case 10's 20 stills: the ten photos of Fixtures/photos (1×1 to 4000 px, CMYK,
        EXIF-rotated, 16-bit PNG, HEIC, TIFF, WebP) and ten JPEGs of 2000-4000 px."""
        d = self.dir / "c10-stills"
        if (d / ".done").exists():
            return d
        fresh(d)
        for f in sorted((ROOT / "Fixtures" / "photos").iterdir()):
            if f.is_file() and not f.name.startswith("."):
                shutil.copy(f, d / f.name)
        rnd = random.Random(10)
        for i in range(10):
            w = rnd.randint(500, 1000) if self.quick else rnd.randint(2000, 4000)
            h = int(w * rnd.choice([0.5, 0.66, 0.75, 1.0, 1.33]))
            self.crop(7000 + i, w, h).jpegsave(str(d / f"photo-{i:02d}.jpg"), Q=88)
        (d / ".done").touch()
        return d

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

    def designer_gifs(self) -> list[tuple[Path, int]]:
        """Case 8's GIFs and their frame counts, each GIF alone in a folder (what `pushmedia
        process` is given)."""
        gifs = []
        for name, source, frames in (DESIGNER_GIFS_QUICK if self.quick else DESIGNER_GIFS):
            d = self.dir / "c8-designer-gifs" / Path(name).stem
            gif = d / name
            if not (d / ".done").exists():
                fresh(d)
                log(f"==> generating {gif.relative_to(ROOT)}: {frames} frames of {source} (ffmpeg CLI)")
                lavfi_gif(gif, source, frames)
                (d / ".done").touch()
            gifs.append((gif, frames))
        return gifs

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
