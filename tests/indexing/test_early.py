"""Chunks embedded while pages are read: the same vectors, counted once, stopped cleanly."""

from __future__ import annotations

import threading

import numpy as np

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.chunk import PageFacts
from mkdocs_semantic.indexing.early import AHEAD, EarlyEmbedding
from mkdocs_semantic.indexing.indexer import Indexer, IndexOptions

from .test_indexer import HashingEmbedder, hashing_spec

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]


def page(n: int) -> tuple[str, PageFacts]:
    html = (f"<h1 id='p{n}'>Page {n}</h1><p>{' '.join(WORDS[: 1 + n % 6] * (1 + 20 * (n % 3)))}"
            f" page{n}</p>")
    return html, PageFacts(url=f"p{n}/", title=f"Page {n}")


class TwoWorkerEmbedder(HashingEmbedder):
    """A hashing embedder that says two batches may run at once."""

    workers = 2


def test_chunks_embedded_while_pages_are_read_are_not_embedded_again(tmp_path):
    embedder = TwoWorkerEmbedder()
    spec = hashing_spec()
    indexer = Indexer(spec, IndexOptions(dtype="f32", batch_size=4, query_encoder="transformer"),
                      cache_path=None, embedder=embedder)
    indexer.embed_early = True
    indexer.start_build()
    chunks = [c for n in range(40) for c in indexer.chunk(*page(n))]
    early_calls = len(embedder.calls)
    stats = indexer.write(tmp_path / "semantic", chunks, pages=40)

    texts = [c.embed_text for c in chunks]
    assert 0 < indexer.early_embedded <= len(texts) and early_calls > 0
    # every chunk text embedded exactly once, and counted once
    assert sorted(t for call in embedder.calls for t in call) == sorted(texts)
    assert stats.embedded == len(texts)
    vectors = read_bundle(tmp_path).vectors.matrix()
    np.testing.assert_array_equal(vectors, HashingEmbedder().embed_documents(texts))


def test_nothing_is_embedded_early_on_one_worker_or_unless_asked(tmp_path):
    spec = hashing_spec()
    for embedder, asked in ((HashingEmbedder(), True), (TwoWorkerEmbedder(), False)):
        indexer = Indexer(spec, IndexOptions(dtype="f32", query_encoder="transformer"),
                          cache_path=None, embedder=embedder)
        indexer.embed_early = asked
        indexer.start_build()
        for n in range(10):
            indexer.chunk(*page(n))
        assert embedder.calls == []


def test_finishing_drops_the_batches_not_started_and_keeps_the_started_ones():
    release = threading.Event()
    started: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        started.append(texts)
        release.wait(5)
        return np.ones((len(texts), 2), dtype=np.float32)

    early = EarlyEmbedding(embed=embed, lengths=lambda texts: [100] * len(texts),
                           threads=1, max_items=1)
    keys = [bytes([i]) for i in range(20)]
    early.add(keys, [f"text {i}" for i in range(20)])
    assert len(early.running) == AHEAD  # the rest wait for a free slot
    release.set()
    done = early.finish()
    assert set(done) == {bytes([i]) for i in range(len(started))}
    assert 1 <= len(started) <= AHEAD


def test_a_failing_batch_stops_the_early_embedding_without_raising():
    def embed(texts: list[str]) -> np.ndarray:
        raise RuntimeError("no model")

    early = EarlyEmbedding(embed=embed, lengths=lambda texts: [100] * len(texts),
                           threads=1, max_items=1)
    early.add([b"a", b"b"], ["a", "b"])
    assert early.finish() == {} and early.failed
