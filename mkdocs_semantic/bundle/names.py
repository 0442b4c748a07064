"""Content-addressed payload files: named by their hash, verified by every reader.

A payload's name is `<folder>/<stem>.<h>.<ext>`, `<h>` being the first `HASH_CHARS` hex
digits of the sha256 of its bytes. A name therefore never points at other bytes: files
may be cached forever, and a reader checks what it got against the name it asked for.

Four kinds of payload are named from what a reader knows before it reads them, and so
check themselves instead: a query table row (bundle/table.py), `table/row<token id>.<h>.bin`,
`<h>` being the hash of the whole table, so that a reader names the rows a query needs
from the catalog's token ids alone; a word piece file (bundle/wordpieces.py),
`pieces/<key stem>.<h>.json`, `<h>` being the hash of all of them, so that a reader names
the files a query's words need from the words alone; a shard of a shard list
(bundle/shard_lists.py), `<stem><number>.<h>.json`, `<h>` being the hash of the whole
list, so that the catalog lists a shard by its first key and size alone; and a rows file
of a vector partition (bundle/vectors/store.py), `vectors/row<block>.<h>.i8`, `<h>` being
the hash of all the partition's rows, so that its bits file names each block by its size
alone, and the pack that holds them one after the other, `vectors/rows.<h>.i8`. Such a
payload ends with `ROW_CHECK_BYTES` of the sha256 of its name and body (`self_check`).

A self-checked JSON payload (a shard, a keyed word piece file) is stored deflated
(zlib, `deflated`): hosts compress JSON on the wire but count, store and upload the
bytes as written, and a reader inflates what it checked (`inflate`), never past
`MAX_KEYED_SHARD_BYTES`.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..constants import HASH_CHARS, MAX_KEYED_SHARD_BYTES, ROW_CHECK_BYTES
from ..files import atomic_write, holds

CATALOG_NAME = re.compile(r"^catalog\.[0-9a-f]{16}\.json\Z")
NAME = re.compile(r"^(?:[a-z]+/)?[a-z]+\.([0-9a-f]{16})\.[a-z0-9]+\Z")
"""Every payload name a bundle may list: no `..`, no absolute path, no other folders."""
ROW_NAME = re.compile(r"^table/row(0|[1-9][0-9]{0,9})\.([0-9a-f]{16})\.bin\Z")
"""A query table row's name: its token id and the table's hash."""
PIECE_NAME = re.compile(r"^pieces/(s[0-9a-z]|c[0-9a-z]|p)\.([0-9a-f]{16})\.json\Z")
"""A keyed word piece file's name: its key's stem and the hash of every keyed file."""
SHARD_STEMS = ("fragments/frag", "text/text", "lexical/lex", "vocabulary/words",
               "vocabulary/spell", "pieces/piece", "words/word", "parts/part")
"""The stems of the shard lists' shards; a list's directories are `index/<leaf>`."""


VECTOR_ROWS_NAME = re.compile(r"^vectors/row(0|[1-9][0-9]{0,9})\.([0-9a-f]{16})\.i8\Z")
"""A vector partition's rows file's name: its block number and the hash of the
partition's rows."""
VECTOR_PACK_NAME = re.compile(r"^vectors/rows\.([0-9a-f]{16})\.i8\Z")
"""The name of a vector partition's pack of rows files: the hash of the partition's rows."""


def directory_stem(stem: str) -> str:
    """The stem of a shard list's directories: `index/` and the last part of its stem."""
    return "index/" + stem.rsplit("/", 1)[-1]


SHARD_NAME = re.compile(
    "^(" + "|".join([*SHARD_STEMS, *map(directory_stem, SHARD_STEMS)])
    + r")(0|[1-9][0-9]{0,9})\.([0-9a-f]{8})\.json\Z")
"""A numbered shard's (or directory's) name: its stem, its number and its own hash."""


def self_checked(name: str) -> bool:
    """Whether payload `name` carries its own check rather than its hash in its name."""
    return any(pattern.match(name) is not None
               for pattern in (ROW_NAME, PIECE_NAME, SHARD_NAME, VECTOR_ROWS_NAME,
                               VECTOR_PACK_NAME))


class PayloadError(ValueError):
    """A payload is missing, malformed or not the bytes its name promises."""


@dataclass(frozen=True)
class Payload:
    """One written payload: its name (relative to the bundle folder) and size."""

    name: str
    bytes: int

    def to_json(self) -> list:
        return [self.name, self.bytes]


def payload_name(folder: str, stem: str, ext: str, data: bytes) -> str:
    digest = hashlib.sha256(data).hexdigest()[:HASH_CHARS]
    return f"{folder}/{stem}.{digest}.{ext}" if folder else f"{stem}.{digest}.{ext}"


def write_payload(out: Path, *, folder: str, stem: str, ext: str, data: bytes) -> Payload:
    """Write `data` under its hashed name (unchanged when already there)."""
    name = payload_name(folder, stem, ext, data)
    target = out / name
    if not holds(target, data):
        atomic_write(target, data, shared=True)
    return Payload(name=name, bytes=len(data))


def self_check(name: str, body: bytes) -> bytes:
    """The bytes that end a self-checked payload: the start of the sha256 of its name and
    body, so that a body changed, cut or read under another name fails its check."""
    return hashlib.sha256(name.encode("ascii") + body).digest()[:ROW_CHECK_BYTES]


def checked(name: str, body: bytes) -> bytes:
    """A self-checked payload's bytes: `body`, then its check (`self_check`)."""
    return body + self_check(name, body)


def self_checked_body(name: str, data: bytes) -> bytes:
    """The body of a payload that `verify` passed: a self-checked one's check cut off."""
    return data[:-ROW_CHECK_BYTES] if self_checked(name) else data


def deflated(name: str) -> bool:
    """Whether payload `name` is stored deflated: a self-checked JSON payload."""
    return name.endswith(".json") and self_checked(name)


def deflate(body: bytes) -> bytes:
    """JSON as a self-checked JSON payload stores it (before its check)."""
    return zlib.compress(body, 9)


def inflate(data: bytes, name: str, limit: int = MAX_KEYED_SHARD_BYTES) -> bytes:
    """The JSON of a deflated payload's body (its check cut off); PayloadError when it
    is not deflated data, is cut short, or inflates past `limit` bytes."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise PayloadError(f"{name} is not deflated JSON ({exc})") from exc
    if len(out) > limit or inflater.unconsumed_tail:
        raise PayloadError(f"{name} inflates to more than the {limit:,} bytes any such "
                           "file may hold")
    if not inflater.eof or inflater.unused_data:
        raise PayloadError(f"{name} is not one whole deflated stream")
    return out


def check_name(name: object) -> str:
    """`name` if it is a payload name a bundle may list; PayloadError otherwise."""
    if not isinstance(name, str) or (NAME.match(name) is None and not self_checked(name)):
        raise PayloadError(f"{name!r} is not a payload name of this format")
    return name


def verify(name: str, data: bytes, *, size: int | None = None) -> bytes:
    """`data` if it is what `name` promises (and `size` bytes long); PayloadError otherwise."""
    check_name(name)
    own = self_checked(name)
    if size is not None and len(data) != size:
        raise PayloadError(f"{name} is {len(data)} bytes, the catalog says {size} "
                           "(truncated or changed)")
    if own:
        good = (len(data) > ROW_CHECK_BYTES
                and data[-ROW_CHECK_BYTES:] == self_check(name, data[:-ROW_CHECK_BYTES]))
    else:
        match = NAME.match(name)
        good = match is not None and hashlib.sha256(data).hexdigest().startswith(match.group(1))
    if not good:
        raise PayloadError(f"{name} does not match its hash (changed or corrupt)")
    return data


def json_bytes(data: object) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def group_by_size(sizes: Sequence[int], target: int) -> list[int]:
    """Cut a sequence of item sizes into runs of about `target`; returns each run's first
    item. An item bigger than `target` gets a run of its own. Always starts with 0."""
    starts = [0]
    total = 0
    for i, size in enumerate(sizes):
        if total and total + size > target:
            starts.append(i)
            total = 0
        total += size
    return starts
