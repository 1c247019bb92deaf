#!/usr/bin/env python3
"""Faces: what `crop: smart` finds, and what it costs against `crop: attention`.

    /usr/bin/python3 Benchmarks/faces.py [--pushmedia PATH] [--runs N] [--stills DIR]

Needs Debian's python3-numpy, python3-pil and python3-skimage (use /usr/bin/python3). Inputs are
generated here (seeded) from photos scikit-image ships:

- 18 banners: the astronaut (one frontal face), the cameraman (a face in profile) and three faces
  of its LFW subset (upscaled from 25 px), each on the left and on the right of a bright pattern
  (stripes, checkers, discs), at 2400x800, 1600x900 and 1200x1200: 30 faces, 6 in profile;
- 8 rolled faces: the astronaut and three LFW faces turned in the image plane by -25, -15, 15 and
  25 degrees (dlib's extra filters are for these): 16 faces;
- 12 images without a face: the three patterns at two sizes, and six scikit-image photos (cat,
  coffee, rocket, logo, Hubble deep field, immunohistochemistry);
- 8 product shots, as a catalogue sends them: the coffee, the rocket, the cat and the astronaut's
  suit (no face), each enlarged to 700 and 1100 px and centred on white 1500x1500, JPEG q90;
- 36 group banners from `scripts/make-group-banners`: dlib's nine example group photos (faces
  boxed in their training.xml and testing.xml) with faces 40, 60, 90 and 140 px wide, in 1200x600,
  2400x800 and 3000x1000 banners beside the patterns; recall is also given per face size, and the
  faces missed are listed (faces the photo's crop cut count neither way).

Recall is read from the manifest `pushmedia process --crop smart` writes (`probe.faces`): a face
counts as found when a box overlaps it with IoU >= 0.3; every other box is a false face. Cost is
the CPU (user+sys) and wall of `pushmedia process --jobs 1` over a folder with `--crop attention`
and `--crop smart`, interleaved, one warm-up then medians of --runs; --stills adds a folder of
still images to time (e.g. Benchmarks/.work/inputs/c1-12mp-8, case 1's 12 MP JPEGs).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image
from skimage import data

ROOT = Path(__file__).resolve().parent.parent

# The astronaut's face in the 512x512 photo (as in scripts/make-face-banners); the cameraman's
# head, in profile.
ASTRONAUT_FACE = (180, 75, 100, 110)
CAMERAMAN_FACE = (200, 60, 100, 110)


def pattern(kind: str, w: int, h: int, seed: int) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    if kind == "stripes":
        palette = np.array([[255, 20, 120], [20, 230, 255], [255, 230, 0]], np.uint8)
        return palette[((x + y) // 40) % 3]
    if kind == "checkers":
        palette = np.array([[255, 0, 0], [0, 60, 255]], np.uint8)
        return palette[((x // 50) + (y // 50)) % 2]
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), 250, np.uint8)
    for _ in range(14):
        cx, cy, r = rng.integers(0, w), rng.integers(0, h), rng.integers(h // 10, h // 3)
        img[(x - cx) ** 2 + (y - cy) ** 2 < r * r] = rng.integers(0, 256, 3)
    return img


def three_faces(s: int, first: int) -> tuple[Image.Image, list[tuple]]:
    img = Image.new("RGB", (s, s), (128, 128, 128))
    boxes = []
    cell = s // 3
    f = int(cell * 0.8)
    for i, face in enumerate(data.lfw_subset()[first:first + 3]):
        g = Image.fromarray((face * 255).astype(np.uint8)).resize((f, f), Image.LANCZOS).convert("RGB")
        x, y = i * cell + (cell - f) // 2, (s - f) // 2
        img.paste(g, (x, y))
        boxes.append((x, y, f, f))
    return img, boxes


def person(who: str, s: int) -> tuple[Image.Image, list[tuple]]:
    k = s / 512
    if who == "astronaut":
        return (Image.fromarray(data.astronaut()).resize((s, s), Image.LANCZOS),
                [tuple(v * k for v in ASTRONAUT_FACE)])
    if who == "cameraman":
        return (Image.fromarray(data.camera()).convert("RGB").resize((s, s), Image.LANCZOS),
                [tuple(v * k for v in CAMERAMAN_FACE)])
    return three_faces(s, 0)


def unit(boxes, left, top, w, h) -> list[dict]:
    return [{"x": (left + x) / w, "y": (top + y) / h, "w": bw / w, "h": bh / h} for x, y, bw, bh in boxes]


def make_sets(root: Path) -> dict[str, Path]:
    """Writes the three folders with a truth.json each (file -> face unit rects)."""
    sets = {name: root / name for name in ("banners", "rolled", "no-face", "products")}
    for d in sets.values():
        d.mkdir(parents=True, exist_ok=True)
    truth: dict[str, dict] = {name: {} for name in sets}
    kinds = ["stripes", "checkers", "products"]
    n = 0
    for w, h in [(2400, 800), (1600, 900), (1200, 1200)]:
        for side in ["left", "right"]:
            for who in ["astronaut", "cameraman", "lfw"]:
                img = Image.fromarray(pattern(kinds[n % 3], w, h, n))
                s = min(h, w // 2)
                left, top = (0 if side == "left" else w - s), (h - s) // 2
                img.paste(Image.new("RGB", (s, h), (128, 128, 128)), (left, 0))
                photo, boxes = person(who, s)
                img.paste(photo, (left, top))
                name = f"{who}-{side}-{w}x{h}.jpg"
                img.save(sets["banners"] / name, quality=90)
                truth["banners"][name] = unit(boxes, left, top, w, h)
                n += 1
    for angle in (-25, -15, 15, 25):
        for who in ("astronaut", "lfw"):
            photo, boxes = (person("astronaut", 512) if who == "astronaut" else three_faces(512, 3))
            rolled = photo.rotate(angle, resample=Image.BICUBIC, fillcolor=(128, 128, 128))
            a = math.radians(angle)
            moved = []
            for x, y, bw, bh in boxes:
                cx, cy = x + bw / 2 - 256, y + bh / 2 - 256
                nx, ny = cx * math.cos(a) + cy * math.sin(a) + 256, -cx * math.sin(a) + cy * math.cos(a) + 256
                moved.append((nx - bw / 2, ny - bh / 2, bw, bh))
            name = f"rolled-{who}-{angle}.jpg"
            rolled.save(sets["rolled"] / name, quality=92)
            truth["rolled"][name] = unit(moved, 0, 0, 512, 512)
    for kind in kinds:
        for w, h in [(2400, 800), (1200, 1200)]:
            name = f"graphics-{kind}-{w}x{h}.jpg"
            Image.fromarray(pattern(kind, w, h, 99)).save(sets["no-face"] / name, quality=90)
            truth["no-face"][name] = []
    for photo in ["chelsea", "coffee", "rocket", "logo", "hubble_deep_field", "immunohistochemistry"]:
        name = f"photo-{photo}.jpg"
        Image.fromarray(getattr(data, photo)()).convert("RGB").save(sets["no-face"] / name, quality=90)
        truth["no-face"][name] = []
    products = {"coffee": data.coffee(), "rocket": data.rocket(), "cat": data.chelsea(), "suit": data.astronaut()[300:, 60:460]}
    for product, pixels in products.items():
        for side in (700, 1100):
            shot = Image.fromarray(pixels).convert("RGB")
            shot = shot.resize((side, round(side * shot.height / shot.width)) if shot.width >= shot.height
                               else (round(side * shot.width / shot.height), side), Image.LANCZOS)
            canvas = Image.new("RGB", (1500, 1500), (255, 255, 255))
            canvas.paste(shot, ((1500 - shot.width) // 2, (1500 - shot.height) // 2))
            name = f"product-{product}-{side}.jpg"
            canvas.save(sets["products"] / name, quality=90)
            truth["products"][name] = []
    sets["groups"] = root / "groups"
    made = subprocess.run(["/usr/bin/python3", str(ROOT / "scripts" / "make-group-banners"), str(sets["groups"])],
                          capture_output=True, text=True, check=True)
    truth["groups"] = {}
    for line in made.stdout.splitlines():
        banner = json.loads(line)
        truth["groups"][banner["file"]] = {"faces": banner["faces"], "cut": banner["cut"], "faceSize": banner["faceSize"]}
    for name, d in sets.items():
        (root / f"{name}.truth.json").write_text(json.dumps(truth[name]))
    return sets


def process(pushmedia: str, folder: Path, out: Path, crop: str) -> tuple[float, float]:
    """CPU (user+sys) and wall of one `process --jobs 1`, in ms."""
    shutil.rmtree(out, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run([pushmedia, "process", str(folder), "--out", str(out), "--jobs", "1", "--crop", crop],
                         capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"pushmedia process {folder} failed ({run.returncode}): {run.stderr[-800:]}")
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return cpu * 1000, wall * 1000


def iou(a, b) -> float:
    x1, y1 = max(a["x"], b["x"]), max(a["y"], b["y"])
    x2, y2 = min(a["x"] + a["w"], b["x"] + b["w"]), min(a["y"] + a["h"], b["y"] + b["h"])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    return inter / (a["w"] * a["h"] + b["w"] * b["h"] - inter)


def recall(manifest: Path, truth: dict, by_size: dict | None = None, missed: list | None = None) -> tuple[int, int, int, int, int]:
    """faces found, faces, images whose person is found, images with a person, false faces.
    A truth entry is a list of faces, or {"faces", "cut", "faceSize"} (group banners): boxes on a
    cut face count neither way; `by_size` gathers the same five per face size, `missed` the
    banners with faces missed."""
    found = total = hit_images = images = false = 0
    for item in json.loads(manifest.read_text())["items"]:
        name = os.path.basename(item["source"])
        entry = truth[name]
        faces, cut = (entry, []) if isinstance(entry, list) else (entry["faces"], entry["cut"])
        boxes = item.get("probe", {}).get("faces") or []
        hits = [any(iou(f, b) >= 0.3 for b in boxes) for f in faces]
        wrong = sum(1 for b in boxes if not any(iou(f, b) >= 0.3 for f in faces + cut))
        found, total = found + sum(hits), total + len(faces)
        if faces:
            images, hit_images = images + 1, hit_images + any(hits)
        false += wrong
        if by_size is not None and isinstance(entry, dict):
            row = by_size.setdefault(entry["faceSize"], [0, 0, 0, 0, 0])
            row[0] += sum(hits); row[1] += len(faces); row[2] += any(hits); row[3] += 1; row[4] += wrong
        if missed is not None and not all(hits):
            missed.append(f"{name}: {sum(hits)}/{len(faces)} faces")
    return found, total, hit_images, images, false


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushmedia", default=str(ROOT / ".build" / "release" / "pushmedia"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--stills", action="append", default=[], help="another folder to time")
    parser.add_argument("--keep", help="copy the generated folders here (for paired timing)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pushmedia-faces-"))
    try:
        sets = make_sets(work / "in")
        if args.keep:
            shutil.copytree(work / "in", args.keep, dirs_exist_ok=True)
        print("| set | faces found | images whose person is found | false faces |")
        print("|---|---:|---:|---:|")
        by_size: dict = {}
        missed: list = []
        for name, folder in sets.items():
            process(args.pushmedia, folder, work / "out", "smart")
            truth = json.loads((work / "in" / f"{name}.truth.json").read_text())
            found, total, hit, images, false = recall(work / "out" / "manifest.json", truth, by_size, missed)
            print(f"| {name} ({len(truth)} images) | {found}/{total} | {hit}/{images} | {false} |", flush=True)
        for size, (found, total, hit, images, false) in sorted(by_size.items()):
            print(f"| groups, faces {size} px ({images} banners) | {found}/{total} | {hit}/{images} | {false} |")
        print()
        print("Faces missed: " + ("; ".join(missed) if missed else "none"))
        print()
        print(f"CPU (wall) of `process --jobs 1`, medians of {args.runs} after a warm-up:")
        print()
        print("| folder | `attention` | `smart` | cost per image | cost |")
        print("|---|---:|---:|---:|---:|")
        empty = work / "empty"
        empty.mkdir()
        for folder in [empty, sets["banners"], sets["groups"], sets["no-face"], sets["products"], *map(Path, args.stills)]:
            count = len([f for f in folder.iterdir() if not f.name.startswith(".")])
            times: dict[str, list[tuple[float, float]]] = {"attention": [], "smart": []}
            for crop in times:
                process(args.pushmedia, folder, work / "out", crop)
            for _ in range(args.runs):
                for crop in times:
                    times[crop].append(process(args.pushmedia, folder, work / "out", crop))
            med = {c: (statistics.median(t[0] for t in v), statistics.median(t[1] for t in v)) for c, v in times.items()}
            extra = med["smart"][0] - med["attention"][0]
            per = f"{extra / count:+.0f} ms" if count else "–"
            print(f"| {folder.name} ({count}) | {med['attention'][0]:.0f} ms ({med['attention'][1]:.0f}) | "
                  f"{med['smart'][0]:.0f} ms ({med['smart'][1]:.0f}) | {per} | {extra / med['attention'][0] * 100:+.1f} % |",
                  flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
