"""The site's words with how many chunks use each: what readers' slips are corrected to.

A vocabulary word is a lowercased token of a chunk's title, headings or body (the
keyword analyzer's tokens) made of letters only and not a CamelCase identifier, at
least `MIN_WORD` and at most `MAX_WORD` of them, none outside the Basic Multilingual
Plane (so that Python's and JavaScript's string orders agree), and not a stop word.
Each word counts the chunks holding it.

Beside the words, the code names (`identifier_key`: `HTTPException`, `root_path`),
keyed lowercased, with their most used spelling: a half-typed name is completed to it.
A key the site writes as a long flag (`--workers`, `--create-home`) is marked: a flag
being typed is completed to one.

The bundle stores the keys sorted, cut into shards of about `VOCABULARY_SHARD_BYTES`
of JSON: `{"words": [...], "counts": [...], "forms": [[i, spelling], ...], "flags":
[i, ...]}` (a spelling for each name whose key is not its spelling; the positions of
the flags, ascending), named in a shard list by first key. A
reader fetches only the shards a word's candidates can fall in (search/spelling.py).

The words alone (what a slip is corrected to) are also kept in spelling order
(`spelling_key`: first letter, length, then the rest), cut the same way into
`{"words": [...], "counts": [...]}` shards: a slip's candidates, a few lengths under
one or two first letters, then come from a few small shards rather than from every key
that starts with the slip's first letter.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import cast

from ..constants import MAX_IDENTIFIER, MAX_WORD, MIN_WORD
from .lexical import STOPWORDS, LexicalFields, split_parts
from .names import group_by_size
from .shard_lists import ShardReader
from .tokens import TOKEN

VOCABULARY_SHARD_BYTES = 8 << 10
SEPARATOR_CHARS = "._:-"
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


def identifier_key(token: str) -> str | None:
    """The vocabulary key of a code name (`HTTPException`, `root_path`, `log-level`:
    parts at CamelCase or . _ : -), lowercased, or None when the token is no such name."""
    key = token.lower()
    if not (MIN_WORD <= len(key) <= MAX_IDENTIFIER and max(map(ord, key)) < 0x10000
            and any(c.isalpha() for c in key)
            and (len(split_parts(token)) > 1 or any(c in SEPARATOR_CHARS for c in key))):
        return None
    return key


@dataclass(frozen=True)
class Entry:
    """One vocabulary entry: its key (lowercased), the chunks holding it, and the text
    to search for it (the key for a word; a name's most used spelling)."""

    key: str
    count: int
    form: str
    flag: bool = False
    """The site writes it as a long flag (`--key`)."""

    @cached_property
    def is_word(self) -> bool:
        """A word (what slips are corrected to), not a code name (worked out once: a
        shard's entries are read by every correction that starts with its letters)."""
        return self.form == self.key and self.key.isalpha()


def build_vocabulary(documents: Iterable[LexicalFields]) -> list[Entry]:
    """The site's words and code names, keys ascending: each with the number of
    documents (chunks) holding it and, for a name, its most used spelling (ties: the
    first in order). A key the site also writes as a plain word counts those uses as
    the lowercase spelling, so that one `authoriZation` among many `authorization`s
    does not make the word a name."""
    counts: Counter[str] = Counter()
    spellings: dict[str, Counter[str]] = {}
    word_uses: Counter[str] = Counter()
    flags: set[str] = set()
    for doc in documents:
        held = set()
        for text in (doc.title, doc.heading, doc.body):
            for match in TOKEN.finditer(text):
                token = match.group()
                word = vocabulary_word(token)
                key = word if word is not None else identifier_key(token)
                if key is None:
                    continue
                held.add(key)
                if after_long_dashes(text, match.start()):
                    flags.add(key)
                if word is not None:
                    word_uses[word] += 1
                else:
                    spellings.setdefault(key, Counter())[token] += 1
        counts.update(held)
    out = []
    for key in sorted(counts):
        spelled = spellings.get(key)
        if spelled and word_uses[key]:
            spelled[key] += word_uses[key]
        form = min(spelled.items(), key=lambda item: (-item[1], item[0]))[0] if spelled else key
        out.append(Entry(key, counts[key], form, key in flags))
    return out


def after_long_dashes(text: str, start: int) -> bool:
    """Whether the token at `start` is written as a long flag: right after `--` that
    follows no letter, digit, `_` or `-` (`--workers`, not `a--b` or `---x`)."""
    return (text[max(start - 2, 0):start] == "--"
            and (start == 2 or not (text[start - 3].isalnum() or text[start - 3] in "_-")))


assert MAX_WORD < 100, "a spelling key holds a word's length in two digits"


def spelling_key(word: str) -> str:
    """Where a word sits in spelling order: its first letter, its length, the rest."""
    return f"{word[0]}{len(word):02d}{word[1:]}"


def spelling_ranges(word: str, limit: int) -> list[tuple[str, str]]:
    """The spelling-order ranges [low, high) holding every word within `limit` edits of
    `word` (lowercased, two letters at least) that starts with its first letter, or
    with its second then first (a swap of the first two)."""
    low, high = max(len(word) - limit, MIN_WORD), min(len(word) + limit, MAX_WORD)
    ranges = [(f"{word[0]}{low:02d}", f"{word[0]}{high:02d}{TOP_KEY}")]
    if word[1] != word[0]:
        ranges += [(f"{word[1]}{n:02d}{word[0]}", f"{word[1]}{n:02d}{word[0]}{TOP_KEY}")
                   for n in range(low, high + 1)]
    return ranges


def spelling_shards(entries: list[Entry], *,
                    target_bytes: int = VOCABULARY_SHARD_BYTES) -> list[tuple[str, dict]]:
    """(first spelling key, shard) pairs of the words among `entries` (not the names),
    in spelling order, each shard about `target_bytes`."""
    words = sorted((e for e in entries if e.is_word), key=lambda e: spelling_key(e.key))
    if not words:
        return []
    cuts = [*group_by_size([len(e.key) + 4 + len(str(e.count)) for e in words],
                           target_bytes), len(words)]
    return [(spelling_key(words[a].key), {"words": [e.key for e in words[a:b]],
                                          "counts": [e.count for e in words[a:b]]})
            for a, b in pairwise(cuts)]


def vocabulary_shards(entries: list[Entry], *,
                      target_bytes: int = VOCABULARY_SHARD_BYTES) -> list[tuple[str, dict]]:
    """(first key, shard) pairs, keys ascending, each shard about `target_bytes`."""
    if not entries:
        return []
    sizes = [len(e.key) + 4 + len(str(e.count)) + (len(e.form) + 6 if e.form != e.key else 0)
             + 4 * e.flag for e in entries]
    cuts = [*group_by_size(sizes, target_bytes), len(entries)]
    return [(entries[a].key, {
        "words": [e.key for e in entries[a:b]],
        "counts": [e.count for e in entries[a:b]],
        "forms": [[i, e.form] for i, e in enumerate(entries[a:b]) if e.form != e.key],
        "flags": [i for i, e in enumerate(entries[a:b]) if e.flag],
    }) for a, b in pairwise(cuts)]


@dataclass(frozen=True)
class VocabularyShard:
    """One checked shard: its entries, and their keys (for bisection)."""

    keys: list[str]
    entries: list[Entry]


class Vocabulary:
    """A bundle's vocabulary read by shard: each shard when a range first needs it.
    `shards` loads each as a `VocabularyShard` (`checked_shard` of its JSON); `spelling`,
    the words in spelling order (`checked_spelling_shard`)."""

    def __init__(self, shards: ShardReader, spelling: ShardReader) -> None:
        self.shards = shards
        self.spelling = spelling

    def between(self, low: str, high: str) -> list[Entry]:
        """The entries whose key k is low <= k < high, ascending."""
        return _within(self.shards, [(low, high)])

    def correctable(self, word: str, limit: int) -> list[Entry]:
        """The site's words that `word` (lowercased) may be corrected to: those within
        `limit` letters of its length that start with its first letter, or with its
        second then first."""
        return _within(self.spelling, spelling_ranges(word, limit))

    def starting(self, prefixes: Sequence[str]) -> list[Entry]:
        """The entries whose key starts with one of `prefixes`."""
        return _within(self.shards, [(p, p + TOP_KEY) for p in dict.fromkeys(prefixes)])


def _within(shards: ShardReader, ranges: Sequence[tuple[str, str]]) -> list[Entry]:
    """The entries of `shards` whose shard key k is low <= k < high for each range in
    turn, each range's in key order; every shard they need is read at once."""
    numbers = [range(max(shards.position(low), 0), shards.position(high) + 1)
               for low, high in ranges]
    shards.prefetch(shards.firsts[n] for held in numbers for n in held)
    out: list[Entry] = []
    for (low, high), held in zip(ranges, numbers):
        for number in held:
            shard = cast(VocabularyShard, shards.shard(number))
            at, end = bisect.bisect_left(shard.keys, low), bisect.bisect_left(shard.keys, high)
            out.extend(shard.entries[at:end])
    return out


def checked_spelling_shard(shard: object) -> VocabularyShard:
    """A spelling shard's parsed JSON, checked (ValueError when malformed): its entries
    keyed by spelling key."""
    if not isinstance(shard, dict):
        raise ValueError("a spelling shard is not an object")
    words, counts = shard.get("words"), shard.get("counts")
    if not (isinstance(words, list) and isinstance(counts, list) and len(words) == len(counts)
            and all(isinstance(w, str) and w.isalpha() for w in words)
            and all(isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in counts)):
        raise ValueError("a spelling shard does not list words with their counts")
    keys = [spelling_key(w) for w in words]
    if any(a >= b for a, b in pairwise(keys)):
        raise ValueError("a spelling shard's words are not in spelling order")
    return VocabularyShard(keys, [Entry(w, c, w) for w, c in zip(words, counts)])


def checked_shard(shard: object) -> VocabularyShard:
    """A vocabulary shard's parsed JSON, checked (ValueError when malformed)."""
    if not isinstance(shard, dict):
        raise ValueError("a vocabulary shard is not an object")
    words, counts, forms = shard.get("words"), shard.get("counts"), shard.get("forms")
    flags = shard.get("flags")
    if not (isinstance(words, list) and isinstance(counts, list) and len(words) == len(counts)
            and isinstance(forms, list) and isinstance(flags, list)
            and all(isinstance(w, str) for w in words)
            and all(isinstance(c, int) and not isinstance(c, bool) and c > 0 for c in counts)):
        raise ValueError("a vocabulary shard does not list words with their counts")
    if any(a >= b for a, b in pairwise(words)):
        raise ValueError("a vocabulary shard's words are not in order")
    spelled = list(words)
    for entry in forms:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)
                and not isinstance(entry[0], bool) and 0 <= entry[0] < len(words)
                and isinstance(entry[1], str)):
            raise ValueError(f"a vocabulary shard's spelling {str(entry)[:60]} names no word")
        spelled[entry[0]] = entry[1]
    if not (all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(words)
                for i in flags) and all(a < b for a, b in pairwise(flags))):
        raise ValueError("a vocabulary shard's flags are not ascending positions of its words")
    flagged = set(flags)
    return VocabularyShard(words, [Entry(w, c, f, i in flagged)
                                   for i, (w, c, f) in enumerate(zip(words, counts, spelled))])
