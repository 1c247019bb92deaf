/// The page's style sheet, inlined into the page (no external assets). iOS-like notification
/// cards on a wallpaper, review facts beside them.
enum PreviewStyle {
    static let css = HTML(
        trusted: #"""
            :root {
              --bg: #f2f2f7; --card: #ffffff; --ink: #1c1c1e; --ink2: #6e6e73; --line: #e5e5ea;
              --ok: #34c759; --warn: #ff9f0a; --over: #ff3b30; --accent: #0a84ff;
              font-family: -apple-system, BlinkMacSystemFont, "SF Pro Text", "Segoe UI", Roboto, "Helvetica Neue", "DejaVu Sans", Arial, sans-serif;
              color: var(--ink); background: var(--bg);
            }
            * { box-sizing: border-box; }
            body { margin: 0; padding: 24px 28px 40px; font-size: 14px; line-height: 1.4; }
            h1 { font-size: 24px; margin: 0 0 2px; letter-spacing: -0.01em; }
            h2 { font-size: 16px; margin: 0; }
            h3 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.06em; color: var(--ink2); margin: 0 0 8px; font-weight: 600; }
            h4 { font-size: 12px; color: var(--ink2); margin: 12px 0 4px; font-weight: 600; }
            a { color: var(--accent); text-decoration: none; }
            a:hover { text-decoration: underline; }
            code { font-family: ui-monospace, "SF Mono", Menlo, "DejaVu Sans Mono", monospace; font-size: 12px; }
            .num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
            .sub { color: var(--ink2); font-size: 12px; overflow-wrap: anywhere; }
            .note { color: var(--ink2); margin: 6px 0 0; }

            .summary, .failures, .item { background: var(--card); border-radius: 16px; box-shadow: 0 1px 3px rgba(0,0,0,.08); }
            .summary { padding: 20px 24px; margin-bottom: 20px; }
            .summary-head { display: flex; justify-content: space-between; align-items: flex-start; gap: 16px; flex-wrap: wrap; }
            .meta { margin: 0; color: var(--ink2); }
            .legend { margin: 4px 0 0; color: var(--ink2); font-size: 12px; }
            .dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%; margin: 0 4px 0 10px; vertical-align: -1px; }
            .dot.ok { background: var(--ok); } .dot.warn { background: var(--warn); } .dot.over { background: var(--over); }
            .stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(140px, 1fr)); gap: 12px; margin: 18px 0 0; }
            .stat { background: var(--bg); border-radius: 12px; padding: 10px 14px; min-width: 0; }
            .stat dt { font-size: 12px; color: var(--ink2); }
            .stat dd { margin: 2px 0 0; font-size: 22px; font-weight: 650; font-variant-numeric: tabular-nums; }
            .stat.good dd { color: #248a3d; }
            .stat.bad { background: #fff0ef; } .stat.bad dd { color: #d70015; }
            .stat.caution dd { color: #c93400; }
            .estimates { margin-top: 18px; }
            .estimates h2 { font-size: 14px; margin-bottom: 6px; }
            .hint { font-weight: 400; color: var(--ink2); font-size: 12px; }
            .estimates table { width: 100%; border-collapse: collapse; }
            .estimates th, .estimates td { padding: 3px 8px 3px 0; font-size: 13px; border-top: 1px solid var(--line); }
            .estimates th { text-align: left; font-weight: 500; width: 34%; overflow-wrap: anywhere; }
            .estimates td.num { width: 80px; }
            .estimates .barcell { width: 50%; }
            .estimate.over th a { color: #d70015; }

            .failures { padding: 18px 24px; margin-bottom: 20px; border: 1px solid #ffc9c5; background: #fff8f7; }
            .failures h2 { color: #d70015; margin-bottom: 8px; }
            .count { display: inline-block; min-width: 22px; padding: 0 7px; border-radius: 11px; background: var(--over); color: #fff; font-size: 12px; line-height: 20px; text-align: center; vertical-align: 1px; }
            .failures table { width: 100%; border-collapse: collapse; }
            .failures th, .failures td { text-align: left; padding: 6px 10px 6px 0; border-top: 1px solid #ffd9d6; vertical-align: top; font-size: 13px; }
            .failures thead th { border-top: 0; color: var(--ink2); font-weight: 600; font-size: 12px; }
            .failures .source { font-weight: 600; overflow-wrap: anywhere; }
            .failures .code { background: #ffe3e0; color: #b1000f; padding: 1px 6px; border-radius: 5px; }
            .failures .message { overflow-wrap: anywhere; }

            .items { display: flex; flex-direction: column; gap: 20px; }
            .item { padding: 18px 22px 20px; }
            .item-head { display: flex; align-items: baseline; gap: 10px; flex-wrap: wrap; margin-bottom: 14px; }
            .item-head .source { overflow-wrap: anywhere; }
            .encoded { font-size: 11px; font-weight: 400; color: var(--ink2); border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; margin-left: 6px; text-decoration: none; white-space: nowrap; }
            .badge { font-size: 11px; font-weight: 600; text-transform: uppercase; letter-spacing: .04em; color: var(--accent); background: #e8f2ff; padding: 2px 8px; border-radius: 10px; }
            .probe { color: var(--ink2); font-size: 12px; }
            .item-body { display: grid; grid-template-columns: repeat(4, minmax(230px, 1fr)); gap: 16px; align-items: start; }
            @media (max-width: 1000px) { .item-body { grid-template-columns: 1fr; } }

            .wallpaper { border-radius: 18px; padding: 14px 12px; background: linear-gradient(155deg, #4a5bd4 0%, #7b4fc9 45%, #d9608a 100%); display: flex; flex-direction: column; gap: 10px; }
            .variant { margin: 0; }
            .wallpaper.android { background: linear-gradient(155deg, #1b5e3f 0%, #2f7d5b 50%, #6a9f3a 100%); }
            .notification.android { border-radius: 16px; background: rgba(250,250,250,.95); }
            .android .collapsed { display: flex; align-items: center; gap: 10px; padding: 11px 12px; }
            .android .large-icon { flex: none; width: 48px; height: 48px; border-radius: 6px; overflow: hidden; background: #d1d1d6; }
            .android .large-icon img, .android .big-picture img { display: block; width: 100%; height: 100%; object-fit: cover; object-position: 50% 50%; }
            .android .big-picture { width: 100%; aspect-ratio: 2 / 1; overflow: hidden; background: #d1d1d6; }
            .android .text { padding: 10px 12px; }
            .wallpaper.web { background: linear-gradient(155deg, #3c4043 0%, #5f6368 55%, #80868b 100%); }
            .notification.web { border-radius: 8px; background: #fff; }
            .web .web-head { display: flex; align-items: flex-start; gap: 10px; padding: 10px 12px; }
            .web .web-icon { flex: none; width: 48px; height: 48px; overflow: hidden; background: #d1d1d6; }
            .web .web-icon img, .web .web-image img { display: block; width: 100%; height: 100%; object-fit: cover; object-position: 50% 50%; }
            .web .web-image { width: 100%; aspect-ratio: 2 / 1; overflow: hidden; background: #d1d1d6; }
            .web .site { color: #5f6368; font-size: 11px; margin-top: 2px; }
            .variant figcaption { color: rgba(255,255,255,.92); font-size: 11px; margin: 4px 6px 0; text-shadow: 0 1px 2px rgba(0,0,0,.25); }
            .notification { background: rgba(246,246,248,.93); border-radius: 20px; box-shadow: 0 2px 10px rgba(0,0,0,.18); color: #000; overflow: hidden; }
            .banner { display: flex; align-items: center; gap: 10px; padding: 11px 12px; }
            .app-icon { flex: none; width: 38px; height: 38px; border-radius: 9px; background: linear-gradient(145deg, #2d8cff, #0057d9); position: relative; }
            .app-icon::after { content: ""; position: absolute; inset: 10px; border-radius: 4px; border: 3px solid rgba(255,255,255,.92); border-right-color: transparent; }
            .app-icon.small { display: inline-block; width: 16px; height: 16px; border-radius: 4px; vertical-align: -3px; margin-right: 6px; }
            .app-icon.small::after { inset: 4px; border-width: 2px; border-radius: 2px; }
            .text { flex: 1; min-width: 0; }
            .app-row { display: flex; justify-content: space-between; font-size: 11px; color: #6e6e73; letter-spacing: .02em; }
            .app-row .app { flex: 1; }
            .title { font-weight: 600; font-size: 14px; line-height: 1.25; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
            .body { font-size: 14px; line-height: 1.25; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; overflow-wrap: anywhere; }
            .thumb { flex: none; position: relative; width: 44px; height: 44px; border-radius: 8px; overflow: hidden; background: #d1d1d6; }
            .thumb img { display: block; }
            .thumb img.fill { width: 100%; height: 100%; object-fit: cover; }
            .thumb.clip img { position: absolute; max-width: none; }
            .thumb.placeholder { display: flex; align-items: center; justify-content: center; color: #fff; font-size: 20px; background: linear-gradient(145deg, #8e8e93, #48484a); }
            .face-box { position: absolute; box-sizing: border-box; border: 2px solid #30d158; border-radius: 3px; }
            .compare { display: flex; gap: 14px; margin-top: 12px; }
            .compare figure { margin: 0; flex: 0 1 150px; min-width: 0; }
            .compare .thumb { width: 100%; height: auto; aspect-ratio: 1 / 1; border-radius: 12px; box-shadow: inset 0 0 0 1px rgba(0,0,0,.06); }
            .compare figcaption { font-size: 11px; color: var(--ink2); margin-top: 4px; overflow-wrap: anywhere; }
            .longlook .media { display: block; width: 100%; height: auto; background: #d1d1d6; }
            .longlook video.media, .audio { background: #1c1c1e; }
            .longlook video.media { aspect-ratio: 16 / 9; }
            .longlook .text { padding: 10px 14px 13px; }
            .longlook .title { white-space: normal; margin-top: 4px; }
            .longlook .body { -webkit-line-clamp: 6; }
            .audio { background: #1c1c1e; padding-bottom: 8px; }
            .audio audio { display: block; width: calc(100% - 16px); margin: 8px 8px 0; }

            .attachment { padding: 9px 0; border-top: 1px solid var(--line); }
            .attachment:first-child { border-top: 0; padding-top: 0; }
            .att-head { display: flex; justify-content: space-between; font-weight: 600; }
            .att-head .role { text-transform: capitalize; }
            .attachment a { font-size: 12px; overflow-wrap: anywhere; }
            .bar { display: flex; align-items: center; gap: 8px; margin-top: 5px; }
            .track { flex: 1; height: 6px; border-radius: 3px; background: #e5e5ea; overflow: hidden; min-width: 60px; }
            .fillbar { height: 100%; min-width: 3px; border-radius: 3px; background: var(--ok); }
            .bar.warn .fillbar { background: var(--warn); } .bar.over .fillbar { background: var(--over); }
            .bar .label { flex: none; font-size: 11px; color: var(--ink2); white-space: nowrap; }
            .bar.over .label { color: #d70015; font-weight: 600; }
            .estimates .bar { margin: 0; }
            .estimates .bar .label { width: 90px; }
            .warnings { margin: 12px 0 0; padding: 0; list-style: none; }
            .warning { background: #fff6e5; border-left: 3px solid var(--warn); border-radius: 6px; padding: 5px 10px; margin-top: 6px; font-size: 12px; color: #7a4a00; overflow-wrap: anywhere; }
            footer { color: var(--ink2); font-size: 12px; margin-top: 24px; max-width: 900px; }
            """#)
}

extension PreviewStyle {
    /// What the pages of a paged preview add to ``css``: the pager, the panels of the summary,
    /// the lists of page links. Only on those pages, so the single page stays as it is.
    static let book = HTML(
        trusted: #"""
            .pager { display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; margin: 0 0 16px; font-size: 13px; }
            .pager .where { color: var(--ink2); }
            .pager.bottom { margin: 20px 0 0; }
            .page-head h1 { font-size: 20px; }
            .panel { background: var(--card); border-radius: 16px; box-shadow: 0 1px 3px rgba(0,0,0,.08); padding: 18px 24px; }
            .panel h2 { margin-bottom: 8px; }
            .panel .estimates { margin-top: 0; }
            .panel .estimates th, .panel .estimates td { padding: 3px 8px 3px 0; font-weight: 400; }
            .panel table { width: 100%; border-collapse: collapse; }
            .panel th, .panel td { text-align: left; padding: 6px 10px 6px 0; border-top: 1px solid var(--line); vertical-align: top; font-size: 13px; }
            .panel thead th { border-top: 0; color: var(--ink2); font-weight: 600; font-size: 12px; }
            .panel .source { font-weight: 500; overflow-wrap: anywhere; width: 34%; }
            .panel .warnings { margin: 0; }
            .panel .warning:first-child { margin-top: 0; }
            .count.caution { background: var(--warn); }
            .outlier .attachment { border-top: 0; padding: 0; }
            .more { margin: 12px 0 0; color: var(--ink2); }
            .page-links { display: flex; flex-wrap: wrap; gap: 4px 10px; margin: 6px 0 0; font-variant-numeric: tabular-nums; }
            .sample { display: flex; flex-direction: column; gap: 12px; }
            .section-title { margin: 8px 0 0; }
            .sample-item .where { margin: 0 0 6px; font-size: 12px; }
            .item.oversize .note { margin: 0; }
            """#)
}
