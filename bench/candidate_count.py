"""Fewer candidates scored exactly: what a query's row bytes would save, and cost.

A query in the partitioned layout scores its best `partitions.CANDIDATES` rows by sign
score exactly, reading the int8 rows of the blocks they lie in: on a large site of
distinct text the blocks no query before it read are most of what a warm query sends.
This bench keeps the probe as shipped and asks the bundle's vector set for fewer
candidates (100 as shipped, 75, 50), per set whose bundle is partitioned (the others
are listed as such) and per query encoder:

- hybrid MRR@10 of every query of the set (as the product reads and ranks it);
- vector recall@10 against the exact scan of every row (tie-aware: a hit is a result
  whose exact score is at least the exact 10th score);
- the bytes of the rows files holding a query's candidates, none of them read before
  (a first query's; a warm query reads those no query before it did), median over the
  queries; binary files are sent as they are.

    python bench/candidate_count.py [--sets SETS]  (default: the nine site sets it was recorded on
    and the short command pages)

Writes bench/results/candidate_count.{json,md}.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import readers_typing as rt  # noqa: E402
import static_encoder as se  # noqa: E402
from sign_codes import scored_queries  # noqa: E402

from mkdocs_semantic.bundle.vectors import partitions  # noqa: E402
from mkdocs_semantic.bundle.vectors.store import VectorSet, rows_file_bytes  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

COUNTS = (partitions.CANDIDATES, 75, 50)
SETS = rt.NINE_SETS + ",manshort"
"""The nine site sets it was measured on, and the short command pages."""


def vector_figures(vectors: VectorSet, scored: list[tuple[np.ndarray, np.ndarray, float]]
                   ) -> tuple[float, float]:
    """Mean vector recall@10 against the exact scan, and the median bytes of the rows
    files holding the candidates, with the candidates the vector set is set to;
    `scored`: each query's codes, exact scores and exact 10th (`scored_queries`)."""
    recalls, sent = [], []
    for codes, exact, tenth in scored:
        scores = vectors.scores(codes)
        found = np.flatnonzero(~np.isnan(scores))
        top = found[np.lexsort((found, -scores[found]))][:10]
        recalls.append(float((exact[top] >= tenth).sum()) / 10)
        blocks = vectors.candidate_blocks(vectors.candidate_rows(codes))
        sent.append(sum(rows_file_bytes(vectors.partition(p).blocks[b][1], vectors.dim)
                        for p, b in blocks))
    return statistics.mean(recalls), statistics.median(sent)


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    vectors = corpus.bundle.vectors
    if vectors.layout != "partitioned":
        return {"layout": vectors.layout}
    texts = [q.text for q in corpus.queries]
    out: dict = {"layout": "partitioned", "chunks": vectors.rows,
                 "partitions": len(vectors.partitions), "queries": len(texts), "encoders": {}}
    shipped = vectors.candidates
    for encoder in rt.ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        scored = list(scored_queries(searcher, vectors, texts))  # once for every count
        rows = {}
        try:
            for count in COUNTS:
                vectors.candidates = count
                hybrid, _ = rt.score(corpus, searcher, corpus.queries, "hybrid",
                                     typing=False, as_typed=False)
                recall, sent = vector_figures(vectors, scored)
                rows[count] = {"hybrid": hybrid, "recall": round(recall, 4),
                               "rows_bytes": sent}
        finally:
            vectors.candidates = shipped
        out["encoders"][encoder] = rows
    return out


def render(results: dict) -> str:
    lines = ["# Fewer candidates scored exactly: row bytes against ranking", "",
             f"Reproduce: `python bench/candidate_count.py`. Measured {results['run']}. "
             "Per set and query encoder, with the probe as shipped and the candidates "
             f"scored exactly cut from {partitions.CANDIDATES} (shipped): hybrid MRR@10 of "
             "every query, vector recall@10 against the exact scan (tie-aware), and the "
             "median bytes of the rows files holding a query's candidates, none read "
             "before (a first query's; binary, as sent). Issue 28 asks warm queries for "
             "at most 40 kB sent at the median and hybrid MRR@10 within 0.005 of the "
             "shipped layout's.", "",
             "| set | encoder | candidates | hybrid MRR@10 (change) | vector recall@10 "
             "| candidates' rows files, median |", "|---" * 6 + "|"]
    for name, s in results["sets"].items():
        if s["layout"] != "partitioned":
            continue
        label = f"{name} ({s['chunks']:,} chunks, {s['partitions']} partitions)"
        for encoder, rows in s["encoders"].items():
            base = next(iter(rows.values()))["hybrid"]  # the shipped count comes first
            for count, r in rows.items():
                lines.append(f"| {label} | {encoder} | {count} | {r['hybrid']:.3f} "
                             f"({r['hybrid'] - base:+.3f}) | {r['recall']:.3f} "
                             f"| {r['rows_bytes'] / 1000:.1f} kB |")
    exact = [n for n, s in results["sets"].items() if s["layout"] != "partitioned"]
    if exact:
        lines += ["", "Not partitioned (every vector scored): " + ", ".join(exact) + "."]
    return "\n".join(lines) + "\n"


def main() -> int:
    return rt.run_sets(__doc__, "candidate_count", run_set, render, sets=SETS)


if __name__ == "__main__":
    sys.exit(main())
