"""How the report writes figures: times, sizes, ratios, per-round spreads and verdicts."""

from __future__ import annotations

def fmt_s(s):
    return "–" if s is None else (f"{s * 1000:.0f} ms" if s < 10 else f"{s:.1f} s")


def fmt_mb(v):
    return "–" if v is None else f"{v:.0f} MB"


def fmt_n(v):
    return "–" if v is None else f"{v:.2f}"


def fmt_x(r):
    return "–" if r is None else f"{r:.2f}×"


def fmt_f(v, digits=2):
    return "–" if v is None else f"{v:.{digits}f}"


def designer_outcome_text(outcome: dict | None, failed: str | None) -> str:
    """Case 8's outcome column: PushMedia's expanded GIF, or the error code its manifest gives."""
    if failed:
        return f"failed: {failed}"
    if not outcome:
        return "–"
    if outcome["status"] != "ok":
        return f"{outcome['status']}: {outcome.get('error')}"
    budget = f" (budget {outcome['budget']} B)" if outcome.get("budget") else ""
    return (f"ok: expanded {outcome['width']}×{outcome['height']}, {outcome['frames']} frames, "
            f"{outcome['bytes']} B{budget}")


def fmt_cpu(r: dict) -> str:
    """A command's median CPU, or why it failed."""
    return f"failed: {r['failed']}" if r.get("failed") else ("–" if r.get("cpu_s") is None else f"{r['cpu_s']:.2f} s")


def fmt_spread(s: dict | None) -> str:
    """Per-round ratios as min / median / max."""
    return "–" if not s else f"{s['min']:.3f} / **{s['median']:.3f}** / {s['max']:.3f}"


def verdict(ok: bool | None) -> str:
    return "–" if ok is None else ("**met**" if ok else "**not met**")

