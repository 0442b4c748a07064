"""The site's words with how many chunks use each: what readers' slips are corrected to.

A vocabulary word is a lowercased token of a chunk's title, headings or body (the
keyword analyzer's tokens) made of letters only and not a CamelCase identifier, at
least `MIN_WORD` and at most `MAX_WORD` of them, none outside the Basic Multilingual
Plane (so that Python's and JavaScript's string orders agree), and not a stop word.
Each word counts the chunks holding it.

The bundle stores the words sorted, cut into shards of about `VOCABULARY_SHARD_BYTES`
of JSON: `{"words": [...], "counts": [...]}`, named in a shard list by first word. A
reader fetches only the shards a word's candidates can fall in (search/spelling.py).
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import pairwise

from ..constants import MAX_WORD, MIN_WORD
from .lexical import STOPWORDS, TOKEN, LexicalFields, split_parts
from .names import group_by_size
from .shard_lists import ShardReader

VOCABULARY_SHARD_BYTES = 8 << 10
TOP_KEY = "\uffff"
"""Above every vocabulary word: a prefix's words run from it to prefix + TOP_KEY."""


def vocabulary_word(token: str) -> str | None:
    """The vocabulary form of a token (lowercased), or None when it is not a word: a
    CamelCase identifier (`HTTPException`) is a name, searched by its parts and whole."""
    word = token.lower()
    if not (MIN_WORD <= len(word) <= MAX_WORD and word.isalpha()
            and max(map(ord, word)) < 0x10000 and word not in STOPWORDS
            and len(split_parts(token)) == 1):
        return None
    return word


def build_vocabulary(documents: Iterable[LexicalFields]) -> dict[str, int]:
    """Word -> number of documents (chunks) holding it, words sorted."""
    counts: Counter[str] = Counter()
    for doc in documents:
        held = set()
        for text in (doc.title, doc.heading, doc.body):
            for match in TOKEN.finditer(text):
                word = vocabulary_word(match.group())
                if word is not None:
                    held.add(word)
        counts.update(held)
    return {word: counts[word] for word in sorted(counts)}


def vocabulary_shards(words: dict[str, int], *,
                      target_bytes: int = VOCABULARY_SHARD_BYTES) -> list[tuple[str, dict]]:
    """(first word, shard) pairs, words ascending, each shard about `target_bytes`."""
    ordered = sorted(words)
    if not ordered:
        return []
    sizes = [len(w) + 4 + len(str(words[w])) for w in ordered]
    cuts = [*group_by_size(sizes, target_bytes), len(ordered)]
    return [(ordered[a], {"words": ordered[a:b], "counts": [words[w] for w in ordered[a:b]]})
            for a, b in pairwise(cuts)]


class Vocabulary:
    """A bundle's vocabulary read by shard: each shard when a range first needs it."""

    def __init__(self, shards: ShardReader) -> None:
        self.shards = shards

    def between(self, low: str, high: str) -> list[tuple[str, int]]:
        """(word, count) of every word w with low <= w < high, ascending."""
        first = max(self.shards.position(low), 0)
        last = self.shards.position(high)
        numbers = range(first, last + 1)
        self.shards.prefetch(self.shards.firsts[n] for n in numbers)
        out: list[tuple[str, int]] = []
        for number in numbers:
            words, counts = checked_shard(self.shards.shard(number))
            at = bisect.bisect_left(words, low)
            end = bisect.bisect_left(words, high)
            out.extend(zip(words[at:end], counts[at:end]))
        return out

    def starting(self, prefixes: Sequence[str]) -> list[tuple[str, int]]:
        """(word, count) of the words that start with one of `prefixes`."""
        out: list[tuple[str, int]] = []
        for prefix in dict.fromkeys(prefixes):
            out.extend(self.between(prefix, prefix + TOP_KEY))
        return out


def checked_shard(shard: object) -> tuple[list[str], list[int]]:
    """A vocabulary shard's words and counts (ValueError when malformed)."""
    if not isinstance(shard, dict):
        raise ValueError("a vocabulary shard is not an object")
    words, counts = shard.get("words"), shard.get("counts")
    if not (isinstance(words, list) and isinstance(counts, list) and len(words) == len(counts)
            and all(isinstance(w, str) for w in words)
            and all(isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in counts)):
        raise ValueError("a vocabulary shard does not list words with their counts")
    if any(a >= b for a, b in pairwise(words)):
        raise ValueError("a vocabulary shard's words are not in order")
    return words, counts
