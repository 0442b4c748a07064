"""The tokenizer's vocabulary cut into shards a browser fetches by need.

A WordPiece tokenizer splits each word greedily: the longest piece the word starts
with, then the longest continuation piece (`##` and the text) at each later position.
So a word only ever looks up pieces that start as it starts, and continuation pieces
that start with one of its later characters. A piece is keyed by its first two
characters, a continuation piece by `##` and its first (`piece_key`: `li` for `lifes`,
`##p` for `##pan`); the pieces are cut into shards at key boundaries only, so one shard
holds every piece of a key, and a reader fetches the shards of its query's keys (a
word's first character, its first two, and `##` with each later one) and tokenizes
exactly as with the whole vocabulary.

A shard is `{"pieces": [...], "ids": [...]}`: the pieces in id order, the ids as the
first id then the gaps between ids. The tokenizer's other settings (normalizer,
pre-tokenizer, post-processor, special tokens) go in the catalog as `config`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from itertools import accumulate, pairwise
from pathlib import Path

from .names import group_by_size

PIECE_SHARD_BYTES = 8 << 10


@dataclass(frozen=True)
class WordPieceShards:
    """A WordPiece tokenizer as the catalog's `config` and (first key, shard) pairs."""

    config: dict
    shards: list[tuple[str, dict]]


def piece_key(piece: str, prefix: str) -> str:
    """The key a word looks a piece up by: its first two characters (`li` for `lifes`),
    or `prefix` and its first character after it for a continuation piece (`##p`)."""
    if prefix and piece.startswith(prefix) and len(piece) > len(prefix):
        return prefix + piece[len(prefix)]
    return piece[:2]


def wordpiece_shards(tokenizer_path: Path, *,
                     target_bytes: int = PIECE_SHARD_BYTES) -> WordPieceShards | None:
    """The tokenizer's vocabulary in shards of about `target_bytes`, or None when it is
    not a WordPiece tokenizer (the reader then fetches the tokenizer whole)."""
    data = json.loads(tokenizer_path.read_text(encoding="utf-8"))
    model = data.get("model") or {}
    vocab = model.get("vocab")
    if model.get("type") != "WordPiece" or not isinstance(vocab, dict) or not vocab:
        return None
    prefix = model.get("continuing_subword_prefix") or ""
    by_key: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for piece, token_id in vocab.items():
        if piece:
            by_key[piece_key(piece, prefix)].append((token_id, piece))
    keys = sorted(by_key)  # by code point, as every reader compares keys
    sizes = [sum(len(p.encode("utf-8")) + 10 for _, p in by_key[k]) for k in keys]
    cuts = [*group_by_size(sizes, target_bytes), len(keys)]
    shards = []
    for a, b in pairwise(cuts):
        pieces = sorted(p for k in keys[a:b] for p in by_key[k])
        ids = [i for i, _ in pieces]
        shards.append((keys[a], {"pieces": [p for _, p in pieces],
                                 "ids": ids[:1] + [y - x for x, y in pairwise(ids)]}))
    config = {k: v for k, v in data.items() if k not in ("model", "truncation", "padding")}
    config["model"] = {k: v for k, v in model.items() if k != "vocab"}
    return WordPieceShards(config=config, shards=shards)


def checked_piece_shard(shard: object) -> dict[str, int]:
    """A piece shard's parsed JSON as piece -> id (ValueError when malformed)."""
    if not isinstance(shard, dict):
        raise ValueError("a word piece shard is not an object")
    pieces, gaps = shard.get("pieces"), shard.get("ids")
    if not (isinstance(pieces, list) and isinstance(gaps, list) and len(pieces) == len(gaps)
            and all(isinstance(p, str) and p for p in pieces)
            and all(isinstance(g, int) and not isinstance(g, bool) for g in gaps)
            and all(g > 0 for g in gaps[1:]) and (not gaps or gaps[0] >= 0)):
        raise ValueError("a word piece shard does not list pieces with ascending ids")
    return dict(zip(pieces, accumulate(gaps)))
