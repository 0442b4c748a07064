"""The packed lower-triangle Cholesky against numpy's dense factor and solve."""

from __future__ import annotations

import numpy as np
import pytest

from mkdocs_semantic.indexing.query_table.packed_cholesky import PackedLower


def packed(matrix: np.ndarray, block: int) -> PackedLower:
    out = PackedLower(len(matrix), block)
    rows, columns = np.tril_indices(len(matrix))
    out.data[out.positions(rows, columns)] = matrix[rows, columns]
    return out


def spd(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n + 5, n))
    return a.T @ a + 0.1 * np.eye(n)


@pytest.mark.parametrize("block", [1, 3, 7, 50, 64])
def test_factor_and_solve_equal_numpy(block):
    matrix = spd(50, seed=block)
    right = np.random.default_rng(0).normal(size=(50, 6))
    lower = packed(matrix, block)
    np.testing.assert_allclose(lower.to_dense(), matrix)
    lower.factor()
    np.testing.assert_allclose(lower.to_dense(), np.linalg.cholesky(matrix), atol=1e-10)
    np.testing.assert_allclose(lower.solve(right), np.linalg.solve(matrix, right),
                               rtol=1e-9, atol=1e-11)


def test_add_to_diagonal():
    matrix = spd(9, seed=1)
    lower = packed(matrix, 4)
    lower.add_to_diagonal(2.5)
    np.testing.assert_allclose(lower.to_dense(), matrix + 2.5 * np.eye(9))


def test_entries_above_the_diagonal_are_never_read():
    """Within a diagonal block only the lower triangle counts (the trailing updates
    write the whole square)."""
    matrix = spd(12, seed=2)
    lower = packed(matrix, 6)
    for k in range(2):
        top = lower.column_block(k)[:6]
        top[np.triu_indices(6, 1)] = 1e6
    lower.factor()
    np.testing.assert_allclose(lower.solve(np.eye(12)), np.linalg.inv(matrix), atol=1e-9)


def test_not_positive_definite_fails_and_misuse_is_named():
    lower = packed(np.array([[1.0, 2.0], [2.0, 1.0]]), 1)
    with pytest.raises(ValueError, match="factor the matrix before solving"):
        lower.solve(np.zeros((2, 1)))
    with pytest.raises(np.linalg.LinAlgError):
        lower.factor()
    ok = packed(spd(3, seed=3), 2)
    ok.factor()
    with pytest.raises(ValueError, match="3 rows, the right side 2"):
        ok.solve(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="factored already"):
        ok.factor()


def test_empty_matrix():
    lower = PackedLower(0)
    lower.factor()
    assert lower.solve(np.zeros((0, 4))).shape == (0, 4)
