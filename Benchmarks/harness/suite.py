"""The cases: PushMedia and its peers measured side by side."""

from __future__ import annotations

from harness.batch_cases import BatchCases
from harness.common import *  # noqa: F401,F403 (paths, run helpers, standard modules)
from harness.inputs import Inputs
from harness.movie_case import MovieCase
from harness.peers import *  # noqa: F401,F403


# ----------------------------------------------------------------------------------------------
# Cases


class Suite(MovieCase, BatchCases):
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.inputs = Inputs(args.quick)
        self.results: dict = {}
        self.out = WORK / "out"
        self.fast_runs, self.fast_warmup = (2, 0) if args.quick else (5, 1)
        self.slow_runs = 2 if args.quick else 3
        self.gif_runs = 2 if args.quick else 3
        self.designer_runs = 2 if args.quick else 3  # case 8: long runs, no warm-up

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
            return Contender(name, [sys.executable, str(script), str(src), str(out)], setup=lambda: fresh(out))

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
                Contender("pyvips-decode-once", [sys.executable, str(once), str(src), str(pv_out)], setup=lambda o=pv_out: fresh(o)),
                Contender("pillow-draft-fit", [sys.executable, str(pil), str(src), str(pl_out)], setup=lambda o=pl_out: fresh(o)),
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

    # Case 6 ------------------------------------------------------------------------------------
    def case6(self):
        # Built every time (a no-op when nothing changed): a binary left from older sources
        # would measure, and check, the old queue.
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

    # Case 8 ------------------------------------------------------------------------------------
    def case8(self):
        """Designer-size GIFs: `pushmedia process` (default profile, the whole item) against
        gifsicle making the expanded variant alone; CPU (user + sys), wall and peak RSS."""
        rows = []
        for gif, frames in self.inputs.designer_gifs():
            w, h = gif_screen(gif)
            eh = min(h, w // 2)
            ew = 2 * eh
            pm_out, gs_out = self.o(f"c8-{gif.stem}-pm"), self.o(f"c8-{gif.stem}-gifsicle")
            outcome: dict = {}

            def record_outcome(_r: Run, out=pm_out, outcome=outcome):
                items = manifest_items(out)
                if len(items) != 1:
                    raise RuntimeError(f"PushMedia: {len(items)} items in the manifest (expected 1)")
                outcome.clear()
                outcome.update(designer_outcome(items[0]))

            cs = [
                Contender("pushmedia", pushmedia_cmd(gif.parent, pm_out, 1), setup=lambda o=pm_out: fresh(o), check=record_outcome),
                Contender("gifsicle", ["gifsicle", "-O3", "--crop", f"{(w - ew) // 2},{(h - eh) // 2}+{ew}x{eh}",
                                       "--resize-fit", "1200x600", str(gif), "-o", str(gs_out / "expanded.gif")],
                          setup=lambda o=gs_out: fresh(o)),
            ]
            measure(cs, self.designer_runs, 0, f"case 8, {gif.name}")
            pm, gs = cs
            gs_file = gs_out / "expanded.gif"
            rows.append({
                "gif": gif.name, "bytes": gif.stat().st_size, "dims": [w, h], "frames": frames,
                "outcome": outcome or None,
                "pushmedia": {"cpu_s": pm.median_cpu, "wall_s": pm.median, "rss_mb": pm.max_rss_mb,
                              "cpu": [r.cpu_seconds for r in pm.runs], "times": pm.times, "failed": pm.failed},
                "gifsicle": {"cpu_s": gs.median_cpu, "wall_s": gs.median, "rss_mb": gs.max_rss_mb,
                             "cpu": [r.cpu_seconds for r in gs.runs], "times": gs.times, "failed": gs.failed,
                             "output_bytes": gs_file.stat().st_size if gs_file.exists() else None},
                "ratio_cpu": div(pm.median_cpu, gs.median_cpu),
            })
        self.results["case8"] = {"runs": self.designer_runs, "rows": rows}

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


def gif_screen(gif: Path) -> tuple[int, int]:
    """The logical screen of a GIF (width, height), from its header."""
    with gif.open("rb") as f:
        head = f.read(10)
    return head[6] | head[7] << 8, head[8] | head[9] << 8


def designer_outcome(item: dict) -> dict:
    """What PushMedia made of one GIF, from its manifest item: the status, and the expanded
    attachment (size, frames, bytes, budget) or the error code."""
    if item.get("status") != "ok":
        return {"status": item.get("status"), "error": (item.get("error") or {}).get("code")}
    expanded = next((a for a in item.get("attachments", []) if a.get("role") == "expanded"), {})
    return {"status": "ok", "width": expanded.get("width"), "height": expanded.get("height"),
            "frames": expanded.get("frames"), "bytes": expanded.get("bytes"), "budget": expanded.get("budget")}
