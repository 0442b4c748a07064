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


def quantize(vectors: np.ndarray, dtype: str) -> Quantized:
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; use one of {', '.join(DTYPES)}")
    vectors = np.asarray(vectors, dtype=np.float32)
    if dtype == "i8":
        scale = global_scale(vectors)
        stored = np.clip(np.rint(vectors * scale), -127, 127).astype(np.int8)
        return Quantized(stored, dtype, scale)
    return Quantized(vectors.astype(DTYPES[dtype]), dtype, 1.0)


def dequantize(stored: np.ndarray, scale: float) -> np.ndarray:
    return stored.astype(np.float32) / np.float32(scale)
