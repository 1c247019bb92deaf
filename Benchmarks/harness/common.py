"""Shared by the benchmark harness: paths, the measured-run helpers, contenders and the machine's description."""

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


ROOT = Path(__file__).resolve().parent.parent.parent
BENCH = ROOT / "Benchmarks"
WORK = BENCH / ".work"
PUSHMEDIA = Path(os.environ.get("BENCH_PUSHMEDIA") or ROOT / ".build" / "release" / "pushmedia")  # override to test the harness
QUEUE_PKG = BENCH / "QueueOverhead"
QUEUE_BIN = QUEUE_PKG / ".build" / "release" / "QueueOverhead"
SIGMA = 14  # noise of the texture: ~10 MB for a 12 MP JPEG at quality 90
CPUS = "0,1"  # every contender gets the same two cores
CONVERT = "/usr/bin/convert"  # Debian's ImageMagick (a stand-in may sit earlier on PATH)
ANALYSIS_MARK = "<!-- hand-written analysis below: kept by Benchmarks/run.py -->"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------
# Running and timing


def bench_env() -> dict:
    env = dict(os.environ)
    env.pop("VIPS_CONCURRENCY", None)  # libvips' default (one thread per core) for PushMedia and pyvips alike
    env.pop("PUSHMEDIA_CONCURRENCY", None)
    env.pop("PUSHMEDIA_PROFILE", None)
    env.pop("PUSHMEDIA_OUT", None)
    env.pop("PUSHMEDIA_BASE_URL", None)
    env["LC_ALL"] = "C"
    return env


ENV = bench_env()


class Run:
    def __init__(self, seconds: float, rss_kb: int | None, stdout: str, stderr: str, cpu_seconds: float | None = None):
        self.seconds = seconds
        self.rss_kb = rss_kb
        self.stdout = stdout
        self.stderr = stderr
        self.cpu_seconds = cpu_seconds  # user + system of the command (from /usr/bin/time -v)


def run(cmd: list[str] | str, *, ok_codes=(0,), measure_rss=True) -> Run:
    """Runs one command pinned to CPUS (through /usr/bin/time -v for the peak RSS) and times it."""
    shell = isinstance(cmd, str)
    argv = ["bash", "-c", cmd] if shell else list(cmd)
    rss_file = WORK / "time-v.txt"
    full = ["taskset", "-c", CPUS]
    if measure_rss:
        full += ["/usr/bin/time", "-v", "-o", str(rss_file)]
    full += argv
    rss_file.unlink(missing_ok=True)  # no figure left from the previous command
    start = time.perf_counter()
    p = subprocess.run(full, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if p.returncode not in ok_codes:
        raise RuntimeError(f"command failed ({p.returncode}): {cmd}\n{p.stderr[-3000:]}")
    rss = cpu = None
    if measure_rss and rss_file.exists():
        report = rss_file.read_text()
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
        rss = int(m.group(1)) if m else None
        user = re.search(r"User time \(seconds\): ([\d.]+)", report)
        system = re.search(r"System time \(seconds\): ([\d.]+)", report)
        cpu = float(user.group(1)) + float(system.group(1)) if user and system else None
    return Run(seconds, rss, p.stdout, p.stderr, cpu)


def div(a, b):
    return None if a is None or not b else a / b


def le(x, limit) -> bool | None:
    return None if x is None else x <= limit


def fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


class Contender:
    """One way of doing a case's work: a name, a command and an optional set-up (not timed)."""

    def __init__(self, name: str, cmd, setup=None, check=None):
        self.name = name
        self.cmd = cmd  # list/str or a callable returning one
        self.setup = setup
        self.check = check
        self.runs: list[Run] = []
        self.failed: str | None = None  # why it failed; a failed contender is not run again

    def once(self) -> Run:
        if self.setup:
            self.setup()
        cmd = self.cmd() if callable(self.cmd) else self.cmd
        r = run(cmd, ok_codes=(0, 1) if self.check else (0,))
        if self.check:
            self.check(r)
        return r

    @property
    def median(self) -> float | None:
        return statistics.median(r.seconds for r in self.runs) if self.runs and not self.failed else None

    @property
    def median_cpu(self) -> float | None:
        vals = [r.cpu_seconds for r in self.runs if r.cpu_seconds is not None]
        return statistics.median(vals) if vals and not self.failed else None

    @property
    def times(self) -> list[float]:
        return [r.seconds for r in self.runs]

    @property
    def max_rss_mb(self) -> float | None:
        vals = [r.rss_kb for r in self.runs if r.rss_kb]
        return max(vals) / 1024 if vals else None


def measure(contenders: list[Contender], runs: int, warmup: int, label: str) -> None:
    """Warm-up rounds, then `runs` rounds; each round runs every contender once (interleaved, so
    a change in background load hits all of them alike)."""
    def attempt(c: Contender) -> Run | None:
        if c.failed:
            return None
        try:
            return c.once()
        except Exception as e:  # recorded and reported; the other contenders go on
            c.failed = str(e).strip().splitlines()[-1][:300] if str(e).strip() else repr(e)
            log(f"  [{label}] {c.name} FAILED: {e}")
            return None

    for i in range(warmup):
        for c in contenders:
            log(f"  [{label}] warm-up {i + 1}/{warmup}: {c.name}")
            attempt(c)
    for i in range(runs):
        for c in contenders:
            r = attempt(c)
            if r:
                c.runs.append(r)
                log(f"  [{label}] run {i + 1}/{runs}: {c.name}: {r.seconds:.3f} s")


def pushmedia_cmd(inp: Path, out: Path, jobs: int) -> list[str]:
    return [str(PUSHMEDIA), "process", str(inp), "--out", str(out), "--jobs", str(jobs)]


def manifest_items(out: Path) -> list[dict]:
    return json.loads((out / "manifest.json").read_text())["items"]


def check_all_ok(out: Path, expected: int):
    def check(_r: Run):
        items = manifest_items(out)
        bad = [i for i in items if i.get("status") != "ok"]
        if len(items) != expected or bad:
            why = "; ".join(f"{i.get('source')}: {(i.get('error') or {}).get('code')}: {(i.get('error') or {}).get('message')}" for i in bad[:3])
            raise RuntimeError(f"PushMedia: {len(items)} items (expected {expected}), {len(bad)} not ok: {why}")

    return check



# ----------------------------------------------------------------------------------------------
# Machine description


def sh(cmd: str) -> str:
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
    return (p.stdout + p.stderr).strip()


def machine() -> dict:
    cpu = re.search(r"model name\s*:\s*(.*)", Path("/proc/cpuinfo").read_text())
    mem = re.search(r"MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text())
    osr = re.search(r'PRETTY_NAME="(.*)"', Path("/etc/os-release").read_text())
    import pyvips
    import PIL

    return {
        "cpu": cpu.group(1) if cpu else platform.processor(),
        "cores": os.cpu_count(),
        "ram_gib": round(int(mem.group(1)) / 1024 / 1024, 1) if mem else None,
        "os": f"{osr.group(1) if osr else platform.system()}, kernel {platform.release()}",
        "versions": {
            "pushmedia": sh(f"{PUSHMEDIA} version").splitlines()[0] if PUSHMEDIA.exists() else "?",
            "swift": sh("swift --version 2>&1 | head -n 1"),
            "libvips": sh("pkg-config --modversion vips"),
            "FFmpeg libs (libavformat / libavcodec)": sh("pkg-config --modversion libavformat") + " / " + sh("pkg-config --modversion libavcodec"),
            "libx264": sh("dpkg-query -W -f='${Version}' 'libx264-*' 2>/dev/null | head -c 40"),
            "ffmpeg CLI": sh("ffmpeg -version | head -n 1"),
            "vipsthumbnail": sh("vipsthumbnail --vips-version 2>&1 | head -n 1"),
            "ImageMagick": sh(f"{CONVERT} -version | head -n 1"),
            "gifsicle": sh("gifsicle --version | head -n 1"),
            "libjpeg-turbo (djpeg)": sh("dpkg-query -W -f='${Version}' libjpeg-turbo-progs"),
            "Python": platform.python_version(),
            "pyvips": f"{pyvips.__version__} (libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)})",
            "Pillow": PIL.__version__,
        },
    }


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def wait_quiet(max_seconds: int) -> tuple[bool, float]:
    deadline = time.time() + max_seconds
    while True:
        la = loadavg()
        if la < 1.0:
            return True, la
        if time.time() >= deadline:
            return False, la
        log(f"==> load average {la:.2f} ≥ 1.0; waiting 30 s (until quiet, at most {int(deadline - time.time())} s more)")
        time.sleep(30)
