"""The reference searcher over a built bundle: the executable spec of ranking.

Vector score: (query · stored) / scale, an exact scan. Lexical score: the sum of
the query terms' quantized BM25 (see `lexical.py`). Both rankings go through the
page-aware reciprocal rank fusion of `ranking.py`; `mode` picks which take part.
Every other reader (the browser client) must return the same top-k.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bundle import Bundle, read_bundle
from .embedding import Embedder, OnnxEmbedder
from .ranking import chunk_order, fuse, size_priors

MODES = ("hybrid", "vector", "lexical")
MAX_TOP_K = 1000


@dataclass
class Result:
    """One ranked section."""

    chunk_id: int
    url: str
    anchor: str
    title: str
    path: list[str]
    excerpt: str
    score: float
    kind: str
    section: str
    vector_score: float | None
    lexical_score: float | None

    @property
    def href(self) -> str:
        """Link relative to the site root, with the section's anchor."""
        return f"{self.url}#{self.anchor}" if self.anchor else self.url


class Searcher:
    """Answers queries from one bundle, embedding them with the bundle's own model."""

    def __init__(self, bundle: Bundle, embedder: Embedder | None = None) -> None:
        self.bundle = bundle
        self._embedder = embedder
        # Integer-valued float32 keeps the dot products exact up to the final division.
        self._matrix = bundle.vectors.astype(np.float32)
        pages: dict[str, int] = {}
        self._page_of_chunk = np.array(
            [pages.setdefault(c.url, len(pages)) for c in bundle.chunks], dtype=np.int64)
        self._boosts = np.ones(len(pages))
        for chunk, page in zip(bundle.chunks, self._page_of_chunk):
            self._boosts[page] = chunk.boost
        self._priors = size_priors(self._page_of_chunk, len(pages))
        self._anchors = [c.anchor for c in bundle.chunks]

    @classmethod
    def open(cls, path: str | Path, embedder: Embedder | None = None) -> Searcher:
        """Open a site directory or bundle directory written by the plugin."""
        return cls(read_bundle(Path(path)), embedder)

    @property
    def defaults(self) -> dict:
        return self.bundle.manifest.search

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = OnnxEmbedder(self.bundle.model_spec())
        return self._embedder

    def embed(self, query: str) -> np.ndarray:
        return self.embedder.embed_queries([query])[0]

    def scores(self, vector: np.ndarray) -> np.ndarray:
        return (self._matrix @ vector.astype(np.float32)) / np.float32(self.bundle.scale)

    def search(self, query: str, *, top_k: int | None = None, mode: str | None = None,
               filters: dict[str, list[str]] | None = None,
               min_score: float | None = None) -> list[Result]:
        """The best sections for `query`; unset options take the bundle's defaults."""
        if not query.strip():
            raise ValueError("the query is empty: type a few words")
        mode = mode or self.defaults["mode"]
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}: use one of {', '.join(MODES)}")
        vector = self.embed(query) if mode != "lexical" else None
        return self.rank(query=query, vector=vector, mode=mode, top_k=top_k, filters=filters,
                         min_score=min_score)

    def search_vector(self, vector: np.ndarray, *, top_k: int = 10) -> list[Result]:
        """Plain exact nearest chunks for an already embedded query: score descending,
        ties by chunk number; no filters, no page-aware fusion."""
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        scores = self.scores(vector)
        order = np.lexsort((np.arange(len(scores)), -scores))[:top_k]
        return [self._result(int(i), float(scores[i]), scores, None) for i in order]

    def rank(self, *, query: str, vector: np.ndarray | None, mode: str, top_k: int | None,
             filters: dict[str, list[str]] | None, min_score: float | None) -> list[Result]:
        top_k = self.defaults["top_k"] if top_k is None else top_k
        if not 1 <= top_k <= MAX_TOP_K:
            raise ValueError(f"top_k must be between 1 and {MAX_TOP_K}, got {top_k}")
        if min_score is None:
            min_score = self.defaults.get("min_score")
        eligible = self.filter_mask(filters)
        orders: list[np.ndarray] = []
        vector_scores = lexical_scores = None
        if mode in ("hybrid", "vector") and vector is not None:
            vector_scores = self.scores(vector)
            passing = eligible if min_score is None else eligible & (vector_scores >= min_score)
            orders.append(chunk_order(vector_scores, passing))
        if mode in ("hybrid", "lexical"):
            lexical_scores = self.bundle.lexical.scores(query)
            orders.append(chunk_order(lexical_scores, eligible & (lexical_scores > 0)))
        fused = fuse(orders, page_of_chunk=self._page_of_chunk, anchors=self._anchors,
                     priors=self._priors,
                     boosts=self._boosts, rrf_k=int(self.defaults["rrf_k"]), top_k=top_k)
        return [self._result(r.chunk, r.page_score, vector_scores, lexical_scores)
                for r in fused]

    def filter_mask(self, filters: dict[str, list[str]] | None) -> np.ndarray:
        """Chunks whose page matches every filter key (any of that key's values)."""
        chunks = self.bundle.chunks
        mask = np.ones(len(chunks), dtype=bool)
        allowed = self.defaults.get("filters", ["section"])
        for key, wanted in (filters or {}).items():
            if key not in allowed:
                raise ValueError(f"unknown filter {key!r}: this bundle has "
                                 f"{', '.join(allowed)}")
            values = set(wanted)
            mask &= np.array([bool(values & set(_facet(c, key))) for c in chunks], dtype=bool)
        return mask

    def _result(self, chunk_id: int, score: float, vector_scores: np.ndarray | None,
                lexical_scores: np.ndarray | None) -> Result:
        chunk = self.bundle.chunks[chunk_id]
        return Result(
            chunk_id=chunk_id,
            url=chunk.url,
            anchor=chunk.anchor,
            title=chunk.title,
            path=list(chunk.path),
            excerpt=chunk.excerpt,
            score=score,
            kind=chunk.kind,
            section=chunk.section,
            vector_score=None if vector_scores is None else float(vector_scores[chunk_id]),
            lexical_score=None if lexical_scores is None else
            float(lexical_scores[chunk_id]) / self.bundle.lexical.scale,
        )


def _facet(chunk, key: str) -> list[str]:
    return [chunk.section] if key == "section" else chunk.facets.get(key, [])


def main(argv: list[str] | None = None) -> int:
    """`python -m mkdocs_semantic.search SITE_DIR QUERY...`: print the top sections."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2:
        print("usage: python -m mkdocs_semantic.search SITE_DIR QUERY...", file=sys.stderr)
        return 2
    searcher = Searcher.open(args[0])
    for result in searcher.search(" ".join(args[1:]), top_k=5):
        heading = " > ".join([result.title, *result.path])
        print(f"{result.score:6.3f}  {result.href:<50}  {heading}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
