"""What a reader meant: slipped words corrected, a half-typed last word completed.

The spec every reader implements (js/src/engine/spelling.js). A query word is looked at
only when it is a vocabulary word or name (bundle/vocabulary.py: letters, 3 to 32 of
them, not a stop word; a name has parts) that the site does not use: one of its keyword
terms is not in the index. Words the
site uses are never changed, so a query whose words are all the site's is searched
exactly as typed.

1. Completion: while the reader types (`typing`, and nothing after the last word), an
   unknown last word is a prefix: it becomes the site's word or code name (bundle/
   vocabulary.py) whose key starts with it (lowercased) and is held by the most chunks
   (then the shorter, then the first in order), spelled as the site spells it most; the
   case typed does not choose it (a capital is as often a habit, a phone's or SQL's as
   a name's: docs/decisions/half-typed-words.md). A half-typed code name (`HTTPExc`) is
   completed too; a name is never corrected. So is a last word the keyword index holds
   only as the stem of longer words (`epol`, which `epoll` stems to): no site word or
   name is spelled so, and one starts with it.
2. Correction: an unknown word of `MIN_CORRECTED` letters or more, unless the model's
   tokenizer holds it whole (a real word the site happens not to use keeps its meaning
   for the vector signal: "teams", "chart"), becomes the site's word within
   `max_edits` of it (optimal string alignment distance: an insertion,
   deletion, substitution or swap of two neighbouring letters each count one), the
   nearest, then the one held by the most chunks, then the first in order. Candidates
   start with the word's first letter, or with its second then first (a swap of the
   first two), and are within `max_edits` letters of its length, so a reader fetches
   only the spelling shards that hold them (bundle/vocabulary.py); the stop words that
   start so are candidates too, held by more chunks than any site word (`bfeore`
   becomes `before`: the keyword signal drops it, the static encoder sums it).
3. Parts of names: a code name the site does not use (`daemon-reoad`,
   `max-mouunt-counts`) has each part between its separators corrected as a word is
   (same length, tokenizer and site checks), the separators kept.
4. A name being typed: while the reader types, a query that ends in a code name's
   separators (`. _ : -`) right after its last word (`daemon-`) is typing a name: the
   word and the separators become the site's name that starts with them as rule 1
   picks it, even when the site uses the word. Without such a name, rules 1 to 3 look
   at the word as usual.
5. A flag being typed: while the reader types, a last word written right after `--`
   (`--wor`) becomes the site's long flag (bundle/vocabulary.py) that starts with it as
   rule 1 picks it, even when the site uses the word, unless the site writes the word
   itself as a flag. Without such a flag, rules 1 to 4 look at the word as usual.

Both signals then search the changed text: its keyword terms and the tokens the static
encoder sums.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from rapidfuzz.distance import OSA
from rapidfuzz.process import extract_iter

from ..bundle.lexical import STOPWORDS
from ..bundle.tokens import TOKEN
from ..bundle.vocabulary import Entry, after_long_dashes, identifier_key, vocabulary_word
from ..constants import LONG_WORD, MIN_CORRECTED

PARTS = re.compile(r"([._:\-]+)")
"""A code name's separators, kept by `split` between its parts."""
TRAILING_SEPARATORS = re.compile(r"[._:\-]+$")
"""Separators that end a query (rule 4)."""


class WordSource(Protocol):
    """A site's vocabulary as the reader reads it (bundle.vocabulary.Vocabulary)."""

    def starting(self, prefixes: Sequence[str]) -> list[Entry]:
        """The entries whose key starts with one of `prefixes`."""
        ...

    def correctable(self, word: str, limit: int) -> list[Entry]:
        """The words `word` may be corrected to within `limit` edits: those near its
        length that start with its first letter, or its second then first."""
        ...


@dataclass(frozen=True)
class Change:
    """One word the search used instead of what was typed."""

    typed: str
    used: str
    kind: str
    """`corrected` or `completed`."""


@dataclass(frozen=True)
class Reading:
    """The query as typed and as searched."""

    typed: str
    text: str
    changes: tuple[Change, ...] = ()


def max_edits(word: str) -> int:
    return 1 if len(word) < LONG_WORD else 2


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance of `a` and `b`, or `limit + 1` when above it."""
    return int(OSA.distance(a, b, score_cutoff=limit))


def correction(word: str, candidates: Sequence[Entry]) -> str | None:
    """The site word `word` was most likely meant as (rule 2), or None."""
    words = [entry for entry in candidates if entry.is_word]
    best: tuple[int, int, str] | None = None
    for _, distance, at in extract_iter(word, [entry.key for entry in words],
                                        scorer=OSA.distance, score_cutoff=max_edits(word)):
        entry = words[at]
        key = (int(distance), -entry.count, entry.key)
        if best is None or key < best:
            best = key
    return None if best is None else best[2]


def completion(prefix: str, candidates: Sequence[Entry]) -> str | None:
    """What a half-typed `prefix` (lowercased) most likely becomes (rule 1), spelled as
    the site spells it, or None."""
    best: tuple[int, int, str] | None = None
    spelled = ""
    for entry in candidates:
        if len(entry.key) > len(prefix) and entry.key.startswith(prefix):
            key = (-entry.count, len(entry.key), entry.key)
            if best is None or key < best:
                best, spelled = key, entry.form
    return None if best is None else spelled


def correction_prefixes(word: str) -> list[str]:
    """Where a word's corrections start: its first letter, its second then first."""
    return [word[0], word[1] + word[0]]


STOP_WORD_COUNT = 1 << 30
"""What a stop word counts as held by: more chunks than any site word."""
STOP_ENTRIES = tuple(Entry(w, STOP_WORD_COUNT, w) for w in sorted(STOPWORDS))
"""The stop words as correction candidates, made once."""


def correction_candidates(word: str, words: WordSource) -> list[Entry]:
    """The entries `word` may be corrected to: the site's words near its length that
    start where its corrections start, and the stop words that do (`bfeore`: `before`),
    which count as held by the most chunks."""
    prefixes = tuple(correction_prefixes(word))
    stop = [entry for entry in STOP_ENTRIES if entry.key.startswith(prefixes)]
    return [*words.correctable(word, max_edits(word)), *stop]


def corrected_parts(token: str, *, known: Callable[[list[str]], list[bool]],
                    words: WordSource, model_word: Callable[[str], bool]) -> str | None:
    """A code name with its slipped parts corrected (rule 3), or None: each part between
    separators (`daemon-reoad`: `daemon`, `reoad`) that is a word of `MIN_CORRECTED`
    letters or more, that the site does not use and the model's tokenizer does not hold
    whole, is corrected as a word is."""
    pieces = PARTS.split(token)  # parts at even places, separators between them
    slipped = [(i, word) for i in range(0, len(pieces), 2)
               if (word := vocabulary_word(pieces[i])) is not None
               and len(word) >= MIN_CORRECTED and not model_word(word)]
    held = known([pieces[i] for i, _ in slipped]) if slipped else []
    changed = False
    for (i, word), is_known in zip(slipped, held):
        if is_known:
            continue
        used = correction(word, correction_candidates(word, words))
        if used is not None:
            pieces[i], changed = used, True
    return "".join(pieces) if changed else None


def typing_name(query: str, last: re.Match, words: WordSource
                ) -> tuple[int, int, Change] | None:
    """Rule 4: the change that completes the name a query ends in the middle of (its last
    word `last`, then separators), or None."""
    tail = TRAILING_SEPARATORS.search(query)
    if tail is None or tail.start() != last.end():
        return None
    prefix = (last.group() + tail.group()).lower()
    used = completion(prefix, words.starting([prefix]))
    if used is None:
        return None
    return last.start(), len(query), Change(query[last.start():], used, "completed")


def typing_flag(query: str, last: tuple[re.Match, str | None, str | None],
                words: WordSource) -> tuple[int, int, Change] | None:
    """Rule 5: the change that completes the long flag a query ends in (its last word
    `last`, written right after `--`), or None."""
    match, word, name = last
    if match.end() != len(query) or not after_long_dashes(query, match.start()):
        return None
    return _completed(last, [entry for entry in words.starting([word or name or ""])
                             if entry.flag])


def stem_completion(last: tuple[re.Match, str | None, str | None], words: WordSource
                    ) -> tuple[int, int, Change] | None:
    """Rule 1 for a last word the site uses only as a stem (`last`: its match, word and
    name key): its completion, when no site word or name is spelled as it is."""
    _, word, name = last
    return _completed(last, words.starting([word or name or ""]))


def _completed(last: tuple[re.Match, str | None, str | None], entries: Sequence[Entry]
               ) -> tuple[int, int, Change] | None:
    """The change that completes `last` to one of `entries` (rule 1's pick), or None
    when one of them is spelled as it is."""
    match, word, name = last
    key = word or name or ""
    if any(entry.key == key for entry in entries):
        return None
    used = completion(key, entries)
    if used is None:
        return None
    return match.start(), match.end(), Change(match.group(), used, "completed")


def read_query(query: str, *, known: Callable[[list[str]], list[bool]],
               words: WordSource | None, typing: bool = False,
               model_word: Callable[[str], bool] = lambda word: False) -> Reading:
    """The query as searched: its unknown words completed or corrected (see above).
    `known(tokens)`: for each token, whether the site's keyword index has every term of
    it; `model_word(word)`: whether the model's tokenizer holds the word whole."""
    if words is None:
        return Reading(query, query)
    found = []
    for match in TOKEN.finditer(query):
        word = vocabulary_word(match.group())
        name = identifier_key(match.group()) if word is None else None
        if word is not None or name is not None:
            found.append((match, word, name))
    if not found:
        return Reading(query, query)
    held = known([m.group() for m, _, _ in found])
    changes: list[tuple[int, int, Change]] = []
    last_change = typing_flag(query, found[-1], words) if typing else None
    if last_change is None and typing:
        last_change = typing_name(query, found[-1][0], words)
    if last_change is None and typing and held[-1] and found[-1][0].end() == len(query):
        last_change = stem_completion(found[-1], words)
    if last_change is not None:
        found, held = found[:-1], held[:-1]
    for (match, word, name), is_known in zip(found, held):
        if is_known:
            continue
        used, kind = None, ""
        if typing and match.end() == len(query):
            prefix = word or name or ""
            used, kind = completion(prefix, words.starting([prefix])), "completed"
        if used is None and word is not None and len(word) >= MIN_CORRECTED \
                and not model_word(word):
            used, kind = correction(word, correction_candidates(word, words)), "corrected"
        if used is None and name is not None:
            used, kind = corrected_parts(match.group(), known=known, words=words,
                                         model_word=model_word), "corrected"
        if used is not None:
            changes.append((match.start(), match.end(), Change(match.group(), used, kind)))
    if last_change is not None:
        changes.append(last_change)
    text = query
    for start, end, change in reversed(changes):
        text = text[:start] + change.used + text[end:]
    return Reading(query, text, tuple(c for _, _, c in changes))
