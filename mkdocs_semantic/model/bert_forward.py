"""A BERT encoder's forward pass over one sequence, in numpy: the maths the browser's
forward pass (js/src/engine/bert.js) runs, held here to onnxruntime's answers when a
build writes the browser's weights."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

import numpy as np

from .bert_weights import BertWeights, NotBert
from .spec import ModelSpec

PROBES = ("how do I run code on startup",
          "Lifespan events: run code before the application starts receiving requests.",
          "x")
"""Texts the forward pass is checked on against onnxruntime."""

AGREEMENT = 1e-4
"""Largest difference allowed between a probe's vector here and onnxruntime's."""


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps) * weight + bias


def erf(x: np.ndarray) -> np.ndarray:
    """erf to within 1.5e-7 (Abramowitz and Stegun 7.1.26), as bert.js computes it."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t
            + 0.254829592) * t
    return np.sign(x) * (1.0 - poly * np.exp(-a * a))


def gelu(x: np.ndarray) -> np.ndarray:
    return (x * 0.5 * (1.0 + erf(x / np.sqrt(2.0)))).astype(np.float32)


def hidden_states(w: BertWeights, ids: Sequence[int], *, heads: int) -> np.ndarray:
    """The last layer's token vectors [tokens, hidden] for `ids` (one sequence, every
    token attended, token type 0)."""
    n = len(ids)
    x = (w["embeddings.word_embeddings.weight"].rows(list(ids))
         + w["embeddings.position_embeddings.weight"].rows(slice(0, n))
         + w["embeddings.token_type_embeddings.weight"].dense()[0])
    x = layer_norm(x, w["embeddings.LayerNorm.weight"].dense(),
                   w["embeddings.LayerNorm.bias"].dense(), w.eps)
    size = w.hidden // heads
    for i in range(w.layers):
        def dense(x: np.ndarray, name: str, i: int = i) -> np.ndarray:
            return x @ w.layer(i, f"{name}.weight") + w.layer(i, f"{name}.bias")

        def split(x: np.ndarray) -> np.ndarray:
            return x.reshape(n, heads, size).transpose(1, 0, 2)

        q = split(dense(x, "attention.self.query"))
        k = split(dense(x, "attention.self.key"))
        v = split(dense(x, "attention.self.value"))
        scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(size))
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        context = (scores / scores.sum(axis=-1, keepdims=True)) @ v
        attended = dense(context.transpose(1, 0, 2).reshape(n, w.hidden),
                         "attention.output.dense")
        x = layer_norm(attended + x, w.layer(i, "attention.output.LayerNorm.weight"),
                       w.layer(i, "attention.output.LayerNorm.bias"), w.eps)
        out = dense(gelu(dense(x, "intermediate.dense")), "output.dense")
        x = layer_norm(out + x, w.layer(i, "output.LayerNorm.weight"),
                       w.layer(i, "output.LayerNorm.bias"), w.eps)
    return x.astype(np.float32)


def sentence_vector(w: BertWeights, ids: Sequence[int], *, heads: int, pooling: str,
                    normalize: bool) -> np.ndarray:
    states = hidden_states(w, ids, heads=heads)
    vector = states[0] if pooling == "cls" else states.mean(axis=0)
    return vector / max(float(np.linalg.norm(vector)), 1e-12) if normalize else vector


def heads_agreeing(w: BertWeights, spec: ModelSpec, model_vectors: np.ndarray,
                   probe_ids: Sequence[Sequence[int]]) -> int:
    """The attention head count with which this forward pass gives `model_vectors`
    (onnxruntime's, one per probe) within AGREEMENT; NotBert if none does."""
    worst = {}
    for heads in (c for c in (12, 16, 8, 6, 4, 24, 32, 1) if w.hidden % c == 0):
        ours = np.stack([sentence_vector(w, ids, heads=heads, pooling=spec.pooling,
                                         normalize=spec.normalize) for ids in probe_ids])
        worst[heads] = float(np.abs(ours - model_vectors).max())
        if worst[heads] <= AGREEMENT:
            return heads
    raise NotBert("the forward pass does not reproduce the model (closest: "
                  f"{min(worst.values()):.3g} apart)")


@lru_cache(maxsize=2)
def checked_weights(spec: ModelSpec) -> tuple[BertWeights, int]:
    """The model's weights and attention head count, once this forward pass is seen to
    give onnxruntime's vectors for PROBES; NotBert if the model is not a BERT encoder
    or the forward pass does not reproduce it. Kept for the process's next builds."""
    from .bert_weights import read_bert
    from .onnx import OnnxEmbedder

    weights = read_bert(spec.model_path)
    embedder = OnnxEmbedder(replace(spec, dim=None))  # its dimension is checked elsewhere
    try:
        probe_ids = [embedder.tokenizer.encode(spec.query_prefix + p).ids for p in PROBES]
        vectors = embedder.embed_queries(list(PROBES))
    finally:
        embedder.release()
    return weights, heads_agreeing(weights, spec, vectors, probe_ids)
