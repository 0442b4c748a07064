"""The excerpt a result shows: a window of the chunk's excerpt text centred on the
query's words, as the browser client shows it (js/src/text/excerpt.js, js/src/text/highlight.js).

Every reader (CLI, service, MCP, the browser) shows the same window for the same
chunk and query; tests/fixtures/parity holds the cases both languages must agree on.
Positions count characters (code points), where JavaScript counts UTF-16 units: the two
agree on text without characters beyond U+FFFF.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..constants import CODE_LINES, EXCERPT_CHARS

ELLIPSIS = "…"

# JavaScript's \s, so that both languages split and trim at the same characters.
_JS_SPACE_CHARS = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                   "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
_SPACE = f"[{_JS_SPACE_CHARS}]"
_SPACES = re.compile(f"{_SPACE}+")
_WORD = re.compile(r"[^\W_]+")  # letters and digits: JavaScript's [\p{L}\p{N}]+
# Where a sentence may start: after . ! ? : (and any closing quote or bracket) and a
# space, after a line break, or after a CJK full stop.
_SENTENCE_START = re.compile(
    f"(?:[.!?:][\"')\\]\u201d\u2019]*{_SPACE}+|\\n+|[\u3002\uff01\uff1f]{_SPACE}*)")
_CODE_BREAK = re.compile(f"{_SPACE}*\\n{_SPACE}*")
_STOPWORDS = frozenset(
    "a an and are as at be by can do does for from has have how i if in into is it its me my "
    "of on or our so that the their them then there these this to up was we what when where "
    "which who why will with you your".split())
_SUFFIXES = ("ing", "ies", "es", "ed", "s", "e")


@dataclass(frozen=True)
class Part:
    """A piece of an excerpt: prose, or code with its line breaks."""

    text: str
    code: bool = False


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude English stem, enough to match "browsers" with "browser" (remembered: a
    search stems every word of each result's excerpt)."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and _js_length(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def query_terms(query: str) -> list[str]:
    """The query's words worth marking: lower case, no stop words, stemmed."""
    words = (m.group(0) for m in _WORD.finditer(query.lower()))
    return list(dict.fromkeys(stem(w) for w in words
                              if _js_length(w) > 1 and w not in _STOPWORDS))


def parts_of(stored: Sequence[str]) -> list[Part]:
    """A bundle's excerpt (prose and code alternating, prose first) as parts, empty
    ones dropped."""
    return [Part(text, i % 2 == 1) for i, text in enumerate(stored) if text]


def window_text(parts: Sequence[Part]) -> str:
    """Parts as one line of plain text (code lines joined by spaces)."""
    text = " ".join(_CODE_BREAK.sub(" ", p.text) if p.code else p.text for p in parts)
    return re.sub(" {2,}", " ", text).strip(_JS_SPACE_CHARS)


def excerpt_window(parts: Sequence[Part], terms: Sequence[str],
                   limit: int = EXCERPT_CHARS) -> list[Part]:
    """At most `limit` characters of `parts`: the window that holds most of `terms`, or
    the beginning when no term is in the text or the first ones are near its start.
    A window starts at a sentence where one starts shortly before the words, else at a
    word, never inside one; "…" marks text left out."""
    flat = ""
    spans: list[tuple[int, int, bool]] = []
    for part in parts:
        if flat:
            flat += " "
        spans.append((len(flat), len(flat) + len(part.text), part.code))
        flat += part.text
    if len(flat) <= limit and _line_limit(flat, spans, 0, len(flat)) == len(flat):
        return _slice(flat, spans, 0, len(flat))
    start = window_start(flat, terms, limit)
    end = min(start + limit, len(flat))
    end = min(end, _line_limit(flat, spans, start, end))
    if end < len(flat):
        space = _last_space(flat, start + limit // 2, end)
        end = space if space > 0 else end
    return _slice(flat, spans, start, end, ELLIPSIS if start > 0 else "",
                  ELLIPSIS if end < len(flat) else "")


def window_start(flat: str, terms: Sequence[str], limit: int = EXCERPT_CHARS) -> int:
    """0, or where the window before the densest cluster of query words starts."""
    found = [(start, next(t for t in terms if stem(word.lower()).startswith(t)))
             for start, word in _matches(flat, terms)]
    if not found:
        return 0
    # The densest window: the most distinct terms, then the most words, then the earliest.
    best_at, best_key = -1, (-1, -1)
    for i, (first_at, _) in enumerate(found):
        inside = [term for at, term in found[i:] if at < first_at + limit * 0.75]
        key = (len(set(inside)), len(inside))
        if key > best_key:
            best_at, best_key = first_at, key
    if best_at < limit * 0.6:
        return 0  # words near the beginning are shown from the beginning
    return _boundary_before(flat, best_at, limit // 3)


def _matches(text: str, terms: Sequence[str]) -> list[tuple[int, str]]:
    """(start, word) of each word whose stem starts with a term."""
    if not terms:
        return []
    found: list[tuple[int, str]] = []
    prefixes = tuple(terms)
    lowered = text.lower()
    if not any(term in lowered for term in prefixes):
        return found  # a matching word starts with a term, so holds it
    for m in _WORD.finditer(text):
        word = m.group(0).lower()
        # a stem is a prefix of its word: only a word starting with a term can match
        if word.startswith(prefixes) and stem(word).startswith(prefixes):
            found.append((m.start(), m.group(0)))
    return found


def _line_limit(flat: str, spans: list[tuple[int, int, bool]], start: int, end: int) -> int:
    """Where the window must end to show at most CODE_LINES lines of code."""
    breaks = 0
    for frm, to, code in spans:
        if not code or to <= start or frm >= end:
            continue
        for i in range(max(frm, start), min(to, end)):
            if flat[i] == "\n":
                breaks += 1
                if breaks == CODE_LINES:
                    return i
    return end


def _boundary_before(flat: str, at: int, reach: int) -> int:
    """The start of the sentence holding `at` when it starts within `reach` before it,
    else the start of the word at `at`."""
    sentence = max((m.end() for m in _SENTENCE_START.finditer(flat[:at])), default=-1)
    if sentence >= at - reach and sentence >= 0:
        return sentence
    return max(flat.rfind(" ", 0, at), flat.rfind("\n", 0, at)) + 1


def _last_space(flat: str, frm: int, end: int) -> int:
    if end >= len(flat) or flat[end] in _JS_SPACE_CHARS:
        return end  # a cut between two words needs no search
    for i in range(end - 1, frm - 1, -1):
        if flat[i] in _JS_SPACE_CHARS:
            return i
    return -1


def _slice(flat: str, spans: list[tuple[int, int, bool]], start: int, end: int,
           lead: str = "", tail: str = "") -> list[Part]:
    """`flat[start:end]` as parts again, with `lead` and `tail` as prose around it."""
    out: list[Part] = []

    def push(text: str, code: bool) -> None:
        if not text:
            return
        if out and out[-1].code == code:
            out[-1] = Part(out[-1].text + text, code)
        else:
            out.append(Part(text, code))

    at = start
    for frm, to, code in spans:
        if to <= at or frm >= end:
            continue
        if frm > at:
            push(flat[at:frm], False)  # the space between two parts
        at = min(to, end)
        push(flat[max(frm, start):at], code)
    if at < end:
        push(flat[at:end], False)
    parts = [p if p.code else Part(_SPACES.sub(" ", p.text)) for p in out]
    if parts and not parts[0].code:
        parts[0] = Part(parts[0].text.lstrip(_JS_SPACE_CHARS))
    if parts and not parts[-1].code:
        parts[-1] = Part(parts[-1].text.rstrip(_JS_SPACE_CHARS))
    parts = [p for p in parts if p.text]
    if lead:
        parts.insert(0, Part(lead))
    if tail:
        parts.append(Part(tail))
    merged: list[Part] = []
    for part in parts:  # neighbouring prose becomes one part
        if merged and not merged[-1].code and not part.code:
            merged[-1] = Part(merged[-1].text + part.text)
        else:
            merged.append(part)
    return merged


def _js_length(text: str) -> int:
    """Length in UTF-16 units, as JavaScript counts it."""
    return len(text.encode("utf-16-le")) // 2
