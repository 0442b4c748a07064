"""The partitioned vector layout (IVF with sign codes): k-means partitions cut at build
time; a query ranks them by a coarse code, scans the nearest with one bit per dimension,
and scores its best candidates exactly, so that it reads a small share of the vectors.

Build: spherical k-means (numpy, seeded, so the same vectors give the same partitions)
over the stored int8 rows, partitions of about `PARTITION_ROWS` rows; each keeps its
chunk ids, ascending. The centroids are stored as int8 codes with their own global
scale; readers get only their sign bits.

Rebuild: given the centroids of the build before, every row goes to the nearest of them
and k-means is not run, as long as the partitions stay within `drifted`'s bounds. An
unchanged row (same int8 codes) then stays in its partition, so an edit to one page
changes only the partitions that gain or lose one of its chunks.

Query (int8 codes q), in integers every reader computes alike:

1. rank the partitions by the sign score of their centroid (`sign_scores`: the sum of
   q_i over the dimensions where the centroid is not negative, minus the sum over the
   others), ties by partition number;
2. probe them in that order until they hold at least `PROBE_ROWS` chunks (`probed`);
3. give every stored row of the probed partitions its sign score, from one bit per
   dimension (a partition stores each distinct row once: copies share it);
4. take the best `CANDIDATES` rows by sign score (ties by a row's first chunk) and score
   them exactly (the int8 dot product, as the exact layout does), reading the int8 rows
   of the blocks they lie in; every chunk with one of those rows gets its score, no
   other chunk gets one.

A partition's rows are stored in blocks of about `ROWS_BLOCK` rows, k-means clusters of
its rows (`row_blocks`), a file each: a query's candidates in a partition are the rows
nearest it, which cluster, so it reads the blocks holding them rather than every row of
the partition.

The sign score of a row is a coarse stand-in for its dot product: on real vectors the
true top 10 is among the best 100 by sign score 99 times in 100 (bench/vector_layout.py),
so the exact scores of those 100 give the ranking the exact layout gives, while a
query reads 6 bytes of sign bits per row it probes and the int8 rows of only the few
partitions its candidates lie in. The fusion takes the vector signal's first 100 chunks
in every layout (ranking.VECTOR_CHUNKS).

Sizes (bench/vector_layout.py): partitions of about `PARTITION_ROWS` rows, `PROBE_ROWS`
rows probed, the layout once the int8 vectors pass `PARTITIONED_MIN_BYTES`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PARTITION_ROWS = 64
"""Rows a partition holds on average (k = chunks / PARTITION_ROWS, rounded). Small
partitions follow a query's neighbours closely; their sign-bit centroids keep the cost
of ranking many of them small (48 bytes each at dim 384)."""
PROBE_ROWS = 4096
"""Rows a query probes at least: partitions are probed in order until they hold this many."""
CANDIDATES = 100
"""Rows a query scores exactly: the best by sign score among the probed rows."""
ROWS_BLOCK = 2
"""Rows a rows file holds on average (a partition of d distinct rows has round(d / 2)
blocks, at least one). A query's 100 candidates lie in some 25 partitions, a few in
each, so small blocks read few rows besides them; a block costs its bits file one byte
(two past 255 rows) and a reader one more file (docs/decisions/row-blocks.md)."""
PARTITIONED_MIN_BYTES = 256 << 10
"""`vector_layout: auto` partitions int8 vectors from this many bytes up (683 chunks at
dim 384), where a first query's sign bits and candidate rows come to less than every
vector (48 bytes a row and some 60-85 kB of rows, against 384 bytes a row)."""
TRAIN_ROWS = 65536
"""k-means fits on at most this many rows (a seeded sample), then assigns every row."""
ITERATIONS = 12
SEED = 20261123
REFIT_COUNT_RATIO = 1.25
"""A rebuild fits new centroids when the partition count the size asks for and the kept
one differ by more than this factor (the site grew or shrank by about a quarter)."""
REFIT_LARGEST = 12
"""... or when the largest partition holds more than this many times PARTITION_ROWS (a
fresh fit's largest holds 3 to 10 times at 9k-150k rows: bench/vector_layout.py)."""


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


def sign_bits(rows: np.ndarray) -> np.ndarray:
    """One bit per dimension (set where the value is not negative), packed least
    significant bit first: row i's bit d is bit d % 8 of byte d // 8 (uint8, n x
    ceil(dim / 8))."""
    return np.packbits(np.asarray(rows) >= 0, axis=1, bitorder="little")


def sign_scores(bits: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The sign score of each row of `bits` for the query's int8 `codes`: the sum of
    codes over the dimensions whose bit is set, minus the sum over the others (int64)."""
    codes = np.asarray(codes, dtype=np.int64)
    if not len(bits):
        return np.zeros(0, dtype=np.int64)
    signs = np.unpackbits(bits, axis=1, count=len(codes), bitorder="little")
    return 2 * (signs.astype(np.int64) @ codes) - int(codes.sum())


def probe_order(centroid_bits: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Partition numbers by their centroid's sign score, best first (ties by number)."""
    scores = sign_scores(centroid_bits, codes)
    return np.lexsort((np.arange(len(scores)), -scores))


def probed(centroid_bits: np.ndarray, sizes: np.ndarray, codes: np.ndarray, *,
           probe_rows: int) -> list[int]:
    """The partitions a query probes, nearest first: in `probe_order` until they hold at
    least `probe_rows` rows (all of them on a smaller set)."""
    order = probe_order(centroid_bits, codes)
    held = np.cumsum(np.asarray(sizes, dtype=np.int64)[order])
    return order[:int(np.searchsorted(held, probe_rows)) + 1].tolist()


def row_blocks(rows: np.ndarray, *, rows_per_block: int = ROWS_BLOCK) -> np.ndarray:
    """Each of a partition's distinct rows' block: seeded spherical k-means into
    round(len / rows_per_block) blocks (at least one), assignment as in `kmeans`, the
    blocks numbered in the order of their first row; none is empty."""
    rows = np.asarray(rows)
    count = max(1, round(len(rows) / rows_per_block))
    if count == 1:
        return np.zeros(len(rows), dtype=np.int64)
    data = _unit(rows.astype(np.float32))
    nearest = (data @ kmeans(data, count).T).argmax(axis=1)
    _, first, inverse = np.unique(nearest, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[np.asarray(inverse).ravel()]


def best_rows(ids: np.ndarray, scores: np.ndarray, count: int) -> np.ndarray:
    """The `count` best rows by sign score, ties by chunk number (a row's first chunk):
    their positions."""
    return np.lexsort((ids, -scores))[:count]
