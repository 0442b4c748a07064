"""The bundle format: write_bundle / read_bundle, integrity checks, frozen fixtures."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from mkdocs_semantic.bundle.format import BundleError
from mkdocs_semantic.bundle.names import (
    PIECE_NAME,
    ROW_CHECK_BYTES,
    PayloadError,
    check_name,
    checked,
    deflate,
    inflate,
    self_check,
    self_checked,
    self_checked_body,
    write_payload,
)
from mkdocs_semantic.bundle.quantize import quantize
from mkdocs_semantic.bundle.reader import (
    _check_buckets,
    browser_forward_pass,
    find_bundle_dir,
    payload_json,
    read_bundle,
    shard_list,
)
from mkdocs_semantic.bundle.shard_lists import (
    ShardReader,
    bucket_of,
    hash_at,
    keyed_entries,
    parse_shard_list,
    write_packed_list,
)
from mkdocs_semantic.bundle.table import TokenTable, token_ids_of
from mkdocs_semantic.bundle.vectors.codes import query_codes
from mkdocs_semantic.bundle.vectors.store import VectorSet
from mkdocs_semantic.bundle.wordpieces import keyed_stems
from mkdocs_semantic.bundle.writer import write_bundle
from mkdocs_semantic.chunk import Chunk
from mkdocs_semantic.constants import FORMAT_VERSION
from mkdocs_semantic.model.spec import default_model_spec
from mkdocs_semantic.search.searcher import Searcher

from ..bundle_edits import publish_catalog, replace_packed_shard, stored_shard

FIXTURES = Path(__file__).parent.parent / "fixtures" / "bundles"


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


def sample_table(chunks: list[Chunk], dim: int = 384) -> TokenTable:
    """A table with a row for every token of the chunks' text (rows: deterministic noise;
    these tests are about storage and arithmetic, not meaning)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(default_model_spec().tokenizer_path))
    ids = sorted({i for c in chunks for i in tokenizer.encode(c.text).ids} - {101, 102})
    rows = np.random.default_rng(3).integers(-127, 128, (len(ids), dim), dtype=np.int8)
    return TokenTable(token_ids=np.array(ids, dtype=np.uint32), rows=rows, scale=90.0)


def write_sample(root: Path, n: int = 6, **options):
    chunks = sample_chunks(n)
    options.setdefault("word_rows", True)  # every kind of payload, the optional ones too
    return write_bundle(root, chunks=chunks, stored=quantize(sample_vectors(n), "i8"),
                        spec=default_model_spec(), table=sample_table(chunks), **options)


def catalog_of(root: Path) -> dict:
    manifest = json.loads((root / "manifest.json").read_text())
    return json.loads((root / manifest["catalog"]["name"]).read_text())


@pytest.mark.parametrize("dtype", ["i8", "f16", "f32"])
def test_round_trip(tmp_path, dtype):
    chunks, vectors = sample_chunks(), sample_vectors()
    chunks[0].facets = chunks[1].facets = {"tags": ["http", "cache"], "version": ["2"]}
    chunks[0].boost = chunks[1].boost = 2.0
    stored = quantize(vectors, dtype)
    table = sample_table(chunks)
    manifest = write_bundle(tmp_path, chunks=chunks, stored=stored, spec=default_model_spec(),
                            table=table)
    bundle = read_bundle(tmp_path)
    assert bundle.manifest == manifest
    assert bundle.chunks == chunks
    np.testing.assert_array_equal(bundle.vectors.matrix(), stored.vectors)
    np.testing.assert_array_equal(bundle.table.token_ids, table.token_ids)
    np.testing.assert_array_equal(bundle.table.rows, table.rows)
    assert manifest.format == FORMAT_VERSION
    assert manifest.counts == {"pages": 3, "chunks": 6}
    assert manifest.query_encoder == "static"
    assert manifest.search["filters"] == ["section", "tags", "version"]
    assert bundle.vectors.dtype == dtype
    for payload in bundle.files:
        assert (tmp_path / payload.name).stat().st_size == payload.bytes
    assert not any(p.name.startswith("model/model.") for p in bundle.files)


def test_fragments_carry_code_and_the_deepest_heading(tmp_path):
    """Results link to the deepest heading holding the chunk and show its code as code;
    the section's own anchor still groups its pieces for the ranking."""
    chunks = sample_chunks()
    chunks[3].text = "Create the app:\n    app = FastAPI()\nThen run it."
    chunks[3].code = [[16, 36]]
    chunks[3].link_anchor, chunks[3].link_path = "deep", ["Part", "Section 3", "Deep"]
    chunks[4].url = chunks[5].url = "page2/"
    chunks[5].anchor = chunks[4].anchor = "s4"  # two pieces of one section
    chunks[5].kind = "section"
    chunks[5].link_anchor, chunks[5].link_path = "s4-deep", ["Part", "Section 4", "Deep"]
    write_bundle(tmp_path, chunks=chunks, stored=quantize(sample_vectors(), "i8"),
                 spec=default_model_spec(), table=sample_table(chunks))
    catalog = catalog_of(tmp_path)
    shards = parse_shard_list(catalog["fragments"], int)
    pages = [payload_json(name, stored_shard(tmp_path, name), name)[0]
             for name in (f"fragments/frag{n}.{hash_at(shards.hashes, n)}.json"
                          for n in range(2))]
    assert shards.count == catalog["pages"]["count"]
    assert pages[1][3][1] == ["deep", ["Part", "Section 3", "Deep"],
                              ["Create the app:", "app = FastAPI()", "Then run it."], "s"]
    assert pages[0][3][0][2] == "Text of section 0 ✓ 東京 مرحبا"  # no code: one string
    # chunk 5 continues chunk 4's section (page 2's chunks are 4 and 5)
    assert read_bundle(tmp_path).pages.sections.tolist() == [0, 1, 2, 3, 4, 4]
    read = read_bundle(tmp_path).chunks
    # Read back as written: its own anchor and path (what was embedded), and the deep link.
    assert (read[3].anchor, read[3].path) == (chunks[3].anchor, chunks[3].path)
    assert [c.embed_text for c in read] == [c.embed_text for c in chunks]
    assert (read[3].link_anchor, read[3].link_path) == ("deep", ["Part", "Section 3", "Deep"])
    assert read[3].excerpt == "Create the app: app = FastAPI() Then run it."
    [result] = [r for r in Searcher.open(tmp_path).search("section", top_k=100)
                if r.chunk_id == 3]
    assert (result.anchor, result.path) == ("deep", ["Part", "Section 3", "Deep"])


def test_transformer_bundles_ship_the_model_for_the_clients_own_forward_pass(tmp_path):
    write_sample(tmp_path, query_encoder="transformer")
    bundle = read_bundle(tmp_path)
    weights = bundle.catalog["encoders"]["transformer"]["weights"]
    names = {p.name for p in bundle.files}
    assert weights["layers"][0] in names and all(f[0] in names for _, f in weights["words"])
    # the ONNX file is not shipped: Python readers use the installed model, browsers bert.js
    assert not [n for n in names if n.endswith(".onnx")]
    assert browser_forward_pass(tmp_path) == "bert"
    assert bundle.model_spec().model_path == default_model_spec().model_path
    # the word blocks hold every token's embedding: a row of 384 codes, its id and scale
    blocks = len(weights["words"])
    assert sum(f[1] for _, f in weights["words"]) == 30522 * (384 + 8) + 4 * blocks


def test_a_catalog_whose_forward_pass_files_are_out_of_order_is_refused(tmp_path):
    write_sample(tmp_path, query_encoder="transformer")
    catalog = catalog_of(tmp_path)
    (block,) = catalog["encoders"]["transformer"]["weights"]["words"]  # one: 30,522 ids
    catalog["encoders"]["transformer"]["weights"]["words"] = [[40_000, block[1]], block]
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match=r"weights\.words is not a list .* in order"):
        read_bundle(tmp_path)


def test_a_model_the_clients_forward_pass_cannot_run_ships_as_onnx(tmp_path):
    """Any ONNX graph that is not a BERT encoder: browsers run it with onnxruntime-web."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Identity", ["input_ids"], ["last_hidden_state"])], "other",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, None])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.INT64, [1, None])])
    other = tmp_path / "other.onnx"
    onnx.save(helper.make_model(graph), str(other))
    spec = replace(default_model_spec(), id="another model", model_path=other,
                   sha256=hashlib.sha256(other.read_bytes()).hexdigest())
    chunks = sample_chunks(6)
    write_bundle(tmp_path / "site", chunks=chunks, stored=quantize(sample_vectors(6), "i8"),
                 spec=spec, table=sample_table(chunks), query_encoder="transformer")
    transformer = catalog_of(tmp_path / "site")["encoders"]["transformer"]
    assert "weights" not in transformer
    assert transformer["model"][1] == other.stat().st_size
    assert browser_forward_pass(tmp_path / "site") == "onnx"
    assert read_bundle(tmp_path / "site").model_spec().model_path.name == transformer["model"][0] \
        .split("/")[-1]


def test_progressive_bundles_ship_the_table_and_the_model_for_idle_time(tmp_path):
    write_sample(tmp_path, query_encoder="progressive")
    bundle = read_bundle(tmp_path)
    assert (bundle.manifest.query_encoder, bundle.manifest.idle_encoder) == ("static",
                                                                             "transformer")
    assert set(bundle.catalog["encoders"]) == {"static", "transformer"}
    assert bundle.table is not None
    assert Searcher(bundle).encoder == "static"  # what a browser's first query uses
    # the other encoders' manifests say nothing of an idle encoder
    write_sample(tmp_path / "static")
    assert "idle_encoder" not in json.loads((tmp_path / "static" / "manifest.json").read_text())


def test_payload_names_carry_their_hash_and_old_payloads_are_removed(tmp_path):
    write_sample(tmp_path)
    first = {p.name for p in read_bundle(tmp_path).files}
    write_sample(tmp_path, 4)
    second = {p.name for p in read_bundle(tmp_path).files}
    assert first != second
    assert [name for name in second if name.startswith("table/")] == [
        catalog_of(tmp_path)["encoders"]["static"]["rows"]["pack"][0]], "one pack of rows"
    keyed = [name for name in second if PIECE_NAME.match(name)]
    assert len(keyed) == len(keyed_stems()), "every keyed word piece file"
    for name in second:
        data = (tmp_path / name).read_bytes()
        if self_checked(name):  # named by a hash of their set, checked by their end
            assert data[-ROW_CHECK_BYTES:] == self_check(name, data[:-ROW_CHECK_BYTES])
        else:
            assert name.split("/")[-1].split(".")[1] == hashlib.sha256(data).hexdigest()[:16]
    on_disk = {str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()}
    assert on_disk == {"manifest.json", "catalog.json", *second}
    # the current catalog's copy under a stable name, for a browser to ask for at once
    catalog = json.loads((tmp_path / "manifest.json").read_text())["catalog"]["name"]
    assert (tmp_path / "catalog.json").read_bytes() == (tmp_path / catalog).read_bytes()


def test_a_page_edit_changes_only_the_payloads_that_hold_it(tmp_path):
    chunks = sample_chunks(40)
    vectors = sample_vectors(40)
    table = sample_table(chunks)
    write_bundle(tmp_path, chunks=chunks, stored=quantize(vectors, "i8"),
                 spec=default_model_spec(), table=table, word_rows=True)
    before = {p.name for p in read_bundle(tmp_path).files}
    chunks[-1].text += " An added sentence."
    write_bundle(tmp_path, chunks=chunks, stored=quantize(vectors, "i8"),
                 spec=default_model_spec(), table=table, word_rows=True)
    after = {p.name for p in read_bundle(tmp_path).files}
    changed = after - before
    # the shards holding the page's text and excerpt, its terms, the counts of its words
    # ("added", "sentence") and those words' rows are renamed (a shard is named by its own
    # hash), as is the catalog that lists them; every other shard keeps its name, the
    # vectors were not re-embedded here, and the query table, word pieces, page table and
    # facets stay as they were
    kinds = {n.split("/")[0].split(".")[0] for n in changed}
    assert kinds == {"text", "fragments", "lexical", "vocabulary", "words", "catalog"}
    rows = {n for n in before if n.startswith("words/word")}
    assert rows - after and rows & after, "only the rows of the page's new words"
    assert {n.split("/")[0] for n in before & after} >= {"words", "table", "pieces"}


def test_the_searcher_scores_by_exact_integer_dot_products(tmp_path):
    vectors = sample_vectors(50)
    chunks = sample_chunks(50)
    stored = quantize(vectors, "i8")
    write_bundle(tmp_path, chunks=chunks, stored=stored, spec=default_model_spec(),
                 table=sample_table(chunks))
    searcher = Searcher.open(tmp_path)
    codes = query_codes(vectors[17] + 0.01 * vectors[3])
    results = searcher.search_vector(codes, top_k=5)
    assert results[0].chunk_id == 17
    assert results[0].href == "page8/#s17"
    dots = stored.vectors.astype(np.int64) @ codes.astype(np.int64)
    expected = dots / (stored.scale * np.sqrt(float(codes.astype(np.int64) @ codes)))
    assert [r.score for r in results] == [expected[r.chunk_id] for r in results]
    assert results[0].score == pytest.approx(float(vectors[17] @ vectors[17]), abs=0.02)
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)


def test_the_static_encoder_sums_the_rows_of_known_tokens(tmp_path):
    chunks = sample_chunks()
    table = sample_table(chunks)
    write_bundle(tmp_path, chunks=chunks, stored=quantize(sample_vectors(), "i8"),
                 spec=default_model_spec(), table=table)
    searcher = Searcher.open(tmp_path)
    ids = searcher.static.token_ids("section text")
    rows = [int(np.searchsorted(table.token_ids, i)) for i in ids if i in table.token_ids]
    assert len(rows) == 2
    np.testing.assert_array_equal(searcher.static.encode("section text"),
                                  table.rows[rows].astype(np.int64).sum(axis=0))
    assert searcher.embed("zyzzyva quokka") is None
    assert searcher.search("zyzzyva quokka", mode="vector") == []
    # A word neither signal knows changes nothing: both rank as for the known words alone.
    known = searcher.search("section", mode="hybrid")
    assert known
    assert searcher.search("section zyzzyva", mode="hybrid") == known


def test_unknown_format_names_both_versions(tmp_path):
    write_sample(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["format"] = 99
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BundleError, match=rf"format 99.*reads format {FORMAT_VERSION}"):
        read_bundle(tmp_path)


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13])
def test_an_older_format_is_refused_with_what_to_do(tmp_path, version):
    shutil.copytree(FIXTURES / f"v{version}", tmp_path / "old")
    wanted = rf"format {version}; .* reads format {FORMAT_VERSION}: rebuild the site"
    with pytest.raises(BundleError, match=wanted):
        read_bundle(tmp_path / "old")


def test_a_table_row_under_another_tokens_name_is_refused(tmp_path):
    """Two records swapped in the pack: each fails its check under its token's name."""
    from mkdocs_semantic.bundle.table import RowTable

    write_sample(tmp_path)
    static = catalog_of(tmp_path)["encoders"]["static"]
    rows = static["rows"]
    pack = bytearray((tmp_path / rows["pack"][0]).read_bytes())
    size = static["dim"] + ROW_CHECK_BYTES
    pack[:size], pack[size:2 * size] = pack[size:2 * size], pack[:size]
    first = rows["ids"][0]
    table = RowTable(token_ids_of(rows["ids"]), digest=rows["table"], dim=static["dim"],
                     scale=static["scale"], pack=rows["pack"][0],
                     read_record=lambda offset, size: bytes(pack[offset:offset + size]))
    with pytest.raises(BundleError, match=re.escape(f"table/row{first}.{rows['table']}.bin "
                                                    "does not match its hash")):
        table.rows_for([first])


def test_changed_truncated_or_missing_payloads_are_named(tmp_path):
    write_sample(tmp_path)
    names = [p.name for p in read_bundle(tmp_path).files]
    # files alike (word rows, keyed word piece files): the first and the last of each kind
    words = [name for name in names if name.startswith("words/word")]
    keyed = [name for name in names if PIECE_NAME.match(name)]
    assert len(words) > 2 and len(keyed) > 2
    for name in [n for n in names if n not in words + keyed] + [
            words[0], words[-1], keyed[0], keyed[-1]]:
        path = tmp_path / name
        original = path.read_bytes()
        path.write_bytes(original[:-1] + bytes([original[-1] ^ 1]))
        with pytest.raises(BundleError, match=re.escape(name.split("/")[-1])):
            read_bundle(tmp_path)
        path.write_bytes(original[:-3])
        with pytest.raises(BundleError, match=re.escape(name.split("/")[-1])):
            read_bundle(tmp_path)
        path.unlink()
        with pytest.raises(BundleError, match="missing or unreadable"):
            read_bundle(tmp_path)
        path.write_bytes(original)
    read_bundle(tmp_path)


def a_text_payload(root: Path) -> Path:
    return next(root / p.name for p in read_bundle(root).files if p.name.startswith("text/"))


@pytest.mark.parametrize("kind", ["huge sparse file", "link to /dev/zero", "fifo"])
def test_a_payload_that_is_no_regular_file_of_its_size_is_refused_unread(tmp_path, kind):
    write_sample(tmp_path)
    path = a_text_payload(tmp_path)
    path.unlink()
    if kind == "huge sparse file":
        with path.open("wb") as fh:
            fh.truncate(8 << 30)  # 8 GB that read_bytes would try to hold in memory
    elif kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    else:
        os.mkfifo(path)  # reading it would wait for a writer for ever
    with pytest.raises(BundleError) as error:
        read_bundle(tmp_path)
    message = str(error.value)
    assert path.name in message and message.endswith(": rebuild the site")
    assert message.count("rebuild the site") == 1


def test_every_damaged_payload_says_rebuild_the_site_once(tmp_path):
    write_sample(tmp_path)
    files = read_bundle(tmp_path).files
    keyed = [p for p in files if PIECE_NAME.match(p.name)]  # alike: the first and the last
    words = [p for p in files if p.name.startswith("words/word")]
    for payload in [p for p in files if p not in keyed + words] + [
            keyed[0], keyed[-1], words[0], words[-1]]:
        path = tmp_path / payload.name
        original = path.read_bytes()
        path.write_bytes(original[: len(original) // 2])
        with pytest.raises(BundleError) as error:
            read_bundle(tmp_path)
        assert str(error.value).count("rebuild the site") == 1, str(error.value)
        path.write_bytes(original)


def test_a_link_out_of_the_bundle_is_refused_without_telling_what_it_leads_to(tmp_path):
    write_sample(tmp_path / "bundle")
    path = a_text_payload(tmp_path / "bundle")
    foreign = tmp_path / "secret.txt"
    foreign.write_bytes(b"x" * 12345)
    path.unlink()
    path.symlink_to(foreign)
    with pytest.raises(BundleError, match=r"leads out of the bundle") as error:
        read_bundle(tmp_path / "bundle")
    assert "12345" not in str(error.value) and "secret" not in str(error.value)


def test_a_link_inside_the_bundle_is_followed(tmp_path):
    write_sample(tmp_path)
    path = a_text_payload(tmp_path)
    moved = tmp_path / "text" / "moved"
    path.rename(moved)
    path.symlink_to(moved.name)
    assert read_bundle(tmp_path).manifest.counts["chunks"] == 6


def test_a_payload_name_ends_at_its_extension():
    assert check_name("text/text.0123456789abcdef.json") == "text/text.0123456789abcdef.json"
    with pytest.raises(PayloadError):
        check_name("text/text.0123456789abcdef.json\n")


def test_a_manifest_from_before_the_scaled_fusion_still_reads(tmp_path):
    """Bundles written before the 0-1 fusion carry search.rrf_k, which no reader uses now."""
    write_sample(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert "rrf_k" not in manifest["search"]
    manifest["search"]["rrf_k"] = 60
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert Searcher.open(tmp_path).search("section")


def test_garbage_manifest(tmp_path):
    write_sample(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(BundleError, match=r"manifest\.json is not valid JSON"):
        read_bundle(tmp_path)
    (tmp_path / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(BundleError, match="nested too deeply"):
        read_bundle(tmp_path)


def set_field(data: dict, path: str, value) -> None:
    keys = path.split(".")
    for key in keys[:-1]:
        data = data[int(key)] if isinstance(data, list) else data[key]
    if value is DELETE:
        del data[keys[-1]]
    elif isinstance(data, list):
        data[int(keys[-1])] = value
    else:
        data[keys[-1]] = value


DELETE = object()


@pytest.mark.parametrize("field, value, message", [
    ("search.top_k", 0, r"search\.top_k is 0"),
    ("search.min_score", "0.5", r"search\.min_score is '0\.5'"),
    ("search.mode", "fuzzy", r"search\.mode 'fuzzy'"),
    ("query_encoder", "bert", r"query_encoder 'bert'"),
    ("idle_encoder", "static", r"idle_encoder 'static' is not an encoder other than"),
    ("idle_encoder", "bert", r"idle_encoder 'bert'"),
    ("idle_encoder", "transformer", r"the manifest's idle_encoder 'transformer' is not in "
                                    r"the catalog"),
    ("counts.chunks", -1, r"counts\.chunks is -1"),
    ("catalog.name", "../../etc/passwd", r"catalog\.name '\.\./\.\./etc/passwd'"),
    ("catalog.name", "/etc/catalog.0123456789abcdef.json", r"is not a catalog file name"),
    ("catalog", ["a", "b"], r"catalog must be an object"),
])
def test_bad_manifest_fields_are_refused_by_name(tmp_path, field, value, message):
    write_sample(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    set_field(manifest, field, value)
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BundleError, match=message):
        read_bundle(tmp_path)


@pytest.mark.parametrize("field, value, message", [
    ("vectors.0.scale", 0, r"vectors\[0\]\.scale is 0, not a positive number"),
    ("vectors.0.scale", "big", r"vectors\[0\]\.scale is 'big'"),
    ("vectors.0.dtype", "b1", r"vectors\[0\]\.dtype must be one of"),
    ("model.id", DELETE, r"model\.id is missing"),
    ("model.max_tokens", 100_000, r"model\.max_tokens is 100000"),
    ("fragments", {"a": 1}, r"fragments must be \{stem, first"),
    ("text.stem", "../text", r"text has the stem '\.\./text', not 'text/text'"),
    ("fragments.stem", "text/text", r"fragments has the stem 'text/text', not 'fragments/frag'"),
    ("lexical.shards.hashes", "/abs/lex", r"lexical\.shards must list the hashes of its \d+ "
                                          r"shards, 8 hex digits each"),
    ("pages.count", 7, r"pages\.count is not the manifest's page count"),
    ("pages.table.1", 3, r"pages\.table must be \[name, bytes\] of \d+ bytes"),
    ("facets", "facets.json", r"facets must be a list"),
    ("fragments.dirs", 1, r"fragments must be \{stem, first, bytes, hashes\}, \{stem, dirs\}, "
                          r"\{stem, count, hashes, sizes\} or \{stem, count, hashes, pack, "
                          r"bytes\}"),
    ("text.bytes.0", "x", r"text has a size 'x'"),
    ("fragments.count", 2, r"fragments must list the hashes of its 2 shards"),
    ("fragments.bytes.0", 0, r"fragments must list the sizes of its 3 shards"),
    ("fragments.pack.0", "fragments/other.0123456789abcdef.bin",
     r"fragments\.pack must be fragments/frags\.<hash>\.bin"),
    ("lexical.shards.sizes.0", "fragments/sizes.0123456789abcdef.json",
     r"lexical\.shards\.sizes must be lexical/sizes\.<hash>\.json"),
    ("lexical.head", 0, r"lexical\.head is 0"),
    ("lexical.shards.count", 0, r"lexical\.shards must list the hashes of its 0 shards"),
    ("lexical.shards.count", -1, r"lexical\.shards has the count -1, not a number of shards"),
    ("lexical.shards.sizes", "lexical/sizes.json", r"lexical\.shards must name its sizes"),
    ("lexical.shards.sizes.0", "../sizes.0123456789abcdef.json",
     r"lexical\.shards\.sizes must be lexical/sizes\.<hash>\.json"),
    ("lexical.shards", {"stem": "lexical/lex", "hashes": "0" * 8, "first": ["a"], "bytes": [9]},
     r"lexical\.shards must be a keyed list"),
    ("pages.boosts", {"0": -1}, r"pages\.boosts has a bad entry"),
    ("encoders.static.dim", 12, r"encoders\.static\.dim"),
    ("encoders.static.rows.ids.1", 0, r"encoders\.static\.rows\.ids must list ascending"),
    ("encoders.static.rows.ids.0", -1, r"encoders\.static\.rows\.ids must list ascending"),
    ("encoders.static.rows.table", "../x", r"encoders\.static\.rows\.table must be 16 hex"),
    ("encoders.static.rows", DELETE, r"encoders\.static\.rows is missing"),
    ("vocabulary.spelling", DELETE, r"vocabulary\.spelling"),
    ("vocabulary.spelling.stem", "vocabulary/words",
     r"vocabulary\.spelling has the stem 'vocabulary/words', not 'vocabulary/spell'"),
])
def test_bad_catalog_fields_are_refused_by_name(tmp_path, field, value, message):
    write_sample(tmp_path)
    catalog = catalog_of(tmp_path)
    set_field(catalog, field, value)
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match=message):
        read_bundle(tmp_path)


def test_a_keyed_list_whose_sizes_or_shards_are_wrong_is_refused_by_name(tmp_path):
    write_sample(tmp_path)
    shards = catalog_of(tmp_path)["lexical"]["shards"]
    sizes_name = shards["sizes"][0]
    sizes = json.loads(self_checked_body(sizes_name, (tmp_path / sizes_name).read_bytes()))
    shard = tmp_path / f"lexical/lex0.{hash_at(shards['hashes'], 0)}.json"
    body = shard.read_bytes()
    shard.write_bytes(body[:-ROW_CHECK_BYTES - 1] + b" " + body[-ROW_CHECK_BYTES:])
    with pytest.raises(BundleError, match=rf"lex0\.{hash_at(shards['hashes'], 0)}\.json"):
        read_bundle(tmp_path)
    shard.write_bytes(body)
    catalog = catalog_of(tmp_path)
    catalog["lexical"]["shards"]["count"] = len(sizes) + 1
    catalog["lexical"]["shards"]["hashes"] += "0" * 8
    publish_catalog(tmp_path, catalog)
    with pytest.raises(BundleError, match=rf"{re.escape(sizes_name)} does not list the sizes "
                                          rf"of {len(sizes) + 1} shards"):
        read_bundle(tmp_path)


def test_word_rows_in_a_packed_list_are_read_and_checked(tmp_path):
    # The format lets any keyed list be one packed file (the browser reads every kind so):
    # the reader checks packed word rows as it checks those with a sizes file.
    write_sample(tmp_path)
    catalog = catalog_of(tmp_path)
    words = catalog["encoders"]["static"]["words"]
    sizes_name = words["sizes"][0]
    sizes = json.loads(self_checked_body(sizes_name, (tmp_path / sizes_name).read_bytes()))
    bodies = [inflate(self_checked_body(name, (tmp_path / name).read_bytes()), name)
              for _, name, _ in keyed_entries(shard_list(words), sizes)]

    def publish_packed(bodies: list[bytes]) -> None:
        catalog["encoders"]["static"]["words"] = write_packed_list(
            bodies, words["stem"], lambda name, body: checked(name, deflate(body)),
            lambda data: write_payload(tmp_path, folder="words", stem="words", ext="bin",
                                       data=data).to_json())
        publish_catalog(tmp_path, catalog)

    publish_packed(bodies)
    read_bundle(tmp_path)
    publish_packed([bodies[1], bodies[0], *bodies[2:]])
    with pytest.raises(BundleError, match=r"words/word0\.[0-9a-f]{8}\.json holds a word of "
                                          r"another shard"):
        read_bundle(tmp_path)


def test_a_term_in_another_shard_than_its_own_is_refused_by_name():
    terms = [f"term{i}" for i in range(12)]
    shards = [{"terms": [t for t in terms if bucket_of(t, 3) == n]} for n in range(3)]
    entries = [(n, f"lexical/lex{n}.0123456789abcdef.json", 1) for n in range(3)]
    reader = ShardReader(entries, lambda name, size: shards[int(name[11])], locate=bucket_of)
    _check_buckets(reader)
    shards[1]["terms"].append(shards[0]["terms"].pop())
    reader = ShardReader(entries, lambda name, size: shards[int(name[11])], locate=bucket_of)
    with pytest.raises(ValueError, match=r"lexical/lex1\.0123456789abcdef\.json holds a term"):
        _check_buckets(reader)


def test_find_bundle_dir_accepts_the_site_and_explains_a_wrong_path(tmp_path):
    bundle = tmp_path / "site" / "semantic"
    write_sample(bundle)
    assert find_bundle_dir(tmp_path / "site") == bundle
    with pytest.raises(BundleError, match="does not exist"):
        find_bundle_dir(tmp_path / "nowhere")
    with pytest.raises(BundleError, match=r"no manifest\.json"):
        find_bundle_dir(tmp_path)
    shutil.copytree(bundle, tmp_path / "site" / "_search")
    with pytest.raises(BundleError, match=r"holds 2 search bundles \(_search/, semantic/\): "
                                          r"point at the one to read"):
        find_bundle_dir(tmp_path / "site")


def test_empty_bundle(tmp_path):
    write_bundle(tmp_path, chunks=[], stored=quantize(np.zeros((0, 384), np.float32), "i8"),
                 spec=default_model_spec(), table=sample_table([]))
    bundle = read_bundle(tmp_path)
    assert bundle.chunks == [] and bundle.vectors.rows == 0
    assert Searcher(bundle).search_vector(query_codes(sample_vectors(1)[0])) == []
    assert Searcher(bundle).search("anything") == []


@pytest.mark.parametrize("dim", [384, 2000])
def test_int8_scores_are_exact_integer_dots_at_any_dim(dim):
    rng = np.random.default_rng(dim)
    parts = [rng.integers(-127, 128, size=(rows, dim), dtype=np.int8) for rows in (3, 0, 5)]
    parts[0][0] = 127  # near the largest dot there is, and odd: float32 cannot hold it
    parts[0][0][0] = 126
    codes = np.full(dim, 127, dtype=np.int8)
    vectors = VectorSet(dtype="i8", scale=2.0, dim=dim, parts=parts)
    exact = np.concatenate(parts).astype(np.int64) @ codes.astype(np.int64)
    norm = float(np.sqrt(float(codes.astype(np.int64) @ codes.astype(np.int64))))
    assert np.array_equal(vectors.scores(codes), exact.astype(np.float64) / (2.0 * norm))


def test_a_page_with_more_chunks_than_a_bundle_holds_is_named(tmp_path, monkeypatch):
    from mkdocs_semantic.bundle import writer

    monkeypatch.setattr(writer, "MAX_PAGE_CHUNKS", 1)  # pages of sample_chunks hold 2
    with pytest.raises(BundleError, match=r"page0/ has 2 chunks, more than the 1 a bundle "
                                          r"holds for one page: split the page"):
        write_sample(tmp_path)
    assert not (tmp_path / "manifest.json").exists()


def test_every_payload_is_readable_by_a_web_server_of_another_user(tmp_path):
    """Payloads and self-checked shards alike: the usual permissions (0666 less the
    umask)."""
    old = os.umask(0o022)
    try:
        write_sample(tmp_path)
    finally:
        os.umask(old)
    names = [p.name for p in read_bundle(tmp_path).files]
    assert any(self_checked(name) for name in names)
    for name in names:
        assert (tmp_path / name).stat().st_mode & 0o777 == 0o644, name


def test_a_page_whose_excerpts_pass_a_browsers_bound_is_refused_by_name(tmp_path, monkeypatch):
    from mkdocs_semantic.bundle import writer

    monkeypatch.setattr(writer, "MAX_KEYED_SHARD_BYTES", 100)
    with pytest.raises(BundleError, match=r"page\d/'s excerpts take [\d,]+ bytes, more than "
                                          r"the 100 of a page's file: split the page"):
        write_sample(tmp_path)
    assert not (tmp_path / "vectors").exists(), "refused before any file is written"


def test_a_fragments_file_that_holds_more_than_its_page_is_refused_by_name(tmp_path):
    write_sample(tmp_path)
    shards = catalog_of(tmp_path)["fragments"]
    name = f"fragments/frag0.{hash_at(shards['hashes'], 0)}.json"
    pages = payload_json(name, stored_shard(tmp_path, name), name)
    body = deflate(json.dumps(pages * 2).encode())
    replace_packed_shard(tmp_path, name, body + self_check(name, body))
    with pytest.raises(BundleError, match=rf"{re.escape(name)} does not hold page 0 alone"):
        read_bundle(tmp_path)


def test_word_rows_are_written_only_when_asked_for(tmp_path):
    write_sample(tmp_path / "default", word_rows=False)
    assert "words" not in catalog_of(tmp_path / "default")["encoders"]["static"]
    assert not (tmp_path / "default" / "words").exists()
    write_sample(tmp_path / "asked")
    assert "words" in catalog_of(tmp_path / "asked")["encoders"]["static"]


@pytest.mark.parametrize("folder", ["lexical", "pages", "table"])
def test_a_damaged_payload_of_the_right_size_is_written_again(tmp_path, folder):
    """A byte flipped on disk keeps the file's size: the next write compares bytes."""
    write_sample(tmp_path)
    damaged = sorted((tmp_path / folder).iterdir())[0]
    good = damaged.read_bytes()
    damaged.write_bytes(bytes([good[0] ^ 1]) + good[1:])
    with pytest.raises(BundleError):
        read_bundle(tmp_path)
    write_sample(tmp_path)
    assert damaged.read_bytes() == good
    read_bundle(tmp_path)


def test_a_manifest_declaring_a_huge_catalog_is_refused_before_it_is_read(tmp_path):
    """An 8 GB catalog declared beside a sparse file of that size: refused at once."""
    write_sample(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    huge = 8 << 30
    with open(tmp_path / manifest["catalog"]["name"], "r+b") as fh:
        fh.truncate(huge)
    manifest["catalog"]["bytes"] = huge
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BundleError, match=r"catalog\.bytes is 8589934592, not a whole number "
                                          r"from 0 to 16777216"):
        read_bundle(tmp_path)


def test_a_querys_rows_come_from_one_fetch_of_the_pack_though_read_in_parallel(tmp_path):
    full, lazy = tmp_path / "full", tmp_path / "lazy"
    write_sample(full, 12)
    shutil.copytree(full, lazy, ignore=shutil.ignore_patterns("table"))
    fetched = []

    def fetch(name: str, size: int) -> None:  # as a URL source or the database brings it
        fetched.append(name)
        (lazy / name).parent.mkdir(exist_ok=True)
        (lazy / name).write_bytes((full / name).read_bytes())

    table = read_bundle(lazy, fetch=fetch).table
    rows = table.rows_for(table.token_ids[:20].tolist())
    assert len(rows) == 20
    assert fetched == [catalog_of(full)["encoders"]["static"]["rows"]["pack"][0]]
    assert np.array_equal(rows, read_bundle(full).table.rows[:20])
