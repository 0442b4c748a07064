"""The static query table as a bundle holds it: token ids and int8 rows, whole
(`TokenTable`) or read by shard as a query needs them (`ShardedTokenTable`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .format import BundleError
from .shard_lists import ShardReader


@dataclass(frozen=True)
class TokenTable:
    """The static query encoder's table: one int8 row per known token."""

    token_ids: np.ndarray
    """uint32, ascending."""
    rows: np.ndarray
    """int8, one row of `dim` values per token id."""
    scale: float
    """rows / scale approximates the float table the fit produced."""

    @property
    def dim(self) -> int:
        return int(self.rows.shape[1])

    def rows_for(self, ids: Sequence[int]) -> np.ndarray:
        """The rows of those of `ids` the table has, in order (repeats repeated)."""
        return _rows_for(self.token_ids, self.rows, ids)


class ShardedTokenTable:
    """The token table of a bundle downloaded without its shards: each shard read (and
    checked) when a query first has one of its tokens."""

    def __init__(self, shards: ShardReader, *, dim: int, scale: float) -> None:
        self.shards = shards
        self.dim = dim
        self.scale = scale

    def rows_for(self, ids: Sequence[int]) -> np.ndarray:
        """The rows of those of `ids` the table has, in order (repeats repeated)."""
        self.shards.prefetch(int(token) for token in ids)
        found = []
        for token in ids:
            held = self.shards.holding(int(token))
            if held is not None:
                token_ids, rows = held[1]
                found.append(_rows_for(token_ids, rows, [token]))
        return np.concatenate(found) if found else np.zeros((0, self.dim), dtype=np.int8)


def summed_rows(table: TokenTable | ShardedTokenTable, ids: Sequence[int]) -> np.ndarray | None:
    """The static query vector of token `ids`: the integer sum of the rows of those the
    table has (so every reader computes the same one); None when it has none."""
    rows = table.rows_for(ids)
    if not len(rows):
        return None
    return np.asarray(rows, dtype=np.int64).sum(axis=0)


def _rows_for(token_ids: np.ndarray, rows: np.ndarray, ids: Sequence[int]) -> np.ndarray:
    if not len(token_ids):
        return rows[:0]
    wanted = np.asarray(ids, dtype=np.int64)
    at = np.minimum(np.searchsorted(token_ids, wanted), len(token_ids) - 1)
    return rows[at[token_ids[at] == wanted]]


def table_shard(data: bytes, dim: int, source: Path | str) -> tuple[np.ndarray, np.ndarray]:
    """A token table shard's (token ids ascending, int8 rows)."""
    count = int(np.frombuffer(data[:4], dtype="<u4")[0]) if len(data) >= 4 else -1
    if count < 0 or len(data) != 4 + count * (4 + dim):
        raise BundleError(f"{source} is not a token table shard of {dim} dims: "
                          "rebuild the site")
    ids = np.frombuffer(data, dtype="<u4", count=count, offset=4)
    if np.any(np.diff(ids.astype(np.int64)) <= 0):
        raise BundleError(f"{source} is not in token order: rebuild the site")
    return ids, np.frombuffer(data, dtype=np.int8, offset=4 + 4 * count).reshape(count, dim)


