"""The stored chunk vectors: their payload files, and scoring a query where they lie.

Two layouts (bundle format 11):

- exact: `vectors/vec.<h>.<dtype>`, parts of whole pages in chunk order, raw
  little-endian rows; every query scores every row.
- partitioned (int8 only, see bundle/vectors/partitions.py): one index, then per
  partition a file of sign bits and a pack of its int8 rows in blocks
  (bundle/vectors/blocks.py). A partition stores each distinct int8 row once: chunks
  with the same vector (a page copied into every version of a site) share it.
  - `vectors/ivf.<h>.bin`: u32 k, u32 dim, k x u32 chunks, k x u32 distinct rows, k x
    u32 blocks, k x 8 bytes (the hash in the name of each partition's bits file), k x
    ceil(dim / 8) bytes of centroid sign bits;
  - `vectors/bin.<h>.bin`: u32 n (chunks), u32 d (distinct rows), u32 b (blocks), 8
    bytes (the hash of the partition's rows, in the name of its pack and blocks), b
    row counts (one per block, in the fewest of 1, 2 or 4 bytes that hold d), n page
    numbers, n positions on the page (the chunks ascending; `id_bytes` each, a
    field of the set: 1, 2 or 4, the fewest that hold the site's page count and its
    longest page's chunk count), when d < n or b > 1 n row numbers (each chunk's row,
    in the fewest of 1, 2 or 4 bytes that hold d; the rows of block 0 come first, then
    those of block 1, ...), d x ceil(dim / 8) bytes of the rows' sign bits;
  - `vectors/rows.<h>.i8`: the partition's pack, its blocks one after the other, then
    the pack's own check (names.self_check). Block j is the record
    `vectors/row<j>.<h>.i8`: its int8 rows, in row order, then their check; `<h>` is the
    hash in the bits file, so a block costs the bits file only its row count, and a
    reader finds it in the pack from the row counts before it (read by an HTTP range
    request: one file a partition on the host, however many blocks it has);
  - `vectors/cent.<h>.i8`: the centroids' int8 codes, which only the next build reads
    (indexing/layout_basis.py) so that unchanged chunks keep their partitions.
  Chunks are named by page and position, as the keyword postings are, so that an edit
  changing one page's chunk count leaves the partitions holding none of its chunks
  unchanged.

All little-endian.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path

import numpy as np

from ...constants import ROW_CHECK_BYTES
from ..format import VECTOR_PART_BYTES, BundleError, partition_index_bytes
from ..load_once import LoadOnce, in_parallel
from ..names import HASH_CHARS, PayloadError, group_by_size, verify
from ..quantize import DTYPES, Quantized
from . import partitions
from .blocks import (
    blocked_rows,
    rows_file_bytes,
    rows_file_name,
    rows_hash,
    rows_pack,
    rows_pack_bytes,
    rows_pack_name,
    split_blocks,
)

HASH_BYTES = HASH_CHARS // 2


def sign_bytes(dim: int) -> int:
    return (dim + 7) // 8


def number_bytes(limit: int) -> int:
    """The bytes a bits file gives each number below `limit`: 1, 2 or 4."""
    return 1 if limit <= 1 << 8 else 2 if limit <= 1 << 16 else 4


def chunk_id_bytes(starts: np.ndarray) -> int:
    """`id_bytes` of a site whose pages start at `starts`: the bytes of each page number
    and position on a page in its bits files."""
    pages = len(starts) - 1
    longest = int(np.diff(starts).max()) if pages > 0 else 0
    return number_bytes(max(pages, longest))


def _unsigned(width: int) -> str:
    return f"<u{width}"


@dataclass
class Partition:
    """One partition: its chunk ids (ascending), each chunk's row, the rows' sign bits,
    and its distinct int8 rows in blocks, each read when a query first needs it
    (`VectorSet.block_rows`)."""

    ids: np.ndarray
    bits: np.ndarray
    """One row of sign bits per distinct row."""
    blocks: list[tuple[str, int]]
    """(name, rows) of each block's record in the pack (rows x dim bytes, then its
    check); block j holds the rows from `block_starts[j]` on."""
    row_of: np.ndarray | None = None
    """Each chunk's row number (None: chunk i has row i)."""
    block_data: list[np.ndarray | None] = field(default_factory=list)
    pack: str = ""
    """The name of the pack of the blocks' records."""

    def __post_init__(self) -> None:
        if not self.block_data:
            self.block_data = [None] * len(self.blocks)

    @cached_property
    def block_starts(self) -> np.ndarray:
        """The first row of each block, then the row count."""
        return np.concatenate([[0], np.cumsum([rows for _, rows in self.blocks])]
                              ).astype(np.int64)

    def block_offset(self, block: int, dim: int) -> int:
        """Where block `block`'s record starts in the pack."""
        return int(self.block_starts[block]) * dim + block * ROW_CHECK_BYTES

    def pack_bytes(self, dim: int) -> int:
        return rows_pack_bytes([rows for _, rows in self.blocks], dim)

    def block_of(self, rows: np.ndarray) -> np.ndarray:
        """The block holding each of `rows`."""
        return np.searchsorted(self.block_starts, rows, side="right") - 1

    @cached_property
    def row_numbers(self) -> np.ndarray:
        return np.arange(len(self.ids)) if self.row_of is None else self.row_of

    @cached_property
    def first_chunks(self) -> np.ndarray:
        """Each row's first chunk (the lowest chunk id that has it); every query that
        probes the partition ranks its rows by it, so it is found once."""
        if self.row_of is None:
            return self.ids
        _, first = np.unique(self.row_of, return_index=True)
        return self.ids[first]


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



def has_row_map(chunks: int, rows: int, blocks: int) -> bool:
    """Whether a bits file lists each chunk's row: when chunks share rows, or when blocks
    reorder the rows (else chunk i has row i)."""
    return rows < chunks or blocks > 1




def in_memory_partition(members: np.ndarray, rows: np.ndarray) -> Partition:
    """The partition of chunks `members` with int8 `rows` (theirs, in order) as a reader
    holds it once every file is read, for tools that build one without a bundle."""
    kept, row_of, block_rows = blocked_rows(rows)
    mapped = has_row_map(len(members), len(kept), len(block_rows))
    return Partition(ids=np.asarray(members), bits=partitions.sign_bits(kept),
                     blocks=[("", count) for count in block_rows],
                     row_of=row_of if mapped else None,
                     block_data=[*split_blocks(kept, block_rows)])







def count_bytes(rows: int) -> int:
    """The bytes a bits file gives each block's row count: the fewest that hold `rows`."""
    return number_bytes(rows + 1)


def partition_bytes(members: np.ndarray, rows: np.ndarray, row_of: np.ndarray,
                    starts: np.ndarray, *, block_rows: list[int], rows_digest: str) -> bytes:
    """A partition's bits file (see the module's docstring): `members` its chunks,
    `rows` its distinct rows, `row_of` each chunk's row, `block_rows` the rows in each
    block and `rows_digest` the hash in its rows files' names."""
    pages = np.searchsorted(starts, members, side="right") - 1
    ids = _unsigned(chunk_id_bytes(starts))
    mapped = has_row_map(len(members), len(rows), len(block_rows))
    mapping = (np.asarray(row_of).astype(_unsigned(number_bytes(len(rows)))).tobytes()
               if mapped else b"")
    return (np.array([len(members), len(rows), len(block_rows)], dtype="<u4").tobytes()
            + bytes.fromhex(rows_digest)
            + np.array(block_rows).astype(_unsigned(count_bytes(len(rows)))).tobytes()
            + pages.astype(ids).tobytes() + (members - starts[pages]).astype(ids).tobytes()
            + mapping + partitions.sign_bits(rows).tobytes())


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


@dataclass(frozen=True)
class PartitionIndex:
    sizes: np.ndarray
    """Chunks per partition."""
    distinct: np.ndarray
    """Distinct rows per partition."""
    blocks: np.ndarray
    """Rows files per partition."""
    bin_names: list[str]
    centroid_bits: np.ndarray


def parse_index(data: bytes, *, partitions_count: int, dim: int, source: str
                ) -> PartitionIndex:
    """The partition index (BundleError naming `source` when malformed)."""
    k, width = partitions_count, sign_bytes(dim)
    expected = partition_index_bytes(k, dim)
    head = np.frombuffer(data, dtype="<u4", count=2) if len(data) >= 8 else None
    if len(data) != expected or head is None or int(head[0]) != k or int(head[1]) != dim:
        raise BundleError(f"{source} is not the index of {k} partitions of {dim} dims: "
                          "rebuild the site")
    counts = np.frombuffer(data, dtype="<u4", count=3 * k, offset=8).astype(np.int64)
    sizes, distinct, blocks = counts[:k], counts[k:2 * k], counts[2 * k:]
    at = 8 + 12 * k
    names = [payload_name_of("vectors", "bin", "bin", data[at + i * HASH_BYTES:
                                                          at + (i + 1) * HASH_BYTES])
             for i in range(k)]
    bits = np.frombuffer(data, dtype=np.uint8, offset=at + k * HASH_BYTES).reshape(k, width)
    if k and (sizes.min() < 1 or distinct.min() < 1 or np.any(distinct > sizes)
              or blocks.min() < 1 or np.any(blocks > distinct)):
        raise BundleError(f"{source} lists an empty partition, one with more rows than "
                          "chunks or more blocks than rows: rebuild the site")
    return PartitionIndex(sizes=sizes, distinct=distinct, blocks=blocks, bin_names=names,
                          centroid_bits=bits)


def payload_name_of(folder: str, stem: str, ext: str, digest: bytes) -> str:
    return f"{folder}/{stem}.{digest.hex()}.{ext}"


def block_files(bits_data: bytes, rows: int, blocks: int) -> tuple[str, list[tuple[str, int]]]:
    """The pack's name and (name, rows) of each block's record in it, as a bits file's
    header lists them: the rows hash after its u32 chunk, row and block counts, then each
    block's row count (the caller checks the file is long enough)."""
    digest = bits_data[12:12 + HASH_BYTES].hex()
    counts = np.frombuffer(bits_data, dtype=_unsigned(count_bytes(rows)), count=blocks,
                           offset=12 + HASH_BYTES).tolist()
    return rows_pack_name(digest), [(rows_file_name(j, digest), int(count))
                                    for j, count in enumerate(counts)]


def ids_offset(rows: int, blocks: int) -> int:
    """Where a bits file's page numbers start: after its header and blocks' row counts."""
    return 12 + HASH_BYTES + blocks * count_bytes(rows)


def bin_bytes(chunks: int, rows: int, blocks: int, dim: int, id_bytes: int) -> int:
    """A bits file's size: `chunks` chunks sharing `rows` distinct rows in `blocks`
    rows files, each page number and position in `id_bytes`."""
    mapping = number_bytes(rows) * chunks if has_row_map(chunks, rows, blocks) else 0
    return (ids_offset(rows, blocks) + 2 * id_bytes * chunks + mapping
            + rows * sign_bytes(dim))



def parse_partition(data: bytes, *, chunks: int, rows: int, blocks: int, dim: int,
                    id_bytes: int, starts: np.ndarray, source: str) -> Partition:
    """A partition's bits file: its chunk ids, each chunk's row, the rows' sign bits, its
    blocks' rows files (BundleError naming `source` when its counts, pages, positions or
    row numbers are wrong, its chunks not ascending or a block's rows not in the order of
    their first chunk)."""
    width = sign_bytes(dim)
    head = np.frombuffer(data[:12], dtype="<u4") if len(data) >= 12 else None
    ok = (len(data) == bin_bytes(chunks, rows, blocks, dim, id_bytes) and head is not None
          and [int(x) for x in head] == [chunks, rows, blocks])
    row_of = None
    if ok:
        pack, files = block_files(data, rows, blocks)
        block_rows = np.array([count for _, count in files], dtype=np.int64)
        ok = block_rows.min() >= 1 and int(block_rows.sum()) == rows
        at = ids_offset(rows, blocks)
        ids_type = _unsigned(id_bytes)
        pages = np.frombuffer(data, dtype=ids_type, count=chunks, offset=at).astype(np.int64)
        local = np.frombuffer(data, dtype=ids_type, count=chunks,
                              offset=at + id_bytes * chunks).astype(np.int64)
        ok = ok and (not chunks or pages.max() < len(starts) - 1)
    if ok:
        ids = starts[pages] + local
        ok = not (np.any(ids >= starts[pages + 1]) or np.any(np.diff(ids) <= 0))
    if ok and has_row_map(chunks, rows, blocks):
        row_of = np.frombuffer(data, dtype=_unsigned(number_bytes(rows)), count=chunks,
                               offset=at + 2 * id_bytes * chunks).astype(np.int64)
        # every row used; within a block, rows in the order of their first chunk
        numbers, first = np.unique(row_of, return_index=True)
        cuts = np.cumsum(block_rows)[:-1]
        ok = (len(numbers) == rows and int(numbers[-1]) == rows - 1
              and all(bool(np.all(np.diff(part) > 0)) for part in np.split(first, cuts)))
    if not ok:
        raise BundleError(f"{source} is not a partition of {chunks} distinct chunks "
                          f"ascending sharing {rows} rows in {blocks} blocks: rebuild the site")
    bits = np.frombuffer(data, dtype=np.uint8,
                         offset=len(data) - rows * width).reshape(rows, width)
    return Partition(ids=ids, bits=bits, blocks=files, row_of=row_of, pack=pack)


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


def payloads_of_index(spec: dict, index_data: bytes) -> list[tuple[str, int]]:
    """The bits files a partitioned set's index names, with their sizes."""
    index = parse_index(index_data, partitions_count=spec["partitions"], dim=spec["dim"],
                        source=spec["index"][0])
    return bits_files_of(index, dim=spec["dim"], id_bytes=spec["id_bytes"])


def bits_files_of(index: PartitionIndex, *, dim: int, id_bytes: int) -> list[tuple[str, int]]:
    """Each partition's bits file as `index` names it, with its size."""
    return [(name, bin_bytes(int(chunks), int(rows), int(blocks), dim, id_bytes))
            for name, chunks, rows, blocks in zip(index.bin_names, index.sizes,
                                                  index.distinct, index.blocks)]


def payloads_of_partition(spec: dict, bits_data: bytes, source: str) -> list[tuple[str, int]]:
    """The pack a partition's bits file names, with its size (what the file's header
    says; `parse_partition` checks the rest)."""
    head = np.frombuffer(bits_data[:12], dtype="<u4") if len(bits_data) >= 12 else None
    rows, blocks = (int(head[1]), int(head[2])) if head is not None else (0, 0)
    if not blocks or len(bits_data) < ids_offset(rows, blocks):
        raise BundleError(f"{source} is not a partition's bits file: rebuild the site")
    pack, files = block_files(bits_data, rows, blocks)
    return [(pack, rows_pack_bytes([count for _, count in files], spec["dim"]))]


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


__all__ = ["Partition", "VectorSet", "column_sums", "int8_dots", "parse_partition",
           "read_exact", "read_partitioned", "write_vectors"]
