"""Hybrid fusion before and after the 0-1 scaled rule, on the relevance sets.

Loads each set as bench/static_encoder.py does (the product bundle, cached vectors;
nothing is embedded but the queries) and measures, per encoder (static: the
default; transformer), the pages `Searcher.rank` returns in vector, lexical and
hybrid mode (AFTER: the shipped rule of mkdocs_semantic/ranking.py), the previous
rule (BEFORE: page-level reciprocal rank fusion, k = 60, re-implemented below over
the same orders), and the floor of static_encoder.py in the same run. MRR@10 on
every set and subset; SciFact also nDCG@10.

    python bench/fusion.py [--sets fastapi,mkdocs,scifact,manpages,npm]

Writes bench/results/fusion.{json,md}.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from results_file import write_results  # noqa: E402

from mkdocs_semantic.embedding import OnnxEmbedder, default_model_spec  # noqa: E402
from mkdocs_semantic.ranking import PAGE_DEPTH, chunk_order  # noqa: E402
from mkdocs_semantic.search import Searcher  # noqa: E402

PREVIOUS_RRF_K = 60
ENCODERS = ("static", "transformer")


def previous_rule(searcher: Searcher, orders: list[np.ndarray]) -> list[int]:
    """Pages by the rule shipped before: sum over signals of prior / (60 + page rank /
    boost), each signal's pages in the order of their best chunk (ties by number)."""
    pages = len(searcher._priors)
    score = np.zeros(pages)
    seen = np.zeros(pages, dtype=bool)
    for order in orders:
        in_order, first = np.unique(searcher._page_of_chunk[order], return_index=True)
        ranked = in_order[np.argsort(first, kind="stable")][:PAGE_DEPTH]
        rank = np.arange(1, len(ranked) + 1)
        score[ranked] += searcher._priors[ranked] / (
            PREVIOUS_RRF_K + rank / searcher._boosts[ranked])
        seen[ranked] = True
    candidates = np.flatnonzero(seen)
    return candidates[np.lexsort((candidates, -score[candidates]))].tolist()


def page_urls(searcher: Searcher) -> list[str]:
    starts = searcher.bundle.catalog["pages"]["starts"]
    return [searcher.bundle.chunks[s].url for s in starts[:-1]]


def measure(corpus: se.Corpus, searcher: Searcher) -> dict[str, dict[str, list[float]]]:
    """Per row (vector, lexical, hybrid before, hybrid after) and metric, the per-query
    scores."""
    metrics = {"mrr@10": se.mrr_at_10} | ({"ndcg@10": se.ndcg_at_10}
                                          if corpus.metric == "ndcg@10" else {})
    urls = page_urls(searcher)
    rows: dict[str, dict[str, list[float]]] = {}

    def add(row: str, pages: list[str], query: se.Query) -> None:
        for name, metric in metrics.items():
            rows.setdefault(row, {}).setdefault(name, []).append(metric(pages, query.relevant))

    everything = np.ones(len(corpus.chunks), dtype=bool)
    for query in corpus.queries:
        vector = searcher.embed(query.text)
        for mode in ("vector", "lexical", "hybrid"):
            results = searcher.rank(query=query.text, vector=vector, mode=mode,
                                    top_k=corpus.top_k, filters=None, min_score=None)
            add("hybrid after" if mode == "hybrid" else mode,
                list(dict.fromkeys(r.url for r in results)), query)
        orders = []
        if vector is not None:
            orders.append(chunk_order(searcher.scores(vector), everything))
        lexical = searcher.bundle.lexical.scores(query.text)
        orders.append(chunk_order(lexical, lexical > 0))
        add("hybrid before", [urls[p] for p in previous_rule(searcher, orders)], query)
    return rows


def summarize(corpus: se.Corpus, per_query: list[float]) -> dict[str, float]:
    return se.summarize(corpus, per_query)


def run_set(corpus: se.Corpus, embedder: OnnxEmbedder) -> dict:
    out: dict = {"queries": len(corpus.queries), "chunks": len(corpus.chunks),
                 "groups": corpus.groups, "encoders": {}}
    for encoder in ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        rows = measure(corpus, searcher)
        out["encoders"][encoder] = {
            row: {metric: summarize(corpus, scores) for metric, scores in by_metric.items()}
            for row, by_metric in rows.items()}
    metrics = ["mrr@10"] + (["ndcg@10"] if corpus.metric == "ndcg@10" else [])
    out["floor"] = {metric: se.floor(replace(corpus, metric=metric), embedder)["rrf"]
                    for metric in metrics}
    return out


ROWS = ("vector", "lexical", "hybrid before", "hybrid after")


def render(results: dict) -> str:
    lines = [
        "# Hybrid fusion: before and after", "",
        f"Reproduce: `python bench/fusion.py`. Measured {results['run']}, every figure "
        "from that run. BEFORE: the previous rule, page-level reciprocal rank fusion "
        f"(k = {PREVIOUS_RRF_K}). AFTER: each signal's page scores scaled to 0-1 for the "
        "query (lexical floor 0, vector floor its 100th page) and averaged "
        "(mkdocs_semantic/ranking.py). Vector and lexical are the product's own modes; "
        "the floor is bench/static_encoder.py's (BM25 + dense float32, section-level RRF, "
        "page-deduplicated, transformer query). `ok` marks hybrid AFTER >= both vector "
        "and lexical on that row.", "",
        "| set / subset | metric | encoder | vector | lexical | hybrid BEFORE "
        "| hybrid AFTER | floor RRF | AFTER >= vector and lexical |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in results["sets"].items():
        for group in ["all", *s["groups"]]:
            for metric in s["floor"]:
                for encoder in ENCODERS:
                    e = s["encoders"][encoder]
                    v, lx, before, after = (e[row][metric][group] for row in ROWS)
                    verdict = "ok" if after >= v and after >= lx else "NO"
                    label = name if group == "all" else f"{name} / {group}"
                    lines.append(
                        f"| {label} | {metric} | {encoder} | {v:.3f} | {lx:.3f} "
                        f"| {before:.3f} | {after:.3f} | {s['floor'][metric][group]:.3f} "
                        f"| {verdict} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(se.SETS))
    parser.add_argument("--scifact", type=Path, default=se.SHARED / "bench" / "scifact")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    wanted = args.sets.split(",")
    unknown = [s for s in wanted if s not in se.SETS]
    if unknown:
        parser.error(f"unknown set(s) {', '.join(unknown)}: use {', '.join(se.SETS)}")
    spec = default_model_spec()
    embedder = OnnxEmbedder(spec)
    loaders = {
        "fastapi": lambda: se.site_corpus("fastapi-docs", "fastapi", spec),
        "mkdocs": lambda: se.site_corpus("mkdocs-docs", "mkdocs", spec),
        "scifact": lambda: se.scifact_corpus(args.scifact, spec, embedder),
        "manpages": lambda: se.generated_corpus("manpages", spec),
        "npm": lambda: se.generated_corpus("npm", spec),
    }
    results = {"run": time.strftime("%Y-%m-%d %H:%M"), "sets": {}}
    for name in wanted:
        print(f"{name}: loading", file=sys.stderr)
        results["sets"][name] = run_set(loaders[name](), embedder)
    write_results(args.out, "fusion", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
