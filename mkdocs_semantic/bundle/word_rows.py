"""The query table's rows summed per word of the site, for a reader who knows a
query's words but not yet their tokens.

A WordPiece tokenizer normalizes a text, cuts it into words (its pre-tokenizer) and
splits each word into tokens on its own; its post-processor then adds the special
tokens. So a static query vector (bundle/table.py `summed_rows`) is the sum, over the
query's words, of each word's tokens' rows, plus the special tokens' rows: as long as
the query's tokens fit in `max_tokens`, which each word's token count tells, and its
text holds no added token's text (`query_words`).

For every word of the site the bundle holds that sum (int16: a word has at most a few
hundred tokens of int8 rows) and the word's token count, in the keyed list
`words/word<n>.<h>.json` (bundle/shard_lists.py), about one word a shard: shard `n`
holds the words whose `bucket_of` is `n`, as `{word: [tokens, row]}`, `row` the base64
of the little-endian int16 sum, left out when no token of the word has a row. The key
`FRAME` ("", which is never a word) holds the special tokens. A browser names a
query's shards from its words alone, beside the catalog, and only a word the site does
not use needs the word pieces and the token rows.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from .names import json_bytes
from .shard_lists import bucket_of
from .table import TokenTable

WORDS_STEM = "words/word"
"""The stem of the word rows' keyed list."""
FRAME = ""
"""The key of the tokens every query has: the special tokens the post-processor adds."""


@dataclass(frozen=True)
class WordRow:
    """A word's token count and the integer sum of the rows of its tokens the table has
    (None when it has none of them)."""

    tokens: int
    row: np.ndarray | None


def words_of(tokenizer, text: str) -> list[str]:
    """`text` as the tokenizer's words: normalized, then pre-tokenized (the tokenizer
    must have a pre-tokenizer: `has_words`)."""
    normalized = tokenizer.normalizer.normalize_str(text) if tokenizer.normalizer else text
    return [word for word, _ in tokenizer.pre_tokenizer.pre_tokenize_str(normalized)]


def has_words(tokenizer) -> bool:
    """Whether the tokenizer cuts a text into words before it splits them (without a
    pre-tokenizer the whole text is one word, and word rows would not help)."""
    return tokenizer.pre_tokenizer is not None


def query_words(tokenizer, text: str) -> list[str] | None:
    """`text`'s words, or None when it holds the text of one of the tokenizer's added
    tokens (any case): the tokenizer takes those out before it normalizes, so such a
    text is encoded from its tokens instead."""
    folded = text.lower()
    if any(token.content.lower() in folded
           for token in tokenizer.get_added_tokens_decoder().values() if token.content):
        return None
    return words_of(tokenizer, text)


def site_words(tokenizer, texts: Iterable[str]) -> list[str]:
    """The distinct words of `texts`, sorted."""
    words: set[str] = set()
    for text in set(texts):  # titles and headings repeat from chunk to chunk
        words.update(words_of(tokenizer, text))
    return sorted(words)


def chunk_words(tokenizer, query_prefix: str, chunks: Iterable) -> list[str]:
    """The site's words as the bundle holds their rows: those of the model's query
    prefix and of every chunk's title, heading path and text, distinct and sorted."""
    return site_words(tokenizer, [query_prefix, *(
        text for c in chunks for text in (c.title, " ".join(c.path), c.text))])


def word_rows(tokenizer, table: TokenTable, words: Iterable[str]) -> dict[str, WordRow]:
    """Each of `words` (already normalized and pre-tokenized) and `FRAME` with its row:
    the model's own split of the word (not normalized again), as a query's text gets.
    `tokenizer` must neither pad nor truncate (as the static encoder's)."""
    if tokenizer.padding is not None or tokenizer.truncation is not None:
        raise ValueError("word rows need a tokenizer that neither pads nor truncates")
    frame = _row(table, tokenizer.encode("").ids)
    if frame is None:
        raise ValueError("the special tokens' rows overflow an int16 row")
    rows = {FRAME: frame}
    for word in words:
        row = _row(table, [token.id for token in tokenizer.model.tokenize(word)])
        if row is not None:  # a word whose sum an int16 cannot hold is split by its pieces
            rows[word] = row
    return rows


def _row(table: TokenTable, ids: list[int]) -> WordRow | None:
    """The row of tokens `ids`; None when its sum overflows an int16."""
    held = table.rows_for(ids)
    if not len(held):
        return WordRow(tokens=len(ids), row=None)
    total = np.asarray(held, dtype=np.int64).sum(axis=0)
    if np.abs(total).max(initial=0) > np.iinfo(np.int16).max:
        return None
    return WordRow(tokens=len(ids), row=total.astype("<i2"))


def word_shards(rows: Mapping[str, WordRow]) -> list[bytes]:
    """The keyed list's shards (JSON bodies), about one word a shard."""
    count = max(len(rows), 1)
    shards: list[dict[str, list]] = [{} for _ in range(count)]
    for word in sorted(rows):
        entry = rows[word]
        value: list = [entry.tokens]
        if entry.row is not None:
            value.append(base64.b64encode(entry.row.astype("<i2").tobytes()).decode("ascii"))
        shards[bucket_of(word, count)][word] = value
    return [json_bytes(shard) for shard in shards]


def parse_word_shard(data: object, dim: int, name: str) -> dict[str, WordRow]:
    """A word rows shard's parsed JSON as word -> WordRow; ValueError when malformed."""
    if not isinstance(data, dict):
        raise ValueError(f"{name} is not a word rows shard")
    out = {}
    for word, value in data.items():
        if not (isinstance(value, list) and len(value) in (1, 2) and isinstance(value[0], int)
                and not isinstance(value[0], bool) and value[0] >= 0):
            raise ValueError(f"{name} holds a malformed row for {word!r}")
        row = None
        if len(value) == 2:
            raw = base64.b64decode(value[1], validate=True) if isinstance(value[1], str) else b""
            if len(raw) != 2 * dim:
                raise ValueError(f"{name} holds a row for {word!r} that is not {dim} int16")
            row = np.frombuffer(raw, dtype="<i2").astype(np.int64)
        out[word] = WordRow(tokens=value[0], row=row)
    return out
