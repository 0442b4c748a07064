"""int8 with one global scale, and the float types."""

from __future__ import annotations

import numpy as np
import pytest

from mkdocs_semantic.bundle.quantize import dequantize, global_scale, quantize


def unit_vectors(n: int = 200, dim: int = 32, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_int8_uses_the_full_range_without_clipping():
    x = unit_vectors()
    q = quantize(x, "i8")
    assert q.vectors.dtype == np.int8
    assert np.abs(q.vectors).max() == 127
    assert q.scale == pytest.approx(global_scale(x))


def test_int8_round_trip_error_is_at_most_half_a_step():
    x = unit_vectors()
    q = quantize(x, "i8")
    assert np.abs(dequantize(q.vectors, q.scale) - x).max() <= 0.5 / q.scale + 1e-7


def test_int8_preserves_the_ranking_of_nearest_neighbours():
    x = unit_vectors(500, 64)
    queries = unit_vectors(50, 64, seed=1)
    q = quantize(x, "i8")
    exact = np.argsort(-(queries @ x.T), axis=1)[:, :10]
    approx = np.argsort(-(queries @ q.vectors.T.astype(np.float32)), axis=1)[:, :10]
    overlap = np.mean([len(set(a) & set(e)) / 10 for a, e in zip(approx, exact)])
    assert overlap >= 0.95


@pytest.mark.parametrize("dtype, numpy_type", [("f16", np.float16), ("f32", np.float32)])
def test_float_types_keep_scale_one(dtype, numpy_type):
    q = quantize(unit_vectors(), dtype)
    assert q.vectors.dtype == numpy_type and q.scale == 1.0


def test_unknown_dtype_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown dtype 'b1'"):
        quantize(unit_vectors(), "b1")


def test_empty_input():
    q = quantize(np.zeros((0, 8), dtype=np.float32), "i8")
    assert q.vectors.shape == (0, 8) and q.scale == 1.0


def test_a_rebuild_keeps_the_previous_scale_only_while_it_fits():
    x = unit_vectors()
    scale = global_scale(x)
    # a little headroom left: kept, so unchanged vectors keep their bytes
    kept = quantize(x, "i8", previous_scale=0.9 * scale)
    assert kept.scale == 0.9 * scale and np.abs(kept.vectors).max() < 127
    np.testing.assert_array_equal(kept.vectors[:10], quantize(x[:10], "i8",
                                                              previous_scale=0.9 * scale).vectors)
    # it would clip the largest component: a new scale
    assert quantize(x, "i8", previous_scale=1.01 * scale).scale == pytest.approx(scale)
    # it would leave more than a fifth of the int8 range unused: a new scale
    assert quantize(x, "i8", previous_scale=0.7 * scale).scale == pytest.approx(scale)
    assert quantize(x, "f16", previous_scale=0.9 * scale).scale == 1.0
