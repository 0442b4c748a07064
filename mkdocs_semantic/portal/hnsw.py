"""An HNSW graph (usearch) over one site's chunk vectors, standing in for the bundle's
vector set when a query scores chunks: the graph finds the nearest `VECTOR_CHUNKS`
chunks, each scored exactly as the bundle scores it, so the fusion above it is the same
code every other reader runs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..bundle.format import BundleError
from ..bundle.vectors import Vectors
from ..constants import VECTOR_CHUNKS
from .nearest import NearestVectors

METRIC = "ip"
"""Inner product: usearch's distance is 1 - dot, exact for int8 rows and codes (every
dot of 384 int8 products is an integer below 2**24, held exactly in float32)."""
DTYPES = {"i8": "i8", "f16": "f16", "f32": "f32"}
"""The graph stores the bundle's own scalars: no second rounding of the vectors."""


class HnswError(BundleError):
    """A graph file that cannot be read, or that does not fit its site's bundle."""


@dataclass(frozen=True)
class HnswSettings:
    """The graph's shape (usearch's names): edges per node, and the candidate lists kept
    while adding and while searching (a query keeps at least `VECTOR_CHUNKS`)."""

    connectivity: int = 16
    expansion_add: int = 64
    expansion_search: int = 256


def usearch_index_class():
    """usearch's `Index`, imported after onnxruntime: the other order crashes the process
    when onnxruntime is imported later (usearch 2.26, onnxruntime 1.31)."""
    import onnxruntime  # noqa: F401
    from usearch.index import Index

    return Index


def build_hnsw(vectors: Vectors, path: Path, settings: HnswSettings, *,
               progress: Callable[[int, int], None] | None = None) -> int:
    """Write the graph of every chunk's vector (key: its chunk number) to `path`;
    returns how many chunks it holds. `progress(done, total)` is called as it grows."""
    return write_graph(vectors.matrix(), DTYPES[vectors.dtype], path, settings,
                       progress=progress)


def write_graph(rows: np.ndarray, dtype: str, path: Path, settings: HnswSettings, *,
                progress: Callable[[int, int], None] | None = None) -> int:
    """Write the graph of `rows` (key: row number, scalars `dtype`) to `path`."""
    index_class = usearch_index_class()
    index = index_class(ndim=rows.shape[1], metric=METRIC, dtype=dtype,
                        connectivity=settings.connectivity,
                        expansion_add=settings.expansion_add,
                        expansion_search=settings.expansion_search)
    if len(rows):
        def report(done: int, total: int) -> bool:
            if progress is not None:
                progress(done, total)
            return True

        # usearch checks the callback's annotations as types, not as strings
        report.__annotations__ = {"done": int, "total": int, "return": bool}
        # one thread: a graph added to from several threads at once now and then leaves a
        # chunk no search reaches (1 build in 10 on a 58-chunk bundle); one thread never
        # did in 30, and builds the same graph every time
        index.add(np.arange(len(rows), dtype=np.uint64), rows, threads=1, progress=report)
    index.save(str(path))
    return len(rows)


class HnswVectors(NearestVectors):
    """The bundle's vectors with the graph finding the nearest chunks."""

    layout = "hnsw"

    def __init__(self, exact: Vectors, index, *, expansion_search: int) -> None:
        super().__init__(exact)
        self.index = index
        index.expansion_search = max(expansion_search, VECTOR_CHUNKS)

    def nearest(self, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        found = self.index.search(np.asarray(query, dtype=DTYPES_NUMPY[self.dtype]), count)
        return (np.asarray(found.keys, dtype=np.int64),
                1.0 - np.asarray(found.distances, dtype=np.float64))


DTYPES_NUMPY = {"i8": np.int8, "f16": np.float16, "f32": np.float32}


def open_hnsw(path: Path, exact: Vectors, *, expansion_search: int) -> HnswVectors:
    """The graph at `path`, memory-mapped, over the bundle's vectors `exact`."""
    index_class = usearch_index_class()
    try:
        index = index_class.restore(str(path), view=True)
    except (OSError, RuntimeError, ValueError) as exc:
        raise HnswError(f"{path} is not a readable HNSW graph ({exc}): load the site "
                        "again") from exc
    if index is None:
        raise HnswError(f"{path} is not an HNSW graph: load the site again")
    if index.size != exact.rows or index.ndim != exact.dim:
        raise HnswError(f"{path} holds {index.size} vectors of {index.ndim} dimensions, "
                        f"its site {exact.rows} of {exact.dim}: load the site again")
    return HnswVectors(exact, index, expansion_search=expansion_search)
