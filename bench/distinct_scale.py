"""Distinct text at several sizes: Debian's manual pages cut to N pages, beside Pagefind.

bench/compare grows fastapi-docs with identical copies of its pages, so at its larger
scales a query's best matches are a few distinct chunks, copied: fine for bytes, not for
ranking (issue 28). This series grows a site of distinct text instead. Each size keeps
the home page, every page that a query of bench/relevance/manpages-{paraphrase,exact}.tsv
judges relevant, and a seeded sample of the other manual pages (the same sample grows
with the size: a smaller size's pages are all in the larger). Each size is built and
measured as bench/large_site.py measures the whole site, in one run:

- in Chromium, loopback and on a reader's network (20 Mbit/s, 40 ms a request): the
  first semantic result and the warm queries, with Pagefind over the same pages beside;
- with the Python reference searcher: hybrid page MRR@10 of the plugin as shipped and of
  the exact layout, and recall@10 of its vector search against the exact one.

Against issue 28's targets: the first semantic result at most 500 kB and 6 rounds, its
modeled time at most Pagefind's; the keyword results within 3 rounds; warm queries p50 at
most 2 rounds and 40 kB, modeled p95 at most 1.5x Pagefind's.

    python bench/distinct_scale.py [--pages 200,800,0] [--pause-ms MS] [--name NAME]

`0` is every page. Needs what bench/large_site.py needs. Writes
bench/results/NAME.{json,md} (`distinct_scale`; the committed run with a reader's pause
is `distinct_scale_pause`); each size's builds sit in bench/.cache/distinct-scale/pages-N.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "compare_lib"))

import large_site  # noqa: E402
import report  # noqa: E402  (bench/compare_lib/report.py: rows and the network model)
import run  # noqa: E402  (bench/compare_lib/run.py: percentiles)
from results_file import write_results  # noqa: E402

SEED = 0
FIRST_BYTES = 500_000
FIRST_ROUNDS = 6
KEYWORD_ROUNDS = 3
WARM_ROUNDS = 2
WARM_BYTES = 40_000
WARM_P95_RATIO = 1.5


def relevant_pages(sets: dict[str, list[tuple[str, list[str]]]]) -> set[str]:
    """The URLs any query judges relevant."""
    return {url for rows in sets.values() for _, urls in rows for url in urls}


def page_file(docs: Path, url: str) -> str:
    """The Markdown file under `docs` that a page URL (`man1/find/`) is built from."""
    stem = url.strip("/")
    for name in (f"{stem}.md", f"{stem}/index.md"):
        if (docs / name).is_file():
            return name
    raise SystemExit(f"no page in {docs} for the relevant URL {url!r}: regenerate the corpus "
                     "(bench/corpora/manpages.py) or mend the relevance file")


def chosen_pages(docs: Path, keep: set[str], pages: int) -> set[str]:
    """`pages` Markdown files: the home page, `keep`, and a seeded sample of the rest (a
    prefix of one shuffled order, so each size holds every smaller one); 0: all."""
    every = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.md"))
    wanted = {"index.md", *keep}
    if pages == 0 or pages >= len(every):
        return set(every)
    if pages < len(wanted):
        raise SystemExit(f"--pages {pages}: the queries need {len(wanted)} pages at least")
    rest = [p for p in every if p not in wanted]
    random.Random(SEED).shuffle(rest)
    return wanted | set(rest[:pages - len(wanted)])


def cut(source: Path, dest: Path, pages: int, keep_urls: set[str]) -> Path:
    """A copy of the corpus project at `dest` holding `pages` of its pages."""
    docs = source / "docs"
    keep = chosen_pages(docs, {page_file(docs, url) for url in keep_urls}, pages)
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest)
    for path in (dest / "docs").rglob("*.md"):
        if path.relative_to(dest / "docs").as_posix() not in keep:
            path.unlink()
    return dest


def own_cache(work: Path) -> Path:
    """A copy of the whole site's embedding cache: a build keeps only the vectors it used,
    so a smaller site must not prune the shared one."""
    shared = large_site.CORPUS / "plugin"
    if not (shared / "embeddings.npz").is_file():
        raise SystemExit(f"{shared} holds no embedding cache: run python bench/large_site.py "
                         "(or bench/fusion.py --sets manpages) once to embed the man pages")
    cache = work / "cache"
    if cache.exists():
        shutil.rmtree(cache)
    shutil.copytree(shared, cache)
    return cache


def targets(size: dict) -> dict[str, bool]:
    """Issue 28's targets met at one size."""
    ours, theirs = size["throttled"], size["pagefind"]["throttled"]
    per = ours["warm_fetches"]["per_query"]
    keyword = ours.get("cold_keyword") or {}
    return {
        "first: bytes": ours["cold_sent_bytes"] <= FIRST_BYTES,
        "first: rounds": report.first_query_rounds(ours) <= FIRST_ROUNDS,
        "first: modeled": report.first_query_modeled(ours) <= report.first_query_modeled(theirs),
        "keyword rounds": keyword.get("rounds", KEYWORD_ROUNDS + 1) <= KEYWORD_ROUNDS,
        "warm: rounds p50": run.percentile(per["rounds"], 50) <= WARM_ROUNDS,
        "warm: sent p50": run.percentile(per["sent"], 50) <= WARM_BYTES,
        "warm: modeled p95": run.percentile(report.warm_modeled(ours), 95)
        <= WARM_P95_RATIO * run.percentile(report.warm_modeled(theirs), 95),
    }


def size_label(size: dict) -> str:
    return f"{size['pages']:,} pages, {size['chunks']:,} chunks"


def compared(size: dict) -> bool:
    """Whether both systems' runs on a reader's network came through."""
    return "failed" not in size["throttled"] and "failed" not in size["pagefind"]["throttled"]


def render(results: dict) -> str:
    sizes = [size for size in results["sizes"] if compared(size)]
    return "\n".join([*heading(results), *network_table(sizes), *targets_table(sizes),
                      *warm_kinds(sizes), *ranking_table(results["sizes"]),
                      *failures(results["sizes"])]) + "\n"


def heading(results: dict) -> list[str]:
    """The title and how the run was made."""
    pause = results["sizes"][0].get("warm_pause_ms") if results["sizes"] else 0
    name = results.get("name", "distinct_scale")
    return [
        "# Distinct text at several sizes: Debian's manual pages, beside Pagefind", "",
        f"Reproduce: `python bench/distinct_scale.py --pages {results['asked']}"
        + (f" --pause-ms {pause}" if pause else "")
        + (f" --name {name}" if name != "distinct_scale" else "") + "`. Run "
        f"{results['generated']}, {results['machine']}; load average "
        f"{', '.join(f'{x:.2f}' for x in results['load_average'])} when it began. Each size: "
        f"the home page, the {len(relevant_pages(large_site.query_sets()))} pages the queries "
        "judge relevant and a seeded sample of the other manual pages (each size holds every "
        "smaller one), built with the plugin as shipped and measured as bench/large_site.py "
        "measures the whole site. On a reader's network (20 Mbit/s, 40 ms a request, CDP "
        "emulation, fresh profiles), rounds on the browser's clock; modeled: "
        f"{report.ROUND_TRIP_MS} ms a round plus the bytes at "
        f"{report.BYTES_PER_MS * 8 / 1000:.0f} Mbit/s. Warm queries "
        + (f"each after a reader's pause of {pause:,} ms, in which the client prefetches."
           if pause else "one after the other, no pause between them.")
        + (f" {results['note']}" if results.get("note") else ""), ""]


def network_table(sizes: list[dict]) -> list[str]:
    """Both systems' first and warm queries at each size."""
    lines = [report.NETWORK_COLUMNS.replace("| site |", "| size |", 1)]
    for size in sizes:
        lines.append(report.network_row(size_label(size), "Pagefind",
                                        size["pagefind"]["throttled"]))
        lines.append(report.network_row(size_label(size), "this plugin", size["throttled"]))
    return lines


def targets_table(sizes: list[dict]) -> list[str]:
    """Which of issue 28's targets each size meets."""
    lines = ["", "Issue 28's targets at each size (first semantic result at most "
             f"{FIRST_BYTES // 1000} kB and {FIRST_ROUNDS} rounds, modeled at most Pagefind's; "
             f"keyword results within {KEYWORD_ROUNDS} rounds; warm p50 at most {WARM_ROUNDS} "
             f"rounds and {WARM_BYTES // 1000} kB, warm modeled p95 at most "
             f"{WARM_P95_RATIO:g}x Pagefind's):", ""]
    names = list(targets(sizes[0])) if sizes else []
    lines += ["| size | layout | " + " | ".join(names) + " |", "|---" * (len(names) + 2) + "|"]
    for size in sizes:
        met = targets(size)
        layout = size["layout"] + (f", {size['partitions']:,} partitions"
                                   if size.get("partitions") else "")
        lines.append(f"| {size_label(size)} | {layout} | "
                     + " | ".join("yes" if met[n] else "**no**" for n in names) + " |")
    return lines


def warm_kinds(sizes: list[dict]) -> list[str]:
    """What the plugin's warm pass fetched, by kind of file."""
    return ["", "What the plugin's warm pass fetched on that network (the untimed query "
            "before the warm queries included), bytes sent by kind:", "",
            *(f"- {size_label(size)}: "
              f"{report.parts_line(report.warm_parts(size['throttled']), None)}"
              for size in sizes)]


def ranking_table(sizes: list[dict]) -> list[str]:
    """Hybrid MRR@10 of both layouts and the shipped layout's vector recall, every size."""
    lines = ["", "Ranking (Python reference searcher): hybrid page MRR@10 of the plugin as "
             "shipped and of the exact layout (paraphrase / exact / all queries), and vector "
             "recall@10 of the shipped layout against the exact one (queries below 1, min):",
             "", "| size | as shipped | exact layout | gap (all) | vector recall@10 |",
             "|---|---|---|---|---|"]
    for size in sizes:
        layouts = size["layouts"]
        cells = [" / ".join(f"{layouts[k][s]['mrr@10']:.3f}" for s in (*large_site.SETS, "all"))
                 for k in ("auto", "exact")]
        gap = layouts["auto"]["all"]["mrr@10"] - layouts["exact"]["all"]["mrr@10"]
        recall = layouts["vector"]
        lines.append(f"| {size_label(size)} | {cells[0]} | {cells[1]} | {gap:+.3f} | "
                     f"{recall['recall@10']:.3f} ({recall['below_1']}, {recall['min']:.1f}) |")
    return lines


def failures(sizes: list[dict]) -> list[str]:
    """One line for each size whose browser runs did not both come through."""
    lines = []
    for size in sizes:
        if not compared(size):
            why = size["throttled"].get("failed") or size["pagefind"]["throttled"].get("failed")
            lines.append(f"\n{size_label(size)}: not compared in the browser, a run failed "
                         f"({why}).")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default="200,800,0",
                        help="sizes in pages, comma-separated; 0: every page")
    parser.add_argument("--work", type=Path, default=HERE / ".cache" / "distinct-scale")
    parser.add_argument("--name", default="distinct_scale",
                        help="the results files' name (distinct_scale_pause: the run with a pause)")
    parser.add_argument("--note", default="",
                        help="a sentence the results carry: what the run changed, if anything")
    large_site.add_arguments(parser)
    args = parser.parse_args()
    try:
        sizes = [int(n) for n in args.pages.split(",")]
    except ValueError:
        parser.error(f"--pages {args.pages!r}: give page counts separated by commas, "
                     "like 200,800,0")
    if any(n < 0 for n in sizes):
        parser.error("--pages: a size is a page count, 0 for every page")
    source = large_site.ensure_source()
    keep = relevant_pages(large_site.query_sets())
    started = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    figures = []
    for pages in sizes:
        work = (args.work / f"pages-{pages}").resolve()
        work.mkdir(parents=True, exist_ok=True)
        print(f"distinct_scale: {pages} pages" if pages else "distinct_scale: every page",
              file=sys.stderr)
        project = cut(source, work / "source", pages, keep)
        figures.append(large_site.measure(project, work, own_cache(work),
                                          pause_ms=args.pause_ms, protocol=args.protocol))
        # written after every size, so a later size's failure keeps the earlier figures
        results = {**started, "machine": figures[0]["machine"],
                   "load_average": figures[0]["load_average"], "asked": args.pages,
                   "name": args.name, "note": args.note, "sizes": figures}
        write_results(args.out, args.name, results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
