"""Symmetric positive definite solves that hold only the lower triangle, once.

`numpy.linalg.solve` takes the full n x n matrix and copies it for its LU factor: two
n x n float64 arrays, 2 x 300 MB for the ~6k tokens of a site's vocabulary. Here the
lower triangle is stored as column blocks of one flat array and factored in place
(blocked right-looking Cholesky): about n^2 / 2 floats in all, with half the
arithmetic of an LU solve. Still float64 throughout, so the solution matches the
dense solve to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

BLOCK = 256
"""Columns per block: big enough for fast matrix products, small enough that the
temporaries of one update ((n - start) x BLOCK floats) stay a few MB."""


@dataclass
class PackedLower:
    """The lower triangle (diagonal included) of a symmetric n x n float64 matrix.

    Column block k holds columns starts[k]:starts[k] + widths[k], rows starts[k]:n, as
    a row-major (n - starts[k]) x widths[k] view into `data`. Its square top (the
    diagonal block) is read as lower triangle only.
    """

    n: int
    block: int = BLOCK
    data: np.ndarray = field(init=False, repr=False)
    starts: np.ndarray = field(init=False, repr=False)
    widths: np.ndarray = field(init=False, repr=False)
    offsets: np.ndarray = field(init=False, repr=False)
    factored: bool = field(init=False, default=False)
    """True once `factor` has replaced the matrix with its Cholesky factor L."""

    def __post_init__(self) -> None:
        if self.n < 0 or self.block < 1:
            raise ValueError(f"need n >= 0 and block >= 1, got n={self.n}, "
                             f"block={self.block}")
        self.starts = np.arange(0, self.n, self.block, dtype=np.int64)
        self.widths = np.minimum(self.block, self.n - self.starts)
        self.offsets = np.r_[0, np.cumsum((self.n - self.starts) * self.widths)].astype(np.int64)
        self.data = np.zeros(int(self.offsets[-1]))

    def column_block(self, k: int) -> np.ndarray:
        """Block k as a writable (n - start) x width view."""
        start, width = int(self.starts[k]), int(self.widths[k])
        return self.data[self.offsets[k] : self.offsets[k + 1]].reshape(self.n - start, width)

    def positions(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """Where entries (rows[i], columns[i]) of the lower triangle sit in `data`
        (every rows[i] >= columns[i])."""
        k = columns // self.block
        start = k * self.block
        return self.offsets[k] + (rows - start) * self.widths[k] + (columns - start)

    def add_to_diagonal(self, value: float) -> None:
        for k in range(len(self.starts)):
            top = self.column_block(k)[: self.widths[k]]
            top[np.diag_indices_from(top)] += value

    def to_dense(self) -> np.ndarray:
        """The full symmetric matrix (or, once factored, the lower-triangular L)."""
        out = np.zeros((self.n, self.n))
        for k, (start, width) in enumerate(zip(self.starts.tolist(), self.widths.tolist())):
            out[start:, start : start + width] = self.column_block(k)
        lower = np.tril(out)
        return lower if self.factored else lower + np.tril(lower, -1).T

    def factor(self) -> None:
        """Replace the matrix with L (A = L L^T), in place.

        Raises numpy.linalg.LinAlgError when the matrix is not positive definite.
        """
        if self.factored:
            raise ValueError("this matrix is factored already")
        blocks = len(self.starts)
        for k in range(blocks):
            start, width = int(self.starts[k]), int(self.widths[k])
            column = self.column_block(k)
            top = np.tril(column[:width])
            top = np.linalg.cholesky(top + np.tril(top, -1).T)
            column[:width] = top
            below = column[width:]
            if not len(below):
                continue
            below[:] = np.linalg.solve(top, below.T).T  # L21 = A21 L11^-T
            for j in range(k + 1, blocks):
                # The trailing matrix less L21 L21^T, one column block at a time.
                first = int(self.starts[j]) - start - width
                rows = below[first:]
                self.column_block(j)[:] -= rows @ rows[: self.widths[j]].T
        self.factored = True

    def solve(self, right: np.ndarray) -> np.ndarray:
        """X with A X = right, by forward then backward substitution through L."""
        if not self.factored:
            raise ValueError("factor the matrix before solving with it")
        right = np.asarray(right, dtype=np.float64)
        if len(right) != self.n:
            raise ValueError(f"the matrix has {self.n} rows, the right side {len(right)}")
        x = right.copy()
        spans = list(zip(range(len(self.starts)), self.starts.tolist(), self.widths.tolist()))
        for k, start, width in spans:  # L z = right
            column = self.column_block(k)
            end = start + width
            x[start:end] = np.linalg.solve(column[:width], x[start:end])
            x[end:] -= column[width:] @ x[start:end]
        for k, start, width in reversed(spans):  # L^T x = z
            column = self.column_block(k)
            end = start + width
            x[start:end] -= column[width:].T @ x[end:]
            x[start:end] = np.linalg.solve(column[:width].T, x[start:end])
        return x
