"""The tokenizer's vocabulary cut into files a browser fetches by need.

A WordPiece tokenizer splits each word greedily: the longest piece the word starts
with, then the longest continuation piece (`##` and the text) at each later position.
So a word only ever looks up pieces that start as it starts, and continuation pieces
that start with one of its later characters. A piece is keyed by its first two
characters, a continuation piece by `##` and its first (`piece_key`: `li` for `lifes`,
`##p` for `##pan`).

The pieces are cut into shards at key boundaries, listed in the catalog by first key:
one shard holds every piece of a key, and a reader that has read them all (in idle time)
tokenizes every text. Keys of the characters `PIECE_KEY_CHARS` (lowercase letters and
digits: nearly every word a reader types) are also in small files, named from the key
and one hash of all such files (`keyed_name`), so that a query reads only its words'
keys, named from the words alone: one file per first character holds every key of one
or two characters that starts with it (`sl` holds `l`, `li`, `la`, ...), one per
character every continuation key (`cp` holds `##p`), and one the ASCII punctuation. A
word thus needs one file for its start (`word_keys`), and a site 75 such files, not one
a pair of characters (docs/decisions/keyed-pieces.md). Every such file is written, an
empty one when no piece has its keys; a word looks its other keys up in the shards.

The catalog also says what the shards come to compressed (`sent`: gzip, as static hosts
send JSON), which a reader's idle-time budget counts.

A file or shard is `{"pieces": [...], "ids": [...]}`: the pieces in id order, the ids as
the first id then the gaps between ids. A keyed file ends with its check
(names.self_check). The tokenizer's other settings (normalizer, pre-tokenizer,
post-processor, special tokens) go in the catalog as `config`.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from itertools import accumulate, pairwise
from pathlib import Path

from ..constants import HASH_CHARS, MAX_PIECE_FILE_BYTES, PIECE_KEY_CHARS, PIECE_PUNCTUATION
from .names import group_by_size, json_bytes

PIECE_SHARD_BYTES = 8 << 10
START_STEM, CONTINUATION_STEM, PUNCTUATION_STEM = "s", "c", "p"


@dataclass(frozen=True)
class WordPieceShards:
    """A WordPiece tokenizer as the catalog's `config`, the keyed files (stem -> shard,
    every stem of `keyed_stems`) and their hash, and the whole vocabulary as (first key,
    shard) pairs."""

    config: dict
    keyed: dict[str, dict]
    keyed_hash: str
    shards: list[tuple[str, dict]]


def piece_key(piece: str, prefix: str) -> str:
    """The key a word looks a piece up by: its first two characters (`li` for `lifes`),
    or `prefix` and its first character after it for a continuation piece (`##p`)."""
    if prefix and piece.startswith(prefix) and len(piece) > len(prefix):
        return prefix + piece[len(prefix)]
    return piece[:2]


def key_stem(key: str, prefix: str) -> str | None:
    """The file stem of a key of `PIECE_KEY_CHARS` (`sl` for `li` and `l`, `cp` for
    `##p`), or `p` for one character of `PIECE_PUNCTUATION` (the pre-tokenizer makes each
    its own word); None for a key of other characters, which only the catalog's shards
    hold."""
    if len(key) == 1 and key in PIECE_PUNCTUATION:
        return PUNCTUATION_STEM
    if prefix and key.startswith(prefix) and len(key) == len(prefix) + 1:
        rest, stem = key[len(prefix):], CONTINUATION_STEM
    else:
        rest, stem = key, START_STEM
    if 1 <= len(rest) <= 2 and all(c in PIECE_KEY_CHARS for c in rest):
        return stem + rest[0]
    return None


def keyed_stems() -> list[str]:
    """Every keyed file's stem, in order."""
    return ([START_STEM + a for a in PIECE_KEY_CHARS]
            + [CONTINUATION_STEM + a for a in PIECE_KEY_CHARS] + [PUNCTUATION_STEM])


def keyed_name(stem: str, digest: str) -> str:
    """The payload name of the keyed file `stem` among keyed files of hash `digest`."""
    return f"pieces/{stem}.{digest}.json"


def word_keys(word: str, prefix: str) -> set[str]:
    """The keys of every piece a (normalized, pre-tokenized) word may look up, as a
    reader of keyed files asks for them: its first two characters (a keyed file holds
    the first alone too, a shard may not), and `prefix` with each later character."""
    keys = {word[:2]}
    if key_stem(word[:2], prefix) is None:
        keys.add(word[:1])
    keys.update(prefix + c for c in word[1:])
    return keys


def _shard(pieces: list[tuple[int, str]]) -> dict:
    pieces = sorted(pieces)
    ids = [i for i, _ in pieces]
    return {"pieces": [p for _, p in pieces], "ids": ids[:1] + [y - x for x, y in pairwise(ids)]}


def wordpiece_shards(tokenizer_path: Path, *,
                     target_bytes: int = PIECE_SHARD_BYTES) -> WordPieceShards | None:
    """The tokenizer's vocabulary as keyed files and shards of about `target_bytes`, or
    None when it is not a WordPiece tokenizer (the reader then fetches it whole)."""
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
    keyed: dict[str, list[tuple[int, str]]] = {stem: [] for stem in keyed_stems()}
    for key, pieces in by_key.items():
        stem = key_stem(key, prefix)
        if stem is None:
            continue
        keyed[stem] += pieces
    files = {stem: _shard(pieces) for stem, pieces in keyed.items()}
    digest = hashlib.sha256(json_bytes(files)).hexdigest()[:HASH_CHARS]
    keys = sorted(by_key)  # by code point, as every reader compares keys
    sizes = [sum(len(p.encode("utf-8")) + 10 for _, p in by_key[k]) for k in keys]
    cuts = [*group_by_size(sizes, target_bytes), len(keys)]
    shards = [(keys[a], _shard([x for k in keys[a:b] for x in by_key[k]]))
              for a, b in pairwise(cuts)]
    config = {k: v for k, v in data.items() if k not in ("model", "truncation", "padding")}
    config["model"] = {k: v for k, v in model.items() if k != "vocab"}
    return WordPieceShards(config=config, keyed=files, keyed_hash=digest, shards=shards)


def keyed_pieces_hash(tokenizer_path: Path) -> str | None:
    """The hash that names the keyed files of this tokenizer's bundle (what a page tells
    the browser, so that it names a first query's files before the catalog), or None
    when it is not a WordPiece tokenizer."""
    pieces = wordpiece_shards(tokenizer_path)
    return pieces.keyed_hash if pieces is not None else None


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


def checked_keyed_list(data: object, source: str) -> list[tuple[str, int]]:
    """The keyed files' list (`[[stem, bytes], ...]`, every stem of `keyed_stems` in
    order) as (stem, bytes) pairs; ValueError when it is not that list."""
    stems = keyed_stems()
    if not (isinstance(data, list) and len(data) == len(stems)
            and all(isinstance(row, list) and len(row) == 2 and row[0] == stem
                    and isinstance(row[1], int) and not isinstance(row[1], bool)
                    and 0 < row[1] <= MAX_PIECE_FILE_BYTES for row, stem in zip(data, stems))):
        raise ValueError(f"{source} does not list every keyed word piece file")
    return [(stem, size) for stem, size in data]
