#!/usr/bin/env python3
"""Designer-size animated GIFs: `pushmedia process` (default profile) against gifsicle -O3 making
the expanded variant alone (the centred 2:1 crop, --resize-fit to the expanded size), paired.

    /usr/bin/python3 Benchmarks/gif_cost.py [--runs N] [--make DIR] PUSHMEDIA GIF...

--make DIR writes the GIFs the issue names into DIR first (ffmpeg's lavfi sources): a 1200×1200
cellular automaton of 200 frames, a 2048×2048 test pattern of 120 frames, and one of 480 frames
(refused by the cost model). Rounds interleave the two commands; CPU is user + sys of the
children, peak RSS ru_maxrss. Prints a Markdown table.

`Benchmarks/run` case 8 is the same measurement in the suite (the same GIFs, kept in
Benchmarks/.work/inputs/, pinned like the other cases); its section of BENCHMARKS.md is also
written into docs/benchmarks/gif-cost.md. This script stays the quick standalone tool.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def make(folder: Path) -> list[Path]:
    from harness.inputs import DESIGNER_GIFS, lavfi_gif  # the suite's case 8 specs (Benchmarks/harness)

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, source, frames in DESIGNER_GIFS:
        path = folder / name
        if not path.exists():
            lavfi_gif(path, source, frames)
        paths.append(path)
    return paths


def run(cmd: list[str]) -> tuple[float, float, int]:
    """CPU seconds, wall seconds, peak RSS (KB) of a child that is waited for alone."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = __import__("os").wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss


def screen(gif: Path) -> tuple[int, int]:
    data = gif.read_bytes()[:10]
    return data[6] | data[7] << 8, data[8] | data[9] << 8


def main() -> None:
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--make")
    parser.add_argument("pushmedia")
    parser.add_argument("gifs", nargs="*")
    args = parser.parse_args()
    gifs = [Path(p) for p in args.gifs] + (make(Path(args.make)) if args.make else [])
    work = Path(tempfile.mkdtemp(prefix="gif-cost-"))
    print("| GIF | bytes | PushMedia CPU s | wall s | peak RSS MB | outcome | gifsicle CPU s | PushMedia ÷ gifsicle |")
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    try:
        for gif in gifs:
            folder = work / gif.stem
            folder.mkdir()
            shutil.copy(gif, folder / gif.name)
            w, h = screen(gif)
            eh = min(h, w // 2)
            ew = eh * 2
            crop = ["gifsicle", "-O3", "--crop", f"{(w - ew) // 2},{(h - eh) // 2}+{ew}x{eh}", "--resize-fit", "1200x600",
                    str(gif), "-o", str(work / "e.gif")]
            ours, theirs = [], []
            for _ in range(args.runs):
                shutil.rmtree(work / "out", ignore_errors=True)
                ours.append(run([args.pushmedia, "process", str(folder), "--out", str(work / "out"), "--jobs", "1"]))
                theirs.append(run(crop))
            item = json.loads((work / "out" / "manifest.json").read_text())["items"][0]
            if item["status"] == "ok":
                expanded = next(a for a in item["attachments"] if a["role"] == "expanded")
                outcome = f"ok: expanded {expanded['width']}×{expanded['height']}, {expanded.get('frames')} frames, {expanded['bytes']} B"
            else:
                outcome = f"{item['error']['code']}"
            cpu = statistics.median(c for c, _, _ in ours)
            their_cpu = statistics.median(c for c, _, _ in theirs)
            print(f"| {gif.name} | {gif.stat().st_size} | {cpu:.2f} | {statistics.median(w for _, w, _ in ours):.2f} | "
                  f"{max(r for _, _, r in ours) / 1024:.0f} | {outcome} | {their_cpu:.2f} | {cpu / their_cpu:.2f} |")
            sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
