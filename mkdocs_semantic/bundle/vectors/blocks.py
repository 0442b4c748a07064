"""A vector partition's distinct int8 rows in blocks, and the pack that holds them.

A partition's rows are grouped in blocks of rows that lie close (partitions.row_blocks),
so a query's candidates mostly share a block or two. The blocks are the records of one
pack, `vectors/rows.<h>.i8` (`<h>` the hash of the partition's rows, `rows_hash`): block
j is `vectors/row<j>.<h>.i8`, its rows then their check (names.checked), and the pack
ends with a check of its own.
"""

from __future__ import annotations

import hashlib
from itertools import pairwise

import numpy as np

from ...constants import ROW_CHECK_BYTES
from ..names import HASH_CHARS, checked
from . import partitions


def distinct_rows(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of `block`, in the order of their first occurrence, and each
    row of `block`'s number among them."""
    if not len(block):
        return block, np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(block, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # unique's order -> first-occurrence order
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return block[np.sort(first)], rank[np.asarray(inverse).ravel()]


def blocked_rows(block: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """A partition's distinct rows grouped in blocks (partitions.row_blocks): the rows
    (block 0's first, each block's in the order of their first chunk), each of `block`'s
    rows' number among them, and the rows in each block."""
    kept, row_of = distinct_rows(block)
    blocks = partitions.row_blocks(kept, rows_per_block=partitions.ROWS_BLOCK)
    order = np.argsort(blocks, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return kept[order], rank[row_of], np.bincount(blocks).tolist()


def split_blocks(rows: np.ndarray, block_rows: list[int]) -> list[np.ndarray]:
    """`rows` cut into blocks of `block_rows` rows each."""
    cuts = np.cumsum([0, *block_rows])
    return [rows[a:b] for a, b in pairwise(cuts.tolist())]


def rows_hash(rows: np.ndarray, block_rows: list[int]) -> str:
    """The hash in the names of a partition's rows files: of its blocks' row counts and
    its int8 rows, so that any change to them renames every one."""
    data = np.array(block_rows, dtype="<u4").tobytes() + np.ascontiguousarray(rows).tobytes()
    return hashlib.sha256(data).hexdigest()[:HASH_CHARS]


def rows_file_name(block: int, digest: str) -> str:
    """The name of block `block`'s record in the pack of the partition whose rows hash to
    `digest`."""
    return f"vectors/row{block}.{digest}.i8"


def rows_pack_name(digest: str) -> str:
    """The name of the pack of the partition whose rows hash to `digest`."""
    return f"vectors/rows.{digest}.i8"


def rows_pack(blocks: list[np.ndarray], digest: str) -> bytes:
    """A partition's pack without its own check: each block's checked record in turn."""
    return b"".join(checked(rows_file_name(j, digest), np.ascontiguousarray(block).tobytes())
                    for j, block in enumerate(blocks))


def rows_pack_bytes(block_rows: list[int], dim: int) -> int:
    """A pack's size: its blocks' records, then its own check."""
    return sum(rows_file_bytes(rows, dim) for rows in block_rows) + ROW_CHECK_BYTES


def rows_file_bytes(rows: int, dim: int) -> int:
    """A block's record's size: its int8 rows, then its check."""
    return rows * dim + ROW_CHECK_BYTES
