"""Names typed with capitals: the forms sections write with a capital letter (which the
keyword index keeps), and the words a query that names something types so (which ask
for them: LexicalIndex.scores)."""

from __future__ import annotations

from ..constants import NAME_WORDS
from .tokens import SEPARATORS, TOKEN


def capitalized(text: str) -> bool:
    """Whether `text` holds a letter that lowercasing changes."""
    return text != text.lower()


def written_forms(text: str) -> set[str]:
    """The forms `text` writes with a capital letter: each such token, and each such
    piece of it between separators (`fastapi.HTTPException`: itself and `HTTPException`)."""
    forms: set[str] = set()
    for match in TOKEN.finditer(text):
        raw = match.group()
        forms.update(form for form in (raw, *SEPARATORS.split(raw))
                     if form and capitalized(form))
    return forms


def cased_words(query: str) -> list[str]:
    """The words a query that names something types with deliberate capitals: in a
    query of at most NAME_WORDS tokens, those with a capital after their first letter
    (`RETURNING`, `HTTPException`, `cProfile`), or the one token of a one-token query
    with any capital (`Depends`). Distinct, in order (js/src/text/cased-words.js)."""
    tokens = [match.group() for match in TOKEN.finditer(query)]
    if len(tokens) == 1:
        return [tokens[0]] if capitalized(tokens[0]) else []
    if len(tokens) > NAME_WORDS:
        return []
    return list(dict.fromkeys(t for t in tokens if capitalized(t[1:])))
