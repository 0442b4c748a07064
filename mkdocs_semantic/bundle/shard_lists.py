"""Shard lists that grow in the catalog far more slowly than the site.

A shard list names a run of payloads by their first key (a page number, a term, a
token id): `[[first key, name, bytes], ...]`, keys ascending. Up to `DIRECT_MAX`
entries sit in the catalog as that list: a directory costs a query a round trip of its
own, which is worth more than the few tens of kB a long list adds to the catalog. A
longer one is cut into directory payloads of `DIR_ENTRIES` entries each
(`index/<kind>.<h>.json`, a JSON list of the same entries), and the catalog holds
`{"dirs": [[first key, name, bytes], ...]}`: one entry per directory. A reader looking
for a key reads one directory (the last whose first key is not above it), so the
catalog holds one entry for `DIR_ENTRIES` shards on a very large site.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .load_once import LoadOnce, in_parallel
from .names import Payload, json_bytes

DIRECT_MAX = 4096
"""Entries a shard list may keep in the catalog itself."""
DIR_ENTRIES = 32
"""Entries per directory payload: a query reads the directory of each key it looks up, so
short directories cost it fewer bytes than the longer list of them costs the catalog
(bench/results/directory_entries.md)."""
INDEX_FOLDER = "index"


@dataclass(frozen=True)
class ShardList:
    """A checked shard list: its entries, or the directories that hold them."""

    entries: tuple[tuple, ...] | None
    """`(first key, name, bytes)` each, when the list is in the catalog; else None."""
    dirs: tuple[tuple, ...] = ()
    """`(first key, name, bytes)` of each directory payload, when it is not."""

    def payloads(self) -> list[Payload]:
        """What the catalog itself names: the shards, or their directories."""
        rows = self.dirs if self.entries is None else self.entries
        return [Payload(name, size) for _, name, size in rows]


def write_shard_list(entries: Sequence[Sequence], kind: str,
                     put: Callable[[str, str, str, bytes], list]) -> list | dict:
    """The catalog value for `entries` ([[first key, name, bytes], ...] ascending): the
    list itself, or its directories, written with `put(folder, stem, ext, data)`."""
    rows = [list(e) for e in entries]
    if len(rows) <= DIRECT_MAX:
        return rows
    dirs = []
    for at in range(0, len(rows), DIR_ENTRIES):
        part = rows[at:at + DIR_ENTRIES]
        dirs.append([part[0][0], *put(INDEX_FOLDER, kind, "json", json_bytes(part))])
    return {"dirs": dirs}


def resolve(shards: ShardList, read_entries: Callable[[str, int], list[tuple]]) -> list[tuple]:
    """Every entry of the list; `read_entries(name, bytes)` reads and checks a directory
    (see `check_directory`)."""
    if shards.entries is not None:
        return list(shards.entries)
    out: list[tuple] = []
    for first, name, size in shards.dirs:
        entries = read_entries(name, size)
        if not entries or entries[0][0] != first or (out and not out[-1][0] < entries[0][0]):
            raise ValueError(f"{name} does not hold the entries from {first!r} in order")
        out.extend(entries)
    return out


class ShardReader:
    """The shards of one resolved list, each read and parsed once, when a key it holds is
    first asked for (a bundle downloaded without them fetches each then)."""

    def __init__(self, entries: Sequence[tuple], load: Callable[[str, int], object]) -> None:
        self.entries = list(entries)
        self.firsts = [entry[0] for entry in self.entries]
        self._load = load
        self._loaded: LoadOnce[object] = LoadOnce()

    def position(self, key: object) -> int:
        """The number of the shard that holds `key` (the last whose first key is not
        above it), or -1."""
        return bisect.bisect_right(self.firsts, key) - 1

    def shard(self, number: int) -> object:
        """Shard `number`'s parsed content, read on first use."""
        _, name, size = self.entries[number]
        return self._loaded.get(number, lambda: self._load(name, size))

    def holding(self, key: object) -> tuple[tuple, object] | None:
        """(entry, parsed shard) of the shard that holds `key`, or None."""
        number = self.position(key)
        return None if number < 0 else (self.entries[number], self.shard(number))

    def unread(self, keys: Iterable[object]) -> list[int]:
        """The shards holding `keys` that are not read yet, in order."""
        numbers = {self.position(key) for key in keys} - {-1}
        return [n for n in sorted(numbers) if n not in self._loaded]

    def prefetch(self, keys: Iterable[object]) -> None:
        """The shards holding `keys` read now, at the same time (those not read yet)."""
        in_parallel(lambda n=n: self.shard(n) for n in self.unread(keys))
