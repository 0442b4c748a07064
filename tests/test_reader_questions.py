"""bench/corpora/reader_questions.txt, a recipe's training texts: readers' questions that
must stay apart from the relevance sets they are measured on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
QUESTIONS = BENCH / "corpora" / "reader_questions.txt"
RELEVANCE = BENCH / "relevance"

pytestmark = pytest.mark.skipif(not QUESTIONS.is_file(), reason="bench/ is not in the sdist")


def questions() -> list[str]:
    return [line.strip() for line in QUESTIONS.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def test_the_questions_are_distinct_and_query_sized():
    found = questions()
    assert len(found) >= 2000
    assert len({q.lower().rstrip("?") for q in found}) == len(found)
    assert all(2 <= len(q.split()) <= 25 and "\t" not in q for q in found)


def test_no_question_is_near_a_query_of_the_relevance_sets():
    """A question that shares half its words with a judged query would flatter the
    figures of any recipe that trains on the questions."""
    asked = [words(q) for q in questions()]
    near = []
    for path in sorted(RELEVANCE.glob("*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            query = line.partition("\t")[0]
            judged = words(query)
            if len(judged) >= 3 and any(len(judged & q) / len(judged | q) >= 0.5
                                        for q in asked):
                near.append(f"{path.name}: {query}")
    assert not near, near
