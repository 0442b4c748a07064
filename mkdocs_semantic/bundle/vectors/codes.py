"""A query vector as int8 codes for the scan over int8 rows; the spec the browser
client's scan follows."""

from __future__ import annotations

import math

import numpy as np


def query_codes(vector: np.ndarray) -> np.ndarray | None:
    """int8 codes of a query vector: its largest component maps to 127, halves round up.

    Written as floor(x * (127 / peak) + 0.5) in float64 so that JavaScript's
    Math.floor gives the same codes. None for an all-zero vector.
    """
    values = np.asarray(vector, dtype=np.float64)
    peak = float(np.abs(values).max()) if values.size else 0.0
    if peak == 0.0:
        return None
    return np.floor(values * (127.0 / peak) + 0.5).astype(np.int8)


def codes_norm(codes: np.ndarray) -> float:
    """|codes|: an exact integer sum, then IEEE sqrt (the same in every language)."""
    return math.sqrt(int(np.dot(codes.astype(np.int64), codes.astype(np.int64))))


