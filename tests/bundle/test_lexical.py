"""The keyword analyzer and the quantized BM25 index, against bm25s as reference."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mkdocs_semantic.bundle.cased_forms import cased_words, written_forms
from mkdocs_semantic.bundle.lexical import LexicalFields, LexicalIndex, analyze, split_parts
from mkdocs_semantic.bundle.names import json_bytes
from mkdocs_semantic.bundle.shard_lists import ShardReader, bucket_of


@pytest.mark.parametrize(
    "text, whole, parts",
    [
        ("response_model_exclude_unset", "response_model_exclude_unset",
         ["respons", "model", "exclud", "unset"]),
        ("HTTPException", "httpexception", ["http", "except"]),
        ("fastapi.responses.JSONResponse", "fastapi.responses.jsonresponse",
         ["fastapi", "respons", "json"]),
        ("uvicorn main:app --log-level debug", "log-level", ["log", "level", "debug"]),
    ],
)
def test_identifiers_are_findable_whole_and_by_parts(text, whole, parts):
    terms = analyze(text)
    assert whole in terms
    assert set(parts) <= set(terms)


def test_words_are_stemmed_and_stop_words_dropped():
    assert analyze("The caching of cached responses") == ["cach", "cach", "respons"]
    assert analyze("what is it") == []


def test_camel_case_and_digits():
    assert split_parts("getJSONData2") == ["get", "JSON", "Data", "2"]
    assert split_parts("v0.95.1") == ["v", "0", "95", "1"]


def test_non_ascii_text_is_kept():
    assert analyze("東京 Café") == ["東京", "café"]


CORPUS = [
    "Background tasks run after the response is sent, like sending an email.",
    "Declare cookie parameters with Cookie, the same way as Query parameters.",
    "Raise HTTPException to return an error response with a status code.",
    "Use response_model_exclude_unset to leave out default values from the response.",
    "CORS middleware lets a frontend on another origin call your API.",
    "Dependencies with yield run code after the response, such as closing a session.",
    "Upload files with UploadFile; large files are spooled to disk.",
    "Path parameters are declared in the path string, like item_id.",
]


def test_quantized_scores_match_bm25s_within_quantization_error():
    import bm25s

    index = LexicalIndex.build([LexicalFields(title="", heading="", body=t) for t in CORPUS])
    reference = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
    reference.index([analyze(t) for t in CORPUS], show_progress=False)
    for query in ["response email", "HTTPException status", "cookie", "files disk upload"]:
        terms = list(dict.fromkeys(t for t in analyze(query) if t in reference.vocab_dict))
        expected = reference.get_scores(terms)
        ours = index.scores(query) / index.scale
        assert np.abs(ours - expected).max() <= 0.5 * len(terms) / index.scale + 1e-6
        top_expected = np.lexsort((np.arange(len(CORPUS)), -expected))[:3]
        top_ours = np.lexsort((np.arange(len(CORPUS)), -ours))[:3]
        assert top_ours[0] == top_expected[0]


def test_headings_and_titles_weigh_more_than_body():
    docs = [
        LexicalFields(title="Guide", heading="Caching", body="Other words entirely here."),
        LexicalFields(title="Guide", heading="Other", body="Caching is mentioned in passing."),
    ]
    scores = LexicalIndex.build(docs).scores("caching")
    assert scores[0] > scores[1] > 0


def shards_round_trip(index: LexicalIndex, *, read: list[str] | None = None) -> LexicalIndex:
    """The index written as shards and tails (as the bundle writer does), read back: all
    at once, or (with `read`, which notes each shard and tail as it is read) lazily."""
    starts = np.array([0, 2, len(CORPUS)])  # two pages
    files: dict[str, bytes] = {}

    def put(kind: str, data: bytes) -> list:
        name = f"lexical/{kind}.{len(files):016x}.json"
        files[name] = data
        return [name, len(data)]

    def load(name: str, size: int) -> object:
        if read is not None:
            read.append(name)
        return json.loads(files[name])

    shards = [(number, put("lex", json_bytes(shard))) for number, shard in enumerate(
        index.to_shards(starts, target_bytes=200, put_tail=lambda d: put("tail", d)))]
    options = {"starts": starts, "count": len(CORPUS), "scale": index.scale,
               "head": index.head, "read_tail": load}
    if read is None:
        return LexicalIndex.from_shards([load(*entry) for _, entry in shards], **options)
    return LexicalIndex.lazy(ShardReader([(n, *e) for n, e in shards], load,
                                         locate=bucket_of),
                             failed=lambda exc: exc, **options)


def test_shards_round_trip_keeps_every_score_and_heads_leave_the_weakest_postings():
    docs = [LexicalFields(title="", heading="", body=t) for t in CORPUS]
    whole = LexicalIndex.build(docs)
    again = shards_round_trip(whole)
    for query in ["response", "UploadFile disk", "nothing matches zzz"]:
        np.testing.assert_array_equal(again.scores(query), whole.scores(query))
    # heads of 2 postings: a term in more chunks keeps its 2 best for unfiltered queries
    small = shards_round_trip(LexicalIndex(count=whole.count, scale=whole.scale,
                                           postings=whole.postings, head=2))
    word = "response"
    [term] = analyze(word)
    docs_of, quanta = whole.postings[term]
    assert len(docs_of) > 2 and term in small.heads
    full, head = small.scores(word, full=True), small.scores(word)
    np.testing.assert_array_equal(full, whole.scores(word))
    kept = np.flatnonzero(head)
    assert len(kept) == 2 and set(kept.tolist()) <= set(docs_of.tolist())
    assert head[kept].min() >= np.sort(quanta)[-2]  # the two highest scores
    assert small.possible(word) == whole.possible(word) == quanta.max()


def test_shards_read_lazily_give_the_same_scores_reading_only_what_a_query_needs():
    docs = [LexicalFields(title="", heading="", body=t) for t in CORPUS]
    whole = LexicalIndex.build(docs)
    small = LexicalIndex(count=whole.count, scale=whole.scale, postings=whole.postings, head=2)
    eager = shards_round_trip(small)
    read: list[str] = []
    lazy = shards_round_trip(small, read=read)
    assert read == []  # nothing until a query
    np.testing.assert_array_equal(lazy.scores("response"), eager.scores("response"))
    shards_now = [n for n in read if "lexical/lex" in n]
    assert len(shards_now) == 1 and not [n for n in read if "/tail." in n]
    assert lazy.possible("response") == eager.possible("response")
    # a filtered query reads the term's tail, once
    np.testing.assert_array_equal(lazy.scores("response", full=True),
                                  eager.scores("response", full=True))
    assert len([n for n in read if "/tail." in n]) == 1
    for query in ["UploadFile disk", "nothing matches zzz", "response"]:
        for full in (False, True):
            np.testing.assert_array_equal(lazy.scores(query, full=full),
                                          eager.scores(query, full=full))
    assert len(read) == len(set(read))  # each file read once


@pytest.mark.parametrize("query, words", [
    ("RETURNING *", ["RETURNING"]),
    ("Depends", ["Depends"]),
    ("IS DISTINCT FROM", ["IS", "DISTINCT", "FROM"]),
    ("TLS Termination Proxy", ["TLS"]),  # capitals after the first letter only
    ("HTTPException HTTPException", ["HTTPException"]),
    ("cProfile", ["cProfile"]),
    ("Security through obscurity", []),  # a sentence's capital
    ("depends", []),
    ("one SELECT, several CPU cores", []),  # more than NAME_WORDS tokens: prose
    ("", []),
])
def test_cased_words_are_the_capitals_a_name_is_typed_with(query, words):
    assert cased_words(query) == words


def test_written_forms_are_capitalized_tokens_and_their_pieces():
    assert written_forms("raise fastapi.HTTPException(404) or RETURNING id") == {
        "fastapi.HTTPException", "HTTPException", "RETURNING"}
    assert written_forms("all lowercase text_here") == set()


CASED = [
    LexicalFields(title="Returning data", heading="", body="INSERT ... RETURNING id gives rows."),
    LexicalFields(title="Set returning functions", heading="Returning sets",
                  body="A function returning rows."),
    LexicalFields(title="Other", heading="", body="Nothing to see."),
]


def test_a_name_typed_with_capitals_keeps_its_full_score_where_a_section_writes_it_so():
    index = LexicalIndex.build(CASED)
    plain = index.scores("returning")
    cased = index.scores("RETURNING")
    assert cased[0] == plain[0] > 0  # writes RETURNING
    assert cased[1] == plain[1] - plain[1] // 2 > 0  # writes Returning only: half, rounded up
    assert cased[2] == plain[2] == 0
    assert index.possible("RETURNING") == index.possible("returning")
    # a form no section writes asks nothing of them; nor does a question with capitals
    np.testing.assert_array_equal(index.scores("ROWS"), index.scores("rows"))
    np.testing.assert_array_equal(index.scores("which rows does INSERT RETURNING give"),
                                  index.scores("which rows does insert returning give"))
    # a reading's capitals that the reader did not type (a completion's, a correction's)
    np.testing.assert_array_equal(index.scores("RETURNING", typed="returnin"), plain)
    np.testing.assert_array_equal(index.scores("RETURNING", typed="RETURNNG"), plain)
    np.testing.assert_array_equal(index.scores("RETURNING id", typed="RETURNING i"),
                                  index.scores("RETURNING id"))


def test_forms_go_through_shards_and_are_read_with_the_query_terms():
    index = LexicalIndex.build(CASED)
    assert "RETURNING" in index.postings and "Returning" in index.postings
    starts = np.array([0, len(CASED)])
    files: dict[str, object] = {}
    shards = index.to_shards(starts, target_bytes=60, put_tail=lambda data: [])
    entries = []
    for number, shard in enumerate(shards):
        files[f"lex{number}"] = shard
        entries.append((number, f"lex{number}", len(json_bytes(shard))))
    read: list[str] = []

    def load(name: str, size: int) -> object:
        read.append(name)
        return files[name]

    lazy = LexicalIndex.lazy(ShardReader(entries, load, locate=bucket_of), starts=starts,
                             count=len(CASED), scale=index.scale, head=index.head,
                             read_tail=load, failed=lambda exc: exc)
    np.testing.assert_array_equal(lazy.scores("RETURNING"), index.scores("RETURNING"))
    wanted = {f"lex{bucket_of(key, len(shards))}" for key in (*analyze("RETURNING"), "RETURNING")}
    assert set(read) == wanted


def test_a_term_of_several_cased_words_is_halved_once_where_none_is_written_so():
    docs = [LexicalFields(title="", heading="", body="plain http here"),
            LexicalFields(title="", heading="", body="raise HTTPException"),
            LexicalFields(title="", heading="", body="catch HTTPError")]
    index = LexicalIndex.build(docs)
    query = "HTTPException HTTPError"
    plain = index.scores(query, typed=query.lower())  # no capitals typed: no rule
    cased = index.scores(query)
    assert plain[0] > 0 and cased[0] == plain[0] - plain[0] // 2  # `http`, halved once
    assert cased[1] == plain[1] > 0 and cased[2] == plain[2] > 0  # each writes one name
    assert (index.scores("HTTPException HTTPError HTTPStatus") >= 0).all()
