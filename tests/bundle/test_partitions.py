"""The partitioned vector layout: writing, reading, probing, filters, format checks."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shutil

import numpy as np
import pytest

from mkdocs_semantic.bundle.format import BundleError
from mkdocs_semantic.bundle.names import self_check
from mkdocs_semantic.bundle.quantize import quantize
from mkdocs_semantic.bundle.reader import read_bundle, walk_levels
from mkdocs_semantic.bundle.vectors import partitions
from mkdocs_semantic.bundle.vectors.codes import query_codes
from mkdocs_semantic.bundle.vectors.partition_files import (
    chunk_id_bytes,
    count_bytes,
    parse_partition,
    partition_bytes,
    payloads_of_index,
)
from mkdocs_semantic.bundle.writer import write_bundle
from mkdocs_semantic.constants import ROW_CHECK_BYTES
from mkdocs_semantic.model.spec import default_model_spec
from mkdocs_semantic.search.searcher import Searcher

from ..bundle_edits import publish_catalog
from .test_reader_writer import DELETE, catalog_of, sample_chunks, sample_table, set_field

CHUNKS = 48


def clustered_vectors(n: int = CHUNKS, dim: int = 384) -> np.ndarray:
    """Unit vectors around a few directions, so that k-means has clusters to find."""
    rng = np.random.default_rng(11)
    centres = rng.standard_normal((6, dim))
    x = centres[np.arange(n) % 6] + 0.3 * rng.standard_normal((n, dim))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def small_partitions(monkeypatch):
    """Partitions of about 6 rows in blocks of about 2; a query probes 2 or 3 of them and
    scores 8 rows."""
    monkeypatch.setattr(partitions, "PARTITION_ROWS", 6)
    monkeypatch.setattr(partitions, "ROWS_BLOCK", 2)
    monkeypatch.setattr(partitions, "PROBE_ROWS", 12)
    monkeypatch.setattr(partitions, "CANDIDATES", 8)


def test_sign_scores_add_the_codes_where_the_bit_is_set_and_subtract_the_rest():
    rows = np.array([[1, -2, 0, 5], [-1, -1, -1, -1], [3, 3, 3, 3]], dtype=np.int8)
    bits = partitions.sign_bits(rows)
    assert bits.tolist() == [[0b1101], [0], [0b1111]]  # dimension d is bit d, 0 counts as set
    codes = np.array([1, 2, 3, 4], dtype=np.int8)
    assert partitions.sign_scores(bits, codes).tolist() == [1 - 2 + 3 + 4, -10, 10]
    # more than 8 dimensions: bit d of byte d // 8
    wide = np.zeros((1, 11), dtype=np.int8) - 1
    wide[0, 9] = 4
    assert partitions.sign_bits(wide).tolist() == [[0, 0b10]]


def test_the_probe_takes_partitions_by_sign_score_until_they_hold_enough_rows():
    centroids = partitions.sign_bits(np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], np.int8))
    sizes = np.array([5, 5, 5, 5])
    codes = np.array([3, 1], dtype=np.int8)  # scores 4, -4, 2, -2
    assert partitions.probed(centroids, sizes, codes, probe_rows=1) == [0]
    assert partitions.probed(centroids, sizes, codes, probe_rows=5) == [0]
    assert partitions.probed(centroids, sizes, codes, probe_rows=6) == [0, 2]
    assert partitions.probed(centroids, sizes, codes, probe_rows=100) == [0, 2, 3, 1]
    # ties by partition number
    assert partitions.probed(centroids, sizes, np.array([1, 1], np.int8),
                             probe_rows=20) == [0, 2, 3, 1]
    ids = np.array([7, 3, 9, 4])
    best = partitions.best_rows(ids, np.array([5, 8, 5, 1]), 3)
    assert ids[best].tolist() == [3, 7, 9]


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
    assert vectors.probe_rows == 12 and vectors.candidates == 8
    assert 4 < len(vectors.partitions) == len(vectors.centroid_bits) == len(vectors.sizes)
    ids = np.concatenate([vectors.partition(p).ids for p in range(len(vectors.partitions))])
    assert sorted(ids.tolist()) == list(range(CHUNKS))
    np.testing.assert_array_equal(vectors.matrix(), exact.vectors.matrix())
    spec = catalog_of(tmp_path / "part")["vectors"][0]
    assert "parts" not in spec and spec["layout"] == "partitioned"


def test_a_query_scores_its_candidates_exactly_and_no_others(tmp_path, small_partitions):
    write(tmp_path / "exact", "exact")
    write(tmp_path / "part", "partitioned")
    exact, part = read_bundle(tmp_path / "exact").vectors, read_bundle(tmp_path / "part").vectors
    codes = query_codes(clustered_vectors()[5] + 0.1)
    full, scored_now = exact.scores(codes), part.scores(codes)
    scored = np.flatnonzero(~np.isnan(scored_now))
    probed = part.probed(codes)
    held = np.concatenate([part.partition(p).ids for p in probed])
    assert 12 <= len(held) < CHUNKS
    # the 8 best rows of the probed partitions by sign score, ties by chunk number
    bits = np.concatenate([part.partition(p).bits for p in probed])
    by_sign = partitions.sign_scores(bits, codes)
    want = held[np.lexsort((held, -by_sign))[:8]]
    assert sorted(scored.tolist()) == sorted(want.tolist())
    np.testing.assert_array_equal(scored_now[scored], full[scored])
    np.testing.assert_array_equal(part.scores(codes, every=True), full)
    # the probe follows the centroids' sign scores, ties by number
    order = partitions.probe_order(part.centroid_bits, codes)
    signs = partitions.sign_scores(part.centroid_bits, codes)
    assert all(signs[a] > signs[b] or (signs[a] == signs[b] and a < b)
               for a, b in itertools.pairwise(order))
    assert probed == order[:len(probed)].tolist()


def test_row_blocks_cluster_a_partitions_rows_into_numbered_nonempty_blocks():
    rows = quantize(clustered_vectors(40), "i8").vectors
    blocks = partitions.row_blocks(rows, rows_per_block=8)
    assert len(np.unique(blocks)) == 5 and np.bincount(blocks).min() >= 1
    _, first = np.unique(blocks, return_index=True)
    assert np.all(np.diff(first) > 0)  # numbered in the order of their first row
    np.testing.assert_array_equal(blocks, partitions.row_blocks(rows, rows_per_block=8))
    assert partitions.row_blocks(rows[:11], rows_per_block=16).tolist() == [0] * 11


def test_a_query_reads_only_the_row_blocks_holding_its_candidates(tmp_path, small_partitions):
    write(tmp_path / "exact", "exact")
    write(tmp_path / "part", "partitioned")
    exact = read_bundle(tmp_path / "exact").vectors
    spec = catalog_of(tmp_path / "part")["vectors"][0]
    bundle = read_bundle(tmp_path / "part")
    read: list[tuple[str, int]] = []

    def reading(name: str, size: int) -> bytes:
        return (tmp_path / "part" / name).read_bytes()

    def record(pack: str, size: int, offset: int, length: int) -> bytes:
        read.append((pack, offset))
        return reading(pack, size)[offset:offset + length]

    from mkdocs_semantic.bundle.vectors.store import read_partitioned

    lazy = read_partitioned(spec, bundle.pages.starts, reading, read_record=record, lazy=True)
    lazy.candidates = 3  # fewer candidates than a probed partition's blocks hold
    assert any(len(lazy.partition(p).blocks) > 1 for p in range(len(lazy.partitions)))
    skipped = 0
    for row in range(0, CHUNKS, 7):
        codes = query_codes(clustered_vectors()[row] + 0.1)
        read.clear()
        scored = lazy.scores(codes)
        holding = lazy.candidate_rows(codes)
        wanted = {(lazy.partition(p).pack, lazy.partition(p).block_offset(b, lazy.dim))
                  for p, b in lazy.candidate_blocks(holding)}
        assert read and set(read) <= wanted
        skipped += sum(len(lazy.partition(p).blocks) for p, _ in holding) - len(wanted)
        held = np.flatnonzero(~np.isnan(scored))
        np.testing.assert_array_equal(scored[held], exact.scores(codes)[held])
    assert skipped  # some partition holding a candidate kept a block unread


def test_a_rows_record_under_another_blocks_name_is_refused(tmp_path, small_partitions):
    write(tmp_path, "partitioned")
    vectors = read_bundle(tmp_path).vectors
    part = next(part for part in map(vectors.partition, range(len(vectors.partitions)))
                if len({rows for _, rows in part.blocks}) < len(part.blocks))
    first, second = next((a, b) for a, b in itertools.combinations(range(len(part.blocks)), 2)
                         if part.blocks[a][1] == part.blocks[b][1])
    # same size, same partition's hash: only the record's check tells the two apart
    pack = bytearray((tmp_path / part.pack).read_bytes())
    at, to = part.block_offset(first, vectors.dim), part.block_offset(second, vectors.dim)
    size = part.block_offset(first + 1, vectors.dim) - at
    pack[at:at + size] = pack[to:to + size]
    body = bytes(pack[:-ROW_CHECK_BYTES])
    (tmp_path / part.pack).write_bytes(body + self_check(part.pack, body))
    name = part.blocks[first][0]
    with pytest.raises(BundleError, match=re.escape(f"{name} does not match its hash")):
        read_bundle(tmp_path)


def test_a_pack_of_rows_changed_anywhere_is_refused(tmp_path, small_partitions):
    write(tmp_path, "partitioned")
    pack = next((tmp_path / "vectors").glob("rows.*.i8"))
    data = bytearray(pack.read_bytes())
    data[-ROW_CHECK_BYTES - 1] ^= 1
    pack.write_bytes(bytes(data))
    with pytest.raises(BundleError, match=r"vectors/rows\.[0-9a-f]{16}\.i8 does not match"):
        read_bundle(tmp_path)


def test_a_bits_file_whose_blocks_do_not_add_up_is_refused(tmp_path, small_partitions):
    write(tmp_path, "partitioned")
    bundle = read_bundle(tmp_path)
    vectors = bundle.vectors
    part = next(vectors.partition(p) for p in range(len(vectors.partitions))
                if len(vectors.partition(p).blocks) > 1)
    data = bytearray(bits_file_of(part, np.zeros((len(part.bits), 384), np.int8),
                                  bundle.pages.starts))
    width = count_bytes(len(part.bits))
    first = slice(20, 20 + width)  # block 0's row count, after the counts and rows hash
    data[first] = (int.from_bytes(data[first], "little") + 1).to_bytes(width, "little")
    with pytest.raises(BundleError, match=rf"in {len(part.blocks)} blocks"):
        parse_partition(bytes(data), chunks=len(part.ids), rows=len(part.bits),
                        blocks=len(part.blocks), dim=384,
                        id_bytes=chunk_id_bytes(bundle.pages.starts),
                        starts=bundle.pages.starts, source="bin")


def test_a_filtered_query_misses_no_match_in_partitions_it_would_not_probe(
        tmp_path, small_partitions):
    write(tmp_path / "exact", "exact")
    write(tmp_path / "part", "partitioned")
    exact, part = Searcher.open(tmp_path / "exact"), Searcher.open(tmp_path / "part")
    codes = query_codes(clustered_vectors()[5] + 0.1)
    plain = part.search_vector(codes, top_k=CHUNKS)
    assert len(plain) == 8  # unfiltered: only the candidates
    assert all(r.vector_score is not None for r in plain)
    for section in ("Guide", "Operations"):
        options = {"mode": "vector", "top_k": CHUNKS, "filters": {"section": [section]}}
        want = exact.rank(query="x", vector=codes, min_score=None, **options)
        got = part.rank(query="x", vector=codes, min_score=None, **options)
        assert [(r.chunk_id, r.vector_score) for r in got] == \
            [(r.chunk_id, r.vector_score) for r in want]
        assert len(got) == CHUNKS // 2


def test_hybrid_results_outside_the_candidates_have_no_vector_score(
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
    monkeypatch.setattr(partitions, "PARTITIONED_MIN_BYTES", CHUNKS * 384)
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


def test_a_set_every_query_probes_whole_lists_its_bits_files_in_the_catalog(
        tmp_path, small_partitions, monkeypatch):
    write(tmp_path / "probed", "partitioned")  # 48 chunks, a query probes 12 rows
    assert "bits" not in catalog_of(tmp_path / "probed")["vectors"][0]
    monkeypatch.setattr(partitions, "PROBE_ROWS", CHUNKS)
    write(tmp_path / "whole", "partitioned")
    spec = catalog_of(tmp_path / "whole")["vectors"][0]
    index = (tmp_path / "whole" / spec["index"][0]).read_bytes()
    assert [tuple(entry) for entry in spec["bits"]] == payloads_of_index(spec, index)
    assert len(spec["bits"]) == spec["partitions"] > 4
    assert read_bundle(tmp_path / "whole").vectors.probe_rows == CHUNKS
    # a copy fetches them with the index, a level before the index names them
    first = next(walk_levels(catalog_of(tmp_path / "whole"),
                             lambda name, size: (tmp_path / "whole" / name).read_bytes()))
    assert {name for name, _ in spec["bits"]} <= {payload.name for payload in first}


@pytest.mark.parametrize("edit, message", [
    (lambda bits: bits[:-1], r"vectors\[0\]\.bits must list \[name, bytes\] of each of its \d+"),
    (lambda bits: [[name, 0] for name, _ in bits], r"vectors\[0\]\.bits must list"),
    (lambda bits: [[name, 2**53] for name, _ in bits], r"vectors\[0\]\.bits must list"),
    (lambda bits: [["../x.bin", size] for _, size in bits], r"vectors\[0\]\.bits must list"),
    (lambda bits: [["pages/pages.0123456789abcdef.bin", size] for _, size in bits],
     r"vectors\[0\]\.bits must list"),
    (lambda bits: [bits[1], bits[0], *bits[2:]], r"catalog's bits files are not the ones"),
    (lambda bits: [[name, size + 1] for name, size in bits], r"catalog's bits files are not"),
])
def test_catalog_bits_files_that_are_not_the_index_s_are_refused(
        tmp_path, small_partitions, monkeypatch, edit, message):
    monkeypatch.setattr(partitions, "PROBE_ROWS", CHUNKS)
    write(tmp_path, "partitioned")
    catalog = catalog_of(tmp_path)
    catalog["vectors"][0]["bits"] = edit(catalog["vectors"][0]["bits"])
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match=message):
        read_bundle(tmp_path)


def test_bits_files_in_the_catalog_of_a_set_a_query_probes_in_part_are_refused(
        tmp_path, small_partitions):
    write(tmp_path, "partitioned")  # 48 chunks, a query probes 12 rows
    catalog = catalog_of(tmp_path)
    spec = catalog["vectors"][0]
    spec["bits"] = [list(entry) for entry in
                    payloads_of_index(spec, (tmp_path / spec["index"][0]).read_bytes())]
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match=r"vectors\[0\]\.bits lists bits files, but a "
                                          r"query probes only some of its 48 chunks"):
        read_bundle(tmp_path)


def test_an_empty_site_in_the_partitioned_layout(tmp_path):
    write_bundle(tmp_path, chunks=[], stored=quantize(np.zeros((0, 384), np.float32), "i8"),
                 spec=default_model_spec(), table=sample_table([]),
                 vector_layout="partitioned")
    searcher = Searcher.open(tmp_path)
    assert searcher.search("anything") == []
    assert searcher.search_vector(query_codes(clustered_vectors(1)[0])) == []




@pytest.mark.parametrize("field, value, message", [
    ("vectors.0.layout", "hnsw", r"vectors\[0\]\.layout 'hnsw' is not exact or partitioned"),
    ("vectors.0.dtype", "f16", r"vectors\[0\]\.dtype must be i8 in the partitioned layout"),
    ("vectors.0.probe_rows", 0, r"vectors\[0\]\.probe_rows is 0, not a whole number from 1"),
    ("vectors.0.probe_rows", DELETE, r"vectors\[0\]\.probe_rows is missing"),
    ("vectors.0.candidates", 0, r"vectors\[0\]\.candidates is 0"),
    ("vectors.0.candidates", 5000, r"vectors\[0\]\.candidates is 5000"),
    ("vectors.0.partitions", 0, r"vectors\[0\]\.partitions is 0, not a whole number from 1"),
    ("vectors.0.partitions", True, r"vectors\[0\]\.partitions is True"),
    ("vectors.0.index.1", 5, r"vectors\[0\]\.index must be \[name, \d+\]"),
    ("vectors.0.index.0", "../ivf.0123456789abcdef.bin", r"not a payload name"),
    ("vectors.0.centroids.1", 7, r"vectors\[0\]\.centroids must be \[name, \d+\]"),
    ("vectors.0.centroids", DELETE, r"vectors\[0\]\.centroids is missing"),
    ("vectors.0.metric", "l2", r"vectors\[0\]\.metric is not ip"),
    ("vectors.0.id_bytes", 3, r"vectors\[0\]\.id_bytes must be 1, 2 or 4"),
    ("vectors.0.id_bytes", DELETE, r"vectors\[0\]\.id_bytes is missing"),
    ("vectors.0.id_bytes", 4, r"id_bytes is 4 where this site's pages need 1"),
])
def test_bad_partitioned_fields_are_refused_by_name(tmp_path, small_partitions, field, value,
                                                    message):
    write(tmp_path, "partitioned")
    catalog = catalog_of(tmp_path)
    set_field(catalog, field, value)
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match=message):
        read_bundle(tmp_path)


def republish(root, catalog: dict, old: str, data: bytes, folder: str, stem: str,
              ext: str) -> str:
    """Write `data` under its hashed name in place of payload `old`, renaming it
    wherever the catalog names it; returns the new name."""
    name = f"{folder}/{stem}.{hashlib.sha256(data).hexdigest()[:16]}.{ext}"
    (root / name).write_bytes(data)
    text = json.dumps(catalog).replace(old, name)
    catalog.clear()
    catalog.update(json.loads(text))
    return name


def test_partitions_whose_rows_do_not_add_up_or_overlap_are_refused(tmp_path,
                                                                    small_partitions):
    from mkdocs_semantic.bundle.vectors import partition_files

    write(tmp_path, "partitioned")
    catalog = catalog_of(tmp_path)
    spec = catalog["vectors"][0]
    index = bytearray((tmp_path / spec["index"][0]).read_bytes())
    index[8:12] = (int.from_bytes(index[8:12], "little") + 1).to_bytes(4, "little")
    republish(tmp_path, catalog, spec["index"][0], bytes(index), "vectors", "ivf", "bin")
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match=r"lists \d+ rows for 48 chunks"):
        read_bundle(tmp_path)
    # a partition that repeats another's chunk, its bits file and the index re-hashed so
    # that only its ids are wrong
    write(tmp_path, "partitioned")
    catalog = catalog_of(tmp_path)
    spec = catalog["vectors"][0]
    bundle = read_bundle(tmp_path)
    vectors, starts = bundle.vectors, bundle.pages.starts
    first, second = vectors.partition(0), vectors.partition(1)
    ids = np.sort(np.append(second.ids[1:], first.ids[0]))  # 1 also claims 0's first chunk
    data = bits_file_of(second, vectors.partition_rows(1), starts, ids=ids)
    index = (tmp_path / spec["index"][0]).read_bytes()
    old_bin = partition_files.parse_index(index, partitions_count=spec["partitions"], dim=384,
                                       source="").bin_names[1]
    new_bin = f"vectors/bin.{hashlib.sha256(data).hexdigest()[:16]}.bin"
    (tmp_path / new_bin).write_bytes(data)
    index = index.replace(bytes.fromhex(old_bin.split(".")[1]),
                          bytes.fromhex(new_bin.split(".")[1]))
    republish(tmp_path, catalog, spec["index"][0], index, "vectors", "ivf", "bin")
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match="holds chunks another partition holds"):
        read_bundle(tmp_path)


def test_kept_centroids_are_refitted_only_past_the_drift_bounds():
    rows = partitions.PARTITION_ROWS
    assert not partitions.drifted([rows] * 10, rows=10 * rows)
    assert not partitions.drifted([rows] * 9 + [3 * rows], rows=12 * rows)
    assert partitions.drifted([rows] * 7, rows=10 * rows)  # the site grew by 43 %
    # as many partitions as wanted, but one holds more than 12 times the mean
    assert not partitions.drifted([rows // 2] * 20 + [11 * rows], rows=21 * rows)
    assert partitions.drifted([rows // 2] * 24 + [13 * rows], rows=25 * rows)
    stored = quantize(clustered_vectors(600), "i8").vectors
    fresh = partitions.build_partitions(stored, rows_per_partition=100)
    assert len(fresh.members) == 6
    kept = partitions.build_partitions(stored, rows_per_partition=100,
                                       previous=fresh.centroids[:5])
    np.testing.assert_array_equal(kept.centroids, fresh.centroids[:5])
    refit = partitions.build_partitions(stored, rows_per_partition=100,
                                        previous=fresh.centroids[:4])  # 4 for 6 wanted
    np.testing.assert_array_equal(refit.centroids, fresh.centroids)


def topic_page(number: int, *, sections: int, seed: int = 0) -> str:
    """A page on one of five topics: sections of words drawn from the topic's words."""
    rng = np.random.default_rng([number, seed])
    words = [f"t{number % 5}w{i}" for i in range(40)]
    html = [f"<h1 id='p{number}'>Page {number}</h1>"]
    for s in range(sections):
        html.append(f"<h2 id='s{s}'>Part {s}</h2><p>"
                    + " ".join(rng.choice(words, 30).tolist()) + "</p>")
    return "".join(html)


def test_a_one_page_edit_rewrites_only_the_partitions_that_hold_its_chunks(
        tmp_path, small_partitions):
    """The issue's measure: a rebuild that changes one page changes only the vector files
    holding it, here after `mkdocs build` emptied the site folder (the centroids and the
    int8 scale come back from the cache folder) and with the page gaining a chunk (every
    later chunk's number shifts)."""

    from mkdocs_semantic.chunk import PageFacts
    from mkdocs_semantic.indexing.indexer import Indexer, IndexOptions

    from ..indexing.test_indexer import HashingEmbedder, hashing_spec

    spec = hashing_spec()
    out = tmp_path / "site" / "semantic"
    pages = {n: topic_page(n, sections=2) for n in range(24)}

    def build() -> dict[str, bytes]:
        indexer = Indexer(spec, IndexOptions(vector_layout="partitioned"),
                          cache_path=tmp_path / "cache" / "embeddings.npz",
                          embedder=HashingEmbedder())
        indexer.start_build()
        chunks = [c for n, html in pages.items()
                  for c in indexer.chunk(html, PageFacts(url=f"p{n}/", title=f"Page {n}"))]
        if out.parent.exists():
            shutil.rmtree(out.parent)  # as `mkdocs build` cleans the site folder
        indexer.write(out, chunks, pages=len(pages))
        return {p.name: p.read_bytes() for p in (out / "vectors").iterdir()}

    before = build()
    first = read_bundle(out)
    assert len(first.vectors.partitions) > 4
    old = partitions_of(first)
    pages[10] = topic_page(10, sections=3, seed=1)
    after = build()
    second = read_bundle(out)
    assert first.scale == second.scale
    np.testing.assert_array_equal(first.vectors.centroid_bits, second.vectors.centroid_bits)
    old_starts, starts = first.pages.starts, second.pages.starts
    assert starts[11] - starts[10] == old_starts[11] - old_starts[10] + 1
    assert len(second.chunks) == len(first.chunks) + 1

    # the same centroids: partition i is the same partition in both builds
    new = partitions_of(second)
    assert len(old) == len(new)
    touched = [a[2] or b[2] for a, b in zip(old, new)]
    assert [a[:2] != b[:2] for a, b in zip(old, new)] == touched
    changed = set(after) - set(before)
    # of 12 partitions, 1-3 change: their bits file, their pack of rows (named by the
    # hash of the partition's rows), and the index naming the bits files; no file of
    # another partition
    theirs = {name.rsplit("/", 1)[-1] for a, b, hit in zip(old, new, touched) if hit
              for name in (a[0], b[0], *a[1], *b[1])}
    assert 1 <= sum(touched) <= 3
    assert {n for n in changed if not n.startswith("ivf.")} <= theirs
    assert sum(n.startswith("ivf.") for n in changed) == 1
    assert sum(n.startswith("bin.") for n in changed) == sum(touched)
    assert {name for name in after if name.startswith("cent.")} <= set(before)


def bits_file_of(part, rows: np.ndarray, starts: np.ndarray, *, ids: np.ndarray | None = None,
                 row_of: np.ndarray | None = None) -> bytes:
    """`part`'s bits file written again, with other `ids` or `row_of` when given."""
    return partition_bytes(part.ids if ids is None else ids, rows,
                           part.row_numbers if row_of is None else row_of, starts,
                           block_rows=[count for _, count in part.blocks],
                           rows_digest=part.blocks[0][0].split(".")[1])


def partitions_of(bundle) -> list[tuple[str, tuple[str, ...], bool]]:
    """Per partition: its bits file, its pack of rows (and the names of the blocks'
    records in it), and whether it holds a chunk of page 10."""
    vectors = bundle.vectors
    lo, hi = bundle.pages.starts[10:12]
    return [(vectors.bits_files[p], (vectors.partition(p).pack,
                                     *(name for name, _ in vectors.partition(p).blocks)),
             bool(np.any((vectors.partition(p).ids >= lo) & (vectors.partition(p).ids < hi))))
            for p in range(len(vectors.partitions))]


def test_the_layout_of_another_model_is_not_reused(tmp_path):
    """Centroids and a scale from other vectors would only mislead the partitioning."""

    from mkdocs_semantic.chunk import PageFacts
    from mkdocs_semantic.indexing import layout_basis
    from mkdocs_semantic.indexing.indexer import Indexer, IndexOptions

    from ..indexing.test_indexer import HashingEmbedder, hashing_spec

    out, cache = tmp_path / "site" / "semantic", tmp_path / "cache" / "embeddings.npz"

    def indexer(name: str) -> Indexer:
        spec = hashing_spec(name)
        return Indexer(spec, IndexOptions(vector_layout="partitioned"), cache_path=cache,
                       embedder=HashingEmbedder())

    first = indexer("hashing-a")
    first.start_build()
    chunks = [c for n in range(6) for c in first.chunk(
        topic_page(n, sections=2), PageFacts(url=f"p{n}/", title=f"Page {n}"))]
    first.write(out, chunks, pages=6)
    saved = layout_basis.load(cache.with_name("layout.npz"))
    assert saved is not None and saved.centroids is not None
    written = layout_basis.from_bundle(out)
    assert (saved.model, saved.dim, saved.scale) == (written.model, written.dim, written.scale)
    np.testing.assert_array_equal(saved.centroids, written.centroids)
    assert first.layout_basis(out) is not None
    assert indexer("hashing-b").layout_basis(out) is None
    shutil.rmtree(out)
    assert first.layout_basis(out) is not None  # from the cache folder
    assert indexer("hashing-b").layout_basis(out) is None


def test_copies_share_one_stored_row_and_are_scored_together(tmp_path, small_partitions):
    """Chunks with the same vector (a page copied into each version of a site) share a
    row in their partition: candidates are distinct rows, and every copy of a candidate
    gets its score, as in the exact layout."""
    vectors = np.concatenate([clustered_vectors(CHUNKS // 2)] * 2)
    for layout in ("exact", "partitioned"):
        chunks = sample_chunks(CHUNKS)
        write_bundle(tmp_path / layout, chunks=chunks, stored=quantize(vectors, "i8"),
                     spec=default_model_spec(), table=sample_table(chunks),
                     vector_layout=layout)
    exact = read_bundle(tmp_path / "exact").vectors
    part = read_bundle(tmp_path / "partitioned").vectors
    np.testing.assert_array_equal(part.matrix(), exact.matrix())
    stored = sum(len(part.partition(p).bits) for p in range(len(part.partitions)))
    assert stored == CHUNKS // 2  # each vector once
    shared = [part.partition(p) for p in range(len(part.partitions))
              if part.partition(p).row_of is not None]
    assert shared and all(len(p.bits) < len(p.ids) for p in shared)
    codes = query_codes(vectors[3] + 0.05)
    scored = part.scores(codes)
    held = np.flatnonzero(~np.isnan(scored))
    # the best rows (up to 8) by sign score among the probed partitions, ties by first
    # chunk; each scored with both of its chunks
    probed = [part.partition(p) for p in part.probed(codes)]
    firsts = np.concatenate([p.first_chunks for p in probed])
    signs = partitions.sign_scores(np.concatenate([p.bits for p in probed]), codes)
    want = firsts[np.lexsort((firsts, -signs))[:8]]
    assert len(want) >= 4 and len(held) == 2 * len(want)
    assert set(held.tolist()) == set(want.tolist()) | {i + CHUNKS // 2 for i in want.tolist()}
    assert set(held.tolist()) == set(part.candidate_ids(codes).tolist())
    full = exact.scores(codes)
    np.testing.assert_array_equal(scored[held], full[held])
    np.testing.assert_array_equal(part.scores(codes, every=True), full)


def test_a_row_map_that_breaks_the_row_order_is_refused(tmp_path, small_partitions):
    vectors = np.concatenate([clustered_vectors(CHUNKS // 2)] * 2)
    chunks = sample_chunks(CHUNKS)
    write_bundle(tmp_path, chunks=chunks, stored=quantize(vectors, "i8"),
                 spec=default_model_spec(), table=sample_table(chunks),
                 vector_layout="partitioned")
    bundle = read_bundle(tmp_path)
    part = next(bundle.vectors.partition(p) for p in range(len(bundle.vectors.partitions))
                if bundle.vectors.partition(p).row_of is not None)
    row_of = part.row_of[::-1].copy()  # rows no longer numbered by their first chunk
    data = bits_file_of(part, np.zeros((len(part.bits), 384), np.int8),
                        bundle.pages.starts, row_of=row_of)
    with pytest.raises(BundleError, match="sharing"):
        parse_partition(data, chunks=len(part.ids), rows=len(part.bits),
                        blocks=len(part.blocks), dim=384,
                        id_bytes=chunk_id_bytes(bundle.pages.starts),
                        starts=bundle.pages.starts, source="bin")


@pytest.mark.parametrize(("rows", "width"), [(255, 1), (256, 2)])
def test_a_bits_file_gives_block_counts_the_bytes_its_row_count_needs(rows, width):
    starts = np.array([0, rows])
    members = np.arange(rows)
    kept = np.random.default_rng(rows).integers(-127, 128, (rows, 16), dtype=np.int8)
    block_rows = [rows - 1, 1]  # a count that needs `width` bytes only past 255 rows
    data = partition_bytes(members, kept, members, starts, block_rows=block_rows,
                           rows_digest="0123456789abcdef")
    assert count_bytes(rows) == width
    part = parse_partition(data, chunks=rows, rows=rows, blocks=2, dim=16,
                           id_bytes=chunk_id_bytes(starts), starts=starts, source="bin")
    assert part.blocks == [("vectors/row0.0123456789abcdef.i8", rows - 1),
                           ("vectors/row1.0123456789abcdef.i8", 1)]
