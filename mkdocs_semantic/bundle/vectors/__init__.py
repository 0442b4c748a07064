"""The bundle's vectors: int8 rows in one exact scan or in partitions probed by
centroid (`store`; the partitions' files `partition_files`, their probe `partitions`),
and the query codes both scan with (`codes`); `Vectors`, what a query reads of them."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Vectors(Protocol):
    """What a query reads of a bundle's vectors: its `VectorSet`, or an index over one
    that finds the nearest chunks (portal/nearest.py) in its place."""

    @property
    def layout(self) -> str: ...

    @property
    def dtype(self) -> str: ...

    @property
    def scale(self) -> float: ...

    @property
    def dim(self) -> int: ...

    @property
    def rows(self) -> int: ...

    def matrix(self) -> np.ndarray: ...

    def mean_score(self, query: np.ndarray) -> float: ...

    def scores(self, query: np.ndarray, *, every: bool = False,
               among: list[int] | None = None) -> np.ndarray: ...
