"""The stored chunk vectors: their payload files, and scoring a query where they lie.

Two layouts (bundle format 11):

- exact: `vectors/vec.<h>.<dtype>`, parts of whole pages in chunk order, raw
  little-endian rows; every query scores every row.
- partitioned (int8 only): an index, and per partition a bits file and a pack of its
  rows; their bytes are bundle/vectors/partition_files.py's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from ..format import VECTOR_PART_BYTES, BundleError
from ..load_once import LoadOnce, in_parallel
from ..names import PayloadError, group_by_size, verify
from ..quantize import DTYPES, Quantized
from . import partitions
from .blocks import (
    blocked_rows,
    rows_file_bytes,
    rows_hash,
    rows_pack,
    rows_pack_name,
    split_blocks,
)
from .partition_files import (
    Partition,
    bin_bytes,
    bits_files_of,
    chunk_id_bytes,
    parse_index,
    parse_partition,
    partition_bytes,
)


@dataclass
class VectorSet:
    """Stored chunk vectors, scored where they lie (no copy of the whole set).

    Exact layout: `parts` of whole pages in chunk order. Partitioned: `partitions`
    (None where not read yet: a bundle downloaded without them reads each on first use),
    their row counts `sizes`, their centroids' sign bits, and the probe's settings.
    """

    dtype: str
    scale: float
    dim: int
    parts: list[np.ndarray] = field(default_factory=list)
    column_sums: np.ndarray | None = None
    """Each dimension's sum over every stored row (int64 for i8, float64 otherwise), as
    the catalog lists it: the mean score of a query over every chunk follows from it
    exactly, whatever the layout (`mean_score`)."""
    partitions: list[Partition | None] | None = None
    bits_files: list[str] = field(default_factory=list)
    """Partitioned: each partition's bits file (its rows files' names are inside it)."""
    sizes: np.ndarray | None = None
    centroid_bits: np.ndarray | None = None
    probe_rows: int = 0
    candidates: int = 0
    read_partition: Callable[[int], Partition] | None = None
    """Partitioned: reads partition p's bits file (when `partitions[p]` is None)."""
    read_rows: Callable[[Partition, int], np.ndarray] | None = None
    """Partitioned: reads a partition's block j of rows (rows x dim int8)."""
    _loads: LoadOnce = field(default_factory=LoadOnce, repr=False, compare=False)

    @property
    def layout(self) -> str:
        return "exact" if self.partitions is None else "partitioned"

    @property
    def rows(self) -> int:
        if self.partitions is None:
            return sum(len(p) for p in self.parts)
        return int(self.sizes.sum()) if self.sizes is not None else 0

    def partition(self, number: int) -> Partition:
        """Partition `number`, its bits file read on first use."""
        held, read = self.partitions, self.read_partition
        assert held is not None  # only partitioned sets have partitions
        part = held[number]
        if part is None:
            assert read is not None  # a set whose partitions are left unread can read them
            part = held[number] = self._loads.get(("bits", number), partial(read, number))
        return part

    def block_rows(self, number: int, block: int) -> np.ndarray:
        """Block `block` of partition `number`'s int8 rows, its rows file read on first
        use."""
        part = self.partition(number)
        rows, read = part.block_data[block], self.read_rows
        if rows is None:
            assert read is not None  # a set whose rows are left unread can read them
            rows = part.block_data[block] = self._loads.get(("rows", number, block),
                                                            partial(read, part, block))
        return rows

    def partition_rows(self, number: int) -> np.ndarray:
        """Partition `number`'s int8 rows, in row order (every block read)."""
        self._read_blocks([(number, b) for b in range(len(self.partition(number).blocks))])
        return np.concatenate([self.block_rows(number, b)
                               for b in range(len(self.partition(number).blocks))])

    def _read_together(self, numbers: list[int]) -> None:
        """Partitions' bits files not read yet, read at the same time."""
        held = self.partitions
        assert held is not None  # only partitioned sets have partitions
        in_parallel(partial(self.partition, n) for n in numbers if held[n] is None)

    def _read_blocks(self, wanted: list[tuple[int, int]]) -> None:
        """(partition, block) rows files not read yet, read at the same time."""
        in_parallel(partial(self.block_rows, n, b) for n, b in wanted
                    if self.partition(n).block_data[b] is None)

    def matrix(self) -> np.ndarray:
        """All rows as one array in chunk order (a copy; for tools and tests, not for
        every query)."""
        if self.partitions is None:
            if not self.parts:
                return np.zeros((0, self.dim), dtype=DTYPES[self.dtype])
            return np.concatenate(self.parts)
        out = np.zeros((self.rows, self.dim), dtype=np.int8)
        for number in range(len(self.partitions)):
            part = self.partition(number)
            out[part.ids] = self.partition_rows(number)[part.row_numbers]
        return out

    def probed(self, codes: np.ndarray) -> list[int]:
        """Partitioned: the partitions a query probes, nearest first."""
        assert self.centroid_bits is not None and self.sizes is not None
        return partitions.probed(self.centroid_bits, self.sizes, codes,
                                 probe_rows=self.probe_rows)

    def ranked_candidates(self, codes: np.ndarray) -> tuple[list[int], np.ndarray,
                                                             np.ndarray]:
        """Partitioned: the partitions a query probes (probe order), the first chunk of
        each of their rows (concatenated in that order), and the positions there of its
        candidates, the best distinct rows by sign score, best first, ties by first chunk
        (partitions.py, steps 1-4)."""
        numbers = self.probed(codes)
        self._read_together(numbers)
        probed = [self.partition(p) for p in numbers]
        if not probed:
            return numbers, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        firsts = np.concatenate([p.first_chunks for p in probed])
        scores = partitions.sign_scores(np.concatenate([p.bits for p in probed]), codes)
        return numbers, firsts, partitions.best_rows(firsts, scores, self.candidates)

    def candidate_rows(self, codes: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """Partitioned: the rows a query scores exactly (`ranked_candidates`), as
        (partition number, ascending row numbers in it) for each probed partition
        holding one, in probe order."""
        numbers, _, ranked = self.ranked_candidates(codes)
        if not numbers:
            return []
        best = np.sort(ranked)
        probed = [self.partition(p) for p in numbers]
        starts = np.cumsum([0] + [len(p.bits) for p in probed])
        owner = np.searchsorted(starts, best, side="right") - 1
        return [(numbers[k], best[owner == k] - starts[k]) for k in np.unique(owner).tolist()]

    def candidate_blocks(self, holding: list[tuple[int, np.ndarray]]) -> list[tuple[int, int]]:
        """Partitioned: (partition, block) of each rows file holding the rows `holding`
        names (`candidate_rows`), the files a query reads for its candidates."""
        return [(number, block) for number, at in holding
                for block in np.unique(self.partition(number).block_of(at)).tolist()]

    def candidate_ids(self, codes: np.ndarray) -> np.ndarray:
        """Partitioned: the chunk numbers whose rows are `candidate_rows`."""
        held = [part.ids[np.isin(part.row_numbers, at)]
                for part, at in ((self.partition(n), at) for n, at in self.candidate_rows(codes))]
        return np.concatenate(held) if held else np.zeros(0, dtype=np.int64)

    def mean_score(self, query: np.ndarray) -> float:
        """The query's mean score over every stored row, from the column sums: for int8
        the exact integer dot product of the codes with the sums / (rows * (scale *
        |codes|)); for f16/f32 the dot product summed in dimension order, / rows /
        scale. The same arithmetic as scan.js's meanScore."""
        rows = self.rows
        if not rows:
            return 0.0
        if self.dtype == "i8":
            from .codes import codes_norm

            norm = codes_norm(np.asarray(query, dtype=np.int8))
            exact = int(np.asarray(query, dtype=np.int64)
                        @ np.asarray(self.column_sums, dtype=np.int64))
            return float(exact) / (rows * (self.scale * norm if norm else 1.0))
        dot = 0.0
        for s, q in zip(np.asarray(self.column_sums, dtype=np.float64).tolist(),
                        np.asarray(query, dtype=np.float64).tolist()):
            dot += s * q
        return dot / rows / self.scale

    def scores(self, query: np.ndarray, *, every: bool = False,
               among: list[int] | None = None) -> np.ndarray:
        """Score of every row, in chunk order; NaN where the row was not scored (in the
        partitioned layout, every row but the query's candidates). `every`: score every
        row exactly, whatever the layout; `among` (partitioned, with `every`): only the
        rows of these partitions (a filtered query's: those holding an eligible chunk).

        int8: `query` is int8 codes (query_encoder.query_codes); the score is the exact
        integer dot product / (scale * |codes|). f16/f32: a float query, (rows . query) /
        scale. Each part is widened on its own, so a query never copies the whole set.
        """
        if self.dtype != "i8":
            if not self.parts:
                return np.zeros(0)
            vector = np.asarray(query, dtype=np.float32)
            return np.concatenate([p.astype(np.float32) @ vector
                                   for p in self.parts]).astype(np.float64) / self.scale
        from .codes import codes_norm

        codes = np.asarray(query, dtype=np.int8)
        norm = codes_norm(codes)
        divisor = self.scale * norm if norm else 1.0
        if self.partitions is None:
            if not self.parts:
                return np.zeros(0)
            return np.concatenate([int8_dots(p, codes, self.dim) for p in self.parts]) / divisor
        scores = np.full(self.rows, np.nan)
        if every:
            numbers = list(range(len(self.partitions))) if among is None else list(among)
            self._read_together(numbers)
            self._read_blocks([(n, b) for n in numbers
                               for b in range(len(self.partition(n).blocks))])
            for number in numbers:
                part = self.partition(number)
                dots = int8_dots(self.partition_rows(number), codes, self.dim) / divisor
                scores[part.ids] = dots[part.row_numbers]
            return scores
        holding = self.candidate_rows(codes)
        self._read_blocks(self.candidate_blocks(holding))
        for number, at in holding:
            part = self.partition(number)
            dots = np.full(len(part.bits), np.nan)
            blocks = part.block_of(at)
            for block in np.unique(blocks).tolist():
                rows = at[blocks == block]
                local = rows - part.block_starts[block]
                dots[rows] = int8_dots(self.block_rows(number, block)[local], codes,
                                       self.dim) / divisor
            chosen = np.isin(part.row_numbers, at)
            scores[part.ids[chosen]] = dots[part.row_numbers[chosen]]
        return scores


def int8_dots(rows: np.ndarray, codes: np.ndarray, dim: int) -> np.ndarray:
    """Exact integer dot products of int8 rows with int8 codes, as float64."""
    # float32 sums int8 products exactly while |dot| < 2**24 (dim up to 1040), and
    # BLAS makes it ~3x faster than usearch's exact int8 search
    # (docs/decisions/exact-int8-scan.md)
    wide = np.float32 if dim * 127 * 128 < 1 << 24 else np.int64
    return (np.asarray(rows).astype(wide) @ codes.astype(wide)).astype(np.float64)


# --- writing -------------------------------------------------------------------------

def write_vectors(put: Callable[[str, str, str, bytes], list], stored: Quantized,
                  starts: np.ndarray, *, row_bytes: int, layout: str,
                  put_checked: Callable[[str, bytes], int],
                  previous: np.ndarray | None = None) -> tuple[dict, np.ndarray | None]:
    """Write the vector payloads; returns the vector set's layout fields for the catalog
    (`exact` parts by page, or `partitioned`: when `layout` is `auto`, int8 vectors of
    PARTITIONED_MIN_BYTES or more) and, when partitioned, each chunk's partition number.
    `put` writes a content-hashed payload, `put_checked(name, body)` a self-checked one
    (names.checked: `body`, then its check); `previous`: the centroid codes of the build before."""
    if layout == "auto":
        layout = ("partitioned" if stored.dtype == "i8"
                  and stored.vectors.size >= partitions.PARTITIONED_MIN_BYTES else "exact")
    if layout == "exact":
        return {"layout": "exact", "parts": _exact_parts(put, stored, starts, row_bytes)}, None
    built = partitions.build_partitions(stored.vectors,
                                         rows_per_partition=partitions.PARTITION_ROWS,
                                         previous=previous)
    rows = np.ascontiguousarray(stored.vectors, dtype=np.int8)
    dim = rows.shape[1]
    sizes, distinct, block_counts, hashes, bits_files = [], [], [], [], []
    partition_of_chunk = np.zeros(len(rows), dtype=np.int64)
    for number, members in enumerate(built.members):
        partition_of_chunk[members] = number
        kept, row_of, block_rows = blocked_rows(rows[members])
        digest = rows_hash(kept, block_rows)
        put_checked(rows_pack_name(digest), rows_pack(split_blocks(kept, block_rows), digest))
        bits_file = put("vectors", "bin", "bin",
                        partition_bytes(members, kept, row_of, starts, block_rows=block_rows,
                                        rows_digest=digest))
        name = bits_file[0]
        bits_files.append(bits_file)
        sizes.append(len(members))
        distinct.append(len(kept))
        block_counts.append(len(block_rows))
        hashes.append(bytes.fromhex(_hash_of(name)))
    index = (np.array([len(sizes), dim], dtype="<u4").tobytes()
             + np.array(sizes, dtype="<u4").tobytes()
             + np.array(distinct, dtype="<u4").tobytes()
             + np.array(block_counts, dtype="<u4").tobytes() + b"".join(hashes)
             + partitions.sign_bits(built.centroids).tobytes())
    catalog = {"layout": "partitioned", "partitions": len(sizes),
               "probe_rows": partitions.PROBE_ROWS, "candidates": partitions.CANDIDATES,
               "id_bytes": chunk_id_bytes(starts), "index": put("vectors", "ivf", "bin", index),
               "centroids": put("vectors", "cent", "i8", built.centroids.tobytes())}
    if len(rows) <= partitions.PROBE_ROWS:
        # every query probes every partition: a reader asks for their bits with the index
        catalog["bits"] = bits_files
    return catalog, partition_of_chunk


def _exact_parts(put, stored: Quantized, starts: np.ndarray, row_bytes: int) -> list:
    sizes = np.diff(starts) * row_bytes
    cuts = group_by_size(sizes.tolist(), VECTOR_PART_BYTES) if len(sizes) else []
    matrix = np.ascontiguousarray(stored.vectors.astype(stored.vectors.dtype.newbyteorder("<")))
    return [[a, *put("vectors", "vec", stored.dtype, matrix[starts[a]:starts[b]].tobytes())]
            for a, b in zip(cuts, [*cuts[1:], len(sizes)])]


def _hash_of(name: str) -> str:
    return name.rsplit(".", 2)[-2]


# --- reading -------------------------------------------------------------------------

def read_exact(root: Path, spec: dict, starts: np.ndarray,
               read: Callable[[str, int], bytes]) -> VectorSet:
    """Every part, verified once, then scored where it lies (memory-mapped)."""
    dtype, dim = spec["dtype"], spec["dim"]
    numpy_type = np.dtype(DTYPES[dtype]).newbyteorder("<")
    parts = []
    cuts = [p[0] for p in spec["parts"]] + [len(starts) - 1]
    for (first, name, size), end in zip(spec["parts"], cuts[1:]):
        rows = int(starts[end] - starts[first])
        if size != rows * dim * numpy_type.itemsize:
            raise BundleError(f"{root / name} should hold {rows} vectors of {dim} {dtype}: "
                              "rebuild the site")
        read(name, size)
        parts.append(np.memmap(root / name, dtype=numpy_type, mode="r", shape=(rows, dim))
                     if rows else np.zeros((0, dim), dtype=numpy_type))
    return VectorSet(dtype=dtype, scale=float(spec["scale"]), dim=dim, parts=parts,
                     column_sums=column_sums_of(spec))


def read_partitioned(spec: dict, starts: np.ndarray, read: Callable[[str, int], bytes], *,
                     read_record: Callable[[str, int, int, int], bytes],
                     lazy: bool = False) -> VectorSet:
    """The partitioned set: its index now, and every partition now (checking that each
    chunk is in exactly one) unless `lazy` (a bundle downloaded without them: each is
    read, or fetched, when a query first needs it). `read_record(pack, size, offset,
    length)`: those bytes of a pack of `size` bytes."""
    dim, k, id_bytes = spec["dim"], spec["partitions"], spec["id_bytes"]
    if id_bytes != chunk_id_bytes(starts):
        raise BundleError(f"the vector set's id_bytes is {id_bytes} where this site's pages "
                          f"need {chunk_id_bytes(starts)}: rebuild the site")
    name, size = spec["index"]
    index = parse_index(read(name, size), partitions_count=k, dim=dim, source=name)
    if "bits" in spec and [tuple(entry) for entry in spec["bits"]] != bits_files_of(
            index, dim=dim, id_bytes=id_bytes):
        raise BundleError(f"the catalog's bits files are not the ones {name} names: rebuild "
                          "the site")

    def read_partition(number: int) -> Partition:
        chunks, rows = int(index.sizes[number]), int(index.distinct[number])
        blocks, name = int(index.blocks[number]), index.bin_names[number]
        return parse_partition(read(name, bin_bytes(chunks, rows, blocks, dim, id_bytes)),
                               chunks=chunks, rows=rows, blocks=blocks, dim=dim,
                               id_bytes=id_bytes, starts=starts, source=name)

    def read_rows(part: Partition, block: int) -> np.ndarray:
        name, rows = part.blocks[block]
        size = rows_file_bytes(rows, dim)
        try:
            data = verify(name, read_record(part.pack, part.pack_bytes(dim),
                                            part.block_offset(block, dim), size), size=size)
        except PayloadError as exc:
            raise BundleError(f"{part.pack}: {exc}: rebuild the site") from exc
        return np.frombuffer(data, dtype=np.int8, count=rows * dim).reshape(rows, dim)

    vectors = VectorSet(dtype="i8", scale=float(spec["scale"]), dim=dim,
                        column_sums=column_sums_of(spec), partitions=[None] * k,
                        bits_files=index.bin_names, sizes=index.sizes,
                        centroid_bits=index.centroid_bits,
                        probe_rows=int(spec["probe_rows"]), candidates=int(spec["candidates"]),
                        read_partition=read_partition, read_rows=read_rows)
    if int(index.sizes.sum()) != int(starts[-1]):
        raise BundleError(f"{name} lists {int(index.sizes.sum())} rows for {int(starts[-1])} "
                          "chunks: rebuild the site")
    if not lazy:
        seen = np.zeros(int(starts[-1]), dtype=bool)
        for number in range(k):
            part = vectors.partition(number)
            if np.any(seen[part.ids]):
                raise BundleError(f"{index.bin_names[number]} holds chunks another partition "
                                  "holds: rebuild the site")
            seen[part.ids] = True
            vectors.partition_rows(number)
    return vectors


def column_sums_of(spec: dict) -> np.ndarray:
    return np.asarray(spec["sum"], dtype=np.int64 if spec["dtype"] == "i8" else np.float64)


def column_sums(rows: np.ndarray, dim: int) -> list:
    """Each dimension's sum over the stored rows: whole numbers for int8 rows (exact),
    floats otherwise (VectorSet.mean_score)."""
    if not len(rows):
        return [0] * dim
    if rows.dtype == np.int8:
        return np.asarray(rows, dtype=np.int64).sum(axis=0).tolist()
    return np.asarray(rows, dtype=np.float64).sum(axis=0).tolist()


__all__ = ["VectorSet", "column_sums", "int8_dots", "read_exact", "read_partitioned",
           "write_vectors"]
