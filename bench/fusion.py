"""Hybrid fusion before and after the keyword-coverage rule, on every relevance set.

Loads each set as bench/static_encoder.py does (the product bundle, cached vectors;
nothing is embedded but the queries) and measures, per query encoder (static: the
default; transformer), the pages `Searcher.rank` returns in vector, lexical and hybrid
mode (AFTER: the shipped rule of mkdocs_semantic/search/ranking.py), the previous rule
(BEFORE, re-implemented below over the same signals: each signal scaled to 0-1 by its
own first page, keyword floor 0, vector floor its 100th page, averaged), and the floor
of static_encoder.py in the same run (BM25 + dense, section-level RRF, page-deduplicated),
its dense ranking embedding the query with the same encoder. MRR@10 on every set and
subset; SciFact also nDCG@10.

    python bench/fusion.py [--sets fastapi,mkdocs,scifact,manpages,npm,manshort,postgres,python]

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

from mkdocs_semantic.constants import PAGE_DEPTH  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.model.spec import default_model_spec  # noqa: E402
from mkdocs_semantic.search.ranking import chunk_order  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

ENCODERS = ("static", "transformer")
ROWS = ("vector", "lexical", "hybrid before", "hybrid after")


def previous_rule(searcher: Searcher, signals: list[tuple[np.ndarray, np.ndarray, bool]]
                  ) -> list[int]:
    """Pages by the rule shipped before: per signal (scores, chunk order, keyword?), its
    first PAGE_DEPTH pages scaled to 0-1 by its first page's score, the floor 0 for
    keywords and its last listed page's score for vectors; averaged, x prior x boost."""
    pages = len(searcher._priors)
    total = np.zeros(pages)
    seen = np.zeros(pages, dtype=bool)
    taking_part = [s for s in signals if len(s[1])]
    for scores, order, keyword in taking_part:
        in_order, first = np.unique(searcher._page_of_chunk[order], return_index=True)
        by_rank = np.argsort(first, kind="stable")[:PAGE_DEPTH]
        listed = in_order[by_rank]
        best = scores[order[first[by_rank]]]
        floor = 0.0 if keyword else best[-1]
        span = best[0] - floor
        total[listed] += (best - floor) / span if span > 0 else 1.0
        seen[listed] = True
    candidates = np.flatnonzero(seen)
    key = (total[candidates] / max(1, len(taking_part)) * searcher._priors[candidates]
           * searcher._boosts[candidates])
    return candidates[np.lexsort((candidates, -key))].tolist()


def page_urls(searcher: Searcher) -> list[str]:
    starts = searcher.bundle.pages.starts
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

    for query in corpus.queries:
        vector = searcher.embed(query.text)
        for mode in ("vector", "lexical", "hybrid"):
            results = searcher.rank(query=query.text, vector=vector, mode=mode,
                                    top_k=corpus.top_k, filters=None, min_score=None)
            add("hybrid after" if mode == "hybrid" else mode,
                list(dict.fromkeys(r.url for r in results)), query)
        signals = []
        if vector is not None:
            scores = searcher.scores(vector)
            signals.append((scores, chunk_order(scores, ~np.isnan(scores)), False))
        lexical = searcher.bundle.lexical.scores(query.text)
        signals.append((lexical, chunk_order(lexical, lexical > 0), True))
        add("hybrid before", [urls[p] for p in previous_rule(searcher, signals)], query)
    return rows


def run_set(corpus: se.Corpus, embedder: OnnxEmbedder) -> dict:
    out: dict = {"queries": len(corpus.queries), "chunks": len(corpus.chunks),
                 "groups": corpus.groups, "encoders": {}, "floor": {}}
    metrics = ["mrr@10"] + (["ndcg@10"] if corpus.metric == "ndcg@10" else [])
    for encoder in ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        rows = measure(corpus, searcher)
        out["encoders"][encoder] = {
            row: {metric: se.summarize(corpus, scores) for metric, scores in by_metric.items()}
            for row, by_metric in rows.items()}
        out["floor"][encoder] = {
            metric: se.floor(replace(corpus, metric=metric), embedder, encoder=encoder)["rrf"]
            for metric in metrics}
    return out


def render(results: dict) -> str:
    lines = [
        "# Hybrid fusion: before and after", "",
        f"Reproduce: `python bench/fusion.py`. Measured {results['run']}, every figure "
        "from that run. AFTER: the shipped rule (mkdocs_semantic/search/ranking.py): a page's "
        "keyword score is its share of the query's best possible keyword score (the sum of "
        "each query term's highest stored score), its vector score is scaled between the "
        "query's mean score over every chunk (0) and the best page (1); averaged. BEFORE: "
        "the rule shipped before it: each signal scaled by its own first page (keyword "
        "floor 0, vector floor its 100th page), averaged. Vector and lexical are the "
        "product's own modes. The floor is bench/static_encoder.py's plain baseline (BM25 "
        "+ dense float32, section-level RRF k = 60, page-deduplicated), its dense ranking "
        "embedding the query with the row's encoder. `ok` marks AFTER >= both single "
        "signals, and AFTER >= the floor.", "",
        "| set / subset | metric | encoder | vector | lexical | hybrid BEFORE | hybrid AFTER "
        "| floor RRF | AFTER >= vector and lexical | AFTER >= floor |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in results["sets"].items():
        for group in ["all", *s["groups"]]:
            if group != "all" and len(s["groups"]) < 2:
                continue
            for metric in s["floor"]["static"]:
                for encoder in ENCODERS:
                    e = s["encoders"][encoder]
                    v, lx, before, after = (e[row][metric][group] for row in ROWS)
                    floor = s["floor"][encoder][metric][group]
                    label = name if group == "all" else f"{name} / {group}"
                    lines.append(
                        f"| {label} | {metric} | {encoder} | {v:.3f} | {lx:.3f} "
                        f"| {before:.3f} | {after:.3f} | {floor:.3f} "
                        f"| {'ok' if after >= v and after >= lx else 'NO'} "
                        f"| {'ok' if after >= floor else 'NO'} |")
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
    loaders = se.set_loaders(spec, embedder, args.scifact)
    results = {"run": time.strftime("%Y-%m-%d %H:%M"), "sets": {}}
    for name in wanted:
        print(f"{name}: loading", file=sys.stderr)
        results["sets"][name] = run_set(loaders[name](), embedder)
    write_results(args.out, "fusion", results, render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
