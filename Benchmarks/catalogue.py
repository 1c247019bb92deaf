#!/usr/bin/env python3
"""Catalogue-sized batches (issue 42): does the cost per item stay flat as the item count grows?

    /usr/bin/python3 Benchmarks/catalogue.py --pushmedia .build-release/release/pushmedia \
        [--sizes 1000,10000,100000] [--postgres URL --pg-items 100000] [--work DIR] [--jobs 2]

Inputs: 1,000 distinct 640x480 product shots (Pillow, seeded: a gradient, a product-coloured
shape, a price tag), and for larger sizes the same shots again with a JPEG comment naming the copy,
so every file has its own bytes (no results-cache hit: every item is decoded, cropped and encoded)
but outputs repeat (content-addressed: stored once). Each size is its own folder of hard links.

For each size, `pushmedia process DIR --out OUT --jobs J` (embedded SQLite queue), measured with
/usr/bin/time: wall and CPU (user+sys) per item, peak RSS; then the sizes of manifest.json,
manifest.ndjson and the preview pages; then the end-of-run assembly alone: a second `process` over
the same folder (every item resumed: listing, enqueue, the resumed pass, manifest and preview) and
`pushmedia manifest` from the queue. With --postgres: the largest size enqueued on PostgreSQL and
drained by two `pushmedia worker --drain` processes at once (claim latency percentiles from their
`pushmedia_queue_claim_duration` histograms, scraped from --metrics-port), then `manifest --queue`.

Claim cost against the backlog is measured apart (Benchmarks/claim_plan.sh: the claim's plan and
time at 10^3-10^6 queued jobs on both databases).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def make_bases(folder: Path, count: int) -> list[Path]:
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(42)
    paths = []
    for i in range(count):
        path = folder / f"base-{i:04d}.jpg"
        paths.append(path)
        if path.exists():
            continue
        w, h = 640, 480
        top = tuple(rng.randrange(160, 256) for _ in range(3))
        bottom = tuple(rng.randrange(60, 200) for _ in range(3))
        image = Image.new("RGB", (w, h))
        draw = ImageDraw.Draw(image)
        for y in range(h):
            t = y / (h - 1)
            draw.line([(0, y), (w, y)], fill=tuple(int(a + (b - a) * t) for a, b in zip(top, bottom)))
        cx, cy = rng.randrange(160, 480), rng.randrange(140, 340)
        r = rng.randrange(60, 130)
        colour = tuple(rng.randrange(0, 256) for _ in range(3))
        if i % 2:
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=colour)
        else:
            draw.rectangle([cx - r, cy - r // 2, cx + r, cy + r], fill=colour)
        draw.rectangle([20, 20, 150, 70], fill=(255, 255, 255))
        draw.text((30, 35), f"EUR {rng.randrange(5, 500)}.99", fill=(200, 0, 0))
        image.save(path, quality=88)
    return paths


def with_comment(data: bytes, text: str) -> bytes:
    """The JPEG with a COM segment after SOI: other bytes, the same pixels."""
    payload = text.encode()
    segment = b"\xff\xfe" + (len(payload) + 2).to_bytes(2, "big") + payload
    return data[:2] + segment + data[2:]


def make_pool(work: Path, largest: int, bases: list[Path]) -> Path:
    pool = work / "pool"
    pool.mkdir(parents=True, exist_ok=True)
    existing = len(list(pool.iterdir()))
    if existing >= largest:
        return pool
    contents = [p.read_bytes() for p in bases]
    for i in range(existing, largest):
        base = contents[i % len(contents)]
        data = base if i < len(contents) else with_comment(base, f"copy {i}")
        (pool / f"product-{i:07d}.jpg").write_bytes(data)
        if i % 20000 == 0:
            log(f"  inputs: {i}/{largest}")
    return pool


def make_tiny_pool(work: Path, largest: int) -> Path:
    """`largest` distinct 8x8 JPEGs (one colour each): the per-item cost of the machinery (listing,
    queue, fork, manifest, preview) with almost no image work."""
    from PIL import Image

    pool = work / "pool-tiny"
    pool.mkdir(parents=True, exist_ok=True)
    existing = len(list(pool.iterdir()))
    for i in range(existing, largest):
        colour = (i % 256, (i // 256) % 256, (i // 65536) * 40 % 256)
        Image.new("RGB", (8, 8), colour).save(pool / f"product-{i:07d}.jpg", quality=95)
        if i % 20000 == 0:
            log(f"  tiny inputs: {i}/{largest}")
    return pool


def folder_of(work: Path, pool: Path, size: int) -> Path:
    folder = work / (f"in-{size}" if pool.name == "pool" else f"in-{pool.name}-{size}")
    if folder.exists() and len(list(folder.iterdir())) == size:
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for i in range(size):
        name = f"product-{i:07d}.jpg"
        os.link(pool / name, folder / name)
    return folder


def timed(cmd: list[str], env: dict | None = None) -> dict:
    """Runs a command under /usr/bin/time -v: wall, user+sys CPU, peak RSS."""
    report = Path("/tmp/catalogue-time.txt")
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v", "-o", str(report)] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, env=env)
    wall = time.perf_counter() - start
    text = report.read_text()
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", text).group(1))
    system = float(re.search(r"System time \(seconds\): ([\d.]+)", text).group(1))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{cmd[:3]} failed ({p.returncode}): {p.stderr[-2000:]}")
    return {"wall_s": wall, "cpu_s": user + system, "rss_mb": rss / 1024, "rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr}


def preview_pages(out: Path) -> tuple[int, int]:
    pages = [out / "preview.html"] + sorted((out / "preview").glob("*.html")) if (out / "preview").exists() else [out / "preview.html"]
    return len(pages), max(p.stat().st_size for p in pages)


def process_size(pushmedia: str, work: Path, folder: Path, size: int, jobs: int) -> dict:
    out = work / f"out-{folder.name}"
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, LC_ALL="C")
    log(f"==> process {size} items ({folder.name})")
    first = timed([pushmedia, "process", str(folder), "--out", str(out), "--jobs", str(jobs)], env)
    summary = re.search(r"(\d+) items: (\d+) ok, (\d+) failed", first["stdout"])
    assert summary and int(summary.group(1)) == size and int(summary.group(2)) == size, first["stdout"][-500:]
    pages, largest = preview_pages(out)
    log(f"==> resumed run over {size} items (assembly only)")
    again = timed([pushmedia, "process", str(folder), "--out", str(out), "--jobs", str(jobs)], env)
    log(f"==> manifest from the queue, {size} items")
    manifest = timed([pushmedia, "manifest", "--queue", f"sqlite://{out}/.pushmedia/queue.sqlite", "--campaign",
                      f"process:{folder.resolve()}", "--out", str(work / f"manifest-{size}.json")], env)
    return {
        "items": size,
        "inputs": folder.name,
        "load_average": os.getloadavg()[0],
        "wall_ms_per_item": first["wall_s"] * 1000 / size,
        "cpu_ms_per_item": first["cpu_s"] * 1000 / size,
        "peak_rss_mb": first["rss_mb"],
        "manifest_json_mb": (out / "manifest.json").stat().st_size / 1e6,
        "manifest_ndjson_mb": (out / "manifest.ndjson").stat().st_size / 1e6,
        "preview_pages": pages,
        "largest_page_mb": largest / 1e6,
        "resumed_run_s": again["wall_s"],
        "resumed_run_rss_mb": again["rss_mb"],
        "manifest_command_s": manifest["wall_s"],
        "manifest_command_rss_mb": manifest["rss_mb"],
        "output_files": sum(1 for _ in out.rglob("*-thumb.*")) + sum(1 for _ in out.rglob("*-expanded.*")),
    }


def claim_histogram(text: str) -> dict[float, float]:
    """Cumulative bucket counts of pushmedia_queue_claim_duration from a /metrics page."""
    buckets = {}
    for m in re.finditer(r'^pushmedia_queue_claim_duration_bucket\{le="([^"]+)"\} (\S+)$', text, re.M):
        buckets[float("inf") if m.group(1) == "+Inf" else float(m.group(1))] = float(m.group(2))
    return buckets


def quantile(buckets: dict[float, float], q: float) -> float:
    """histogram_quantile as Prometheus computes it: linear within the bucket that holds q."""
    bounds = sorted(buckets)
    total = buckets[bounds[-1]]
    rank, below, lower = q * total, 0.0, 0.0
    for bound in bounds:
        if buckets[bound] >= rank:
            if bound == float("inf"):
                return lower
            inside = buckets[bound] - below
            return lower + (bound - lower) * ((rank - below) / inside if inside else 0)
        below, lower = buckets[bound], bound
    return lower


def postgres_run(pushmedia: str, work: Path, folder: Path, size: int, url: str) -> dict:
    out = work / f"out-pg-{folder.name}"
    shutil.rmtree(out, ignore_errors=True)
    campaign = f"bench-{int(time.time())}"
    env = dict(os.environ, LC_ALL="C")
    log(f"==> PostgreSQL: enqueue {size}")
    enqueue = timed([pushmedia, "enqueue", "--queue", url, "--campaign", campaign, "--root", str(folder), str(folder)], env)
    log(f"==> PostgreSQL: two workers drain {size}")
    start = time.perf_counter()
    ports = [29400 + n for n in range(2)]
    workers = [subprocess.Popen(["/usr/bin/time", "-v", "-o", f"/tmp/catalogue-worker-{n}.txt", pushmedia, "worker", "--queue", url,
                                 "--campaign", campaign, "--drain", "--out", str(out), "--root", str(folder), "--concurrency", "1",
                                 "--metrics-port", str(ports[n])],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env) for n in range(2)]
    # Each worker's claim histogram, scraped every 2 s until it exits (the last scrape misses at
    # most its final claims).
    scraped: list[dict[float, float]] = [{}, {}]
    while any(w.poll() is None for w in workers):
        for n, w in enumerate(workers):
            if w.poll() is None:
                try:
                    text = subprocess.run(["curl", "-sf", f"http://127.0.0.1:{ports[n]}/metrics"], capture_output=True, text=True,
                                          timeout=5).stdout
                    if claim_histogram(text):
                        scraped[n] = claim_histogram(text)
                except subprocess.TimeoutExpired:
                    pass
        time.sleep(2)
    codes = [w.wait() for w in workers]
    wall = time.perf_counter() - start
    assert codes == [0, 0], codes
    rss = [int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", Path(f"/tmp/catalogue-worker-{n}.txt").read_text()).group(1)) / 1024
           for n in range(2)]
    claims = {bound: sum(h.get(bound, 0) for h in scraped) for bound in set().union(*scraped)}
    log(f"==> PostgreSQL: manifest of {size}")
    manifest = timed([pushmedia, "manifest", "--queue", url, "--campaign", campaign, "--out", str(work / f"manifest-pg-{size}.json")], env)
    return {"items": size, "enqueue_s": enqueue["wall_s"], "enqueue_rss_mb": enqueue["rss_mb"], "drain_wall_ms_per_item": wall * 1000 / size,
            "worker_peak_rss_mb": max(rss), "claims": claims.get(float("inf"), 0),
            "claim_ms": {f"p{int(q * 100)}": round(quantile(claims, q) * 1000, 3) for q in (0.5, 0.9, 0.99)} if claims else None,
            "manifest_command_s": manifest["wall_s"], "manifest_command_rss_mb": manifest["rss_mb"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pushmedia", default=".build-release/release/pushmedia")
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--work", default="Benchmarks/.work/catalogue")
    parser.add_argument("--postgres")
    parser.add_argument("--pg-items", type=int, default=100000)
    parser.add_argument("--make-only", action="store_true", help="only write the inputs")
    parser.add_argument("--tiny", action="store_true", help="8x8 distinct JPEGs instead of 640x480 shots")
    args = parser.parse_args()
    work = Path(args.work).resolve()
    sizes = [int(s) for s in args.sizes.split(",") if s]  # --sizes "": PostgreSQL only
    largest = max(sizes + ([args.pg_items] if args.postgres else []))
    if args.tiny:
        pool = make_tiny_pool(work, largest)
    else:
        bases = make_bases(work / "bases", 1000)
        pool = make_pool(work, largest, bases)
    for size in sizes + ([args.pg_items] if args.postgres else []):
        folder_of(work, pool, size)
    if args.make_only:
        return
    results = []
    for size in sizes:
        row = process_size(args.pushmedia, work, folder_of(work, pool, size), size, args.jobs)
        results.append(row)
        print(json.dumps(row), flush=True)
    if args.postgres:
        row = postgres_run(args.pushmedia, work, folder_of(work, pool, args.pg_items), args.pg_items, args.postgres)
        print(json.dumps({"postgres": row}), flush=True)


if __name__ == "__main__":
    main()
