"""The model as the browser's own forward pass reads it (js/src/engine/bert.js): one
file of the encoder's layers and the word embeddings in blocks by token id, none of
which changes while the model does not. A block may hold only some of its ids (the
client drops a query token without a row, as the static encoder does); builds write
every id.

Layers file: b"SBM1", the header's length (uint32, little-endian), the header (JSON:
`layers`, `heads`, `hidden`, `intermediate`, `eps`, `vocab`, `tensors`: name ->
[dtype "i8"|"f32", shape, offset, scale offset or null]), zeros to a multiple of 4,
then the tensors at their offsets (from there, each a multiple of 4). An int8 tensor's
float32 scale holds one value per row or per column, as its shape says (`scale_shape`).

Word block: the row count n (uint32), n token ids (uint32, ascending), n float32
scales, n rows of `hidden` int8 codes."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass

import numpy as np

from ..constants import BROWSER_MODEL_VERSION
from ..model.bert_weights import BertWeights, Tensor

MAGIC = b"SBM1"
FORMAT_VERSION = BROWSER_MODEL_VERSION
WORD_BLOCK_IDS = 32768
"""Token ids per word block (id // WORD_BLOCK_IDS picks the block): the default model's
30,522 in one file, so that its download takes as few of a browser's six connections
to a host as it can (the keyword files of the query being typed need the others)."""
WORDS = "embeddings.word_embeddings.weight"


@dataclass(frozen=True)
class BrowserModel:
    layers: bytes
    word_blocks: list[tuple[int, bytes]]
    """(first id of the block's range, the block), blocks with no kept id left out."""


def _aligned(n: int) -> int:
    return (n + 3) // 4 * 4


def layers_file(w: BertWeights, *, heads: int, max_tokens: int) -> bytes:
    """Every tensor but the word embeddings; position embeddings cut to `max_tokens`."""
    header: dict = {"layers": w.layers, "heads": heads, "hidden": w.hidden,
                    "intermediate": w.intermediate, "eps": w.eps,
                    "vocab": int(w[WORDS].values.shape[0]), "tensors": {}}
    parts: list[bytes] = []
    offset = 0

    def add(data: bytes) -> int:
        nonlocal offset
        start = offset
        parts.append(data + b"\0" * (_aligned(len(data)) - len(data)))
        offset = _aligned(offset + len(data))
        return start

    for name, tensor in w.tensors.items():
        if name == WORDS:
            continue
        if name == "embeddings.position_embeddings.weight":
            tensor = Tensor(tensor.values[:max_tokens],
                            None if tensor.scale is None else tensor.scale[:max_tokens])
        values = np.ascontiguousarray(tensor.values)
        entry = ["i8" if values.dtype == np.int8 else "f32", list(values.shape),
                 add(values.astype(values.dtype.newbyteorder("<")).tobytes()), None]
        if tensor.scale is not None:
            scale = np.ascontiguousarray(tensor.scale, dtype="<f4")
            entry[3] = add(scale.tobytes())
            entry.append(list(scale.shape))
        header["tensors"][name] = entry
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    start = MAGIC + struct.pack("<I", len(head)) + head
    return start + b"\0" * (_aligned(len(start)) - len(start)) + b"".join(parts)


def word_blocks(w: BertWeights, kept: np.ndarray | None = None) -> list[tuple[int, bytes]]:
    """The word embeddings of `kept` (ascending ids; default every id), in blocks of
    WORD_BLOCK_IDS ids."""
    words = w[WORDS]
    if kept is None:
        kept = np.arange(words.values.shape[0])
    if words.scale is None or words.scale.shape != (words.values.shape[0], 1):
        raise ValueError("the word embeddings are not int8 with one scale per row")
    blocks = []
    for first in range(0, int(words.values.shape[0]), WORD_BLOCK_IDS):
        ids = kept[(kept >= first) & (kept < first + WORD_BLOCK_IDS)].astype("<u4")
        if not len(ids):
            continue
        blocks.append((first, struct.pack("<I", len(ids)) + ids.tobytes()
                       + words.scale[ids, 0].astype("<f4").tobytes()
                       + np.ascontiguousarray(words.values[ids]).tobytes()))
    return blocks


def browser_model(w: BertWeights, kept: np.ndarray | None = None, *, heads: int,
                  max_tokens: int) -> BrowserModel:
    return BrowserModel(layers=layers_file(w, heads=heads, max_tokens=max_tokens),
                        word_blocks=word_blocks(w, kept))
