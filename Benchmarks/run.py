#!/usr/bin/env python3
"""PushMedia's benchmark suite: PushMedia and the tools a user would script instead, side by side
in one run on the same generated inputs, with medians and "PushMedia ÷ peer" ratios.

Run it through `Benchmarks/run` (installs the peers first). Standard library + pyvips + Pillow.

    Benchmarks/run [--quick] [--cases 1,2,…] [--wait-quiet SECONDS] [--no-write]

--quick uses tiny inputs and few runs to debug the harness; its report goes to
Benchmarks/.work/BENCHMARKS.quick.md, never to BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

from harness.common import ANALYSIS_MARK, PUSHMEDIA, ROOT, WORK, loadavg, log, machine, wait_quiet
from harness.report import report
from harness.suite import Suite


# ----------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="tiny inputs and few runs, to debug the harness")
    ap.add_argument("--cases", default="1,2,3,4,5,6,7,profile", help="comma-separated cases (default: all)")
    ap.add_argument("--wait-quiet", type=int, default=0, metavar="SECONDS",
                    help="wait up to SECONDS for a 1-minute load average below 1.0 before measuring (polls every 30 s)")
    ap.add_argument("--no-write", action="store_true", help="print the report, write no file")
    ap.add_argument("--command", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    WORK.mkdir(parents=True, exist_ok=True)
    if not PUSHMEDIA.exists():
        log("==> building PushMedia (swift build -c release --product pushmedia)")
        subprocess.run(["swift", "build", "-c", "release", "--product", "pushmedia"], cwd=ROOT, check=True)

    started = time.time()
    measured_commit = commit()
    suite = Suite(args)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    # Inputs first (generation is not measured), then the measurements.
    log("==> preparing inputs")
    if "1" in cases or "profile" in cases:
        suite.inputs.case1(3 if args.quick else 8)
    if "2" in cases:
        suite.inputs.large(24), suite.inputs.large(50)
    if "3" in cases:
        suite.inputs.mixed(40 if args.quick else 200)
    if "4" in cases or "profile" in cases:
        suite.inputs.gif(40 if args.quick else 200)
    if "5" in cases or "profile" in cases:
        secs = 6 if args.quick else 60
        suite.inputs.video("c5-kept-8mb", secs, 800_000 if args.quick else 8_000_000)
        suite.inputs.video("c5-transcode-20mb", secs, 14_000_000 if args.quick else 20_000_000)
    if "7" in cases:
        suite.inputs.small_batch(200 if args.quick else 1000)
    suite.inputs._texture = None

    quiet_note = ""
    if args.wait_quiet:
        quiet, la = wait_quiet(args.wait_quiet)
        quiet_note = ("The machine was quiet (load < 1.0) when measuring began." if quiet else
                      f"**The machine never got quiet within {args.wait_quiet} s (load {la:.2f}): measured anyway; "
                      f"another job shared the cores, so absolute times are inflated (ratios less so: contenders are interleaved).**")
    load_start = loadavg()
    measured_from = time.time()
    for case in cases:
        log(f"==> case {case}")
        getattr(suite, f"case{case}" if case != "profile" else "profile")()
        (WORK / ("results-quick.json" if args.quick else "results.json")).write_text(json.dumps(suite.results, indent=1))
    meta = {
        "date": dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "command": args.command or "Benchmarks/run " + " ".join(sys.argv[1:]),
        "duration_min": (time.time() - started) / 60,
        "measured_min": (time.time() - measured_from) / 60,
        "load_start": load_start, "load_end": loadavg(), "quiet_note": quiet_note,
        "machine": machine(),
        "commit": measured_commit,
    }
    text = report(suite.results, meta)
    if args.no_write:
        print(text)
        return 0
    target = WORK / "BENCHMARKS.quick.md" if args.quick else ROOT / "BENCHMARKS.md"
    if target.exists() and not args.quick:
        old = target.read_text()
        if ANALYSIS_MARK in old:
            text += "\n" + ANALYSIS_MARK + old.split(ANALYSIS_MARK, 1)[1]
    target.write_text(text)
    print(text)
    log(f"==> wrote {target} ({meta['duration_min']:.1f} min)")
    return 0


def commit() -> str:
    """The checked-out commit, marked when the tree differs from it (the figures are then of
    uncommitted code)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                           capture_output=True, text=True).stdout.strip()
    return (head or "unknown") + (" with uncommitted changes" if dirty else "")


if __name__ == "__main__":
    sys.exit(main())
