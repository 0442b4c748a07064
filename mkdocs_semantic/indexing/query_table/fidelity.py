"""How closely the static query table stands in for the model, measured in every build.

The texts are short phrases of the site (spans of 3 to 8 words cut from its sentences at
seeded places), shaped like queries and held out of the fit: the fit trains on whole
chunks, headings and sentences, and a recipe with spans of sentences leaves these out.
For each phrase the static table's vector and the model's are compared directly
(cosine) and by what they find: how many of the ten chunks each ranks first the other
ranks first too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ...bundle.table import TokenTable, summed_rows

TOP = 10
LOW_AGREEMENT = 0.25
"""Below this share of top-10 chunks in common, the build warns and names
`query_encoder: transformer`. Provisional: below every site measured so far
(bench/results/fidelity.md), until sets where the static encoder falls behind the
model calibrate it."""


@dataclass(frozen=True)
class Fidelity:
    """The static table against the model on a site's held-out phrases."""

    phrases: int
    cosine: float
    """Mean cosine between the two query vectors of a phrase."""
    agreement: float
    """Mean share of the model's top-10 chunks that the static vector ranks top-10 too."""

    @property
    def low(self) -> bool:
        return self.agreement < LOW_AGREEMENT

    def line(self) -> str:
        return (f"static encoder against the model on {self.phrases} held-out phrases: "
                f"{self.agreement:.0%} of top-{TOP} chunks in common, cosine {self.cosine:.2f}")

    def to_json(self) -> dict:
        return {key: round(value, 4) if isinstance(value, float) else value
                for key, value in asdict(self).items()}

    @classmethod
    def from_json(cls, data: Any) -> Fidelity | None:
        try:
            return cls(phrases=int(data["phrases"]), cosine=float(data["cosine"]),
                       agreement=float(data["agreement"]))
        except (TypeError, KeyError, ValueError):
            return None


def measure(table: TokenTable, phrase_ids: Sequence[Sequence[int]], model: np.ndarray,
            chunks: np.ndarray) -> Fidelity | None:
    """The fidelity of `table` on phrases given as token ids, beside the model's vectors
    of the same phrases (`model`) and of the site's chunks (`chunks`)."""
    static, kept = [], []
    for i, ids in enumerate(phrase_ids):
        summed = summed_rows(table, ids)
        if summed is not None and np.any(summed):
            static.append(summed.astype(np.float32))
            kept.append(i)
    if not kept or len(chunks) == 0:
        return None
    static_vectors = _unit(np.stack(static))
    model_vectors = _unit(np.asarray(model, dtype=np.float32)[kept])
    chunk_vectors = _unit(np.asarray(chunks, dtype=np.float32))
    top = min(TOP, len(chunk_vectors))
    first_static = _top(static_vectors @ chunk_vectors.T, top)
    first_model = _top(model_vectors @ chunk_vectors.T, top)
    shared = [len(set(a) & set(b)) / top for a, b in zip(first_static, first_model)]
    cosines = np.sum(static_vectors * model_vectors, axis=1)
    return Fidelity(phrases=len(kept), cosine=float(np.mean(cosines)),
                    agreement=float(np.mean(shared)))


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.clip(np.linalg.norm(x, axis=1, keepdims=True), 1e-12, None)


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    return np.argpartition(-scores, k - 1, axis=1)[:, :k]
