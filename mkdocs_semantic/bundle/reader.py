"""Reading a bundle: find it, check the manifest and catalog, verify every payload, and
load what searching needs (`read_bundle`); walks over the payloads a catalog names."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG
from typing import Protocol

import numpy as np

from ..chunk import Chunk
from ..constants import MAX_MANIFEST_BYTES
from ..files import sha256_file
from ..model.spec import DEFAULT_MODEL_SHA256, ModelSpec, default_model_spec
from .format import MANIFEST, BundleError, Manifest, check_catalog, check_directory
from .fragment_parts import first_parts
from .lexical import LexicalIndex
from .names import (
    Payload,
    PayloadError,
    check_name,
    deflated,
    inflate,
    self_checked_body,
    verify,
)
from .packs import PackRecords, PayloadRange
from .page_table import PageTable, parse_page_table
from .shard_lists import (
    ShardList,
    ShardReader,
    bucket_of,
    keyed_entries,
    page_shard,
    parse_shard_list,
    resolve,
)
from .stored_chunks import PageChunks
from .table import RowTable, TokenTable, token_ids_of
from .vectors import Vectors
from .vectors.partition_files import payloads_of_index, payloads_of_partition
from .vectors.store import read_exact, read_partitioned
from .vocabulary import Vocabulary, checked_shard, checked_spelling_shard
from .word_rows import FRAME, parse_word_shard
from .wordpieces import checked_keyed_list, checked_piece_shard, keyed_name


@dataclass
class Bundle:
    """A bundle read back and verified: manifest, catalog, chunks, vectors, keyword index."""

    root: Path
    manifest: Manifest
    catalog: dict
    pages: PageTable
    facets: dict
    """The facets payload: `pages` (key -> value -> page numbers) and, in the
    partitioned layout, `partitions` (key -> value -> the partitions holding their
    chunks)."""
    chunks: Sequence[Chunk]
    """Every chunk in chunk order: a list, or for a bundle downloaded without its shards
    a `PageChunks` that reads each page when one of its chunks is first asked for."""
    vectors: Vectors
    """A `VectorSet` as read; a portal's index in its place (`dataclasses.replace`)."""
    lexical: LexicalIndex
    table: TokenTable | RowTable | None
    files: list[Payload]
    """Every payload of the bundle (the catalog itself included)."""
    vocabulary: Vocabulary | None = None
    """The site's words (a bundle written before it had them: None)."""

    def prefetch(self, chunk_ids: Sequence[int] | np.ndarray) -> None:
        """Read the pages of these chunks now, together (a downloaded bundle fetches
        their excerpt and text shards at the same time rather than one by one)."""
        if isinstance(self.chunks, PageChunks):
            self.chunks.prefetch(self.pages.page_of_chunk[np.asarray(chunk_ids, dtype=np.int64)])

    def page_urls(self) -> list[str]:
        """Every page's URL, in page order."""
        if isinstance(self.chunks, PageChunks):
            return self.chunks.urls()
        return list(dict.fromkeys(c.url for c in self.chunks))

    def chunks_of_page(self, url: str) -> list[Chunk]:
        """The chunks of the page at `url`, in order (none when no page has it)."""
        if isinstance(self.chunks, PageChunks):
            return self.chunks.find(url)
        return [c for c in self.chunks if c.url == url]

    @property
    def scale(self) -> float:
        return self.vectors.scale

    def path_of(self, name: str) -> Path:
        return self.root / name

    def size_of(self, *prefixes: str) -> int:
        """Bytes of the payloads whose names start with one of `prefixes`."""
        return sum(p.bytes for p in self.files if p.name.startswith(prefixes))

    @property
    def static_tokenizer(self) -> Path | None:
        static = self.catalog["encoders"].get("static")
        return self.root / static["tokenizer"][0] if static else None

    def model_spec(self) -> ModelSpec:
        """The model that made the bundle's vectors: the bundle's own files when it ships
        them (and has them: a site read from its URL fetches no model), else the
        installed default model when it is the same one."""
        m = self.catalog["model"]
        transformer = self.catalog["encoders"].get("transformer")
        if transformer and "model" in transformer and (
                m["sha256"] != DEFAULT_MODEL_SHA256
                or (self.root / transformer["model"][0]).is_file()):
            model_path = self.root / transformer["model"][0]
            tokenizer_path = self.root / transformer["tokenizer"][0]
            if not model_path.is_file() or sha256_file(model_path) != m["sha256"]:
                raise BundleError(f"{model_path} is not the model the catalog names (changed "
                                  "or corrupt): rebuild the site")
        elif m["sha256"] == DEFAULT_MODEL_SHA256:
            installed = default_model_spec()
            model_path, tokenizer_path = installed.model_path, installed.tokenizer_path
        else:
            raise BundleError(
                f"{self.root} does not ship its model ({m['id']}), and it is not the "
                "installed default model: rebuild the site with query_encoder: transformer "
                "to query it with the model"
            )
        return ModelSpec(id=m["id"], model_path=model_path, tokenizer_path=tokenizer_path,
                         sha256=m["sha256"], pooling=m["pooling"], normalize=m["normalize"],
                         max_tokens=m["max_tokens"], query_prefix=m["query_prefix"],
                         document_prefix=m["document_prefix"], dim=m["dim"])


# --- reading -------------------------------------------------------------------------


def find_bundle_dir(path: Path) -> Path:
    """Accept a bundle directory or a site directory that holds one."""
    path = Path(path)
    if (path / MANIFEST).is_file():
        return path
    candidates = sorted(p.parent for p in path.glob(f"*/{MANIFEST}"))
    if len(candidates) == 1:
        return candidates[0]
    if not path.exists():
        raise BundleError(f"{path} does not exist: build the site first (mkdocs build)")
    if len(candidates) > 1:
        raise BundleError(
            f"{path} holds {len(candidates)} search bundles "
            f"({', '.join(c.name + '/' for c in candidates)}): point at the one to read")
    raise BundleError(
        f"no {MANIFEST} in {path} or its sub-folders: point at the site directory or "
        "its semantic/ folder, after a build with plugins: [semantic]"
    )


def parse_json(data: bytes, source: Path | str) -> object:
    """JSON from untrusted bytes: a clear BundleError for bad text or absurd nesting."""
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError as exc:
        raise BundleError(f"{source} is nested too deeply to be a bundle file: rebuild the "
                          "site") from exc
    except (UnicodeDecodeError, ValueError) as exc:
        raise BundleError(f"{source} is not valid JSON ({exc}): rebuild the site") from exc


def read_manifest(root: Path) -> Manifest:
    path = root / MANIFEST
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise BundleError(f"cannot read {path} ({exc}): rebuild the site") from exc
    if len(data) > MAX_MANIFEST_BYTES:
        raise BundleError(f"{path} is larger than {MAX_MANIFEST_BYTES >> 20} MB, which no "
                          "manifest is: rebuild the site")
    return Manifest.from_json(parse_json(data, path), path)


def read_payload(root: Path, name: str, size: int, sha256: str | None = None) -> bytes:
    """A payload's bytes, checked against its listed size and its hash."""
    path = root / name
    data = read_listed(root, path, size)
    if sha256 is not None:
        if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
            raise BundleError(f"{path} does not match manifest.json (truncated or changed): "
                              "rebuild the site")
        return data
    try:
        return verify(name, data, size=size)
    except PayloadError as exc:
        raise BundleError(f"{root}: {exc}: rebuild the site") from exc


def read_or_fetch_again(root: Path, name: str, size: int, fetch: PayloadFetch) -> bytes:
    """A payload of a downloaded bundle; a damaged copy is fetched again, once."""
    try:
        return read_payload(root, name, size)
    except BundleError as exc:
        if not (root / name).is_file() and not (root / name).is_symlink():
            raise
        log.warning("%s in the download cache was damaged: fetched it again (%s)",
                    name, exc)
        (root / name).unlink()
        fetch(name, size)
        return read_payload(root, name, size)


def read_listed(root: Path, path: Path, size: int) -> bytes:
    """The bytes of `path`, a file of the bundle in `root` the catalog lists at `size`
    bytes: refused before reading when it is no regular file inside the bundle folder
    (a link out of it, a device, a pipe) or not of that size."""
    try:
        real = path.resolve(strict=True)
        if not real.is_relative_to(root.resolve()):
            raise BundleError(f"{path} leads out of the bundle folder {root}: rebuild the site")
        stat = real.stat()
        if not S_ISREG(stat.st_mode):
            raise BundleError(f"{path} is not a regular file: rebuild the site")
        if stat.st_size != size:
            raise BundleError(f"{path} is {stat.st_size} bytes, the catalog lists {size} "
                              "(truncated or changed): rebuild the site")
        with real.open("rb") as fh:
            data = fh.read(size + 1)
    except OSError as exc:
        raise BundleError(f"{path} is missing or unreadable ({exc.strerror or exc}): "
                          "rebuild the site") from exc
    if len(data) != size:
        raise BundleError(f"{path} changed while it was read: rebuild the site")
    return data


def shard_list(value: object) -> ShardList:
    """A (checked) catalog shard list: its entries, its directories, or a keyed list's
    count and sizes file."""
    keys = value.get("first") or value.get("dirs", {}).get("first") if isinstance(
        value, dict) else None
    return parse_shard_list(value, str if keys and isinstance(keys[0], str) else int)


def _check_fragment_parts(catalog: dict, sizes: np.ndarray, source: Path | str) -> None:
    """BundleError unless the catalog's long pages' parts (if any) are as many as its page
    sizes give (bundle/fragment_parts.py)."""
    if "fragment_parts" not in catalog:
        return
    parts = catalog["fragment_parts"]
    made = int(first_parts(sizes, parts["chunks"])[-1])
    if made != parts["parts"]["count"]:
        raise BundleError(f"{source}: fragment_parts lists {parts['parts']['count']} parts, "
                          f"but the pages of more than {parts['chunks']} chunks make {made}: "
                          "rebuild the site")


def payload_json(name: str, data: bytes, source: Path | str) -> object:
    """The parsed JSON of payload `name`'s checked bytes (a self-checked one's check cut
    off, and inflated)."""
    body = self_checked_body(name, data)
    if deflated(name):
        try:
            body = inflate(body, name)
        except PayloadError as exc:
            raise BundleError(f"{source}: {exc}: rebuild the site") from exc
    return parse_json(body, source)


KEYED_LISTS = (("lexical", "shards"), ("fragments",), ("fragment_parts", "parts"),
               ("encoders", "static", "words"))
"""Where the catalog holds keyed lists (a path of keys)."""
CONTAINERS = ("index/", "lexical/lex", "lexical/sizes.", "fragments/sizes.", "parts/sizes.",
              "vectors/ivf.", "vectors/bin.", "pieces/keyed.", "words/sizes.")
"""The payloads that name other payloads (see `walk_payloads`)."""
ON_DEMAND = ("vectors/bin.", "vectors/row", "lexical/lex", "lexical/tail.", "fragments/frag",
             "parts/part", "text/", "table/", "vocabulary/", "pieces/", "words/")
"""The payloads a downloaded bundle fetches when a query first needs them: vector
partitions, keyword shards and tails, result fragments and long pages' parts, texts,
token table shards, vocabulary shards, word piece shards and word rows (their
directories, and the keyed lists' sizes files, come down with the catalog)."""
SHARD_LISTS = (("fragments",), ("fragment_parts", "parts"), ("text",), ("lexical", "shards"),
               ("vocabulary", "shards"), ("vocabulary", "spelling"),
               ("encoders", "static", "pieces", "shards"), ("encoders", "static", "words"))
"""Where the catalog holds shard lists (a path of keys)."""


def _at(catalog: dict, path: tuple[str, ...]) -> object | None:
    value: object = catalog
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


def walk_payloads(catalog: dict, read: Callable[[str, int], bytes], *,
                  expand: Callable[[Payload], bool] = lambda payload: True
                  ) -> Iterator[Payload]:
    """Every payload of a (checked) catalog's bundle: those the catalog names, then those
    named inside them (directory entries, keyword tails, the partitions a vector index
    names, a partition's rows file). A payload is yielded before it is read with
    `read(name, bytes)` for what it names, so a caller may fetch it first; `expand(p)`
    False leaves what `p` names out."""
    for level in walk_levels(catalog, read, expand=expand):
        yield from level


def walk_levels(catalog: dict, read: Callable[[str, int], bytes], *,
                expand: Callable[[Payload], bool] = lambda payload: True
                ) -> Iterator[list[Payload]]:
    """`walk_payloads` a level at a time: the payloads the catalog names, then those
    they name, and so on; a level is yielded before any of it is read, so a caller may
    fetch a whole level at once."""
    level: list[Payload] = [Payload(*catalog["pages"]["table"]), Payload(*catalog["facets"])]
    for path in SHARD_LISTS:
        value = _at(catalog, path)
        if value is not None:
            level += shard_list(value).payloads()
    for vectors in catalog["vectors"]:
        if vectors["layout"] == "partitioned":
            level += [Payload(*vectors["index"]), Payload(*vectors["centroids"])]
            level += [Payload(*entry) for entry in vectors.get("bits", [])]
        else:
            level += [Payload(name, size) for _, name, size in vectors["parts"]]
    for encoder in catalog["encoders"].values():
        level += [Payload(*encoder[key]) for key in ("tokenizer", "model") if key in encoder]
        if "weights" in encoder:
            level += [Payload(*encoder["weights"]["layers"]),
                      *(Payload(*file) for _, file in encoder["weights"]["words"])]
        if "pieces" in encoder:
            level.append(Payload(*encoder["pieces"]["keyed"]["list"]))
        if "rows" in encoder:
            level.append(Payload(*encoder["rows"]["pack"]))
    seen: set[str] = set()
    while level:
        fresh = []
        for payload in level:
            if payload.name not in seen:
                seen.add(payload.name)
                fresh.append(payload)
        if not fresh:
            return
        yield fresh
        level = [named for payload in fresh if expand(payload)
                 for named in _named_in(catalog, payload, read)]


def _named_in(catalog: dict, payload: Payload, read: Callable[[str, int], bytes]
              ) -> list[Payload]:
    """The payloads `payload` names (none for a payload that names none)."""
    name = payload.name
    if name.startswith("index/"):
        entries = check_directory(payload_json(name, read(name, payload.bytes), name), name)
        return [Payload(entry_name, size) for _, entry_name, size in entries]
    keyed = [shard_list(value) for value in (_at(catalog, path) for path in KEYED_LISTS)
             if value is not None] if "/sizes." in name else []
    shards = next((s for s in keyed if s.sizes is not None and s.sizes.name == name), None)
    if shards is not None:
        sizes = payload_json(name, read(name, payload.bytes), name)
        try:
            return [Payload(entry_name, size)
                    for _, entry_name, size in keyed_entries(shards, sizes)]
        except ValueError as exc:
            raise BundleError(f"{exc}: rebuild the site") from exc
    if name.startswith("lexical/lex"):
        shard = payload_json(name, read(name, payload.bytes), name)
        tails = shard.get("tails") if isinstance(shard, dict) else None
        if not isinstance(tails, list):
            raise BundleError(f"{name} is not a keyword index shard: rebuild the site")
        out = []
        for entry in tails:
            if not (isinstance(entry, list) and len(entry) == 3
                    and isinstance(entry[2], int) and not isinstance(entry[2], bool)):
                raise BundleError(f"{name} lists a malformed tail: rebuild the site")
            out.append(Payload(check_payload_name(entry[1], name), entry[2]))
        return out
    if name.startswith("pieces/keyed."):
        digest = catalog["encoders"]["static"]["pieces"]["keyed"]["hash"]
        data = parse_json(read(name, payload.bytes), name)
        try:
            listed = checked_keyed_list(data, name)
        except ValueError as exc:
            raise BundleError(f"{exc}: rebuild the site") from exc
        return [Payload(keyed_name(stem, digest), size) for stem, size in listed]
    spec = catalog["vectors"][0]
    if spec["layout"] == "partitioned" and name == spec["index"][0]:
        return [Payload(n, size) for n, size in payloads_of_index(spec, read(name,
                                                                              payload.bytes))]
    if name.startswith("vectors/bin."):
        return [Payload(n, size) for n, size in payloads_of_partition(
            spec, read(name, payload.bytes), name)]
    return []


def payloads_of(catalog: dict, root: Path) -> list[Payload]:
    """Every payload of the bundle in `root` (reading the directories and the other
    payloads that name payloads, each verified)."""
    return list(walk_payloads(catalog, lambda name, size: read_payload(root, name, size)))


def check_payload_name(name: object, source: str) -> str:
    try:
        return check_name(name)
    except PayloadError as exc:
        raise BundleError(f"{source}: {exc}: rebuild the site") from exc


def read_catalog(root: Path, manifest: Manifest) -> dict:
    entry = manifest.catalog
    catalog = parse_json(read_payload(root, entry.name, entry.bytes, entry.sha256),
                         root / entry.name)
    return check_catalog(catalog, manifest, root / entry.name)


def browser_forward_pass(root: Path) -> str | None:
    """How browsers run the model of the bundle in `root`: `bert` (the client's own
    forward pass over the weights it ships), `onnx` (onnxruntime-web over its ONNX
    file), or None (it ships no model)."""
    transformer = read_catalog(root, read_manifest(root))["encoders"].get("transformer")
    if transformer is None:
        return None
    return "bert" if "weights" in transformer else "onnx"


log = logging.getLogger("mkdocs_semantic")

PayloadFetch = Callable[[str, int], None]
"""Brings one payload (name, bytes) into a bundle folder that lacks it."""


class LocatedBundle(Protocol):
    """Where a bundle is, and how to fetch what it lacks (as `open_source` gives)."""

    @property
    def bundle_dir(self) -> Path: ...

    @property
    def fetch(self) -> PayloadFetch | None: ...

    @property
    def fetch_range(self) -> PayloadRange | None: ...


def _check_word_rows(catalog: dict, shards: list[tuple], read: Callable[[str, int], bytes],
                     root: Path) -> None:
    """Every word rows shard (bundle/word_rows.py) well formed, each word in its own;
    `shards`: their entries (number, name, bytes), in a packed list or one with sizes."""
    dim = catalog["encoders"]["static"]["dim"]
    frame = bucket_of(FRAME, len(shards))
    for number, (_, name, size) in enumerate(shards):
        try:
            held = parse_word_shard(payload_json(name, read(name, size), root / name), dim,
                                    name)
            if any(bucket_of(word, len(shards)) != number for word in held):
                raise ValueError(f"{name} holds a word of another shard")
            if number == frame and FRAME not in held:
                raise ValueError(f"{name} lacks the special tokens' row")
        except BundleError:
            raise
        except ValueError as exc:
            raise BundleError(f"{root / name}: {exc}: rebuild the site") from exc


def read_bundle(path: Path, *, fetch: PayloadFetch | None = None,
                fetch_range: PayloadRange | None = None) -> Bundle:
    """Read and verify a bundle: every payload against its listed size and its hash.

    `fetch`: for a bundle downloaded without the payloads a query reads a few of (a
    URL source's `Source.fetch`), what brings each one, verified the same way, when a
    query first needs it; `fetch_range` (`Source.fetch_range`), what reads one record of
    the query table's pack.
    """
    root = find_bundle_dir(Path(path))
    manifest = read_manifest(root)
    catalog = read_catalog(root, manifest)
    read_once: dict[str, bytes] = {}
    records: dict[str, tuple[Payload, int]] = {}  # a packed list's shard -> (its file, offset)
    loaded = False
    lazy = fetch is not None

    def read(name: str, size: int) -> bytes:
        """A payload's verified bytes (fetched first when a downloaded bundle lacks it; a
        packed list's shard read from its file); while the bundle loads, those that name
        other payloads are read once, for `walk_payloads` below (the vector set keeps
        `read` for later queries)."""
        if name in records:
            pack, offset = records[name]
            try:
                return verify(name, read_record(pack.name, pack.bytes, offset, size), size=size)
            except PayloadError as exc:
                raise BundleError(f"{root / pack.name}: {exc}: rebuild the site") from exc
        if name in read_once:
            return read_once[name]
        if fetch is not None and not (root / name).is_file():
            fetch(name, size)
        data = read_payload(root, name, size) if fetch is None else \
            read_or_fetch_again(root, name, size, fetch)
        if not loaded and name.startswith(CONTAINERS):
            read_once[name] = data
        return data

    def load_json(name: str, size: int) -> object:
        return payload_json(name, read(name, size), root / name)

    def load_checked(check: Callable[[object], object]) -> Callable[[str, int], object]:
        """A loader of JSON shards that `check` parses (ValueError when malformed)."""
        def load(name: str, size: int) -> object:
            try:
                return check(load_json(name, size))
            except BundleError:
                raise
            except ValueError as exc:
                raise BundleError(f"{root / name}: {exc}: rebuild the site") from exc
        return load

    def entries(value: object) -> list[tuple]:
        listed = shard_list(value)
        found = resolve(listed, lambda name, size: check_directory(
            load_json(name, size), name), load_json)
        if listed.pack is not None:
            offset = 0
            for _, name, size in found:
                records[name] = (listed.pack, offset)
                offset += size
        return found

    read_record = PackRecords(read, fetch_range=fetch_range if lazy else None,
                              held=lambda name: (root / name).is_file())
    counts = manifest.counts
    try:
        table_name, table_size = catalog["pages"]["table"]
        pages = parse_page_table(read(table_name, table_size), pages=counts["pages"],
                                 chunks=counts["chunks"])
    except BundleError:
        raise
    except ValueError as exc:
        raise BundleError(f"{root / table_name} {exc}: rebuild the site") from exc
    starts = pages.starts
    _check_fragment_parts(catalog, np.diff(starts), root / manifest.catalog.name)
    try:
        facets = _check_facets(load_json(*catalog["facets"]), pages=counts["pages"],
                               partitions=catalog["vectors"][0].get("partitions"))
        fragments = ShardReader(entries(catalog["fragments"]), load_json, locate=page_shard)
        texts = ShardReader(entries(catalog["text"]), load_json)
        paged = PageChunks(fragments=fragments, texts=texts, starts=starts,
                           boosts=catalog["pages"]["boosts"], facets=facets["pages"],
                           source=str(root))
        lex = catalog["lexical"]
        terms = ShardReader(entries(lex["shards"]), load_json, locate=bucket_of)
        vocabulary = None
        if "vocabulary" in catalog:
            words = ShardReader(entries(catalog["vocabulary"]["shards"]),
                                load_checked(checked_shard))
            spelling = ShardReader(entries(catalog["vocabulary"]["spelling"]),
                                   load_checked(checked_spelling_shard))
            vocabulary = Vocabulary(words, spelling)
            if not lazy:
                for shards in (words, spelling):
                    for number in range(len(shards.entries)):
                        shards.shard(number)
        pieces = catalog["encoders"].get("static", {}).get("pieces")
        if pieces is not None and not lazy:  # only browsers read them: checked here
            load_piece_shard = load_checked(checked_piece_shard)
            for _, name, size in entries(pieces["shards"]):
                load_piece_shard(name, size)
            listed = Payload(*pieces["keyed"]["list"])
            for keyed in _named_in(catalog, listed, read):
                shard = payload_json(keyed.name, read(keyed.name, keyed.bytes),
                                     root / keyed.name)
                try:
                    checked_piece_shard(shard)
                except ValueError as exc:
                    raise BundleError(f"{root / keyed.name}: {exc}: rebuild the site") from exc
        words = catalog["encoders"].get("static", {}).get("words")
        if words is not None and not lazy:  # only browsers read them: checked here
            _check_word_rows(catalog, entries(words), read, root)
        if lazy:
            chunks: Sequence[Chunk] = paged
            lexical = LexicalIndex.lazy(
                terms, starts=starts, count=lex["count"], scale=float(lex["scale"]),
                head=lex["head"], read_tail=load_json,
                failed=lambda exc: exc if isinstance(exc, BundleError) else BundleError(
                    f"the keyword index in {root} is malformed ({exc}): rebuild the site"))
        else:
            for reader, what in ((fragments, "fragments"), (texts, "text")):
                _check_pages_held(reader, counts["pages"], what)
            chunks = list(paged)
            _check_buckets(terms)
            lexical = LexicalIndex.from_shards(
                [terms.shard(n) for n in range(len(terms.entries))], starts=starts,
                count=lex["count"], scale=float(lex["scale"]), head=lex["head"],
                read_tail=load_json)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        if isinstance(exc, BundleError):
            raise
        raise BundleError(f"the chunk files in {root} are malformed ({exc}): rebuild the "
                          "site") from exc
    spec = catalog["vectors"][0]
    if spec["layout"] == "partitioned":
        vectors = read_partitioned(spec, starts, read, read_record=read_record, lazy=lazy)
    else:
        vectors = read_exact(root, spec, starts, lambda name, size: read_payload(root, name,
                                                                                 size))
    static = catalog["encoders"].get("static")
    table: TokenTable | RowTable | None = None
    if static:
        pack_name, pack_size = static["rows"]["pack"]
        table = RowTable(token_ids_of(static["rows"]["ids"]),
                         digest=static["rows"]["table"], dim=static["dim"],
                         scale=float(static["scale"]), pack=pack_name,
                         read_record=lambda offset, size: read_record(pack_name, pack_size,
                                                                      offset, size))
        if not lazy:
            table = TokenTable(token_ids=table.token_ids, rows=table.rows_for(table.token_ids),
                               scale=table.scale)
    for encoder in catalog["encoders"].values():
        read_payload(root, *encoder["tokenizer"])
        if "model" in encoder:  # 23 MB: checked here by size, by hash when loaded
            name, size = encoder["model"]
            if not (root / name).is_file() or (root / name).stat().st_size != size:
                raise BundleError(f"{root / name} is missing or does not match the catalog: "
                                  "rebuild the site")
    # a downloaded bundle may lack partitions: what they name is listed once they are read
    def here(payload: Payload) -> bool:
        return fetch is None or not payload.name.startswith(ON_DEMAND)

    files = [Payload(manifest.catalog.name, manifest.catalog.bytes),
             *walk_payloads(catalog, read, expand=here)]
    loaded = True
    read_once.clear()
    if not lazy:  # every record is read: the packs need not stay in memory
        read_record.forget()
    return Bundle(root=root, manifest=manifest, catalog=catalog, pages=pages, facets=facets,
                  chunks=chunks, vectors=vectors, lexical=lexical, table=table, files=files,
                  vocabulary=vocabulary)


def _check_buckets(terms: ShardReader) -> None:
    """That each keyword shard holds only the terms a reader looks for in it (ValueError
    naming the shard if not): a term elsewhere would be found here and missed in a
    browser."""
    count = len(terms.entries)
    for number, (_, name, _) in enumerate(terms.entries):
        shard = terms.shard(number)
        held = shard.get("terms") if isinstance(shard, dict) else None
        if not isinstance(held, list) or any(bucket_of(t, count) != number for t in held):
            raise ValueError(f"{name} holds a term that is not its shard's")


def _check_pages_held(reader: ShardReader, pages: int, what: str) -> None:
    """That the shards of `reader` hold every page once, in order (ValueError if not)."""
    held = 0
    for number, (first, name, _) in enumerate(reader.entries):
        rows = reader.shard(number)
        if reader.locate is page_shard and not (isinstance(rows, list) and len(rows) == 1):
            raise ValueError(f"{name} does not hold page {number} alone")
        if first != held or not isinstance(rows, list):
            raise ValueError(f"the {what} shards do not hold pages {held} on in order")
        held += len(rows)
    if held != pages:
        raise ValueError(f"{held} pages of {what} for {pages} pages")


def _check_facets(facets: object, *, pages: int, partitions: int | None) -> dict:
    """The facets payload's structure (ValueError when it is not one)."""
    if not isinstance(facets, dict) or not isinstance(facets.get("pages"), dict):
        raise ValueError("the facets payload has no pages")
    kinds = [("pages", pages)] + ([("partitions", partitions)] if partitions is not None
                                  else [])
    for kind, limit in kinds:
        for key, values in facets.get(kind, {}).items():
            if not isinstance(values, dict) or not all(
                    isinstance(v, list) and all(isinstance(n, int) and not isinstance(n, bool)
                                                and 0 <= n < limit for n in v)
                    for v in values.values()):
                raise ValueError(f"facets {kind}.{key} must map values to lists of numbers "
                                 f"below {limit}")
    if partitions is not None and not isinstance(facets.get("partitions"), dict):
        raise ValueError("the facets payload has no partitions")
    return facets
