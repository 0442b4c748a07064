"""The static query table as a bundle holds it: token ids and int8 rows, whole
(`TokenTable`) or read row by row as queries need them (`RowTable`).

The rows are one payload, the pack `table/rows.<sha256>.bin`: for each token id in
ascending order, a record of the row's `dim` int8 values and 4 bytes of check, the start
of the SHA-256 of the row's own name, `table/row<token id>.<h>.bin` (`<h>` the table's
hash, `table_hash`), and its values (names.checked). The catalog lists the token ids
(`token_gaps`), the hash and the pack, so a reader finds a token's record at its
position in the ids times the record's size, and a browser reads just those bytes (an
HTTP range request) and checks them under the row's name.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Protocol

import numpy as np

from .format import BundleError
from .load_once import LoadOnce, in_parallel
from .names import HASH_CHARS, ROW_CHECK_BYTES, PayloadError, checked, verify


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

    def rows_for(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """The rows of those of `ids` the table has, in order (repeats repeated)."""
        return _rows_for(self.token_ids, self.rows, ids)


class RowTable:
    """The token table of a bundle opened without its rows: the pack read (and checked)
    when a query first needs a row, each row checked as it is first taken from it."""

    def __init__(self, token_ids: np.ndarray, *, digest: str, dim: int, scale: float,
                 pack: str, read_record: Callable[[int, int], bytes]) -> None:
        """`read_record(offset, size)`: those bytes of the pack named `pack`."""
        self.token_ids = token_ids
        self.digest = digest
        self.dim = dim
        self.scale = scale
        self.pack = pack
        self._read_record = read_record
        self._rows: LoadOnce[np.ndarray] = LoadOnce()

    def holds(self, token: int) -> bool:
        at = int(np.searchsorted(self.token_ids, token))
        return at < len(self.token_ids) and int(self.token_ids[at]) == token

    def rows_for(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """The rows of those of `ids` the table has, in order (repeats repeated)."""
        held = [int(token) for token in ids if self.holds(int(token))]
        in_parallel(partial(self._row, token)
                    for token in dict.fromkeys(held) if token not in self._rows)
        if not held:
            return np.zeros((0, self.dim), dtype=np.int8)
        return np.stack([self._row(token) for token in held])

    def _row(self, token: int) -> np.ndarray:
        return self._rows.get(token, lambda: self._record(token))

    def _record(self, token: int) -> np.ndarray:
        name = row_name(token, self.digest)
        size = self.dim + ROW_CHECK_BYTES
        at = int(np.searchsorted(self.token_ids, token)) * size
        try:
            record = verify(name, self._read_record(at, size), size=size)
        except PayloadError as exc:
            raise BundleError(f"{self.pack}: {exc}: rebuild the site") from exc
        return row_from(record, self.dim, name)


class TableRows(Protocol):
    """A token table as the static query encoder reads it (a TokenTable, or a RowTable
    that reads its rows when first asked for)."""

    @property
    def dim(self) -> int: ...

    def rows_for(self, ids: Sequence[int]) -> np.ndarray:
        """The rows of those of `ids` the table has, in order (repeats repeated)."""
        ...


def summed_rows(table: TableRows, ids: Sequence[int]) -> np.ndarray | None:
    """The static query vector of token `ids`: the integer sum of the rows of those the
    table has (so every reader computes the same one); None when it has none."""
    rows = table.rows_for(ids)
    if not len(rows):
        return None
    return np.asarray(rows, dtype=np.int64).sum(axis=0)


def _rows_for(token_ids: np.ndarray, rows: np.ndarray,
              ids: Sequence[int] | np.ndarray) -> np.ndarray:
    if not len(token_ids):
        return rows[:0]
    wanted = np.asarray(ids, dtype=np.int64)
    at = np.minimum(np.searchsorted(token_ids, wanted), len(token_ids) - 1)
    return rows[at[token_ids[at] == wanted]]


def table_hash(table: TokenTable) -> str:
    """The `<h>` of the table's row names: the start of the sha256 of its token ids and
    rows, so that a refit table's rows never share a name with the table's before."""
    digest = hashlib.sha256(np.asarray(table.token_ids, dtype="<u4").tobytes())
    digest.update(np.ascontiguousarray(table.rows, dtype=np.int8).tobytes())
    return digest.hexdigest()[:HASH_CHARS]


def table_pack(table: TokenTable, digest: str) -> bytes:
    """The table's rows as the bundle stores them: one checked record per token id."""
    rows = np.ascontiguousarray(table.rows, dtype=np.int8)
    return b"".join(checked(row_name(token, digest), row.tobytes())
                    for token, row in zip(table.token_ids.tolist(), rows))


def row_name(token: int, digest: str) -> str:
    """The payload name of token `token`'s row in the table of hash `digest`."""
    return f"table/row{token}.{digest}.bin"


def row_from(data: bytes, dim: int, source: Path | str) -> np.ndarray:
    """The int8 row of a checked row payload."""
    if len(data) != dim + ROW_CHECK_BYTES:
        raise BundleError(f"{source} is not a token table row of {dim} dims: rebuild the site")
    return np.frombuffer(data, dtype=np.int8, count=dim)


def token_gaps(token_ids: np.ndarray) -> list[int]:
    """The catalog's list of the table's token ids: the first, then each one's distance
    from the one before (ascending ids make the list short)."""
    ids = np.asarray(token_ids, dtype=np.int64)
    return np.diff(ids, prepend=0).tolist() if len(ids) else []


def token_ids_of(gaps: list[int]) -> np.ndarray:
    """The token ids that `token_gaps` listed, from a catalog that `check_catalog`
    passed (its `rows.ids` ascend and fit in 32 bits)."""
    return np.cumsum(np.asarray(gaps, dtype=np.int64)).astype(np.uint32)
