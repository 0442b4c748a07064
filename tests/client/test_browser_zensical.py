"""A real Zensical site (`zensical build` of the example site, instant navigation on),
indexed with `mkdocs-semantic index --ui auto`: Zensical's own search button, "/" and
real keystrokes, in headless Chromium."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mkdocs_semantic.search.searcher import Searcher

from ..conftest import REPO
from .test_browser import (
    HELD,
    PREFIX,
    QUERIES,
    THROTTLE,
    TYPED_QUERY,
    drive,
    first_link,
    model_requests,
    top_sections,
    typed_to_the_best_section,
)
from .test_browser_index import index

FEATURES = ["navigation.instant", "navigation.footer", "search.highlight"]


def zensical_build(source: Path, *, features: list[str]) -> Path:
    """The example site built by `zensical build` in `source` (Zensical's own theme with
    `features`; instant navigation needs a site_url for its sitemap); returns its site."""
    if importlib.util.find_spec("zensical") is None:
        pytest.fail("the Zensical tests need Zensical: run scripts/setup (the test extra)")
    shutil.copytree(REPO / "example-site", source, ignore=shutil.ignore_patterns("site", ".cache"))
    config = yaml.safe_load((source / "mkdocs.yml").read_text(encoding="utf-8"))
    config.pop("plugins")  # Zensical runs no MkDocs plugin
    config.update(site_url="https://docs.example.com/caching/", theme={"features": features})
    (source / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    built = subprocess.run([sys.executable, "-m", "zensical", "build"], cwd=source,
                           capture_output=True, text=True, timeout=300)
    if built.returncode != 0:
        pytest.fail(f"zensical build failed:\n{built.stdout[-2000:]}{built.stderr[-2000:]}")
    return source / "site"


@pytest.fixture(scope="module")
def zensical_site(tmp_path_factory) -> Path:
    """The example site built by Zensical, indexed with --ui auto."""
    root = tmp_path_factory.mktemp("zensical")
    site = zensical_build(root / "source", features=FEATURES)
    index(site, "auto", root / "cache")
    return site


def zensical_requests(report: dict) -> list[str]:
    """Requests for Zensical's own search: its index and its worker."""
    return [r for r in report["requests"]
            if r.endswith("/search.json") or "/assets/javascripts/workers/" in r]


def test_zensicals_button_answers_after_instant_navigation(zensical_site, tmp_path):
    """Two pages on by Zensical's instant navigation (no page load), a click on its
    header's search button opens our search; typed queries show links, Enter opens
    the best, the arrow keys choose another, Ctrl-click opens one in a new tab; and
    Zensical's index and worker are never fetched."""
    (query, _), (picked_query, expected) = QUERIES
    plan = {"site": str(zensical_site), "prefix": PREFIX, "theme": "zensical", "start": "",
            "typeDelayMs": 30, "navigate": ["a.md-footer__link--next"] * 2,
            "queries": [{"query": query, "press": True},
                        {"query": picked_query, "press": True, "pick": expected},
                        {"query": query, "newTab": True}]}
    report = drive("search", plan, tmp_path)
    best, picked, tabbed = report["queries"]
    searcher = Searcher.open(zensical_site)
    assert best["searchedOn"].endswith(f"{PREFIX}freshness/")
    assert searcher.search(query)[0].href in top_sections(best["results"], 3)
    assert best["ranking"] == [["hybrid", query]]
    assert best["landed"].endswith(PREFIX + first_link(best["results"]))
    assert tabbed["newTab"]["opened"] == tabbed["results"][0]["href"]
    assert tabbed["newTab"]["stayed"].endswith(f"{PREFIX}freshness/")
    assert tabbed["newTab"]["dialogOpen"] is True  # open for the next result
    assert picked["picked"].endswith(expected) and picked["landed"].endswith(PREFIX + expected)
    # the navigations were Zensical's own: its script loaded once for the three pages
    first_visit = report["requests"][:report["requests"].index(f"{PREFIX}freshness/") + 1]
    assert [r for r in first_visit if "/assets/javascripts/bundle." in r] != []
    assert len([r for r in first_visit if "/assets/javascripts/bundle." in r]) == 1
    assert zensical_requests(report) == [] and model_requests(report) == []
    assert report["pageErrors"] == [] and report["dialogs"] == []


def test_keyword_results_come_at_once_and_the_hybrid_ranking_after(zensical_site, tmp_path):
    """"/" opens our search; with the vectors held back, the keyword results for the
    typed query show, then the hybrid ranking, both the Python searcher's."""
    query = "Cache-Control no-store sensitive pages"
    report = drive("keywordFirst", {"site": str(zensical_site), "prefix": PREFIX,
                                    "theme": "zensicalSlash", "start": "", "query": query,
                                    "typeDelayMs": 40, "delayMs": 6000,
                                    "hold": HELD["mkdocs"]}, tmp_path)
    early, late = report["early"], report["late"]
    assert early["modelRequested"] and early["atMs"] < 6000
    assert early["results"] and "Keyword matches" in early["note"]
    assert late["atMs"] >= 6000
    searcher = Searcher.open(zensical_site)
    hrefs = lambda results: [r["href"].split(PREFIX, 1)[1] for r in results]  # noqa: E731
    assert hrefs(early["results"]) == [r.href for r in searcher.search(query, mode="lexical")]
    assert hrefs(late["results"]) == [r.href for r in searcher.search(query)]
    assert zensical_requests(report) == []


def test_typing_into_zensicals_search_on_a_slow_network(zensical_site, tmp_path):
    """Real keystrokes (120 ms a key) at 20 Mbit/s with 40 ms of latency, in a fresh
    profile, opened with "/": never a list for an older text than the box holds, and the
    last one is the hybrid ranking of the whole query, led by the Python searcher's best."""
    report = drive("typing", {"site": str(zensical_site), "prefix": PREFIX,
                              "theme": "zensicalSlash", "start": "", "query": TYPED_QUERY,
                              "typeDelayMs": 120, "throttle": THROTTLE}, tmp_path)
    assert len(report["keys"]) == 1 + len(TYPED_QUERY)  # "/", then the query
    typed_to_the_best_section(report, zensical_site, TYPED_QUERY)
    assert zensical_requests(report) == []
    assert report["pageErrors"] == []
