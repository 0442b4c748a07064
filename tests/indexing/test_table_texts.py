"""The query table's training texts and held-out phrases (query_table/texts.py)."""

from __future__ import annotations

import zlib

import numpy as np

from mkdocs_semantic.chunk import Chunk
from mkdocs_semantic.indexing.query_table.fit import TableFitter, TableRecipe
from mkdocs_semantic.indexing.query_table.texts import (
    held_out_phrases,
    sentences_of,
    spread_sample,
    training_spans,
)
from mkdocs_semantic.model.onnx import load_tokenizer
from mkdocs_semantic.model.spec import default_model_spec

TEXT = ("Declare a cookie parameter with the same structure as a query parameter. "
        "Run code once when the application starts, before it takes any request. "
        "Dependencies can declare their own sub-dependencies and the framework solves "
        "the whole tree for each request. Short one.")


def chunk(text: str, title: str = "Page", path: tuple[str, ...] = ()) -> Chunk:
    return Chunk(url="page/", anchor="", title=title, path=list(path), text=text)


SENTENCES = ["Declare a cookie parameter with the same structure as a query parameter.",
             "Run code once when the application starts, before it takes any request.",
             "Short one."]


def test_phrases_are_spans_shorter_than_their_sentence_and_seeded():
    phrases = held_out_phrases(SENTENCES, count=20)
    assert phrases == held_out_phrases(SENTENCES, count=20)  # the same every build
    assert 0 < len(phrases) <= 20 and len(set(phrases)) == len(phrases)
    for phrase in phrases:
        words = phrase.split()
        assert 3 <= len(words) <= 8
        assert any(phrase in s and phrase != s.rstrip(".") and phrase != s for s in SENTENCES)
    assert held_out_phrases(["Too short"]) == []


def test_sentences_are_distinct_and_four_to_forty_words():
    sentences = sentences_of([chunk(TEXT), chunk(TEXT)])
    assert len(sentences) == len(set(sentences)) == 3
    assert all(4 <= len(s.split()) <= 40 for s in sentences)


def test_training_spans_are_seeded_short_and_never_a_held_out_phrase():
    chunks = [chunk(TEXT)]
    spans = training_spans(chunks, 40)
    assert spans == training_spans(chunks, 40)
    assert 0 < len(spans) <= 40 and len(set(spans)) == len(spans)
    assert all(3 <= len(s.split()) <= 10 for s in spans)
    assert not set(spans) & set(held_out_phrases(sentences_of(chunks)))
    assert training_spans(chunks, 0) == []


def test_spread_sample_keeps_the_ends_and_the_count():
    items = [str(i) for i in range(100)]
    picked = spread_sample(items, 5)
    assert picked[0] == "0" and picked[-1] == "99" and len(picked) == 5
    assert spread_sample(items[:3], 5) == items[:3]


def test_a_recipe_with_spans_trains_on_them_and_not_on_sentences():
    spec = default_model_spec()
    fitter = TableFitter(tokenizer=load_tokenizer(spec.tokenizer_path, spec.max_tokens),
                         embed_texts=lambda texts: None, embed_tokens=lambda ids: None,
                         cache_path=None,
                         recipe=TableRecipe(texts=("chunks", "headings", "spans"), max_spans=7))
    short = fitter.short_texts([chunk(TEXT, title="Cookies", path=("Declare",))])
    assert set(short) == {"headings", "spans"}
    assert len(short["spans"]) == 7
    assert short["headings"] == ["Cookies > Declare"]


class WeighedFitter(TableFitter):
    """A fitter whose short texts each weigh `weight` in the solve."""

    def __init__(self, *args, weight: float | None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.weight = weight

    def text_weights(self, chunks, short):
        if self.weight is None:
            return None
        count = sum(len(texts) for texts in short.values())
        return np.concatenate([np.ones(chunks), np.full(count, self.weight)])


def seeded_vectors(keys) -> np.ndarray:
    """A fixed 8-dimensional vector per text or token id (what the fit is given to learn)."""
    return np.stack([np.random.default_rng(zlib.crc32(str(key).encode())).normal(size=8)
                     for key in keys]).astype(np.float32)


def test_text_weights_reach_the_solve():
    spec = default_model_spec()
    tokenizer = load_tokenizer(spec.tokenizer_path, spec.max_tokens)
    chunks = [chunk(TEXT, title="Cookies", path=("Declare",)),
              chunk("Lifespan events run code on startup and on shutdown.", title="Lifespan")]

    def table(weight: float | None):
        fitter = WeighedFitter(tokenizer=tokenizer, embed_texts=seeded_vectors,
                               embed_tokens=seeded_vectors, cache_path=None, weight=weight)
        return fitter.fit(chunks, seeded_vectors([c.text for c in chunks]), fingerprint="t")

    plain, ones, light = table(None), table(1.0), table(0.1)
    assert np.array_equal(plain.rows, ones.rows)
    assert not np.array_equal(plain.rows, light.rows)
