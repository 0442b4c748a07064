"""Word rows: the query table's rows summed per word of the site, so that a query made of
the site's words is encoded from its words' shards alone, to the same integer vector."""

from __future__ import annotations

import json

import numpy as np
import pytest
from tokenizers import Tokenizer

from mkdocs_semantic.bundle.shard_lists import bucket_of
from mkdocs_semantic.bundle.table import TokenTable, summed_rows
from mkdocs_semantic.bundle.word_rows import (
    FRAME,
    _row,
    parse_word_shard,
    query_words,
    site_words,
    word_rows,
    word_shards,
)
from mkdocs_semantic.model.spec import default_model_spec

from .test_wordpieces import TEXTS  # the texts the word pieces are tried on


@pytest.fixture(scope="module")
def tokenizer():
    tokenizer = Tokenizer.from_file(str(default_model_spec().tokenizer_path))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


@pytest.fixture(scope="module")
def table(tokenizer):
    """A table holding every other token of the texts, the special tokens among them."""
    ids = sorted({i for text in TEXTS for i in tokenizer.encode(text).ids})
    held = np.array(ids[::2], dtype=np.uint32)
    rows = np.random.default_rng(7).integers(-127, 128, (len(held), 8), dtype=np.int8)
    return TokenTable(token_ids=held, rows=rows, scale=1.0)


def by_words(rows, tokenizer, text: str) -> tuple[np.ndarray | None, int]:
    """The vector and token count of `text` from word rows alone."""
    words = query_words(tokenizer, text)
    assert words is not None
    parts = [rows[FRAME], *(rows[word] for word in words)]
    held = [part.row for part in parts if part.row is not None]
    return (np.sum(held, axis=0) if held else None), sum(part.tokens for part in parts)


def test_a_query_of_site_words_sums_to_its_token_vector(tokenizer, table):
    rows = word_rows(tokenizer, table, site_words(tokenizer, TEXTS))
    for text in TEXTS:
        if query_words(tokenizer, text) is None:
            continue
        vector, tokens = by_words(rows, tokenizer, text)
        ids = tokenizer.encode(text).ids
        assert tokens == len(ids), text
        expected = summed_rows(table, ids)
        if expected is None:
            assert vector is None, text
        else:
            assert vector is not None and np.array_equal(vector, expected), text


def test_shards_hold_each_word_once_in_its_bucket_and_read_back(tokenizer, table):
    rows = word_rows(tokenizer, table, site_words(tokenizer, TEXTS))
    shards = word_shards(rows)
    assert len(shards) == len(rows)  # about one word a shard
    read = {}
    for number, body in enumerate(shards):
        held = parse_word_shard(json.loads(body), table.dim, f"words/word{number}")
        assert all(bucket_of(word, len(shards)) == number for word in held)
        read.update(held)
    assert read.keys() == rows.keys()
    for word, entry in rows.items():
        assert read[word].tokens == entry.tokens
        assert (read[word].row is None) == (entry.row is None)
        if entry.row is not None:
            assert np.array_equal(read[word].row, entry.row)


def test_a_text_holding_an_added_token_has_no_words(tokenizer):
    assert query_words(tokenizer, "[CLS] [unk] ##ing") is None
    assert query_words(tokenizer, "a [mask]") is None
    assert query_words(tokenizer, "Lifespan Events") == ["lifespan", "events"]


def test_a_word_whose_sum_overflows_an_int16_is_left_to_its_pieces():
    table = TokenTable(token_ids=np.array([7], dtype=np.uint32),
                       rows=np.full((1, 4), 127, dtype=np.int8), scale=1.0)
    assert _row(table, [7] * 258).row.max() == 127 * 258
    assert _row(table, [7] * 259) is None


def test_a_padding_tokenizer_is_refused():
    padding = Tokenizer.from_file(str(default_model_spec().tokenizer_path))
    padding.enable_padding(length=16)
    with pytest.raises(ValueError, match="neither pads nor truncates"):
        word_rows(padding, TokenTable(token_ids=np.zeros(0, dtype=np.uint32),
                                      rows=np.zeros((0, 4), dtype=np.int8), scale=1.0), [])


def test_a_word_without_rows_keeps_its_token_count(tokenizer):
    empty = TokenTable(token_ids=np.zeros(0, dtype=np.uint32),
                       rows=np.zeros((0, 4), dtype=np.int8), scale=1.0)
    rows = word_rows(tokenizer, empty, ["lifespan"])
    assert rows["lifespan"].row is None and rows["lifespan"].tokens >= 1
    assert json.loads(word_shards(rows)[bucket_of("lifespan", 2)])["lifespan"] == [
        rows["lifespan"].tokens]


@pytest.mark.parametrize("shard", [[], {"a": []}, {"a": ["1"]}, {"a": [True]},
                                   {"a": [1, "AAAA"]}, {"a": [1, 5]}, {"a": [-1]}])
def test_a_malformed_shard_is_refused(shard):
    with pytest.raises(ValueError, match="words/word0"):
        parse_word_shard(shard, 8, "words/word0")
