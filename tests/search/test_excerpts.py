"""The excerpt window results show (search/excerpts.py); the browser's twin is
js/src/text/excerpt.js, and tests/fixtures/parity/excerpts.json holds cases both must agree on."""

from __future__ import annotations

from mkdocs_semantic.constants import EXCERPT_CHARS
from mkdocs_semantic.search.excerpts import (
    Part,
    excerpt_window,
    parts_of,
    query_terms,
    window_start,
    window_text,
)

FILLER = "Caches keep copies of responses for later requests. "
PASSAGE = "A service worker answers requests offline when the network is gone. "


def shown(stored: list[str], query: str) -> str:
    return "".join(p.text for p in excerpt_window(parts_of(stored), query_terms(query)))


def test_the_window_is_centred_on_the_query_words_from_their_sentence():
    source = FILLER * 8 + PASSAGE + FILLER * 4
    text = shown([source], "offline network")
    assert text.startswith("…A service worker answers")
    assert text.endswith("…") and len(text) <= EXCERPT_CHARS + 2
    plain = shown([source], "bandwidth")  # no query word in the text: its beginning
    assert plain.startswith("Caches keep copies") and plain.endswith("…")
    early = "Service workers run offline. " + FILLER * 10
    assert window_start(early, query_terms("offline")) == 0


def test_the_window_never_starts_or_ends_inside_a_word():
    words = [f"word{i}" for i in range(120)]
    words[80] = "offline"
    source = " ".join(words)
    for query in ("offline", "word70", "word100", ""):
        body = shown([source], query).removeprefix("…").removesuffix("…")
        at = source.index(body)
        assert at == 0 or source[at - 1] == " ", query
        end = at + len(body)
        assert end == len(source) or source[end] == " ", query


def test_code_stays_code_and_shows_three_lines_at_most():
    stored = ["Declare it with", "from fastapi import FastAPI\napp = FastAPI()", "and run it."]
    assert excerpt_window(parts_of(stored), []) == [
        Part("Declare it with "), Part("from fastapi import FastAPI\napp = FastAPI()", True),
        Part(" and run it.")]
    assert window_text(parts_of(stored)) == \
        "Declare it with from fastapi import FastAPI app = FastAPI() and run it."
    code = "\n".join(f"line{i} = {i}" for i in range(8))
    window = excerpt_window(parts_of(["Set it up:", code, "Done."]), [])
    lines = "".join(p.text for p in window if p.code).split("\n")
    assert lines == ["line0 = 0", "line1 = 1", "line2 = 2"]
    assert window[-1] == Part("…")
    started_in_code = excerpt_window(parts_of(["Intro. " * 40, "x = compute_offline_value()",
                                               "Done."]), query_terms("compute_offline_value"))
    assert any(p.code and "compute_offline_value" in p.text for p in started_in_code)


def test_query_terms_drop_stop_words_and_stem():
    assert query_terms("How do I cache the browsers' responses?") == ["cach", "browser",
                                                                      "respons"]
    assert query_terms("why is it") == []
    assert query_terms("🚀 a") == []
