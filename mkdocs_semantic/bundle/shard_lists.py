"""Shard lists: the catalog names a run of shards by their first keys and sizes alone.

A shard list's shards (a run of pages, of terms, of words each) are named by their
number and their own hash, `<stem><number>.<h>.json` (names.SHARD_NAME, `h` the first
SHARD_HASH_CHARS hex digits of the SHA-256 of the shard's JSON body), and end with their
own check (names.self_check). So an edit renames only the shards whose content it
changes, and the catalog holds each shard's hash, not its name: `{"stem": stem,
"first": [first key, ...], "bytes": [size, ...], "hashes": "h0h1..."}`, first keys (a
page number, a term, a word) ascending, the hashes one string. Up to `DIRECT_MAX` shards
are listed so in the catalog: a directory costs a query a round trip of its own, which
is worth more than the few kB a longer list adds to the catalog. A longer list is cut
into directories of `DIR_ENTRIES` shards each, `index/<leaf><number>.<h>.json` (`leaf`
the stem's last part, `h` the directory's own hash), each `{"at": number of its first
shard, "first": [...], "bytes": [...], "hashes": "..."}`, and the catalog holds
`{"stem", "dirs": {"first": [...], "bytes": [...], "hashes": "..."}}`: one first key,
size and hash per directory. A reader looking for a key reads one directory (the last
whose first key is not above it).

A keyed list (`write_keyed_list`) lists no keys at all: a reader names a key's shard from
the key alone (a term's is its `bucket_of`, a page's its number) and the shard's hash,
and the catalog holds `{"stem", "count", "hashes", "sizes"}`; `sizes` names a payload of
the shards' sizes, which every Python reader reads when it opens a bundle and a browser
never does. A packed keyed list (a page's excerpts, which no page names before the
catalog has come) keeps its shards as the records of one file instead, `{"stem",
"count", "hashes", "pack", "bytes"}`: `pack` is the file, `[name, bytes]`, and `bytes`
each record's size, so a reader finds shard n at the sum of the sizes before it and
reads it by an HTTP range request; each record is the shard as its own file would be,
checked under its name.
"""

from __future__ import annotations

import bisect
import hashlib
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..constants import MAX_KEYED_SHARD_BYTES, SHARD_HASH_CHARS
from .load_once import LoadOnce, in_parallel
from .names import (
    SHARD_NAME,
    SHARD_STEMS,
    Payload,
    directory_stem,
    json_bytes,
)

DIRECT_MAX = 4096
"""Shards a list may name in the catalog itself."""
DIR_ENTRIES = 32
"""Shards per directory: a query reads the directory of each key it looks up, so short
directories cost it fewer bytes than the longer list of them costs the catalog
(docs/decisions/catalog-shard-lists.md)."""

Entry = tuple[Any, str, int]
"""A shard's (first key, name, bytes). The keys of one list are all strings or all whole
numbers, and compared with each other: Any, since a type cannot say "one kind a list"."""


def shard_name(stem: str, number: int, digest: str) -> str:
    return f"{stem}{number}.{digest}.json"


def shard_hash(body: bytes) -> str:
    """The hash in the name of a shard (or directory) whose JSON body is `body`."""
    return hashlib.sha256(body).hexdigest()[:SHARD_HASH_CHARS]


def hash_at(hashes: str, number: int) -> str:
    """Shard `number`'s hash in a list's `hashes`."""
    return hashes[number * SHARD_HASH_CHARS:(number + 1) * SHARD_HASH_CHARS]


def _hashes(bodies: Iterable[bytes]) -> str:
    return "".join(shard_hash(body) for body in bodies)


def _check_hashes(hashes: object, count: int) -> str:
    """`hashes` if it is `count` shards' hashes (ValueError otherwise)."""
    if not (isinstance(hashes, str) and len(hashes) == count * SHARD_HASH_CHARS
            and all(c in "0123456789abcdef" for c in hashes)):
        raise ValueError(f"must list the hashes of its {count} shards, "
                         f"{SHARD_HASH_CHARS} hex digits each")
    return hashes


@dataclass(frozen=True)
class ShardList:
    """A checked shard list: its entries, the directories that hold them, or (a keyed
    list) its shard count and sizes file."""

    stem: str
    hashes: str
    """Its shards' own hashes (of its directories', when it has them), in order."""
    entries: tuple[Entry, ...] | None
    """`(first key, name, bytes)` each, when the catalog lists the shards; else None."""
    dirs: tuple[Entry, ...] = ()
    """`(first key, name, bytes)` of each directory payload, when it does not."""
    count: int = 0
    """A keyed list's shards (its entries are numbered 0 to count - 1)."""
    sizes: Payload | None = None
    """A keyed list's payload of its shards' sizes."""
    pack: Payload | None = None
    """A packed keyed list's file of its shards."""
    pack_sizes: tuple[int, ...] = ()
    """A packed keyed list's shard sizes, in shard order."""

    @property
    def keyed(self) -> bool:
        return self.sizes is not None or self.pack is not None

    def payloads(self) -> list[Payload]:
        """What the catalog itself names: the shards, their directories, a keyed list's
        sizes, or a packed one's file."""
        if self.pack is not None:
            return [self.pack]
        if self.sizes is not None:
            return [self.sizes]
        rows = self.dirs if self.entries is None else self.entries
        return [Payload(name, size) for _, name, size in rows]


def bucket_of(key: object, count: int) -> int:
    """The shard of a keyed list of `count` shards that holds string `key`: the first four
    bytes of the SHA-256 of its UTF-8, big-endian, modulo `count` (bundle.js bucketOf; a
    lone surrogate counts as U+FFFD, as a browser's TextEncoder has it)."""
    text = str(key)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:4], "big") % count


def page_shard(page: object, count: int) -> int:
    """The shard of a keyed list of pages that holds page `page`: its own number."""
    if isinstance(page, bool):
        return -1
    try:
        return operator.index(page)  # type: ignore[arg-type]
    except TypeError:
        return -1


def _named(stem: str, bodies: Sequence[bytes]) -> tuple[str, list[str]]:
    """The hashes (one string) of shards `bodies` of list `stem`, and their names."""
    if stem not in SHARD_STEMS:
        raise ValueError(f"{stem!r} is not a shard list's stem")
    hashes = _hashes(bodies)
    return hashes, [shard_name(stem, number, hash_at(hashes, number))
                    for number in range(len(bodies))]


def write_keyed_list(shards: Sequence[bytes], stem: str, write: Callable[[str, bytes], int],
                     put_sizes: Callable[[bytes], list]) -> dict:
    """The catalog value of keyed list `shards` (JSON bodies in shard order), each written
    with `write(name, body)` as `write_shard_list` writes them, and the payload of their
    sizes with `put_sizes(body)` ([name, bytes])."""
    hashes, names = _named(stem, shards)
    sizes = [write(name, body) for name, body in zip(names, shards, strict=True)]
    if sizes and max(sizes) > MAX_KEYED_SHARD_BYTES:
        raise ValueError(f"a shard of {stem} is {max(sizes):,} bytes, more than the "
                         f"{MAX_KEYED_SHARD_BYTES:,} a reader reads")
    return {"stem": stem, "count": len(shards), "hashes": hashes,
            "sizes": put_sizes(json_bytes(sizes))}


def write_packed_list(shards: Sequence[bytes], stem: str, record: Callable[[str, bytes], bytes],
                      put_pack: Callable[[bytes], list]) -> dict:
    """The catalog value of packed keyed list `shards` (JSON bodies in shard order): each
    shard's bytes as `record(name, body)` makes them (a self-checked payload's), one after
    the other in the file `put_pack(data)` writes ([name, bytes])."""
    hashes, names = _named(stem, shards)
    records = [record(name, body) for name, body in zip(names, shards, strict=True)]
    if records and max(map(len, records)) > MAX_KEYED_SHARD_BYTES:
        raise ValueError(f"a shard of {stem} is more than the {MAX_KEYED_SHARD_BYTES:,} "
                         "bytes a reader reads")
    return {"stem": stem, "count": len(shards), "hashes": hashes,
            "pack": put_pack(b"".join(records)), "bytes": [len(r) for r in records]}


def write_shard_list(shards: Sequence[tuple[object, bytes]], stem: str,
                     write: Callable[[str, bytes], int]) -> dict:
    """The catalog value for `shards` ([(first key, JSON body), ...], keys ascending),
    each shard (and directory) written with `write(name, body)`, which writes `body` as a
    self-checked payload (names.checked) and returns its size."""
    firsts = [first for first, _ in shards]
    bodies = [body for _, body in shards]
    hashes, names = _named(stem, bodies)
    sizes = [write(name, body) for name, body in zip(names, bodies, strict=True)]
    if len(shards) <= DIRECT_MAX:
        return {"stem": stem, "first": firsts, "bytes": sizes, "hashes": hashes}
    dir_firsts, dir_sizes, dir_hashes = [], [], []
    for number, at in enumerate(range(0, len(shards), DIR_ENTRIES)):
        end = at + DIR_ENTRIES
        body = json_bytes({"at": at, "first": firsts[at:end], "bytes": sizes[at:end],
                           "hashes": hashes[at * SHARD_HASH_CHARS:end * SHARD_HASH_CHARS]})
        dir_firsts.append(firsts[at])
        dir_hashes.append(shard_hash(body))
        dir_sizes.append(write(shard_name(directory_stem(stem), number, dir_hashes[-1]), body))
    return {"stem": stem,
            "dirs": {"first": dir_firsts, "bytes": dir_sizes, "hashes": "".join(dir_hashes)}}


MAX_SHARDS = 10**10
"""More shards than a name's number may count (names.SHARD_NAME)."""


def _runs(value: object, first: type, stem: str, at: int = 0) -> list[Entry]:
    """`{"first": [...], "bytes": [...], "hashes": "..."}` as entries named `stem` from
    number `at` on."""
    if not isinstance(value, dict) or not {"first", "bytes", "hashes"} <= set(value):
        raise ValueError("must hold first, bytes and hashes")
    firsts, sizes = value["first"], value["bytes"]
    if not (isinstance(firsts, list) and isinstance(sizes, list) and len(firsts) == len(sizes)):
        raise ValueError("must hold lists first and bytes of one length")
    if at + len(firsts) > MAX_SHARDS:
        raise ValueError(f"numbers shards past {MAX_SHARDS:,}")
    hashes = _check_hashes(value["hashes"], len(firsts))
    kind = "an integer" if first is int else "a string"
    out: list[Entry] = []
    for number, (key, size) in enumerate(zip(firsts, sizes), start=at):
        if not (isinstance(key, first) and not isinstance(key, bool)):
            raise ValueError(f"has a first key {key!r:.40} that is not {kind}")
        if not (isinstance(size, int) and not isinstance(size, bool) and size >= 0):
            raise ValueError(f"has a size {size!r:.40} that is not a count of bytes")
        if out and not out[-1][0] < key:
            raise ValueError("is not in ascending order")
        out.append((key, shard_name(stem, number, hash_at(hashes, number - at)), size))
    return out


def parse_shard_list(value: object, first: type, stem: str | None = None) -> ShardList:
    """A catalog shard list, its names made (ValueError when malformed); `stem`: the stem
    the list must have, where it is known."""
    if not isinstance(value, dict) or set(value) not in ({"stem", "first", "bytes", "hashes"},
                                                         {"stem", "dirs"},
                                                         {"stem", "count", "hashes", "sizes"},
                                                         {"stem", "count", "hashes", "pack",
                                                          "bytes"}):
        raise ValueError("must be {stem, first, bytes, hashes}, {stem, dirs}, "
                         "{stem, count, hashes, sizes} or {stem, count, hashes, pack, bytes}")
    if value["stem"] != stem if stem is not None else value["stem"] not in SHARD_STEMS:
        raise ValueError(f"has the stem {value['stem']!r:.40}, not {stem or 'a shard stem'!r}")
    stem = value["stem"]
    if "count" in value:
        count = value["count"]
        if not (isinstance(count, int) and not isinstance(count, bool)
                and 0 <= count <= MAX_SHARDS):
            raise ValueError(f"has the count {count!r:.40}, not a number of shards")
        hashes = _check_hashes(value["hashes"], count)
        if "pack" in value:
            pack, sizes = _named_payload(value["pack"], "its file"), value["bytes"]
            if not (isinstance(sizes, list) and len(sizes) == count and all(
                    isinstance(size, int) and not isinstance(size, bool)
                    and 0 < size <= MAX_KEYED_SHARD_BYTES for size in sizes)
                    and sum(sizes) == pack.bytes):
                raise ValueError(f"must list the sizes of its {count} shards, which make its "
                                 "file")
            return ShardList(stem, hashes, None, count=count, pack=pack,
                             pack_sizes=tuple(sizes))
        sizes = _named_payload(value["sizes"], "its sizes payload")
        return ShardList(stem, hashes, None, count=count, sizes=sizes)
    if "dirs" in value:
        dirs = _runs(value["dirs"], first, directory_stem(stem))
        if not dirs:
            raise ValueError("has no directories")
        return ShardList(stem, value["dirs"]["hashes"], None, tuple(dirs))
    return ShardList(stem, value["hashes"], tuple(_runs(value, first, stem)))


def _named_payload(value: object, what: str) -> Payload:
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
            and isinstance(value[1], int) and not isinstance(value[1], bool)
            and value[1] >= 0):
        raise ValueError(f"must name {what} as [name, bytes]")
    return Payload(value[0], value[1])


def directory_entries(name: str, data: object) -> list[Entry]:
    """The entries of directory payload `name` (parsed JSON `data`); ValueError when it
    is not one."""
    match = SHARD_NAME.match(name)
    if match is None or not match.group(1).startswith("index/"):
        raise ValueError("is not a directory's name")
    stem = next(s for s in SHARD_STEMS if directory_stem(s) == match.group(1))
    if not isinstance(data, dict):
        raise ValueError("is not a shard list directory")
    at = data.get("at")
    if not (isinstance(at, int) and not isinstance(at, bool) and at >= 0):
        raise ValueError("is not a shard list directory")
    firsts = data["first"] if isinstance(data.get("first"), list) else []
    entries = _runs(data, str if firsts and isinstance(firsts[0], str) else int, stem, at)
    if not entries:
        raise ValueError("is an empty directory")
    return entries


def keyed_entries(shards: ShardList, sizes: object) -> list[Entry]:
    """A keyed list's entries `(number, name, bytes)` from its sizes payload's parsed JSON
    (ValueError when it does not list one size a shard)."""
    if not (isinstance(sizes, list) and len(sizes) == shards.count and all(
            isinstance(size, int) and not isinstance(size, bool)
            and 0 <= size <= MAX_KEYED_SHARD_BYTES for size in sizes)):
        name = shards.sizes.name if shards.sizes else "the sizes"
        raise ValueError(f"{name} does not list the sizes of {shards.count} shards of at "
                         f"most {MAX_KEYED_SHARD_BYTES:,} bytes")
    return [(number, shard_name(shards.stem, number, hash_at(shards.hashes, number)), size)
            for number, size in enumerate(sizes)]


def resolve(shards: ShardList, read_entries: Callable[[str, int], list[Entry]],
            read_sizes: Callable[[str, int], object] | None = None) -> list[Entry]:
    """Every entry of the list; `read_entries(name, bytes)` reads and checks a directory
    (see `directory_entries`), `read_sizes(name, bytes)` a keyed list's sizes payload
    (its parsed JSON)."""
    if shards.pack is not None:
        return [(number, shard_name(shards.stem, number, hash_at(shards.hashes, number)), size)
                for number, size in enumerate(shards.pack_sizes)]
    if shards.sizes is not None:
        if read_sizes is None:
            raise ValueError("is a keyed list, which this reader does not read")
        return keyed_entries(shards, read_sizes(shards.sizes.name, shards.sizes.bytes))
    if shards.entries is not None:
        return list(shards.entries)
    out: list[Entry] = []
    for first, name, size in shards.dirs:
        entries = read_entries(name, size)
        if not entries or entries[0][0] != first or (out and not out[-1][0] < entries[0][0]):
            raise ValueError(f"{name} does not hold the entries from {first!r} in order")
        numbered = SHARD_NAME.match(entries[0][1])
        if numbered is None or numbered.group(2) != str(len(out)):
            raise ValueError(f"{name} does not number its shards from {len(out)}")
        out.extend(entries)
    return out


class ShardReader:
    """The shards of one resolved list, each read and parsed once, when a key it holds is
    first asked for (a bundle downloaded without them fetches each then)."""

    def __init__(self, entries: Sequence[tuple], load: Callable[[str, int], object], *,
                 locate: Callable[[object, int], int] | None = None) -> None:
        self.entries = list(entries)
        self.firsts = [entry[0] for entry in self.entries]
        self.locate = locate
        """A keyed list's: `locate(key, count)`, the number of the shard holding `key`."""
        self._load = load
        self._loaded: LoadOnce[object] = LoadOnce()

    def position(self, key: object) -> int:
        """The number of the shard that holds `key` (the last whose first key is not
        above it; in a keyed list the one `locate` names), or -1."""
        if self.locate is not None:
            number = self.locate(key, len(self.entries)) if self.entries else -1
            return number if 0 <= number < len(self.entries) else -1
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
        in_parallel(partial(self.shard, n) for n in self.unread(keys))
