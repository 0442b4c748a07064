"""The static query encoder in headless Chromium, on the committed parity bundle.

A one-page site holds tests/fixtures/parity/bundle and the built client, served under a
sub-path. In the browser the engine must give exactly the Python searcher's answers
(tests/fixtures/parity/expected.json), and the first semantic result must need no model
and no onnxruntime-web: no .wasm, no .onnx, no ort-*.mjs request at all.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.bundle.shard_lists import hash_at, shard_name
from mkdocs_semantic.pages.theme import ClientAssets, add_to_head, page_tags
from mkdocs_semantic.search.searcher import Searcher

from ..conftest import REPO
from .test_browser import drive

PARITY = REPO / "tests" / "fixtures" / "parity"
PREFIX = "/project/"
PAGE = "<!doctype html><html><head><title>Parity</title></head><body><p>Docs</p></body></html>"
MODEL_FILES = (".wasm", ".onnx", ".mjs", "/model-embed.js")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    driver = REPO / "js" / "node_modules" / "playwright-core"
    if shutil.which("node") is None or not driver.is_dir():
        pytest.fail("the browser tests need Node.js and js/node_modules: run scripts/setup")
    root = tmp_path_factory.mktemp("static-site")
    shutil.copytree(PARITY / "bundle", root / "semantic")
    assets = ClientAssets.load()
    assets.install(root, "semantic", forward=None)
    tags = page_tags(page_url="", bundle_dir="semantic", assets=assets, ui="dialog")
    (root / "index.html").write_text(add_to_head(PAGE, tags), encoding="utf-8")
    return root


def model_requests(requests: list[str]) -> list[str]:
    return [r for r in requests if r.endswith(MODEL_FILES)
            or any(p in r for p in ("/model/model.", "/model/layers.", "/model/words."))]


def test_chromium_gives_the_python_answers_without_a_model(site, tmp_path):
    expected = json.loads((PARITY / "expected.json").read_text(encoding="utf-8"))
    queries, filtered = expected["queries"], expected["filtered"]
    report = drive("parity", {"site": str(site), "prefix": PREFIX,
                              "queries": [q["query"] for q in queries] + [filtered["query"]],
                              "filters": filtered["filters"]}, tmp_path)
    *answers, answer = report["answers"]
    for want, got in zip(queries, answers, strict=True):
        assert got["vector"] == want["codes"], want["query"]
        assert [[i, s] for i, s in zip(got["ids"], got["scores"])] == want["plain"]
        assert got["hybrid"] == [row[0] for row in want["hybrid"]], want["query"]
        assert got["hybridScores"] == [row[1] for row in want["hybrid"]], want["query"]
        assert got["lexical"] == [row[0] for row in want["lexical"]], want["query"]
    assert answer["filtered"] == [row[0] for row in filtered["results"]]
    assert model_requests(report["requests"]) == []
    assert any("/semantic/table/row" in r for r in report["requests"])
    # the fixture's pages of more than 3 chunks are read in parts, never whole
    assert any("/semantic/parts/part" in r for r in report["requests"])
    assert not set(whole_files_of_long_pages()) & {r.rsplit("/semantic/", 1)[-1]
                                                   for r in report["requests"]}
    assert report["pageErrors"] == []


def whole_files_of_long_pages() -> list[str]:
    """The fragments files of the parity bundle's pages that also have parts."""
    bundle = read_bundle(PARITY / "bundle")
    listed, chunks = bundle.catalog["fragments"], bundle.catalog["fragment_parts"]["chunks"]
    sizes = np.diff(bundle.pages.starts)
    return [shard_name(listed["stem"], page, hash_at(listed["hashes"], page))
            for page in np.flatnonzero(sizes > chunks).tolist()]


def test_the_search_box_answers_with_no_model_download(site, tmp_path):
    query = "how can my web app keep working offline"
    best = Searcher.open(PARITY / "bundle").search(query)[0].href
    plan = {"site": str(site), "prefix": PREFIX, "theme": "dialog", "start": "",
            "queries": [{"query": query, "press": True}]}
    report = drive("search", plan, tmp_path)
    seen = report["queries"][0]
    assert seen["landed"].endswith(PREFIX + best)  # Enter opened the best result
    assert not any(s.startswith(("Downloading", "Starting")) for s in seen["status"])
    assert model_requests(report["requests"]) == []
    assert report["pageErrors"] == [] and report["dialogs"] == []


def test_enter_on_a_typed_name_opens_the_section_whose_heading_writes_it(site, tmp_path):
    """`2.4.1` is typed key by key; the release notes' "2.4.1" section, which the
    vector signal ranks below "2.4.0", goes first (a name in a heading: step 8)."""
    query = "2.4.1"
    best = Searcher.open(PARITY / "bundle").search(query)[0].href
    assert best == "changelog/#241"
    plan = {"site": str(site), "prefix": PREFIX, "theme": "dialog", "start": "",
            "typeDelayMs": 50, "queries": [{"query": query, "press": True}]}
    report = drive("search", plan, tmp_path)
    assert report["queries"][0]["landed"].endswith(PREFIX + best)
    assert report["pageErrors"] == [] and report["dialogs"] == []
