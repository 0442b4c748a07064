"""The metrics and query-file readers behind `mkdocs-semantic eval`, on hand-worked cases."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from mkdocs_semantic.apps.evaluate import (
    JudgedQuery,
    QueryFileError,
    evaluate,
    ndcg,
    page_key,
    ranked_pages,
    read_queries,
    recall,
    reciprocal_rank,
)


@pytest.mark.parametrize(("url", "key"), [
    ("", "index"), ("/", "index"), ("index.html", "index"), ("./index.html", "index"),
    ("tutorial/cookie-params/", "tutorial/cookie-params"),
    ("/tutorial/cookie-params/#import-cookie", "tutorial/cookie-params"),
    ("guide/index.html", "guide"), ("a/b.html?x=1", "a/b.html"),
])
def test_page_key(url, key):
    assert page_key(url) == key


def test_metrics_on_a_worked_example():
    ranked = ranked_pages(["a/", "a/#x", "b/", "c/", "d/"])
    assert ranked == ["a", "b", "c", "d"]
    relevant = {"c": 2, "z": 1}
    assert reciprocal_rank(ranked, relevant) == pytest.approx(1 / 3)
    dcg = 2 / math.log2(4)
    ideal = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg(ranked, relevant) == pytest.approx(dcg / ideal)
    assert recall(ranked, relevant, 3) == 0.5
    assert recall(ranked, relevant, 2) == 0.0
    assert reciprocal_rank(ranked, {"d": 1}, k=3) == 0.0


def test_evaluate_averages_and_reports_misses():
    queries = [JudgedQuery("1", "first", {"a": 1}), JudgedQuery("2", "second", {"z": 1})]
    answers = {"first": ["b/", "a/#top"], "second": ["a/", "b/"]}
    asked = []

    def search(text: str, depth: int) -> list[str]:
        asked.append(depth)
        return answers[text]

    report = evaluate(queries, search, mode="vector", k=10)
    assert asked == [50, 50]
    assert report.mrr == pytest.approx(0.25)
    assert report.recall == pytest.approx(0.5)
    assert [o.query.id for o in report.misses] == ["2"]
    assert report.figures()["recall@10"] == 0.5


def test_tsv_reader_and_its_errors(tmp_path):
    good = tmp_path / "q.tsv"
    good.write_text("# comment\n\nfirst question\t/ guide/#x\nsecond\tblog/post.html\n")
    queries = read_queries(good)
    assert [(q.text, q.relevant) for q in queries] == [
        ("first question", {"index": 1, "guide": 1}), ("second", {"blog/post.html": 1})]
    bad = tmp_path / "bad.tsv"
    bad.write_text("a query without urls\n")
    with pytest.raises(QueryFileError, match=r"bad\.tsv:1: expected"):
        read_queries(bad)


def test_beir_reader_skips_the_header_and_zero_scores(tmp_path):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "queries.jsonl").write_text(
        json.dumps({"_id": "q1", "text": "cookies"}) + "\n"
        + json.dumps({"_id": "q2", "text": "unjudged"}) + "\n")
    (tmp_path / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\ttutorial/cookie-params\t2\nq1\tindex\t0\n")
    [query] = read_queries(tmp_path)
    assert (query.id, query.text, query.relevant) == ("q1", "cookies",
                                                     {"tutorial/cookie-params": 2})
    with pytest.raises(QueryFileError, match="no qrels"):
        read_queries(tmp_path / "qrels")


def test_a_query_file_that_is_not_utf8_is_named_with_the_encoding(tmp_path):
    latin = tmp_path / "latin1.tsv"
    latin.write_bytes("first\tguide/\ncaf\u00e9 menu\tmenu/\n".encode("latin-1"))
    with pytest.raises(QueryFileError, match=r"latin1\.tsv:2: not UTF-8 text \(byte 0xe9 "
                                             r"at offset 16\).*re-save it as UTF-8"):
        read_queries(latin)
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "qrels" / "test.tsv").write_text("q1\tindex\t1\n")
    (beir / "queries.jsonl").write_bytes(b'{"_id": "q1", "text": "\xff"}\n')
    with pytest.raises(QueryFileError, match=r"queries\.jsonl:1: not UTF-8"):
        read_queries(beir)


@pytest.mark.parametrize(("qrels", "queries", "message"), [
    ("q1\tindex\tvery\n", '{"_id": "q1", "text": "x"}', r"test\.tsv:2: expected query-id"),
    ("q1\tindex\t1\n", '{"_id": "q1"}', r"queries\.jsonl:1: expected a JSON object"),
    ("q1\tindex\t1\n", '["q1", "x"]', r"queries\.jsonl:1: expected a JSON object"),
])
def test_malformed_beir_rows_are_named(tmp_path, qrels, queries, message):
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + qrels)
    (tmp_path / "queries.jsonl").write_text(queries + "\n")
    with pytest.raises(QueryFileError, match=message):
        read_queries(tmp_path)


def test_a_query_file_that_is_a_device_or_a_fifo_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "judged.tsv")  # reading it would wait for a writer forever
    with pytest.raises(QueryFileError, match=r"judged\.tsv is not a regular file \(a FIFO\)"):
        read_queries(tmp_path / "judged.tsv")
    with pytest.raises(QueryFileError, match=r"/dev/zero is not a regular file"):
        read_queries(Path("/dev/zero"))
