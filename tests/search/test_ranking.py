"""The fusion rule of search/ranking.py on hand-made signals: pages, not a built site."""

from __future__ import annotations

import numpy as np
import pytest

from mkdocs_semantic.constants import NAME_KEYWORD_WEIGHT
from mkdocs_semantic.search.ranking import (
    Signal,
    chunk_order,
    fuse,
    heading_name,
    keyword_weight,
    named_sections,
    names_a_thing,
    section_heading,
    writes_name,
)

# Four pages of two chunks each: chunk c is on page c // 2.
PAGE_OF_CHUNK = np.repeat(np.arange(4), 2)


def vector(scores: list[float]) -> Signal:
    """A vector signal as the searcher makes it: floor the mean score, relative to the best."""
    s = np.asarray(scores, dtype=np.float64)
    return Signal(s, chunk_order(s, np.ones(len(s), dtype=bool)), floor=float(s.mean()))


def lexical(scores: list[float], possible: float | None = None) -> Signal:
    """A keyword signal: floor 0, ceiling the query's best possible score (by default
    the best chunk's, as for a query whose terms one chunk matches in full)."""
    s = np.asarray(scores, dtype=np.float64)
    return Signal(s, chunk_order(s, s > 0), floor=0.0,
                  ceiling=float(s.max()) if possible is None else possible)


def ranked(signals, *, boosts=None, min_score=None, top_k=8, named=()):
    return fuse(signals, page_of_chunk=PAGE_OF_CHUNK, sections=np.arange(8),
                priors=np.ones(4), boosts=np.ones(4) if boosts is None else np.asarray(boosts),
                top_k=top_k, min_score=min_score, named=named)


def pages(results) -> list[int]:
    return list(dict.fromkeys(int(PAGE_OF_CHUNK[r.chunk]) for r in results))


def test_a_clear_vector_winner_is_not_outvoted_by_a_flat_keyword_signal():
    # Vector: page 0 far ahead. Keywords: pages 1, 2, 0 nearly level. Reciprocal rank
    # fusion put page 1 first (vector rank 2 + keyword rank 1 beat ranks 1 + 3).
    results = ranked([vector([0.9, 0.1, 0.31, 0.1, 0.3, 0.1, 0.2, 0.1]),
                      lexical([9.6, 0, 10, 0, 9.8, 0, 0, 0])])
    assert pages(results) == [0, 1, 2, 3]


def test_a_keyword_signal_that_holds_little_of_the_query_does_not_outvote_the_vector():
    # Keywords put page 1 first, but its best chunk holds a fifth of what the query's
    # terms could score: page 0, the vector's clear first, stays first.
    signals = [vector([0.9, 0.1, 0.6, 0.1, 0.3, 0.1, 0.2, 0.1]),
               lexical([1, 0, 4, 0, 1, 0, 0, 0], possible=20)]
    assert pages(ranked(signals))[:2] == [0, 1]
    # the same keyword scores as the whole of the query's keywords: page 1 first
    signals[1] = lexical([1, 0, 4, 0, 1, 0, 0, 0], possible=4)
    assert pages(ranked(signals))[0] == 1


def test_a_clear_keyword_winner_is_not_outvoted_by_a_flat_vector_signal():
    results = ranked([vector([0.50, 0, 0.49, 0, 0.48, 0, 0.2, 0]),
                      lexical([1, 0, 0, 0, 9, 0, 0, 0])])
    assert pages(results)[0] == 2


def test_relevance_is_one_only_where_every_signal_ranks_the_page_first():
    results = ranked([vector([0.9, 0.1, 0.5, 0.1, 0.3, 0.1, 0.2, 0.1]),
                      lexical([5, 0, 2, 0, 0, 0, 0, 0])])
    by_page = {int(PAGE_OF_CHUNK[r.chunk]): r.page_score for r in results}
    assert by_page[0] == 1.0
    # page 1: vector (0.5 - mean) / (0.9 - mean), keyword 2 / 5, averaged
    mean = np.mean([0.9, 0.1, 0.5, 0.1, 0.3, 0.1, 0.2, 0.1])
    assert by_page[1] == pytest.approx(((0.5 - mean) / (0.9 - mean) + 0.4) / 2)
    # page 3: below the vector floor (the mean) and no keyword match
    assert by_page[3] == 0.0
    assert all(0 <= r.section_score <= 1 for r in results)


def test_one_signal_empty_is_the_other_signal_alone():
    vec = vector([0.9, 0.1, 0.5, 0.1, 0.3, 0.1, 0.2, 0.1])
    alone = ranked([vec])
    with_empty = ranked([vec, lexical([0] * 8)])
    assert [(r.chunk, r.page_score, r.section_score) for r in with_empty] == \
        [(r.chunk, r.page_score, r.section_score) for r in alone]
    assert alone[0].page_score == 1.0
    assert ranked([vector([0.0] * 0 + [0.5] * 8)])[0].page_score == 1.0  # all level
    assert ranked([lexical([0] * 8)]) == []


def test_ties_go_to_the_lower_page_and_chunk_number():
    results = ranked([lexical([3, 3, 3, 3, 0, 0, 0, 0])])
    assert [r.chunk for r in results] == [0, 1, 2, 3]
    assert {r.page_score for r in results} == {1.0}


def test_min_score_drops_pages_below_a_relevance_in_any_mode():
    signals = [vector([0.9, 0.1, 0.5, 0.1, 0.3, 0.1, 0.2, 0.1]),
               lexical([5, 0, 2, 0, 4, 0, 0, 0])]
    everything = ranked(signals)
    kept = ranked(signals, min_score=0.5)
    assert 0 < len(kept) < len(everything)
    assert all(r.page_score >= 0.5 for r in kept)
    assert kept == [r for r in everything if r.page_score >= 0.5]


def test_a_boost_lifts_a_page_where_it_matches_and_not_where_it_does_not():
    signals = [lexical([4, 0, 5, 0, 0, 0, 1, 0])]
    assert pages(ranked(signals)) == [1, 0, 3]
    boosted = ranked(signals, boosts=[2, 1, 1, 1])
    assert pages(boosted) == [0, 1, 3]
    assert boosted[0].page_score == 1.0  # 0.8 x 2, shown as at most 1
    # page 2 has no keyword match: no boost brings it in
    assert 2 not in pages(ranked(signals, boosts=[1, 1, 10, 1]))


@pytest.mark.parametrize("query", ["custom_dir", "--reload", "gh-deploy", "json.dumps",
                                   "TaskGroup", "ETag", "EPOLLET", "CREATE STATISTICS",
                                   "!ENV", "gather()", "`Depends()`", "pybabel init -d"])
def test_a_short_query_with_a_word_shaped_like_code_names_a_thing(query):
    assert names_a_thing(query)
    assert keyword_weight(query) == NAME_KEYWORD_WEIGHT > 1


@pytest.mark.parametrize("query", ["", "caching", "timing attacks", "Depends",
                                   "how do I use custom_dir in a theme",
                                   "let a React app call my API"])
def test_questions_and_plain_words_do_not(query):
    assert not names_a_thing(query)
    assert keyword_weight(query) == 1


def test_a_weighted_keyword_signal_turns_a_close_call_its_way():
    # Page 0: the vector's first, half the query's keywords; page 1: every keyword, the
    # vector's third. Equal weights keep page 0 first; keywords weighing twice put page 1.
    vec = vector([0.9, 0.1, 0.6, 0.1, 0.7, 0.1, 0.2, 0.1])
    lex_scores = np.array([5, 0, 10, 0, 0, 0, 0, 0], dtype=np.float64)
    def lex(weight: float) -> Signal:
        return Signal(lex_scores, chunk_order(lex_scores, lex_scores > 0), floor=0.0,
                      ceiling=10.0, weight=weight)
    assert pages(ranked([vec, lex(1.0)]))[0] == 0
    heavy = ranked([vec, lex(2.0)])
    assert pages(heavy)[0] == 1
    # relevance stays a share of the best possible: 1 for a page first in both
    both = ranked([vector([0.1, 0.1, 0.9, 0.1, 0.2, 0.1, 0.2, 0.1]), lex(2.0)])
    assert both[0].page_score == 1.0


@pytest.mark.parametrize(("query", "name"), [
    ("Depends", "Depends"), ("`Depends`", "Depends"), ("gather()", "gather"),
    ("'--reload'", "--reload"), ("  CREATE   STATISTICS ", "CREATE STATISTICS"),
    ("`json.dumps()`", "json.dumps"), ("how do I cache", None), ("caching", None),
    ("``", None),
])
def test_the_name_looked_for_in_headings_is_the_query_as_typed_without_quotes(query, name):
    assert heading_name(query) == name


@pytest.mark.parametrize(("heading", "name", "writes"), [
    ("Import `Depends`", "Depends", True),
    ("Dependencies", "Depends", False),  # inside a longer word
    ("Depends", "depends", False),  # case kept
    ("--reload-dir", "--reload", False),  # inside a longer flag
    ("Use max-age", "age", False),
    ("Call fastapi.HTTPException", "HTTPException", True),
    ("The $HOME variable", "$HOME", True),  # regex characters are literal
    ("Regex (a|b)", "(a|b)", True),
])
def test_a_heading_writes_a_name_as_typed_and_whole(heading, name, writes):
    assert writes_name(heading, name) is writes


def test_named_sections_are_among_the_keyword_orders_first_and_in_its_order():
    order = list(range(20))
    headings = ["Intro"] * 20
    headings[3] = headings[7] = "Use `Depends`"
    headings[15] = "Depends"  # beyond the first sections looked at
    assert named_sections(order, headings[:10], "Depends") == [3, 7]
    assert named_sections(order, headings[:10], None) == []
    assert section_heading("Page", []) == "Page"
    assert section_heading("Page", ["Page", "Setup"]) == "Setup"


def test_a_named_section_goes_first_with_the_first_pages_relevance():
    # The vector puts page 0 first; keywords rank page 2 near it. Step 8: chunk 5 (page
    # 2's second section) writes the name, so page 2 goes first, chunk 5 first on it.
    signals = [vector([0.9, 0.1, 0.5, 0.1, 0.6, 0.5, 0.2, 0.1]),
               lexical([5, 0, 0, 0, 5, 4, 0, 0])]
    before = ranked(signals)
    assert pages(before)[0] == 0
    after = ranked(signals, named=[5])
    assert pages(after) == [2] + [p for p in pages(before) if p != 2]
    assert [r.chunk for r in after[:2]] == [5, 4]
    assert after[0].page_score == before[0].page_score
    assert after[0].section_score == max(r.section_score for r in before if r.chunk in (4, 5))
    # min_score keeps the moved page wherever it keeps the first page
    assert pages(ranked(signals, named=[5], min_score=before[0].page_score))[0] == 2


def test_of_several_named_sections_the_best_ranked_page_goes_first():
    signals = [vector([0.9, 0.1, 0.5, 0.1, 0.6, 0.5, 0.2, 0.1]),
               lexical([5, 4, 0, 0, 5, 4, 0, 0])]
    # chunks 5 (page 2) and 1 (page 0) both write the name: page 0 already leads, so its
    # named section goes first on it and the pages keep their order
    results = ranked(signals, named=[5, 1])
    assert pages(results) == pages(ranked(signals))
    assert results[0].chunk == 1
    # on the page that goes first, a named section already ranked first stays first
    moved = ranked(signals, named=[5, 4])
    assert [r.chunk for r in moved[:2]] == [4, 5]
    assert pages(moved)[0] == 2
