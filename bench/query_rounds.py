"""Round trips and bytes of the browser engine's queries, one step of the engine a round.

Builds ../shared/corpora/fastapi-docs (129 pages, 2,355 chunks) with the plugin twice,
in the exact vector layout and as shipped (`auto`: partitioned at this size), then runs
bench/query_rounds.mjs on each, the shipped one also without the idle prefetch: the
browser engine in Node against the bundle served from 127.0.0.1 with every answer held
100 ms, so that a round counts a step of the engine that waited for the step before it,
never a CPU gap inside one step (which splits the loopback rounds of bench/compare). The
queries are the 50 of bench/relevance/fastapi-*, in order: the first is cold (nothing
fetched), each later one warm (it fetches what no query before it needed). The browser
adds to these rounds the loading of its worker.

    python bench/query_rounds.py

Writes bench/results/query_rounds.{json,md}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import relevance  # bench/relevance.py
from browser import build_site  # bench/browser.py
from results_file import write_results  # bench/results_file.py

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
QUERY_FILES = ("fastapi-paraphrase.tsv", "fastapi-exact.tsv")
VARIANTS = {  # name: (the plugin's options, idle prefetch, query_rounds.mjs options)
    "exact": ({"vector_layout": "exact"}, "on", ()),
    "partitioned (as shipped)": ({"vector_layout": "auto"}, "on", ()),
    "partitioned, told the page's pieces hash": ({"vector_layout": "auto"}, "on",
                                                 ("--page-pieces",)),
    "partitioned, no prefetch": ({"vector_layout": "auto"}, "off", ()),
    # the first query as the row above; the model's idle download after it; then the model's
    "progressive, told the page's pieces hash": ({"query_encoder": "progressive"}, "on",
                                                 ("--page-pieces", "--idle-encoder")),
    # the model before the first semantic answer (the forward pass's script not counted)
    "transformer": ({"query_encoder": "transformer"}, "on", ()),
}


def queries(files: Sequence[str] = QUERY_FILES) -> list[str]:
    """The queries of bench/relevance's `files`, in order."""
    out = []
    for name in files:
        for line in (HERE / "relevance" / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                out.append(line.split("\t")[0])
    return out


QUERY_ROUNDS = HERE / "query_rounds.mjs"


def measure(bundle: Path, query_file: Path, prefetch: str, options: Sequence[str] = (),
            script: Path = QUERY_ROUNDS) -> dict:
    """query_rounds.mjs (`script`: another checkout's, see `client_at`) on `bundle` (its
    folder) for the queries of `query_file`; `options`: its options after `prefetch`
    (`--cold-each`, `--unheld <folder>`)."""
    proc = subprocess.run(["node", str(script), str(bundle),
                           str(query_file), prefetch, *options],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"query_rounds.mjs failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


@contextmanager
def client_at(revision: str) -> Iterator[Path]:
    """bench/query_rounds.mjs of a temporary checkout of `revision` (its browser engine,
    this checkout's npm packages), removed afterwards: the client before a change. Its
    engine reads bundles this checkout builds, so `revision` must read the same format."""
    with tempfile.TemporaryDirectory() as tmp:
        checkout = Path(tmp) / "client"
        try:
            subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet",
                            str(checkout), revision], check=True)
            (checkout / "js" / "node_modules").symlink_to(REPO / "js" / "node_modules")
            yield checkout / "bench" / "query_rounds.mjs"
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                            str(checkout)], check=False, capture_output=True)
            # a checkout that could not be removed leaves its registration: drop it
            subprocess.run(["git", "-C", str(REPO), "worktree", "prune"], check=False)


def agreement(run: dict, site: Path, expected: dict[str, list[str]]) -> dict:
    """The JS answers against the Python searcher's with the encoder each answer names:
    how many top 10s are the same, and the page MRR@10 of both (the pages of the first
    10 results, each page once) over the judged queries, by encoder."""
    from mkdocs_semantic.search.searcher import Searcher

    searchers: dict[str, Searcher] = {}
    out: dict[str, dict] = {}
    for q in run["queries"]:
        encoder = q["encoder"]
        searcher = searchers.setdefault(encoder, Searcher.open(site, encoder=encoder))
        python = searcher.search(q["query"], top_k=10)
        urls = [searcher.bundle.chunks[i].url for i in q["ids"]]
        cell = out.setdefault(encoder, {"queries": 0, "same_top10": 0, "js_rr": 0.0,
                                        "python_rr": 0.0})
        cell["queries"] += 1
        cell["same_top10"] += [r.chunk_id for r in python] == q["ids"]
        wanted = expected[q["query"]]
        cell["js_rr"] += reciprocal_rank(urls, wanted)
        cell["python_rr"] += reciprocal_rank([r.url for r in python], wanted)
    for cell in out.values():
        n = cell["queries"]
        cell["js_mrr@10"] = round(cell.pop("js_rr") / n, 4)
        cell["python_mrr@10"] = round(cell.pop("python_rr") / n, 4)
    return out


def reciprocal_rank(urls: list[str], wanted: list[str]) -> float:
    pages = list(dict.fromkeys(urls))
    return next((1 / i for i, url in enumerate(pages[:10], 1) if url in wanted), 0.0)


def summary(run: dict) -> dict:
    first, warm = run["queries"][0], run["queries"][1:]
    fetching = [q for q in warm if q["files"]]
    return {
        "first": first,
        "warm_rounds_p50": statistics.median(q["rounds"] for q in warm),
        "warm_rounds_max": max(q["rounds"] for q in warm),
        "warm_sent_p50": statistics.median(q["sent"] for q in warm),
        "warm_sent_max": max(q["sent"] for q in warm),
        "warm_fetching": len(fetching),
        "warm": len(warm),
        "prefetched": sum(q["prefetched"] for q in run["queries"]),
        "prefetched_files": sum(q["prefetchedFiles"] for q in run["queries"]),
        "idle": first.get("idle"),
        **({"embed_ms_p50": statistics.median(run["embedMs"]),
            "embed_ms_p95": statistics.quantiles(run["embedMs"], n=20)[18]}
           if run.get("embedMs") else {}),
    }


def render(results: dict) -> str:
    rows = []
    for layout, s in results["layouts"].items():
        f = s["first"]
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(f["kinds"].items()))
        rows.append(f"| {layout} | {f['rounds']} | {f['sent'] / 1000:,.0f} kB ({f['files']} files:"
                    f" {kinds}) | {s['warm_rounds_p50']:g} / {s['warm_rounds_max']} | "
                    f"{s['warm_sent_p50'] / 1000:,.1f} / {s['warm_sent_max'] / 1000:,.1f} kB | "
                    f"{s['prefetched'] / 1000:,.0f} kB ({s['prefetched_files']} files) |")
    return "\n".join([
        "# The browser engine's rounds per query",
        "",
        f"Reproduce: `python bench/query_rounds.py`. Measured {results['run']} on fastapi-docs "
        f"({results['chunks']:,} chunks), {results['queries']} queries "
        "(bench/relevance/fastapi-*), the first cold. Each answer held "
        f"{results['delay_ms']} ms, so a round is a step of the engine that waited for the one "
        "before it (requests within "
        f"{results['gap_ms']} ms of each other are one round). The browser adds the loading of "
        "its worker (one round, `worker.js`; the API entry `semantic.js` adds one more). "
        "Sent: gzip for JSON, binary payloads as they are.",
        "",
        "After each query the engine's idle prefetch (the word-piece shards no query has read, "
        "at most 300 kB) runs to its end before the next query, as while a reader reads the "
        "results; its files are not in the queries' figures. Told the page's pieces hash: "
        "the engine as a built page makes it, asking for the first query's word-piece files "
        "beside the catalog.",
        "",
        "| variant | first query: rounds | first query: sent | warm rounds: p50 / max |"
        " warm sent: p50 / max | prefetched in all |",
        "|---|---|---|---|---|---|",
        *rows, "",
        "Beside Python: the answers' top 10 against the Python searcher's with the same "
        "encoder, and the page MRR@10 of both (the pages of the first 10 results) over "
        "the judged queries:",
        "",
        "| variant | encoder | queries | same top 10 | MRR@10: JS / Python |",
        "|---|---|---|---|---|",
        *[f"| {layout} | {encoder} | {c['queries']} | {c['same_top10']} | "
          f"{c['js_mrr@10']:.3f} / {c['python_mrr@10']:.3f} |"
          for layout, s in results["layouts"].items()
          for encoder, c in s["agreement"].items()],
        "",
        *[f"{layout}: the idle download after the first answer is {s['idle']['idleFiles']} "
          f"files, {s['idle']['idleSent'] / 1e6:.1f} MB as sent by a host that compresses "
          f"only text ({s['idle']['idleGzip'] / 1e6:.1f} MB were it all gzipped); the later "
          f"queries are the {s['idle']['encoder']} encoder's." for layout, s in
          results["layouts"].items() if s["idle"]],
        *[f"{layout}: with the model local, its forward pass took {s['embed_ms_p50']:.0f} ms "
          f"per query at the median, {s['embed_ms_p95']:.0f} ms at p95 (Node.js, one thread)."
          for layout, s in results["layouts"].items() if "embed_ms_p50" in s], ""])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache" / "query-rounds")
    args = parser.parse_args()
    corpus = REPO.parent / "shared" / "corpora" / "fastapi-docs"
    texts = queries()
    expected = {query: urls for name in QUERY_FILES
                for query, urls in relevance.read_queries(HERE / "relevance" / name)}
    layouts, runs = {}, {}
    chunks = 0
    with tempfile.TemporaryDirectory() as tmp:
        query_file = Path(tmp) / "queries.txt"
        query_file.write_text("\n".join(texts) + "\n", encoding="utf-8")
        sites: dict[str, Path] = {}
        for name, (plugin, prefetch, options) in VARIANTS.items():
            key = json.dumps(plugin, sort_keys=True)
            if key not in sites:
                work = Path(tmp) / f"site{len(sites)}"
                work.mkdir()
                sites[key], _ = build_site(corpus, work, args.cache.resolve(), plugin)
            manifest = json.loads((sites[key] / "semantic" / "manifest.json").read_text("utf-8"))
            chunks = manifest["counts"]["chunks"]
            runs[name] = measure(sites[key] / "semantic", query_file, prefetch, options)
            layouts[name] = {**summary(runs[name]),
                             "agreement": agreement(runs[name], sites[key], expected)}
    some = next(iter(runs.values()))
    results = {"run": time.strftime("%Y-%m-%d %H:%M"), "chunks": chunks, "queries": len(texts),
               "delay_ms": some["delayMs"], "gap_ms": some["gapMs"], "layouts": layouts,
               "per_query": {k: r["queries"] for k, r in runs.items()}}
    write_results(args.out, "query_rounds", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
