"""Records of packs read one by one: the query table's rows (bundle/table.py) and a
vector partition's blocks (bundle/vectors/blocks.py).

A pack is one file of many records, each checked under its own name, so a reader
needs only a record's offset and size. A site that answers HTTP range requests sends
just those bytes; where none is answered (a local bundle, a site that sends whole
files), the whole pack is read once, verified, and kept.
"""

from __future__ import annotations

from collections.abc import Callable

from .load_once import LoadOnce

PayloadRange = Callable[[str, int, int], "bytes | None"]
"""`(name, offset, size)`: those bytes of a payload a downloaded bundle lacks, by one
range request; None where the site sends whole files only (then it is fetched whole)."""


class PackRecords:
    """Records of the packs: each read by an HTTP range request where `fetch_range` can
    (a URL source whose site answers one, for a pack not `held` here), else from the
    whole pack, read once with `read` (verified) and kept."""

    def __init__(self, read: Callable[[str, int], bytes], *,
                 fetch_range: PayloadRange | None, held: Callable[[str], bool]) -> None:
        self._read = read
        self._fetch_range = fetch_range
        self._held = held
        self._packs: LoadOnce[bytes] = LoadOnce()  # a query's records are read in parallel
        self._whole: set[str] = set()
        """Packs read whole: held here, being read (a damaged copy fetched again), or from
        a site that sent the whole file for a range."""

    def __call__(self, pack: str, size: int, offset: int, length: int) -> bytes:
        """`length` bytes from `offset` of pack `pack` of `size` bytes (unverified: each
        record carries its own check)."""
        # held is asked first: a pack read whole is marked before a damaged copy is
        # taken away to be fetched again
        if (self._fetch_range is not None and not self._held(pack)
                and pack not in self._whole):
            data = self._fetch_range(pack, offset, length)
            if data is not None:
                return data
        self._whole.add(pack)
        return self._packs.get(pack, lambda: self._read(pack, size))[offset:offset + length]

    def forget(self) -> None:
        """Drop the packs kept so far."""
        self._packs = LoadOnce()
