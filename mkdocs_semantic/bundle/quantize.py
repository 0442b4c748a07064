"""float32 <-> stored vectors: int8 with one global scale, or float16/float32."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DTYPES = {"i8": np.int8, "f16": np.float16, "f32": np.float32}


@dataclass(frozen=True)
class Quantized:
    """Stored vectors and the scale that maps them back: float ≈ stored / scale."""

    vectors: np.ndarray
    dtype: str
    scale: float


def global_scale(vectors: np.ndarray) -> float:
    """The one scale for int8: the largest component maps to 127, so nothing clips."""
    peak = float(np.abs(vectors).max()) if vectors.size else 0.0
    return 127.0 / peak if peak > 0 else 1.0


KEEP_SCALE_FILL = 0.8
"""A rebuild keeps the scale of the build before while the vectors still fill at least
this share of the int8 range with it (and do not overflow it)."""


def quantize(vectors: np.ndarray, dtype: str, *, previous_scale: float | None = None
             ) -> Quantized:
    """`previous_scale`: the int8 scale of the build before, kept when it still fits, so
    that an unchanged vector keeps its bytes."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    vectors = np.asarray(vectors, dtype=np.float32)
    if dtype == "i8":
        scale = global_scale(vectors)
        if previous_scale is not None and KEEP_SCALE_FILL * scale <= previous_scale <= scale:
            scale = previous_scale
        stored = np.clip(np.rint(vectors * scale), -127, 127).astype(np.int8)
        return Quantized(stored, dtype, scale)
    return Quantized(vectors.astype(DTYPES[dtype]), dtype, 1.0)


def dequantize(stored: np.ndarray, scale: float) -> np.ndarray:
    return stored.astype(np.float32) / np.float32(scale)
