"""The embedding cache: persistence, and never failing a build."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from mkdocs_semantic.indexing.cache import ChunkCache, EmbeddingCache, cache_key


def vector(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(8).astype(np.float32)


def test_vectors_survive_a_save_and_load(tmp_path):
    path = tmp_path / "cache" / "embeddings.npz"
    cache = EmbeddingCache(path, fingerprint="model-a")
    keys = [cache_key("model-a", f"text {i}") for i in range(1500)]
    for i, key in enumerate(keys):
        cache.put(key, vector(i))
    cache.save()
    again = EmbeddingCache(path, fingerprint="model-a")
    # Some of 1500 sha256 digests end in a zero byte: they must survive too.
    assert any(k.endswith(b"\0") for k in keys)
    for i, key in enumerate(keys):
        np.testing.assert_array_equal(again.get(key), vector(i))


def test_save_keeps_only_what_the_last_build_used(tmp_path):
    path = tmp_path / "embeddings.npz"
    cache = EmbeddingCache(path, fingerprint="m")
    cache.put(b"a" * 32, vector(1))
    cache.put(b"b" * 32, vector(2))
    cache.save()
    cache = EmbeddingCache(path, fingerprint="m")
    cache.start_build()
    assert cache.get(b"a" * 32) is not None
    cache.save()
    again = EmbeddingCache(path, fingerprint="m")
    assert again.get(b"a" * 32) is not None and again.get(b"b" * 32) is None


def test_key_depends_on_model_and_text():
    assert cache_key("m1", "t") != cache_key("m2", "t")
    assert cache_key("m1", "t") != cache_key("m1", "u")
    assert cache_key("m1", "t") == cache_key("m1", "t")


def test_corrupt_cache_warns_and_starts_empty(tmp_path, caplog):
    path = tmp_path / "embeddings.npz"
    path.write_bytes(b"PK\x03\x04 this is not a numpy archive")
    with caplog.at_level(logging.WARNING):
        cache = EmbeddingCache(path, fingerprint="m")
    assert cache.vectors == {}
    assert "unreadable embedding cache" in caplog.text
    cache.put(b"k" * 32, vector(0))
    cache.save()
    assert EmbeddingCache(path, fingerprint="m").get(b"k" * 32) is not None


def test_cache_of_another_model_is_not_used(tmp_path):
    path = tmp_path / "embeddings.npz"
    cache = EmbeddingCache(path, fingerprint="old-model")
    cache.put(b"k" * 32, vector(0))
    cache.save()
    assert EmbeddingCache(path, fingerprint="new-model").vectors == {}


def test_cache_with_other_dimension_is_not_used(tmp_path, caplog):
    path = tmp_path / "embeddings.npz"
    cache = EmbeddingCache(path, fingerprint="m")
    cache.put(b"k" * 32, vector(0))
    cache.save()
    with caplog.at_level(logging.WARNING):
        assert EmbeddingCache(path, fingerprint="m", dim=384).vectors == {}
    assert "inconsistent" in caplog.text


def saved_cache(path, count: int = 3) -> dict[bytes, np.ndarray]:
    cache = EmbeddingCache(path, fingerprint="m")
    vectors = {cache_key("m", f"text {i}"): vector(i) for i in range(count)}
    for key, value in vectors.items():
        cache.put(key, value)
    cache.save()
    return vectors


def rewrite_npz(path, **changes) -> None:
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(changes)
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def test_a_changed_vector_is_dropped_with_one_warning(tmp_path, caplog):
    path = tmp_path / "embeddings.npz"
    vectors = saved_cache(path)
    with np.load(path) as data:
        changed = data["vectors"].copy()
    changed[1, 0] += 0.5  # one number, as a bad disk or a stray edit would change it
    rewrite_npz(path, vectors=changed)
    with caplog.at_level(logging.WARNING):
        cache = EmbeddingCache(path, fingerprint="m")
    assert set(cache.vectors) == set(vectors) - {list(vectors)[1]}
    for key, value in cache.vectors.items():
        np.testing.assert_array_equal(value, vectors[key])
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(path) in warnings[0]
    assert "dropped 1 of 3 entries" in warnings[0]


@pytest.mark.parametrize("change", [
    {"vectors": np.zeros(8, dtype=np.float32)},  # one row, not a matrix
    {"vectors": np.zeros((2, 8), dtype=np.float32)},  # fewer rows than keys
    {"keys": np.zeros((3, 16), dtype=np.uint8)},  # truncated keys
    {"keys": np.zeros((3, 32), dtype=np.int64)},
    {"vectors": np.array([["a"] * 8] * 3)},
    {"digests": np.zeros((2, 8), dtype=np.uint8)},
])
def test_a_mis_shaped_embedding_cache_warns_and_starts_empty(tmp_path, caplog, change):
    path = tmp_path / "embeddings.npz"
    saved_cache(path)
    rewrite_npz(path, **change)
    with caplog.at_level(logging.WARNING):
        cache = EmbeddingCache(path, fingerprint="m")
    assert cache.vectors == {}
    assert f"embedding cache {path} is inconsistent" in caplog.text


def test_vectors_of_another_length_than_the_model_makes_are_dropped(tmp_path, caplog):
    path = tmp_path / "embeddings.npz"
    saved_cache(path)
    cache = EmbeddingCache(path, fingerprint="m")
    with caplog.at_level(logging.WARNING):
        cache.require_dim(384)
    assert cache.vectors == {} and "8-dimensional vectors" in caplog.text


def test_a_checkpoint_keeps_vectors_not_yet_used_by_this_build(tmp_path):
    path = tmp_path / "embeddings.npz"
    saved_cache(path, count=2)
    cache = EmbeddingCache(path, fingerprint="m")
    cache.start_build()
    cache.put(b"n" * 32, vector(9))
    cache.save(prune=False)
    assert len(EmbeddingCache(path, fingerprint="m").vectors) == 3


def chunk_rows(page: int) -> list[dict]:
    return [{"url": f"page-{page}/", "text": f"Text of page {page}, part {i}."}
            for i in range(2)]


def test_an_edited_chunk_cache_entry_is_dropped_and_the_rest_kept(tmp_path, caplog):
    path = tmp_path / "chunks.json"
    cache = ChunkCache(path, fingerprint="f")
    for page in range(3):
        cache.put(f"key-{page}", chunk_rows(page))
    cache.save()
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Text of page 1, part 0", "Text of page 1, part 9"),
                    encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        again = ChunkCache(path, fingerprint="f")
    assert again.get("key-1") is None
    assert again.get("key-0") == chunk_rows(0) and again.get("key-2") == chunk_rows(2)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(path) in warnings[0]
    assert "dropped 1 of 3 entries" in warnings[0]


@pytest.mark.parametrize("document", ['[1, 2]', '{"version": 2, "fingerprint": "f", '
                                      '"pages": {"k": [{"url": "x/"}]}}'])
def test_a_chunk_cache_of_the_wrong_shape_loads_nothing(tmp_path, caplog, document):
    path = tmp_path / "chunks.json"
    path.write_text(document, encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert ChunkCache(path, fingerprint="f").pages == {}
    assert str(path) in caplog.text
