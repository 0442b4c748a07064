"""The build pipeline without MkDocs (`Indexer`), with an embedder of the caller's."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.chunk import PageFacts
from mkdocs_semantic.indexing.indexer import Indexer, IndexOptions
from mkdocs_semantic.model.onnx import BATCH_TOKENS
from mkdocs_semantic.model.spec import Embedder, default_model_spec

PAGES = {
    "": ("Home", "<h1 id='home'>Home</h1><p>Marmalade is made from bitter oranges, "
                 "sugar and water, boiled until it sets.</p>"),
    "tea/": ("Tea", "<h1 id='tea'>Tea</h1><p>Steep black tea for four minutes in water "
                    "just off the boil.</p><h2 id='milk'>Milk</h2><p>Add milk after "
                    "pouring, never before.</p>"),
}


def hashing_spec(name: str = "hashing-64"):
    """The default model's spec, renamed for HashingEmbedder's 64-dim vectors (a model of
    another name, so that its cache and layout are its own)."""
    return replace(default_model_spec(), id=name, dim=64,
                   sha256=hashlib.sha256(name.encode()).hexdigest())


class HashingEmbedder:
    """Feature hashing: each word adds one to the bucket its hash picks, and the vector
    is scaled to unit length. Crude next to a transformer, but a real embedder: texts
    that share words get similar vectors, and the same text always the same one."""

    def __init__(self, dim: int = 64) -> None:
        self.dim = dim
        self.documents: list[str] = []
        self.calls: list[list[str]] = []
        self.token_ids: list[int] = []

    def _bucket(self, word: str) -> int:
        return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(),
                              "little") % self.dim

    def _unit(self, rows: np.ndarray) -> np.ndarray:
        return rows / np.clip(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12, None)

    def embed_documents(self, texts: Sequence[str], progress=None) -> np.ndarray:
        self.documents += texts
        self.calls.append(list(texts))
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                rows[row, self._bucket(word)] += 1
        return self._unit(rows)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)

    def token_lengths(self, texts: Sequence[str]) -> list[int]:
        return [len(re.findall(r"\w+", text)) for text in texts]

    def embed_token_ids(self, token_ids: Sequence[int]) -> np.ndarray:
        self.token_ids += token_ids
        rows = np.zeros((len(token_ids), self.dim), dtype=np.float32)
        rows[np.arange(len(token_ids)), [self._bucket(f"#{i}") for i in token_ids]] = 1
        return rows


def test_the_indexer_embeds_with_the_embedder_it_is_given(tmp_path):
    embedder = HashingEmbedder()
    assert isinstance(embedder, Embedder)  # the protocol's methods, checked at run time
    spec = hashing_spec()
    indexer = Indexer(spec, IndexOptions(dtype="f32"), cache_path=None, embedder=embedder)
    indexer.start_build()
    chunks = [c for url, (title, html) in PAGES.items()
              for c in indexer.chunk(html, PageFacts(url=url, title=title))]
    indexer.write(tmp_path / "semantic", chunks, pages=len(PAGES))

    bundle = read_bundle(tmp_path)
    texts = [c.embed_text for c in chunks]
    assert set(texts) <= set(embedder.documents)
    assert np.array_equal(bundle.vectors.matrix(), HashingEmbedder().embed_documents(texts))
    assert bundle.catalog["model"]["id"] == "hashing-64"
    # the static query encoder's table was fitted on the same embedder's token vectors
    assert embedder.token_ids and bundle.table is not None and bundle.table.rows.shape[1] == 64


def test_chunks_are_embedded_in_batches_of_similar_length_within_the_token_budget(tmp_path):
    embedder = HashingEmbedder()
    spec = hashing_spec()
    indexer = Indexer(spec, IndexOptions(dtype="f32", batch_size=4, query_encoder="transformer"),
                      cache_path=None, embedder=embedder)
    indexer.start_build()
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    chunks = [c for n in range(40) for c in indexer.chunk(
        f"<h1 id='p{n}'>Page {n}</h1><p>{' '.join(words[: 1 + n % 6] * (1 + 30 * (n % 3)))}</p>",
        PageFacts(url=f"p{n}/", title=f"Page {n}"))]
    indexer.write(tmp_path / "semantic", chunks, pages=40)

    lengths = {text: n for call in embedder.calls
               for text, n in zip(call, embedder.token_lengths(call))}
    assert sorted(t for call in embedder.calls for t in call) == \
        sorted(c.embed_text for c in chunks)
    for call in embedder.calls:
        assert len(call) <= 4
        assert len(call) == 1 or len(call) * max(lengths[t] for t in call) <= BATCH_TOKENS
    # similar lengths together: no batch mixes a text of the 1-word pages' band with
    # one of the 31-word or 61-word pages' bands
    bands = [{lengths[t] // 60 for t in call} for call in embedder.calls]
    assert sum(len(b) > 1 for b in bands) <= 2


class ReleasingEmbedder(HashingEmbedder):
    """Records, in order, what it embeds and when it is asked to free its model."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[str] = []

    def embed_documents(self, texts: Sequence[str], progress=None) -> np.ndarray:
        self.events.append("documents")
        return super().embed_documents(texts, progress)

    def embed_token_ids(self, token_ids: Sequence[int]) -> np.ndarray:
        self.events.append("tokens")
        return super().embed_token_ids(token_ids)

    def release(self) -> None:
        self.events.append("release")


def releasing_build(tmp_path, *, preview: bool) -> ReleasingEmbedder:
    embedder = ReleasingEmbedder()
    spec = hashing_spec()
    indexer = Indexer(spec, IndexOptions(dtype="f32"), cache_path=None, embedder=embedder)
    indexer.preview = preview
    indexer.start_build()
    chunks = [c for url, (title, html) in PAGES.items()
              for c in indexer.chunk(html, PageFacts(url=url, title=title))]
    indexer.write(tmp_path / "semantic", chunks, pages=len(PAGES))
    assert read_bundle(tmp_path).table is not None
    return embedder


def test_a_build_frees_the_model_after_its_last_embedding_and_before_the_solve(tmp_path):
    events = releasing_build(tmp_path, preview=False).events
    assert events.count("release") == 1
    assert events[-1] == "release" and "tokens" in events  # nothing embedded after it


def test_a_preview_keeps_the_model_for_its_next_rebuild(tmp_path):
    assert "release" not in releasing_build(tmp_path, preview=True).events


def test_a_released_onnx_model_loads_again_with_the_same_vectors():
    from mkdocs_semantic.model.onnx import OnnxEmbedder

    embedder = OnnxEmbedder(default_model_spec())
    before = embedder.embed_documents(["Steep black tea for four minutes."])
    embedder.release()
    assert "_session" not in embedder.__dict__
    np.testing.assert_array_equal(
        embedder.embed_documents(["Steep black tea for four minutes."]), before)
