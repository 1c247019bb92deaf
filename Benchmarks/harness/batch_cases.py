"""Cases 9-12: what whole runs cost beyond one image's work. Crash containment (item processes
against --in-process), the Android image (the same tree built without its encode),
catalogue-sized folders (Benchmarks/catalogue.py's runs) and a catalogue's payloads (`payload
--all` against one `--item` call per item)."""

from __future__ import annotations

from harness.common import *  # noqa: F401,F403 (paths, run helpers, standard modules)

# The one line of the pipeline that makes the Android image from the framed variants; case 10's
# second binary is the same tree without it (the cut before it is lazy: libvips computes its
# pixels only when they are encoded).
ANDROID_FILE = "Sources/PushMedia/Pipeline/Stages/Encode.swift"
ANDROID_ENCODE = "if let android = try encodeAndroid(framed, within: delivery, run) { images.append(android) }"


def pair_ratios(a: Contender, b: Contender, key) -> list[float]:
    """a ÷ b round by round (measure() runs them in turn, so round i of each ran side by side)."""
    return [key(x) / key(y) for x, y in zip(a.runs, b.runs) if key(x) and key(y)]


def spread(values: list[float]) -> dict | None:
    """min, median and max of per-round ratios."""
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values), "n": len(values)}


def cpu_of(r: Run) -> float | None:
    return r.cpu_seconds


def wall_of(r: Run) -> float:
    return r.seconds


def is_static(binary: Path) -> bool:
    """True when the binary carries the Swift runtime (built with --static-swift-stdlib)."""
    p = subprocess.run(["ldd", str(binary)], capture_output=True, text=True)
    return "libswiftCore" not in p.stdout


class BatchCases:
    """Mixed into Suite: needs self.inputs, self.o(), self.quick and self.results."""

    # Case 9 ------------------------------------------------------------------------------------
    def case9(self):
        """Crash containment: each item in an item process (the default) against --in-process,
        CPU (user + sys of the command and the children it waited for) and wall, paired."""
        runs = 2 if self.quick else 10
        count = 6 if self.quick else 24
        sets = [("one 1600×1000 photo (Fixtures/photos/landscape.jpg)", self.inputs.fixture_photo("landscape.jpg"), 1),
                (f"{count} noisy 6 MP JPEGs (3000×2000)", self.inputs.photos_6mp(count), count)]
        rows = []
        for label, src, n in sets:
            contained, threads = self.o(f"c9-{src.name}-contained"), self.o(f"c9-{src.name}-in-process")
            cs = [Contender("contained", pushmedia_cmd(src, contained, 2), setup=lambda o=contained: fresh(o),
                            check=check_all_ok(contained, n)),
                  Contender("--in-process", pushmedia_cmd(src, threads, 2) + ["--in-process"], setup=lambda o=threads: fresh(o),
                            check=check_all_ok(threads, n))]
            measure(cs, runs, 1, f"case 9, {label}")
            rows.append({
                "set": label, "items": n, "jobs": 2,
                "contained": {"cpu_s": cs[0].median_cpu, "wall_s": cs[0].median, "rss_mb": cs[0].max_rss_mb, "failed": cs[0].failed},
                "in_process": {"cpu_s": cs[1].median_cpu, "wall_s": cs[1].median, "rss_mb": cs[1].max_rss_mb, "failed": cs[1].failed},
                "cpu_ratio": spread(pair_ratios(cs[0], cs[1], cpu_of)),
                "wall_ratio": spread(pair_ratios(cs[0], cs[1], wall_of)),
            })
        self.results["case9"] = {"runs": runs, "rows": rows}

    # Case 10 -----------------------------------------------------------------------------------
    def case10(self):
        """The Android image's cost: the measured binary against the same tree built without the
        Android image's encode, on 20 still photos, CPU and wall paired; the iOS outputs of both
        must be byte for byte the same, or the two are not comparable."""
        runs = 2 if self.quick else 10
        without = self.without_android_binary()
        src = self.inputs.android_stills()
        n = sum(1 for p in src.iterdir() if not p.name.startswith("."))
        with_out, without_out = self.o("c10-with"), self.o("c10-without")
        cs = [Contender("with the Android image", pushmedia_cmd(src, with_out, 2), setup=lambda: fresh(with_out),
                        check=check_all_ok(with_out, n)),
              Contender("without it", [str(without)] + pushmedia_cmd(src, without_out, 2)[1:], setup=lambda: fresh(without_out),
                        check=check_all_ok(without_out, n))]
        measure(cs, runs, 1, "case 10")

        def outputs(out: Path) -> dict:
            return {(item["source"], a["role"]): a["sha256"] for item in manifest_items(out) for a in item.get("attachments", [])}

        made, plain = (outputs(with_out), outputs(without_out)) if not (cs[0].failed or cs[1].failed) else ({}, {})
        ios = {k: v for k, v in made.items() if k[1] != "android"}
        android = [k for k in made if k[1] == "android"]
        android_bytes = sum(a["bytes"] for item in manifest_items(with_out) for a in item.get("attachments", [])
                            if a["role"] == "android") if android else 0
        self.results["case10"] = {
            "runs": runs, "items": n, "jobs": 2, "inputs": "the ten photos of Fixtures/photos and ten generated JPEGs of 2000-4000 px",
            "without_binary": str(without.relative_to(ROOT)),
            "ios_identical": bool(ios) and ios == plain, "ios_outputs": len(ios),
            "ios_differing": sum(1 for k, v in ios.items() if plain.get(k) != v) + sum(1 for k in plain if k not in ios),
            "android_images": len(android), "android_bytes": android_bytes,
            "with": {"cpu_s": cs[0].median_cpu, "wall_s": cs[0].median, "rss_mb": cs[0].max_rss_mb, "failed": cs[0].failed},
            "without": {"cpu_s": cs[1].median_cpu, "wall_s": cs[1].median, "rss_mb": cs[1].max_rss_mb, "failed": cs[1].failed},
            "cpu_ratio": spread(pair_ratios(cs[0], cs[1], cpu_of)),
            "wall_ratio": spread(pair_ratios(cs[0], cs[1], wall_of)),
        }

    def without_android_binary(self) -> Path:
        """PushMedia's tracked files as they are in the working tree (the measured binary's
        sources), copied to Benchmarks/.work/without-android/src with the Android image's encode
        removed, and built as the measured binary was (release, static Swift runtime or not).
        Unchanged files keep their times, so a second run builds only what changed."""
        tree = WORK / "without-android"
        src = tree / "src"
        src.mkdir(parents=True, exist_ok=True)
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        names = [n.decode() for n in listed.split(b"\0") if n]
        # A file gone from the tree goes from the copy too (a stale source would still be built).
        keep = set(names) | {"Package.resolved"}
        for path in [p for p in src.rglob("*") if p.is_file()]:
            if str(path.relative_to(src)) not in keep:
                path.unlink()
        for name in names:
            origin, copy = ROOT / name, src / name
            if not origin.is_file():
                continue
            data = origin.read_bytes()
            if name == ANDROID_FILE:
                text = data.decode()
                if text.count(ANDROID_ENCODE) != 1:
                    raise RuntimeError(f"case 10: {ANDROID_FILE} no longer has the line `{ANDROID_ENCODE}` once: "
                                       f"update ANDROID_ENCODE in Benchmarks/harness/batch_cases.py")
                data = text.replace(ANDROID_ENCODE, "// (the Android image's encode, removed by Benchmarks case 10)").encode()
            if copy.exists() and copy.read_bytes() == data:
                continue
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)
            shutil.copymode(origin, copy)
        resolved = ROOT / "Package.resolved"
        if resolved.exists():
            shutil.copy(resolved, src / "Package.resolved")  # the same dependency versions
        cmd = ["swift", "build", "-c", "release", "--product", "pushmedia", "--scratch-path", str(tree / ".build")]
        if is_static(PUSHMEDIA):
            cmd.append("--static-swift-stdlib")
        log(f"==> building PushMedia without the Android image ({' '.join(cmd[1:])}; minutes the first time)")
        env = {k: v for k, v in os.environ.items() if k != "PUSHMEDIA_SANITIZE_C"}  # as a release build
        subprocess.run(cmd, cwd=src, check=True, stdout=subprocess.DEVNULL, env=env)
        return tree / ".build" / "release" / "pushmedia"

    # Case 11 -----------------------------------------------------------------------------------
    def case11(self):
        """Catalogue-sized folders (Benchmarks/catalogue.py): 10^3 and 10^4 distinct product shots,
        one `pushmedia process --jobs 2` each (embedded queue), then the same run resumed (the
        end-of-run assembly alone) and `pushmedia manifest` from the queue."""
        import catalogue

        rows = []
        for size, folder in self.catalogue_folders():
            row = catalogue.process_size(str(PUSHMEDIA), folder.parent, folder, size, 2)
            log(f"  [case 11] {size} items: {row['cpu_ms_per_item']:.1f} ms CPU an item, peak RSS {row['peak_rss_mb']:.0f} MB")
            rows.append(row)
        self.results["case11"] = {"rows": rows, "jobs": 2}

    def catalogue_folders(self) -> list[tuple[int, Path]]:
        """Case 11's folders by size (made once, kept in Benchmarks/.work/catalogue): hard links
        to a pool of distinct JPEGs, 1,000 shots and copies of them that differ in a comment."""
        import catalogue

        sizes = [100, 300] if self.quick else [1000, 10000]
        work = WORK / ("catalogue-quick" if self.quick else "catalogue")
        bases = catalogue.make_bases(work / "bases", min(1000, max(sizes)))
        pool = catalogue.make_pool(work, max(sizes), bases)
        return [(size, catalogue.folder_of(work, pool, size)) for size in sizes]

    # Case 12 -----------------------------------------------------------------------------------
    def case12(self):
        """A catalogue's payloads: `pushmedia payload --all` over a manifest of 10^4 items against
        50 `pushmedia payload --item` calls on the same manifest (sources spread over it), wall and
        CPU, interleaved; both print the same bodies (checked on the sampled items)."""
        runs = 2 if self.quick else 5
        items, calls = (1000, 10) if self.quick else (10_000, 50)
        manifest = self.payload_manifest(items)
        sources = [f"catalogue/{i:05d}.jpg" for i in range(items // (2 * calls), items, items // calls)][:calls]
        common = ["--manifest", str(manifest), "--format", "fcm", "--title", "Spring sale",
                  "--body", "Everything 30% off until Sunday", "--platforms", "ios,android,web"]
        pm = str(PUSHMEDIA)

        def quote(a: str) -> str:
            return "'" + a.replace("'", "'\\''") + "'"

        loop = " ; ".join(" ".join([quote(pm), "payload", "--item", quote(s)] + [quote(a) for a in common]) + " 2>/dev/null"
                          for s in sources)
        every = Contender("--all", " ".join([quote(pm), "payload", "--all"] + [quote(a) for a in common]) + " 2>/dev/null")
        single = Contender(f"{calls} × --item", loop)
        measure([every, single], runs, 1, "case 12")
        # The same bodies: each sampled item's --item output is its --all line's payload.
        lines = {json.loads(l)["source"]: l for l in every.runs[-1].stdout.splitlines()} if every.runs else {}
        bodies = single.runs[-1].stdout.splitlines() if single.runs else []
        same = len(lines) == items and len(bodies) == calls and all(
            lines[s] == '{"source":' + json.dumps(s) + ',"payload":' + b + "}" for s, b in zip(sources, bodies))
        self.results["case12"] = {
            "items": items, "calls": calls, "runs": runs, "same_bodies": same,
            "all": {"wall_s": every.median, "cpu_s": every.median_cpu, "rss_mb": every.max_rss_mb, "failed": every.failed},
            "item_calls": {"wall_s": single.median, "cpu_s": single.median_cpu, "failed": single.failed},
            "ratio": div(every.median, single.median),
        }
        log(f"  [case 12] --all {items}: {every.median} s; {calls} × --item: {single.median} s")

    def payload_manifest(self, items: int) -> Path:
        """A manifest of `items` items (made once): a real run over Fixtures/photos/landscape.jpg,
        its item repeated under distinct sources, in both forms (the NDJSON one written last, so
        `payload` reads it)."""
        work = WORK / f"c12-manifest-{items}"
        manifest = work / "out" / "manifest.json"
        if manifest.exists() and (work / "out" / "manifest.ndjson").exists():
            return manifest
        src = fresh(work / "in")
        shutil.copy(ROOT / "Fixtures" / "photos" / "landscape.jpg", src / "landscape.jpg")
        out = work / "out"
        run([str(PUSHMEDIA), "process", str(src), "--out", str(out), "--base-url", "https://cdn.example.com/catalogue/"],
            measure_rss=False)
        doc = json.loads(manifest.read_text())
        item = doc["items"][0]
        copies = [dict(item, source=f"catalogue/{i:05d}.jpg") for i in range(items)]
        doc["items"] = copies
        manifest.write_text(json.dumps(doc, sort_keys=True))
        with open(work / "out" / "manifest.ndjson", "w") as f:
            for c in copies:
                f.write(json.dumps(c, sort_keys=True, separators=(",", ":")) + "\n")
        return manifest
