"""The search bundle (format 2): `write_bundle` and `read_bundle`, side by side.

Layout of `<site>/<bundle_dir>/`:

- `manifest.json`, small and never cached long: `format`, `generator`, `catalog` (name,
  bytes, sha256), `counts` (pages, chunks), `search` (defaults every reader applies:
  mode, top_k, min_score, filters) and `query_encoder` (`static` or
  `transformer`: how readers embed a query by default).
- `catalog.<h>.json`: what a reader needs to plan its downloads and to rank:
  - `model`: the document model (id, sha256, dim, pooling, normalize, max_tokens, prefixes);
  - `pages`: `starts` (the first chunk of each page, then the chunk count: chunks are
    grouped by page), `boosts` (page -> search.boost, where not 1), `pieces`
    ([chunk, first] for each later piece of a section split in several chunks);
  - `facets`: filter key -> value -> pages that have it (`section`, `tags`, facets);
  - `fragments`, `text`: shards of pages, `[[first page, name, bytes], ...]`;
  - `lexical`: `version`, `scale`, `count`, `stopwords` and term shards
    `[[first term, name, bytes], ...]`;
  - `vectors`: vector sets, each `{model, dtype, scale, dim, metric, layout: "exact",
    parts: [[first page, name, bytes], ...]}` or `{..., layout: "partitioned", probe,
    probe_max, centroids: [name, bytes], partitions: [[rows, name, bytes], ...]}`;
  - `encoders`: `static` (`vectors`: the set it queries, `tokenizer`, `max_tokens`,
    `dtype`, `scale`, `dim`, token shards `[[first token id, name, bytes], ...]`) and,
    when the site ships its model, `transformer` (`vectors`, `model`, `tokenizer`).
- payloads, named by content hash (see payloads.py), in folders:
  - `fragments/frag.<h>.json`: per page `[url, title, section, [[anchor, path, excerpt,
    kind], ...]]`, kind `p` (page lead) or `s` (section); the excerpt is the text results
    may show (about 480 characters, see `chunking.excerpt_parts`): a string, or where it
    holds code a list alternating prose and code, prose first (`["Run", "make all", "."]`);
  - `text/text.<h>.json`: per page `[[text, anchors, anchor, path], ...]` (Python
    readers only; the chunk's own anchor and heading path, where fragments hold the
    deep link and the path results show);
  - `vectors/vec.<h>.<dtype>`: the rows of the part's pages, raw little-endian;
  - partitioned layout: `vectors/cent.<h>.i8` (the centroid codes) and
    `vectors/ivf.<h>.bin` (a partition: see `partition_bytes`);
  - `lexical/lex.<h>.json`: see `LexicalIndex.to_shards`;
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
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import __version__, partitions
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
    KIND_NAMES,
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
    VECTOR_PART_BYTES,
    BundleError,
    Checker,
    check_catalog,
)
from .chunking import Chunk
from .embedding import DEFAULT_MODEL_SHA256, ModelSpec, default_model_spec
from .files import atomic_write, sha256_file
from .lexical import SHARD_VERSION, STOPWORDS, LexicalFields, LexicalIndex
from .payloads import (
    HASH_CHARS,
    Payload,
    PayloadError,
    group_by_size,
    json_bytes,
    verify,
    write_payload,
)
from .quantize import DTYPES, Quantized

__all__ = [
    "API_ENTRY", "CLIENT_FOLDER", "FORMAT_VERSION", "MANIFEST", "QUERY_ENCODERS", "Bundle",
    "BundleError", "FileEntry", "Manifest", "TokenTable", "VectorSet", "bundle_dir_problem",
    "check_catalog", "claim_bundle_dir", "filter_keys", "find_bundle_dir", "foreign_entries",
    "lexical_fields", "payloads_of", "read_bundle", "read_catalog", "read_manifest",
    "read_payload", "write_bundle",
]


@dataclass(frozen=True)
class FileEntry:
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
class VectorSet:
    """Stored chunk vectors, scored where they lie (no copy): in the exact layout parts of
    whole pages in chunk order, in the partitioned one a part per partition, with its
    chunk ids (`ids`) and the partitions' centroid codes."""

    dtype: str
    scale: float
    dim: int
    parts: list[np.ndarray]
    ids: list[np.ndarray] | None = None
    """Partitioned: each part's chunk ids, ascending. None: parts in chunk order."""
    centroids: np.ndarray | None = None
    """Partitioned: int8 codes, one row per part."""
    probe: int = 0
    """Partitioned: the parts a query scans at least (see partitions.probed)."""
    probe_max: int = 0
    """Partitioned: the parts a query scans at most."""
    column_sums: np.ndarray | None = None
    """Each dimension's sum over every stored row (int64 for i8, float64 otherwise), as
    the catalog lists it: the mean score of a query over every chunk follows from it
    exactly, whatever the layout (`mean_score`)."""
    load: Callable[[int], tuple[np.ndarray, np.ndarray]] | None = None
    """Partitioned, when some parts are not read yet (None in `ids` and `parts`, as in a
    bundle downloaded without them): reads part p, returning its ids and rows."""
    total_rows: int = 0
    """With `load`: the rows of every part, read or not."""
    _loading: threading.Lock = field(default_factory=threading.Lock, repr=False,
                                     compare=False)

    @property
    def layout(self) -> str:
        return "exact" if self.ids is None else "partitioned"

    @property
    def rows(self) -> int:
        return sum(len(p) for p in self.parts) if self.load is None else self.total_rows

    def part(self, number: int) -> tuple[np.ndarray, np.ndarray]:
        """Partitioned: part `number`'s chunk ids and rows, read on first use."""
        if self.parts[number] is None:
            with self._loading:
                if self.parts[number] is None:
                    ids, rows = self.load(number)
                    self.ids[number] = ids
                    self.parts[number] = rows
        return self.ids[number], self.parts[number]

    def matrix(self) -> np.ndarray:
        """All rows as one array in chunk order (a copy; for tools and tests, not for
        every query)."""
        if not self.parts:
            return np.zeros((0, self.dim), dtype=DTYPES[self.dtype])
        if self.ids is None:
            return np.concatenate(self.parts)
        out = np.zeros((self.rows, self.dim), dtype=DTYPES[self.dtype])
        for number in range(len(self.parts)):
            ids, part = self.part(number)
            out[ids] = part
        return out

    def probed(self, query: np.ndarray, *, every: bool = False) -> list[int]:
        """Partitioned: the parts a query scans, nearest first (all when `every`)."""
        return partitions.probed(self.centroids, query, probe=self.probe,
                                 probe_max=self.probe_max, every=every)

    def mean_score(self, query: np.ndarray) -> float:
        """The query's mean score over every stored row, from the column sums: for int8
        the exact integer dot product of the codes with the sums / (rows * scale *
        |codes|); for f16/f32 the dot product summed in dimension order, / rows / scale.
        The same arithmetic as scan.js's meanScore."""
        rows = self.rows
        if not rows:
            return 0.0
        if self.dtype == "i8":
            from .query_encoder import codes_norm

            codes = np.asarray(query, dtype=np.int64)
            norm = codes_norm(np.asarray(query, dtype=np.int8))
            dot = int(codes @ np.asarray(self.column_sums, dtype=np.int64))
            return float(dot) / (rows * (self.scale * norm if norm else 1.0))
        dot = 0.0
        for s, q in zip(np.asarray(self.column_sums, dtype=np.float64).tolist(),
                        np.asarray(query, dtype=np.float64).tolist()):
            dot += s * q
        return dot / rows / self.scale

    def scores(self, query: np.ndarray, *, every: bool = False) -> np.ndarray:
        """Score of every row, in chunk order; NaN where the row was not scored (in a
        partition the query did not probe). `every`: probe every partition (exact).

        int8: `query` is int8 codes (query_encoder.query_codes); the score is the exact
        integer dot product / (scale * |codes|). f16/f32: a float query, (rows . query) /
        scale. Each part is widened on its own, so a query never copies the whole set.
        """
        if not self.parts:
            return np.zeros(0)
        if self.dtype != "i8":
            vector = np.asarray(query, dtype=np.float32)
            return np.concatenate([p.astype(np.float32) @ vector
                                   for p in self.parts]).astype(np.float64) / self.scale
        from .query_encoder import codes_norm

        codes = np.asarray(query, dtype=np.int8)
        norm = codes_norm(codes)
        divisor = self.scale * norm if norm else 1.0
        if self.ids is None:
            return np.concatenate([_int8_dots(p, codes, self.dim)
                                   for p in self.parts]) / divisor
        scores = np.full(self.rows, np.nan)
        for p in self.probed(codes, every=every):
            ids, rows = self.part(p)
            scores[ids] = _int8_dots(rows, codes, self.dim) / divisor
        return scores


def _int8_dots(rows: np.ndarray, codes: np.ndarray, dim: int) -> np.ndarray:
    """Exact integer dot products of int8 rows with int8 codes, as float64."""
    # float32 sums int8 products exactly while |dot| < 2**24 (dim up to 1040), and
    # BLAS makes it ~3x faster than usearch's exact int8 search (bench/vector_scan.py)
    wide = np.float32 if dim * 127 * 128 < 1 << 24 else np.int64
    return (rows.astype(wide) @ codes.astype(wide)).astype(np.float64)


@dataclass
class Bundle:
    """A bundle read back and verified: manifest, catalog, chunks, vectors, keyword index."""

    root: Path
    manifest: Manifest
    catalog: dict
    chunks: list[Chunk]
    vectors: VectorSet
    lexical: LexicalIndex
    table: TokenTable | None
    files: list[Payload]
    """Every payload the catalog lists (the catalog itself included)."""

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
    or `auto` (partitioned from PARTITIONED_MIN_CHUNKS int8 vectors up; see
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
    catalog: dict = {
        "model": model,
        "pages": {
            "starts": starts.tolist(),
            "boosts": {str(i): c[0].boost for i, (_, c) in enumerate(pages)
                       if c[0].boost != 1},
            "pieces": _pieces(pages),
        },
        "facets": _facets(pages),
        "fragments": _page_shards(put, "fragments", "frag", "json", fragments,
                                  FRAGMENT_SHARD_BYTES),
        "text": _page_shards(put, "text", "text", "json", texts, TEXT_SHARD_BYTES),
        "lexical": {
            "version": SHARD_VERSION, "scale": lexical.scale, "count": lexical.count,
            "stopwords": sorted(STOPWORDS),
            "shards": [[first, *put("lexical", "lex", "json", json_bytes(shard))]
                       for first, shard in lexical.to_shards(starts,
                                                             target_bytes=LEXICAL_SHARD_BYTES)],
        },
        "vectors": [{
            "model": model["id"], "dtype": stored.dtype, "scale": stored.scale, "dim": dim,
            "metric": METRIC, "sum": column_sums(stored.vectors, dim),
            **_vector_layout(put, stored, starts, row_bytes, layout=vector_layout,
                             previous=previous_centroids),
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
            "shards": _table_shards(put, table),
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


def column_sums(rows: np.ndarray, dim: int) -> list:
    """Each dimension's sum over the stored rows: whole numbers for int8 rows (exact),
    floats otherwise (VectorSet.mean_score)."""
    if not len(rows):
        return [0] * dim
    if rows.dtype == np.int8:
        return np.asarray(rows, dtype=np.int64).sum(axis=0).tolist()
    return np.asarray(rows, dtype=np.float64).sum(axis=0).tolist()


def _stored_excerpt(chunk: Chunk) -> str | list[str]:
    """A chunk's excerpt parts; one string when it holds no code (as format 2 first had)."""
    parts = chunk.excerpt_parts
    return parts if len(parts) > 1 else (parts[0] if parts else "")


def _read_excerpt(stored: object) -> list[str]:
    if isinstance(stored, str):
        return [stored] if stored else []
    if isinstance(stored, list) and all(isinstance(p, str) for p in stored):
        return stored
    raise ValueError(f"an excerpt is a string or a list of strings, not {stored!r:.60}")


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


def _pieces(pages: list[tuple[int, list[Chunk]]]) -> list[list[int]]:
    """[chunk, first chunk of the same section] for every later piece of a section."""
    pieces = []
    for start, page in pages:
        first: dict[str, int] = {}
        for i, chunk in enumerate(page, start):
            if chunk.anchor in first:
                pieces.append([i, first[chunk.anchor]])
            else:
                first[chunk.anchor] = i
    return pieces


def _facets(pages: list[tuple[int, list[Chunk]]]) -> dict[str, dict[str, list[int]]]:
    facets: dict[str, dict[str, list[int]]] = {"section": {}}
    for number, (_, page) in enumerate(pages):
        lead = page[0]
        facets["section"].setdefault(lead.section, []).append(number)
        for key, values in lead.facets.items():
            for value in dict.fromkeys(values):
                facets.setdefault(key, {}).setdefault(value, []).append(number)
    return facets


def _page_shards(put, folder: str, stem: str, ext: str, rows: list, target: int) -> list:
    encoded = [json_bytes(row) for row in rows]
    cuts = group_by_size([len(e) for e in encoded], target) if rows else []
    return [[a, *put(folder, stem, ext, b"[" + b",".join(encoded[a:b]) + b"]")]
            for a, b in zip(cuts, [*cuts[1:], len(rows)])]


def _vector_parts(put, stored: Quantized, starts: np.ndarray, row_bytes: int) -> list:
    sizes = np.diff(starts) * row_bytes
    cuts = group_by_size(sizes.tolist(), VECTOR_PART_BYTES) if len(sizes) else []
    matrix = np.ascontiguousarray(stored.vectors.astype(stored.vectors.dtype.newbyteorder("<")))
    return [[a, *put("vectors", "vec", stored.dtype, matrix[starts[a]:starts[b]].tobytes())]
            for a, b in zip(cuts, [*cuts[1:], len(sizes)])]


def _vector_layout(put, stored: Quantized, starts: np.ndarray, row_bytes: int, *,
                   layout: str, previous: np.ndarray | None = None) -> dict:
    """The vector set's layout fields: `exact` parts by page, or `partitioned`."""
    if layout == "auto":
        layout = ("partitioned" if stored.dtype == "i8"
                  and len(stored.vectors) >= partitions.PARTITIONED_MIN_CHUNKS else "exact")
    if layout == "exact":
        return {"layout": "exact", "parts": _vector_parts(put, stored, starts, row_bytes)}
    built = partitions.build_partitions(stored.vectors,
                                         rows_per_partition=partitions.PARTITION_ROWS,
                                         previous=previous)
    rows = np.ascontiguousarray(stored.vectors, dtype=np.int8)
    listed = []
    for members in built.members:
        listed.append([len(members), *put("vectors", "ivf", "bin",
                                          partition_bytes(members, rows[members], starts))])
    return {"layout": "partitioned", "probe": min(partitions.PROBE, len(listed)),
            "probe_max": min(max(partitions.PROBE, partitions.PROBE_MAX), len(listed)),
            "centroids": put("vectors", "cent", "i8", built.centroids.tobytes()),
            "partitions": listed}


def partition_bytes(members: np.ndarray, rows: np.ndarray, starts: np.ndarray) -> bytes:
    """A partition payload: u32 n, n u32 page numbers, n u32 positions on the page (the
    chunks ascending), n x dim int8 rows. Chunks are named by page and position, as the
    lexical postings are, so that an edit that changes one page's chunk count leaves the
    partitions holding no chunk of it unchanged."""
    pages = np.searchsorted(starts, members, side="right") - 1
    return (np.array([len(members)], dtype="<u4").tobytes() + pages.astype("<u4").tobytes()
            + (members - starts[pages]).astype("<u4").tobytes() + rows.tobytes())


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


def payloads_of(catalog: dict) -> list[Payload]:
    """Every payload a (checked) catalog lists."""
    listed: list[Payload] = []
    for key in ("fragments", "text"):
        listed += [Payload(name, size) for _, name, size in catalog[key]]
    listed += [Payload(name, size) for _, name, size in catalog["lexical"]["shards"]]
    for vectors in catalog["vectors"]:
        if vectors["layout"] == "partitioned":
            listed.append(Payload(*vectors["centroids"]))
            listed += [Payload(name, size) for _, name, size in vectors["partitions"]]
        else:
            listed += [Payload(name, size) for _, name, size in vectors["parts"]]
    static = catalog["encoders"].get("static")
    if static:
        listed += [Payload(name, size) for _, name, size in static["shards"]]
    names = {p.name for p in listed}
    for encoder in catalog["encoders"].values():
        for key in ("tokenizer", "model"):
            if key in encoder and encoder[key][0] not in names:
                names.add(encoder[key][0])
                listed.append(Payload(*encoder[key]))
    return listed


def read_catalog(root: Path, manifest: Manifest) -> dict:
    entry = manifest.catalog
    catalog = parse_json(read_payload(root, entry.name, entry.bytes, entry.sha256),
                         root / entry.name)
    return check_catalog(catalog, manifest, root / entry.name)


def read_bundle(path: Path) -> Bundle:
    """Read and verify a bundle: every payload against its listed size and its hash.

    A bundle downloaded from a URL without its vector partitions (remote.fetch_bundle)
    fetches each one, verified the same way, when a query first probes it.
    """
    from .remote import payload_fetcher

    root = find_bundle_dir(Path(path))
    manifest = read_manifest(root)
    catalog = read_catalog(root, manifest)
    starts = np.asarray(catalog["pages"]["starts"], dtype=np.int64)

    def load_json(name: str, size: int) -> object:
        return parse_json(read_payload(root, name, size), root / name)

    try:
        fragments = [page for _, name, size in catalog["fragments"]
                     for page in load_json(name, size)]
        texts = [page for _, name, size in catalog["text"] for page in load_json(name, size)]
        chunks = _chunks_of(fragments, texts, starts, boosts=catalog["pages"]["boosts"],
                            facets=catalog["facets"])
        lex = catalog["lexical"]
        lexical = LexicalIndex.from_shards(
            [load_json(name, size) for _, name, size in lex["shards"]],
            starts=starts, count=lex["count"], scale=float(lex["scale"]))
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        if isinstance(exc, BundleError):
            raise
        raise BundleError(f"the chunk files in {root} are malformed ({exc}): rebuild the "
                          "site") from exc
    vectors = _read_vectors(root, catalog["vectors"][0], starts, payload_fetcher(root))
    static = catalog["encoders"].get("static")
    table = _read_table(root, static) if static else None
    files = [Payload(manifest.catalog.name, manifest.catalog.bytes), *payloads_of(catalog)]
    for encoder in catalog["encoders"].values():
        read_payload(root, *encoder["tokenizer"])
        if "model" in encoder:  # 23 MB: checked here by size, by hash when loaded
            name, size = encoder["model"]
            if not (root / name).is_file() or (root / name).stat().st_size != size:
                raise BundleError(f"{root / name} is missing or does not match the catalog: "
                                  "rebuild the site")
    return Bundle(root=root, manifest=manifest, catalog=catalog, chunks=chunks,
                  vectors=vectors, lexical=lexical, table=table, files=files)


def _chunks_of(fragments: list, texts: list, starts: np.ndarray, *, boosts: dict,
               facets: dict) -> list[Chunk]:
    pages = len(starts) - 1
    if len(fragments) != pages or len(texts) != pages:
        raise ValueError(f"{len(fragments)} pages of fragments and {len(texts)} of text for "
                         f"{pages} pages")
    page_facets: list[dict[str, list[str]]] = [{} for _ in range(pages)]
    for key, values in facets.items():
        if key != "section":
            for value, numbers in values.items():
                for number in numbers:
                    page_facets[number].setdefault(key, []).append(value)
    chunks: list[Chunk] = []
    for number, ((url, title, section, rows), text_rows) in enumerate(zip(fragments, texts)):
        if len(rows) != starts[number + 1] - starts[number] or len(text_rows) != len(rows):
            raise ValueError(f"page {number} ({url!r}) has the wrong number of chunks")
        boost = float(boosts.get(str(number), 1.0))
        for (shown_anchor, shown_path, excerpt, kind), text_row in zip(rows, text_rows):
            text, anchors, *own = text_row
            anchor, path = own if own else (shown_anchor, shown_path)
            chunks.append(Chunk(url=url, anchor=anchor, title=title, path=path, text=text,
                                kind=KIND_NAMES[kind], anchors=anchors, section=section,
                                facets=page_facets[number], boost=boost,
                                shown=_read_excerpt(excerpt),
                                link_anchor=shown_anchor if shown_anchor != anchor else "",
                                link_path=shown_path if shown_path != path else None))
    return chunks


def _read_vectors(root: Path, spec: dict, starts: np.ndarray,
                  fetch: Callable[[str, int], None] | None = None) -> VectorSet:
    if spec["layout"] == "partitioned":
        return _read_partitioned(root, spec, starts, fetch)
    dtype, dim = spec["dtype"], spec["dim"]
    numpy_type = np.dtype(DTYPES[dtype]).newbyteorder("<")
    parts = []
    cuts = [p[0] for p in spec["parts"]] + [len(starts) - 1]
    for (first, name, size), end in zip(spec["parts"], cuts[1:]):
        rows = int(starts[end] - starts[first])
        if size != rows * dim * numpy_type.itemsize:
            raise BundleError(f"{root / name} should hold {rows} vectors of {dim} {dtype}: "
                              "rebuild the site")
        read_payload(root, name, size)  # verify once; then score the file where it lies
        parts.append(np.memmap(root / name, dtype=numpy_type, mode="r", shape=(rows, dim))
                     if rows else np.zeros((0, dim), dtype=numpy_type))
    return VectorSet(dtype=dtype, scale=float(spec["scale"]), dim=dim, parts=parts,
                     column_sums=_column_sums(spec))


def _read_partitioned(root: Path, spec: dict, starts: np.ndarray,
                      fetch: Callable[[str, int], None] | None) -> VectorSet:
    """Every partition, verified, with its chunk ids: each chunk in exactly one. With
    `fetch` (a bundle downloaded without its partitions), the partitions not here are
    fetched and read when a query first probes them."""
    dim = spec["dim"]
    name, size = spec["centroids"]
    centroids = np.frombuffer(read_payload(root, name, size), dtype=np.int8).reshape(-1, dim)

    def read(rows: int, name: str, size: int) -> tuple[np.ndarray, np.ndarray]:
        data = read_payload(root, name, size)
        members = partition_members(data, rows, starts)
        if members is None:
            raise BundleError(f"{root / name} is not a partition of {rows} distinct chunks "
                              "ascending: rebuild the site")
        return members, np.frombuffer(data, dtype=np.int8,
                                      offset=4 + 8 * rows).reshape(rows, dim)

    listed = spec["partitions"]
    missing = [not (root / name).is_file() for _, name, _ in listed]
    vectors = VectorSet(dtype="i8", scale=float(spec["scale"]), dim=dim, parts=[], ids=[],
                        centroids=centroids, probe=int(spec["probe"]),
                        probe_max=int(spec["probe_max"]), column_sums=_column_sums(spec))
    if fetch is not None and any(missing):
        def load(number: int) -> tuple[np.ndarray, np.ndarray]:
            rows, name, size = listed[number]
            if not (root / name).is_file():
                fetch(name, size)
            return read(rows, name, size)

        vectors.load, vectors.total_rows = load, int(starts[-1])
        vectors.ids = [None] * len(listed)
        vectors.parts = [None] * len(listed)
        return vectors
    seen = np.zeros(int(starts[-1]), dtype=bool)
    for rows, name, size in listed:
        members, part = read(rows, name, size)
        if np.any(seen[members]):
            raise BundleError(f"{root / name} holds chunks another partition holds: rebuild "
                              "the site")
        seen[members] = True
        vectors.ids.append(members)
        vectors.parts.append(part)
    return vectors


def _column_sums(spec: dict) -> np.ndarray:
    return np.asarray(spec["sum"], dtype=np.int64 if spec["dtype"] == "i8" else np.float64)


def partition_members(data: bytes, rows: int, starts: np.ndarray) -> np.ndarray | None:
    """The chunk ids a partition payload names (see `partition_bytes`), or None when its
    count, pages or positions are wrong or its chunks not ascending."""
    if len(data) < 4 + 8 * rows or int(np.frombuffer(data[:4], dtype="<u4")[0]) != rows:
        return None
    pages = np.frombuffer(data, dtype="<u4", count=rows, offset=4).astype(np.int64)
    local = np.frombuffer(data, dtype="<u4", count=rows, offset=4 + 4 * rows).astype(np.int64)
    if rows and pages.max() >= len(starts) - 1:
        return None
    members = starts[pages] + local
    if np.any(members >= starts[pages + 1]) or np.any(np.diff(members) <= 0):
        return None
    return members


def _read_table(root: Path, static: dict) -> TokenTable:
    dim = static["dim"]
    ids, rows = [], []
    for _, name, size in static["shards"]:
        data = read_payload(root, name, size)
        count = int(np.frombuffer(data[:4], dtype="<u4")[0]) if len(data) >= 4 else -1
        if count < 0 or len(data) != 4 + count * (4 + dim):
            raise BundleError(f"{root / name} is not a token table shard of {dim} dims: "
                              "rebuild the site")
        ids.append(np.frombuffer(data, dtype="<u4", count=count, offset=4))
        rows.append(np.frombuffer(data, dtype=np.int8, offset=4 + 4 * count).reshape(count, dim))
    token_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.uint32)
    if np.any(np.diff(token_ids.astype(np.int64)) <= 0):
        raise BundleError(f"the token table in {root} is not in token order: rebuild the site")
    return TokenTable(token_ids=token_ids,
                      rows=np.concatenate(rows) if rows else np.zeros((0, dim), np.int8),
                      scale=float(static["scale"]))
