"""Every query of a large site as a reader's first query, in the browser.

bench/large_site.py measures one first query in Chromium; bench/typed_reading.py measures
every query's first-query bytes with the engine in Node. This bench runs each clean and
each slipped query of bench/relevance/manpages-*.tsv as the first query of its own fresh
Chromium profile (bench/compare_lib/browser.mjs: HTTP/2 over TLS, GitHub Pages'
compression, the home page loaded first) on a reader's network (CDP emulation: 20 Mbit/s,
40 ms a request), on the man-pages site built as bench/large_site.py builds it. Per
query: the bytes sent from the query to its results, plus the search files the page
loaded (the first semantic result as issue 28 counts it), its rounds on the browser's
clock, and the modeled time (rounds x 40 ms plus the bytes at 20 Mbit/s).

    python bench/first_queries.py [--kinds clean,slipped] [--before REVISION]

`--before`: the same queries, in the same run, on the site as a temporary checkout of
REVISION builds it (its plugin and browser client; it must write the same bundle
format), first. Needs what bench/large_site.py needs. Writes
bench/results/first_queries.{json,md}.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "compare_lib"))

import large_site  # noqa: E402  (bench/large_site.py: the site, built as it builds it)
import relevance  # noqa: E402
import report  # noqa: E402  (bench/compare_lib/report.py: the cost model)
import run  # noqa: E402  (bench/compare_lib/run.py: browser.mjs)
import sites  # noqa: E402  (bench/compare_lib/sites.py)
from query_rounds import client_at  # noqa: E402  (bench/query_rounds.py: a checkout)
from results_file import write_results  # noqa: E402
from typed_reading import checkout_named, client_built  # noqa: E402

KINDS = {"clean": "", "slipped": "-slipped"}
BUDGET = 500_000  # issue 28: the first semantic result within 500 kB sent


def queries_of(kind: str) -> list[str]:
    """The set's queries of `kind`, paraphrases then exact names."""
    return [q for name in large_site.SETS for q, _ in relevance.read_queries(
        HERE / "relevance" / f"manpages-{name}{KINDS[kind]}.tsv")]


def summary(first: list[dict]) -> dict:
    """Median, mean and max of the measured queries' figures, and how many failed or went
    past the budget (of those measured; a run that failed is one query `*`)."""
    done = [f for f in first if "failed" not in f]
    total = [f["sent"] + f["loadSearchSent"] for f in done]
    modeled = [report.modeled_ms(f["rounds"], f["sent"]) for f in done]
    rounds = [f["rounds"] for f in done]
    out = {"queries": len(first), "failed": len(first) - len(done)}
    if done:
        out |= {
            "sent": {"median": statistics.median(total), "mean": statistics.mean(total),
                     "max": max(total)},
            "query_sent_median": statistics.median(f["sent"] for f in done),
            "load_search_sent_median": statistics.median(f["loadSearchSent"] for f in done),
            "over_budget": sum(t > BUDGET for t in total),
            "rounds": {str(r): rounds.count(r) for r in sorted(set(rounds))},
            "rounds_median": statistics.median(rounds),
            "modeled_median": statistics.median(modeled),
            "modeled_mean": statistics.mean(modeled),
            "on_server_clock": sum(f["onServerClock"] for f in done),
        }
    return out


def render(f: dict) -> str:
    kb = lambda n: f"{n / 1000:.1f} kB"  # noqa: E731
    lines = ["# Every query as a reader's first, in the browser: Debian's manual pages", "",
             "Reproduce: `python bench/first_queries.py --kinds "
             f"{','.join(f['kinds'])}{' --before ' + f['before'] if f.get('before') else ''}`. Run "
             f"{f['generated']}, {f['machine']}; load average {f['load_average'][0]:.2f} when "
             f"it began. {f['pages']:,} pages, {f['chunks']:,} chunks, client "
             f"`{f['client']}`. Each query in a fresh Chromium profile on a reader's network "
             f"({f['throttle']['mbps']} Mbit/s, {f['throttle']['latencyMs']} ms a request), "
             "the home page loaded first. Sent: the files from the query to its results plus "
             "the search files the page loaded (its script and style); rounds on the "
             "browser's clock; modeled: rounds x 40 ms plus the query's bytes at 20 Mbit/s. "
             f"Budget (issue 28): {kb(BUDGET)} sent.", "",
             "| queries | measured | sent: median / mean / max | of which the page's search "
             "files (median) | over the budget | rounds: queries | modeled: median / mean |",
             "|---|---|---|---|---|---|---|"]
    for kind, s in f["runs"].items():
        if not s.get("sent"):
            lines.append(f"| {kind} | {s['queries'] - s['failed']} of {s['queries']} | - | - "
                         "| - | - | - |")
            continue
        rounds = ", ".join(f"{r}: {n}" for r, n in s["rounds"].items())
        lines.append(
            f"| {kind} | {s['queries'] - s['failed']} of {s['queries']} | "
            f"{kb(s['sent']['median'])} / {kb(s['sent']['mean'])} / {kb(s['sent']['max'])} | "
            f"{kb(s['load_search_sent_median'])} | {s['over_budget']} | {rounds} | "
            f"{s['modeled_median']:.0f} / {s['modeled_mean']:.0f} ms |")
    failed = [(kind, q["query"], q["failed"]) for kind, qs in f["queries"].items()
              for q in qs if "failed" in q]
    if failed:
        lines += ["", "Failed: " + "; ".join(f"{k} {q!r}: {why}" for k, q, why in failed)]
    return "\n".join(lines) + "\n"


@contextmanager
def python_path(folder: Path):
    """`folder` first on the PYTHONPATH of the processes started meanwhile (the builds)."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(folder), *filter(None, [before])])
    try:
        yield
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def build_before(revision: str, work: Path) -> Path:
    """The site as `revision` builds it: its browser client built in a temporary checkout,
    then its plugin importing that checkout's package."""
    with client_at(revision) as mjs:
        checkout = mjs.parent.parent
        client_built(checkout)
        with python_path(checkout):
            site, _ = large_site.build(large_site.ensure_source(), work / "before", "auto")
    return site


def client_of(site: Path) -> str:
    """The hash of the browser client a built site serves."""
    return next((site / "semantic" / "client").iterdir()).name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", default="clean,slipped")
    parser.add_argument("--work", type=Path, default=HERE / ".cache" / "large-site")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--protocol", choices=("h2", "http/1.1"), default="h2")
    parser.add_argument("--before", help="a revision whose build is measured beside")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    if unknown := [k for k in kinds if k not in KINDS]:
        parser.error(f"unknown kind(s) {', '.join(unknown)}: use {', '.join(KINDS)}")
    load = list(os.getloadavg())
    work = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    builds = {"before": build_before(args.before, work)} if args.before else {}
    builds["this checkout"] = large_site.build(large_site.ensure_source(), work, "auto")[0]
    names = {(build, kind): f"{kind}, {build}" if args.before else kind
             for build in builds for kind in kinds}
    seen = run.browse({"queries": [], "timeoutMs": 240_000, "protocol": args.protocol,
                       "runs": [{"name": names[build, kind], "kind": "semantic",
                                 "root": str(site), "throttle": large_site.THROTTLE,
                                 "firstQueries": queries_of(kind)}
                                for build, site in builds.items() for kind in kinds]},
                      work, limit_s=7200, prefix=large_site.PREFIX)
    site = builds["this checkout"]
    parts = sites.semantic_parts(site)
    client = client_of(site)
    if args.before:
        client = (f"{client_of(builds['before'])} ({args.before}) beside {client} "
                  f"({checkout_named()})")
    first = {name: seen[name].get("first") or [{"query": "*", "failed": seen[name].get("failed")}]
             for name in names.values()}
    figures = {
        "generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.uname().machine}, {os.cpu_count()} cores",
        "load_average": load, "protocol": seen["protocol"].get("served"),
        "pages": parts["manifest_counts"]["pages"], "chunks": parts["manifest_counts"]["chunks"],
        "client": client, "throttle": large_site.THROTTLE, "kinds": kinds,
        "before": args.before, "checkout": checkout_named(),
        "runs": {name: summary(queries) for name, queries in first.items()},
        "queries": first,
    }
    write_results(args.out, "first_queries", figures, render(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
