"""The bundle format: its constants, and the checks every Python reader runs on the JSON
it did not write (the manifest and the catalog), so that nothing downstream meets a
wrong type, a path out of the bundle or an absurd number. The layout is in bundle/__init__.py.
"""

from __future__ import annotations

import builtins
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from ..constants import (
    DEFAULT_TOP_K,
    FORMAT_VERSION,
    LEXICAL_VERSION,
    MAX_CATALOG_BYTES,
    MAX_DIM,
    MAX_MODEL_TOKENS,
    MAX_TOP_K,
    PIECES_VERSION,
    QUERY_ENCODERS,
    SCALAR_BYTES,
    SEARCH_MODES,
    VOCABULARY_VERSION,
    __version__,
)
from .browser_model import FORMAT_VERSION as BROWSER_MODEL_VERSION
from .names import CATALOG_NAME, HASH_CHARS, ROW_CHECK_BYTES, PayloadError, check_name
from .page_table import page_table_size
from .shard_lists import ShardList, directory_entries, parse_shard_list

MANIFEST = "manifest.json"
TABLE_HASH = re.compile(r"^[0-9a-f]{16}\Z")
"""The hash a query table's rows, and the keyed word piece files, are named by."""
METRIC = "ip"
VECTOR_LAYOUTS = ("auto", "exact", "partitioned")
"""The writer's choices; a catalog names `exact` or `partitioned` (vectors/partitions.py)."""
DEFAULT_SEARCH = {"mode": "hybrid", "top_k": DEFAULT_TOP_K, "min_score": None}
KIND_CODES = {"page": "p", "section": "s"}
KIND_NAMES = {v: k for k, v in KIND_CODES.items()}
STATIC_MAX_TOKENS = 128
"""Tokens of a query the static encoder reads; a query is rarely a tenth of that."""

# Shard sizes: small enough that a query fetches little, large enough to keep the file
# count sane (measured in bench/: bytes per query against files per build). A query
# touches one lexical shard per term, whatever its size, so these are small; fragments
# are a file a page and the query table one row a file (bundle/table.py).
VECTOR_PART_BYTES = 128 << 10
TEXT_SHARD_BYTES = 256 << 10
LEXICAL_BUCKET_BYTES = 16 << 10
"""The keyword index's shards hold this much JSON on average (as written, before they
are deflated): an eighth of the files of 2 kB shards, for a few kB more a query
(docs/decisions/catalog-shard-lists.md, bench/results/query_rounds.md)."""


class BundleError(ValueError):
    """A bundle cannot be read; the message names the file and what to do."""


class BundleWriteError(BundleError):
    """The disk refused a bundle being written (full, read-only, over a quota)."""


class Checker:
    """Type and range checks of untrusted JSON; every failure names the file and field.

    Its methods are named after the types they check (`check.str(...)`), which hides
    those builtins in the annotations after each one: those say `builtins.str`."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, problem: str) -> NoReturn:
        raise BundleError(f"{self.source}: {problem}: rebuild the site")

    def _get(self, data: object, key: str, where: str) -> object:
        if not isinstance(data, dict) or key not in data:
            self.fail(f"{where + '.' if where else ''}{key} is missing")
        return data[key]

    def dict(self, data: object, key: str, where: str = "") -> dict:
        value = self._get(data, key, where)
        if not isinstance(value, dict):
            self.fail(f"{where + '.' if where else ''}{key} must be an object")
        return value

    def list(self, data: object, key: str, where: str = "") -> list:
        value = self._get(data, key, where)
        if not isinstance(value, list):
            self.fail(f"{where + '.' if where else ''}{key} must be a list")
        return value

    def str(self, data: object, key: str, where: str = "") -> str:
        value = self._get(data, key, where)
        if not isinstance(value, str):
            self.fail(f"{where + '.' if where else ''}{key} must be a string")
        return value

    def int(self, data: object, key: builtins.str, where: builtins.str = "", lo: int = 0,
            hi: int = 2**53) -> builtins.int:
        value = self._get(data, key, where)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            self.fail(f"{where + '.' if where else ''}{key} is {value!r}, not a whole number "
                      f"from {lo} to {hi}")
        return value

    def number(self, data: object, key: builtins.str, where: builtins.str = "",
               lo: float = -math.inf, hi: float = math.inf, *,
               positive: bool = False) -> float:
        value = self._get(data, key, where)
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not math.isfinite(value) or not lo <= value <= hi
                or (positive and value <= 0)):
            wanted = "a positive number" if positive else f"a number from {lo} to {hi}"
            self.fail(f"{where + '.' if where else ''}{key} is {value!r}, not {wanted}")
        return float(value)

    def hex(self, data: object, key: builtins.str, where: builtins.str,
            length: builtins.int) -> builtins.str:
        value = self.str(data, key, where)
        if not re.fullmatch(f"[0-9a-f]{{{length}}}", value):
            self.fail(f"{where}.{key} is not {length} hex digits")
        return value

    def payload(self, data: object, key: builtins.str, where: builtins.str) -> builtins.list:
        """A payload entry `[name, bytes]`."""
        entry = self.list(data, key, where)
        if len(entry) != 2 or not isinstance(entry[1], int) or isinstance(entry[1], bool):
            self.fail(f"{where}.{key} must be [name, bytes]")
        try:
            check_name(entry[0])
        except PayloadError as exc:
            self.fail(f"{where}.{key}: {exc}")
        return entry

    def payloads(self, data: object, key: builtins.str, where: builtins.str,
                 first: type) -> builtins.list[tuple]:
        """A shard list `[[first key, name, bytes], ...]`, first keys ascending."""
        return self.entries(self.list(data, key, where), f"{where + '.' if where else ''}{key}",
                            first)

    def shard_list(self, data: object, key: builtins.str, where: builtins.str, first: type,
                   stem: builtins.str) -> builtins.list[tuple]:
        """A catalog shard list (bundle/shard_lists.py) of shards named `stem`; returns the
        entries the catalog holds: the shards', or their directories'."""
        shards = self._shards(data, key, where, first, stem)
        if shards.keyed:
            self.fail(f"{where + '.' if where else ''}{key} must list its shards' first keys")
        return list(shards.dirs if shards.entries is None else shards.entries)

    def keyed_list(self, data: object, key: builtins.str, where: builtins.str,
                   stem: builtins.str) -> builtins.int:
        """A keyed shard list (bundle/shard_lists.py) of shards named `stem`; returns its
        shard count."""
        shards = self._shards(data, key, where, str, stem)
        field = where + "." + key if where else key
        if shards.pack is not None:
            if re.fullmatch(rf"{stem}s\.[0-9a-f]{{{HASH_CHARS}}}\.bin", shards.pack.name) is None:
                self.fail(f"{field}.pack must be {stem}s.<hash>.bin")
            return shards.count
        if shards.sizes is None:
            self.fail(f"{field} must be a keyed list {{stem, set, count, sizes}}")
        folder = stem.split("/")[0]
        sizes = rf"{folder}/sizes\.[0-9a-f]{{{HASH_CHARS}}}\.json"
        if re.fullmatch(sizes, shards.sizes.name) is None:
            self.fail(f"{field}.sizes must be {folder}/sizes.<hash>.json")
        return shards.count

    def _shards(self, data: object, key: builtins.str, where: builtins.str, first: type,
                stem: builtins.str) -> ShardList:
        try:
            return parse_shard_list(self._get(data, key, where), first, stem)
        except ValueError as exc:
            self.fail(f"{where + '.' if where else ''}{key} {exc}")

    def entries(self, rows: object, where: builtins.str, first: type) -> builtins.list[tuple]:
        """`rows` as a shard list `[[first key, name, bytes], ...]`, keys ascending."""
        if not isinstance(rows, list):
            self.fail(f"{where} must be a list")
        out: builtins.list[tuple] = []
        for row in rows:
            ok = (isinstance(row, list) and len(row) == 3 and isinstance(row[0], first)
                  and not isinstance(row[0], bool) and isinstance(row[2], int)
                  and not isinstance(row[2], bool) and row[2] >= 0)
            if not ok:
                self.fail(f"{where} has a malformed entry {str(row)[:80]}")
            try:
                check_name(row[1])
            except PayloadError as exc:
                self.fail(f"{where}: {exc}")
            if out and not out[-1][0] < row[0]:
                self.fail(f"{where} is not in ascending order")
            out.append(tuple(row))
        return out


BITS_NAME = re.compile(r"^vectors/bin\.[0-9a-f]{16}\.bin\Z")
"""A partition's bits file name."""
MAX_SAFE_INTEGER = 2**53 - 1
"""The largest size both readers take (JavaScript's safe integers)."""


def partition_index_bytes(partitions: int, dim: int) -> int:
    """The partition index's size (bundle/vectors/store.py): u32 count and dim, then per
    partition its chunk, distinct row and block counts (u32 each), its bits file's hash
    and its centroid's sign bits."""
    return 8 + partitions * (12 + HASH_CHARS // 2 + (dim + 7) // 8)


def _check_partitioned(check: Checker, vectors: dict, where: str, *, dim: int,
                       chunks: int) -> None:
    """A partitioned vector set (bundle/vectors/store.py): int8, `partitions` (how many, at least
    one when there are chunks), `probe_rows` and `candidates` (at least one each),
    `id_bytes` (1, 2 or 4: the bytes of a page number or position in a bits file), and
    the `index` and `centroids` payloads, their sizes those of that many partitions;
    `bits`, when a query probes every partition, lists their bits files."""
    if vectors["dtype"] != "i8":
        check.fail(f"{where}.dtype must be i8 in the partitioned layout")
    count = check.int(vectors, "partitions", where, 1 if chunks else 0, max(chunks, 0))
    check.int(vectors, "probe_rows", where, 1)
    check.int(vectors, "candidates", where, 1, MAX_TOP_K)
    if check.int(vectors, "id_bytes", where, 1, 4) == 3:
        check.fail(f"{where}.id_bytes must be 1, 2 or 4")
    for key, size in (("index", partition_index_bytes(count, dim)), ("centroids", count * dim)):
        entry = check.list(vectors, key, where)
        if not (len(entry) == 2 and isinstance(entry[1], int) and not isinstance(entry[1], bool)
                and entry[1] == size):
            check.fail(f"{where}.{key} must be [name, {size}] for {count} partitions of "
                       f"{dim} dims")
        _check_payload_name(check, entry[0], f"{where}.{key}")
    if "bits" in vectors:
        files = check.list(vectors, "bits", where)
        if chunks > vectors["probe_rows"]:
            check.fail(f"{where}.bits lists bits files, but a query probes only some of its "
                       f"{chunks} chunks")
        if len(files) != count or not all(
                isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], int)
                and not isinstance(entry[1], bool) and 0 < entry[1] <= MAX_SAFE_INTEGER
                and isinstance(entry[0], str) and BITS_NAME.match(entry[0])
                for entry in files):
            check.fail(f"{where}.bits must list [name, bytes] of each of its {count} "
                       "partitions' bits files (vectors/bin.<hash>.bin)")


def _check_column_sums(check: Checker, vectors: dict, where: str, *, dim: int,
                       chunks: int) -> None:
    """`sum`: one number per dimension, each dimension's sum over the stored rows (whole
    numbers within chunks * 127 for int8)."""
    sums = check.list(vectors, "sum", where)
    whole = vectors.get("dtype") == "i8"
    limit = 128 * chunks
    ok = len(sums) == dim and all(
        not isinstance(x, bool) and (isinstance(x, int) and abs(x) <= limit if whole
                                     else isinstance(x, (int, float)) and math.isfinite(x))
        for x in sums)
    if not ok:
        kind = f"whole numbers within {limit}" if whole else "finite numbers"
        check.fail(f"{where}.sum must list {dim} {kind}, one per dimension")


def _check_rows(check: Checker, encoder: dict, where: str) -> None:
    """`rows` of the static encoder (bundle/table.py): the table's hash, its token ids
    as gaps (the first at least 0, every later one at least 1) and the pack of its rows,
    one record of `dim` values and a check per token id."""
    rows = check.dict(encoder, "rows", where)
    if not isinstance(rows.get("table"), str) or not TABLE_HASH.match(rows["table"]):
        check.fail(f"{where}.rows.table must be {HASH_CHARS} hex digits")
    gaps = check.list(rows, "ids", f"{where}.rows")
    if not all(isinstance(g, int) and not isinstance(g, bool) and g >= (1 if i else 0)
               for i, g in enumerate(gaps)) or sum(gaps) >= 1 << 32:
        check.fail(f"{where}.rows.ids must list ascending token ids as gaps")
    name, size = check.payload(rows, "pack", f"{where}.rows")
    if not name.startswith("table/") or size != len(gaps) * (encoder["dim"] + ROW_CHECK_BYTES):
        check.fail(f"{where}.rows.pack must be the table's pack of {len(gaps)} records")


def _check_payload_name(check: Checker, name: object, where: str) -> None:
    try:
        check_name(name)
    except PayloadError as exc:
        check.fail(f"{where}: {exc}")


def check_catalog(catalog: object, manifest: Manifest, source: Path | str) -> dict:
    """The catalog's structure and ranges, checked once so that readers can trust it."""
    check = Checker(str(source))
    pages, chunks = manifest.counts["pages"], manifest.counts["chunks"]
    model = check.dict(catalog, "model")
    assert isinstance(catalog, dict)  # check.dict failed otherwise
    check.str(model, "id", "model")
    check.hex(model, "sha256", "model", 64)
    check.int(model, "dim", "model", 1, MAX_DIM)
    check.int(model, "max_tokens", "model", 16, MAX_MODEL_TOKENS)
    if check.str(model, "pooling", "model") not in ("mean", "cls"):
        check.fail("model.pooling must be mean or cls")
    if not isinstance(model.get("normalize"), bool):
        check.fail("model.normalize must be true or false")
    check.str(model, "query_prefix", "model")
    check.str(model, "document_prefix", "model")
    page_info = check.dict(catalog, "pages")
    if check.int(page_info, "count", "pages") != pages:
        check.fail("pages.count is not the manifest's page count")
    for key, boost in check.dict(page_info, "boosts", "pages").items():
        if not (key.isdigit() and int(key) < pages) or isinstance(boost, bool) or \
                not isinstance(boost, (int, float)) or not (math.isfinite(boost) and boost > 0):
            check.fail(f"pages.boosts has a bad entry {key!r}: {boost!r}")
    _check_file(check, page_info, "table", "pages", page_table_size(pages, chunks))
    _check_file(check, catalog, "facets", "")
    if check.keyed_list(catalog, "fragments", "", "fragments/frag") != pages:
        check.fail("fragments does not hold one shard a page")
    if "fragment_parts" in catalog:
        parts = check.dict(catalog, "fragment_parts")
        check.int(parts, "chunks", "fragment_parts", 1)
        check.keyed_list(parts, "parts", "fragment_parts", "parts/part")
    shards = check.shard_list(catalog, "text", "", int, "text/text")
    if pages and (not shards or shards[0][0] != 0 or shards[-1][0] >= pages):
        check.fail("text does not cover every page")
    lexical = check.dict(catalog, "lexical")
    if check.int(lexical, "version", "lexical") != LEXICAL_VERSION:
        check.fail(f"lexical.version is not {LEXICAL_VERSION}")
    check.number(lexical, "scale", "lexical", positive=True)
    if check.int(lexical, "count", "lexical") != chunks:
        check.fail("lexical.count is not the chunk count")
    check.int(lexical, "head", "lexical", 1)
    if check.keyed_list(lexical, "shards", "lexical", "lexical/lex") < 1:
        check.fail("lexical.shards has no shards")
    if "vocabulary" in catalog:
        vocabulary = check.dict(catalog, "vocabulary")
        if check.int(vocabulary, "version", "vocabulary") != VOCABULARY_VERSION:
            check.fail(f"vocabulary.version is not {VOCABULARY_VERSION}")
        check.shard_list(vocabulary, "shards", "vocabulary", str, "vocabulary/words")
        check.shard_list(vocabulary, "spelling", "vocabulary", str, "vocabulary/spell")
    sets = check.list(catalog, "vectors")
    if not sets:
        check.fail("vectors lists no vector set")
    for i, vectors in enumerate(sets):
        where = f"vectors[{i}]"
        if check.str(vectors, "dtype", where) not in SCALAR_BYTES:
            check.fail(f"{where}.dtype must be one of {', '.join(SCALAR_BYTES)}")
        check.number(vectors, "scale", where, positive=True)
        dim = check.int(vectors, "dim", where, 1, MAX_DIM)
        _check_column_sums(check, vectors, where, dim=dim, chunks=chunks)
        if check.str(vectors, "metric", where) != METRIC:
            check.fail(f"{where}.metric is not {METRIC}, the only one this version reads")
        layout = check.str(vectors, "layout", where)
        if layout == "exact":
            vector_parts = check.payloads(vectors, "parts", where, int)
            if pages and (not vector_parts or vector_parts[0][0] != 0
                          or vector_parts[-1][0] >= pages):
                check.fail(f"{where}.parts does not cover every page")
        elif layout == "partitioned":
            _check_partitioned(check, vectors, where, dim=dim, chunks=chunks)
        else:
            check.fail(f"{where}.layout {layout!r} is not exact or partitioned, the layouts "
                       "this version reads")
    encoders = check.dict(catalog, "encoders")
    for key, kind in (("query_encoder", manifest.query_encoder),
                      ("idle_encoder", manifest.idle_encoder)):
        if kind is not None and kind not in encoders:
            check.fail(f"the manifest's {key} {kind!r} is not in the catalog")
    for kind, encoder in encoders.items():
        where = f"encoders.{kind}"
        if kind not in QUERY_ENCODERS:
            check.fail(f"{where} is an encoder this version does not know")
        check.int(encoder, "vectors", where, 0, len(sets) - 1)
        check.payload(encoder, "tokenizer", where)
        if kind == "transformer":
            if "weights" not in encoder or "model" in encoder:
                check.payload(encoder, "model", where)
            if "weights" in encoder:
                _check_weights(check, check.dict(encoder, "weights", where), f"{where}.weights")
        if kind == "static":
            check.int(encoder, "max_tokens", where, 1, MAX_MODEL_TOKENS)
            if check.str(encoder, "dtype", where) != "i8":
                check.fail(f"{where}.dtype must be i8")
            check.number(encoder, "scale", where, positive=True)
            if check.int(encoder, "dim", where, 1, MAX_DIM) != sets[encoder["vectors"]]["dim"]:
                check.fail(f"{where}.dim differs from its vector set's")
            _check_rows(check, encoder, where)
            if "pieces" in encoder:
                pieces = check.dict(encoder, "pieces", where)
                if check.int(pieces, "version", f"{where}.pieces") != PIECES_VERSION:
                    check.fail(f"{where}.pieces.version is not {PIECES_VERSION}")
                model = check.dict(check.dict(pieces, "config", f"{where}.pieces"), "model",
                                   f"{where}.pieces.config")
                if model.get("type") != "WordPiece":
                    check.fail(f"{where}.pieces.config.model is not a WordPiece model")
                keyed = check.dict(pieces, "keyed", f"{where}.pieces")
                if not TABLE_HASH.match(check.str(keyed, "hash", f"{where}.pieces.keyed")):
                    check.fail(f"{where}.pieces.keyed.hash is not {HASH_CHARS} hex digits")
                check.payload(keyed, "list", f"{where}.pieces.keyed")
                check.shard_list(pieces, "shards", f"{where}.pieces", str, "pieces/piece")
            if "words" in encoder:
                if "pieces" not in encoder:
                    check.fail(f"{where}.words needs the word pieces (pieces)")
                if check.keyed_list(encoder, "words", where, "words/word") < 1:
                    check.fail(f"{where}.words has no shards")
    return catalog


def _check_weights(check: Checker, weights: dict, where: str) -> None:
    """The browser model's files (bundle/browser_model.py)."""
    if check.int(weights, "version", where) != BROWSER_MODEL_VERSION:
        check.fail(f"{where}.version is not {BROWSER_MODEL_VERSION}")
    check.payload(weights, "layers", where)
    blocks = check.list(weights, "words", where)
    firsts = [b[0] if isinstance(b, list) and len(b) == 2 else None for b in blocks]
    ids = [f for f in firsts if isinstance(f, int) and not isinstance(f, bool) and f >= 0]
    if not blocks or ids != firsts or ids != sorted(set(ids)):
        check.fail(f"{where}.words is not a list of [first id, file] in order")
    for i, (_, file) in enumerate(blocks):
        check.payload({"file": file}, "file", f"{where}.words[{i}]")


def check_directory(data: object, name: str) -> list[tuple]:
    """The entries of shard list directory `name` (its parsed JSON `data`)."""
    try:
        return directory_entries(name, data)
    except ValueError as exc:
        raise BundleError(f"{name} {exc}: rebuild the site") from exc


def _check_file(check: Checker, data: dict, key: str, where: str,
                size: int | None = None) -> None:
    """`[name, bytes]` of one payload (of `size` bytes when given)."""
    entry = check.list(data, key, where)
    at = f"{where + '.' if where else ''}{key}"
    if not (len(entry) == 2 and isinstance(entry[1], int) and not isinstance(entry[1], bool)
            and entry[1] >= 0 and (size is None or entry[1] == size)):
        check.fail(f"{at} must be [name, bytes]" + (f" of {size} bytes" if size is not None
                                                     else ""))
    _check_payload_name(check, entry[0], at)


@dataclass(frozen=True)
class FileEntry:
    """One file of the bundle as the manifest lists it: its name, its size in bytes
    and the SHA-256 of its content (hex), which readers check before using it."""

    name: str
    bytes: int
    sha256: str


@dataclass
class Manifest:
    format: int
    generator: str
    catalog: FileEntry
    counts: dict
    search: dict = field(default_factory=lambda: dict(DEFAULT_SEARCH))
    """Defaults every reader applies: mode, top_k, min_score, and the filter keys."""
    query_encoder: str = "static"
    """The encoder a reader's first query uses."""
    idle_encoder: str | None = None
    """The encoder a browser fetches in idle time after its first answer and uses for
    the queries after (`query_encoder: progressive`), or None."""

    def to_json(self) -> dict:
        return {"format": self.format, "generator": self.generator,
                "catalog": self.catalog.__dict__, "counts": self.counts,
                "search": self.search, "query_encoder": self.query_encoder,
                **({"idle_encoder": self.idle_encoder} if self.idle_encoder else {})}

    @classmethod
    def from_json(cls, data: object, source: Path | str) -> Manifest:
        fmt = data.get("format") if isinstance(data, dict) else None
        if fmt != FORMAT_VERSION:
            raise BundleError(
                f"{source} is bundle format {fmt!r}; this mkdocs-semantic-search "
                f"({__version__}) reads format {FORMAT_VERSION}: rebuild the site with this "
                "version, or install the version that wrote it"
            )
        check = Checker(str(source))
        catalog = check.dict(data, "catalog")
        name = check.str(catalog, "name", "catalog")
        if not CATALOG_NAME.match(name):
            check.fail(f"catalog.name {name!r} is not a catalog file name")
        counts = check.dict(data, "counts")
        search = check.dict(data, "search")
        mode = check.str(search, "mode", "search")
        if mode not in SEARCH_MODES:
            check.fail(f"search.mode {mode!r} is not one of {', '.join(SEARCH_MODES)}")
        min_score = search.get("min_score")
        if min_score is not None:
            check.number(search, "min_score", "search", -1.0, 1.0)
        filters = check.list(search, "filters", "search")
        if not all(isinstance(f, str) for f in filters):
            check.fail("search.filters must be a list of strings")
        encoder = check.str(data, "query_encoder")
        if encoder not in QUERY_ENCODERS:
            check.fail(f"query_encoder {encoder!r} is not one of {', '.join(QUERY_ENCODERS)}")
        idle = data.get("idle_encoder") if isinstance(data, dict) else None
        if idle is not None and (idle not in QUERY_ENCODERS or idle == encoder):
            check.fail(f"idle_encoder {idle!r} is not an encoder other than the query_encoder")
        return cls(
            format=fmt,
            generator=check.str(data, "generator"),
            catalog=FileEntry(name=name,
                              bytes=check.int(catalog, "bytes", "catalog", 0, MAX_CATALOG_BYTES),
                              sha256=check.hex(catalog, "sha256", "catalog", 64)),
            counts={"pages": check.int(counts, "pages", "counts", 0),
                    "chunks": check.int(counts, "chunks", "counts", 0)},
            search={"mode": mode, "top_k": check.int(search, "top_k", "search", 1, MAX_TOP_K),
                    "min_score": None if min_score is None else float(min_score),
                    "filters": list(filters)},
            query_encoder=encoder,
            idle_encoder=idle,
        )


