"""Chunk embeddings kept between builds, keyed by what determines a vector.

Both caches check what they load: the file's shape, and per entry a digest over the
entry's key and content. An entry that does not match is dropped (with one warning
line) and rebuilt, so a damaged cache costs time, never a build or a wrong result.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from pathlib import Path

import numpy as np

from ..files import MiB, atomic_write, open_regular, read_regular
from ..logs import build_log as log

EMBEDDING_CACHE_VERSION = 2
CHUNK_CACHE_VERSION = 2
KEY_BYTES = 32
DIGEST_BYTES = 8
EMBEDDING_CACHE_MAX_BYTES = 4096 * MiB
"""About 2.6 million 384-dimensional vectors: far past any docs site."""
CHUNK_CACHE_MAX_BYTES = 1024 * MiB


def cache_key(model_fingerprint: str, text: str) -> bytes:
    """A vector depends on the model (weights, prefixes, truncation) and the text only."""
    return hashlib.sha256(f"{model_fingerprint}\0{text}".encode()).digest()


def vector_digest(key: bytes, vector: np.ndarray) -> bytes:
    """Checks one cached vector: a digest over its key and its float32 bytes."""
    data = np.ascontiguousarray(vector, dtype=np.float32).tobytes()
    return hashlib.blake2b(key + data, digest_size=DIGEST_BYTES).digest()


def rows_digest(key: str, rows: list[dict]) -> str:
    """Checks one cached page: a digest over its key and its chunks as JSON."""
    text = json.dumps(rows, sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(f"{key}\0{text}".encode(), digest_size=16).hexdigest()


def warn_dropped(what: str, path: Path, dropped: int, total: int) -> None:
    log.warning("dropped %d of %d entries of the %s %s that did not match their "
                "checksum; they are rebuilt", dropped, total, what, path)


class EmbeddingCache:
    """A content hash -> float32 vector store persisted as one .npz file.

    A cache that is missing, corrupt or made for another model is replaced by an
    empty one with a warning: it can only cost time, never a build.
    """

    def __init__(self, path: Path | None, *, fingerprint: str, dim: int | None = None) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.vectors: dict[bytes, np.ndarray] = {}
        self.used: set[bytes] = set()
        if path is not None and os.path.lexists(path):
            self._load(path, dim)

    def _load(self, path: Path, dim: int | None) -> None:
        try:
            with open_regular(path, max_bytes=EMBEDDING_CACHE_MAX_BYTES) as fh, \
                    np.load(fh, allow_pickle=False) as data:
                version = int(data["version"])
                fingerprint = str(data["fingerprint"])
                if version == EMBEDDING_CACHE_VERSION:
                    keys, vectors, digests = data["keys"], data["vectors"], data["digests"]
        except Exception as exc:
            log.warning("ignoring unreadable embedding cache %s (%s); "
                        "starting a fresh one", path, exc)
            return
        if version != EMBEDDING_CACHE_VERSION or fingerprint != self.fingerprint:
            log.info("embedding cache %s was made for another model or version; "
                     "starting a fresh one", path)
            return
        problem = _shape_problem(keys, vectors, digests, dim)
        if problem:
            log.warning("embedding cache %s is inconsistent (%s); starting a fresh "
                        "one", path, problem)
            return
        vectors = vectors.astype(np.float32)
        loaded = {}
        for key, vector, digest in zip(keys, vectors, digests):
            key = key.tobytes()
            if vector_digest(key, vector) == digest.tobytes():
                loaded[key] = vector
        if len(loaded) < len(keys):
            warn_dropped("embedding cache", path, len(keys) - len(loaded), len(keys))
        self.vectors = loaded

    @property
    def dim(self) -> int | None:
        """Length of the cached vectors (None while empty)."""
        return next(iter(self.vectors.values())).shape[0] if self.vectors else None

    def require_dim(self, dim: int) -> None:
        """Drop every vector if the cache holds vectors of another length than `dim`."""
        if self.vectors and self.dim != dim:
            log.warning("embedding cache %s holds %d-dimensional vectors but the "
                        "model makes %d; starting a fresh one", self.path, self.dim, dim)
            self.vectors = {}
            self.used = set()

    def get(self, key: bytes) -> np.ndarray | None:
        vector = self.vectors.get(key)
        if vector is not None:
            self.used.add(key)
        return vector

    def put(self, key: bytes, vector: np.ndarray) -> None:
        self.vectors[key] = vector
        self.used.add(key)

    def save(self, *, prune: bool = True) -> None:
        """Write atomically; with `prune`, keep only the vectors the last build used.

        Mid-build checkpoints pass `prune=False`: the build has not used everything yet.
        """
        if self.path is None:
            return
        keep = [k for k in self.vectors if k in self.used] if prune else list(self.vectors)
        dim = self.dim or 0
        # Raw digests as uint8 rows: numpy's bytes dtype would strip trailing NULs.
        keys = np.frombuffer(b"".join(keep), dtype=np.uint8).reshape(len(keep), KEY_BYTES)
        vectors = (np.stack([self.vectors[k] for k in keep]).astype(np.float32) if keep
                   else np.zeros((0, dim), dtype=np.float32))
        digests = np.frombuffer(b"".join(vector_digest(k, v) for k, v in zip(keep, vectors)),
                                dtype=np.uint8).reshape(len(keep), DIGEST_BYTES)
        buffer = io.BytesIO()
        np.savez(buffer, version=np.array(EMBEDDING_CACHE_VERSION),
                 fingerprint=np.array(self.fingerprint),
                 keys=keys, vectors=vectors, digests=digests)
        atomic_write(self.path, buffer.getvalue())

    def start_build(self) -> None:
        """Forget which vectors were used, before a (re)build."""
        self.used = set()


def _shape_problem(keys: np.ndarray, vectors: np.ndarray, digests: np.ndarray,
                   dim: int | None) -> str:
    """What is wrong with the arrays of an embedding cache file ("" if nothing)."""
    if keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != KEY_BYTES:
        return f"keys have shape {keys.shape} and type {keys.dtype}"
    if digests.dtype != np.uint8 or digests.shape != (len(keys), DIGEST_BYTES):
        return f"digests have shape {digests.shape} for {len(keys)} keys"
    if vectors.dtype.kind != "f" or vectors.ndim != 2 or len(vectors) != len(keys):
        return f"vectors have shape {vectors.shape} and type {vectors.dtype} for {len(keys)} keys"
    if dim is not None and len(keys) and vectors.shape[1] != dim:
        return f"vectors have {vectors.shape[1]} dimensions, the model {dim}"
    return ""


class ChunkCache:
    """Rendered page HTML (plus page facts and options) -> its chunks, persisted as JSON.

    A rebuild re-renders every page; only pages whose HTML changed are parsed and
    chunked again. Unreadable or foreign files are replaced, with a warning; entries
    that do not match their digest are dropped and their pages chunked again.
    """

    def __init__(self, path: Path | None, *, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.pages: dict[str, list[dict]] = {}
        self.used: set[str] = set()
        self.sources: dict[str, str | None] = {}
        """Each source page's key in the last build that saved (None: excluded), for a
        build that skips unchanged pages (`mkdocs build --dirty`)."""
        self.noted: dict[str, str | None] = {}
        """The same, noted by this build."""
        if path is not None and os.path.lexists(path):
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(read_regular(path, max_bytes=CHUNK_CACHE_MAX_BYTES)
                              .decode("utf-8"))
            if not isinstance(data, dict):
                raise ValueError("the file is not a JSON object")
            if (data.get("version") != CHUNK_CACHE_VERSION
                    or data.get("fingerprint") != self.fingerprint):
                return
            entries = data.get("pages")
            if not isinstance(entries, dict):
                raise ValueError("'pages' is not a mapping")
        except (OSError, ValueError) as exc:
            log.warning("ignoring unreadable chunk cache %s (%s); starting a fresh "
                        "one", path, exc)
            return
        pages = {key: entry["rows"] for key, entry in entries.items() if _entry_ok(key, entry)}
        if len(pages) < len(entries):
            warn_dropped("chunk cache", path, len(entries) - len(pages), len(entries))
        self.pages = pages
        sources = data.get("sources")
        if isinstance(sources, dict):
            self.sources = {src: key for src, key in sources.items()
                            if isinstance(src, str) and (key is None or key in pages)}

    @staticmethod
    def key(*parts: str) -> str:
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def get(self, key: str) -> list[dict] | None:
        rows = self.pages.get(key)
        if rows is not None:
            self.used.add(key)
        return rows

    def put(self, key: str, rows: list[dict]) -> None:
        self.pages[key] = rows
        self.used.add(key)

    def note(self, source: str, key: str | None) -> None:
        """Source page `source` was chunked under `key` this build (None: excluded)."""
        self.noted[source] = key

    def of_source(self, source: str) -> list[dict] | None:
        """The rows `source` had in the last build ([] if it was excluded); None when
        unknown. Marks them used and notes them for this build."""
        if source not in self.sources:
            return None
        key = self.sources[source]
        rows = [] if key is None else self.get(key)
        if rows is not None:
            self.note(source, key)
        return rows

    def start_build(self) -> None:
        self.used = set()
        self.noted = {}

    def save(self) -> None:
        """Write atomically, keeping only the pages the last build used."""
        if self.path is None:
            return
        pages = {key: {"digest": rows_digest(key, rows), "rows": rows}
                 for key, rows in self.pages.items() if key in self.used}
        sources = {src: key for src, key in self.noted.items() if key is None or key in pages}
        data = {"version": CHUNK_CACHE_VERSION, "fingerprint": self.fingerprint,
                "pages": pages, "sources": sources}
        self.sources = sources
        atomic_write(self.path, json.dumps(data, ensure_ascii=False).encode("utf-8"))


def _entry_ok(key: str, entry: object) -> bool:
    """A page entry is {"digest", "rows": [{...}, ...]} and its digest matches."""
    if not isinstance(entry, dict):
        return False
    rows = entry.get("rows")
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        return False
    return entry.get("digest") == rows_digest(key, rows)
