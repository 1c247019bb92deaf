"""/usr/bin/python3 Benchmarks/gifwriter/check.py SOURCE OUTPUT...: every frame of each OUTPUT (decoded by Pillow and by FFmpeg) against
the SOURCE frame shown at its start (same frame count and timing: the harness writes every frame),
RGBA with alpha thresholded at 128 and see-through as 0. Prints exact frames and the worst PSNR.
The source's frames: FFmpeg's, checked against gifsicle --unoptimize's full frames read by Pillow
(Pillow 9.4 itself shows some disposal sequences wrongly: a frame disposed with 2 after one left
in place with 0)."""
import sys, subprocess, math
import numpy as np
from PIL import Image, ImageSequence

def norm(a):
    a = a.astype(np.int32).copy()
    clear = a[..., 3] < 128
    a[clear] = 0
    a[..., 3] = np.where(clear, 0, 255)
    return a

def pil(path):
    return [norm(np.asarray(f.convert("RGBA"))) for f in ImageSequence.Iterator(Image.open(path))]

def ff(path, w, h):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgba", "-"],
                         capture_output=True, check=True).stdout
    return [norm(f) for f in np.frombuffer(raw, np.uint8).reshape(-1, h, w, 4)]

def psnr(a, b):
    mse = float(((a - b) ** 2).mean())
    return math.inf if mse == 0 else 10 * math.log10(255 * 255 / mse)

import tempfile, os
first = Image.open(sys.argv[1])
w, h = first.size
src = ff(sys.argv[1], w, h)
with tempfile.TemporaryDirectory() as d:
    subprocess.run(["gifsicle", "--unoptimize", sys.argv[1], "-o", os.path.join(d, "u.gif")], check=True)
    unopt = pil(os.path.join(d, "u.gif"))
agree = len(unopt) == len(src) and all(bool((x == y).all()) for x, y in zip(src, unopt))
ok = True
for out in sys.argv[2:]:
    for name, frames in [("pillow", pil(out)), ("ffmpeg", ff(out, w, h))]:
        n = min(len(frames), len(src))
        exact = sum((frames[k] == src[k]).all() for k in range(n))
        worst = min((psnr(frames[k], src[k]) for k in range(n)), default=math.inf)
        good = len(frames) == len(src) and exact == len(src)
        ok &= good
        print(f"{out} {name}: {len(frames)}/{len(src)} frames, {exact} exact, worst {worst:.1f} dB{'' if good else '  <-- DIFFERS'}"
              f"{'' if agree is True else '  (source: FFmpeg and gifsicle -U disagree)'}")
sys.exit(0 if ok else 1)
