"""A static query encoder: a token table fitted at build time on the site's own text.

Documents keep their transformer vectors. A query is embedded as the sum of the
table rows of its tokens (each row already carries its token's weight), then L2
normalized: no model at query time. The table comes from a ridge regression
that makes the weighted mean of a text's token rows predict the model's vector
of that text, pulled towards a prior row per token (the model's vector of the
token alone):

    minimize  sum_i s_i |sum_j a_ij E_j - y_i|^2  +  lam * sum_t |E_t - P_t|^2

`a_ij` is token j's weight in text i divided by the text's total weight (so a
row of A sums to 1), `s_i` an optional per-text weight. The normal equations
(A^T S A + lam I) E = A^T S Y + lam P are solved for the tokens that occur in
the training texts; a token only in the prior keeps its prior row. The solve is a
dense Cholesky factor that holds only the lower triangle (packed_cholesky.py), of
this tokens x tokens system or, when there are fewer texts than tokens, of the
texts x texts one that gives the same E (`solve_over_texts`).

Query side, in any language: ids -> rows of the known ids summed (int8 rows may
be summed as integers: the one scale cancels in the normalization) -> divided
by the sum's length. Unknown ids add nothing; no known id means no vector, and
the caller falls back to keyword results.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .packed_cholesky import BLOCK, PackedLower

WEIGHTINGS = ("none", "sif", "idf")
SIF_A = 1e-3
PAIRS_PER_FLUSH = 1 << 19
"""Token pairs gathered before they are summed into the gram (8 MB of positions)."""
DENSE_TOKEN_SHARE = 32
"""In text_gram, a token in more than 1/32 of the texts is multiplied as a dense column:
its pairs of texts would cost more one by one."""
ENTRIES_PER_BLOCK = 2048
"""Design entries multiplied at once in A^T Y and A R: each takes a row of dim floats
(2048 x 384 float64 is 6 MB; 16k entries held ~150 MB of temporaries)."""


@dataclass(frozen=True)
class TokenStats:
    """How often each token occurs in the site's text (special tokens left out)."""

    token_ids: np.ndarray
    """Distinct token ids, ascending."""
    counts: np.ndarray
    """Occurrences of each token over all texts."""
    document_counts: np.ndarray
    """Texts each token occurs in."""
    texts: int

    @classmethod
    def of(cls, sequences: Iterable[Sequence[int]], special_ids: Iterable[int]) -> TokenStats:
        special = np.fromiter(special_ids, dtype=np.int64)
        counts: dict[int, int] = {}
        documents: dict[int, int] = {}
        texts = 0
        for sequence in sequences:
            texts += 1
            ids = np.asarray(sequence, dtype=np.int64)
            ids = ids[~np.isin(ids, special)]
            distinct, occurrences = np.unique(ids, return_counts=True)
            for token, n in zip(distinct.tolist(), occurrences.tolist()):
                counts[token] = counts.get(token, 0) + n
                documents[token] = documents.get(token, 0) + 1
        token_ids = np.array(sorted(counts), dtype=np.int64)
        return cls(token_ids=token_ids,
                   counts=np.array([counts[t] for t in token_ids.tolist()], dtype=np.int64),
                   document_counts=np.array([documents[t] for t in token_ids.tolist()],
                                            dtype=np.int64),
                   texts=texts)

    def weights(self, weighting: str, *, sif_a: float = SIF_A) -> np.ndarray:
        """Per-token weight, aligned with `token_ids`.

        none: 1. sif: a / (a + p(t)), p the token's share of all tokens (frequent
        tokens fade). idf: log((1 + N) / (1 + df)) + 1, N texts, df texts with the token.
        """
        if weighting == "none":
            return np.ones(len(self.token_ids))
        if weighting == "sif":
            share = self.counts / max(1, int(self.counts.sum()))
            return sif_a / (sif_a + share)
        if weighting == "idf":
            return np.log((1 + self.texts) / (1 + self.document_counts)) + 1
        raise ValueError(f"unknown token weighting {weighting!r}: use one of "
                         f"{', '.join(WEIGHTINGS)}")


@dataclass(frozen=True)
class StaticTable:
    """Token id -> row (the token's weight baked in); float32 or int8 with one scale."""

    token_ids: np.ndarray
    """Token ids, ascending (int64)."""
    rows: np.ndarray
    """(len(token_ids), dim): float32, or int8 where `scale` maps back (float = int8 / scale)."""
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.rows.ndim != 2 or len(self.rows) != len(self.token_ids):
            raise ValueError(f"a table needs one row per token id: {len(self.token_ids)} ids, "
                             f"rows of shape {self.rows.shape}")
        if len(self.token_ids) > 1 and np.any(np.diff(self.token_ids) <= 0):
            raise ValueError("table token ids must be strictly ascending")

    @property
    def dim(self) -> int:
        return int(self.rows.shape[1])

    def lookup(self, ids: Sequence[int] | np.ndarray) -> np.ndarray:
        """Row numbers of the known ids among `ids` (unknown ones dropped, repeats kept)."""
        ids = np.asarray(ids, dtype=np.int64)
        if len(self.token_ids) == 0 or len(ids) == 0:
            return np.zeros(0, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.token_ids, ids), len(self.token_ids) - 1)
        return at[self.token_ids[at] == ids]

    def encode(self, ids: Sequence[int]) -> np.ndarray | None:
        """The query vector of token `ids` (special ids are simply not in the table):
        sum of rows, L2 normalized, float32; None when no id is known."""
        rows = self.lookup(ids)
        if len(rows) == 0:
            return None
        # Integer rows sum exactly (as they would in Float32 up to 2**24); the scale cancels.
        total = self.rows[rows].astype(np.float32 if self.rows.dtype.kind == "f" else np.int64)
        total = total.sum(axis=0).astype(np.float32)
        norm = float(np.linalg.norm(total))
        if norm == 0.0:
            return None
        return total / np.float32(norm)

    def quantize(self) -> StaticTable:
        """int8 rows with one global scale: the largest component maps to 127."""
        if self.rows.dtype == np.int8:
            return self
        peak = float(np.abs(self.rows).max()) if self.rows.size else 0.0
        scale = 127.0 / peak if peak > 0 else 1.0
        stored = np.clip(np.rint(self.rows * scale), -127, 127).astype(np.int8)
        return StaticTable(self.token_ids, stored, scale)

    def dequantize(self) -> StaticTable:
        if self.rows.dtype != np.int8:
            return self
        return StaticTable(self.token_ids, self.rows.astype(np.float32) / np.float32(self.scale))


@dataclass(frozen=True)
class TokenWeights:
    """Weight per token id for the fit and the query alike; ids not listed weigh `default`."""

    token_ids: np.ndarray
    weights: np.ndarray
    default: float = 1.0

    def of(self, ids: np.ndarray) -> np.ndarray:
        if len(self.token_ids) == 0:
            return np.full(len(ids), self.default)
        at = np.minimum(np.searchsorted(self.token_ids, ids), len(self.token_ids) - 1)
        return np.where(self.token_ids[at] == ids, self.weights[at], self.default)


@dataclass(frozen=True)
class Design:
    """The sparse text x token weight matrix A, as coordinates; rows sum to 1."""

    token_ids: np.ndarray
    """The columns: distinct token ids over all texts, ascending."""
    text: np.ndarray
    column: np.ndarray
    value: np.ndarray
    texts: int


def design_matrix(sequences: Sequence[Sequence[int]], *, special_ids: Iterable[int],
                  weights: TokenWeights | None = None) -> Design:
    """A for `sequences` of token ids: each text's tokens (specials skipped), repeats
    summed, weighted, divided by the text's total weight. A text with no token left
    gets an empty row (it then only adds nothing to the fit)."""
    special = np.fromiter(special_ids, dtype=np.int64)
    texts, tokens, values = [], [], []
    for i, sequence in enumerate(sequences):
        ids = np.asarray(sequence, dtype=np.int64)
        ids = ids[~np.isin(ids, special)]
        if len(ids) == 0:
            continue
        distinct, occurrences = np.unique(ids, return_counts=True)
        w = occurrences * (weights.of(distinct) if weights is not None else 1.0)
        total = w.sum()
        if total <= 0:
            continue
        texts.append(np.full(len(distinct), i, dtype=np.int64))
        tokens.append(distinct)
        values.append(w / total)
    if not tokens:
        empty = np.zeros(0, dtype=np.int64)
        return Design(empty, empty, empty, np.zeros(0), len(sequences))
    token_ids, column = np.unique(np.concatenate(tokens), return_inverse=True)
    return Design(token_ids=token_ids, text=np.concatenate(texts), column=column,
                  value=np.concatenate(values), texts=len(sequences))


def gram(design: Design, sample_weight: np.ndarray | None = None, *,
         block: int = BLOCK) -> PackedLower:
    """A^T S A, float64, as its lower triangle only (`PackedLower`, about n^2 / 2 floats).

    Each text adds v_a v_b to entry (a, b) for each pair of its tokens with a >= b.
    Pairs are summed a batch at a time into the one packed array: no n x n array is
    made (on a site's vocabulary of ~6k tokens one is 300 MB) and no batch holds more
    than PAIRS_PER_FLUSH pairs.
    """
    n = len(design.token_ids)
    out = PackedLower(n, block)
    if n == 0:
        return out
    s = np.ones(design.texts) if sample_weight is None else np.asarray(sample_weight, float)
    # Entries are grouped by text (design_matrix emits them text by text).
    starts = np.flatnonzero(np.r_[True, design.text[1:] != design.text[:-1]])
    ends = np.r_[starts[1:], len(design.text)]
    # Row-major, so the pairs of a text of m tokens are the first m (m + 1) / 2.
    first, second = np.tril_indices(int((ends - starts).max()))
    keys: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    pending = 0

    def flush() -> None:
        np.add.at(out.data, np.concatenate(keys), np.concatenate(vals))

    for lo, hi in zip(starts.tolist(), ends.tolist()):
        pairs = (hi - lo) * (hi - lo + 1) // 2
        i, j = first[:pairs], second[:pairs]
        c, v = design.column[lo:hi], design.value[lo:hi] * math.sqrt(s[design.text[lo]])
        keys.append(out.positions(np.maximum(c[i], c[j]), np.minimum(c[i], c[j])))
        vals.append(v[i] * v[j])
        pending += pairs
        if pending >= PAIRS_PER_FLUSH:
            flush()
            keys, vals, pending = [], [], 0
    if keys:
        flush()
    return out


def project_targets(design: Design, targets: np.ndarray,
                    sample_weight: np.ndarray | None = None) -> np.ndarray:
    """A^T S Y (columns x dim), float64, summed ENTRIES_PER_BLOCK entries at a time
    (a common token has an entry in nearly every text: a block per column would copy
    a row of Y for each)."""
    targets = np.asarray(targets)
    out = np.zeros((len(design.token_ids), targets.shape[1]))
    if len(design.value) == 0:
        return out
    value = design.value if sample_weight is None else \
        design.value * np.asarray(sample_weight, float)[design.text]
    order = np.argsort(design.column, kind="stable")
    column, text, value = design.column[order], design.text[order], value[order]
    for lo in range(0, len(column), ENTRIES_PER_BLOCK):
        block = column[lo : lo + ENTRIES_PER_BLOCK]
        starts = np.flatnonzero(np.r_[True, block[1:] != block[:-1]])
        product = value[lo : lo + ENTRIES_PER_BLOCK, None] * targets[text[lo : lo + len(block)]]
        out[block[starts]] += np.add.reduceat(product, starts, axis=0)
    return out


def design_times(design: Design, rows: np.ndarray) -> np.ndarray:
    """A R (texts x dim) for R with a row per column, ENTRIES_PER_BLOCK entries at a time."""
    out = np.zeros((design.texts, rows.shape[1]))
    for lo in range(0, len(design.value), ENTRIES_PER_BLOCK):
        text = design.text[lo : lo + ENTRIES_PER_BLOCK]
        starts = np.flatnonzero(np.r_[True, text[1:] != text[:-1]])
        product = design.value[lo : lo + len(text), None] * \
            rows[design.column[lo : lo + len(text)]]
        out[text[starts]] += np.add.reduceat(product, starts, axis=0)
    return out


def text_gram(design: Design, *, block: int = BLOCK) -> PackedLower:
    """A A^T (texts x texts), float64, as its lower triangle.

    A token in many texts adds a dense texts x texts product; those tokens (in more
    than a DENSE_TOKEN_SHARE of the texts) are multiplied as dense columns, the rest
    summed pair by pair.
    """
    m = design.texts
    out = PackedLower(m, block)
    if m == 0 or len(design.value) == 0:
        return out
    texts_with = np.bincount(design.column, minlength=len(design.token_ids))
    dense_column = texts_with * DENSE_TOKEN_SHARE > m
    in_dense = dense_column[design.column]
    renumber = np.cumsum(dense_column) - 1
    dense = np.zeros((m, int(dense_column.sum())))
    dense[design.text[in_dense], renumber[design.column[in_dense]]] = design.value[in_dense]
    for k, (start, width) in enumerate(zip(out.starts.tolist(), out.widths.tolist())):
        out.column_block(k)[:] += dense[start:] @ dense[start : start + width].T
    del dense
    order = np.argsort(design.column[~in_dense], kind="stable")  # texts ascending per column
    column = design.column[~in_dense][order]
    text = design.text[~in_dense][order]
    value = design.value[~in_dense][order]
    if not len(column):
        return out
    starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]])
    ends = np.r_[starts[1:], len(column)]
    first, second = np.tril_indices(int((ends - starts).max()))
    keys, vals, pending = [], [], 0
    for lo, hi in zip(starts.tolist(), ends.tolist()):
        pairs = (hi - lo) * (hi - lo + 1) // 2
        i, j = first[:pairs], second[:pairs]
        t, v = text[lo:hi], value[lo:hi]
        keys.append(out.positions(np.maximum(t[i], t[j]), np.minimum(t[i], t[j])))
        vals.append(v[i] * v[j])
        pending += pairs
        if pending >= PAIRS_PER_FLUSH:
            np.add.at(out.data, np.concatenate(keys), np.concatenate(vals))
            keys, vals, pending = [], [], 0
    if keys:
        np.add.at(out.data, np.concatenate(keys), np.concatenate(vals))
    return out


def solve_over_tokens(design: Design, targets: np.ndarray, prior_rows: np.ndarray, *,
                      lam: float, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """E from the normal equations (A^T S A + lam I) E = A^T S Y + lam P: a tokens x
    tokens system."""
    right = project_targets(design, targets, sample_weight)
    right += lam * prior_rows
    left = gram(design, sample_weight)
    left.add_to_diagonal(lam)
    left.factor()
    return left.solve(right)


def solve_over_texts(design: Design, targets: np.ndarray, prior_rows: np.ndarray, *,
                     lam: float, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """The same E from a texts x texts system (lam > 0): with B = S^1/2 A,

        E = P + B^T (B B^T + lam I)^-1 S^1/2 (Y - A P)

    (the push-through identity (B^T B + lam I)^-1 B^T = B^T (B B^T + lam I)^-1 applied
    to E - P). Fewer texts than tokens make it the smaller system.
    """
    if lam <= 0:
        raise ValueError(f"solving over the texts needs lam > 0, got {lam}")
    root = np.ones(design.texts) if sample_weight is None else \
        np.sqrt(np.asarray(sample_weight, float))
    scaled = replace(design, value=design.value * root[design.text])
    residual = (np.asarray(targets, dtype=np.float64) - design_times(design, prior_rows))
    residual *= root[:, None]
    left = text_gram(scaled)
    left.add_to_diagonal(lam)
    left.factor()
    return prior_rows + project_targets(scaled, left.solve(residual))


def fit_table(design: Design, targets: np.ndarray, *, lam: float,
              prior: StaticTable | None = None, weights: TokenWeights | None = None,
              sample_weight: np.ndarray | None = None,
              solve_ids: np.ndarray | None = None) -> StaticTable:
    """Solve (A^T S A + lam I) E = A^T S Y + lam P and bake each token's weight in.

    `prior` rows (unweighted) are P for the tokens it holds and zero elsewhere; its
    tokens missing from the training texts keep their prior row (what the solve
    gives them). With `solve_ids`, only those tokens are solved for: every other
    token is held at its prior row (dropped when it has none) and its share of each
    text's prediction is taken off that text's target, which bounds the dense solve
    on a large vocabulary. lam must be positive unless A^T S A alone is invertible.
    """
    if lam < 0:
        raise ValueError(f"lam must be at least 0, got {lam}")
    if len(targets) != design.texts:
        raise ValueError(f"{design.texts} texts but {len(targets)} target vectors")
    dim = targets.shape[1]
    known = None
    if prior is not None:
        if prior.dim != dim:
            raise ValueError(f"prior rows have {prior.dim} dims, targets {dim}")
        known = prior.dequantize()
    if solve_ids is not None:
        design, targets = _hold_at_prior(design, np.asarray(targets, dtype=np.float64),
                                         solve_ids=np.asarray(solve_ids), prior=known)
    token_ids = design.token_ids
    prior_rows = np.zeros((len(token_ids), dim))
    if known is not None:
        present = np.isin(token_ids, known.token_ids)
        prior_rows[present] = known.rows[known.lookup(token_ids[present])]
    # Both give the same E; the smaller of texts and tokens sets the system's size.
    dual = lam > 0 and design.texts < len(token_ids)
    solve = solve_over_texts if dual else solve_over_tokens
    solved = solve(design, targets, prior_rows, lam=lam, sample_weight=sample_weight)
    if prior is not None:
        extra = ~np.isin(prior.token_ids, token_ids)
        token_ids = np.concatenate([token_ids, prior.token_ids[extra]])
        solved = np.concatenate([solved, prior.dequantize().rows[extra].astype(np.float64)])
        order = np.argsort(token_ids)
        token_ids, solved = token_ids[order], solved[order]
    if weights is not None:
        solved = solved * weights.of(token_ids)[:, None]
    return StaticTable(token_ids.astype(np.int64), solved.astype(np.float32))


def _hold_at_prior(design: Design, targets: np.ndarray, *, solve_ids: np.ndarray,
                   prior: StaticTable | None) -> tuple[Design, np.ndarray]:
    """The design restricted to `solve_ids`, and the targets less the held tokens' part."""
    solve = np.isin(design.token_ids, solve_ids)
    entry_solved = solve[design.column]
    held = ~entry_solved
    residual = targets.copy()
    if prior is not None and held.any():
        held_ids = design.token_ids[design.column[held]]
        has_prior = np.isin(held_ids, prior.token_ids)
        text = design.text[held][has_prior]
        part = design.value[held][has_prior, None] * \
            prior.rows[prior.lookup(held_ids[has_prior])].astype(np.float64)
        np.add.at(residual, text, -part)
    kept_ids = design.token_ids[solve]
    renumber = np.cumsum(solve) - 1
    restricted = Design(token_ids=kept_ids, text=design.text[entry_solved],
                        column=renumber[design.column[entry_solved]],
                        value=design.value[entry_solved], texts=design.texts)
    return restricted, residual


def prior_table(token_ids: np.ndarray, vectors: np.ndarray) -> StaticTable:
    """A table of each token's own model vector (unweighted), e.g. as the fit's prior."""
    order = np.argsort(token_ids)
    return StaticTable(np.asarray(token_ids, dtype=np.int64)[order],
                       np.asarray(vectors, dtype=np.float32)[order])


