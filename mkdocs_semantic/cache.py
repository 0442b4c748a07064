"""Chunk embeddings kept between builds, keyed by what determines a vector."""

from __future__ import annotations

import hashlib
import io
import json
import logging
from pathlib import Path

import numpy as np

from .files import atomic_write

CACHE_VERSION = 1
KEY_BYTES = 32
log = logging.getLogger("mkdocs.plugins.semantic")


def cache_key(model_fingerprint: str, text: str) -> bytes:
    """A vector depends on the model (weights, prefixes, truncation) and the text only."""
    return hashlib.sha256(f"{model_fingerprint}\0{text}".encode()).digest()


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
        if path is not None and path.exists():
            self._load(path, dim)

    def _load(self, path: Path, dim: int | None) -> None:
        try:
            with open(path, "rb") as fh, np.load(fh, allow_pickle=False) as data:
                version = int(data["version"])
                fingerprint = str(data["fingerprint"])
                keys = data["keys"]
                vectors = data["vectors"]
        except Exception as exc:
            log.warning("semantic: ignoring unreadable embedding cache %s (%s); "
                        "starting a fresh one", path, exc)
            return
        if version != CACHE_VERSION or fingerprint != self.fingerprint:
            log.info("semantic: embedding cache %s was made for another model or version; "
                     "starting a fresh one", path)
            return
        shape_ok = keys.ndim == 2 and keys.shape[1] == KEY_BYTES and len(keys) == len(vectors)
        if not shape_ok or (dim is not None and vectors.shape[1] != dim):
            log.warning("semantic: embedding cache %s is inconsistent; starting a fresh one", path)
            return
        self.vectors = {k.tobytes(): v for k, v in zip(keys, vectors.astype(np.float32))}

    def get(self, key: bytes) -> np.ndarray | None:
        vector = self.vectors.get(key)
        if vector is not None:
            self.used.add(key)
        return vector

    def put(self, key: bytes, vector: np.ndarray) -> None:
        self.vectors[key] = vector
        self.used.add(key)

    def save(self, *, prune: bool = True) -> None:
        """Write atomically; with `prune`, keep only the vectors the last build used."""
        if self.path is None:
            return
        keep = [k for k in self.vectors if k in self.used] if prune else list(self.vectors)
        dim = next(iter(self.vectors.values())).shape[0] if self.vectors else 0
        # Raw digests as uint8 rows: numpy's bytes dtype would strip trailing NULs.
        keys = np.frombuffer(b"".join(keep), dtype=np.uint8).reshape(len(keep), KEY_BYTES)
        vectors = (np.stack([self.vectors[k] for k in keep]) if keep
                   else np.zeros((0, dim), dtype=np.float32))
        buffer = io.BytesIO()
        np.savez(buffer, version=np.array(CACHE_VERSION),
                 fingerprint=np.array(self.fingerprint),
                 keys=keys, vectors=vectors.astype(np.float32))
        atomic_write(self.path, buffer.getvalue())

    def start_build(self) -> None:
        """Forget which vectors were used, before a (re)build."""
        self.used = set()


class ChunkCache:
    """Rendered page HTML (plus page facts and options) -> its chunks, persisted as JSON.

    A rebuild re-renders every page; only pages whose HTML changed are parsed and
    chunked again. Unreadable or foreign files are replaced, with a warning.
    """

    def __init__(self, path: Path | None, *, fingerprint: str) -> None:
        self.path = path
        self.fingerprint = fingerprint
        self.pages: dict[str, list[dict]] = {}
        self.used: set[str] = set()
        if path is not None and path.exists():
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != CACHE_VERSION or data.get("fingerprint") != self.fingerprint:
                return
            pages = data["pages"]
            if not isinstance(pages, dict):
                raise ValueError("pages is not a mapping")
        except (OSError, ValueError, KeyError, AttributeError) as exc:
            log.warning("semantic: ignoring unreadable chunk cache %s (%s); starting a fresh "
                        "one", path, exc)
            return
        self.pages = pages

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

    def start_build(self) -> None:
        self.used = set()

    def save(self) -> None:
        """Write atomically, keeping only the pages the last build used."""
        if self.path is None:
            return
        data = {"version": CACHE_VERSION, "fingerprint": self.fingerprint,
                "pages": {k: v for k, v in self.pages.items() if k in self.used}}
        atomic_write(self.path, json.dumps(data, ensure_ascii=False).encode("utf-8"))
