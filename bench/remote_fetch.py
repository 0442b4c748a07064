"""What a URL SOURCE downloads: the Python readers (CLI, service, MCP) on a deployed site.

Builds fastapi-docs with the plugin, and the same corpus with 15 versioned copies of
every page (16x, as bench/compare makes it; the embedding cache serves the copies),
then serves each built site on 127.0.0.1 and, for each, with a fresh download cache:

- `query`: the queries of bench/relevance/fastapi-*.tsv, one after another, through
  `open_source(url)` and a `Searcher` (what `mkdocs-semantic query URL` does), the
  shards each needs fetched when it first needs them;
- `--all`: the same with the whole bundle downloaded up front (`everything=True`).

Per site and way: bytes and files downloaded for the first query (the manifest,
catalog and everything fetched until its answer) and for all of them, the first
query's wall time, and whether every query's answer equals the local site's. Each
way runs twice: on plain loopback, and with the server holding every response
--delay-ms (25 by default), a stand-in for a network's round trip, which shows what
fetching a query's files together rather than one by one saves.

    python bench/remote_fetch.py [--copies 16] [--queries 50] [--delay-ms 25]

Writes bench/results/remote_fetch.{json,md}.
"""

from __future__ import annotations

import argparse
import functools
import platform
import shutil
import sys
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "compare_lib"))

import sites  # noqa: E402  (bench/compare_lib/sites.py: the copies bench/compare makes)
import static_encoder as se  # noqa: E402  (bench/static_encoder.py: building a corpus)
from relevance import read_queries  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.apps.sources import open_source  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

CORPUS = se.SHARED / "corpora" / "fastapi-docs"
WORK = se.CACHE / "remote-fetch"
FETCH_TIMEOUT = 3600.0
"""Seconds a download may take here, well above the readers' default 120 s: the bench
measures how long the whole bundle takes, it does not test the deadline (fetched one
file after another, the 16x bundle once took 164 s at 25 ms a file)."""


class Counting(SimpleHTTPRequestHandler):
    """Serves a folder, each response held `delay` seconds; notes each response's path
    and body bytes."""

    log: list[tuple[str, int]]
    delay: float

    def log_message(self, format, *args) -> None:
        pass

    def do_GET(self) -> None:
        time.sleep(self.delay)
        super().do_GET()

    def copyfile(self, source, outputfile) -> None:
        data = source.read()
        outputfile.write(data)
        self.log.append((self.path, len(data)))


def serve(root: Path, delay: float) -> tuple[ThreadingHTTPServer, str, list[tuple[str, int]]]:
    log: list[tuple[str, int]] = []
    handler = type("Handler", (Counting,), {"log": log, "delay": delay})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler,
                                                                      directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/", log


def build_copies(copies: int) -> Path:
    """The corpus with `copies - 1` versioned copies of every page, built with the plugin
    (embedding cache shared with bench/static_encoder's fastapi-docs build)."""
    project = WORK / f"x{copies}-source"
    if project.exists():
        shutil.rmtree(project)
    sites.make_project(CORPUS, project, copies)
    built, _ = se.build_site(project, f"remote-fetch/x{copies}",
                             cache_dir=se.CACHE / "fastapi-docs" / "plugin")
    return built


def measure(site: Path, queries: list[str], *, everything: bool, delay: float) -> dict:
    local = Searcher.open(site)
    server, url, log = serve(site, delay)
    try:
        with tempfile.TemporaryDirectory() as cache:
            started = time.perf_counter()
            located = open_source(url, cache_dir=Path(cache), everything=everything,
                                  fetch_timeout=FETCH_TIMEOUT)
            remote = Searcher.open(located)
            answers = []
            first = {}
            for number, query in enumerate(queries):
                answers.append([r.chunk_id for r in remote.search(query)])
                if number == 0:
                    first = {"ms": round((time.perf_counter() - started) * 1000),
                             "bytes": sum(n for _, n in log), "files": len(log)}
            same = sum(answer == [r.chunk_id for r in local.search(query)]
                       for answer, query in zip(answers, queries))
    finally:
        server.shutdown()
        server.server_close()
    bundle = sum(f.bytes for f in local.bundle.files)
    return {"first_query": first, "all_queries": {"bytes": sum(n for _, n in log),
                                                  "files": len(log)},
            "bundle": {"bytes": bundle, "files": len(local.bundle.files)},
            "chunks": len(local.bundle.chunks), "same_answers": same,
            "queries": len(queries), "delay_ms": round(delay * 1000)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=16)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--delay-ms", type=float, default=25.0)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    queries = [q for name in ("paraphrase", "exact")
               for q, _ in read_queries(HERE / "relevance" / f"fastapi-{name}.tsv")]
    queries = queries[:args.queries]
    one, _ = se.build_site(CORPUS, "fastapi-docs")
    runs = {"1x": one}
    if args.copies > 1:
        runs[f"{args.copies}x"] = build_copies(args.copies)
    results = {"run": {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "python": platform.python_version(), "machine": platform.machine()},
               "sites": {}}
    for name, site in runs.items():
        results["sites"][name] = {
            f"{way}@{delay:g}": measure(site, queries, everything=way == "all",
                                        delay=delay / 1000)
            for way in ("query", "all") for delay in (0, args.delay_ms)}
        print(name, results["sites"][name], file=sys.stderr)
    write_results(args.out, "remote_fetch", results, render(results))
    return 0


def kb(n: int) -> str:
    return f"{n / 1000:,.0f} kB" if n < 10**6 else f"{n / 10**6:,.1f} MB"


def render(results: dict) -> str:
    rows = []
    for name, ways in results["sites"].items():
        for key, r in ways.items():
            way = key.split("@")[0]
            label = ("shards as queries need them" if way == "query"
                     else "`--all`: whole bundle")
            label += f", {r['delay_ms']} ms a response" if r["delay_ms"] else ", loopback"
            rows.append(
                f"| {name} ({r['chunks']:,} chunks; bundle {kb(r['bundle']['bytes'])} in "
                f"{r['bundle']['files']:,} files) | {label} | {kb(r['first_query']['bytes'])} "
                f"({r['first_query']['files']:,} files) | {r['first_query']['ms']:,} ms | "
                f"{kb(r['all_queries']['bytes'])} ({r['all_queries']['files']:,} files) | "
                f"{r['same_answers']} of {r['queries']} |")
    run = results["run"]
    return "\n".join([
        "# What a URL SOURCE downloads",
        "",
        f"Reproduce: `python bench/remote_fetch.py`. Measured {run['date']} (Python "
        f"{run['python']}, {run['machine']}). Each built site is served on 127.0.0.1; a fresh "
        "download cache per row; the queries of bench/relevance/fastapi-*.tsv one after "
        "another through `open_source(url)` and a `Searcher` (what `mkdocs-semantic query "
        "URL` and the MCP server do). Bytes are response bodies as served (no compression); "
        "the first query's figures include the manifest and catalog; its time includes the "
        "download: on loopback, and with the server holding each response for a fixed "
        "delay, a stand-in for a network's round trip (the files of one step of a query, "
        "or of one level of the whole-bundle download, are fetched together, 8 at a "
        "time).",
        "",
        "| site | download | first query: bytes (files) | first query: time | all queries: "
        "bytes (files) | answers equal to the local site's |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
    ])


if __name__ == "__main__":
    raise SystemExit(main())
