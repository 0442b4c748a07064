"""The partitioned vector layout's files (int8 only, see bundle/vectors/partitions.py),
as bytes: one index, then per partition a file of sign bits and a pack of its int8 rows
in blocks (bundle/vectors/blocks.py). A partition stores each distinct int8 row once:
chunks with the same vector (a page copied into every version of a site) share it.

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
unchanged. All little-endian.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ...constants import ROW_CHECK_BYTES
from ..format import BundleError, partition_index_bytes
from ..names import HASH_CHARS
from . import partitions
from .blocks import (
    blocked_rows,
    rows_file_name,
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
