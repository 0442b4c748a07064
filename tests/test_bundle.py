"""The bundle format: write_bundle / read_bundle, integrity checks, frozen fixtures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from mkdocs_semantic.bundle import (
    FORMAT_VERSION,
    BundleError,
    find_bundle_dir,
    read_bundle,
    write_bundle,
)
from mkdocs_semantic.chunking import Chunk
from mkdocs_semantic.embedding import default_model_spec
from mkdocs_semantic.quantize import quantize
from mkdocs_semantic.search import Searcher

FIXTURES = Path(__file__).parent / "fixtures" / "bundles"


def sample_chunks(n: int = 6) -> list[Chunk]:
    return [
        Chunk(url=f"page{i // 2}/", anchor=f"s{i}", title=f"Page {i // 2}",
              path=["Part", f"Section {i}"], text=f"Text of section {i} ✓ 東京 مرحبا",
              kind="page" if i % 2 == 0 else "section", anchors=[f"s{i}"], section="Guide")
        for i in range(n)
    ]


def sample_vectors(n: int = 6, dim: int = 384) -> np.ndarray:
    # A deterministic stand-in for embeddings: this test is about storage, not meaning.
    x = np.random.default_rng(7).standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def write_sample(root: Path, n: int = 6):
    return write_bundle(root, chunks=sample_chunks(n), stored=quantize(sample_vectors(n), "i8"),
                        spec=default_model_spec())


@pytest.mark.parametrize("dtype", ["i8", "f16", "f32"])
def test_round_trip(tmp_path, dtype):
    chunks, vectors = sample_chunks(), sample_vectors()
    stored = quantize(vectors, dtype)
    manifest = write_bundle(tmp_path, chunks=chunks, stored=stored, spec=default_model_spec())
    bundle = read_bundle(tmp_path)
    assert bundle.manifest == manifest
    assert bundle.chunks == chunks
    np.testing.assert_array_equal(bundle.vectors, stored.vectors)
    assert manifest.format == FORMAT_VERSION
    assert manifest.counts == {"pages": 3, "chunks": 6}
    assert manifest.quantization["dtype"] == dtype
    for entry in manifest.files.values():
        assert (tmp_path / entry.name).stat().st_size == entry.bytes


def test_payload_names_carry_their_hash_and_old_payloads_are_removed(tmp_path):
    first = write_sample(tmp_path)
    second = write_sample(tmp_path, 4)
    assert first.files["index"].name != second.files["index"].name
    assert first.files["index"].name.startswith("index.")
    assert first.files["index"].sha256.startswith(first.files["index"].name.split(".")[1])
    names = {p.name for p in tmp_path.iterdir()}
    assert names == {"manifest.json", *(e.name for e in second.files.values())}


def test_the_searcher_ranks_by_exact_dequantized_inner_product(tmp_path):
    vectors = sample_vectors(50)
    chunks = sample_chunks(50)
    write_bundle(tmp_path, chunks=chunks, stored=quantize(vectors, "i8"), spec=default_model_spec())
    searcher = Searcher.open(tmp_path)
    query = vectors[17] + 0.01 * vectors[3]
    results = searcher.search_vector(query, top_k=5)
    assert results[0].chunk_id == 17
    assert results[0].href == "page8/#s17"
    assert results[0].score == pytest.approx(float(vectors[17] @ query), abs=0.01)
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_unknown_format_names_both_versions(tmp_path):
    write_sample(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["format"] = 99
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BundleError, match=r"format 99.*reads format 1"):
        read_bundle(tmp_path)


@pytest.mark.parametrize("logical", ["index", "chunks", "text"])
def test_truncated_or_changed_payload_is_named(tmp_path, logical):
    manifest = write_sample(tmp_path)
    path = tmp_path / manifest.files[logical].name
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(BundleError, match=rf"{path.name} does not match manifest.json"):
        read_bundle(tmp_path)


def test_missing_payload_and_garbage_manifest(tmp_path):
    manifest = write_sample(tmp_path)
    (tmp_path / manifest.files["chunks"].name).unlink()
    with pytest.raises(BundleError, match="missing or unreadable"):
        read_bundle(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(BundleError, match=r"cannot read .*manifest\.json"):
        read_bundle(tmp_path)


def test_find_bundle_dir_accepts_the_site_and_explains_a_wrong_path(tmp_path):
    bundle = tmp_path / "site" / "semantic"
    write_sample(bundle)
    assert find_bundle_dir(tmp_path / "site") == bundle
    with pytest.raises(BundleError, match="does not exist"):
        find_bundle_dir(tmp_path / "nowhere")
    with pytest.raises(BundleError, match=r"no manifest\.json"):
        find_bundle_dir(tmp_path)


def test_empty_bundle(tmp_path):
    write_bundle(tmp_path, chunks=[], stored=quantize(np.zeros((0, 384), np.float32), "i8"),
                 spec=default_model_spec())
    bundle = read_bundle(tmp_path)
    assert bundle.chunks == [] and len(bundle.vectors) == 0
    assert Searcher(bundle).search_vector(sample_vectors(1)[0]) == []


@pytest.mark.parametrize("version_dir", sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()))
def test_frozen_bundles_still_read_and_answer(tmp_path, version_dir, embedder):
    """Every released format stays readable. The frozen copies omit the model files
    (23 MB); the packaged model with the same sha256 stands in for them."""
    frozen = FIXTURES / version_dir
    root = tmp_path / version_dir
    shutil.copytree(frozen, root)
    expected = json.loads((frozen / "expected.json").read_text())
    bundle = read_bundle_without_model(root)
    searcher = Searcher(bundle, embedder)
    for query, href in expected["top1"].items():
        assert searcher.search(query, top_k=1)[0].href == href


def read_bundle_without_model(root: Path):
    """Put the packaged model files where the frozen manifest expects them."""
    manifest = json.loads((root / "manifest.json").read_text())
    spec = default_model_spec()
    for logical, source in (("model", spec.model_path), ("tokenizer", spec.tokenizer_path)):
        target = root / manifest["files"][logical]["name"]
        if not target.exists():
            shutil.copyfile(source, target)
    return read_bundle(root)
