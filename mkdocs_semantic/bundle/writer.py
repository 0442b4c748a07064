"""Writing a bundle: chunks, vectors, keyword postings and the query table into
content-hashed payloads, a catalog and a manifest (`write_bundle`)."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..chunk import Chunk
from ..constants import (
    CATALOG_COPY,
    FORMAT_VERSION,
    MAX_KEYED_SHARD_BYTES,
    PIECES_VERSION,
    SCALAR_BYTES,
    SITE_QUERY_ENCODERS,
    VOCABULARY_VERSION,
    __version__,
    site_encoders,
)
from ..files import atomic_write, holds, sha256_file, write_unlisted
from ..model.bert_forward import checked_weights
from ..model.bert_weights import NotBert
from ..model.spec import DEFAULT_MODEL_SHA256, ModelSpec
from .browser_model import FORMAT_VERSION as BROWSER_MODEL_VERSION
from .browser_model import BrowserModel, browser_model
from .folder import OLD_PAYLOAD, PAYLOAD_FOLDERS, claim_bundle_dir
from .format import (
    DEFAULT_SEARCH,
    KIND_CODES,
    LEXICAL_BUCKET_BYTES,
    MANIFEST,
    METRIC,
    STATIC_MAX_TOKENS,
    TEXT_SHARD_BYTES,
    VECTOR_LAYOUTS,
    BundleError,
    FileEntry,
    Manifest,
)
from .fragment_parts import PART_CHUNKS as FRAGMENT_PART_CHUNKS
from .fragment_parts import page_parts
from .lexical import SHARD_VERSION, STOPWORDS, LexicalFields, LexicalIndex
from .names import (
    CATALOG_NAME,
    HASH_CHARS,
    ROW_CHECK_BYTES,
    Payload,
    checked,
    deflate,
    deflated,
    group_by_size,
    json_bytes,
    write_payload,
)
from .page_table import (
    MAX_PAGE_CHUNKS,
    PageTable,
    continuations,
    page_table_bytes,
    repeated_leads,
)
from .quantize import Quantized
from .shard_lists import write_keyed_list, write_packed_list, write_shard_list
from .table import TokenTable, table_hash, table_pack, token_gaps
from .vectors.store import column_sums, write_vectors
from .vocabulary import (
    VOCABULARY_SHARD_BYTES,
    build_vocabulary,
    spelling_shards,
    vocabulary_shards,
)
from .word_rows import WORDS_STEM, chunk_words, has_words, word_rows, word_shards
from .wordpieces import WordPieceShards, keyed_name, wordpiece_shards


def write_bundle(out: Path, *, chunks: list[Chunk], stored: Quantized, spec: ModelSpec,
                 lexical: LexicalIndex | None = None, search: dict | None = None,
                 table: TokenTable | None = None, query_encoder: str = "static",
                 model_sha256: str | None = None, vector_layout: str = "auto",
                 previous_centroids: np.ndarray | None = None,
                 fidelity: dict | None = None, word_rows: bool = False) -> Manifest:
    """Write the bundle into `out`, replacing an older one; returns its manifest.

    `chunks` must be grouped by page. `table` is the static query encoder's (required
    when `query_encoder` is `static` or `progressive`); the model files are shipped only
    for `transformer` and `progressive` (readers answer a first query with the static
    encoder and fetch the model in idle time: the manifest's `idle_encoder`).
    `vector_layout`: `exact`, `partitioned` (int8 only) or `auto` (partitioned from
    PARTITIONED_MIN_BYTES of int8 vectors up; see bundle/vectors/partitions.py).
    `previous_centroids`: the partition centroids of the build before (`layout_basis`),
    so that unchanged chunks keep their partitions. `word_rows`: also
    write the query table's rows summed per word of the site (bundle/word_rows.py), which
    readers use when present; off by default, as pages tell a first query its word
    pieces beside the catalog, so they cost a site about as many files as it has words
    and save a reader nothing (docs/decisions/word-rows.md). Raises BundleError,
    writing nothing, if `out` holds files this package did not write.
    """
    claim_bundle_dir(out)
    if len(chunks) != len(stored.vectors):
        raise ValueError(f"{len(chunks)} chunks but {len(stored.vectors)} vectors")
    if query_encoder not in SITE_QUERY_ENCODERS:
        raise ValueError(f"unknown query encoder {query_encoder!r}")
    encoders = site_encoders(query_encoder)
    ships_model = "transformer" in encoders
    if "static" in encoders and table is None:
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
    vocabulary = build_vocabulary(lexical_fields(c) for c in chunks)
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
        counts=np.diff(starts),
        continues=continuations([[c.anchor for c in page] for _, page in pages])
        | repeated_leads([page for _, page in pages])))
    fragments = [[c[0].url, c[0].title, c[0].section,
                  [[x.link_anchor or x.anchor, x.shown_path,
                    _stored_excerpt(x),
                    KIND_CODES[x.kind]] for x in c]]
                 for _, c in pages]
    fragment_files = _page_files(fragments, [page[0].url for _, page in pages])
    part_files = [json_bytes([part]) for fragment in fragments
                  for part in page_parts(fragment, FRAGMENT_PART_CHUNKS)]
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
        put_checked=lambda name, body: _write_self_checked(out, written, name, body),
        previous=previous_centroids)

    def shard_list(stem: str, shards: list[tuple[object, bytes]]) -> dict:
        return write_shard_list(shards, stem, lambda name, body: _write_self_checked(
            out, written, name, body))

    def keyed_list(stem: str, shards: list[bytes]) -> dict:
        return _keyed_list(out, written, put, stem, shards)

    lexical_shards = [json_bytes(shard) for shard in lexical.to_shards(
        starts, target_bytes=LEXICAL_BUCKET_BYTES,
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
        # a page's excerpts: the records of one file, read by range (no page names them
        # before the catalog has come, so the catalog may list their sizes)
        "fragments": write_packed_list(
            fragment_files, "fragments/frag", self_checked_payload,
            lambda data: put("fragments", "frags", "bin", data)),
        **({"fragment_parts": {"chunks": FRAGMENT_PART_CHUNKS,
                               "parts": keyed_list("parts/part", part_files)}}
           if part_files else {}),
        "text": shard_list("text/text", _page_shards(texts, TEXT_SHARD_BYTES)),
        "lexical": {
            "version": SHARD_VERSION, "scale": lexical.scale, "count": lexical.count,
            "stopwords": sorted(STOPWORDS), "head": lexical.head,
            "shards": keyed_list("lexical/lex", lexical_shards),
        },
        "vocabulary": {
            "version": VOCABULARY_VERSION,
            "shards": shard_list("vocabulary/words", [
                (first, json_bytes(shard)) for first, shard in vocabulary_shards(
                    vocabulary, target_bytes=VOCABULARY_SHARD_BYTES)]),
            "spelling": shard_list("vocabulary/spell", [
                (first, json_bytes(shard)) for first, shard in spelling_shards(
                    vocabulary, target_bytes=VOCABULARY_SHARD_BYTES)]),
        },
        "vectors": [{
            "model": model["id"], "dtype": stored.dtype, "scale": stored.scale, "dim": dim,
            "metric": METRIC, "sum": column_sums(stored.vectors, dim), **vector_fields,
        }],
        "encoders": {},
    }
    tokenizer = None
    if table is not None or ships_model:
        tokenizer = _copy_payload(out, written, "model", "tokenizer", spec.tokenizer_path)
    if table is not None:
        catalog["encoders"]["static"] = {
            "vectors": 0, "tokenizer": tokenizer, "max_tokens": STATIC_MAX_TOKENS,
            "dtype": "i8", "scale": table.scale, "dim": int(table.rows.shape[1]),
            "rows": write_table_rows(out, written, table),
        }
        pieces = wordpiece_shards(spec.tokenizer_path)
        if pieces is not None:  # so that a browser fetches the vocabulary by need
            catalog["encoders"]["static"]["pieces"] = {
                "version": PIECES_VERSION, "config": pieces.config,
                "keyed": write_keyed_pieces(out, written, pieces, put),
                "shards": shard_list("pieces/piece", [
                    (first, json_bytes(shard)) for first, shard in pieces.shards]),
            }
            words = write_word_rows(out, written, table, spec, chunks, put) \
                if word_rows else None
            if words is not None:
                catalog["encoders"]["static"]["words"] = words
        if fidelity is not None:  # how the build measured it against the model
            catalog["encoders"]["static"]["fidelity"] = fidelity
    if ships_model:
        transformer: dict = {"vectors": 0, "tokenizer": tokenizer}
        catalog["encoders"]["transformer"] = transformer
        browser = _browser_model(spec)
        if browser is not None:
            transformer["weights"] = {
                "version": BROWSER_MODEL_VERSION,
                "layers": put("model", "layers", "bin", browser.layers),
                "words": [[first, put("model", "words", "bin", data)]
                          for first, data in browser.word_blocks],
            }
        if browser is None or model["sha256"] != DEFAULT_MODEL_SHA256:
            # browsers without the weights run the ONNX file; Python readers of a model
            # that is not installed with the package read it too
            transformer["model"] = _copy_payload(out, written, "model", "model",
                                                 spec.model_path, digest=model["sha256"])
    data = json_bytes(catalog)
    digest = hashlib.sha256(data).hexdigest()
    catalog_name = f"catalog.{digest[:HASH_CHARS]}.json"
    atomic_write(out / catalog_name, data, shared=True)
    atomic_write(out / CATALOG_COPY, data, shared=True)  # before the manifest names it
    manifest = Manifest(
        format=FORMAT_VERSION,
        generator=f"mkdocs-semantic-search {__version__}",
        catalog=FileEntry(name=catalog_name, bytes=len(data), sha256=digest),
        counts={"pages": len(pages), "chunks": len(chunks)},
        search={**DEFAULT_SEARCH, **(search or {}), "filters": filter_keys(chunks)},
        query_encoder=encoders[0],
        idle_encoder=encoders[1] if len(encoders) > 1 else None,
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


def _page_files(fragments: list, urls: list[str]) -> list[bytes]:
    """Each page's fragments as its own JSON list (a keyed list's shard); BundleError for
    a page whose excerpts would not fit in one file a browser reads."""
    files = [json_bytes([fragment]) for fragment in fragments]
    for body, url in zip(files, urls):
        if len(body) + ROW_CHECK_BYTES > MAX_KEYED_SHARD_BYTES:
            raise BundleError(f"{url}'s excerpts take {len(body) + ROW_CHECK_BYTES:,} bytes, "
                              f"more than the {MAX_KEYED_SHARD_BYTES:,} of a page's file: "
                              "split the page, or leave it out of the index (exclude)")
    return files


def _page_shards(rows: list, target: int) -> list[tuple[object, bytes]]:
    """(first page, JSON list of the pages' rows) of runs of about `target` bytes."""
    encoded = [json_bytes(row) for row in rows]
    cuts = group_by_size([len(e) for e in encoded], target) if rows else []
    return [(a, b"[" + b",".join(encoded[a:b]) + b"]")
            for a, b in zip(cuts, [*cuts[1:], len(rows)])]


def write_table_rows(out: Path, written: list[Payload], table: TokenTable) -> dict:
    """The rows of `table` in one pack of checked records (bundle/table.py); the
    catalog's `rows`."""
    digest = table_hash(table)
    pack = write_payload(out, folder="table", stem="rows", ext="bin",
                         data=table_pack(table, digest))
    written.append(pack)
    return {"table": digest, "ids": token_gaps(table.token_ids), "pack": pack.to_json()}


def write_word_rows(out: Path, written: list[Payload], table: TokenTable, spec: ModelSpec,
                    chunks: list[Chunk], put: Callable[[str, str, str, bytes], list]
                    ) -> dict | None:
    """The query table's rows summed per word of the site (bundle/word_rows.py) as a
    keyed list; the catalog's `words` (None for a tokenizer without words)."""
    from ..model.onnx import load_tokenizer

    tokenizer = load_tokenizer(spec.tokenizer_path, None)  # as the static encoder cuts
    if not has_words(tokenizer):
        return None
    words = chunk_words(tokenizer, spec.query_prefix, chunks)
    (out / "words").mkdir(exist_ok=True)
    return _keyed_list(out, written, put, WORDS_STEM,
                       word_shards(word_rows(tokenizer, table, words)))


def _keyed_list(out: Path, written: list[Payload], put: Callable[[str, str, str, bytes], list],
                stem: str, shards: list[bytes]) -> dict:
    """`shards` written as the keyed list `stem` (shard_lists.write_keyed_list): each a
    self-checked payload, their sizes a payload in the stem's folder; its catalog value."""
    return write_keyed_list(shards, stem,
                            lambda name, body: _write_self_checked(out, written, name, body),
                            lambda data: put(stem.split("/")[0], "sizes", "json", data))


def self_checked_payload(name: str, body: bytes) -> bytes:
    """A self-checked payload's bytes (names.self_checked): `body`, deflated when it is
    JSON (names.deflated), then its check."""
    return checked(name, deflate(body) if deflated(name) else body)


def _write_self_checked(out: Path, written: list[Payload], name: str, body: bytes) -> int:
    """Write `body` as a self-checked payload (`self_checked_payload`) unless it is there
    already; returns its size. Its name holds the hash of a whole set, so no catalog
    lists it yet: it is written as unlisted."""
    data = self_checked_payload(name, body)
    target = out / name
    if not holds(target, data):
        target.parent.mkdir(exist_ok=True)
        if target.is_symlink():
            target.unlink()
        write_unlisted(target, data)
    written.append(Payload(name=name, bytes=len(data)))
    return len(data)


def write_keyed_pieces(out: Path, written: list[Payload], pieces: WordPieceShards,
                       put: Callable[[str, str, str, bytes], list]) -> dict:
    """Each keyed word piece file (bundle/wordpieces.py), and the list of them with their
    sizes, which Python readers walk and browsers never need; the catalog's `keyed`."""
    (out / "pieces").mkdir(exist_ok=True)
    listed = []
    for stem, shard in pieces.keyed.items():
        name = keyed_name(stem, pieces.keyed_hash)
        listed.append([stem, _write_self_checked(out, written, name, json_bytes(shard))])
    return {"hash": pieces.keyed_hash,
            "list": put("pieces", "keyed", "json", json_bytes(listed))}


def _copy_payload(out: Path, written: list[Payload], folder: str, stem: str, source: Path,
                  digest: str | None = None) -> list:
    """Copy a large file under its hashed name without reading it twice."""
    if digest is None:
        digest = sha256_file(source)
    ext = source.suffix.lstrip(".")
    name = f"{folder}/{stem}.{digest[:HASH_CHARS]}.{ext}"
    target = out / name
    size = source.stat().st_size
    if target.is_symlink() or not (target.is_file() and target.stat().st_size == size
                                   and sha256_file(target) == digest):
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


def _browser_model(spec: ModelSpec) -> BrowserModel | None:
    """The model as the browser's own forward pass runs it, every token's embedding
    kept (a vocabulary cut to the site's tokens lost ranking:
    docs/decisions/browser-model-vocabulary.md); None when the model is not a BERT
    encoder that forward pass reproduces (browsers then run the ONNX file)."""
    try:
        weights, heads = checked_weights(spec)
    except NotBert:
        return None
    return browser_model(weights, heads=heads, max_tokens=spec.max_tokens)
