#!/usr/bin/env python3
"""CPU of `pushmedia process` on animated GIFs against gifsicle -O3 making the same two outputs.

    /usr/bin/python3 Benchmarks/gifsicle.py [--runs N] GIF... -- PUSHMEDIA...

For each GIF, and then for the folder holding all of them, runs interleaved (--runs rounds,
medians) of:
- each PUSHMEDIA binary: `process FOLDER --out NEW` (the whole process, start-up included);
- gifsicle -O3 making the expanded variant: the largest centred 2:1 crop;
- the same plus a still thumbnail: the centred square cropped, resized to 300x300, first frame
  (PushMedia's thumbnail of an animation is a still);
- the same plus an animated thumbnail (every frame).
Times are user + sys of the children (CPU) and wall. For the folder, gifsicle's figure is the sum
over the files of one invocation pair each, PushMedia's one process over the folder (`--jobs 1`),
the way the still-image target is measured against djpeg.

Needs Debian's gifsicle and python3-pil.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image


def timed(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def gifsicle_commands(gif: Path, work: Path) -> dict[str, list[list[str]]]:
    """gifsicle's invocations for the expanded GIF and each kind of thumbnail."""
    with Image.open(gif) as image:
        w, h = image.size
    eh = min(h, w // 2)
    ew = eh * 2
    side = min(w, h)
    expanded = ["gifsicle", "-O3", "--crop", f"{(w - ew) // 2},{(h - eh) // 2}+{ew}x{eh}", str(gif), "-o", str(work / "e.gif")]
    square = ["gifsicle", "-O3", "--crop", f"{(w - side) // 2},{(h - side) // 2}+{side}x{side}", "--resize", "300x300", str(gif)]
    return {
        "gifsicle -O3 expanded": [expanded],
        "gifsicle -O3 + still thumbnail": [expanded, square + ["#0", "-o", str(work / "s.gif")]],
        "gifsicle -O3 + animated thumbnail": [expanded, square + ["-o", str(work / "t.gif")]],
    }


def measure(label: str, contenders: dict[str, callable], runs: int) -> None:
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
    for _ in range(runs):
        for name, run in contenders.items():
            results[name].append(run())
    print(f"\n{label}")
    cpu = {name: statistics.median(c for c, _ in times) for name, times in results.items()}
    still = cpu["gifsicle -O3 + still thumbnail"]
    animated = cpu["gifsicle -O3 + animated thumbnail"]
    for name, times in results.items():
        wall = statistics.median(w for _, w in times)
        print(f"  {name:36} cpu {cpu[name]:6.2f} s  wall {wall:6.2f} s  "
              f"÷ gifsicle (still / animated thumbnail) {cpu[name] / still:5.2f}x / {cpu[name] / animated:5.2f}x")


def main() -> None:
    arguments = sys.argv[1:]
    if "--" not in arguments:
        sys.exit(__doc__)
    split = arguments.index("--")
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("gifs", nargs="+")
    args = parser.parse_args(arguments[:split])
    gifs = [Path(p).resolve() for p in args.gifs]
    binaries = [str(Path(p).resolve()) for p in arguments[split + 1:]]
    if not binaries:
        sys.exit(__doc__)
    work = Path(tempfile.mkdtemp(prefix="gifsicle-bench-"))
    try:
        def pushmedia(binary: str, folder: Path):
            def run() -> tuple[float, float]:
                shutil.rmtree(work / "out", ignore_errors=True)
                return timed([binary, "process", str(folder), "--out", str(work / "out"), "--jobs", "1"])
            return run

        def chained(commands: list[list[str]]):
            def run() -> tuple[float, float]:
                total = (0.0, 0.0)
                for command in commands:
                    cpu, wall = timed(command)
                    total = (total[0] + cpu, total[1] + wall)
                return total
            return run

        everyone = work / "all"
        everyone.mkdir()
        per_file: dict[str, list[list[str]]] = {}
        for gif in gifs:
            folder = work / gif.stem
            folder.mkdir()
            shutil.copy(gif, folder / gif.name)
            shutil.copy(gif, everyone / gif.name)
            commands = gifsicle_commands(gif, work)
            for name, chain in commands.items():
                per_file.setdefault(name, []).extend(chain)
            with Image.open(gif) as image:
                label = f"{gif.name}: {image.size[0]}x{image.size[1]}, {getattr(image, 'n_frames', 1)} frames, {gif.stat().st_size} B"
            contenders = {Path(b).name: pushmedia(b, folder) for b in binaries}
            contenders.update({name: chained(chain) for name, chain in commands.items()})
            measure(label, contenders, args.runs)
        contenders = {Path(b).name: pushmedia(b, everyone) for b in binaries}
        contenders.update({name: chained(chain) for name, chain in per_file.items()})
        measure(f"the folder of all {len(gifs)} (PushMedia: one process; gifsicle: each file in turn)", contenders, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
