"""The inputs of the GIF decoder benchmark (bench.c), written to OUTDIR (default
Benchmarks/.work/gifdecode):

    /usr/bin/python3 Benchmarks/gifdecode/make_inputs.py [OUTDIR]

gif.py's generated animations (its four inputs and four stickers over see-through), its 1200×1200
sliding badge of 200 frames (FFmpeg, ordered dithering: small changed rectangles), the 13 cases of
gifwriter/make_cases.py (disposals 0–3, transparency, local tables, odd sizes), and a large GIF
where LZW decoding dominates: 1200×1200, 200 full frames of a Floyd–Steinberg-dithered, grainy
picture panning by a few pixels a frame (64 colours, every pixel changes every frame)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "Benchmarks"))
import gif  # noqa: E402


def dithered_pan(path: Path, side=1200, frames=200, step=3, colours=64) -> None:
    rng = np.random.default_rng(40)
    big = side + step * frames
    y, x = np.mgrid[0:side, 0:big].astype(np.float32)
    base = np.stack([128 + 100 * np.sin(x / 97) * np.cos(y / 53), 128 + 90 * np.cos(x / 61 + y / 83),
                     128 + 100 * np.sin((x + y) / 131)], axis=2)
    base += rng.normal(0, 18, base.shape)
    rgb = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))
    palette = rgb.quantize(colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    wide = rgb.quantize(palette=palette, dither=Image.Dither.FLOYDSTEINBERG)
    out = [wide.crop((k * step, 0, k * step + side, side)) for k in range(frames)]
    out[0].save(path, save_all=True, append_images=out[1:], duration=40, loop=0, optimize=False)


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "Benchmarks" / ".work" / "gifdecode"
    out.mkdir(parents=True, exist_ok=True)
    for name, make in gif.ALL_INPUTS.items():
        if not (out / f"{name}.gif").exists():
            make(out / f"{name}.gif")
    if not (out / "badge-1200.gif").exists():
        (out / "squares").mkdir(exist_ok=True)
        gif.big_square(out / "squares" / "badge-1200.gif", 200)  # its palette goes to out's parent
        (out / "squares" / "badge-1200.gif").rename(out / "badge-1200.gif")
        (out / "squares").rmdir()
    if not (out / "dithered-1200.gif").exists():
        dithered_pan(out / "dithered-1200.gif")
    subprocess.run([sys.executable, str(ROOT / "Benchmarks" / "gifwriter" / "make_cases.py"), str(out / "cases")],
                   check=True)


if __name__ == "__main__":
    main()
