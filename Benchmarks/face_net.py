#!/usr/bin/python3
"""The second face detector (dlib's CNN, `limits.faceNetMilliseconds`): what it finds and costs.

    /usr/bin/python3 Benchmarks/face_net.py [--pushmedia PATH] [--runs N] [--budgets 0,800] [--sets group,crowd]

Makes the group banners (scripts/make-group-banners: dlib's example photos, faces 40-140 px) and
the crowd banners (scripts/make-crowd-banners: 6-16 faces of 60-110 px, four nearly equal faces,
no-face controls), then runs `pushmedia process --crop smart --jobs 1` over each set once per
budget (a profile with only `limits.faceNetMilliseconds` set; 0 turns the detector off), the
same binary, runs interleaved. Per set and budget it reports:
- recall: faces (IoU >= 0.3 with a box of `probe.faces`) found, of those whole in the banner;
- false faces: boxes overlapping no face (group banners: nor a face the photo's crop cut);
- largest kept: banners whose thumbnail's `sourceRect` holds the largest face whole (a face with
  the largest width; ties all count), of the banners with faces;
- CPU (user+sys of the process and its children) and wall, medians of --runs;
- whether every output file is byte-identical across budgets, for the no-face controls.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def iou(a, b):
    x0, y0 = max(a["x"], b["x"]), max(a["y"], b["y"])
    x1, y1 = min(a["x"] + a["w"], b["x"] + b["w"]), min(a["y"] + a["h"], b["y"] + b["h"])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inter = (x1 - x0) * (y1 - y0)
    return inter / (a["w"] * a["h"] + b["w"] * b["h"] - inter)


def holds(rect, face):
    e = 1e-6
    return (rect["x"] <= face["x"] + e and rect["y"] <= face["y"] + e and rect["x"] + rect["w"] >= face["x"] + face["w"] - e
            and rect["y"] + rect["h"] >= face["y"] + face["h"] - e)


def run(pushmedia, folder, budget, out):
    profile = out / "profile.json"
    out.mkdir(parents=True, exist_ok=True)
    profile.write_text(json.dumps({"crop": "smart", "limits": {"faceNetMilliseconds": budget}}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    subprocess.run([pushmedia, "process", "--out", str(out / "o"), "--jobs", "1", "--profile", str(profile), str(folder)],
                   check=True, capture_output=True, env=env)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    items = {i["source"]: i for i in json.loads((out / "o" / "manifest.json").read_text())["items"]}
    return cpu, wall, items


def score(banners, items):
    found = total = false = kept = with_faces = 0
    missed_largest = []
    for b in banners:
        item = items[b["file"]]
        boxes = item["probe"].get("faces") or []
        faces = b["faces"]
        allowed = faces + b.get("cut", [])
        total += len(faces)
        found += sum(1 for f in faces if any(iou(f, x) >= 0.3 for x in boxes))
        false += sum(1 for x in boxes if not any(iou(f, x) >= 0.3 for f in allowed))
        if not faces:
            continue
        with_faces += 1
        thumb = next(a for a in item["attachments"] if a["role"] == "thumbnail")["sourceRect"]
        widest = max(f["w"] for f in faces)
        if any(holds(thumb, f) for f in faces if f["w"] >= widest - 1e-9):
            kept += 1
        else:
            missed_largest.append(b["file"])
    return found, total, false, kept, with_faces, missed_largest


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pushmedia", default=str(ROOT / ".build/release/pushmedia"))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--budgets", default="0,800")
    parser.add_argument("--sets", default="group,crowd")
    args = parser.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    work = Path(tempfile.mkdtemp(prefix="face-net-"))
    sets = {}
    for name, script in (("group", "make-group-banners"), ("crowd", "make-crowd-banners")):
        if name not in args.sets.split(","):
            continue
        folder = work / name
        lines = subprocess.run([str(ROOT / "scripts" / script), str(folder)], check=True, capture_output=True, text=True)
        sets[name] = (folder, [json.loads(l) for l in lines.stdout.splitlines()])
    for name, (folder, banners) in sets.items():
        cpus = {b: [] for b in budgets}
        walls = {b: [] for b in budgets}
        items = {}
        for r in range(args.runs):
            for b in budgets:
                cpu, wall, items[b] = run(args.pushmedia, folder, b, work / f"{name}-{b}-{r}")
                cpus[b].append(cpu)
                walls[b].append(wall)
        print(f"## {name}: {len(banners)} banners")
        for b in budgets:
            found, total, false, kept, with_faces, missed = score(banners, items[b])
            print(f"budget {b:g} ms: recall {found}/{total}, false faces {false}, largest kept {kept}/{with_faces}, "
                  f"CPU {statistics.median(cpus[b]):.2f} s, wall {statistics.median(walls[b]):.2f} s")
            if missed:
                print("  largest not kept:", ", ".join(missed))
        for kind in sorted({b.get("kind", "group") for b in banners}):
            subset = [x for x in banners if x.get("kind", "group") == kind]
            cols = []
            for b in budgets:
                found, total, false, kept, with_faces, _ = score(subset, items[b])
                cols.append(f"{b:g} ms: recall {found}/{total} false {false} largest {kept}/{with_faces}")
            print(f"  {kind} ({len(subset)}): " + "; ".join(cols))
        controls = [x["file"] for x in banners if not x["faces"]]
        if controls and len(budgets) > 1:
            same = all(
                [a["sha256"] for a in items[budgets[0]][f]["attachments"]] == [a["sha256"] for a in items[b][f]["attachments"]]
                for f in controls for b in budgets[1:])
            print(f"  no-face controls byte-identical across budgets: {same}")


main()
