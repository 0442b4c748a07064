"""The search bundle (format 5): `write_bundle` and `read_bundle`, side by side.

Layout of `<site>/<bundle_dir>/`:

- `manifest.json`, small and never cached long: `format`, `generator`, `catalog` (name,
  bytes, sha256), `counts` (pages, chunks), `search` (defaults every reader applies:
  mode, top_k, min_score, filters) and `query_encoder` (`static` or
  `transformer`: how readers embed a query by default).
- `catalog.<h>.json`: what a reader needs to plan its downloads. Its size does not grow
  with the site's: every list that would is a payload, or a shard list (shard_lists.py:
  in the catalog while short, else in directories of 256 entries).
  - `model`: the document model (id, sha256, dim, pooling, normalize, max_tokens, prefixes);
  - `pages`: `count`, `boosts` (page -> search.boost, where not 1) and `table`, the page
    table payload (page_table.py: chunks per page, which chunks continue a section);
  - `facets`: the payload that maps filter key -> value -> pages (and the partitions
    holding their chunks), read by filtered queries only;
  - `fragments`, `text`: shard lists of pages (first page);
  - `lexical`: `version`, `scale`, `count`, `stopwords`, `head` (postings a term keeps
    for unfiltered queries) and a shard list of terms (first term);
  - `vectors`: vector sets, each `{model, dtype, scale, dim, metric, sum, layout, ...}`
    (vector_store.py): `exact` with `parts` (first page), or `partitioned` with
    `partitions`, `probe_rows`, `candidates`, `index` and `centroids`;
  - `encoders`: `static` (`vectors`: the set it queries, `tokenizer`, `max_tokens`,
    `dtype`, `scale`, `dim`, a shard list of token ids) and, when the site ships its
    model, `transformer` (`vectors`, `model`, `tokenizer`).
- payloads, named by content hash (see payloads.py), in folders:
  - `pages/pages.<h>.bin`: the page table; `facets/facets.<h>.json`: the facets;
  - `index/<kind>.<h>.json`: a shard list's directory, `[[first key, name, bytes], ...]`;
  - `fragments/frag.<h>.json`: per page `[url, title, section, [[anchor, path, excerpt,
    kind], ...]]`, kind `p` (page lead) or `s` (section); the excerpt is the text results
    may show (about 480 characters, see `chunking.excerpt_parts`): a string, or where it
    holds code a list alternating prose and code, prose first (`["Run", "make all", "."]`);
  - `text/text.<h>.json`: per page `[[text, anchors, anchor, path], ...]` (Python
    readers only; the chunk's own anchor and heading path, where fragments hold the
    deep link and the path results show);
  - `vectors/...`: see vector_store.py;
  - `lexical/lex.<h>.json` and `lexical/tail.<h>.json`: see `LexicalIndex.to_shards`;
  - `table/tab.<h>.bin`: u32 n, n u32 token ids ascending, n x dim int8 rows;
  - `model/model.<h>.onnx`, `model/tokenizer.<h>.json`.

Chunk ids are positions in page order: chunk `starts[page] + local`. Everything a page
owns is addressed by page and position, so an edit to one page leaves the payloads of
the others unchanged unless they share a shard.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import __version__
from .bundle_chunks import PageChunks
from .bundle_dir import (
    API_ENTRY,
    CATALOG_NAME,
    CLIENT_FOLDER,
    OLD_PAYLOAD,
    PAYLOAD_FOLDERS,
    bundle_dir_problem,
    claim_bundle_dir,
    foreign_entries,
)
from .bundle_format import (
    DEFAULT_SEARCH,
    FORMAT_VERSION,
    FRAGMENT_SHARD_BYTES,
    KIND_CODES,
    LEXICAL_SHARD_BYTES,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    MAX_TOP_K,
    METRIC,
    QUERY_ENCODERS,
    SCALAR_BYTES,
    SEARCH_MODES,
    STATIC_MAX_TOKENS,
    TABLE_SHARD_ROWS,
    TEXT_SHARD_BYTES,
    VECTOR_LAYOUTS,
    BundleError,
    Checker,
    check_catalog,
    check_directory,
)
from .chunking import Chunk
from .embedding import DEFAULT_MODEL_SHA256, ModelSpec, default_model_spec
from .files import atomic_write, sha256_file
from .lexical import SHARD_VERSION, STOPWORDS, LexicalFields, LexicalIndex
from .page_table import (
    MAX_PAGE_CHUNKS,
    PageTable,
    continuations,
    page_table_bytes,
    parse_page_table,
)
from .payloads import (
    HASH_CHARS,
    Payload,
    PayloadError,
    check_name,
    group_by_size,
    json_bytes,
    verify,
    write_payload,
)
from .quantize import Quantized
from .shard_lists import ShardList, ShardReader, resolve, write_shard_list
from .vector_store import (
    VectorSet,
    column_sums,
    payloads_of_index,
    payloads_of_partition,
    read_exact,
    read_partitioned,
    write_vectors,
)

__all__ = [
    "API_ENTRY", "CLIENT_FOLDER", "FORMAT_VERSION", "MANIFEST", "QUERY_ENCODERS", "Bundle",
    "BundleError", "FileEntry", "Manifest", "TokenTable", "VectorSet", "bundle_dir_problem",
    "check_catalog", "claim_bundle_dir", "filter_keys", "find_bundle_dir", "foreign_entries",
    "lexical_fields", "payloads_of", "read_bundle", "read_catalog", "read_manifest",
    "read_payload", "write_bundle",
]


@dataclass(frozen=True)
class FileEntry:
    """One file of the bundle as the manifest lists it: its name, its size in bytes
    and the SHA-256 of its content (hex), which readers check before using it."""

    name: str
    bytes: int
    sha256: str


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


def _rows_for(token_ids: np.ndarray, rows: np.ndarray, ids: Sequence[int]) -> np.ndarray:
    if not len(token_ids):
        return rows[:0]
    wanted = np.asarray(ids, dtype=np.int64)
    at = np.minimum(np.searchsorted(token_ids, wanted), len(token_ids) - 1)
    return rows[at[token_ids[at] == wanted]]


@dataclass
class Manifest:
    format: int
    generator: str
    catalog: FileEntry
    counts: dict
    search: dict = field(default_factory=lambda: dict(DEFAULT_SEARCH))
    """Defaults every reader applies: mode, top_k, min_score, and the filter keys."""
    query_encoder: str = "static"

    def to_json(self) -> dict:
        return {"format": self.format, "generator": self.generator,
                "catalog": self.catalog.__dict__, "counts": self.counts,
                "search": self.search, "query_encoder": self.query_encoder}

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
        return cls(
            format=fmt,
            generator=check.str(data, "generator"),
            catalog=FileEntry(name=name, bytes=check.int(catalog, "bytes", "catalog", 0),
                              sha256=check.hex(catalog, "sha256", "catalog", 64)),
            counts={"pages": check.int(counts, "pages", "counts", 0),
                    "chunks": check.int(counts, "chunks", "counts", 0)},
            search={"mode": mode, "top_k": check.int(search, "top_k", "search", 1, MAX_TOP_K),
                    "min_score": None if min_score is None else float(min_score),
                    "filters": list(filters)},
            query_encoder=encoder,
        )


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
    vectors: VectorSet
    lexical: LexicalIndex
    table: TokenTable | ShardedTokenTable | None
    files: list[Payload]
    """Every payload of the bundle (the catalog itself included)."""

    def prefetch(self, chunk_ids: Sequence[int]) -> None:
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
        them, else the installed default model when it is the same one."""
        m = self.catalog["model"]
        transformer = self.catalog["encoders"].get("transformer")
        if transformer:
            model_path = self.root / transformer["model"][0]
            tokenizer_path = self.root / transformer["tokenizer"][0]
            if sha256_file(model_path) != m["sha256"]:
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


# --- writing -------------------------------------------------------------------------


def write_bundle(out: Path, *, chunks: list[Chunk], stored: Quantized, spec: ModelSpec,
                 lexical: LexicalIndex | None = None, search: dict | None = None,
                 table: TokenTable | None = None, query_encoder: str = "static",
                 model_sha256: str | None = None, vector_layout: str = "auto",
                 previous_centroids: np.ndarray | None = None) -> Manifest:
    """Write the bundle into `out`, replacing an older one; returns its manifest.

    `chunks` must be grouped by page. `table` is the static query encoder's (required
    when `query_encoder` is `static`); the model files are shipped only for
    `query_encoder: transformer`. `vector_layout`: `exact`, `partitioned` (int8 only)
    or `auto` (partitioned from PARTITIONED_MIN_BYTES of int8 vectors up; see
    partitions.py). `previous_centroids`: the partition centroids of the build before
    (`layout_basis`), so that unchanged chunks keep their partitions. Raises BundleError,
    writing nothing, if `out` holds files this package did not write.
    """
    claim_bundle_dir(out)
    if len(chunks) != len(stored.vectors):
        raise ValueError(f"{len(chunks)} chunks but {len(stored.vectors)} vectors")
    if query_encoder not in QUERY_ENCODERS:
        raise ValueError(f"unknown query encoder {query_encoder!r}")
    if query_encoder == "static" and table is None:
        raise ValueError("the static query encoder needs its token table")
    if vector_layout not in VECTOR_LAYOUTS:
        raise ValueError(f"unknown vector layout {vector_layout!r}: use one of "
                         f"{', '.join(VECTOR_LAYOUTS)}")
    if vector_layout == "partitioned" and stored.dtype != "i8":
        raise ValueError(f"the partitioned vector layout stores int8 vectors, not "
                         f"{stored.dtype}: use dtype i8 or vector_layout exact")
    pages = _pages_of(chunks)
    starts = np.array([p[0] for p in pages] + [len(chunks)], dtype=np.int64)
    if lexical is None:
        lexical = LexicalIndex.build([lexical_fields(c) for c in chunks])
    out.mkdir(parents=True, exist_ok=True)
    written: list[Payload] = []

    def put(folder: str, stem: str, ext: str, data: bytes) -> list:
        payload = write_payload(out, folder=folder, stem=stem, ext=ext, data=data)
        written.append(payload)
        return payload.to_json()

    for _, page in pages:
        if len(page) > MAX_PAGE_CHUNKS:
            raise BundleError(f"{page[0].url} has {len(page)} chunks, more than the "
                              f"{MAX_PAGE_CHUNKS} a bundle holds for one page: split the "
                              "page, or leave it out of the index (exclude)")
    table_bytes = page_table_bytes(PageTable(
        counts=np.diff(starts), continues=continuations([[c.anchor for c in page]
                                                         for _, page in pages])))
    fragments = [[c[0].url, c[0].title, c[0].section,
                  [[x.link_anchor or x.anchor, x.path if x.link_path is None else x.link_path,
                    _stored_excerpt(x),
                    KIND_CODES[x.kind]] for x in c]]
                 for _, c in pages]
    # The chunk's own anchor and heading path, where fragments hold what results show:
    # Python readers rebuild the chunk as it was embedded (its embed_text, its cache key).
    texts = [[[x.text, x.anchors, x.anchor, x.path] for x in c] for _, c in pages]
    dim = int(stored.vectors.shape[1]) if len(stored.vectors) else (spec.dim or 0)
    row_bytes = dim * SCALAR_BYTES[stored.dtype]
    model = spec.manifest_entry()
    model["sha256"] = model_sha256 or spec.sha256
    model["dim"] = dim
    vector_fields, partition_of_chunk = write_vectors(
        put, stored, starts, row_bytes=row_bytes, layout=vector_layout,
        previous=previous_centroids)
    lexical_shards = [
        [first, *put("lexical", "lex", "json", json_bytes(shard))]
        for first, shard in lexical.to_shards(
            starts, target_bytes=LEXICAL_SHARD_BYTES,
            put_tail=lambda data: put("lexical", "tail", "json", data))]
    catalog: dict = {
        "model": model,
        "pages": {
            "count": len(pages),
            "boosts": {str(i): c[0].boost for i, (_, c) in enumerate(pages)
                       if c[0].boost != 1},
            "table": put("pages", "pages", "bin", table_bytes),
        },
        "facets": put("facets", "facets", "json",
                      json_bytes(_facets(pages, starts, partition_of_chunk))),
        "fragments": write_shard_list(_page_shards(put, "fragments", "frag", "json", fragments,
                                                   FRAGMENT_SHARD_BYTES), "frag", put),
        "text": write_shard_list(_page_shards(put, "text", "text", "json", texts,
                                              TEXT_SHARD_BYTES), "text", put),
        "lexical": {
            "version": SHARD_VERSION, "scale": lexical.scale, "count": lexical.count,
            "stopwords": sorted(STOPWORDS), "head": lexical.head,
            "shards": write_shard_list(lexical_shards, "lex", put),
        },
        "vectors": [{
            "model": model["id"], "dtype": stored.dtype, "scale": stored.scale, "dim": dim,
            "metric": METRIC, "sum": column_sums(stored.vectors, dim), **vector_fields,
        }],
        "encoders": {},
    }
    tokenizer = None
    if table is not None or query_encoder == "transformer":
        tokenizer = _copy_payload(out, written, "model", "tokenizer", spec.tokenizer_path)
    if table is not None:
        catalog["encoders"]["static"] = {
            "vectors": 0, "tokenizer": tokenizer, "max_tokens": STATIC_MAX_TOKENS,
            "dtype": "i8", "scale": table.scale, "dim": int(table.rows.shape[1]),
            "shards": write_shard_list(_table_shards(put, table), "tab", put),
        }
    if query_encoder == "transformer":
        catalog["encoders"]["transformer"] = {
            "vectors": 0, "tokenizer": tokenizer,
            "model": _copy_payload(out, written, "model", "model", spec.model_path,
                                   digest=model["sha256"]),
        }
    data = json_bytes(catalog)
    digest = hashlib.sha256(data).hexdigest()
    catalog_name = f"catalog.{digest[:HASH_CHARS]}.json"
    atomic_write(out / catalog_name, data, shared=True)
    manifest = Manifest(
        format=FORMAT_VERSION,
        generator=f"mkdocs-semantic-search {__version__}",
        catalog=FileEntry(name=catalog_name, bytes=len(data), sha256=digest),
        counts={"pages": len(pages), "chunks": len(chunks)},
        search={**DEFAULT_SEARCH, **(search or {}), "filters": filter_keys(chunks)},
        query_encoder=query_encoder,
    )
    atomic_write(out / MANIFEST, json.dumps(manifest.to_json(), indent=1).encode("utf-8"),
                 shared=True)
    _remove_stale(out, keep={catalog_name, *(p.name for p in written)})
    return manifest


def _stored_excerpt(chunk: Chunk) -> str | list[str]:
    """A chunk's excerpt parts; one string when it holds no code (as format 2 first had)."""
    parts = chunk.excerpt_parts
    return parts if len(parts) > 1 else (parts[0] if parts else "")


def _pages_of(chunks: list[Chunk]) -> list[tuple[int, list[Chunk]]]:
    """(first chunk id, chunks) of each page; the chunks of a page must be adjacent."""
    pages: list[tuple[int, list[Chunk]]] = []
    seen: set[str] = set()
    for i, chunk in enumerate(chunks):
        if pages and pages[-1][1][0].url == chunk.url:
            pages[-1][1].append(chunk)
            continue
        if chunk.url in seen:
            raise ValueError(f"the chunks of {chunk.url!r} are not adjacent: group by page")
        seen.add(chunk.url)
        pages.append((i, [chunk]))
    return pages


def _facets(pages: list[tuple[int, list[Chunk]]], starts: np.ndarray,
            partition_of_chunk: np.ndarray | None) -> dict:
    """The facets payload: filter key -> value -> the pages that have it (`pages`) and,
    in the partitioned layout, the partitions that hold their chunks (`partitions`)."""
    facets: dict[str, dict[str, list[int]]] = {"section": {}}
    for number, (_, page) in enumerate(pages):
        lead = page[0]
        facets["section"].setdefault(lead.section, []).append(number)
        for key, values in lead.facets.items():
            for value in dict.fromkeys(values):
                facets.setdefault(key, {}).setdefault(value, []).append(number)
    out: dict = {"pages": facets}
    if partition_of_chunk is not None:
        out["partitions"] = {
            key: {value: np.unique(np.concatenate([
                partition_of_chunk[starts[p]:starts[p + 1]] for p in numbers])).tolist()
                  for value, numbers in values.items()}
            for key, values in facets.items()}
    return out


def _page_shards(put, folder: str, stem: str, ext: str, rows: list, target: int) -> list:
    encoded = [json_bytes(row) for row in rows]
    cuts = group_by_size([len(e) for e in encoded], target) if rows else []
    return [[a, *put(folder, stem, ext, b"[" + b",".join(encoded[a:b]) + b"]")]
            for a, b in zip(cuts, [*cuts[1:], len(rows)])]


def _table_shards(put, table: TokenTable) -> list:
    ids = np.asarray(table.token_ids, dtype="<u4")
    rows = np.asarray(table.rows, dtype=np.int8)
    shards = []
    for a in range(0, len(ids), TABLE_SHARD_ROWS):
        part = ids[a:a + TABLE_SHARD_ROWS]
        data = (np.array([len(part)], dtype="<u4").tobytes() + part.tobytes()
                + rows[a:a + TABLE_SHARD_ROWS].tobytes())
        shards.append([int(part[0]), *put("table", "tab", "bin", data)])
    return shards


def _copy_payload(out: Path, written: list[Payload], folder: str, stem: str, source: Path,
                  digest: str | None = None) -> list:
    """Copy a large file under its hashed name without reading it twice."""
    if digest is None:
        digest = sha256_file(source)
    ext = source.suffix.lstrip(".")
    name = f"{folder}/{stem}.{digest[:HASH_CHARS]}.{ext}"
    target = out / name
    size = source.stat().st_size
    if not (target.is_file() and target.stat().st_size == size):
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}-copy")
        shutil.copyfile(source, tmp)
        tmp.replace(target)
    written.append(Payload(name=name, bytes=size))
    return [name, size]


def _remove_stale(out: Path, keep: set[str]) -> None:
    """Delete this package's payloads (and older formats' files) that `keep` does not list."""
    for entry in out.iterdir():
        if entry.is_file() and (CATALOG_NAME.match(entry.name)
                                or OLD_PAYLOAD.match(entry.name)) and entry.name not in keep:
            entry.unlink()
        elif entry.is_dir() and entry.name in PAYLOAD_FOLDERS:
            for item in entry.iterdir():
                if f"{entry.name}/{item.name}" not in keep:
                    item.unlink()
            if not any(entry.iterdir()):
                entry.rmdir()


def lexical_fields(chunk: Chunk) -> LexicalFields:
    return LexicalFields(title=chunk.title, heading=" ".join(chunk.path), body=chunk.text)


def filter_keys(chunks: list[Chunk]) -> list[str]:
    """The keys a reader may filter on: `section`, then every facet some page has."""
    keys = dict.fromkeys(["section"])
    for chunk in chunks:
        keys.update(dict.fromkeys(chunk.facets))
    return list(keys)


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
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BundleError(f"{path} is missing or unreadable ({exc}): rebuild the site") \
            from exc
    if sha256 is not None:
        if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
            raise BundleError(f"{path} does not match manifest.json (truncated or changed): "
                              "rebuild the site")
        return data
    try:
        return verify(name, data, size=size)
    except PayloadError as exc:
        raise BundleError(f"{root}: {exc}: rebuild the site") from exc


def shard_list(value: object) -> ShardList:
    """A (checked) catalog shard list: its entries, or its directories."""
    if isinstance(value, dict):
        return ShardList(entries=None, dirs=tuple(tuple(d) for d in value["dirs"]))
    return ShardList(entries=tuple(tuple(e) for e in value))


CONTAINERS = ("index/", "lexical/lex.", "vectors/ivf.", "vectors/bin.")
"""The payloads that name other payloads (see `walk_payloads`)."""
ON_DEMAND = ("vectors/bin.", "vectors/row.", "lexical/", "fragments/", "text/", "table/")
"""The payloads a downloaded bundle fetches when a query first needs them: vector
partitions, keyword shards and tails, result fragments, texts and token table shards
(their directories come down with the catalog)."""
SHARD_LISTS = (("fragments",), ("text",), ("lexical", "shards"), ("encoders", "static",
                                                                   "shards"))
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
        else:
            level += [Payload(name, size) for _, name, size in vectors["parts"]]
    for encoder in catalog["encoders"].values():
        level += [Payload(*encoder[key]) for key in ("tokenizer", "model") if key in encoder]
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
        entries = check_directory(parse_json(read(name, payload.bytes), name), name)
        return [Payload(entry_name, size) for _, entry_name, size in entries]
    if name.startswith("lexical/lex."):
        shard = parse_json(read(name, payload.bytes), name)
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


def read_bundle(path: Path) -> Bundle:
    """Read and verify a bundle: every payload against its listed size and its hash.

    A bundle downloaded from a URL without its vector partitions (remote.fetch_bundle)
    fetches each one, verified the same way, when a query first needs it.
    """
    from .remote import payload_fetcher

    root = find_bundle_dir(Path(path))
    manifest = read_manifest(root)
    catalog = read_catalog(root, manifest)
    fetch = payload_fetcher(root)
    read_once: dict[str, bytes] = {}
    loaded = False

    def read(name: str, size: int) -> bytes:
        """A payload's verified bytes (fetched first when a downloaded bundle lacks it);
        while the bundle loads, those that name other payloads are read once, for
        `walk_payloads` below (the vector set keeps `read` for later queries)."""
        if name in read_once:
            return read_once[name]
        if fetch is not None and not (root / name).is_file():
            fetch(name, size)
        data = read_payload(root, name, size)
        if not loaded and name.startswith(CONTAINERS):
            read_once[name] = data
        return data

    def load_json(name: str, size: int) -> object:
        return parse_json(read(name, size), root / name)

    def entries(value: object) -> list[tuple]:
        return resolve(shard_list(value), lambda name, size: check_directory(
            load_json(name, size), name))

    counts = manifest.counts
    lazy = fetch is not None
    try:
        table_name, table_size = catalog["pages"]["table"]
        pages = parse_page_table(read(table_name, table_size), pages=counts["pages"],
                                 chunks=counts["chunks"])
    except ValueError as exc:
        raise BundleError(f"{root / table_name} {exc}: rebuild the site") from exc
    starts = pages.starts
    try:
        facets = _check_facets(load_json(*catalog["facets"]), pages=counts["pages"],
                               partitions=catalog["vectors"][0].get("partitions"))
        fragments = ShardReader(entries(catalog["fragments"]), load_json)
        texts = ShardReader(entries(catalog["text"]), load_json)
        paged = PageChunks(fragments=fragments, texts=texts, starts=starts,
                           boosts=catalog["pages"]["boosts"], facets=facets["pages"],
                           source=str(root))
        lex = catalog["lexical"]
        terms = ShardReader(entries(lex["shards"]), load_json)
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
        vectors = read_partitioned(spec, starts, read, lazy=lazy)
    else:
        vectors = read_exact(root, spec, starts, lambda name, size: read_payload(root, name,
                                                                                 size))
    static = catalog["encoders"].get("static")
    table: TokenTable | ShardedTokenTable | None = None
    if static and lazy:
        dim = static["dim"]
        table = ShardedTokenTable(
            ShardReader(entries(static["shards"]),
                        lambda name, size: _table_shard(read(name, size), dim, root / name)),
            dim=dim, scale=float(static["scale"]))
    elif static:
        table = _read_table(root, static, entries(static["shards"]))
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
    return Bundle(root=root, manifest=manifest, catalog=catalog, pages=pages, facets=facets,
                  chunks=chunks, vectors=vectors, lexical=lexical, table=table, files=files)


def _check_pages_held(reader: ShardReader, pages: int, what: str) -> None:
    """That the shards of `reader` hold every page once, in order (ValueError if not)."""
    held = 0
    for number, (first, _, _) in enumerate(reader.entries):
        rows = reader.shard(number)
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


def _read_table(root: Path, static: dict, shards: list[tuple]) -> TokenTable:
    parsed = [_table_shard(read_payload(root, name, size), static["dim"], root / name)
              for _, name, size in shards]
    token_ids = (np.concatenate([ids for ids, _ in parsed]) if parsed
                 else np.zeros(0, dtype=np.uint32))
    if np.any(np.diff(token_ids.astype(np.int64)) <= 0):
        raise BundleError(f"the token table in {root} is not in token order: rebuild the site")
    return TokenTable(token_ids=token_ids,
                      rows=(np.concatenate([rows for _, rows in parsed]) if parsed
                            else np.zeros((0, static["dim"]), np.int8)),
                      scale=float(static["scale"]))


def _table_shard(data: bytes, dim: int, source: Path | str) -> tuple[np.ndarray, np.ndarray]:
    """A token table shard's (token ids ascending, int8 rows)."""
    count = int(np.frombuffer(data[:4], dtype="<u4")[0]) if len(data) >= 4 else -1
    if count < 0 or len(data) != 4 + count * (4 + dim):
        raise BundleError(f"{source} is not a token table shard of {dim} dims: "
                          "rebuild the site")
    ids = np.frombuffer(data, dtype="<u4", count=count, offset=4)
    if np.any(np.diff(ids.astype(np.int64)) <= 0):
        raise BundleError(f"{source} is not in token order: rebuild the site")
    return ids, np.frombuffer(data, dtype=np.int8, offset=4 + 4 * count).reshape(count, dim)
