"""A large site of distinct pages in the browser: Debian's manual pages, one command a page.

bench/compare grows fastapi-docs with identical copies of its pages (cheap to build, since
the copies reuse the embedding cache): at 16x and 64x a query's best vectors are one or
two distinct ones, copied. This bench measures the plugin on a site where every chunk is
its own: the man-pages set of bench/corpora (2,112 pages, about 25,000 chunks), built with
the plugin as shipped (`vector_layout: auto`, which partitions it) and with
`vector_layout: exact`, sharing the embedding cache bench/fusion.py fills
(bench/.cache/man-pages/plugin). Measured as bench/compare measures the plugin:

- in headless Chromium (bench/compare_lib/browser.mjs: HTTP/2 over TLS, GitHub Pages'
  compression, a fresh profile): bytes sent and ms for the first semantic result, then
  the queries of bench/relevance/manpages-*.tsv warm (each fetches what no query before
  it needed), then the same queries again; and what a request costs this Chromium;
  then all of it again on a reader's network (CDP emulation: 20 Mbit/s, 40 ms a
  request), where bytes and round trips cost what they cost outside a loopback (the
  first query there twice more, each in a fresh profile: its rounds are the median);
- Pagefind beside it, over the same pages built without search (its CLI, the content
  only), by its own browser API as bench/compare drives it, on both networks;
- with the Python reference searcher: hybrid page MRR@10 of both layouts on those
  queries, and recall@10 of the partitioned vector search against the exact one.

    python bench/large_site.py

Needs what bench/compare installs (run it once, or scripts/setup and `npm ci` in bench/),
and the man-pages corpus (made by bench/corpora/manpages.py when missing, as bench/fusion.py
makes it). Writes bench/results/large_site.{json,md}.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "compare_lib"))

import relevance  # noqa: E402  (bench/relevance.py)
import report  # noqa: E402  (bench/compare_lib/report.py: number formats)
import run  # noqa: E402  (bench/compare_lib/run.py: the browser and layout measures)
import sites  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.constants import SEARCH_MODES as MODES  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

CORPUS = HERE / ".cache" / "man-pages"
PREFIX = "/manpages/"
WARMUP = "copy files between folders"  # in no query file
THROTTLE = {"mbps": 20, "latencyMs": 40}  # a reader's network, as bench/browser_typing.py
SETS = ("paraphrase", "exact")
# The mkdocs theme's chrome on every page (navigation bar, sidebar, footer, modals,
# permalink anchors): Pagefind indexes the content only, as bench/compare has it do.
PAGEFIND_EXCLUDE = ".navbar, .bs-sidebar, footer, .modal, .headerlink"


def ensure_source() -> Path:
    source = CORPUS / "source"
    if not (source / "mkdocs.yml").is_file():
        print(f"large_site: generating {source} (bench/corpora/manpages.py)", file=sys.stderr)
        subprocess.run([sys.executable, str(HERE / "corpora" / "manpages.py"), "--out",
                        str(source)], check=True)
    return source


def build(source: Path, work: Path, layout: str,
          cache: Path = CORPUS / "plugin") -> tuple[Path, sites.Build]:
    """The corpus built with the plugin (`vector_layout: layout`), embeddings cached in
    `cache` (the man pages' shared cache unless told)."""
    plugin = (f"\n  - search\n  - semantic:\n      cache_dir: {cache}\n"
              f"      vector_layout: {layout}\n")
    return build_with(source, work / layout, "\n  - search\n", plugin)


def build_pagefind(source: Path, work: Path, binary: Path) -> tuple[Path, sites.Build]:
    """The corpus built without search, then indexed by Pagefind's CLI."""
    site, _ = build_with(source, work / "pagefind", "plugins:\n  - search\n", "plugins: []\n")
    done = sites.pagefind(site.parent, site.name, binary, PAGEFIND_EXCLUDE)
    if not done.ok:
        raise SystemExit(f"Pagefind's index of the site failed:\n{done.error}")
    return site, done


def build_with(source: Path, project: Path, old: str, new: str) -> tuple[Path, sites.Build]:
    """The corpus copied to `project`, `old` in its mkdocs.yml replaced by `new`, built."""
    if project.exists():
        shutil.rmtree(project)
    shutil.copytree(source, project)
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    if old not in text:
        raise SystemExit(f"{config} has no {old!r} to replace: regenerate the corpus")
    config.write_text(text.replace(old, new), encoding="utf-8")
    done = sites.mkdocs_build(project, "mkdocs.yml", "site", project.name)
    if not done.ok:
        raise SystemExit(f"building the {project.name} site failed:\n{done.error}")
    return project / "site", done


def render(f: dict) -> str:
    lay = f["layouts"]
    v = lay["vector"]
    probe = v.get("probe") or {}
    auto, exact = lay["auto"], lay["exact"]
    rows = "\n".join(
        f"| {name} | {auto[name]['mrr@10']:.3f} | {exact[name]['mrr@10']:.3f} | "
        f"{auto[name]['mrr@10'] - exact[name]['mrr@10']:+.3f} |" for name in (*SETS, "all"))
    return f"""# A large site of distinct pages: Debian's manual pages

Reproduce: `python bench/large_site.py`. Run {f['generated']}, {f['machine']}; load average
{', '.join(f'{x:.2f}' for x in f['load_average'])} when it began. Served over {f['protocol']}.

{f['pages']:,} pages, {f['chunks']:,} chunks, every one distinct (bench/compare's larger
scales are identical copies of fastapi-docs; here nothing repeats). As shipped the plugin
writes the **{f['layout']}** layout ({f.get('partitions', 0):,} partitions); the exact
layout's bundle is built beside it for the comparison.

{in_browser(f)}
{beside_pagefind(f)}
## Ranking: the partitioned layout against the exact one (Python reference searcher)

Hybrid page MRR@10 on bench/relevance/manpages-*.tsv:

| queries | as shipped | exact layout | gap |
|---|---|---|---|
{rows}

Vector recall@10 of the partitioned search against the exact one: **{v['recall@10']:.3f}**
({v['below_1']} of {v['queries']} queries below 1, min {v['min']:.1f}). Per query (median):
{probe.get('partitions_probed', {}).get('p50', 0):.0f} partitions probed
({probe.get('rows_probed', {}).get('p50', 0):,.0f} rows), their candidates in
{probe.get('row_files', {}).get('p50', 0):.0f} rows files.
"""


def in_browser(f: dict) -> str:
    """The plugin's own browser runs, loopback then throttled, each one line if it failed."""
    return f"""## In the browser (the plugin as shipped)

{on_loopback(f)}
{on_network(f)}"""


def on_loopback(f: dict) -> str:
    """The plugin's loopback run: first query, warm queries, the same queries again."""
    b, cost = f["browser"], f["fetch_cost"]
    if "cold_ms" not in b:
        return f"Not measured on loopback: the plugin's run failed ({b.get('failed')}).\n"
    wf = b["warm_fetches"]
    model = wf.get("model") or {}
    return f"""- First semantic result (fresh profile, the home page loaded first):
  **{report.mb(b['cold_sent_bytes'])} sent** ({b['cold_requests']} files,
  {b['cold_fetch_rounds']} rounds), {b['cold_ms']:.0f} ms.
- Warm, each of {b['warm_queries']} queries fetching what no query before it needed:
  p50 **{b['warm_p50_ms']:.0f} ms**, p95 **{b['warm_p95_ms']:.0f} ms**; files per query
  p50 {wf['files']['p50']:.0f}, mean {wf['files']['mean']:.1f}, max {wf['files']['max']:.0f};
  {report.mb(wf['sent_bytes']['mean'])} sent per query on average.
- The same queries again (every file already fetched): p50 {b.get('repeat_p50_ms', 0):.1f} ms,
  p95 {b.get('repeat_p95_ms', 0):.1f} ms ({b.get('repeat_files', 0)} files fetched).
- Fitted over the warm queries: {model.get('fixed_ms', 0):.1f} ms +
  {model.get('per_file_ms', 0):.2f} ms a file (rms error {model.get('residual_ms', 0):.1f} ms).
  A bare Web Worker in this run's Chromium needed {cost.get('perFile', 0):.1f} ms a file and
  {cost.get('sequentialMedian', 0):.1f} ms a round trip (bench/compare_lib/fetch_cost.mjs).
"""


def pause_text(f: dict) -> str:
    """How the warm queries came: one after the other, or after a reader's pause each."""
    pause = f.get("warm_pause_ms")
    return (f"each after a reader's pause of {pause:,} ms, in which the client prefetches"
            if pause else "one after the other")


def on_network(f: dict) -> str:
    """The plugin's throttled run: first and warm queries on a reader's network."""
    slow = f["throttled"]
    if "cold_ms" not in slow:
        return (f"Not measured on a reader's network: the plugin's throttled run failed "
                f"({slow.get('failed')}).\n")
    slow_warm = slow["warm_fetches"]["per_query"]
    rounds = report.rounds_text(slow, server=False)
    return f"""On a reader's network ({network_of(f)},
CDP emulation in a fresh profile): first semantic result {slow['cold_ms']:.0f} ms
({rounds} on the browser's clock, {slow['cold_sent_bytes'] / 1000:,.0f} kB
sent; modeled as issue 28 models it, {report.ROUND_TRIP_MS} ms a round plus the bytes at
{report.BYTES_PER_MS * 8 / 1000:.0f} Mbit/s:
{report.first_query_modeled(slow):,.0f} ms); warm ({pause_text(f)}) p50
{slow['warm_p50_ms']:.0f} ms, p95 {slow['warm_p95_ms']:.0f} ms, rounds p50 / max
{run.percentile(slow_warm['rounds'], 50):.0f} / {max(slow_warm['rounds'])}, sent p50
{run.percentile(slow_warm['sent'], 50) / 1000:,.1f} kB; the same
queries again p50 {slow.get('repeat_p50_ms', 0):.1f} ms, p95
{slow.get('repeat_p95_ms', 0):.1f} ms.
{throttled_rounds(slow)}"""


def network_of(f: dict) -> str:
    """The emulated reader's network of the throttled runs, as the report names it."""
    return f"{f['throttle']['mbps']} Mbit/s, {f['throttle']['latencyMs']} ms a request"


def throttled_rounds(slow: dict) -> str:
    """The throttled first query round by round, where the run recorded its files."""
    files = slow.get("cold_browser_files")
    if not files:
        return ""
    return ("\nIts first query round by round on the browser's clock (ms from the query; "
            "requests of each kind that began in the round):\n\n"
            + report.rounds_line("man pages", files) + "\n")


def beside_pagefind(f: dict) -> str:
    """Pagefind and the plugin, first and warm queries, on both networks."""
    pf = f.get("pagefind")
    if not pf:
        return ""
    failed = [name for name in ("browser", "throttled") if "cold_ms" not in pf[name]]
    if failed or "cold_ms" not in f["throttled"]:
        return (f"## Beside Pagefind\n\nNot compared: a browser run failed "
                f"({pf[failed[0]]['failed'] if failed else f['throttled'].get('failed')}).\n")
    ours, theirs = f["throttled"], pf["throttled"]
    ours_ms = report.first_query_modeled(ours)
    theirs_ms = report.first_query_modeled(theirs)
    keyword = ours.get("cold_keyword")
    keyword_line = (f"The plugin's keyword results of the first query came after "
                    f"{keyword['rounds']} rounds (of the files that had come by then), "
                    f"{keyword['sent_bytes'] / 1000:,.0f} kB "
                    f"(modeled {report.modeled_ms(keyword['rounds'], keyword['sent_bytes']):,.0f}"
                    f" ms).\n" if keyword else "")
    build = pf["build"]
    return f"""## Beside Pagefind

Pagefind {f.get('pagefind_version') or ''} indexed the same pages built without search in
{build['seconds']:.1f} s ({report.mb(pf['bytes'])} in `pagefind/`). On a reader's network
({network_of(f)}), rounds on the
browser's clock, modeled as above:

{report.NETWORK_COLUMNS}
{report.network_row("man pages", "Pagefind", theirs)}
{report.network_row("man pages", "this plugin", ours)}

The first semantic result's modeled time is {ours_ms:,.0f} ms against Pagefind's
{theirs_ms:,.0f} ms ({ours_ms / theirs_ms:.2f}x). On loopback Pagefind's first query sent
{report.mb(pf['browser']['cold_sent_bytes'])} ({pf['browser']['cold_requests']} files) and took
{pf['browser']['cold_ms']:.0f} ms; warm p50 / p95 {pf['browser']['warm_p50_ms']:.0f} /
{pf['browser']['warm_p95_ms']:.0f} ms. Pagefind found nothing for
{theirs.get('warm_zero_result_queries', 0)} of {theirs['warm_queries']} warm queries (the plugin for
{ours.get('warm_zero_result_queries', 0)}); such a query fetches little, so its warm figures
flatter it.
Without the search plugin the mkdocs theme's script stops at its missing search dialog on
every page (an error in the page, recorded in the run): no search file depends on it.

{keyword_line}"""


def measure(source: Path, work: Path, cache: Path, *, pause_ms: int, protocol: str) -> dict:
    """The site of `source` built both ways and by Pagefind under `work`, the plugin's
    embeddings cached in `cache`, measured: large_site's figures."""
    run.relevance, run.Searcher, run.MODES = relevance, Searcher, MODES
    load = list(os.getloadavg())
    work.mkdir(parents=True, exist_ok=True)
    pagefind_bin = HERE / "node_modules" / ".bin" / "pagefind"
    if not pagefind_bin.exists():
        raise SystemExit("bench/node_modules has no pagefind: run `npm ci` in bench/ "
                         "(bench/compare does)")
    auto_site, auto_build = build(source, work, "auto", cache)
    exact_site, _ = build(source, work, "exact", cache)
    pagefind_site, pagefind_build = build_pagefind(source, work, pagefind_bin)
    sets = query_sets()
    queries = [q for rows in sets.values() for q, _ in rows]
    seen = run.browse({"queries": queries, "firstQuery": queries[0], "warmup": WARMUP,
                       "coldRepeats": run.COLD_REPEATS, "pauseMs": pause_ms,
                       "rank": False, "timeoutMs": 240_000, "protocol": protocol,
                       "fetchCost": {"profiles": 5},
                       "runs": [{"name": "plugin", "kind": "semantic", "root": str(auto_site)},
                                {"name": "throttled", "kind": "semantic", "root": str(auto_site),
                                 "throttle": THROTTLE},
                                {"name": "pagefind", "kind": "pagefind",
                                 "root": str(pagefind_site)},
                                {"name": "pagefind-throttled", "kind": "pagefind",
                                 "root": str(pagefind_site), "throttle": THROTTLE}]},
                      work, limit_s=1200, prefix=PREFIX)
    parts = sites.semantic_parts(auto_site)
    return {
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.uname().machine}, {os.cpu_count()} cores",
        "load_average": load,
        "protocol": seen["protocol"].get("served"),
        "warm_pause_ms": pause_ms,
        "pages": parts["manifest_counts"]["pages"],
        "chunks": parts["manifest_counts"]["chunks"],
        "layout": parts["vectors"]["layout"],
        "partitions": parts["vectors"].get("partitions"),
        "build_seconds": round(auto_build.seconds, 1),
        "fetch_cost": seen.get("fetchCost", {}),
        "browser": run.browser_figures(seen["plugin"]),
        "throttle": THROTTLE,
        "throttled": run.browser_figures(seen["throttled"]),
        "pagefind_version": run.npm_version("pagefind"),
        "pagefind": {
            "build": sites.as_dict(pagefind_build),
            "bytes": sites.tree_bytes(pagefind_site / "pagefind"),
            "browser": run.browser_figures(seen["pagefind"]),
            "throttled": run.browser_figures(seen["pagefind-throttled"]),
        },
        "layouts": run.layout_quality(auto_site, exact_site, sets, 1),
    }


def query_sets() -> dict[str, list[tuple[str, list[str]]]]:
    """The man-pages relevance queries by subset: (query, relevant page URLs)."""
    return {name: relevance.read_queries(HERE / "relevance" / f"manpages-{name}.tsv")
            for name in SETS}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options large_site and the series over its sizes share."""
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--protocol", choices=("h2", "http/1.1"), default="h2")
    run.add_pause_argument(parser)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=HERE / ".cache" / "large-site")
    add_arguments(parser)
    args = parser.parse_args()
    figures = measure(ensure_source(), args.work.resolve(), CORPUS / "plugin",
                      pause_ms=args.pause_ms, protocol=args.protocol)
    write_results(args.out, "large_site", figures, render(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
