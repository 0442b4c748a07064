"""The reference searcher over a built bundle: the executable spec of ranking.

Vector search is an exact scan: score = (query · stored) / scale, highest first,
ties broken by chunk number. Every other reader (the browser client) must agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .bundle import Bundle, read_bundle
from .embedding import Embedder, OnnxEmbedder


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

    @classmethod
    def open(cls, path: str | Path, embedder: Embedder | None = None) -> Searcher:
        """Open a site directory or bundle directory written by the plugin."""
        return cls(read_bundle(Path(path)), embedder)

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = OnnxEmbedder(self.bundle.model_spec())
        return self._embedder

    def embed(self, query: str) -> np.ndarray:
        return self.embedder.embed_queries([query])[0]

    def search(self, query: str, *, top_k: int = 10) -> list[Result]:
        """The `top_k` sections most similar to `query`."""
        if not query.strip():
            raise ValueError("the query is empty: type a few words")
        return self.search_vector(self.embed(query), top_k=top_k)

    def scores(self, vector: np.ndarray) -> np.ndarray:
        return (self._matrix @ vector.astype(np.float32)) / np.float32(self.bundle.scale)

    def search_vector(self, vector: np.ndarray, *, top_k: int = 10) -> list[Result]:
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        scores = self.scores(vector)
        order = rank(scores)[:top_k]
        return [self._result(int(i), float(scores[i])) for i in order]

    def _result(self, chunk_id: int, score: float) -> Result:
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
        )


def rank(scores: np.ndarray) -> np.ndarray:
    """Indices by score, highest first; equal scores keep chunk order."""
    return np.argsort(-scores, kind="stable")


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
