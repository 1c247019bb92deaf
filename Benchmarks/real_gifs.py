#!/usr/bin/env python3
"""Real animated GIFs through the whole pipeline, checked frame by frame (issue 40).

    /usr/bin/python3 Benchmarks/real_gifs.py [--pushmedia .build-release/release/pushmedia] [--profile FILE] [GIF ...]

Without arguments: the animated GIFs that installed packages ship on this machine (imageio's
Newton's cradle, scikit-image's "no time for that", pyenv's installer recording), when present.

For each GIF: `pushmedia process` on a folder holding it alone; then every source frame (Pillow,
disposal and transparency applied: the frame shown) is cut by the expanded attachment's
`sourceRect`, resized to the output's size (Lanczos) and compared with the output frame shown at
the source frame's start time (frames merged by the fps cap or dropped by the ladder count against
the output). Each comparison is composited over white and over black (see-through pixels must stay
see-through), and the worse PSNR of the two is kept. Prints one JSON line per GIF: frames, bytes,
the worst and median PSNR (dB) and the frame where the worst is.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image, ImageSequence

INSTALLED = [
    "/usr/lib/python3/dist-packages/imageio/resources/images/newtonscradle.gif",
    "/usr/lib/python3/dist-packages/skimage/data/no_time_for_that_tiny.gif",
    "/root/.pyenv/install_local_python.gif",
]


def shown_frames(path: Path) -> tuple[list[np.ndarray], list[int]]:
    """Every frame as shown (RGBA, float), and its delay in ms."""
    frames, delays = [], []
    with Image.open(path) as im:
        for frame in ImageSequence.Iterator(im):
            frames.append(np.asarray(frame.convert("RGBA"), dtype=np.float64))
            delays.append(frame.info.get("duration", 100) or 100)
    return frames, delays


def over(rgba: np.ndarray, background: float) -> np.ndarray:
    alpha = rgba[..., 3:4] / 255.0
    return rgba[..., :3] * alpha + background * (1 - alpha)


def psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = float(np.mean((a - b) ** 2))
    return 99.0 if mse == 0 else 10 * np.log10(255.0**2 / mse)


def check(pushmedia: str, source: Path, profile: str | None) -> dict:
    with tempfile.TemporaryDirectory() as work:
        folder, out = Path(work) / "in", Path(work) / "out"
        folder.mkdir()
        shutil.copy(source, folder / source.name)
        run = subprocess.run([pushmedia, "process", str(folder), "--out", str(out), "--jobs", "1"] + (["--profile", profile] if profile else []),
                             capture_output=True, text=True)
        item = json.loads((out / "manifest.json").read_text())["items"][0]
        if item["status"] != "ok":
            return {"gif": str(source), "status": item["status"], "error": item.get("error"), "rc": run.returncode}
        expanded = next(a for a in item["attachments"] if a["role"] == "expanded")
        output = out / expanded["file"]
        src, src_delays = shown_frames(source)
        dst, dst_delays = shown_frames(output)
        height, width = dst[0].shape[:2]
        rect = expanded["sourceRect"]
        sh, sw = src[0].shape[:2]
        box = (round(rect["x"] * sw), round(rect["y"] * sh), round((rect["x"] + rect["w"]) * sw), round((rect["y"] + rect["h"]) * sh))
        ends = np.cumsum(dst_delays)
        scores, t = [], 0
        for frame, delay in zip(src, src_delays):
            k = min(int(np.searchsorted(ends, t, side="right")), len(dst) - 1)
            image = Image.fromarray(frame.astype(np.uint8), "RGBA").crop(box)
            # Resized premultiplied, as a decoder's resize does: see-through pixels carry no colour.
            premultiplied = np.asarray(image, dtype=np.float64)
            premultiplied[..., :3] *= premultiplied[..., 3:4] / 255.0
            channels = [Image.fromarray(premultiplied[..., c].astype(np.float32), "F").resize((width, height), Image.LANCZOS)
                        for c in range(4)]
            cut = np.stack([np.asarray(c, dtype=np.float64) for c in channels], axis=-1).clip(0, 255)
            alpha = cut[..., 3:4] / 255.0
            shown = dst[k]
            worst = min(
                psnr(cut[..., :3] + background * (1 - alpha), over(shown, background)) for background in (0.0, 255.0))
            scores.append(worst)
            t += delay
        worst_at = int(np.argmin(scores))
        return {"gif": str(source), "size": [sw, sh], "frames": len(src), "output_frames": len(dst), "output": [width, height],
                "bytes": output.stat().st_size, "worst_db": round(scores[worst_at], 1), "worst_frame": worst_at,
                "median_db": round(float(np.median(scores)), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pushmedia", default=".build-release/release/pushmedia")
    parser.add_argument("--profile", help="a profile file (e.g. limits.maxAnimationPixels for a long recording)")
    parser.add_argument("gifs", nargs="*")
    args = parser.parse_args()
    gifs = [Path(g) for g in (args.gifs or [g for g in INSTALLED if Path(g).exists()])]
    if not gifs:
        sys.exit("no GIF to check")
    for gif in gifs:
        print(json.dumps(check(args.pushmedia, gif, args.profile)), flush=True)


if __name__ == "__main__":
    main()
