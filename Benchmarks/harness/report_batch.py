"""The report's sections of cases 9-11 (whole runs: containment, the Android image, catalogue
folders; harness/batch_cases.py measures them)."""

from __future__ import annotations

from harness.common import le
from harness.formats import fmt_cpu, fmt_mb, fmt_s, fmt_spread


def batch_sections(results: dict, meta: dict, a, targets: list) -> None:
    """Appends (through `a`) the sections of cases 9-11 found in `results`, and their targets."""
    c9 = results.get("case9")
    if c9:
        a(f"## 9. Crash containment: item processes against `--in-process` ({meta['date'][:10]}, {meta['commit']})")
        a("")
        a("`pushmedia process <set> --jobs 2` as it runs by default (every item in an item process started by the fork "
          "server) and with `--in-process` (items on threads of the command, no containment). CPU is user + system of the "
          "command and of the children it waited for (`/usr/bin/time -v`); the two commands run in turn, each with a fresh "
          f"`--out`, {c9['runs']} rounds after 1 warm-up; the ratios are taken round by round (min / **median** / max).")
        a("")
        a("| set | CPU, contained | CPU, `--in-process` | CPU ratio | wall, contained | wall, `--in-process` | wall ratio | peak RSS, contained / in-process |")
        a("|---|---:|---:|---|---:|---:|---|---:|")
        for r in c9["rows"]:
            c, t = r["contained"], r["in_process"]
            a(f"| {r['set']} | {fmt_cpu(c)} | {fmt_cpu(t)} | {fmt_spread(r['cpu_ratio'])} | {fmt_s(c['wall_s'])} | {fmt_s(t['wall_s'])} | "
              f"{fmt_spread(r['wall_ratio'])} | {fmt_mb(c['rss_mb'])} / {fmt_mb(t['rss_mb'])} |")
        a("")
        batch = c9["rows"][-1]
        ratio = (batch["cpu_ratio"] or {}).get("median")
        targets.append((f"9: containment ≤ 3 % more CPU ({batch['set']})", "–" if ratio is None else f"{(ratio - 1) * 100:+.1f} %",
                        le(ratio, 1.03)))

    c10 = results.get("case10")
    if c10:
        a(f"## 10. The Android image's cost ({meta['date'][:10]}, {meta['commit']})")
        a("")
        a(f"{c10['items']} stills ({c10['inputs']}), `pushmedia process --jobs 2` with the measured binary and with the same "
          f"tree built without the Android image's encode (`{c10['without_binary']}`; the cut before the encode is lazy, so "
          f"nothing of the Android image is computed). CPU is user + system of the command and its item processes; the two "
          f"run in turn, each with a fresh `--out`, {c10['runs']} rounds after 1 warm-up; the ratios are round by round "
          f"(min / **median** / max).")
        a("")
        a("| binary | CPU | wall | peak RSS |")
        a("|---|---:|---:|---:|")
        for key, name in (("with", "with the Android image"), ("without", "without it")):
            r = c10[key]
            a(f"| {name} | {fmt_cpu(r)} | {fmt_s(r['wall_s']) if not r['failed'] else 'failed'} | {fmt_mb(r['rss_mb'])} |")
        a("")
        same = ("the same, byte for byte, in both runs" if c10["ios_identical"] else
                f"**not the same in both runs ({c10['ios_differing']} differ): the two are not comparable**")
        a(f"With ÷ without: CPU {fmt_spread(c10['cpu_ratio'])}, wall {fmt_spread(c10['wall_ratio'])}. "
          f"{c10['android_images']} Android images, {c10['android_bytes'] / 1e6:.2f} MB in all; the {c10['ios_outputs']} iOS "
          f"outputs are {same}.")
        a("")
        ratio = (c10["cpu_ratio"] or {}).get("median")
        targets.append(("10: the Android image adds ≤ 10 % CPU (stills)", "–" if ratio is None else f"{(ratio - 1) * 100:+.1f} %",
                        le(ratio, 1.10) if c10["ios_identical"] else None))

    c11 = results.get("case11")
    if c11:
        a(f"## 11. Catalogue-sized folders ({meta['date'][:10]}, {meta['commit']})")
        a("")
        a(f"`Benchmarks/catalogue.py`'s runs: distinct 640×480 product shots (1,000 made with Pillow, then copies that differ "
          f"in a JPEG comment, so no result is reused but outputs repeat and are stored once), one "
          f"`pushmedia process --jobs {c11['jobs']}` over each folder (embedded SQLite queue, item processes), one run each; "
          f"then the same command again (every item resumed: the listing, the queue, the manifest and the preview alone) and "
          f"`pushmedia manifest --queue` (the manifest from the queue).")
        a("")
        a("| items | wall an item | CPU an item | peak RSS | manifest.json | manifest.ndjson | preview pages (largest) | resumed run | manifest command |")
        a("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in c11["rows"]:
            a(f"| {r['items']:,} | {r['wall_ms_per_item']:.1f} ms | {r['cpu_ms_per_item']:.1f} ms | {r['peak_rss_mb']:.0f} MB | "
              f"{r['manifest_json_mb']:.1f} MB | {r['manifest_ndjson_mb']:.1f} MB | {r['preview_pages']} ({r['largest_page_mb']:.2f} MB) | "
              f"{fmt_s(r['resumed_run_s'])} | {fmt_s(r['manifest_command_s'])} |")
        a("")
        if len(c11["rows"]) > 1:
            first, last = c11["rows"][0], c11["rows"][-1]
            growth = last["cpu_ms_per_item"] / first["cpu_ms_per_item"]
            a(f"CPU an item at {last['items']:,} items ÷ at {first['items']:,}: **{growth:.2f}**.")
            a("")
            targets.append((f"11: CPU an item flat within 10 % ({first['items']:,} → {last['items']:,} items)", f"{growth:.2f}",
                            le(growth, 1.10)))

    c12 = results.get("case12")
    if c12:
        a(f"## 12. A catalogue's payloads ({meta['date'][:10]}, {meta['commit']})")
        a("")
        a(f"`pushmedia payload --all --format fcm --platforms ios,android,web` over a manifest of {c12['items']:,} items (a real "
          f"run's item under distinct sources, NDJSON form), against {c12['calls']} `pushmedia payload --item` calls on the same "
          f"manifest (sources spread over it; each reads the NDJSON lines up to its item), {c12['runs']} interleaved runs, medians. "
          f"The sampled bodies are {'the same in both' if c12['same_bodies'] else '**not the same in both**'}.")
        a("")
        a("| | wall | CPU | peak RSS |")
        a("|---|---:|---:|---:|")
        al, it = c12["all"], c12["item_calls"]
        a(f"| `--all`, {c12['items']:,} items | {fmt_s(al['wall_s'])} | {fmt_s(al['cpu_s'])} | "
          f"{fmt_mb(al['rss_mb'])} |")
        a(f"| {c12['calls']} × `--item` | {fmt_s(it['wall_s'])} | {fmt_s(it['cpu_s'])} | |")
        a("")
        ratio = c12["ratio"]
        targets.append((f"12: --all over {c12['items']:,} items within {c12['calls']} --item calls' time",
                        "–" if ratio is None else f"{ratio:.2f}×", le(ratio, 1.0) if c12["same_bodies"] else None))
