"""Trial: the query vector moved towards its own best chunks (pseudo-relevance feedback).

The static encoder's query vector is a sum of table rows, an approximation of the
model's; the chunks it ranks first carry the model's own vectors. Rocchio's feedback
moves the query towards them: q' = unit(unit(q) + alpha * unit(mean of the model
vectors of the first k chunks by q)), then the set is ranked again with q'. Each
variant on both encoders, every set and subset, vector and hybrid through the
product's `Searcher.rank`; "within 100" reranks only the first pass's 100 best chunks
(what a reader holding the candidates' rows could do without another fetch), vector
mode only; "hybrid's" moves the query towards the first k sections of the hybrid
ranking instead.

    python bench/query_feedback.py [--sets fastapi,npm,...]

Writes bench/results/query_feedback.{json,md}.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402

from mkdocs_semantic.bundle.vectors.codes import query_codes  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

VARIANTS = (("k3 a0.5", 3, 0.5), ("k3 a1", 3, 1.0), ("k5 a1", 5, 1.0), ("k10 a1", 10, 1.0),
            ("k3 a2", 3, 2.0))
WITHIN = 100


def unit(x: np.ndarray) -> np.ndarray:
    return x / (np.linalg.norm(x) or 1.0)


def toward(query: np.ndarray, chosen: np.ndarray, alpha: float) -> np.ndarray:
    """Rocchio's step: the query towards the mean of the `chosen` chunks' vectors."""
    return unit(query + alpha * unit(chosen.mean(axis=0)))


def moved(query: np.ndarray, vectors: np.ndarray, k: int, alpha: float) -> np.ndarray:
    """Rocchio's step towards the query's own first k chunks by `vectors`."""
    return toward(query, vectors[np.argsort(-(vectors @ query), kind="stable")[:k]], alpha)


def as_searched(searcher: Searcher, vector: np.ndarray) -> np.ndarray:
    return query_codes(vector) if searcher.bundle.vectors.dtype == "i8" else vector


def hybrid_moved(corpus: se.Corpus, searcher: Searcher, query: se.Query, base: np.ndarray,
                 k: int, alpha: float) -> np.ndarray:
    """Rocchio's step towards the first k sections of the hybrid ranking."""
    results = searcher.rank(query=query.text, vector=as_searched(searcher, base), mode="hybrid",
                            top_k=corpus.top_k, filters=None, min_score=None)
    top = [r.chunk_id for r in results[:k]]
    return toward(base, corpus.vectors[top], alpha) if top else base


def rank_mrr(corpus: se.Corpus, searcher: Searcher, vectors: list[np.ndarray | None]) -> dict:
    return se.evaluate(corpus, searcher, [None if v is None else as_searched(searcher, v)
                                          for v in vectors])


def within_mrr(corpus: se.Corpus, bases: list[np.ndarray | None], k: int, alpha: float) -> dict:
    """Vector mode: the first pass's best WITHIN chunks, reranked by the moved query."""
    score = se.mrr_at_10 if corpus.metric == "mrr@10" else se.ndcg_at_10
    urls = [c.url for c in corpus.chunks]
    per_query = []
    for query, base in zip(corpus.queries, bases):
        if base is None:
            per_query.append(0.0)
            continue
        first = np.argsort(-(corpus.vectors @ base), kind="stable")[:WITHIN]
        again = moved(base, corpus.vectors, k, alpha)
        order = first[np.argsort(-(corpus.vectors[first] @ again), kind="stable")]
        per_query.append(score(list(dict.fromkeys(urls[i] for i in order)), query.relevant))
    return se.summarize(corpus, per_query)


def run_set(corpus: se.Corpus, name: str, embedder) -> dict:
    out: dict = {}
    texts = [q.text for q in corpus.queries]
    for encoder in ("static", "transformer"):
        searcher = Searcher(corpus.bundle, embedder, encoder=encoder)
        if encoder == "static":
            raw = [searcher.static.encode(t) for t in texts]
        else:
            raw = list(embedder.embed_queries(texts))
        bases = [None if v is None else unit(np.asarray(v, dtype=np.float64)) for v in raw]
        rows = {"as shipped": rank_mrr(corpus, searcher, bases)}
        for label, k, alpha in VARIANTS:
            rows[label] = rank_mrr(corpus, searcher, [
                None if b is None else moved(b, corpus.vectors, k, alpha) for b in bases])
        for label, k, alpha in VARIANTS[1:3]:
            rows[f"{label} within {WITHIN}"] = {"vector": within_mrr(corpus, bases, k, alpha)}
        for label, k, alpha in (("hybrid's k3 a1", 3, 1.0), ("hybrid's k3 a0.5", 3, 0.5)):
            rows[label] = rank_mrr(corpus, searcher, [
                None if b is None else hybrid_moved(corpus, searcher, q, b, k, alpha)
                for q, b in zip(corpus.queries, bases)])
        out[encoder] = rows
    return out


def render(results: dict) -> str:
    lines = [
        "# Trial: the query moved towards its own best chunks (pseudo-relevance feedback)",
        "",
        f"Reproduce: `python bench/query_feedback.py`. Measured {results['run']}. "
        "MRR@10 (SciFact nDCG@10) by subset; the rule is in the bench's docstring "
        "(k: chunks, a: alpha).",
        "",
    ]
    for name, by_encoder in results["sets"].items():
        lines += [f"## {name}", "", "| encoder | variant | vector | hybrid |", "|---|---|---|---|"]
        for encoder, rows in by_encoder.items():
            for label, modes in rows.items():
                cells = [", ".join(f"{g} {v:.3f}" for g, v in modes[m].items()) if m in modes
                         else "-" for m in ("vector", "hybrid")]
                lines.append(f"| {encoder} | {label} | {cells[0]} | {cells[1]} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(se.run_trial(__doc__, "query_feedback",
                                  "fastapi,mkdocs,manpages,npm,manshort,postgres,python",
                                  run_set, render))
