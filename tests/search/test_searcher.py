"""Hybrid ranking, filters, thresholds and page-aware ordering on a real built site."""

from __future__ import annotations

import pytest

from mkdocs_semantic.search.searcher import Searcher

from ..conftest import Project

PAGES = {
    "index.md": "# Home\n\nDocumentation of a small web framework for building APIs.\n",
    "guide/caching.md": """---
tags: [performance, http]
level: advanced
---
# Caching responses

Store computed responses so that repeated requests are answered without recomputing.

## Cache headers

Set `Cache-Control: max-age=600` with the `cache_control_max_age` setting so browsers
and proxies keep the response for ten minutes.
""",
    "guide/startup.md": """---
tags: [lifecycle]
level: beginner
---
# Lifespan events

Run code once before the application starts taking requests, and once after it stops.

## Loading a model at boot

Load a machine learning model when the process comes up and share it between requests.
""",
    "guide/errors.md": """# Handling errors

Raise `HTTPException` with a status code to return an error response to the client.
""",
    "reference/errors-copy.md": """---
search:
  boost: 3
---
# Error reference

Raise `HTTPException` with a status code to return an error response to the client.
""",
    "guide/deploy.md": "# Deploying\n\n## Running behind a proxy\n\n" + (
        "Put the application behind a reverse proxy that terminates TLS and forwards "
        "each request to one of the worker processes. ") * 2 + (
        "On a restart the workers finish their requests within the graceful shutdown "
        "timeout before they exit.\n"),
    "changelog.md": "# Changelog\n\n" + "".join(
        f"## 1.{i}.0\n\nFixed a small cache issue number {i} in the router.\n\n"
        for i in range(40)),
}


@pytest.fixture(scope="module")
def searcher(tmp_path_factory, embedder) -> Searcher:
    root = tmp_path_factory.mktemp("search-site")
    (root / "docs").mkdir()
    project = Project(root=root, plugin_options={"facets": ["level"], "min_tokens": 0})
    for name, text in PAGES.items():
        project.write(name, text)
    project.build(nav=[{"Home": "index.md"},
                       {"Guide": ["guide/caching.md", "guide/startup.md", "guide/errors.md",
                                  "guide/deploy.md"]},
                       {"Reference": ["reference/errors-copy.md", "changelog.md"]}])
    return Searcher.open(project.site, embedder)


def urls(results) -> list[str]:
    return [r.url for r in results]


def test_identifiers_are_found_by_keyword_and_paraphrases_by_meaning(searcher):
    assert searcher.search("cache_control_max_age")[0].url == "guide/caching/"
    assert searcher.search("do something when the server boots up")[0].url == "guide/startup/"


def test_modes(searcher):
    query = "cache_control_max_age"
    lexical = searcher.search(query, mode="lexical")
    assert lexical[0].url == "guide/caching/"
    assert all(r.vector_score is None and r.lexical_score > 0 for r in lexical)
    assert searcher.search("zzzqqq", mode="lexical") == []
    vector = searcher.search("zzzqqq", mode="vector", top_k=3)
    assert len(vector) == 3 and all(r.lexical_score is None for r in vector)
    hybrid = searcher.search(query, mode="hybrid")
    assert hybrid[0].vector_score is not None and hybrid[0].lexical_score is not None


def test_filters_by_section_tags_and_configured_facets(searcher):
    assert set(urls(searcher.search("errors", filters={"section": ["Reference"]}))) <= {
        "reference/errors-copy/", "changelog/"}
    assert urls(searcher.search("requests", filters={"tags": ["lifecycle"]})) == [
        "guide/startup/"] * len(searcher.search("requests", filters={"tags": ["lifecycle"]}))
    either = searcher.search("requests", filters={"tags": ["lifecycle", "performance"]})
    assert set(urls(either)) == {"guide/startup/", "guide/caching/"}
    both = searcher.search("requests", filters={"tags": ["performance"], "level": ["beginner"]})
    assert both == []
    assert searcher.bundle.manifest.search["filters"] == ["section", "tags", "level"]


def test_bad_parameters_are_refused_with_the_allowed_values(searcher):
    with pytest.raises(ValueError, match=r"unknown filter 'colour'.*section, tags, level"):
        searcher.search("x", filters={"colour": ["red"]})
    with pytest.raises(ValueError, match="unknown mode 'fuzzy'"):
        searcher.search("x", mode="fuzzy")
    with pytest.raises(ValueError, match="top_k must be between 1 and 1000"):
        searcher.search("x", top_k=0)
    with pytest.raises(ValueError, match="query is empty"):
        searcher.search("   ")


def test_min_score_keeps_the_pages_of_that_relevance_in_every_mode(searcher):
    for mode in ("vector", "lexical", "hybrid"):
        everything = searcher.search("cache headers", mode=mode, top_k=50)
        kept = searcher.search("cache headers", mode=mode, top_k=50, min_score=0.5)
        assert kept == [r for r in everything if r.score >= 0.5], mode
        assert kept and all(0 <= r.score <= 1 for r in everything), mode
    kept = searcher.search("cache_control_max_age", mode="hybrid", min_score=0.95)
    assert kept[0].url == "guide/caching/"


def test_search_boost_meta_lifts_a_page(searcher):
    # Same text on both pages: without the boost, the earlier page wins the tie.
    results = searcher.search("HTTPException status code", mode="lexical")
    assert urls(results)[:2] == ["reference/errors-copy/", "guide/errors/"]
    assert results[0].score >= results[1].score
    assert searcher.search("cache_control_max_age")[0].url == "guide/caching/"


def test_a_huge_page_of_short_entries_does_not_crowd_out_the_guide(searcher):
    results = searcher.search("cache", top_k=10)
    assert results[0].url == "guide/caching/"
    for mode in ("lexical", "vector"):
        assert searcher.search("cache", mode=mode)[0].url == "guide/caching/"
    assert urls(results).count("changelog/") <= 3


def test_sections_come_grouped_by_page(searcher):
    pages = urls(searcher.search("requests responses errors cache", top_k=12))
    firsts = [p for i, p in enumerate(pages) if p not in pages[:i]]
    assert pages == sorted(pages, key=firsts.index)


def test_the_excerpt_shows_the_query_words_of_a_long_section(searcher):
    """Every Python reader (CLI, service, MCP) shows the window the browser shows
    (search/excerpts.py): around the words, not the section's first 240 characters."""
    hit = next(r for r in searcher.search("graceful shutdown timeout", mode="lexical")
               if r.url == "guide/deploy/")
    assert hit.excerpt.startswith("…") and "graceful shutdown timeout" in hit.excerpt
    assert "graceful" not in searcher.bundle.chunks[hit.chunk_id].excerpt


def test_slips_are_corrected_against_the_site_and_the_answer_says_so(searcher):
    answer = searcher.answer("lifespna evnets", mode="lexical")
    assert answer.reading.text == "lifespan events"
    assert [(c.typed, c.used, c.kind) for c in answer.reading.changes] == [
        ("lifespna", "lifespan", "corrected"), ("evnets", "events", "corrected")]
    assert urls(answer.results)[0] == "guide/startup/"
    assert searcher.search("lifespna evnets", mode="lexical", as_typed=True) == []


def test_a_half_typed_last_word_is_completed_while_typing_only(searcher):
    typing = searcher.answer("reverse prox", mode="lexical", typing=True)
    assert typing.reading.text == "reverse proxy"
    assert urls(typing.results)[0] == "guide/deploy/"
    assert searcher.answer("reverse prox", mode="lexical").reading.text == "reverse prox"


def test_queries_of_the_sites_words_are_searched_as_typed(searcher):
    for query in ("Lifespan events", "cache_control_max_age", "reverse proxy"):
        answer = searcher.answer(query, typing=True)
        assert answer.reading.text == query and answer.reading.changes == ()
        assert urls(answer.results) == urls(searcher.search(query, as_typed=True))
