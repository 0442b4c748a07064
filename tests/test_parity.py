"""Parity of the readers on one committed, real bundle (tests/fixtures/parity).

`tests/fixtures/parity/make.py` built the bundle from the fixture's site and wrote the
Python searcher's answers (`expected.json`) and the analyzer's terms (`analyzer.json`).
Here both are recomputed from the committed bundle and must not have changed: a change
of Python's ranking or analyzer fails until the fixture is written again. The JavaScript
side reads the same files in js/test/parity.test.js, which `npm test` runs (scripts/test
runs it before pytest, so it is not run again from here).
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from mkdocs_semantic.constants import PER_PAGE
from mkdocs_semantic.search.searcher import Searcher

PARITY = Path(__file__).resolve().parent / "fixtures" / "parity"


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("parity_make", PARITY / "make.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def expected() -> dict:
    return json.loads((PARITY / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def searcher() -> Searcher:
    return Searcher.open(PARITY / "bundle")


@pytest.mark.parametrize("layout", ["exact", "partitioned"])
def test_python_answers_match_the_committed_expectations(generator, layout):
    suffix = "" if layout == "exact" else "-partitioned"
    expected = json.loads((PARITY / f"expected{suffix}.json").read_text(encoding="utf-8"))
    actual = json.loads(generator.dump(generator.expectations(PARITY / f"bundle{suffix}")))
    assert len(actual["queries"]) >= 20
    for want, got in zip(expected["queries"], actual["queries"], strict=True):
        assert got == want, want["query"]
    for want, got in zip(expected["cases"], actual["cases"], strict=True):
        assert got == want, want["name"]
    assert actual == expected


def test_the_partitioned_fixture_probes_some_partitions_and_filters_scan_all(expected):
    """The partitioned twin holds the same vectors; unfiltered queries score only their
    candidates (so some answers differ from the exact scan's), filtered ones score every
    eligible chunk and answer as the exact scan does."""
    partitioned = Searcher.open(PARITY / "bundle-partitioned")
    vectors = partitioned.bundle.vectors
    assert vectors.layout == "partitioned"
    assert vectors.candidates < vectors.probe_rows < vectors.rows
    assert 1 < len(vectors.probed(partitioned.embed("keep a copy"))) < len(vectors.partitions)
    assert (vectors.matrix() == Searcher.open(PARITY / "bundle").bundle.vectors.matrix()).all()
    twin = json.loads((PARITY / "expected-partitioned.json").read_text(encoding="utf-8"))
    assert any(a != b for a, b in zip(expected["queries"], twin["queries"]))
    assert twin["filtered"] == expected["filtered"]
    for want, got in zip(expected["cases"], twin["cases"], strict=True):
        if "filters" in want["options"]:
            assert got == want, want["name"]


def test_python_analyzer_matches_the_committed_terms(generator):
    expected = json.loads((PARITY / "analyzer.json").read_text(encoding="utf-8"))
    actual = generator.analyzer_terms()
    assert actual["stopwords"] == expected["stopwords"]
    for (text, want), (_, got) in zip(expected["texts"], actual["texts"], strict=True):
        assert got == want, text
    assert actual == expected


def test_the_bundle_has_several_shards_of_each_kind(searcher, expected):
    """Every shard list has several entries; the long ones are in directories, the
    others in the catalog; the keyword index and the fragments are keyed lists; some
    terms have a tail."""
    catalog = searcher.bundle.catalog
    assert len(catalog["vocabulary"]["shards"]["dirs"]["first"]) > 1
    assert catalog["lexical"]["shards"]["count"] > 4
    assert catalog["fragments"]["count"] == catalog["pages"]["count"]
    assert len(catalog["encoders"]["static"]["rows"]["ids"]) > 100
    assert "first" in catalog["text"] and len(catalog["vectors"][0]["parts"]) > 2
    assert searcher.bundle.lexical.heads
    assert any(q["codes"] is None for q in expected["queries"])
    assert expected["filtered"]["results"]


def cases(expected: dict) -> dict[str, dict]:
    return {case["name"]: case for case in expected["cases"]}


def test_the_cases_hold_ties(searcher, expected):
    """Equal page scores on different pages, and equal chunk scores (a copied page)."""
    page = searcher._page_of_chunk
    page_ties = chunk_ties = 0
    for case in expected["cases"]:
        for a, b in zip(case["results"], case["results"][1:]):
            page_ties += a[1] == b[1] and page[a[0]] != page[b[0]]
        signals = Counter(tuple(r[2:]) for r in case["results"])
        chunk_ties += any(n > 1 and None not in key for key, n in signals.items())
    assert page_ties and chunk_ties


def test_the_cases_hold_the_per_page_cap_and_the_size_prior(searcher, expected):
    case = cases(expected)["per-page cap: many matching release notes"]
    page = searcher._page_of_chunk
    notes = int(searcher._priors.argmin())
    assert searcher._priors[notes] < 1  # the release notes: many more chunks than any page
    matching = (searcher.bundle.lexical.scores(case["query"]) > 0) & (page == notes)
    assert matching.sum() > PER_PAGE
    listed = [r[0] for r in case["results"] if page[r[0]] == notes]
    assert len(listed) == PER_PAGE and len(case["results"]) < case["options"]["top_k"]
    for case in expected["cases"]:
        assert max(Counter(page[r[0]] for r in case["results"]).values(), default=0) <= PER_PAGE


def test_the_cases_hold_empty_signals_and_cuts(searcher, expected):
    by_name = cases(expected)
    nothing = ["empty lexical result: stop words only", "empty vector result: no known token",
               "both signals empty", "min_score 1: the best vector page, all keywords in full",
               "filter matching no page: unknown value", "filters matching no page together",
               "filter with no values"]
    assert all(by_name[name]["results"] == [] for name in nothing)
    vector_only = by_name["empty lexical result, hybrid keeps the vector ranking"]["results"]
    assert vector_only and all(r[3] == 0 for r in vector_only)
    keyword_only = by_name["empty vector result, hybrid keeps the keyword ranking"]["results"]
    assert keyword_only and all(r[2] is None for r in keyword_only)
    # one signal alone: the vector's first page is relevance 1; the keywords' first page
    # holds its share of the query's best possible keyword score, as in lexical mode
    assert vector_only[0][1] == 1
    query = by_name["empty vector result, hybrid keeps the keyword ranking"]["query"]
    lexical = searcher.bundle.lexical
    assert keyword_only[0][1] == lexical.scores(query).max() / lexical.possible(query) < 1
    for name in ["min_score cuts by relevance, vector", "min_score cuts a keyword ranking"]:
        cut = by_name[name]
        assert cut["results"], name
        assert min(r[1] for r in cut["results"]) >= cut["options"]["min_score"], name
    everything = by_name["top_k beyond the corpus, vector"]["results"]
    assert len(by_name["min_score cuts by relevance, vector"]["results"]) < len(everything)
    assert {r[1] for r in by_name["min_score 1, vector: the top page only"]["results"]} == {1}
    beyond = by_name["top_k beyond the corpus, hybrid"]
    assert len(beyond["results"]) < beyond["options"]["top_k"]
    assert len(expected["refused"]) == 4 and all(r["error"] for r in expected["refused"])


def test_scores_are_relevances_that_fall_down_the_list(expected):
    """Every listed score is in 0-1 and never rises down the list (pages in order)."""
    lists = [q[mode] for q in expected["queries"] for mode in ("vector", "lexical", "hybrid")]
    lists += [case["results"] for case in expected["cases"]]
    for results in lists:
        scores = [r[1] for r in results]
        assert all(0 <= s <= 1 for s in scores)
        assert scores == sorted(scores, reverse=True)


def test_a_clear_keyword_winner_comes_first(searcher, expected):
    """The page the keyword signal alone puts first, well ahead of its runner-up, stays
    first in hybrid even where the vector signal ranks it lower."""
    case = cases(expected)["a clear keyword winner against a flat vector signal"]
    page = searcher._page_of_chunk
    lexical = searcher.search(case["query"], mode="lexical")
    vector = searcher.search(case["query"], mode="vector")
    assert page[lexical[0].chunk_id] != page[vector[0].chunk_id]
    assert page[case["results"][0][0]] == page[lexical[0].chunk_id]


def test_the_cases_hold_a_boosted_page_and_a_split_section(searcher, expected):
    boosted = {int(p) for p in searcher.bundle.catalog["pages"]["boosts"]}
    sections = searcher.bundle.pages.sections
    pieces = {c: int(first) for c, first in enumerate(sections) if first != c}  # later -> first
    assert boosted and pieces
    listed = [r[0] for case in expected["cases"] for r in case["results"]]
    assert boosted & {int(searcher._page_of_chunk[c]) for c in listed}
    # hybrid with no min_score: the vector signal ranks every chunk, both pieces included
    split = cases(expected)["long section in pieces: one listed"]
    assert split["options"] == {"mode": "hybrid"}
    chunks = [r[0] for r in split["results"]]
    assert any(c in pieces and pieces[c] not in chunks for c in chunks)


def test_python_excerpt_windows_match_the_committed_ones(generator):
    expected = json.loads((PARITY / "excerpts.json").read_text(encoding="utf-8"))
    actual = json.loads(generator.dump(generator.excerpt_windows(PARITY / "bundle")))
    assert len(actual["cases"]) > 20
    for want, got in zip(expected["cases"], actual["cases"], strict=True):
        assert got == want, want["query"]

