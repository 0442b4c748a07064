"""Query-time levers for the static encoder: can the reader close the gap to the model
without a new table recipe?

Per set (built as bench/static_encoder.py builds it), every query through the product's
`Searcher`, vector and hybrid MRR@10 by group, one change at a time:

- vector feedback: the query vector plus the mean of the model's vectors of its 5
  nearest chunks (pseudo-relevance feedback, weight 1), then scored again;
- hybrid feedback: the same with the first 5 sections of the hybrid ranking (weight 0.5),
  so keyword evidence steers the vector;
- unit rows x IDF: each table row rescaled to unit length times its token's IDF over
  the site's chunks (the fit's own row lengths dropped);
- token-alone blend: the static vector plus the model's vectors of the query's tokens
  each alone, summed and scaled to unit length (weight 1).

The feedback levers apply to the transformer's query vector too (a query-time lever
serves both encoders), so both are measured.

    python bench/query_levers.py [--sets fastapi,npm,manshort,mkdocs,postgres,python]

Writes bench/results/query_levers.{json,md}.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402

from mkdocs_semantic.bundle.table import TokenTable  # noqa: E402
from mkdocs_semantic.bundle.vectors.codes import query_codes  # noqa: E402
from mkdocs_semantic.indexing.query_table.fit import SPECIAL_TOKENS  # noqa: E402
from mkdocs_semantic.indexing.query_table.ridge import StaticTable  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

FEEDBACK = 5
MODES = ("vector", "hybrid")

Lever = Callable[[Searcher, str, np.ndarray], np.ndarray]
"""(searcher, query, unit float query vector) -> the vector searched instead."""


def unit(v: np.ndarray) -> np.ndarray:
    return v / (np.linalg.norm(v) or 1.0)


def feedback(vectors: np.ndarray, source: str, weight: float) -> Lever:
    def lever(searcher: Searcher, query: str, vector: np.ndarray) -> np.ndarray:
        codes = query_codes(vector)
        if source == "vector":
            scores = np.nan_to_num(searcher.scores(codes, every=True), nan=-np.inf)
            top = np.argsort(-scores, kind="stable")[:FEEDBACK]
        else:
            ranking = searcher.ranking(query=query, vector=codes, mode="hybrid", top_k=100,
                                       filters=None, min_score=None)
            top = [r.chunk for r in ranking.fused[:FEEDBACK]]
        return unit(vector + weight * unit(vectors[list(top)].mean(axis=0)))
    return lever


def token_blend(embedder: OnnxEmbedder, weight: float) -> Lever:
    alone: dict[int, np.ndarray] = {}

    def lever(searcher: Searcher, query: str, vector: np.ndarray) -> np.ndarray:
        tokenizer = searcher.static.tokenizer
        special = {tokenizer.token_to_id(token) for token in SPECIAL_TOKENS}
        ids = [i for i in searcher.static.token_ids(query) if i not in special]
        missing = [i for i in dict.fromkeys(ids) if i not in alone]
        if missing:
            alone.update(zip(missing, map(unit, embedder.embed_token_ids(missing))))
        if not ids:
            return vector
        return unit(vector + weight * unit(sum(alone[i] for i in ids)))
    return lever


def idf_rows(corpus: se.Corpus, table: TokenTable, tokenizer) -> TokenTable:
    """The table with each row rescaled to unit length times its token's IDF."""
    held = Counter()
    for encoding in tokenizer.encode_batch([c.embed_text for c in corpus.chunks]):
        held.update(set(encoding.ids))
    n = len(corpus.chunks)
    idf = np.array([math.log((n + 1) / (held[int(t)] + 1)) + 1 for t in table.token_ids])
    rows = table.rows.astype(np.float64)
    rows = rows / np.clip(np.linalg.norm(rows, axis=1), 1e-9, None)[:, None] * idf[:, None]
    fitted = StaticTable(table.token_ids.astype(np.int64), rows.astype(np.float32)).quantize()
    return TokenTable(token_ids=table.token_ids, rows=fitted.rows, scale=fitted.scale)


def measure(corpus: se.Corpus, searcher: Searcher, embed: Callable[[str], np.ndarray | None],
            lever: Lever | None) -> dict:
    per: dict[str, dict[str, list[float]]] = {mode: {} for mode in MODES}
    for query in corpus.queries:
        raw = embed(query.text)
        vector = None if raw is None else unit(raw.astype(np.float64))
        if vector is not None and lever is not None:
            vector = lever(searcher, query.text, vector)
        for mode in MODES:
            pages: list[str] = []
            if vector is not None:
                results = searcher.rank(query=query.text, vector=query_codes(vector), mode=mode,
                                        top_k=corpus.top_k, filters=None, min_score=None)
                pages = list(dict.fromkeys(r.url for r in results))
            score = se.mrr_at_10(pages, query.relevant)
            for group in ("all", query.group):
                per[mode].setdefault(group, []).append(score)
    return {mode: {g: round(float(np.mean(v)), 4) for g, v in groups.items()}
            for mode, groups in per.items()}


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    vectors = corpus.vectors / np.linalg.norm(corpus.vectors, axis=1, keepdims=True)
    static = Searcher(corpus.bundle, None, encoder="static")
    model = Searcher(corpus.bundle, embedder, encoder="transformer")
    static_vector = static.static.encode

    def model_vector(text: str) -> np.ndarray:
        return embedder.embed_queries([text])[0]

    rows: dict[str, dict] = {}
    levers: dict[str, Lever | None] = {
        "shipped": None,
        f"vector feedback ({FEEDBACK} chunks, weight 1)": feedback(vectors, "vector", 1.0),
        f"hybrid feedback ({FEEDBACK} sections, weight 0.5)": feedback(vectors, "hybrid", 0.5),
    }
    for label, lever in levers.items():
        rows[label] = {"static": measure(corpus, static, static_vector, lever),
                       "transformer": measure(corpus, model, model_vector, lever)}
        print(f"{corpus.name}: {label} done", file=sys.stderr, flush=True)
    rows["token-alone blend (weight 1)"] = {
        "static": measure(corpus, static, static_vector, token_blend(embedder, 1.0))}
    rescaled = Searcher(replace(corpus.bundle, table=idf_rows(
        corpus, corpus.bundle.table, static.static.tokenizer)), encoder="static")
    rows["unit rows x IDF"] = {"static": measure(corpus, rescaled, rescaled.static.encode, None)}
    return {"queries": len(corpus.queries), "groups": corpus.groups, "levers": rows}


def render(results: dict) -> str:
    lines = ["# Query-time levers for the static encoder", "",
             f"Reproduce: `python bench/query_levers.py --sets {','.join(results['sets'])}`. "
             f"Measured {results['run']}. What "
             "each lever does is in the bench's docstring; MRR@10 by group through the "
             "product's `Searcher`. Feedback levers are measured with both encoders.", ""]
    for name, s in results["sets"].items():
        groups = ["all", *s["groups"]] if len(s["groups"]) > 1 else ["all"]
        head = " | ".join(f"{mode} {g}" for mode in MODES for g in groups)
        lines += [f"## {name} ({s['queries']} queries)", "",
                  f"| lever | encoder | {head} |", "|---|---|" + "---|" * (2 * len(groups))]
        for label, by_encoder in s["levers"].items():
            for encoder, figures in by_encoder.items():
                cells = " | ".join(f"{figures[mode][g]:.3f}" for mode in MODES for g in groups)
                lines.append(f"| {label} | {encoder} | {cells} |")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    return se.run_trial(__doc__, "query_levers", "fastapi,npm,manshort,mkdocs,postgres,python",
                        run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
