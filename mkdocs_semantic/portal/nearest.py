"""The bundle's vector set as a query sees it, with an index of one kind or another
finding the nearest chunks: each found chunk carries the bundle's exact score, so the
fusion above it is the same code every reader runs."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from ..bundle.vectors import Vectors
from ..bundle.vectors.codes import codes_norm
from ..constants import VECTOR_CHUNKS


class NearestVectors(ABC):
    """`VectorSet`'s query side: `scores` holds the exact score of the `VECTOR_CHUNKS`
    chunks that `nearest` finds and NaN elsewhere; a filtered query (`every`) and the
    mean score come from the bundle's own vectors. `layout` names the index."""

    layout = "nearest"

    def __init__(self, exact: Vectors) -> None:
        self.exact = exact

    @property
    def dtype(self) -> str:
        return self.exact.dtype

    @property
    def scale(self) -> float:
        return self.exact.scale

    @property
    def dim(self) -> int:
        return self.exact.dim

    @property
    def rows(self) -> int:
        return self.exact.rows

    def matrix(self) -> np.ndarray:
        return self.exact.matrix()

    def mean_score(self, query: np.ndarray) -> float:
        return self.exact.mean_score(query)

    @abstractmethod
    def nearest(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The `count` nearest chunks' numbers and their inner products with `query`."""

    def scores(self, query: np.ndarray, *, every: bool = False,
               among: list[int] | None = None) -> np.ndarray:
        """As `VectorSet.scores`; without `every`, the nearest chunks only."""
        if every:
            return self.exact.scores(query, every=True)
        scores = np.full(self.rows, np.nan)
        if not self.rows:
            return scores
        chunks, dots = self.nearest(query, min(VECTOR_CHUNKS, self.rows))
        if self.dtype == "i8":
            norm = codes_norm(np.asarray(query, dtype=np.int8))
            divisor = self.scale * norm if norm else 1.0
            dots = np.rint(dots)  # integer dot products, carried exactly in float32
        else:
            divisor = self.scale
        scores[chunks] = dots / divisor
        return scores
