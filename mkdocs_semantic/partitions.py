"""The partitioned vector layout (IVF): k-means partitions cut at build time, and the
nearest ones probed at query time, so that a query reads a small share of the vectors.

Build: spherical k-means (numpy, seeded, so the same vectors give the same partitions)
over the stored int8 rows; each partition keeps its chunk ids, ascending. The centroids
are stored as int8 codes with their own global scale (only their order matters).

Rebuild: given the centroids of the build before, every row goes to the nearest of them
and k-means is not run, as long as the partitions stay within `drifted`'s bounds. An
unchanged row (same int8 codes) then stays in its partition, so an edit to one page
changes only the partitions that gain or lose one of its chunks.

Query: the partitions in the order of the integer dot product of their centroid's codes
with the query's codes (ties by partition number). The first `probe` are scanned, then
the next ones while their dot product is at least half the best one, up to
`probe_max` (all of them when the caller asks, as a filtered query does): a query near
one cluster reads few partitions, an ambiguous one more. Every reader computes the same
integers, so every reader probes the same partitions.

Sizes (bench/vector_layout.py, on real vectors): partitions of about `PARTITION_ROWS`
rows, `PROBE` to `PROBE_MAX` of them per query, and the layout only from
`PARTITIONED_MIN_CHUNKS` chunks up; below that the exact scan costs little and misses
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PARTITION_ROWS = 256
"""Rows a partition holds on average (k = chunks / PARTITION_ROWS, rounded)."""
PROBE = 12
"""Partitions a query scans at least (without a filter)."""
PROBE_MAX = 96
"""Partitions a query scans at most (without a filter). With PROBE, the least that keeps
recall@10 against the exact scan at 0.98 or more at 9k, 38k and 151k chunks
(bench/vector_layout.py)."""
PARTITIONED_MIN_CHUNKS = 8192
"""`vector_layout: auto` partitions the vectors from this many chunks up."""
TRAIN_ROWS = 65536
"""k-means fits on at most this many rows (a seeded sample), then assigns every row."""
ITERATIONS = 12
SEED = 20261123
REFIT_COUNT_RATIO = 1.25
"""A rebuild fits new centroids when the partition count the size asks for and the kept
one differ by more than this factor (the site grew or shrank by about a quarter)."""
REFIT_LARGEST = 4
"""... or when the largest partition holds more than this many times PARTITION_ROWS (a fresh
fit's largest partition holds 2.9-3.6 times at 37k-150k rows: bench/vector_layout.py)."""


@dataclass(frozen=True)
class Partitions:
    """The partitioned layout of one vector set."""

    centroids: np.ndarray
    """int8 codes, one row per partition."""
    members: list[np.ndarray]
    """Per partition, its chunk ids (int64, ascending); every chunk in exactly one."""


def partition_count(rows: int, rows_per_partition: int = PARTITION_ROWS) -> int:
    return max(1, round(rows / rows_per_partition))


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms > 0, norms, 1.0)


def kmeans(vectors: np.ndarray, k: int, *, seed: int = SEED,
           iterations: int = ITERATIONS) -> np.ndarray:
    """Spherical k-means: `k` unit centroids (float32) for the rows of `vectors`.

    Starts from `k` distinct rows picked by a seeded generator; an emptied cluster takes
    the row farthest from its centroid. Assignment by the largest dot product, ties to
    the lower centroid (argmax).
    """
    data = _unit(np.asarray(vectors, dtype=np.float32))
    rng = np.random.default_rng(seed)
    k = min(k, len(data))
    if len(data) > TRAIN_ROWS:
        data = data[np.sort(rng.choice(len(data), TRAIN_ROWS, replace=False))]
    centroids = data[np.sort(rng.choice(len(data), k, replace=False))].copy()
    for _ in range(iterations):
        sims = data @ centroids.T
        nearest = sims.argmax(axis=1)
        counts = np.bincount(nearest, minlength=k)
        sums = np.zeros_like(centroids)
        order = np.argsort(nearest, kind="stable")
        present = np.flatnonzero(counts)
        firsts = np.concatenate([[0], np.cumsum(counts[present])[:-1]])
        sums[present] = np.add.reduceat(data[order], firsts, axis=0)
        best = sims[np.arange(len(data)), nearest]
        for empty in np.flatnonzero(counts == 0).tolist():
            far = int(best.argmin())
            sums[empty] = data[far]
            best[far] = np.inf
        centroids = _unit(sums)
    return centroids


def centroid_codes(centroids: np.ndarray) -> np.ndarray:
    """int8 codes of the centroids: one global scale, the largest component at 127."""
    peak = float(np.abs(centroids).max()) if centroids.size else 0.0
    scale = 127.0 / peak if peak > 0 else 1.0
    return np.clip(np.rint(centroids * scale), -127, 127).astype(np.int8)


def build_partitions(stored: np.ndarray, *, rows_per_partition: int = PARTITION_ROWS,
                     previous: np.ndarray | None = None) -> Partitions:
    """Partition the stored int8 rows; partitions left empty are dropped.

    `previous`: the centroid codes of the build before. The rows are assigned to them,
    without a new fit, unless the result has `drifted` (or they do not fit the rows).
    """
    stored = np.asarray(stored)
    if not len(stored):
        return Partitions(centroids=np.zeros((0, stored.shape[1]), np.int8), members=[])
    if previous is not None and len(previous) and previous.shape[1] == stored.shape[1]:
        kept = assign(stored, np.asarray(previous, dtype=np.int8))
        if not drifted([len(m) for m in kept.members], rows=len(stored),
                       rows_per_partition=rows_per_partition):
            return kept
    codes = centroid_codes(kmeans(stored.astype(np.float32),
                                  partition_count(len(stored), rows_per_partition)))
    return assign(stored, codes)


def assign(stored: np.ndarray, codes: np.ndarray) -> Partitions:
    """Each row to the centroid its codes score highest with, in integers (the rule a
    reader's probe follows; ties to the lower centroid); empty partitions dropped."""
    nearest = np.concatenate([
        (block.astype(np.int32) @ codes.T.astype(np.int32)).argmax(axis=1)
        for block in np.array_split(stored, max(1, len(stored) // 16384))
    ])
    counts = np.bincount(nearest, minlength=len(codes))
    # Grouped by partition once; a stable sort keeps each group's ids ascending.
    groups = np.split(np.argsort(nearest, kind="stable"), np.cumsum(counts)[:-1])
    kept = np.flatnonzero(counts)
    return Partitions(centroids=codes[kept], members=[groups[c] for c in kept])


def drifted(sizes: list[int], *, rows: int, rows_per_partition: int = PARTITION_ROWS) -> bool:
    """Whether partitions of these `sizes`, kept from an earlier fit, have drifted far
    enough from what a fresh fit would give that it is time to fit again."""
    wanted = partition_count(rows, rows_per_partition)
    return (max(len(sizes), wanted) > REFIT_COUNT_RATIO * min(len(sizes), wanted)
            or max(sizes, default=0) > REFIT_LARGEST * rows_per_partition)


def probe_order(centroids: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Partition numbers, nearest first (integer dot product descending, ties by number),
    and each partition's dot product."""
    dots = centroids.astype(np.int64) @ np.asarray(codes).astype(np.int64)
    return np.lexsort((np.arange(len(dots)), -dots)), dots


def probed(centroids: np.ndarray, codes: np.ndarray, *, probe: int, probe_max: int,
           every: bool = False) -> list[int]:
    """The partitions a query scans, nearest first: the first `probe`, then the next ones
    while twice their dot product reaches the best one, `probe_max` at most; all of
    them when `every`."""
    order, dots = probe_order(centroids, codes)
    if every:
        return order.tolist()
    count = min(probe, len(order))
    best = int(dots[order[0]]) if len(order) else 0
    while count < min(probe_max, len(order)) and 2 * int(dots[order[count]]) >= best:
        count += 1
    return order[:count].tolist()
