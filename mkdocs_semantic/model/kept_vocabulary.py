"""The token ids whose embeddings a site's browser model keeps: every id the site's own
texts tokenize to, the tokenizer's special tokens, and the vocabulary's first ids (a
core that common words fall in). A query token outside them is dropped, as the static
encoder drops a token its table lacks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from pathlib import Path

import numpy as np

CORE_IDS = 8000
"""Ids below this are kept whatever the site's text (docs/browser.md has the measurement
behind the choice)."""

_BATCH = 256


def kept_token_ids(tokenizer_path: Path, texts: Iterable[str], *,
                   core: int = CORE_IDS) -> np.ndarray:
    """Ascending int32 ids: those `texts` tokenize to, the special tokens, and 0..core-1
    (capped at the vocabulary's size)."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    size = tokenizer.get_vocab_size(with_added_tokens=True)
    seen = np.zeros(size, dtype=bool)
    seen[:min(core, size)] = True
    for token in tokenizer.get_added_tokens_decoder().values():
        token_id = tokenizer.token_to_id(token.content)
        if token_id is not None:
            seen[token_id] = True
    stream = iter(texts)
    while batch := list(islice(stream, _BATCH)):
        for encoding in tokenizer.encode_batch(batch):
            seen[np.asarray(encoding.ids, dtype=np.int64)] = True
    return np.flatnonzero(seen).astype(np.int32)


def kept_only(ids: Sequence[int], kept: np.ndarray) -> list[int]:
    """`ids` without those outside `kept` (ascending), in order."""
    array = np.asarray(ids, dtype=np.int64)
    if not len(array):
        return []
    where = np.searchsorted(kept, array).clip(0, len(kept) - 1)
    return array[kept[where] == array].tolist()
