"""Trial: query words close together in a chunk count more (the typing issue's nearness).

The bundle's keyword score of a chunk is the sum of its query terms' BM25; where they
lie in the chunk plays no part. Here a chunk holding two or more distinct query terms
has its keyword score multiplied by 1 + `weight` x nearness, nearness being (terms
held - 1) / (shortest stretch of the chunk's terms holding them all - 1): 1 when they
stand side by side, small when they are far apart. The best possible keyword score
grows by the same 1 + `weight`, so the fusion's ceiling still holds. Terms and their
positions come from the chunk's text read by the index's own analyzer (title and
headings left out: the trial asks whether word distance helps at all). Everything else
is the product's own ranking.

Measured on every site set, by query subset, hybrid and keyword MRR@10, the static
encoder and the model.

    python bench/nearness.py [--sets fastapi,mkdocs,manpages,npm,manshort,postgres,python]

Writes bench/results/nearness.{json,md}.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import static_encoder as se  # noqa: E402
from readers_typing import ENCODERS  # noqa: E402

from mkdocs_semantic.bundle.lexical import analyze  # noqa: E402
from mkdocs_semantic.model.onnx import OnnxEmbedder  # noqa: E402
from mkdocs_semantic.search.searcher import Searcher  # noqa: E402

WEIGHTS = (0.25, 0.5, 1.0)


def shortest_span(positions: list[list[int]]) -> int:
    """The length of the shortest stretch holding one position of every list."""
    events = sorted((p, i) for i, ps in enumerate(positions) for p in ps)
    need, held, start, best = len(positions), {}, 0, len(events) and events[-1][0] + 1
    for p, i in events:
        held[i] = held.get(i, 0) + 1
        while len(held) == need:
            first, j = events[start]
            best = min(best, p - first + 1)
            held[j] -= 1
            if not held[j]:
                del held[j]
            start += 1
    return best


class NearIndex:
    """The bundle's keyword index, each chunk's score raised by its query terms' nearness."""

    def __init__(self, index, chunks, weight: float) -> None:
        self.index = index
        self.chunks = chunks
        self.weight = weight
        self.terms: dict[int, dict[str, list[int]]] = {}

    def __getattr__(self, name: str):
        return getattr(self.index, name)

    def positions(self, chunk: int) -> dict[str, list[int]]:
        if chunk not in self.terms:
            where: dict[str, list[int]] = {}
            for at, term in enumerate(analyze(self.chunks[chunk].text)):
                where.setdefault(term, []).append(at)
            self.terms[chunk] = where
        return self.terms[chunk]

    def nearness(self, chunk: int, wanted: list[str]) -> float:
        where = self.positions(chunk)
        held = [where[t] for t in wanted if t in where]
        if len(held) < 2:
            return 0.0
        return (len(held) - 1) / (shortest_span(held) - 1)

    def scores(self, query: str, *, full: bool = False) -> np.ndarray:
        base = np.asarray(self.index.scores(query, full=full), dtype=np.float64)
        wanted = list(dict.fromkeys(analyze(query)))
        if len(wanted) < 2:
            return base
        out = base.copy()
        for chunk in np.flatnonzero(base > 0).tolist():
            out[chunk] *= 1 + self.weight * self.nearness(chunk, wanted)
        return out

    def possible(self, query: str) -> float:
        return self.index.possible(query) * (1 + self.weight)


def mrr(corpus: se.Corpus, searcher: Searcher, queries: list[se.Query], mode: str) -> float:
    total = 0.0
    for query in queries:
        results = searcher.search(query.text, mode=mode, top_k=corpus.top_k)
        total += se.mrr_at_10(list(dict.fromkeys(r.url for r in results)), query.relevant)
    return round(total / len(queries), 4) if queries else 0.0


def run_set(corpus: se.Corpus, name: str, embedder: OnnxEmbedder) -> dict:
    groups = {"all": corpus.queries}
    for query in corpus.queries:
        groups.setdefault(query.group, []).append(query)
    shipped = corpus.bundle.lexical
    variants = {"shipped": shipped,
                **{f"nearness x {w}": NearIndex(shipped, corpus.chunks, w) for w in WEIGHTS}}
    out: dict = {"queries": {g: len(q) for g, q in groups.items()}, "rows": {}}
    for encoder in ENCODERS:
        searcher = Searcher(corpus.bundle, embedder if encoder == "transformer" else None,
                            encoder=encoder)
        for label, index in variants.items():
            corpus.bundle.lexical = index
            try:
                modes = ("hybrid",) if encoder != "static" else ("hybrid", "lexical")
                for mode in modes:
                    key = "keyword" if mode == "lexical" else f"hybrid, {encoder}"
                    out["rows"].setdefault(key, {})[label] = {
                        g: mrr(corpus, searcher, q, mode) for g, q in groups.items()}
            finally:
                corpus.bundle.lexical = shipped
    return out


def render(results: dict) -> str:
    lines = ["# Trial: query words close together count more", "",
             f"Reproduce: `python bench/nearness.py`. Measured {results['run']}. MRR@10 by "
             "query subset; the rule is in the bench's docstring.", "",
             "| set | ranking | variant | subsets (queries): MRR@10 |", "|---|---|---|---|"]
    for name, s in results["sets"].items():
        for ranking, variants in s["rows"].items():
            for label, by_group in variants.items():
                cells = ", ".join(f"{g} ({s['queries'][g]}) {v:.3f}" for g, v in by_group.items())
                lines.append(f"| {name} | {ranking} | {label} | {cells} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    return se.run_trial(__doc__, "nearness", "fastapi,mkdocs,manpages,npm,manshort,postgres,python",
                        run_set, render)


if __name__ == "__main__":
    raise SystemExit(main())
