"""The partitioned vector layout: writing, reading, probing, filters, format checks."""

from __future__ import annotations

import hashlib
import itertools
import json

import numpy as np
import pytest

from mkdocs_semantic import partitions
from mkdocs_semantic.bundle import BundleError, read_bundle, write_bundle
from mkdocs_semantic.embedding import default_model_spec
from mkdocs_semantic.quantize import quantize
from mkdocs_semantic.query_encoder import query_codes
from mkdocs_semantic.search import Searcher

from .test_bundle import DELETE, catalog_of, sample_chunks, sample_table, set_field

CHUNKS = 48


def clustered_vectors(n: int = CHUNKS, dim: int = 384) -> np.ndarray:
    """Unit vectors around a few directions, so that k-means has clusters to find."""
    rng = np.random.default_rng(11)
    centres = rng.standard_normal((6, dim))
    x = centres[np.arange(n) % 6] + 0.3 * rng.standard_normal((n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def small_partitions(monkeypatch):
    monkeypatch.setattr(partitions, "PARTITION_ROWS", 6)
    monkeypatch.setattr(partitions, "PROBE", 2)
    monkeypatch.setattr(partitions, "PROBE_MAX", 2)


def test_the_probe_takes_the_nearest_then_those_within_half_the_best_dot():
    # one-dimensional centroids: the dot products are the codes times the query's 1
    centroids = np.array([[10], [40], [25], [19], [40], [-50]], dtype=np.int8)
    query = np.array([1], dtype=np.int8)
    assert partitions.probed(centroids, query, probe=1, probe_max=6) == [1, 4, 2]
    assert partitions.probed(centroids, query, probe=1, probe_max=2) == [1, 4]
    assert partitions.probed(centroids, query, probe=4, probe_max=6) == [1, 4, 2, 3]
    assert partitions.probed(centroids, query, probe=1, probe_max=6, every=True) == \
        [1, 4, 2, 3, 0, 5]
    # 2 x 19 = 38 < 40 stops the probe; 2 x 20 = 40 would not
    centroids[3] = 20
    assert partitions.probed(centroids, query, probe=1, probe_max=6) == [1, 4, 2, 3]


def write(root, layout: str, n: int = CHUNKS, dtype: str = "i8"):
    chunks = sample_chunks(n)
    for i, chunk in enumerate(chunks):  # two sections, pages alternating
        chunk.section = "Guide" if (i // 2) % 2 else "Operations"
    return write_bundle(root, chunks=chunks, stored=quantize(clustered_vectors(n), dtype),
                        spec=default_model_spec(), table=sample_table(chunks),
                        vector_layout=layout)


def test_partitioned_round_trip_holds_every_chunk_once(tmp_path, small_partitions):
    write(tmp_path / "exact", "exact")
    write(tmp_path / "part", "partitioned")
    exact, part = read_bundle(tmp_path / "exact"), read_bundle(tmp_path / "part")
    vectors = part.vectors
    assert vectors.layout == "partitioned" and exact.vectors.layout == "exact"
    assert 2 == vectors.probe < len(vectors.parts) == len(vectors.centroids)
    ids = np.concatenate(vectors.ids)
    assert sorted(ids.tolist()) == list(range(CHUNKS))
    np.testing.assert_array_equal(vectors.matrix(), exact.vectors.matrix())
    spec = catalog_of(tmp_path / "part")["vectors"][0]
    assert "parts" not in spec and spec["layout"] == "partitioned"


def test_a_query_scores_the_probed_partitions_exactly_and_no_others(tmp_path,
                                                                    small_partitions):
    write(tmp_path / "exact", "exact")
    write(tmp_path / "part", "partitioned")
    exact, part = read_bundle(tmp_path / "exact").vectors, read_bundle(tmp_path / "part").vectors
    codes = query_codes(clustered_vectors()[5] + 0.1)
    full, probed = exact.scores(codes), part.scores(codes)
    scored = np.flatnonzero(~np.isnan(probed))
    want = np.concatenate([part.ids[p] for p in part.probed(codes)])
    assert sorted(scored.tolist()) == sorted(want.tolist())
    assert 0 < len(scored) < CHUNKS
    np.testing.assert_array_equal(probed[scored], full[scored])
    np.testing.assert_array_equal(part.scores(codes, every=True), full)
    # the probe follows the integer dot products with the centroid codes, ties by number
    dots = part.centroids.astype(np.int64) @ codes.astype(np.int64)
    order = part.probed(codes, every=True)
    assert all(dots[a] > dots[b] or (dots[a] == dots[b] and a < b)
               for a, b in itertools.pairwise(order))


def test_a_filtered_query_misses_no_match_in_partitions_it_would_not_probe(
        tmp_path, small_partitions):
    write(tmp_path / "exact", "exact")
    write(tmp_path / "part", "partitioned")
    exact, part = Searcher.open(tmp_path / "exact"), Searcher.open(tmp_path / "part")
    codes = query_codes(clustered_vectors()[5] + 0.1)
    plain = part.search_vector(codes, top_k=CHUNKS)
    assert len(plain) < CHUNKS  # unfiltered: only the probed partitions' chunks
    assert all(r.vector_score is not None for r in plain)
    for section in ("Guide", "Operations"):
        options = {"mode": "vector", "top_k": CHUNKS, "filters": {"section": [section]}}
        want = exact.rank(query="x", vector=codes, min_score=None, **options)
        got = part.rank(query="x", vector=codes, min_score=None, **options)
        assert [(r.chunk_id, r.vector_score) for r in got] == \
            [(r.chunk_id, r.vector_score) for r in want]
        assert len(got) == CHUNKS // 2


def test_hybrid_results_outside_the_probed_partitions_have_no_vector_score(
        tmp_path, small_partitions):
    write(tmp_path, "partitioned")
    searcher = Searcher.open(tmp_path)
    codes = query_codes(clustered_vectors()[5] + 0.1)
    scored = ~np.isnan(searcher.scores(codes))
    results = searcher.rank(query="section text", vector=codes, mode="hybrid", top_k=CHUNKS,
                            filters=None, min_score=None)
    assert {r.vector_score is None for r in results} == {True, False}
    for r in results:
        assert (r.vector_score is None) == (not scored[r.chunk_id])


def test_auto_partitions_from_the_threshold_up_and_only_int8(tmp_path, small_partitions,
                                                            monkeypatch):
    monkeypatch.setattr(partitions, "PARTITIONED_MIN_CHUNKS", CHUNKS)
    write(tmp_path / "below", "auto", n=CHUNKS - 2)
    write(tmp_path / "at", "auto")
    write(tmp_path / "f16", "auto", dtype="f16")
    assert catalog_of(tmp_path / "below")["vectors"][0]["layout"] == "exact"
    assert catalog_of(tmp_path / "at")["vectors"][0]["layout"] == "partitioned"
    assert catalog_of(tmp_path / "f16")["vectors"][0]["layout"] == "exact"
    with pytest.raises(ValueError, match="partitioned vector layout stores int8 vectors"):
        write(tmp_path / "bad", "partitioned", dtype="f16")
    with pytest.raises(ValueError, match="unknown vector layout 'ivf'"):
        write(tmp_path / "bad", "ivf")


def test_partitions_are_deterministic_and_a_rebuild_writes_the_same_files(tmp_path,
                                                                          small_partitions):
    write(tmp_path / "a", "partitioned")
    write(tmp_path / "b", "partitioned")
    assert catalog_of(tmp_path / "a") == catalog_of(tmp_path / "b")


def test_an_empty_site_in_the_partitioned_layout(tmp_path):
    write_bundle(tmp_path, chunks=[], stored=quantize(np.zeros((0, 384), np.float32), "i8"),
                 spec=default_model_spec(), table=sample_table([]),
                 vector_layout="partitioned")
    searcher = Searcher.open(tmp_path)
    assert searcher.search("anything") == []
    assert searcher.search_vector(query_codes(clustered_vectors(1)[0])) == []


def resign(root, catalog: dict) -> None:
    manifest = json.loads((root / "manifest.json").read_text())
    data = json.dumps(catalog).encode()
    digest = hashlib.sha256(data).hexdigest()
    name = f"catalog.{digest[:16]}.json"
    (root / name).write_bytes(data)
    manifest["catalog"] = {"name": name, "bytes": len(data), "sha256": digest}
    (root / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize("field, value, message", [
    ("vectors.0.layout", "hnsw", r"vectors\[0\]\.layout 'hnsw' is not exact or partitioned"),
    ("vectors.0.dtype", "f16", r"vectors\[0\]\.dtype must be i8 in the partitioned layout"),
    ("vectors.0.probe", 0, r"vectors\[0\]\.probe is 0, not a whole number from 1"),
    ("vectors.0.probe", 99, r"vectors\[0\]\.probe is 99"),
    ("vectors.0.probe", DELETE, r"vectors\[0\]\.probe is missing"),
    ("vectors.0.probe_max", 1, r"vectors\[0\]\.probe_max is 1, not a whole number from 2"),
    ("vectors.0.probe_max", DELETE, r"vectors\[0\]\.probe_max is missing"),
    ("vectors.0.partitions.0.2", 5, r"vectors\[0\]\.partitions has a malformed entry"),
    ("vectors.0.partitions.0.0", True, r"vectors\[0\]\.partitions has a malformed entry"),
    ("vectors.0.partitions.0.1", "../ivf.0123456789abcdef.bin", r"not a payload name"),
    ("vectors.0.partitions", [], r"vectors\[0\]\.partitions is empty"),
    ("vectors.0.centroids.1", 7, r"vectors\[0\]\.centroids must be \[name, bytes\]"),
    ("vectors.0.centroids", DELETE, r"vectors\[0\]\.centroids is missing"),
    ("vectors.0.metric", "l2", r"vectors\[0\]\.metric is not ip"),
])
def test_bad_partitioned_fields_are_refused_by_name(tmp_path, small_partitions, field, value,
                                                    message):
    write(tmp_path, "partitioned")
    catalog = catalog_of(tmp_path)
    set_field(catalog, field, value)
    resign(tmp_path, catalog)
    with pytest.raises(BundleError, match=message):
        read_bundle(tmp_path)


def test_partitions_whose_rows_do_not_add_up_or_overlap_are_refused(tmp_path,
                                                                    small_partitions):
    write(tmp_path, "partitioned")
    catalog = catalog_of(tmp_path)
    catalog["vectors"][0]["partitions"].pop()
    catalog["vectors"][0]["centroids"][1] -= 384
    resign(tmp_path, catalog)
    with pytest.raises(BundleError, match=r"partitions hold \d+ rows for 48 chunks"):
        read_bundle(tmp_path)
    # a partition that repeats another's chunk, re-hashed so that only its ids are wrong
    write(tmp_path, "partitioned")
    catalog = catalog_of(tmp_path)
    (_rows_a, name_a, _), (rows_b, name_b, _) = catalog["vectors"][0]["partitions"][:2]
    first = (tmp_path / name_a).read_bytes()
    data = bytearray((tmp_path / name_b).read_bytes())
    data[4:8] = first[4:8]  # partition b now also claims a's first chunk
    ids = np.frombuffer(bytes(data[4:4 + 4 * rows_b]), "<u4")
    if np.any(np.diff(ids.astype(np.int64)) <= 0):
        ids = np.sort(ids)
        data[4:4 + 4 * rows_b] = ids.astype("<u4").tobytes()
    name = f"vectors/ivf.{hashlib.sha256(bytes(data)).hexdigest()[:16]}.bin"
    (tmp_path / name).write_bytes(bytes(data))
    catalog["vectors"][0]["partitions"][1][1] = name
    resign(tmp_path, catalog)
    with pytest.raises(BundleError, match="each in no other partition"):
        read_bundle(tmp_path)
