"""The real FastAPI docs (129 pages) built with `plugins: [search, semantic]`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig

from mkdocs_semantic.bundle.reader import read_bundle
from mkdocs_semantic.search.searcher import Searcher

from ..conftest import REPO, SHARED, SHARED_ENV

CORPUS = SHARED / "corpora" / "fastapi-docs"


@pytest.fixture(scope="module")
def fastapi_site(tmp_path_factory) -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"the fastapi-docs corpus is missing: these tests build {CORPUS} "
                    f"(shared/corpora/fastapi-docs beside the repository, or set {SHARED_ENV})")
    root = tmp_path_factory.mktemp("fastapi")
    shutil.copytree(CORPUS, root, dirs_exist_ok=True)
    config_file = root / "mkdocs.yml"
    text = config_file.read_text(encoding="utf-8")
    config_file.write_text(text.replace("\n  - search\n", "\n  - search\n  - semantic\n"))
    MkDocsConfig.plugins.plugin_cache.clear()
    build(load_config(config_file=str(config_file), site_dir=str(root / "site")))
    return root / "site"


def content_headings(site: Path) -> dict[str, list[str]]:
    """Heading ids in the article of every built page, by page URL."""
    found: dict[str, list[str]] = {}
    for html in site.rglob("*.html"):
        article = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser").find("article")
        if article is None:
            continue
        url = html.parent.relative_to(site).as_posix() + "/"
        found["" if url == "./" else url] = [
            h["id"] for h in article.find_all(("h1", "h2", "h3", "h4", "h5", "h6"))
            if h.get("id")
        ]
    return found


def test_every_heading_is_reachable_and_no_chunk_exceeds_max_tokens(fastapi_site,
                                                                     count_tokens):
    bundle = read_bundle(fastapi_site)
    assert bundle.manifest.counts["pages"] == 129
    reachable: dict[str, set[str]] = defaultdict(set)
    for chunk in bundle.chunks:
        reachable[chunk.url].update([chunk.anchor, *chunk.anchors])
    headings = content_headings(fastapi_site)
    assert sum(map(len, headings.values())) > 2000
    missing = [f"{url}#{hid}" for url, ids in headings.items() for hid in ids
               if hid not in reachable[url]]
    assert missing == []
    sizes = count_tokens([c.embed_text for c in bundle.chunks])
    assert max(sizes) <= bundle.catalog["model"]["max_tokens"] == 256


def test_no_permalink_symbols_or_empty_chunks(fastapi_site):
    chunks = read_bundle(fastapi_site).chunks
    assert all(c.text.strip() for c in chunks)
    assert not [c for c in chunks if "¶" in c.text]


@pytest.mark.parametrize(
    "query, expected_page",
    [
        ("do something once when the server comes up and again when it goes down",
         "advanced/events/"),
        ("send an email after returning the response", "tutorial/background-tasks/"),
        ("let a javascript frontend on another domain call my API", "tutorial/cors/"),
        ("upload a file", "tutorial/request-files/"),
    ],
)
def test_paraphrased_questions_find_their_page_by_meaning(fastapi_site, embedder, query,
                                                          expected_page):
    results = Searcher.open(fastapi_site, embedder).search(query, top_k=5, mode="vector")
    assert expected_page in [r.url for r in results]


@pytest.mark.parametrize(
    "query, expected_href",
    [
        # the page entry: the section under the page's h1 repeats its lead, so it is
        # listed as one with it
        ("run code when the app starts up and shuts down", "advanced/events/"),
        ("response_model_exclude_unset", "tutorial/response-model/"
         "#use-the-response-model-exclude-unset-parameter"),
        ("HTTPException", "tutorial/handling-errors/#use-httpexception"),
    ],
)
def test_hybrid_finds_paraphrases_and_identifiers(fastapi_site, embedder, query, expected_href):
    results = Searcher.open(fastapi_site, embedder).search(query, top_k=3)
    assert expected_href in [r.href for r in results]


def test_without_the_corpus_the_real_site_tests_skip_and_say_why(tmp_path):
    """A fresh clone without ../shared: skips that name the corpus, not errors."""
    env = {**os.environ, SHARED_ENV: str(tmp_path / "no-shared")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         str(Path(__file__)), "-k", "not without_the_corpus"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "9 skipped" in proc.stdout
    assert "the fastapi-docs corpus is missing" in proc.stdout
    assert str(tmp_path / "no-shared" / "corpora" / "fastapi-docs") in proc.stdout
