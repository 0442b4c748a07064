"""The embedding cache: persistence, and never failing a build."""

from __future__ import annotations

import logging

import numpy as np

from mkdocs_semantic.cache import EmbeddingCache, cache_key


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
