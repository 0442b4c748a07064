"""The short texts around the query table: what its fit trains on beside the chunks
(headings, sentences, query-shaped spans) and the phrases the fidelity check holds out."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ...chunk import Chunk, context_line

# After . ! ? : ; and a space, or after a CJK full stop (no space follows one).
SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+|(?<=[\u3002\uff01\uff1f])\s*")
SPAN_WORDS = (3, 10)
SPAN_SEED = 1
"""Not the held-out phrases' seed, so that the two are drawn apart."""
HELD_OUT_PHRASES = 200
HELD_OUT_WORDS = (3, 8)


def headings_of(chunks: Sequence[Chunk]) -> list[str]:
    """Each chunk's page title and heading path as one line ("Page > Section")."""
    return sorted({line for c in chunks if (line := context_line(c.title, c.path))})


def sentences_of(chunks: Sequence[Chunk]) -> list[str]:
    """Distinct sentences of 4 to 40 words."""
    out = set()
    for chunk in chunks:
        for line in chunk.text.split("\n"):
            for sentence in SENTENCE_END.split(line):
                if 4 <= len(sentence.split()) <= 40:
                    out.add(sentence.strip())
    return sorted(out)


def sentence_spans(sentences: Sequence[str], count: int, *, words: tuple[int, int],
                   seed: int) -> list[str]:
    """Up to `count` distinct runs of `words` (least, most) words cut at seeded places
    from the sentences, each shorter than its sentence."""
    long_enough = [s.split() for s in sentences if len(s.split()) > words[0]]
    if not long_enough or count <= 0:
        return []
    rng = np.random.default_rng(seed)
    found: dict[str, None] = {}
    for _ in range(count * 4):
        picked = long_enough[int(rng.integers(len(long_enough)))]
        size = int(rng.integers(words[0], min(words[1], len(picked) - 1) + 1))
        start = int(rng.integers(len(picked) - size + 1))
        found[" ".join(picked[start:start + size])] = None
        if len(found) == count:
            break
    return list(found)


def training_spans(chunks: Sequence[Chunk], count: int) -> list[str]:
    """Query-shaped training texts: spans of 3 to 10 words of the site's sentences,
    none of them a phrase the fidelity check holds out."""
    sentences = sentences_of(chunks)
    held_out = set(held_out_phrases(sentences))
    spans = sentence_spans(sentences, count + len(held_out), words=SPAN_WORDS, seed=SPAN_SEED)
    return [s for s in spans if s not in held_out][:count]


def spread_sample(items: list[str], n: int) -> list[str]:
    """Up to n items spread evenly over the list (deterministic)."""
    if len(items) <= n:
        return list(items)
    at = np.unique(np.linspace(0, len(items) - 1, n).round().astype(int))
    return [items[i] for i in at]


def held_out_phrases(sentences: Sequence[str], count: int = HELD_OUT_PHRASES,
                     seed: int = 0) -> list[str]:
    """Up to `count` distinct spans of 3 to 8 words, each shorter than its sentence,
    that no fit trains on."""
    return sentence_spans(sentences, count, words=HELD_OUT_WORDS, seed=seed)
